"""Exact i.i.d. posterior draws (``posterior_draws``) against NUTS (``sample_posterior``), in
effective draws per second.

    python -m benchmarks.exact_vs_nuts [--draws 1000] [--write FILE]

For each model: NUTS on the counts-form PyMC model (2 chains, 1000 tuning steps) and exact draws
from the closed form; effective draws = the smallest bulk ESS over all parameters (ArviZ), per
second of sampling. A first 10-draw NUTS run compiles the model (with PyTensor's on-disk cache
as it is) and is reported as "compile"; the timed NUTS run is the second.
"""

from __future__ import annotations

import argparse
import sys
import time

import arviz as az

from benchmarks import append_section
from pgm_models import LDA, CategoricalNB, GaussianNB, MultinomialNB
from pgm_models.datasets import load_dataset


def cases():
    weather, iris = load_dataset("weather.nominal"), load_dataset("iris")
    X, y = iris[0].to_numpy(), iris[1].to_numpy()
    counts = (X * 10).round()
    return [
        ("CategoricalNB, weather", CategoricalNB().fit(*weather)),
        ("MultinomialNB, iris ×10 as counts", MultinomialNB().fit(counts, y)),
        ("GaussianNB, iris", GaussianNB().fit(X, y)),
        ("LDA, iris", LDA().fit(X, y)),
    ]


def min_ess(idata) -> float:
    return float(az.ess(idata).to_array().min())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--models", nargs="+", help="only the cases whose name starts with one of these")
    parser.add_argument("--write", help="append the Markdown table to this file")
    args = parser.parse_args(argv)
    nuts = dict(
        draws=args.draws,
        tune=1000,
        chains=2,
        cores=1,
        progressbar=False,
        random_seed=1,
        compute_convergence_checks=False,
    )
    rows = []
    for name, model in cases():
        if args.models and not name.startswith(tuple(args.models)):
            continue
        start = time.perf_counter()
        model.sample_posterior(**{**nuts, "draws": 10, "tune": 10})  # compiles (and warms) the model
        compile_s = time.perf_counter() - start
        start = time.perf_counter()
        sampled = model.sample_posterior(**nuts)
        nuts_s = time.perf_counter() - start
        start = time.perf_counter()
        exact = model.posterior_draws(args.draws, random_seed=1)
        exact_s = time.perf_counter() - start
        nuts_rate, exact_rate = min_ess(sampled) / nuts_s, min_ess(exact) / exact_s
        rows.append(
            (
                name,
                compile_s,
                nuts_s,
                min_ess(sampled),
                nuts_rate,
                exact_s,
                min_ess(exact),
                exact_rate,
                exact_rate / nuts_rate,
            )
        )
        print(rows[-1], flush=True)
    if args.write:
        command = "python -m benchmarks.exact_vs_nuts " + " ".join(
            a for a in (argv if argv is not None else sys.argv[1:]) if a not in (args.write, "--write")
        )
        lines = [
            "",
            f"## Exact posterior draws vs NUTS ({args.draws} draws × 2 chains)",
            "",
            f"Command: `{command.strip()}`",
            "",
            "| model | NUTS compile (s) | NUTS sampling (s) | NUTS min ESS | NUTS ESS/s | exact (s) | exact min ESS | exact ESS/s | exact / NUTS |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        lines += [
            f"| {r[0]} | {r[1]:.1f} | {r[2]:.2f} | {r[3]:.0f} | {r[4]:.0f} | {r[5]:.4f} | {r[6]:.0f} | {r[7]:.0f} | {r[8]:.0f}× |"
            for r in rows
        ]
        append_section(args.write, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
