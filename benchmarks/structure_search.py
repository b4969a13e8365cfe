"""Learned and averaged structures: search per fold against a warm Weka 3.6 BayesNet, search
time against rows, and BMATAN against TAN.

    python -m benchmarks.structure_search [--repeats 3] [--warmup 20] [--rounds 5]
        [--rows 10000 100000 1000000] [--bmatan-rounds 20] [--harness DIR] [--write FILE]

Three tables, each from one run with the sides alternating:

1. **Per fold against a warm Weka.** ``BayesNetClassifier`` with K2 (``max_parents=2``), hill
   climbing (``max_parents=2``) and TAN search, score "bayes", α = 0.5, against Weka's
   ``BayesNet`` with the same search (K2 -P 2, HillClimber -P 2 -R, TAN; -S BAYES; SimpleEstimator
   -A 0.5) on Weka's own 10 folds of vote and breast-cancer (``--datasets``), inside one warm JVM
   (``benchmarks/weka/WarmWeka.java``, as ``benchmarks.vs_warm_weka``; ``--harness DIR`` reuses
   one compiled there; the folds are those the first Weka run prints): fit + predict_proba of
   each fold's test rows, median over folds and repeats; ratio = pgm_models / Weka (≤ 1 is the
   target) and the largest difference of the two sides' class probabilities.
2. **Against rows.** Fit time of K2 and hill climbing (``max_parents=3``) on a synthetic network of
   ``--rows`` rows (10 attributes × 3 values, 2 classes, each attribute depending on the class and
   the attribute before it): the search reads the distinct rows once compressed, so its time per
   row should stay flat or fall as rows grow (µs per row, and its ratio to the smallest size).
3. **BMATAN against TAN.** On vote (``--bmatan-data``), each of Weka's 10 folds: fit on the training rows, predict
   the test rows; median ms of each, and the ratios BMATAN / TAN (targets: fit ≤ 5×, predict ≤ 20×),
   with BMATAN's cost per test row (K log-determinants of (F − 1) × (F − 1) matrices, O(K F³)).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numba  # noqa: F401  (a warm process, as benchmarks.vs_warm_weka's)
import numpy as np
import pandas as pd

from benchmarks import append_section
from benchmarks.vs_warm_weka import compile_harness, fold_data, run_ours, run_weka, weka_available
from pgm_models import BMATAN, TAN, BayesNetClassifier
from pgm_models.datasets import dataset_path, load_arff

HEADING = "## Structure search vs a warm Weka 3.6 BayesNet, against rows, and BMATAN vs TAN"
SEARCHES = {"bn-k2": "k2", "bn-hc": "hill-climb", "bn-tan": "tan"}
DATASETS = ("vote", "breast-cancer")


_FOLDS = {}  # Weka's folds of each data file, from the first harness run on it


def weka_run(arff: Path, model: str, warmup: int, rounds: int, build: Path):
    """``run_weka``, keeping the folds it prints (every run prints the same folds of a file)."""
    folds, milliseconds, distributions = run_weka(arff, model, warmup, rounds, build)
    _FOLDS.setdefault(arff, folds)
    return folds, milliseconds, distributions


def weka_folds(arff: Path, build: Path):
    """Weka's 10 stratified folds of ``arff`` (the test rows of each): those of an earlier run on
    it, else from one cheap harness run."""
    return _FOLDS[arff] if arff in _FOLDS else weka_run(arff, "nb", 0, 1, build)[0]


def modulo_folds(n_rows: int, n_folds: int = 10):
    """Test rows i ≡ f (mod 10): the folds when Weka is not installed."""
    return [np.arange(f, n_rows, n_folds) for f in range(n_folds)]


def network_data(n_rows: int, n_attributes: int = 10, n_values: int = 3, seed: int = 0):
    """(X, y): a chain network C → X_j, X_(j−1) → X_j of Categorical columns; each attribute is
    the class plus its predecessor, modulo its values, with probability 0.7, else uniform."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_rows)
    columns, previous = {}, np.zeros(n_rows, dtype=np.int64)
    for j in range(n_attributes):
        follows = rng.random(n_rows) < 0.7
        value = np.where(follows, (y + previous) % n_values, rng.integers(0, n_values, n_rows))
        columns[f"x{j}"] = pd.Categorical.from_codes(value, categories=[f"v{v}" for v in range(n_values)])
        previous = value
    return pd.DataFrame(columns), pd.Series(pd.Categorical.from_codes(y, ["a", "b"]), name="class")


def search_per_fold(files, build, repeats: int, warmup: int, rounds: int, with_weka: bool) -> list[dict]:
    """Table 1's rows: each dataset and search, both sides on the same folds."""
    rows = []
    for name, arff in files.items():
        X, y = load_arff(arff)
        data = None if with_weka else fold_data(X, y, modulo_folds(len(y)))
        for model, search in SEARCHES.items():
            ours_ms, weka_ms, weka_p, ours_p = [], [], None, None
            for _ in range(repeats):
                if with_weka:
                    folds, milliseconds, weka_p = weka_run(arff, model, warmup, rounds, build)
                    weka_ms += milliseconds
                    data = data or fold_data(X, y, folds)  # the first Weka run's folds: no run for the folds alone
                milliseconds, ours_p = run_ours(
                    lambda: BayesNetClassifier(search=search, max_parents=2), data, warmup, rounds
                )
                ours_ms += milliseconds
            row = {"data": name, "search": search, "ours_ms": statistics.median(ours_ms)}
            if with_weka:
                row["weka_ms"] = statistics.median(weka_ms)
                row["ratio"] = row["ours_ms"] / row["weka_ms"]
                row["max_difference"] = max(float(np.abs(ours_p[f] - weka_p[f]).max()) for f in weka_p)
            rows.append(row)
            print(
                f"{name:14s} {search:10s} pgm_models {row['ours_ms']:7.2f} ms"
                + (
                    f"  warm Weka {row['weka_ms']:7.2f} ms  ratio {row['ratio']:5.2f}  max |Δp| {row['max_difference']:.1e}"
                    if with_weka
                    else ""
                ),
                flush=True,
            )
    return rows


def search_against_rows(sizes, repeats: int) -> list[dict]:
    """Table 2's rows: the least fit time of each search over ``repeats`` at each size."""
    rows = []
    for n_rows in sizes:
        X, y = network_data(n_rows)
        for search in ("k2", "hill-climb"):
            seconds, model = [], None
            for _ in range(repeats):
                start = time.perf_counter()
                model = BayesNetClassifier(search=search, max_parents=3).fit(X, y)
                seconds.append(time.perf_counter() - start)
            rows.append(
                {
                    "rows": n_rows,
                    "search": search,
                    "distinct": len(model.distinct_rows_),
                    "ms": min(seconds) * 1e3,
                    "us_per_row": min(seconds) * 1e6 / n_rows,
                }
            )
            print(
                f"{n_rows:>9,} rows {search:10s} {rows[-1]['ms']:9.1f} ms  {rows[-1]['us_per_row']:.3f} µs/row",
                flush=True,
            )
    for row in rows:
        first = next(r for r in rows if r["search"] == row["search"])
        row["per_row_ratio"] = row["us_per_row"] / first["us_per_row"]
    return rows


def bmatan_against_tan(arff: Path, folds, rounds: int) -> dict:
    """Table 3: per fold, the median fit and predict ms of TAN and BMATAN, alternating (one more
    round first, untimed, warms both up)."""
    X, y = load_arff(arff)
    data = fold_data(X, y, folds)
    times = {name: {"fit": [], "predict": []} for name in ("TAN", "BMATAN")}
    test_rows = []
    for round_ in range(rounds + 1):  # the first round warms both up
        for X_train, y_train, X_test in data:
            for name, make in (("TAN", TAN), ("BMATAN", BMATAN)):
                start = time.perf_counter()
                model = make().fit(X_train, y_train)
                fitted = time.perf_counter()
                model.predict_proba(X_test)
                predicted = time.perf_counter()
                if round_:
                    times[name]["fit"].append((fitted - start) * 1e3)
                    times[name]["predict"].append((predicted - fitted) * 1e3)
            if round_:
                test_rows.append(len(X_test))
    result = {name: {stage: statistics.median(v) for stage, v in stages.items()} for name, stages in times.items()}
    result["test_rows"] = statistics.median(test_rows)
    result["n_features"] = X.shape[1]
    for stage in ("fit", "predict"):
        result[f"{stage}_ratio"] = result["BMATAN"][stage] / result["TAN"][stage]
    result["us_per_test_row"] = result["BMATAN"]["predict"] * 1e3 / result["test_rows"]
    print(
        f"{arff.stem} per fold: TAN fit {result['TAN']['fit']:.2f} ms predict {result['TAN']['predict']:.2f} ms; BMATAN fit "
        f"{result['BMATAN']['fit']:.2f} ms ({result['fit_ratio']:.2f}×) predict {result['BMATAN']['predict']:.2f} ms "
        f"({result['predict_ratio']:.2f}×, {result['us_per_test_row']:.0f} µs a test row)",
        flush=True,
    )
    return result


def markdown(command: str, per_fold, with_weka: bool, against_rows, bmatan) -> list[str]:
    lines = [
        "",
        HEADING,
        "",
        f"Command: `{command}` — see the module's docstring; medians per fold over folds and repeats, the sides "
        "alternating.",
        "",
    ]
    if with_weka:
        lines += [
            "Per fold against a warm Weka (fit + predict_proba of the fold's test rows; Weka: buildClassifier + "
            "distributionForInstance after warm-up passes; ratio ≤ 1 is the target):",
            "",
            "| data | search | pgm_models (ms) | warm Weka (ms) | ratio | max abs Δp |",
            "|---|---|---:|---:|---:|---:|",
        ]
        lines += [
            f"| {r['data']} | {r['search']} | {r['ours_ms']:.2f} | {r['weka_ms']:.2f} | {r['ratio']:.2f} | "
            f"{r['max_difference']:.1e} |"
            for r in per_fold
        ]
    else:
        lines += [
            "Not run against Weka: Weka 3.6 (`apt-get install weka`) and a JDK were not found. pgm_models alone, "
            "per fold (every tenth row):",
            "",
            "| data | search | pgm_models (ms) |",
            "|---|---|---:|",
        ]
        lines += [f"| {r['data']} | {r['search']} | {r['ours_ms']:.2f} |" for r in per_fold]
    if against_rows:
        lines += [
            "",
            "Fit time against rows (synthetic chain network, 10 attributes × 3 values, 2 classes, `max_parents=3`; "
            "least of the repeats):",
            "",
            "| rows | search | distinct rows | fit (ms) | µs per row | per-row time / smallest size's |",
            "|---:|---|---:|---:|---:|---:|",
        ]
        lines += [
            f"| {r['rows']:,} | {r['search']} | {r['distinct']:,} | {r['ms']:.1f} | {r['us_per_row']:.3f} | "
            f"{r['per_row_ratio']:.2f} |"
            for r in against_rows
        ]
    lines += [
        "",
        f"BMATAN against TAN on {bmatan['data']}, per fold ({bmatan['test_rows']:.0f} test rows, {bmatan['n_features']} attributes; "
        "targets: fit ≤ 5×, predict ≤ 20×):",
        "",
        "| model | fit (ms) | predict_proba (ms) |",
        "|---|---:|---:|",
        f"| TAN | {bmatan['TAN']['fit']:.2f} | {bmatan['TAN']['predict']:.2f} |",
        f"| BMATAN | {bmatan['BMATAN']['fit']:.2f} | {bmatan['BMATAN']['predict']:.2f} |",
        f"| BMATAN / TAN | {bmatan['fit_ratio']:.2f} | {bmatan['predict_ratio']:.2f} |",
        "",
        f"BMATAN's predict_proba costs {bmatan['us_per_test_row']:.0f} µs per test row here (O(K F³): K "
        "log-determinants of (F − 1) × (F − 1) matrices per row).",
    ]
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="alternations of the two sides")
    parser.add_argument("--warmup", type=int, default=20, help="passes over the 10 folds before timing")
    parser.add_argument("--rounds", type=int, default=5, help="timed passes over the 10 folds per repeat")
    parser.add_argument("--rows", type=int, nargs="*", default=[10_000, 100_000, 1_000_000], help="sizes of table 2")
    parser.add_argument("--bmatan-rounds", type=int, default=20, help="timed passes over vote's folds, table 3")
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS), help="bundled nominal datasets of table 1")
    parser.add_argument("--bmatan-data", default="vote", help="the bundled dataset of table 3")
    parser.add_argument("--no-weka", action="store_true", help="time pgm_models alone")
    parser.add_argument(
        "--harness", help="folder of the compiled Weka harness, compiled there if it is not (default: a temporary one)"
    )
    parser.add_argument("--write", help="append the Markdown section to this file")
    args = parser.parse_args(argv)
    with_weka = weka_available() and not args.no_weka
    _FOLDS.clear()  # the data files are this run's
    with tempfile.TemporaryDirectory() as folder:
        build = Path(args.harness) if args.harness else Path(folder)
        files = {}
        for name in {*args.datasets, args.bmatan_data}:
            files[name] = Path(folder) / f"{name}.arff"
            files[name].write_bytes(dataset_path(name).read_bytes())
        if with_weka:
            compile_harness(build)
        per_fold = search_per_fold(
            {name: files[name] for name in args.datasets}, build, args.repeats, args.warmup, args.rounds, with_weka
        )
        arff = files[args.bmatan_data]
        folds = weka_folds(arff, build) if with_weka else modulo_folds(len(load_arff(arff)[1]))
        bmatan = bmatan_against_tan(arff, folds, args.bmatan_rounds)
        bmatan["data"] = args.bmatan_data
    against_rows = search_against_rows(args.rows, args.repeats)
    if args.write:
        command = "python -m benchmarks.structure_search " + " ".join(
            a
            for a in (argv if argv is not None else sys.argv[1:])
            if a not in (args.write, "--write", args.harness, "--harness")
        )
        append_section(args.write, markdown(command.strip(), per_fold, with_weka, against_rows, bmatan))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
