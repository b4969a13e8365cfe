"""Peak memory of fit + predict on large data, each case in a fresh process.

    python -m benchmarks.large_data [--rows 1000000] [--write FILE]

Reports, per model, the peak resident memory of a process that generates the data, fits and
predicts every row, against the peak of one that only generates the data (so the model's own
share is the difference). Then AODE with 10, 30 and 100 attributes (50 000 rows, 4 values each)
to show the K·T'² pair tensor growing with the square of the attributes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CASE = r"""
import json, resource, sys, time
import numpy as np
model_name, n_rows, n_attributes, fit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "fit"
rng = np.random.default_rng(0)
y = rng.integers(0, 3, n_rows)
if model_name in ("GaussianNB", "LDA", "QDA"):
    X = rng.normal(size=(n_rows, n_attributes)) + y[:, None]
elif model_name == "MultinomialNB":
    X = rng.poisson(1.0 + 4 * np.eye(3, n_attributes)[y])
else:
    X = (rng.integers(0, 4, size=(n_rows, n_attributes)) + y[:, None]) % 4
seconds = 0.0
if fit:
    import pgm_models
    start = time.perf_counter()
    getattr(pgm_models, model_name)().fit(X, y).predict_proba(X)
    seconds = time.perf_counter() - start
def peak_mib():
    # VmHWM belongs to this process's address space (reset at exec); ru_maxrss is not: on Linux it
    # carries over from a parent that already peaked higher
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"peak_mib": peak_mib(), "seconds": seconds}))
"""


def measure(model: str, rows: int, attributes: int, fit: bool = True) -> dict:
    out = subprocess.run([sys.executable, "-c", CASE, model, str(rows), str(attributes), "fit" if fit else "data"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--aode-rows", type=int, default=50_000)
    parser.add_argument("--models", nargs="+", default=["CategoricalNB", "BernoulliNB", "MultinomialNB", "GaussianNB", "LDA", "QDA", "AODE", "TAN"])
    parser.add_argument("--aode-attributes", type=int, nargs="+", default=[10, 30, 100])
    parser.add_argument("--write", help="append the Markdown tables to this file")
    args = parser.parse_args(argv)
    models = args.models
    lines = ["", f"## Peak memory of fit + predict_proba on {args.rows:,} rows × 8 attributes, 3 classes", "",
             f"Command: `python -m benchmarks.large_data {' '.join(argv if argv is not None else sys.argv[1:])}`".strip(), "",
             "| model | peak RSS (MiB) | of which the data and interpreter (MiB) | seconds |", "|---|---:|---:|---:|"]
    for model in models:
        baseline, run = measure(model, args.rows, 8, fit=False), measure(model, args.rows, 8)
        lines.append(f"| {model} | {run['peak_mib']:.0f} | {baseline['peak_mib']:.0f} | {run['seconds']:.2f} |")
        print(lines[-1], flush=True)
    lines += ["", f"AODE as attributes grow ({args.aode_rows:,} rows, 4 values each; the pair tensor has K·T'² = 3·(5d)² entries):", "",
              "| attributes | peak RSS (MiB) | of which the data and interpreter (MiB) | seconds |", "|---:|---:|---:|---:|"]
    for attributes in args.aode_attributes:
        baseline, run = measure("AODE", args.aode_rows, attributes, fit=False), measure("AODE", args.aode_rows, attributes)
        lines.append(f"| {attributes} | {run['peak_mib']:.0f} | {baseline['peak_mib']:.0f} | {run['seconds']:.2f} |")
        print(lines[-1], flush=True)
    if args.write:
        with open(args.write, "a") as handle:
            handle.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
