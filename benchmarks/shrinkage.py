"""Shrinkage LDA/QDA: speed against scikit-learn, and Ledoit–Wolf against the evidence-learned
Normal–Inverse-Wishart prior in cross-validation.

    python -m benchmarks.shrinkage [--rows 100000] [--features 200] [--repeats 3]
                                   [--cv-features 40] [--cv-rows 90] [--cv-seeds 5] [--folds 5]
                                   [--write FILE]

1. Speed: fit + predict_proba of ``LDA``/``QDA(estimate="mle", shrinkage=...)`` against
   scikit-learn's ``LinearDiscriminantAnalysis(solver="lsqr")`` and
   ``QuadraticDiscriminantAnalysis(solver="eigen")`` with the same shrinkage ("oas": scikit-learn's
   ``covariance_estimator=OAS()``) on ``rows`` × ``features`` correlated Gaussian rows of 3 classes
   (the rows of part 2, class means 0.05 apart per feature so that the probabilities are not all 0
   or 1), the median of ``repeats`` runs with the two libraries alternating; the largest difference
   of their probabilities is printed beside the times. Both use the BLAS threads the caller's
   environment gives (on a busy machine ``OPENBLAS_NUM_THREADS=1`` keeps them from waiting on each other).
2. Cross-validation with p close to n: ``cv-seeds`` generated datasets of ``cv-rows`` rows (3 equal
   classes) and ``cv-features`` features with an AR(1) correlation (ρ = 0.7) and feature scales
   from 0.5 to 2; stratified ``folds``-fold test log loss of the Ledoit–Wolf plug-in
   (``shrinkage="auto"``, which is scikit-learn's), OAS, and the exact Student-t predictive under
   the default prior, under a learned ``cov_strength`` and under the full evidence-learned prior
   (every prior parameter "evidence"). Each cell is the mean over all folds of all datasets ±
   its standard error.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
import sklearn.discriminant_analysis as sda
from sklearn.covariance import OAS
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

from benchmarks import append_section
from pgm_models import LDA, QDA

SPEED_HEADING = "## Shrinkage LDA/QDA vs scikit-learn"
CV_HEADING = "## Ledoit–Wolf against the evidence-learned prior"
N_CLASSES = 3


def _sklearn(cls, shrinkage):
    if cls is LDA:
        options = dict(solver="lsqr")
        make = sda.LinearDiscriminantAnalysis
    else:
        options = dict(solver="eigen")
        make = sda.QuadraticDiscriminantAnalysis
    if shrinkage == "oas":
        return lambda: make(covariance_estimator=OAS(), **options)
    return lambda: make(shrinkage=shrinkage, **options)


SPEED_CASES = [(cls, shrinkage) for cls in (LDA, QDA) for shrinkage in ("auto", "oas", 0.1)]


def correlated_rows(n_rows: int, n_features: int, seed: int, rho: float = 0.7, separation: float = 0.35):
    """(X, y): ``n_rows`` rows in 3 equal classes, AR(1)(ρ) correlation, scales 0.5 to 2, class
    means N(0, separation²) per feature."""
    rng = np.random.default_rng(seed)
    lags = np.abs(np.subtract.outer(np.arange(n_features), np.arange(n_features)))
    scale = np.geomspace(0.5, 2.0, n_features)
    factor = np.linalg.cholesky(rho**lags * np.outer(scale, scale))
    y = np.arange(n_rows) % N_CLASSES
    means = rng.normal(scale=separation, size=(N_CLASSES, n_features))
    return means[y] + rng.normal(size=(n_rows, n_features)) @ factor.T, y


def _time(make, X, y):
    start = time.perf_counter()
    proba = make().fit(X, y).predict_proba(X)
    return time.perf_counter() - start, proba


def speed(n_rows: int, n_features: int, repeats: int) -> list[dict]:
    # class means closer than in the CV data: with 200 features 0.35 apart every probability is 0 or 1
    X, y = correlated_rows(n_rows, n_features, seed=0, separation=0.05)
    results = []
    for cls, shrinkage in SPEED_CASES:
        ours, theirs = (lambda: cls(estimate="mle", shrinkage=shrinkage)), _sklearn(cls, shrinkage)
        for make in (ours, theirs):  # a first call of each, untimed: imports and caches
            make().fit(X[:300], y[:300]).predict_proba(X[:300])
        times = {"ours": [], "theirs": []}
        for _ in range(repeats):
            for side, make in (("ours", ours), ("theirs", theirs)):
                seconds, proba = _time(make, X, y)
                times[side].append(seconds)
                if side == "ours":
                    ours_proba = proba
        result = {
            "model": cls.__name__,
            "shrinkage": shrinkage,
            "ours": statistics.median(times["ours"]),
            "theirs": statistics.median(times["theirs"]),
            "difference": float(np.abs(ours_proba - proba).max()),
        }
        result["ratio"] = result["ours"] / result["theirs"]
        results.append(result)
        print(
            f"{cls.__name__} shrinkage={shrinkage!r}: {result['ours']:.3f} / {result['theirs']:.3f} s, "
            f"ratio {result['ratio']:.2f}, max |Δp| {result['difference']:.1e}",
            flush=True,
        )
    return results


def _evidence_everywhere(cls):
    return dict.fromkeys(cls.evidence_parameters + ("class_alpha",), "evidence")


CV_MODELS = {
    "Ledoit–Wolf plug-in": lambda cls: cls(estimate="mle", shrinkage="auto"),
    "OAS plug-in": lambda cls: cls(estimate="mle", shrinkage="oas"),
    "NIW predictive, default prior": lambda cls: cls(estimate="predictive"),
    "NIW predictive, cov_strength learned": lambda cls: cls(estimate="predictive", cov_strength="evidence"),
    "NIW predictive, evidence-learned prior": lambda cls: cls(estimate="predictive", **_evidence_everywhere(cls)),
}


def cross_validated_losses(cls, n_rows: int, n_features: int, seeds, n_folds: int) -> dict:
    """{column of CV_MODELS: test log loss of every fold of every dataset} for LDA or QDA."""
    losses = {name: [] for name in CV_MODELS}
    for seed in seeds:
        X, y = correlated_rows(n_rows, n_features, seed=1000 + seed)
        for train, test in StratifiedKFold(n_folds, shuffle=True, random_state=seed).split(X, y):
            for name, make in CV_MODELS.items():
                proba = make(cls).fit(X[train], y[train]).predict_proba(X[test])
                losses[name].append(log_loss(y[test], proba, labels=np.arange(N_CLASSES)))
    return {name: np.array(values) for name, values in losses.items()}


def _mean_and_error(values) -> str:
    return f"{values.mean():.3f} ± {values.std(ddof=1) / np.sqrt(len(values)):.3f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cv-rows", type=int, default=90)
    parser.add_argument("--cv-features", type=int, default=40)
    parser.add_argument("--cv-seeds", type=int, default=5)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--write", help="append the Markdown tables to this file")
    args = parser.parse_args(argv)
    for name in ("rows", "features", "repeats", "cv_rows", "cv_features", "cv_seeds"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.folds < 2:
        parser.error("--folds must be at least 2")
    command = f"python -m benchmarks.shrinkage {' '.join(argv if argv is not None else sys.argv[1:])}".strip()
    command = command.split(" --write")[0]
    if os.environ.get("OPENBLAS_NUM_THREADS"):  # the BLAS threads decide the times on a busy machine
        command = f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']} {command}"

    results = speed(args.rows, args.features, args.repeats)
    lines = [
        "",
        f"{SPEED_HEADING} ({args.rows:,} rows × {args.features} features, 3 classes)",
        "",
        f"Command: `{command}` — fit + predict_proba, median of {args.repeats} runs, the two libraries alternating; "
        'scikit-learn: LDA solver="lsqr", QDA solver="eigen", "oas" as covariance_estimator=OAS(); '
        "max |Δp|: the largest difference of the two libraries' probabilities.",
        "",
        "| model | shrinkage | ours (s) | scikit-learn (s) | ratio | max \\|Δp\\| |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['model']} | {r['shrinkage']!r} | {r['ours']:.3f} | {r['theirs']:.3f} | {r['ratio']:.2f} | "
            f"{r['difference']:.1e} |"
        )
    if args.write:
        append_section(args.write, lines)

    seeds = range(args.cv_seeds)
    lines = [
        "",
        f"{CV_HEADING} (cross-validated log loss, {args.cv_rows} rows × {args.cv_features} features)",
        "",
        f"Command: `{command}` — {args.cv_seeds} generated datasets (3 equal classes, AR(1) correlation ρ = 0.7, "
        f"feature scales 0.5 to 2), stratified {args.folds}-fold CV each: about "
        f"{args.cv_rows * (args.folds - 1) // (args.folds * N_CLASSES)} training rows a class for "
        f"{args.cv_features} features. Test log loss, mean over the {args.cv_seeds * args.folds} folds ± its "
        "standard error; lower is better.",
        "",
        "| model | " + " | ".join(CV_MODELS) + " |",
        "|---|" + "---:|" * len(CV_MODELS),
    ]
    for cls in (LDA, QDA):
        losses = cross_validated_losses(cls, args.cv_rows, args.cv_features, seeds, args.folds)
        lines.append(f"| {cls.__name__} | " + " | ".join(_mean_and_error(v) for v in losses.values()) + " |")
        print(lines[-1], flush=True)
    if args.write:
        append_section(args.write, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
