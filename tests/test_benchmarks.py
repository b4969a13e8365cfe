"""Smoke test: the benchmark runs at a tiny size and writes its table."""

import re
from pathlib import Path

import numpy as np
import pytest

import pgm_models
from benchmarks import append_section, vs_sklearn


def test_discrete_benchmark_runs_and_writes_markdown(tmp_path):
    out = tmp_path / "BENCHMARKS.md"
    assert vs_sklearn.main(["--sizes", "200", "--repeats", "1", "--write", str(out)]) == 0
    text = out.read_text()
    for model in ("CategoricalNB", "BernoulliNB", "MultinomialNB", "GaussianNB", "LDA", "QDA"):
        assert f"| {model} | 200 |" in text
    assert "python -m benchmarks.vs_sklearn --sizes 200 --repeats 1`" in text


def test_benchmark_data_is_identical_for_both_libraries():
    X1, y1 = vs_sklearn.make_data("multinomial", 50, seed=3)
    X2, y2 = vs_sklearn.make_data("multinomial", 50, seed=3)
    assert (X1 != X2).nnz == 0 and (y1 == y2).all()
    assert X1.shape == (50, 20_000)


def test_aode_benchmark_runs_without_weka(tmp_path):
    from benchmarks import aode_vs_weka

    out = tmp_path / "b.md"
    assert (
        aode_vs_weka.main(["--rows", "300", "--attributes", "5", "--repeats", "1", "--no-weka", "--write", str(out)])
        == 0
    )
    assert "| synthetic 300 × 5 |" in out.read_text()
    # the command a reader can rerun: the output file is not part of it
    assert (
        "Command: `python -m benchmarks.aode_vs_weka --rows 300 --attributes 5 --repeats 1 --no-weka`"
        in out.read_text()
    )


def test_synthetic_aode_data_is_valid_arff(tmp_path):
    from benchmarks.aode_vs_weka import write_synthetic
    from pgm_models.datasets import load_arff

    write_synthetic(tmp_path / "s.arff", 100, 6, seed=2)
    X, y = load_arff(tmp_path / "s.arff")
    assert X.shape == (100, 6) and 0 < X.isna().to_numpy().sum() < 60


def test_aode_weights_benchmark_runs(tmp_path):
    from benchmarks import aode_weights

    out = tmp_path / "w.md"
    assert aode_weights.main(["--datasets", "contact-lenses", "--write", str(out)]) == 0
    assert out.read_text().count("| contact-lenses |") == 4


def test_large_data_benchmark_runs_at_tiny_size(tmp_path):
    from benchmarks import large_data

    out = tmp_path / "m.md"
    assert (
        large_data.main(
            [
                "--rows",
                "500",
                "--models",
                "AODE",
                "--aode-rows",
                "200",
                "--aode-attributes",
                "12",
                "--wide",
                "6x5",
                "--wide-rows",
                "100",
                "--write",
                str(out),
            ]
        )
        == 0
    )
    text = out.read_text()
    assert "| AODE |" in text and "| 12 |" in text
    assert all(f"| {model} | 6 × 5 |" in text for model in ("SPODE", "AODE", "TAN"))


@pytest.mark.nuts
def test_counts_vs_rows_benchmark_runs_at_tiny_size(tmp_path):
    from benchmarks import counts_vs_rows

    out = tmp_path / "c.md"
    assert (
        counts_vs_rows.main(
            [
                "--sizes",
                "100",
                "400",
                "--draws",
                "40",
                "--models",
                "GaussianNB",
                "--rows-budget",
                "1e-9",
                "--write",
                str(out),
            ]
        )
        == 0
    )
    text = out.read_text()
    assert "| GaussianNB | 100 | counts |" in text and "| GaussianNB | 100 | rows |" in text
    assert "| GaussianNB | 400 | rows | — | — | — | skipped: projected" in text  # the budget stops the rows form
    assert "counts-form sampling time at N = 400 ÷ at N = 100" in text


def test_zoo_start_benchmark_times_a_cold_and_a_warm_run_on_one_cache(tmp_path, monkeypatch):
    """The real runs take minutes (a cold start compiles the whole zoo); here the two timed
    runs are stand-ins, and what is checked is that they share one compile folder and the table."""
    from benchmarks import zoo_start

    calls = []

    def fake_zoo(arguments, compiledir):
        calls.append((arguments, compiledir))
        return (3.0 if len(calls) == 1 else 1.0), 0

    monkeypatch.setattr(zoo_start, "timed_zoo", fake_zoo)
    out = tmp_path / "z.md"
    assert zoo_start.main(["--dataset", "weather.nominal", "--draws", "50", "--write", str(out)]) == 0
    assert calls[0] == calls[1] and calls[0][0] == [
        "--dataset",
        "weather.nominal",
        "--draws",
        "50",
    ]  # one cache, reused
    assert "| default | 3.0 | 1.0 | 0, 0 | 3.00 |" in out.read_text()


def test_zoo_start_alternates_samplers_each_on_its_own_cache(tmp_path, monkeypatch):
    from benchmarks import zoo_start

    calls = []
    monkeypatch.setattr(
        zoo_start, "timed_zoo", lambda arguments, compiledir: calls.append((arguments[-1], compiledir)) or (2.0, 0)
    )
    out = tmp_path / "z.md"
    assert zoo_start.main(["--dataset", "iris", "--samplers", "pymc", "numpyro", "--write", str(out)]) == 0
    assert [sampler for sampler, _ in calls] == ["pymc", "numpyro", "pymc", "numpyro"]  # cold, cold, warm, warm
    assert calls[0][1] == calls[2][1] != calls[1][1] == calls[3][1]
    assert "| numpyro | 2.0 | 2.0 | 0, 0 | 1.00 |" in out.read_text()


@pytest.mark.nuts
def test_one_command_rewrites_benchmarks_md(tmp_path, monkeypatch):
    """The full run writes every registered benchmark's section in registration order, then the
    analysis. Two benchmarks run for real at quick size (exact_vs_nuts has no other test); the
    others, each tested at tiny size in its own test, append a marked section instead."""
    import benchmarks.__main__ as entry

    real_steps = entry._steps

    def stub(name):
        def run(output):
            with output.open("a") as handle:
                handle.write(f"\n## stub of {name}\n\nCommand: `{name}`\n")

        return run

    def steps(quick):  # main also lists the steps (for --only's choices) with quick=False
        return [
            (name, run if name in ("vs_sklearn", "exact_vs_nuts") else stub(name)) for name, run in real_steps(quick)
        ]

    monkeypatch.setattr(entry, "_steps", steps)
    out = tmp_path / "BENCHMARKS.md"
    out.write_text("stale\n")
    assert entry.main(["--quick", "--output", str(out)]) == 0
    text = out.read_text()
    assert "stale" not in text and text.startswith("# Benchmarks")
    names = [name for name, _ in real_steps(True)]
    assert {"vs_sklearn", "exact_vs_nuts", "vs_warm_weka", "floor", "false_alarm"} <= set(names)
    marks = [
        text.index("## Closed-form fit + predict_proba vs scikit-learn")
        if name == "vs_sklearn"
        else text.index("## Exact posterior draws vs NUTS")
        if name == "exact_vs_nuts"
        else text.index(f"## stub of {name}\n")
        for name in names
    ]
    assert marks == sorted(marks)
    assert text.index("# Reading the tables") > marks[-1]
    assert "| CategoricalNB, weather |" in text  # exact_vs_nuts's row (its only tiny run: it samples with NUTS)


@pytest.mark.nuts
def test_loo_benchmark_runs_at_tiny_size(tmp_path):
    from benchmarks import loo

    out = tmp_path / "bench.md"
    assert (
        loo.main(
            ["--rows", "2000", "--repeats", "1", "--draws", "50", "--dataset", "weather.nominal", "--write", str(out)]
        )
        == 0
    )
    text = out.read_text()
    assert "## Exact leave-one-out" in text and "PSIS" in text


def test_evidence_cv_benchmark_runs_on_two_small_datasets(tmp_path):
    from benchmarks import evidence_cv

    out = tmp_path / "bench.md"
    assert evidence_cv.main(["--datasets", "weather.nominal", "contact-lenses", "--write", str(out)]) == 0
    text = out.read_text()
    assert "| weather.nominal | 14 | 5 | CategoricalNB |" in text and "| contact-lenses | 24 | 4 |" in text


@pytest.mark.nuts
def test_sbc_benchmark_runs_at_tiny_size(tmp_path):
    from benchmarks import sbc

    out, figure = tmp_path / "bench.md", tmp_path / "ranks.png"
    assert (
        sbc.main(
            [
                "--replications",
                "3",
                "--draws",
                "30",
                "--models",
                "CategoricalNB",
                "--figure",
                str(figure),
                "--write",
                str(out),
            ]
        )
        == 0
    )
    assert "| CategoricalNB | 14 | 3 |" in out.read_text() and figure.stat().st_size > 5_000


@pytest.fixture(scope="session")
def weka_harness(tmp_path_factory):
    """``["--harness", folder]`` of the warm-Weka harness compiled once for the session's Weka tests
    (javac takes seconds); ``[]`` without Weka."""
    from benchmarks import vs_warm_weka

    if not vs_warm_weka.weka_available():
        return []
    build = tmp_path_factory.mktemp("weka_harness")
    vs_warm_weka.compile_harness(build)
    return ["--harness", str(build)]


def test_warm_weka_benchmark_runs_at_tiny_size(tmp_path, weka_harness):
    """Without Weka only the profile is written; with it, every case's row and a Δp that shows
    the two sides computed the same distributions on the same folds."""
    from benchmarks import vs_warm_weka

    out = tmp_path / "ww.md"
    arguments = ["--repeats", "1", "--warmup", "1", "--rounds", "1", "--rows", "0"]
    assert vs_warm_weka.main(arguments + weka_harness + ["--write", str(out)]) == 0
    text = out.read_text()
    assert "Top costs (own time)" in text and "fit" in text.split("Top costs", 1)[1]
    # the vote profile per fold: µs own and total and calls per fold (one template fit per fold), not pstats' seconds
    vote = text.split("Top costs (own time) of 1000 × AODE fit + predict_proba on a vote fold", 1)[1].split("```")[1]
    rows = [re.fullmatch(r"\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(.+)", line) for line in vote.splitlines()[2:]]
    fits = [row for row in rows if row and row[4].endswith("(_partial_fit)")]
    assert len(rows) == 15 and all(rows) and len(fits) == 1
    assert float(fits[0][3]) == 1.0 and 0 < float(fits[0][1]) <= float(fits[0][2]) < 1e4
    if not vs_warm_weka.weka_available():
        pytest.skip("Weka 3.6 and a JDK are not installed: the Weka side was not run")
    rows = [
        line.split(" | ")
        for line in text.splitlines()
        if line.startswith("| vote |") or line.startswith("| diabetes |")
    ]
    assert len(rows) == 3
    assert all(float(row[-1].rstrip(" |")) < 1e-12 for row in rows)  # same folds, same model: Weka's probabilities


def test_structure_search_benchmark_runs_at_tiny_size(tmp_path, weka_harness):
    """Every search's row per dataset, the rows table and BMATAN's ratios; with Weka, K2 and TAN
    give Weka's class probabilities on Weka's folds (the two sides time the same model). The
    harness is the session's compiled one, and each Weka search one JVM (its folds are the first
    run's)."""
    from benchmarks import structure_search

    out = tmp_path / "s.md"
    arguments = ["--repeats", "1", "--warmup", "0", "--rounds", "1", "--rows", "300", "600", "--bmatan-rounds", "1"]
    arguments += ["--datasets", "breast-cancer", "--bmatan-data", "breast-cancer"]
    assert structure_search.main(arguments + weka_harness + ["--write", str(out)]) == 0
    text = out.read_text()
    assert f"Command: `python -m benchmarks.structure_search {' '.join(arguments)}`" in text
    lines = text.splitlines()
    assert all(f"| {n} | {search} |" in text for n in (300, 600) for search in ("k2", "hill-climb"))
    for search in ("k2", "hill-climb", "tan"):
        assert sum(line.startswith(f"| breast-cancer | {search} |") for line in lines) == 1
    assert "| BMATAN / TAN |" in text and "BMATAN against TAN on breast-cancer" in text
    if not vs_warm_weka_available():
        pytest.skip("Weka 3.6 and a JDK are not installed: the Weka side was not run")
    for line in text.splitlines():
        if line.startswith(("| breast-cancer | k2 |", "| breast-cancer | tan |")):
            assert float(line.split(" | ")[-1].rstrip(" |")) < 1e-12


def test_structure_search_synthetic_network_is_the_stated_chain():
    """Each attribute equals (class + previous attribute) mod 3 on about 0.7 + 0.3/3 of the rows
    (20,000 rows: the share is within 0.02 of 0.8 but with chance below 1e-9)."""
    from benchmarks.structure_search import network_data

    X, y = network_data(20_000, n_attributes=4, seed=5)
    codes = np.column_stack([X[c].cat.codes.to_numpy() for c in X.columns])
    labels = y.cat.codes.to_numpy()
    previous = np.column_stack([np.zeros(len(y), dtype=codes.dtype), codes[:, :-1]])
    share = ((labels[:, None] + previous) % 3 == codes).mean(axis=0)
    assert np.all(np.abs(share - 0.8) < 0.02), share


def vs_warm_weka_available() -> bool:
    from benchmarks import vs_warm_weka

    return vs_warm_weka.weka_available()


def test_warm_weka_harness_prints_weka_folds(tmp_path, weka_harness):
    """Weka's stratified folds partition the rows: each row is tested exactly once."""
    from benchmarks import vs_warm_weka
    from pgm_models.datasets import dataset_path

    if not weka_harness:
        pytest.skip("Weka 3.6 and a JDK are not installed")
    arff = tmp_path / "vote.arff"
    arff.write_bytes(dataset_path("vote").read_bytes())
    folds, milliseconds, distributions = vs_warm_weka.run_weka(arff, "nb", 0, 1, Path(weka_harness[1]))
    assert len(folds) == 10 and len(milliseconds) == 10
    assert np.array_equal(np.sort(np.concatenate(folds)), np.arange(435))
    assert all(len(distributions[f]) == len(folds[f]) for f in range(10))


def test_nuts_versions_tabulates_each_checkout_and_core_count_against_the_first(monkeypatch, capsys, tmp_path):
    from benchmarks import nuts_versions

    calls = []

    def fake_measure(checkout, dataset, model, draws, cores="default"):
        calls.append((checkout.name, model, draws, cores))
        return {"total": 12.0, "sampling": 10.0 if checkout.name == "before" else 4.0, "ess": 1000.0}

    monkeypatch.setattr(nuts_versions, "measure", fake_measure)
    before, after = tmp_path / "before", tmp_path / "after"
    assert (
        nuts_versions.main(
            [
                "--checkouts",
                str(before),
                str(after),
                "--datasets",
                "vote",
                "--models",
                "SPODE",
                "--cores",
                "default",
                "1",
            ]
        )
        == 0
    )
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| vote")]
    # ESS/s: before 1000/10 = 100, after 1000/4 = 250; ratios to the first run (before, its default cores)
    assert len(rows) == 1
    assert rows[0].startswith(
        "| vote | SPODE | 10.0 / 1000 / 100 | 10.0 / 1000 / 100 | 4.0 / 1000 / 250 | 4.0 / 1000 / 250 | 1.0 | 2.5 | 2.5 |"
    )
    timed = [c for c in calls if c[2] == 1000]
    assert timed == [
        ("before", "SPODE", 1000, "default"),
        ("before", "SPODE", 1000, "1"),
        ("after", "SPODE", 1000, "default"),
        ("after", "SPODE", 1000, "1"),
    ]


@pytest.mark.nuts
def test_nuts_versions_worker_samples_a_zoo_model_of_a_checkout():
    from pathlib import Path

    from benchmarks import nuts_versions

    result = nuts_versions.measure(Path(__file__).resolve().parents[1], "weather.nominal", "CategoricalNB", 30, "1")
    assert set(result) == {"total", "sampling", "ess"}, result
    assert 0 < result["sampling"] < result["total"] and result["ess"] > 0


def test_replace_sections_puts_new_sections_in_place_and_new_ones_before_the_analysis(tmp_path):
    from benchmarks.__main__ import replace_sections

    path = tmp_path / "B.md"
    path.write_text(
        "# Benchmarks\n\nmachine\n\n## A\n\nold a\n\n## B (issue 1, by hand)\n\nold b\n\n# Reading the tables\n\n"
        "## C\n\nanalysis of c\n"
    )
    replace_sections(path, "\n## B (100 rows)\n\nnew b\n\n## C\n\nnew c\n")
    # B by its stem (the settings in parentheses differ); C is new among the tables: the analysis's "## C" is left
    assert path.read_text() == (
        "# Benchmarks\n\nmachine\n\n## A\n\nold a\n\n## B (100 rows)\n\nnew b\n\n## C\n\nnew c\n\n"
        "# Reading the tables\n\n## C\n\nanalysis of c\n"
    )


def test_only_runs_the_named_benchmark_and_says_so_in_the_preamble(tmp_path, monkeypatch):
    from benchmarks import __main__ as runner

    calls = []
    monkeypatch.setattr(
        runner.vs_warm_weka,
        "main",
        lambda argv: (
            calls.append(argv)
            or append_section(
                argv[-1], ["", "## Per-fold model time vs a warm Weka 3.6 (Weka's 10 CV folds)", "", "new table"]
            )
        ),
    )
    monkeypatch.setattr(runner.vs_sklearn, "main", lambda argv: pytest.fail("vs_sklearn was not named"))
    out = tmp_path / "B.md"
    out.write_text(
        "# Benchmarks\n\nRegenerated by one run.\n\n## Per-fold model time vs a warm Weka 3.6 (Weka's 10 CV folds)\n\nold table\n"
        "\n## Other\n\nkept\n"
    )
    assert runner.main(["--only", "vs_warm_weka", "--quick", "--output", str(out)]) == 0
    text = out.read_text()
    assert len(calls) == 1 and "new table" in text and "old table" not in text and "kept" in text
    assert "Last partial run: `python -m benchmarks --only vs_warm_weka`" in text.split("## ")[0]
    runner.main(["--only", "vs_warm_weka", "--quick", "--output", str(out)])  # the note is replaced, not repeated
    assert out.read_text().count("Last partial run:") == 1
    fresh = tmp_path / "fresh.md"  # a file that --only creates: no "# " preamble of its own
    for _ in range(2):
        runner.main(["--only", "vs_warm_weka", "--quick", "--output", str(fresh)])
    assert fresh.read_text().count("Last partial run:") == 1 and fresh.read_text().count("new table") == 1


def test_without_weka_the_aode_table_is_replaced_by_a_note_under_its_own_heading(tmp_path, monkeypatch):
    from benchmarks import __main__ as runner
    from benchmarks import aode_vs_weka

    monkeypatch.setattr(runner.shutil, "which", lambda name: None)
    out = tmp_path / "B.md"
    out.write_text(f"# Benchmarks\n\nmachine\n\n{aode_vs_weka.HEADING}\n\n| old | table |\n")
    runner.main(["--only", "aode_vs_weka", "--quick", "--output", str(out)])
    text = out.read_text()
    assert "| old | table |" not in text and text.count(aode_vs_weka.HEADING) == 1 and "Not run: Weka 3.6" in text


def test_cv_under_load_times_one_cv_and_repeated_cvs(tmp_path):
    from benchmarks import cv_under_load
    from pgm_models import GaussianNB
    from pgm_models.datasets import load_dataset

    first, per_cv = cv_under_load._cv_seconds(GaussianNB(), load_dataset("iris"), min_seconds=0.3)
    assert 0 < per_cv and 0 < first
    out = tmp_path / "B.md"
    assert cv_under_load.main(["--repeats", "1", "--busy", "0", "--min-seconds", "0", "--write", str(out)]) == 0
    rows = [line for line in out.read_text().splitlines() if line.startswith("| ") and "ms" not in line]
    assert [row.split(" | ")[0] for row in rows] == [
        "| LogisticRegression, vote",
        "| GaussianNB, iris",
        "| LDA, iris",
        "| QDA, iris",
    ]
    assert all(len(row.strip("|").split("|")) == 7 for row in rows)


@pytest.mark.parametrize("floor, model", [("LeastWorkNB", "CategoricalNB"), ("LeastWorkAODE", "AODE")])
def test_least_work_floor_is_the_model_on_every_fold(floor, model):
    """The benchmark's floors compute the models they bound: CategoricalNB's (Weka's NaiveBayes')
    and AODE's (Weka's AODE) probabilities on vote's and breast-cancer's folds (missing values
    among them; vote's fold 8 has a row with every vote missing, which AODE scores by its naive
    Bayes fallback), and they refuse a test frame whose columns or domains are not the training
    frame's."""
    import pgm_models
    from benchmarks import vs_warm_weka
    from benchmarks.vs_warm_weka import modulo_folds
    from pgm_models.datasets import load_dataset

    Floor, Model = getattr(vs_warm_weka, floor), getattr(pgm_models, model)
    for name in ("vote", "breast-cancer"):
        X, y = load_dataset(name)
        assert X.isna().to_numpy().any()
        for X_train, y_train, X_test in modulo_folds(X, y):
            expected = Model().fit(X_train, y_train).predict_proba(X_test)
            np.testing.assert_allclose(
                Floor().fit(X_train, y_train).predict_proba(X_test), expected, rtol=0, atol=1e-12
            )
    X, y = load_dataset("vote")
    X_train, y_train, X_test = modulo_folds(X, y)[8]
    assert X_test.isna().all(axis=1).any()  # the fallback's row is there
    other = X_test.astype({X_test.columns[0]: "object"}).astype({X_test.columns[0]: "category"})
    with pytest.raises(ValueError, match="not the training frame's columns and domains"):
        Floor().fit(X_train, y_train).predict_proba(other)


def test_every_benchmarks_md_section_cited_in_the_package_exists():
    """Comments and docstrings in pgm_models/ cite BENCHMARKS.md by section heading, as
    ``BENCHMARKS.md, "HEADING"`` or ``BENCHMARKS.md ("HEADING")``, a citation free to wrap across
    comment lines; each cited heading must be one of the file's headings, word for word."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    headings = {
        line.lstrip("#").strip() for line in (root / "BENCHMARKS.md").read_text().splitlines() if line.startswith("#")
    }
    cited = {}
    for path in sorted((root / "pgm_models").rglob("*.py")):
        # a citation wraps like the prose around it: join the lines, without indentation and comment marks
        text = " ".join(re.sub(r"^\s*(#\s?)?", "", line) for line in path.read_text().splitlines())
        assert not re.search(r"BENCHMARKS\.md,?\s*\(?\s*'", text), (
            f"{path}: cite BENCHMARKS.md sections in double quotes"
        )
        for heading in re.findall(r'BENCHMARKS\.md,?\s*\(?\s*"([^"]+)"', text):
            cited.setdefault(re.sub(r"\s+", " ", heading).strip(), []).append(path.relative_to(root).as_posix())
    assert cited  # the pattern still finds the citations
    missing = {heading: files for heading, files in cited.items() if heading not in headings}
    assert not missing, f"cited sections not in BENCHMARKS.md: {missing}"


def test_benchmarks_md_ends_with_the_analysis_word_for_word():
    """BENCHMARKS.md's "Reading the tables" is benchmarks/ANALYSIS.md as ``python -m benchmarks``
    appends it: an edit to one without the other leaves a stale reading beside new tables."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    report = (root / "BENCHMARKS.md").read_text()
    analysis = (root / "benchmarks" / "ANALYSIS.md").read_text()
    assert analysis.startswith("# Reading the tables\n")
    assert report.count("\n# Reading the tables\n") == 1
    assert report[report.index("\n# Reading the tables\n") + 1 :] == analysis


def test_each_section_records_its_machine_date_and_load_under_its_command(tmp_path):
    out = tmp_path / "B.md"
    append_section(out, ["", "## A (settings)", "", "Command: `python -m benchmarks.a`", "", "| x |"])
    append_section(out, ["", "## B", "", "no command"])
    lines = out.read_text().splitlines()
    assert lines[lines.index("Command: `python -m benchmarks.a`") + 1].startswith("Machine: ")
    assert re.search(r"Machine: .*cores.*; \d\d \w{3} \d{4} \d\d:\d\d UTC; load average", out.read_text())
    assert lines[lines.index("## B") + 2].startswith("Machine: ") and out.read_text().count("Machine: ") == 2


def test_fold_versions_reads_the_warm_weka_lines_and_counts_calls_of_a_checkout():
    from pathlib import Path

    from benchmarks import fold_versions

    line = (
        "breast-cancer            AODE           pgm_models     0.51 ms  warm Weka     0.23 ms  ratio  2.21  "
        "max |Δp| 6.7e-16  (least work 0.77 ms, empty estimator 0.65 ms, scikit-learn CategoricalNB 3.58 ms)\n"
        "diabetes                 MDL + AODE     pgm_models     1.68 ms  warm Weka     2.32 ms  ratio  0.72  max |Δp| 5e-16\n"
        "Stages of a fold (every tenth row), vote / CategoricalNB:\n"
    )
    assert fold_versions.parse_folds(line) == {
        ("breast-cancer", "AODE"): (0.51, 0.23),
        ("diabetes", "MDL + AODE"): (1.68, 2.32),
    }
    calls = fold_versions.calls_per_fold(Path(__file__).resolve().parents[1], datasets=("vote",))
    # AODE does everything CategoricalNB does plus its pair counts and the average over parents
    assert set(calls) == {("vote", "CategoricalNB"), ("vote", "AODE")}
    assert 0 < calls["vote", "CategoricalNB"] < calls["vote", "AODE"]


FLOOR_MODELS = [
    "CategoricalNB",
    "BernoulliNB",
    "MultinomialNB",
    "ComplementNB",
    "GaussianNB",
    "LDA",
    "LDA-shrinkage",
    "QDA",
    "AODE",
    "AODEsr",
    "WAODE",
    "A2DE",
    "HNB",
    "KDB",
    "TAN",
    "MixedNB",
]


@pytest.mark.parametrize("name", FLOOR_MODELS)
def test_each_floor_computes_its_model(name):
    """A floor bounds a model only if it gives the model's probabilities: within 1e-12 on 600 rows
    of the benchmark's data (the benchmark checks every timed size too)."""
    from benchmarks import floor

    assert floor.check_floor(name, 600) <= 1e-12
    assert set(floor.CASES) == set(FLOOR_MODELS)  # every floor is checked here


def test_aodesr_floor_removes_the_generalisations_the_model_removes():
    """On data with generalisations (x1 = x0, so the later of the two goes; x3 = x0 // 2, implied
    by x0) the floor's subsumption test removes what AODEsr removes: the probabilities agree, and
    differ from AODE's without the removal."""
    from benchmarks import floor

    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 4000)
    X = (rng.integers(0, 5, (4000, 6)) + y[:, None]) % 5
    X[:, 1], X[:, 3] = X[:, 0], X[:, 0] // 2
    model = pgm_models.AODEsr(n_categories=5).fit(X, y)
    assert model.generalisations(X)[:, [1, 3]].all() and not model.generalisations(X)[:, [0, 2, 4, 5]].any()
    expected = model.predict_proba(X)
    assert np.abs(floor.AODEsrFloor().fit(X, y).predict_proba(X) - expected).max() <= 1e-12
    plain = floor._score_aode(X, *(lambda f: (f.joint, f.child))(floor.AODEsrFloor().fit(X, y)))
    assert np.abs(plain - expected).max() > 1e-3


def test_the_floor_check_fails_on_another_model(monkeypatch):
    """The check can fail: CategoricalNB with alpha = 2 is not the Laplace floor's model."""
    from benchmarks import floor

    kind, _, make_floor = floor.CASES["CategoricalNB"]
    monkeypatch.setitem(floor.CASES, "CategoricalNB", (kind, lambda: pgm_models.CategoricalNB(alpha=2), make_floor))
    assert floor.check_floor("CategoricalNB", 600) > 1e-6


def test_floor_benchmark_writes_its_table(tmp_path):
    from benchmarks import floor

    out = tmp_path / "F.md"
    assert (
        floor.main(["--sizes", "300", "--repeats", "1", "--models", "CategoricalNB", "QDA", "--write", str(out)]) == 0
    )
    text = out.read_text()
    assert "Command: `python -m benchmarks.floor --sizes 300 --repeats 1 --models CategoricalNB QDA`" in text
    rows = [line for line in text.splitlines() if line.startswith("| CategoricalNB |") or line.startswith("| QDA |")]
    assert [row.split(" | ")[1] for row in rows] == ["300", "300"]
    assert all(len(row.strip("|").split("|")) == 10 for row in rows)


def test_floor_benchmark_stops_when_two_threads_change_the_probabilities(monkeypatch):
    """The ×2 threads column compares like with like: a model whose probabilities moved with the
    thread count would stop the run.
    """
    import pgm_models
    from benchmarks import floor

    class ThreadDependent(pgm_models.CategoricalNB):
        def predict_proba(self, X):
            shift = 1e-15 * pgm_models.get_config()["n_jobs"]
            return super().predict_proba(X) + shift

    kind, _, make_floor = floor.CASES["CategoricalNB"]
    monkeypatch.setitem(floor.CASES, "CategoricalNB", (kind, ThreadDependent, make_floor))
    X, y = floor.make_data(kind, 200)
    with pytest.raises(AssertionError, match="one and two threads gave different probabilities"):
        floor.time_pair("CategoricalNB", X, y, 1)


def test_first_posterior_takes_step_medians_of_fresh_processes_after_a_warm_up(tmp_path, monkeypatch):
    """The first process only warms the caches; each step's cell is the median of the timed ones."""
    from benchmarks import first_posterior

    seconds = iter([100.0, 1.0, 3.0, 2.0])  # the warm-up's, then three timed processes'

    def child(sampler):
        wall = next(seconds)
        return {
            "marks": {step: (wall * (i + 1), wall / 2) for i, step in enumerate(first_posterior.STEPS)},
            "loaded": {step: ["pymc"] if step == "sample_posterior" else [] for step in first_posterior.STEPS},
        }

    monkeypatch.setattr(first_posterior, "run_child", child)
    out = tmp_path / "P.md"
    assert first_posterior.main(["--repeats", "3", "--write", str(out)]) == 0
    text = out.read_text()
    assert "| import | 2.00 | 1.00 | — |" in text
    assert "| sample_posterior | 6.00 | 1.00 | pymc |" in text
    assert "| total | 20.00 | 4.00 | |" in text  # the median process's sum: 2 × (1 + 2 + 3 + 4)


def test_arff_writer_round_trips_nominal_frames_with_missing_values_and_quotes(tmp_path):
    """The imputed files both sides of one_dependence_vs_weka read: what load_arff reads back is
    the frame written (categories in declared order, missing values, quotes and backslashes)."""
    import pandas as pd

    from benchmarks.one_dependence_vs_weka import imputed_copy, write_arff
    from pgm_models.datasets import load_arff

    X = pd.DataFrame(
        {
            "it's": pd.Categorical(["a b", None, "c'd", "a b"], categories=["c'd", "a b", "e\\f"]),
            "n": pd.Categorical(["1", "2", "2", None], categories=["2", "1"]),
        }
    )
    y = pd.Series(pd.Categorical(["x", "y", "x", "y"], categories=["y", "x"]), name="class")
    write_arff(tmp_path / "f.arff", X, y, "a relation")
    X_read, y_read = load_arff(tmp_path / "f.arff")
    pd.testing.assert_frame_equal(X_read, X)
    assert list(y_read) == list(y) and list(y_read.cat.categories) == ["y", "x"]
    imputed_copy(tmp_path / "f.arff", tmp_path / "g.arff")
    X_imputed, _ = load_arff(tmp_path / "g.arff")
    assert list(X_imputed["it's"]) == ["a b", "a b", "c'd", "a b"] and list(X_imputed["n"]) == ["1", "2", "2", "2"]


def test_one_dependence_benchmark_runs_at_tiny_size(tmp_path):
    """Every model's row against Weka with Weka's probabilities (same folds, same model)."""
    from benchmarks import one_dependence_vs_weka, vs_warm_weka

    out = tmp_path / "od.md"
    arguments = ["--repeats", "1", "--warmup", "1", "--rounds", "1", "--datasets", "--rows", "300"]
    assert one_dependence_vs_weka.main([*arguments, "--a2de-rows", "0", "--write", str(out)]) == 0
    text = out.read_text()
    assert text.count("Machine: ") == 1 and one_dependence_vs_weka.HEADING in text
    if not vs_warm_weka.weka_available():
        pytest.skip("Weka 3.6 and a JDK are not installed: the Weka side was not run")
    rows = [line.split(" | ") for line in text.splitlines() if line.startswith("| synthetic 300 × 30")]
    assert [row[1] for row in rows] == ["AODEsr", "WAODE", "HNB"]
    assert all(float(row[-1].rstrip(" |")) < 1e-12 for row in rows)  # same folds, same model: Weka's probabilities


def test_a2de_benchmark_times_both_models_and_is_refused_above_the_limit():
    """A2DE against AODE on one tiny fold, its tensor's shape, and a refusal that names the limit
    (more values per attribute where 20 would fit with so few attributes)."""
    from benchmarks.one_dependence_vs_weka import a2de_against_aode, refusal

    timing = a2de_against_aode(300, 4, 1, 1)
    assert timing["tensor_shape"] == (2, 20, 20, 20) and timing["a2de_s"] > 0 and timing["aode_s"] > 0
    values, seconds, message = refusal(300, 4)
    assert 2 * (values * 4) ** 3 > 2**26 and "more than max_triple_cells=67,108,864" in message


def test_a2de_only_runs_the_a2de_section_alone(tmp_path):
    """``--a2de-only``: the A2DE table and its command, no Weka table."""
    from benchmarks import one_dependence_vs_weka

    out = tmp_path / "a2de.md"
    arguments = ["--a2de-only", "--a2de-rows", "300", "--a2de-attributes", "4", "--a2de-folds", "1", "--repeats", "1"]
    assert one_dependence_vs_weka.main([*arguments, "--write", str(out)]) == 0
    text = out.read_text()
    assert f"Command: `python -m benchmarks.one_dependence_vs_weka {' '.join(arguments)}`" in text
    assert "| A2DE | " in text and "| AODE | " in text and "warm Weka (ms)" not in text


def test_wide_csv_benchmark_runs_at_tiny_size(tmp_path):
    from benchmarks import wide_csv

    out = tmp_path / "c.md"
    assert wide_csv.main(["--shapes", "30x4", "--repeats", "1", "--no-cli", "--write", str(out)]) == 0
    text = out.read_text()
    assert (
        wide_csv.HEADING in text
        and "Command: `python -m benchmarks.wide_csv --shapes 30x4 --repeats 1 --no-cli`" in text
    )
    assert "| 30 × 4 | abc |" in text and "| 30 × 4 | own |" in text


def test_floor_word_counts_are_the_same_built_in_chunks():
    """10⁷ rows of word counts are built a chunk at a time: the same matrix as one chunk."""
    from benchmarks import floor

    y = np.random.default_rng(0).integers(0, 3, 2500)
    whole = floor._words(np.random.default_rng(5), y, chunk_rows=10**6)
    chunked = floor._words(np.random.default_rng(5), y, chunk_rows=700)
    assert whole.nnz > 2500 * 20 and (whole != chunked).nnz == 0


def test_command_line_shows_the_arguments_without_the_output_file(monkeypatch):
    from benchmarks import command_line

    assert (
        command_line("floor", ["--sizes", "300", "--write", "B.md", "--models", "QDA"])
        == "python -m benchmarks.floor --sizes 300 --models QDA"
    )
    assert command_line("dask_scaling", []) == "python -m benchmarks.dask_scaling"
    monkeypatch.setattr("sys.argv", ["x", "--write", "B.md", "--repeats", "5"])
    assert command_line("first_posterior", None) == "python -m benchmarks.first_posterior --repeats 5"
