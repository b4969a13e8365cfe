"""MixedNB: 10-fold cross-validation against Weka's NaiveBayes and MDL-binned CategoricalNB, and
its speed against GaussianNB + CategoricalNB fitted on the two halves of a mixed table.

    python -m benchmarks.mixed_nb [--rows 1000000] [--repeats 3] [--write FILE]

Cross-validation uses the folds of the Weka fixtures (pgm_models/datasets/data/weka/naive_bayes_cv10_*.csv:
stratified round-robin in file order) and Weka's stored class distributions on them. The speed
table times fit + predict_proba of MixedNB on rows × (5 numeric + 5 nominal) columns, and of
GaussianNB on the 5 numeric plus CategoricalNB on the 5 nominal, alternating the two sides and
keeping each side's fastest repeat.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks import append_section
from pgm_models import CategoricalNB, GaussianNB, MixedNB
from pgm_models.datasets import load_dataset
from pgm_models.preprocessing.discretize import MDLDiscretizer

FIXTURES = Path(__file__).resolve().parent.parent / "pgm_models" / "datasets" / "data" / "weka"
DATASETS = ("iris", "diabetes", "credit-g")


def cross_validated(name: str) -> dict:
    """Accuracy and log loss on the fixture's folds: Weka NaiveBayes, MixedNB (mean and
    predictive) and CategoricalNB after MDL binning (cut points fitted inside each fold)."""
    from sklearn.pipeline import make_pipeline

    X, y = load_dataset(name)
    weka = pd.read_csv(FIXTURES / f"naive_bayes_cv10_{name}.csv")
    fold, codes = weka["fold"].to_numpy(), y.cat.codes.to_numpy()
    models = {
        "MixedNB (mean)": lambda: MixedNB(),
        "MixedNB (predictive)": lambda: MixedNB(estimate="predictive"),
        "MDL + CategoricalNB": lambda: make_pipeline(MDLDiscretizer(), CategoricalNB()),
    }
    proba = {"Weka NaiveBayes": weka.drop(columns="fold").to_numpy()}
    for label, make in models.items():
        proba[label] = np.zeros_like(proba["Weka NaiveBayes"])
        for f in np.unique(fold):
            test = fold == f
            proba[label][test] = make().fit(X[~test], y[~test]).predict_proba(X[test])
    rows = np.arange(len(y))
    return {
        label: ((p.argmax(axis=1) == codes).mean(), -np.log(np.maximum(p[rows, codes], 1e-300)).mean())
        for label, p in proba.items()
    }


def mixed_table(rows: int, seed: int = 0):
    """rows × (5 numeric + 5 nominal with 4 values) and 3 classes; each column depends on y."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, rows)
    numeric = {f"x{j}": rng.normal(size=rows) + 0.5 * y for j in range(5)}
    nominal = {
        f"c{j}": pd.Categorical.from_codes(
            (rng.integers(0, 4, rows) + (y * (rng.random(rows) < 0.3))) % 4, list("abcd")
        )
        for j in range(5)
    }
    return pd.DataFrame({**numeric, **nominal}), y


def speed(rows: int, repeats: int) -> dict:
    X, y = mixed_table(rows)
    numeric, nominal = X.iloc[:, :5], X.iloc[:, 5:]
    sides = {
        "MixedNB": lambda: MixedNB().fit(X, y).predict_proba(X),
        "GaussianNB + CategoricalNB": lambda: (
            GaussianNB().fit(numeric, y).predict_proba(numeric),
            CategoricalNB().fit(nominal, y).predict_proba(nominal),
        ),
    }
    best = dict.fromkeys(sides, np.inf)
    for _ in range(repeats):
        for label, run in sides.items():
            start = time.perf_counter()
            run()
            best[label] = min(best[label], time.perf_counter() - start)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--write", help="append the Markdown tables to this file")
    args = parser.parse_args(argv)
    arguments = " ".join(argv if argv is not None else sys.argv[1:])
    command = f"Command: `python -m benchmarks.mixed_nb{' ' + arguments if arguments else ''}`"
    lines = [
        "",
        "## MixedNB: 10-fold cross-validation (Weka's folds) and speed",
        "",
        command,
        "",
        "| dataset | model | accuracy | log loss |",
        "|---|---|---:|---:|",
    ]
    for name in args.datasets:
        for label, (accuracy, loss) in cross_validated(name).items():
            lines.append(f"| {name} | {label} | {accuracy:.4f} | {loss:.4f} |")
            print(lines[-1], flush=True)
    seconds = speed(args.rows, args.repeats)
    ratio = seconds["MixedNB"] / seconds["GaussianNB + CategoricalNB"]
    lines += [
        "",
        f"fit + predict_proba on {args.rows:,} rows × (5 numeric + 5 nominal), 3 classes, best of {args.repeats}:",
        "",
        "| MixedNB (s) | GaussianNB + CategoricalNB on the halves (s) | ratio |",
        "|---:|---:|---:|",
        f"| {seconds['MixedNB']:.3f} | {seconds['GaussianNB + CategoricalNB']:.3f} | {ratio:.2f} |",
    ]
    print("\n".join(lines[-5:]), flush=True)
    if args.write:
        append_section(args.write, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
