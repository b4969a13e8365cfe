"""Peak memory of fit + predict on large data, each case in a fresh process.

    python -m benchmarks.large_data [--rows 1000000] [--write FILE]

Reports, per model, the peak resident memory of a process that generates the data, fits and
predicts every row, against the peak of one that only generates the data (so the model's own
share is the difference). Then AODE with 10, 30 and 100 attributes (50 000 rows, 4 values each)
to show the K·T'² pair tensor growing with the square of the attributes. Then the semi-naive
models on wide data with many values (100 and 500 attributes × 50 values, 2 classes): a SPODE
needs K·r_a·T' floats, AODE and TAN K·T'², refused up front (with the size) when it cannot fit.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from benchmarks import append_section

CASE = r"""
import json, resource, sys, time
import numpy as np
model_name, n_rows, n_attributes, fit, n_values = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "fit", int(sys.argv[5])
rng = np.random.default_rng(0)
y = rng.integers(0, 3 if n_values == 4 else 2, n_rows)
params = {}
if n_values != 4:  # wide data: every attribute declares n_values values
    X = rng.integers(0, n_values, size=(n_rows, n_attributes))
    params = {"n_categories": n_values}
elif model_name in ("GaussianNB", "LDA", "QDA"):
    X = rng.normal(size=(n_rows, n_attributes)) + y[:, None]
elif model_name == "MultinomialNB":
    X = rng.poisson(1.0 + 4 * np.eye(3, n_attributes)[y])
else:
    X = (rng.integers(0, 4, size=(n_rows, n_attributes)) + y[:, None]) % 4
seconds, refused = 0.0, None
if fit:
    import pgm_models
    start = time.perf_counter()
    try:
        getattr(pgm_models, model_name)(**params).fit(X, y).predict_proba(X)
    except ValueError as error:  # a pair tensor that cannot fit is refused before it is allocated
        refused = str(error)
    seconds = time.perf_counter() - start
def peak_mib():
    # VmHWM belongs to this process's address space (reset at exec); ru_maxrss is not: on Linux it
    # carries over from a parent that already peaked higher
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"peak_mib": peak_mib(), "seconds": seconds, "refused": refused}))
"""


def measure(model: str, rows: int, attributes: int, fit: bool = True, values: int = 4) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CASE, model, str(rows), str(attributes), "fit" if fit else "data", str(values)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--aode-rows", type=int, default=50_000)
    parser.add_argument(
        "--models",
        nargs="+",
        default=["CategoricalNB", "BernoulliNB", "MultinomialNB", "GaussianNB", "LDA", "QDA", "AODE", "TAN"],
    )
    parser.add_argument("--aode-attributes", type=int, nargs="+", default=[10, 30, 100])
    parser.add_argument("--wide-rows", type=int, default=2000)
    parser.add_argument("--wide", nargs="+", default=["100x50", "500x50"], help="attributes x values of the wide cases")
    parser.add_argument("--write", help="append the Markdown tables to this file")
    args = parser.parse_args(argv)
    models = args.models
    lines = [
        "",
        f"## Peak memory of fit + predict_proba on {args.rows:,} rows × 8 attributes, 3 classes",
        "",
        f"Command: `python -m benchmarks.large_data {' '.join(argv if argv is not None else sys.argv[1:])}`".strip(),
        "",
        "| model | peak RSS (MiB) | of which the data and interpreter (MiB) | seconds |",
        "|---|---:|---:|---:|",
    ]
    for model in models:
        baseline, run = measure(model, args.rows, 8, fit=False), measure(model, args.rows, 8)
        lines.append(f"| {model} | {run['peak_mib']:.0f} | {baseline['peak_mib']:.0f} | {run['seconds']:.2f} |")
        print(lines[-1], flush=True)
    lines += [
        "",
        f"AODE as attributes grow ({args.aode_rows:,} rows, 4 values each; the pair tensor has K·T'² = 3·(5d)² entries):",
        "",
        "| attributes | peak RSS (MiB) | of which the data and interpreter (MiB) | seconds |",
        "|---:|---:|---:|---:|",
    ]
    for attributes in args.aode_attributes:
        baseline, run = (
            measure("AODE", args.aode_rows, attributes, fit=False),
            measure("AODE", args.aode_rows, attributes),
        )
        lines.append(f"| {attributes} | {run['peak_mib']:.0f} | {baseline['peak_mib']:.0f} | {run['seconds']:.2f} |")
        print(lines[-1], flush=True)
    lines += [
        "",
        f"Semi-naive models on wide data ({args.wide_rows:,} rows, 2 classes, attributes × values; T' = attributes·(values + 1)):",
        "",
        "| model | attributes × values | pair tensor (MiB) | peak RSS (MiB) | of which the data and interpreter (MiB) | seconds |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for case in args.wide:
        attributes, values = (int(v) for v in case.split("x"))
        cells = attributes * (values + 1)
        baseline = measure("SPODE", args.wide_rows, attributes, fit=False, values=values)
        for model, tensor_rows in (("SPODE", values), ("AODE", cells), ("TAN", cells)):
            run = measure(model, args.wide_rows, attributes, values=values)
            tensor = f"{2 * tensor_rows * cells * 8 / 2**20:,.0f}"
            peak = (
                f"refused: {run['refused'].split(' needs ')[1].split(';')[0]}"
                if run["refused"]
                else f"{run['peak_mib']:.0f}"
            )
            lines.append(
                f"| {model} | {attributes} × {values} | {tensor} | {peak} | {baseline['peak_mib']:.0f} | {run['seconds']:.2f} |"
            )
            print(lines[-1], flush=True)
    if args.write:
        append_section(args.write, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
