"""Simulation-based calibration of the hierarchical models, with NUTS.

    python -m benchmarks.sbc [--replications 200] [--draws 500] [--models CategoricalNB ...] [--figure FILE] [--write FILE]

For each hierarchical model (λ ~ Gamma(1, 1) on a shared Dirichlet concentration, fitted block
totals of a bundled dataset held fixed): ``--replications`` datasets simulated from the model,
λ's posterior sampled by NUTS (``pm.sample`` with its default sampler, 4 chains, ``--draws``
tuning and kept draws each), and the rank of the true λ among 99 thinned draws. Reports the χ²
uniformity p-value (20 bins), the seconds, and writes the rank histograms to ``--figure``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from benchmarks import append_section
from pgm_models import BernoulliNB, CategoricalNB, MultinomialNB
from pgm_models.datasets import load_dataset
from pgm_models.inference.calibration import simulation_based_calibration
from pgm_models.naive_bayes.hierarchical import HierarchicalNB


def cases():
    weather = load_dataset("weather.nominal")
    vote_X, vote_y = load_dataset("vote")
    binary = (vote_X.apply(lambda c: c.cat.codes) == 1).astype(float).to_numpy()[:, :6]  # 'y' votes on six bills
    rng = np.random.default_rng(0)
    counts = rng.poisson(2.0, size=(40, 8)).astype(float)
    return {
        "CategoricalNB": (CategoricalNB(), *weather),
        "BernoulliNB": (BernoulliNB(binarize=None), binary, vote_y.to_numpy()),
        "MultinomialNB": (MultinomialNB(), counts, np.repeat([0, 1], 20)),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=200)
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--models", nargs="+", default=["CategoricalNB", "BernoulliNB", "MultinomialNB"])
    parser.add_argument("--figure", help="write the rank histograms (PNG) here")
    parser.add_argument("--write", help="append the Markdown table to this file")
    args = parser.parse_args(argv)
    results = {}
    rows = []
    for name in args.models:
        model, X, y = cases()[name]
        hierarchical = HierarchicalNB(model, draws=args.draws, tune=args.draws, chains=4).fit_counts(X, y)
        start = time.perf_counter()
        result = simulation_based_calibration(
            hierarchical.simulate,
            hierarchical.posterior_alpha,
            n_replications=args.replications,
            n_draws=99,
            random_seed=1,
        )
        seconds = time.perf_counter() - start
        results[name] = result
        rows.append((name, len(y), args.replications, float(result.p_values[0]), result.passed(), seconds))
        print(rows[-1], flush=True)
    if args.figure:
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, len(results), figsize=(3.2 * len(results), 2.6), squeeze=False)
        for ax, (name, result) in zip(axes[0], results.items()):
            result.plot([ax])
            ax.set_title(f"{name}: λ rank", fontsize=9)
        fig.tight_layout()
        fig.savefig(args.figure, dpi=110)
    if args.write:
        command = "python -m benchmarks.sbc " + " ".join(
            a for a in (argv if argv is not None else sys.argv[1:]) if a not in (args.write, "--write")
        )
        lines = [
            "",
            "## Simulation-based calibration of the hierarchical models (NUTS)",
            "",
            f"Command: `{command.strip()}`",
            "",
            "| model | rows | replications | χ² p-value (20 bins) | uniform at 1 % | seconds |",
            "|---|---:|---:|---:|---|---:|",
        ]
        lines += [f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.3f} | {'yes' if r[4] else 'NO'} | {r[5]:.0f} |" for r in rows]
        if args.figure:
            lines += ["", f"Rank histograms: `{args.figure}` (grey: the 99 % band of a uniform bin's count)."]
        append_section(args.write, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
