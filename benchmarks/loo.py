"""Exact leave-one-out (``model.loo``) against fitting, and against PSIS-LOO from NUTS draws.

    python -m benchmarks.loo [--rows 1000000] [--repeats 5] [--draws 1000] [--dataset vote] [--write FILE]

Part 1: CategoricalNB on synthetic data (3 classes, 16 attributes of 4 values): the median time
of ``fit`` and of exact ``loo`` (conditional and joint) over the repeats, taken in turn, with the
load average before and after.
Part 2: on vote, exact joint LOO against ``az.loo`` (PSIS) on NUTS draws of the counts-form
model (4 chains), with the pointwise rows-form log-likelihood log p(y_i, x_i | θ_s): both
elpd values, PSIS's max Pareto k, and the seconds of each (NUTS includes compiling).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import arviz as az
import numpy as np

from benchmarks import append_section
from pgm_models import CategoricalNB
from pgm_models.datasets import load_dataset


def rows_log_likelihood(model: CategoricalNB, X, y, idata) -> np.ndarray:
    """log p(y_i, x_i | θ_s) of CategoricalNB's rows-form model under each draw of ``idata``'s
    posterior: log π_s[y_i] + Σ_j log θ_s[j, y_i, x_ij] over the observed attributes, (S, N)."""
    codes = model._encode(X, reset=False, training=False)
    class_index = model._class_index(np.asarray(y))
    posterior = idata.posterior.stack(sample=("chain", "draw")).transpose("sample", ...)
    log_lik = np.log(posterior["class_prob"].values[:, class_index])
    for (name, _), column in zip(model._blocks(), codes.T):
        seen = column >= 0
        theta = posterior[f"feature_prob_{name}"].values
        log_lik[:, seen] += np.log(theta[:, class_index[seen], column[seen]])
    return log_lik


def synthetic(rows: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, rows)
    return (rng.integers(0, 4, size=(rows, 16)) + y[:, None]) % 4, y


def alternating_medians(functions: dict, repeats: int) -> dict:
    """Median (wall, CPU) seconds of each function over ``repeats`` rounds, the functions taken
    in turn within every round, so that a shared machine's changing load falls on all of them
    alike. CPU seconds (``time.process_time``) count only this process's own work, which a
    loaded machine stretches far less than the wall clock."""
    times = {name: [] for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            wall, cpu = time.perf_counter(), time.process_time()
            function()
            times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    return {name: tuple(np.median(seconds, axis=0)) for name, seconds in times.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--dataset", default="vote", help="nominal dataset of the PSIS comparison")
    parser.add_argument("--write", help="append the Markdown tables to this file")
    args = parser.parse_args(argv)
    X, y = synthetic(args.rows)
    model = CategoricalNB().fit(X, y)
    load = os.getloadavg()[0]
    medians = alternating_medians(
        {
            "fit": lambda: CategoricalNB().fit(X, y),
            "conditional": lambda: model.loo(X, y),
            "joint": lambda: model.loo(X, y, conditional=False),
        },
        args.repeats,
    )
    (fit_s, fit_cpu), (conditional_s, conditional_cpu), (joint_s, joint_cpu) = (
        medians["fit"],
        medians["conditional"],
        medians["joint"],
    )
    load = f"{load:.1f} → {os.getloadavg()[0]:.1f}"
    print(
        f"fit {fit_s:.3f} s, loo conditional {conditional_s:.3f} s, joint {joint_s:.3f} s (CPU {fit_cpu:.3f}, "
        f"{conditional_cpu:.3f}, {joint_cpu:.3f} s; load average {load})",
        flush=True,
    )

    X_vote, y_vote = load_dataset(args.dataset)
    vote = CategoricalNB().fit(X_vote, y_vote)
    start = time.perf_counter()
    exact = vote.loo(X_vote, y_vote, conditional=False)
    exact_s = time.perf_counter() - start
    start = time.perf_counter()
    idata = vote.sample_posterior(
        draws=args.draws, chains=4, random_seed=1, progressbar=False, compute_convergence_checks=False
    )
    nuts_s = time.perf_counter() - start
    start = time.perf_counter()
    log_lik = rows_log_likelihood(vote, X_vote, y_vote, idata).reshape(
        idata.posterior.sizes["chain"], idata.posterior.sizes["draw"], -1
    )
    idata.add_groups(log_likelihood={"y": log_lik})
    psis = az.loo(idata, pointwise=True)
    psis_s = time.perf_counter() - start
    print(
        f"{args.dataset}: exact {exact.elpd_loo:.2f} ({exact_s:.4f} s), PSIS {psis.elpd_loo:.2f} ± {psis.se:.2f} "
        f"(NUTS {nuts_s:.1f} s + PSIS {psis_s:.2f} s), max k {psis.pareto_k.values.max():.2f}",
        flush=True,
    )
    if args.write:
        command = "python -m benchmarks.loo " + " ".join(
            a for a in (argv if argv is not None else sys.argv[1:]) if a not in (args.write, "--write")
        )
        lines = [
            "",
            "## Exact leave-one-out",
            "",
            f"Command: `{command.strip()}`",
            "",
            f"CategoricalNB, {args.rows:,} rows × 16 attributes, median of {args.repeats} rounds (fit, conditional, "
            f"joint in turn; 1-minute load average {load} on {os.cpu_count()} cores):",
            "",
            "| seconds | fit | exact LOO, conditional | exact LOO, joint | conditional LOO / fit |",
            "|---|---:|---:|---:|---:|",
            f"| wall | {fit_s:.3f} | {conditional_s:.3f} | {joint_s:.3f} | {conditional_s / fit_s:.2f}× |",
            f"| CPU (this process) | {fit_cpu:.3f} | {conditional_cpu:.3f} | {joint_cpu:.3f} | {conditional_cpu / fit_cpu:.2f}× |",
            "",
            f"{args.dataset} ({len(y_vote)} rows), joint elpd: exact against PSIS-LOO on NUTS draws ({args.draws} × 4 chains):",
            "",
            "| method | elpd_loo | se | seconds | max Pareto k |",
            "|---|---:|---:|---:|---:|",
            f"| exact (`model.loo`) | {exact.elpd_loo:.2f} | {exact.se:.2f} | {exact_s:.4f} | — |",
            f"| PSIS (`az.loo`), NUTS + PSIS | {psis.elpd_loo:.2f} | {psis.se:.2f} | {nuts_s:.1f} + {psis_s:.2f} | "
            f"{psis.pareto_k.values.max():.2f} |",
        ]
        append_section(args.write, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
