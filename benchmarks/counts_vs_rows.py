"""Verification cost: NUTS on the counts-form PyMC model against the rows form, as N grows.

    python -m benchmarks.counts_vs_rows [--sizes 1000 10000 100000] [--draws 300] [--rows-budget 900] [--write FILE]

CategoricalNB (8 attributes of 3 values, 2 classes) and GaussianNB (4 features, 2 classes) on
synthetic data of N rows. For each form and N: "compile" is the wall time of ``pm.sample``
before its first draw (building the model, PyTensor compilation with the on-disk cache as it
is, NUTS initialisation), "sampling" is PyMC's own ``sampling_time`` (tuning and draws), and
effective draws per second is the smallest bulk ESS over all parameters over the sampling
time. The rows form at a larger N is skipped when its time projected linearly from the
previous N exceeds ``--rows-budget`` seconds, and the table says so.
"""

from __future__ import annotations

import argparse
import sys
import time

import arviz as az
import numpy as np
import pandas as pd
import pymc as pm

from benchmarks import append_section
from pgm_models import CategoricalNB, GaussianNB


def categorical_data(n_rows: int, rng):
    y = rng.integers(0, 2, n_rows)
    probabilities = np.array([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5]])
    columns = {
        f"x{j}": pd.Categorical(
            np.array(["a", "b", "c"])[(rng.random(n_rows)[:, None] > probabilities[y].cumsum(axis=1)).sum(axis=1)],
            categories=["a", "b", "c"],
        )
        for j in range(8)
    }
    return pd.DataFrame(columns), y


def gaussian_data(n_rows: int, rng):
    y = rng.integers(0, 2, n_rows)
    return rng.normal(loc=y[:, None] * [1.0, -0.5, 0.3, 2.0], scale=[1.0, 2.0, 0.5, 1.5], size=(n_rows, 4)), y


CASES = {"CategoricalNB": (CategoricalNB, categorical_data), "GaussianNB": (GaussianNB, gaussian_data)}


def measure(model, form: str, X, y, draws: int):
    pymc_model = model.pymc_model(form, X, y)
    start = time.perf_counter()
    idata = pm.sample(
        draws=draws,
        tune=draws,
        chains=2,
        cores=1,
        random_seed=1,
        progressbar=False,
        compute_convergence_checks=False,
        model=pymc_model,
    )
    total = time.perf_counter() - start
    sampling = float(idata.posterior.attrs["sampling_time"])
    names = list(model.analytic_posterior("mean").data_vars)
    ess = float(az.ess(idata, var_names=names).to_array().min())
    return total - sampling, sampling, ess


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--draws", type=int, default=300, help="draws and tuning steps per chain (2 chains)")
    parser.add_argument("--models", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument(
        "--rows-budget", type=float, default=900.0, help="skip a rows-form run projected to take longer (s)"
    )
    parser.add_argument("--write", help="append the Markdown table to this file")
    args = parser.parse_args(argv)
    import logging

    logging.getLogger("pymc").setLevel(logging.ERROR)
    rows = []
    for name in args.models:
        estimator, make_data = CASES[name]
        previous_rows_time = None
        for n_rows in args.sizes:
            X, y = make_data(n_rows, np.random.default_rng(n_rows))
            model = estimator().fit(X, y)
            for form in ("counts", "rows"):
                if form == "rows" and previous_rows_time is not None:
                    projected = previous_rows_time[1] * n_rows / previous_rows_time[0]
                    if projected > args.rows_budget:
                        rows.append(
                            (
                                name,
                                n_rows,
                                form,
                                None,
                                None,
                                None,
                                f"skipped: projected {projected:.0f} s > --rows-budget",
                            )
                        )
                        print(rows[-1], flush=True)
                        continue
                compile_s, sampling_s, ess = measure(model, form, X, y, args.draws)
                if form == "rows":
                    previous_rows_time = (n_rows, compile_s + sampling_s)
                rows.append((name, n_rows, form, compile_s, sampling_s, ess / sampling_s, ""))
                print(rows[-1], flush=True)
    if args.write:
        write(rows, args, argv)
    return 0


def write(rows, args, argv):
    table = {(r[0], r[1], r[2]): r for r in rows}
    command = "python -m benchmarks.counts_vs_rows " + " ".join(
        a for a in (argv if argv is not None else sys.argv[1:]) if a not in (args.write, "--write")
    )
    lines = [
        "",
        f"## Verification cost: counts form vs rows form ({args.draws} tuning steps + {args.draws} draws × 2 chains)",
        "",
        f"Command: `{command.strip()}`",
        "",
        "| model | N | form | compile (s) | sampling (s) | min ESS / s | rows ÷ counts sampling time |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for name, n_rows, form, compile_s, sampling_s, rate, note in rows:
        if compile_s is None:
            lines.append(f"| {name} | {n_rows} | {form} | — | — | — | {note} |")
            continue
        counts = table[(name, n_rows, "counts")]
        ratio = f"{sampling_s / counts[4]:.0f}×" if form == "rows" else ""
        lines.append(f"| {name} | {n_rows} | {form} | {compile_s:.1f} | {sampling_s:.2f} | {rate:.0f} | {ratio} |")
    for name in args.models:
        counts = [table[(name, n, "counts")][4] for n in args.sizes if (name, n, "counts") in table]
        if len(counts) > 1:
            lines.append(
                f"\n{name}: counts-form sampling time at N = {args.sizes[-1]} ÷ at N = {args.sizes[0]}: "
                f"{counts[-1] / counts[0]:.2f}."
            )
    append_section(args.write, lines)


if __name__ == "__main__":
    raise SystemExit(main())
