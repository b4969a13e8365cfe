"""Closed-form fit + predict of the zoo's models against scikit-learn's.

    python -m benchmarks.vs_sklearn [--sizes 10000 100000 1000000] [--repeats 5] [--write BENCHMARKS.md]

Both libraries get identical data; each cell is the median over ``repeats`` runs (the two
libraries alternating) of fit(X, y) followed by predict_proba(X), and ratio = pgm_models /
scikit-learn (≤ 1 is the target), also for fit and predict_proba alone.
Data, 3 classes: CategoricalNB 16 attributes × 5 values, BernoulliNB 50 dense binary features,
MultinomialNB a sparse 20 000-word vocabulary with about 40 distinct words per row, and
GaussianNB / LDA / QDA 20 correlated Gaussian features. The Gaussian models run in their MLE
limit (estimate="mle", class_alpha=0), the computation scikit-learn does.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp
import sklearn
import sklearn.discriminant_analysis as sda
import sklearn.naive_bayes as skl

import pgm_models
from benchmarks import machine, run_record  # noqa: F401  (machine: the CPU line of benchmarks.__main__)
from pgm_models import LDA, QDA, BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB

N_CLASSES = 3


def make_data(kind: str, n_rows: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, n_rows)
    if kind == "categorical":
        return rng.integers(0, 5, size=(n_rows, 16)), y
    if kind == "bernoulli":
        return (rng.random((n_rows, 50)) < 0.3).astype(np.float64), y
    if kind == "gaussian":
        mixing = np.eye(20) + 0.3 * rng.normal(size=(20, 20)) / np.sqrt(20)  # correlated, well conditioned
        return rng.normal(size=(n_rows, 20)) @ mixing + y[:, None], y
    words_per_row = 40
    columns = rng.zipf(1.3, size=n_rows * words_per_row) % 20_000
    rows = np.repeat(np.arange(n_rows), words_per_row)
    X = sp.csr_matrix((np.ones(rows.size), (rows, columns)), shape=(n_rows, 20_000))
    X.sum_duplicates()
    return X, y


CASES = {
    "CategoricalNB": (
        "categorical",
        lambda: CategoricalNB(n_categories=5),
        lambda: skl.CategoricalNB(min_categories=5),
    ),
    "BernoulliNB": ("bernoulli", lambda: BernoulliNB(binarize=None), lambda: skl.BernoulliNB(binarize=None)),
    "MultinomialNB": ("multinomial", lambda: MultinomialNB(), lambda: skl.MultinomialNB()),
    "GaussianNB": (
        "gaussian",
        lambda: GaussianNB(estimate="mle", class_alpha=0),
        lambda: skl.GaussianNB(var_smoothing=0),
    ),
    "LDA": (
        "gaussian",
        lambda: LDA(estimate="mle", class_alpha=0),
        lambda: sda.LinearDiscriminantAnalysis(solver="lsqr"),
    ),
    "QDA": ("gaussian", lambda: QDA(estimate="mle", class_alpha=0), lambda: sda.QuadraticDiscriminantAnalysis()),
}


def time_fit_predict(sides: dict, X, y, repeats: int) -> dict:
    """Per side, the median fit and predict_proba seconds and the median of their sum. The sides
    alternate within each repeat, so a slow spell of the (shared) machine falls on both."""
    times = {name: [] for name in sides}
    for _ in range(repeats):
        for name, make_model in sides.items():
            model = make_model()
            start = time.perf_counter()
            model.fit(X, y)
            fitted = time.perf_counter()
            model.predict_proba(X)
            times[name].append((fitted - start, time.perf_counter() - fitted))
    return {
        name: (
            statistics.median(f for f, _ in runs),
            statistics.median(p for _, p in runs),
            statistics.median(f + p for f, p in runs),
        )
        for name, runs in times.items()
    }


def run(sizes, repeats: int) -> list[dict]:
    results = []
    for name, (kind, ours, theirs) in CASES.items():
        for n_rows in sizes:
            X, y = make_data(kind, n_rows)
            timings = time_fit_predict({"ours": ours, "theirs": theirs}, X, y, repeats)
            (ours_fit, ours_predict, ours_s), (theirs_fit, theirs_predict, theirs_s) = (
                timings["ours"],
                timings["theirs"],
            )
            results.append(
                {
                    "model": name,
                    "rows": n_rows,
                    "pgm_models_s": ours_s,
                    "sklearn_s": theirs_s,
                    "ratio": ours_s / theirs_s,
                    "fit_ratio": ours_fit / theirs_fit,
                    "predict_ratio": ours_predict / theirs_predict,
                }
            )
            print(
                f"{name:14s} N={n_rows:>8d}  pgm_models {ours_s:8.4f} s  sklearn {theirs_s:8.4f} s  ratio {ours_s / theirs_s:5.2f}"
                f"  (fit {ours_fit / theirs_fit:5.2f}, predict_proba {ours_predict / theirs_predict:5.2f})",
                flush=True,
            )
    return results


def markdown(results: list[dict], command: str, repeats: int) -> str:
    lines = [
        "## Closed-form fit + predict_proba vs scikit-learn",
        "",
        f"Command: `{command}` — median of {repeats} runs, the two libraries alternating, identical data for both; "
        "ratio = pgm_models / scikit-learn of fit + predict_proba, then of each alone.",
        run_record(
            f"Python {platform.python_version()}, numpy {np.__version__}, scikit-learn {sklearn.__version__}, "
            f"pgm_models {pgm_models.__version__}"
        ),
        "",
        "| model | rows | pgm_models (s) | scikit-learn (s) | ratio | fit ratio | predict_proba ratio |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['model']} | {r['rows']:,} | {r['pgm_models_s']:.4f} | {r['sklearn_s']:.4f} | {r['ratio']:.2f} | {r['fit_ratio']:.2f} | {r['predict_ratio']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--write", help="write the Markdown table to this file (replacing it)")
    parser.add_argument("--append", help="append the Markdown table to this file")
    args = parser.parse_args(argv)
    results = run(args.sizes, args.repeats)
    command = "python -m benchmarks.vs_sklearn " + " ".join(
        a
        for a in (argv if argv is not None else sys.argv[1:])
        if a not in (args.write, args.append, "--write", "--append")
    )
    if args.write:
        with open(args.write, "w") as handle:
            handle.write("# Benchmarks\n\n" + markdown(results, command.strip(), args.repeats))
    if args.append:
        with open(args.append, "a") as handle:
            handle.write(markdown(results, command.strip(), args.repeats))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
