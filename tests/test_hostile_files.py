"""The pgm-models command on hostile files (issue 33): a nominal column of a million levels,
thousands of columns, a header of a million names and no rows, an integer target of a thousand
values, directories, symlink loops and repeated column names. Each finishes within its time and
address-space limits or exits 2 with a one-line error; the CLI runs in a subprocess under
``RLIMIT_AS`` (a bare ``pgm-models fit`` on a tiny file already reserves about 1.6 GiB)."""

import os
import resource
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pgm_models import LDA, QDA
from pgm_models.datasets import load_dataset
from pgm_models.inference.summary import labelled_table, posterior_summary

pytestmark = pytest.mark.filterwarnings("ignore")

ADDRESS_SPACE = 2 << 30


def _limit():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _cli(*argv, timeout=150):
    """pgm-models in a subprocess under a 2 GiB address space; the worktree's package first."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-m", "pgm_models.app.cli", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_limit,
        env=env,
    )


def _one_line_error(result, *fragments):
    assert result.returncode == 2, (result.stdout[-2000:], result.stderr[-2000:])
    assert result.stderr.startswith("pgm-models: error: ") and result.stderr.count("\n") == 1, result.stderr[-2000:]
    assert "unexpected" not in result.stderr, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


def test_a_million_level_column_prints_its_first_rows_under_the_limits(tmp_path):
    """Once every cell of a shown variable was drawn 2,000 times: 29.8 GiB asked for, a MemoryError."""
    path = tmp_path / "levels.csv"
    path.write_text("a,y\n" + "".join(f"v{i},{'ab'[i % 2]}\n" for i in range(1_000_000)))
    result = _cli("fit", "--model", "categorical-nb", "--data", str(path), "--max-rows", "4")
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert "1000000 rows, 1 attributes" in lines[0]
    # class_prob ~ Beta(500001, 500001): its exact 3 % and 97 % quantiles
    q = stats.beta(500_001, 500_001).ppf([0.03, 0.97])
    assert lines[2].split()[-2:] == [f"{q[0]:.4e}", f"{q[1]:.4e}"]
    assert lines[-1] == "… 1999998 more rows (--max-rows 0 prints all)"


def test_labelled_table_reads_only_the_rows_shown_and_labels_them_as_arviz_does():
    from arviz.labels import BaseLabeller
    from arviz.sel_utils import xarray_sel_iter

    model = QDA().fit(*load_dataset("iris"))
    mean, sd = model.analytic_posterior("mean"), model.analytic_posterior("sd")
    full = labelled_table(mean=mean, sd=sd)
    arviz = [
        BaseLabeller().make_label_flat(name, sel, isel) for name, sel, isel in xarray_sel_iter(mean, combined=True)
    ]
    assert full["parameter"].tolist() == arviz and len(full) == 3 + 3 * 4 + 3 * 16
    for rows in (0, 2, 3, 10, 1000):
        pd.testing.assert_frame_equal(
            labelled_table(rows, mean=mean, sd=sd), full.head(rows).reset_index(drop=True), check_dtype=rows > 0
        )


def test_summary_matches_the_analytic_datasets_and_counts_every_parameter():
    model = QDA().fit(*load_dataset("iris"))
    summary = posterior_summary(model)
    statistics = {s: model.analytic_posterior(s) for s in ("mean", "sd", "mode")}
    pd.testing.assert_frame_equal(
        summary[["variable", "parameter", "mean", "sd", "mode"]], labelled_table(**statistics)
    )
    assert summary.attrs["n_parameters"] == len(summary) == posterior_summary(model, max_rows=7).attrs["n_parameters"]


@pytest.mark.parametrize("model_class, index", [(LDA, (0, 3)), (QDA, (2, 1, 3))])
def test_an_off_diagonal_covariance_drawn_alone_has_the_joint_draws_distribution(model_class, index):
    """Σ_ij from its 2 × 2 principal block (IW(ν − p + 2, Ψ_block)) against Σ_ij of full
    inverse-Wishart draws: a two-sample KS test at level 1e-6 (that false-failure chance)."""
    model = model_class().fit(*load_dataset("iris"))
    posterior = model._parameters()["cov"][0]
    alone = posterior.sample_entry(index, 20_000, random_state=1)
    joint = posterior.joint.sample(20_000, random_state=2)["cov"][(slice(None),) + index]
    assert stats.ks_2samp(alone, joint).pvalue > 1e-6
    assert abs(alone.mean() - model.analytic_posterior("mean")["cov"].values[index]) < 6 * alone.std() / np.sqrt(
        len(alone)
    )


def _wide_csv(tmp_path, columns=5000, rows=20, numeric=False):
    rng = np.random.default_rng(0)
    cycle = np.array(list("abc"))[np.add.outer(np.arange(rows), np.arange(columns)) % 3]  # every value in every column
    values = rng.normal(size=(rows, columns)).round(3).astype(str) if numeric else cycle
    path = tmp_path / ("wide-numeric.csv" if numeric else "wide.csv")
    lines = [",".join(f"c{j}" for j in range(columns)) + ",y"] + [
        ",".join(row) + f",{'pn'[i % 2]}" for i, row in enumerate(values)
    ]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_five_thousand_nominal_columns_fit_under_the_limits(tmp_path):
    """Reading and preparing the columns cost the width once each (a column assignment per column
    and list-membership tests cost it per column: quadratic)."""
    result = _cli("fit", "--model", "categorical-nb", "--data", _wide_csv(tmp_path), "--max-rows", "3")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "20 rows, 5000 attributes" in result.stdout.splitlines()[0]
    assert result.stdout.splitlines()[-1] == f"… {2 + 5000 * 2 * 3 - 3} more rows (--max-rows 0 prints all)"


@pytest.mark.parametrize("model", ["lda", "qda", "aode"])
def test_tables_that_cannot_fit_are_refused_up_front_in_one_line(tmp_path, model):
    """LDA's and QDA's 2 × 5000 × 5000 scatters and AODE's pair tensor, against the memory the
    process may use: its address-space limit counts too."""
    data = _wide_csv(tmp_path, numeric=model != "aode")
    result = _cli("fit", "--model", model, "--data", data)
    what = {
        "lda": "LDA's scatter matrices, 2 × 5000 × 5000",
        "qda": "QDA's scatter matrices, 2 × 5000 × 5000",
        "aode": "AODE's pair counts, a 2 × 20000 × 20000 tensor",
    }[model]
    _one_line_error(result, what, "GiB available")


def test_the_memory_available_counts_an_address_space_limit():
    code = (
        "import resource; from pgm_models.discrete.pairs import _address_space_left, available_memory; "
        "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)); left = _address_space_left(); "
        "print(0 < left < 3 << 30, available_memory(max_age=0) <= left)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.split() == ["True", "True"], result.stderr[-2000:]


def test_a_header_of_a_million_names_and_no_rows_is_refused_before_pandas_reads_it(tmp_path):
    """A 12 MB one-line CSV once ran past 120 s at 5 GB."""
    path = tmp_path / "header.csv"
    path.write_text(",".join(f"c{i}" for i in range(1_500_000)) + "\n")
    _one_line_error(
        _cli("fit", "--model", "categorical-nb", "--data", str(path), timeout=120),
        str(path),
        "about 1500000 columns, more than the 100000",
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ("a,b,y\n", "a header of 3 columns and no rows"),
        ("a,b,y\n\n\n", "a header of 3 columns and no rows"),
        ("", "the file is empty"),
        ("a,a,b,b,y\n1,2,3,4,p\n", "repeated column names 'a', 'b'"),
    ],
)
def test_csv_files_that_cannot_be_fitted_are_named(tmp_path, text, message):
    from pgm_models.datasets import MAX_COLUMNS, load_table

    path = tmp_path / "t.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=f"^{path}: {message}"):
        load_table(path)
    path.write_text(",".join(f"c{i}" for i in range(MAX_COLUMNS)) + "\n" + ",".join("1" * MAX_COLUMNS) + "\n")
    assert load_table(path)[0].shape == (1, MAX_COLUMNS - 1)  # the limit itself is allowed
    path.write_text("a,a.1,y\n1,2,p\n")  # names pandas would have made of repeats, written as such, are two names
    assert list(load_table(path)[0].columns) == ["a", "a.1"]


def test_an_integer_target_of_a_thousand_values_is_refused_at_once(tmp_path):
    """Logistic regression once ran NUTS on a thousand classes' parameters for minutes."""
    rng = np.random.default_rng(0)
    path = tmp_path / "target.csv"
    pd.DataFrame({"x": rng.normal(size=1500).round(3), "y": np.arange(1500) % 1000}).to_csv(path, index=False)
    _one_line_error(
        _cli("fit", "--model", "logistic-regression", "--data", str(path), timeout=120),
        "the target 'y' looks continuous: 1000 distinct numbers in 1500 rows",
        "--max-classes 1000",
    )


def test_many_numeric_classes_go_ahead_with_max_classes_or_when_rows_repeat_them(tmp_path, capsys):
    from pgm_models.app.cli import main

    rng = np.random.default_rng(0)
    path = tmp_path / "target.csv"
    pd.DataFrame({"x": rng.normal(size=100).round(3), "y": np.arange(100) % 60}).to_csv(path, index=False)
    assert main(["fit", "--model", "gaussian-nb", "--data", str(path)]) == 2
    assert "looks continuous: 60 distinct numbers in 100 rows" in capsys.readouterr().err
    assert main(["fit", "--model", "gaussian-nb", "--data", str(path), "--max-classes", "60", "--max-rows", "2"]) == 0
    assert "60 classes" not in capsys.readouterr().err
    pd.DataFrame({"x": rng.normal(size=200).round(3), "y": np.arange(200) % 60}).to_csv(
        path, index=False
    )  # 60 < 100 rows
    assert main(["fit", "--model", "gaussian-nb", "--data", str(path), "--max-rows", "2"]) == 0
    assert main(["fit", "--model", "gaussian-nb", "--data", str(path), "--max-classes", "0"]) == 2
    assert "--max-classes must be ≥ 1, got 0" in capsys.readouterr().err


def test_directories_symlink_loops_and_broken_links_are_named(tmp_path, capsys):
    from pgm_models.app.cli import main

    (tmp_path / "folder.csv").mkdir()
    os.symlink(tmp_path / "loop-b.csv", tmp_path / "loop-a.csv")
    os.symlink(tmp_path / "loop-a.csv", tmp_path / "loop-b.csv")
    os.symlink(tmp_path / "gone.csv", tmp_path / "broken.csv")
    for name, what in [
        ("folder.csv", "is a directory, not a file"),
        ("loop-a.csv", "is a symlink loop, not a file"),
        ("broken.csv", "is a broken symlink (to "),
        ("absent.csv", "no such file"),
    ]:
        assert main(["fit", "--model", "categorical-nb", "--data", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"pgm-models: error: {tmp_path / name}: {what}") and err.count("\n") == 1, err


def test_missing_target_labels_are_refused_before_any_single_class_warning(tmp_path, capsys):
    from pgm_models.app.cli import main

    path = tmp_path / "t.csv"
    path.write_text("x,y\n1,a\n2,\n3,a\n4,\n")
    assert main(["fit", "--model", "categorical-nb", "--data", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == (
        "pgm-models: error: the target 'y' is missing in 2 of 4 rows (the first at row 2 after the header): "
        "drop those rows or fill in their labels\n"
    )
