"""The pgm-models command on users' files and arguments: model names, CSV delimiters and
missing values, columns a model cannot take, one-line errors, fast --help, the zoo's table
and its failed-verification advice, and posterior summaries that compute only what they show."""

import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from pgm_models import AODE, CategoricalNB
from pgm_models.app.cli import _model_name, _verification_advice, main
from pgm_models.datasets import dataset_path, load_table
from pgm_models.inference.summary import posterior_summary

pytestmark = pytest.mark.filterwarnings("ignore")

HEAVY = ("numpy", "pandas", "scipy", "sklearn", "pymc", "pytensor", "arviz")


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["fit", "--help"],
        ["zoo", "--help"],
        ["fit", "--model", "nope", "--data", "x.csv"],
        ["fit", "--model", "aode", "--data", "no-such-file.csv"],
        ["zoo", "--dataset", "nope"],
        ["zoo", "--draws", "0"],
    ],
)
def test_help_and_argument_errors_import_no_heavy_module(argv):
    """The < 0.5 s answer (4.7 s before: PyMC was imported first) is this property: nothing
    heavy is imported. The time itself is measured in the report, not asserted."""
    code = (
        f"import sys; from pgm_models.app.cli import main; status = main({argv!r}); "
        f"print(status, sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    status, loaded = result.stdout.strip().splitlines()[-1].split(" ", 1)
    assert loaded == "[]", result.stdout
    assert status == ("0" if "--help" in argv else "2")
    if status == "2":
        assert result.stderr.startswith("pgm-models: error: ") and result.stderr.strip().count("\n") == 0, result.stderr


@pytest.mark.parametrize(
    "text, name",
    [
        ("CategoricalNB", "categorical-nb"),
        ("categoricalnb", "categorical-nb"),
        ("CATEGORICAL-NB", "categorical-nb"),
        ("categorical_nb", "categorical-nb"),
        ("GaussianNB", "gaussian-nb"),
        ("gaussiannb", "gaussian-nb"),
        ("tan", "tan"),
        ("LogisticRegression", "logistic-regression"),
        ("Lda", "lda"),
    ],
)
def test_model_names_accept_class_names_in_any_case(text, name):
    assert _model_name(text) == name


def test_an_unknown_model_lists_the_names(capsys):
    assert main(["fit", "--model", "naive", "--data", "x.csv"]) == 2
    err = capsys.readouterr().err
    assert (
        "unknown model 'naive'; choose from categorical-nb, " in err and "CategoricalNB" in err and err.count("\n") == 1
    )


def _csv(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_csv_cells_are_missing_only_when_empty_or_named(tmp_path):
    path = _csv(tmp_path, "colour,label\nNA,a\nnull,b\nNone,a\nn/a,b\n,a\nred,b\n")
    X, _ = load_table(path)
    assert list(X["colour"].cat.categories) == ["NA", "None", "n/a", "null", "red"]
    assert X["colour"].isna().tolist() == [False, False, False, False, True, False]
    X, _ = load_table(path, na_values=["NA", "n/a"])
    assert X["colour"].isna().tolist() == [True, False, False, True, True, False]


def test_na_values_option_of_fit(tmp_path, capsys):
    path = _csv(tmp_path, "colour,label\nNA,a\nred,a\nblue,b\nNA,b\n")
    assert main(["fit", "--model", "categorical-nb", "--data", path, "--max-rows", "0"]) == 0
    assert "feature_prob_colour[a, NA]" in capsys.readouterr().out
    assert main(["fit", "--model", "categorical-nb", "--data", path, "--max-rows", "0", "--na-values", "NA"]) == 0
    out = capsys.readouterr().out.splitlines()
    # NA missing: colour's domain is {blue, red}; class a has red once → (1 + 1) / (1 + 2)
    row = next(line.split() for line in out if line.split()[1:2] == ["feature_prob_colour[a,"])
    assert row[2] == "blue]" and float(row[3]) == pytest.approx(1 / 3, abs=5e-5)
    assert not any("NA]" in line for line in out)


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_csv_delimiter_is_sniffed(tmp_path, sep):
    path = _csv(
        tmp_path,
        sep.join(["a", "b", "class"])
        + "\n"
        + "\n".join(sep.join(r) for r in [["1", "x", "p"], ["2", "y", "q"], ["3", "x", "p"]])
        + "\n",
    )
    X, y = load_table(path)
    assert list(X.columns) == ["a", "b"] and X["a"].tolist() == [1, 2, 3] and y.tolist() == ["p", "q", "p"]


def test_a_wrong_delimiter_says_to_pass_sep(tmp_path, capsys):
    path = _csv(tmp_path, "a;b;class\n1;x;p\n2;y;q\n")
    assert main(["fit", "--model", "aode", "--data", path, "--sep", ","]) == 2
    err = capsys.readouterr().err
    assert "found columns ['a;b;class']" in err and "pass --sep" in err


def test_a_numeric_model_names_the_column_it_cannot_take(tmp_path, capsys):
    path = _csv(tmp_path, "height,colour,label\n1.5,blue,a\n1.7,red,b\n1.6,blue,a\n1.8,red,b\n")
    assert main(["fit", "--model", "GaussianNB", "--data", path]) == 2
    err = capsys.readouterr().err
    assert "column 'colour' is not numeric (values 'blue', 'red'…): GaussianNB takes numeric attributes" in err
    assert "--model categorical-nb" in err


def test_a_single_class_is_warned_about(tmp_path, capsys):
    path = _csv(tmp_path, "colour,label\nblue,a\nred,a\nred,a\n")
    assert main(["fit", "--model", "categorical-nb", "--data", path]) == 0
    captured = capsys.readouterr()
    assert "warning: the target 'label' has a single class ('a' in 3 rows)" in captured.err
    assert "class_prob[a]" in captured.out


def test_nominal_models_bin_numeric_columns_by_mdl_and_say_so(tmp_path, capsys):
    """x ≤ 10 in class a, x ≥ 11 in class b: MDL cuts at 10.5 (Weka's midpoint)."""
    x = list(range(1, 11)) + list(range(11, 21))
    path = _csv(tmp_path, "x,label\n" + "".join(f"{v},{'a' if v <= 10 else 'b'}\n" for v in x))
    assert main(["fit", "--model", "aode", "--data", path, "--max-rows", "0"]) == 0
    captured = capsys.readouterr()
    assert "numeric column(s) binned by MDL" in captured.err and "x → 2" in captured.err
    joint = {
        " ".join(line.split()[3:5]): float(line.split()[5])
        for line in captured.out.splitlines()[2:]
        if line.split()[2:3] == ["joint_prob"]
    }
    # P(y = a, x ∈ (-inf-10.5]) = (10 + 1) / (20 + 4) under AODE's Laplace estimate; no row of a above the cut
    assert joint == pytest.approx(
        {
            "joint_prob[a, (-inf-10.5]]": 11 / 24,
            "joint_prob[a, (10.5-inf)]": 1 / 24,
            "joint_prob[b, (-inf-10.5]]": 1 / 24,
            "joint_prob[b, (10.5-inf)]": 11 / 24,
        },
        abs=5e-5,
    )


@pytest.mark.parametrize(
    "name, text, model, message",
    [
        ("e.csv", "colour,e,label\nblue,,a\nred,,b\nblue,,a\n", "aode", "column 'e' has no observed value"),
        ("e.csv", "colour,e,label\nblue,,a\nred,,b\nblue,,a\n", "tan", "column 'e' has no observed value"),
        (
            "a.arff",
            "@relation r\n@attribute a {}\n@attribute c {x,y}\n@data\n?,x\n?,y\n",
            "categorical-nb",
            "column 'a' has no observed value",
        ),
        (
            "q.arff",
            "@relation r\n@attribute a {x,y}\n@attribute c {x,y}\n@data\n?,x\n?,y\n% a comment\n",
            "spode",
            "column 'a' has no observed value",
        ),
        (
            "s.arff",
            "@relation r\n@attribute a {n,y}\n@attribute c {z,w}\n@data\n{5 z}\n",
            "aode",
            "s.arff:5: sparse index '5' is not an attribute index 0..1",
        ),
        (
            "t.arff",
            "@relation r\n@attribute t string\n@attribute c {z,w}\n@data\n'a b',z\n",
            "aode",
            "column 't' holds text",
        ),
    ],
)
def test_bad_files_give_one_line_naming_the_problem(tmp_path, capsys, name, text, model, message):
    path = _csv(tmp_path, text, name)
    assert main(["fit", "--model", model, "--data", path]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pgm-models: error: ") and err.count("\n") == 1 and message in err, err


def test_an_unexpected_error_is_one_line_too(monkeypatch, capsys):
    import pgm_models.app.cli as cli

    monkeypatch.setattr(cli, "datasets", lambda args: 1 / 0)
    monkeypatch.setattr(cli, "_parser", lambda real=cli._parser: _with_run(real(), cli.datasets))
    assert main(["datasets"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pgm-models: error: unexpected ZeroDivisionError: division by zero") and err.count("\n") == 1
    monkeypatch.setenv("PGM_MODELS_TRACEBACK", "1")
    with pytest.raises(ZeroDivisionError):
        main(["datasets"])


def _with_run(parser, run):
    parser._subparsers._group_actions[0].choices["datasets"].set_defaults(run=run)
    return parser


def _failed(r_hat, ess, z=None, divergences=0):
    z = [0.5] * len(r_hat) if z is None else z
    table = pd.DataFrame(
        {"parameter": [f"p[{i}]" for i in range(len(r_hat))], "r_hat": r_hat, "ess_bulk": ess, "z_mean": z, "z_sd": z}
    )
    return SimpleNamespace(
        table=table,
        divergences=divergences,
        thresholds={"z_max": 3.5, "rhat_max": 1.01, "ess_min": 400, "max_divergences": 0},
    )


def test_failed_verification_says_what_failed_and_what_to_raise():
    advice = _verification_advice(_failed([1.02, 1.003], [57.0, 500.0]), draws=300, chains=2)
    assert "R-hat > 1.01 for 1 parameter(s) (max 1.020)" in advice
    assert "bulk ESS < 400 for 1 parameter(s) (min 57 from 2 × 300 draws)" in advice
    # ESS ∝ draws: 300 × 400 / 57 × 1.2 margin = 2526 → 2600
    assert "raise --draws from 300 to 2600 and --chains from 2 to 4" in advice
    advice = _verification_advice(_failed([1.002, 1.003], [900.0, 950.0], z=(0.4, 4.1)), draws=1000, chains=4)
    assert advice.startswith("|z| > 3.50 for 1 parameter(s) (max 4.1)") and "rerun with another --seed" in advice
    assert "--draws" not in advice
    # R-hat alone, ESS fine: at least double the draws
    assert "raise --draws from 500 to 1000" in _verification_advice(_failed([1.015], [800.0]), draws=500, chains=4)


def _fake_zoo(monkeypatch, table, undefined=None):
    import pgm_models.app.zoo

    runs = [SimpleNamespace(name="CategoricalNB", status="passed", undefined=undefined or {})]
    result = SimpleNamespace(table=lambda: table, runs=runs, passed=True, comparison=lambda: None)
    monkeypatch.setattr(pgm_models.app.zoo, "run_zoo", lambda *a, **k: result)


def _zoo_table():
    row = {
        "model": "CategoricalNB",
        **{f"acc_{e}": 0.9 for e in ("mle", "map", "mean", "predictive")},
        "logloss_mle": np.inf,
        "logloss_map": np.inf,
        "logloss_mean": 0.31,
        "logloss_predictive": 0.3,
        "max_abs_z": 1.2,
        "z_max": 4.4,
        "max_rhat": 1.002,
        "min_ess": 2100.0,
        "verified": "passed",
        "fit_s": 0.01,
        "sample_s": 3.0,
    }
    return pd.DataFrame([row])


def test_zoo_table_is_narrow_on_a_terminal_and_explains_inf(monkeypatch, capsys):
    _fake_zoo(monkeypatch, _zoo_table())
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["zoo", "--dataset", "weather.nominal"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["model", "acc", "logloss", "max|z|", "R-hat", "ESS", "verified", "NUTS_s"]
    assert out[1].split() == ["CategoricalNB", "0.9", "0.31", "1.2", "1.002", "2100.0", "passed", "3.0"]
    assert max(map(len, out[:2])) < 80 and "--wide" in out[-1]
    assert not any(line.startswith("inf in") for line in out)  # no inf among the columns shown
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["zoo", "--dataset", "weather.nominal", "--wide"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "logloss_mle" in out[0].split() and "fit_s" in out[0].split()
    assert out[2].startswith("inf in logloss_mle, logloss_map: that estimate gives probability 0 to the true class")


def test_zoo_says_which_estimate_the_training_rows_leave_undefined(monkeypatch, capsys):
    _fake_zoo(monkeypatch, _zoo_table(), undefined={"mle": "the covariance of class 'woman' is singular"})
    assert main(["zoo", "--dataset", "weather.nominal", "--wide"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert (
        "CategoricalNB: mle not scored (NaN), undefined on these training rows: the covariance of class 'woman' "
        "is singular" in out
    )


def test_summary_computes_only_the_rows_it_shows_and_draws_nothing_with_standard_marginals(monkeypatch):
    """Every parameter of CategoricalNB has a Beta marginal: its interval is that Beta's exact
    quantiles, and no posterior draw is made (the old summary drew 400 per cell: its intervals
    were off by Monte Carlo error, and its cost grew with every cell of a shown variable)."""
    from scipy import stats

    from pgm_models.datasets import load_dataset

    X, y = load_dataset("vote")
    model = CategoricalNB().fit(X, y)

    def no_draws(*args, **kwargs):
        raise AssertionError("a posterior draw was made")

    monkeypatch.setattr(type(model), "posterior_draws", no_draws)
    monkeypatch.setattr(type(model._parameters()["class_prob"][0]), "sample", no_draws)
    full = posterior_summary(model)
    head = posterior_summary(model, max_rows=5)
    assert len(head) == 5 and head.attrs["n_parameters"] == len(full) == 2 + 16 * 2 * 2
    pd.testing.assert_frame_equal(head, full.head(5))
    concentration = model._parameters()["feature_prob_handicapped-infants"][0].concentration  # (class, value)
    row = full.set_index("parameter").loc["feature_prob_handicapped-infants[republican, y]"]
    a, b = concentration[1, 1], concentration[1].sum() - concentration[1, 1]
    np.testing.assert_allclose([row["q3.0%"], row["q97.0%"]], stats.beta(a, b).ppf([0.03, 0.97]), rtol=1e-12)


def test_aode_summary_builds_only_the_spodes_it_shows(monkeypatch):
    from pgm_models.datasets import load_dataset

    X, y = load_dataset("weather.nominal")
    model = AODE().fit(X, y)
    full = posterior_summary(model, n_draws=100)
    head = posterior_summary(model, n_draws=100, max_rows=3)
    assert head["spode"].tolist() == ["outlook"] * 3 and head.attrs["n_parameters"] == len(full)
    pd.testing.assert_frame_equal(head[["parameter", "mean", "sd"]], full[["parameter", "mean", "sd"]].head(3))


def test_summary_n_draws_is_checked_and_only_off_diagonal_covariances_are_drawn():
    """n_draws matters only where a marginal has no standard form (LDA's off-diagonal Σ_ij):
    with one draw those rows' bounds coincide, every other row keeps its exact quantiles."""
    from pgm_models import LDA
    from pgm_models.datasets import load_dataset

    model = LDA().fit(*load_dataset("iris"))
    for bad in (0, -1, 2.5):
        with pytest.raises(ValueError, match=f"n_draws must be a whole number ≥ 1 .*got {bad}"):
            posterior_summary(model, n_draws=bad)
    one, many = posterior_summary(model, n_draws=1), posterior_summary(model)
    off_diagonal = one["parameter"].str.match(r"cov\[(\w+), (?!\1\])")
    assert off_diagonal.sum() == 12
    assert (one.loc[off_diagonal, "q3.0%"] == one.loc[off_diagonal, "q97.0%"]).all()
    pd.testing.assert_frame_equal(one[~off_diagonal], many[~off_diagonal])
    assert (one.loc[~off_diagonal, "q3.0%"] < one.loc[~off_diagonal, "q97.0%"]).all()
    with pytest.raises(ValueError, match="max_rows must be a whole number ≥ 0 or None"):
        posterior_summary(model, max_rows=-1)


def test_fit_prints_how_many_rows_it_left_out(capsys):
    assert main(["fit", "--model", "aode", "--data", str(dataset_path("weather.nominal")), "--max-rows", "7"]) == 0
    out = capsys.readouterr().out.splitlines()
    # AODE on weather: 4 SPODEs, each K·r_a joint cells and the other 3 attributes' K·r_a·r_j cells
    sizes = {"outlook": 3, "temperature": 3, "humidity": 2, "windy": 2}
    total = sum(2 * r + sum(2 * r * s for other, s in sizes.items() if other != name) for name, r in sizes.items())
    assert len(out) == 2 + 7 + 1 and out[-1] == f"… {total - 7} more rows (--max-rows 0 prints all)"
