"""AODE against Weka 3.6's AODE, end to end on identical ARFF files.

    python -m benchmarks.aode_vs_weka [--rows 50000] [--attributes 30] [--repeats 3] [--write FILE]

Each side reads the training and test ARFF files, builds AODE with the default settings
(Laplace, frequency limit 1) and writes the class distribution of every test row; Weka runs as
`java -cp weka.jar WekaDistributions weka.classifiers.bayes.AODE train.arff test.arff` (JVM
start-up included, as a user would run it). Datasets: vote (train = test = vote.arff) and a
synthetic nominal set (3–5 values per attribute, 2 classes, attributes depending on the class
and on one another, 2 % missing) of ``--rows`` training and rows/5 test rows. Reported: median
seconds of each side, the ratio Weka / pgm_models (≥ 5 is the target), and the largest
difference between the two sets of distributions. Needs Weka (`apt-get install weka`) and a JDK;
``--no-weka`` times pgm_models alone.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import append_section
from pgm_models import AODE
from pgm_models.datasets import dataset_path, load_arff

WEKA_JAR = Path("/usr/share/java/weka.jar")
HARNESS = (
    Path(__file__).resolve().parent.parent / "pgm_models" / "datasets" / "data" / "weka" / "WekaDistributions.java"
)


HEADING = "## AODE vs Weka 3.6 AODE, end to end (read ARFF, fit, predict every test row)"


def write_synthetic(path: Path, n_rows: int, n_attributes: int, seed: int) -> None:
    """Nominal data whose attributes depend on the class and on the previous attribute."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 6, n_attributes)
    y = rng.integers(0, 2, n_rows)
    X = np.empty((n_rows, n_attributes), dtype=np.int64)
    for j, size in enumerate(sizes):
        table = rng.dirichlet(np.ones(size), size=(2, 6))  # class × previous value (≤ 5 values) → value
        previous = X[:, j - 1] if j else np.zeros(n_rows, dtype=np.int64)
        cumulative = table[y, np.minimum(previous, 5)].cumsum(axis=1)
        X[:, j] = (rng.random(n_rows)[:, None] > cumulative).sum(axis=1)
    lines = ["@relation synthetic"]
    lines += [f"@attribute a{j} {{{','.join(f'v{v}' for v in range(size))}}}" for j, size in enumerate(sizes)]
    lines += ["@attribute class {c0,c1}", "@data"]
    missing = rng.random(X.shape) < 0.02
    for row, gaps, label in zip(X, missing, y):
        lines.append(",".join("?" if gap else f"v{value}" for value, gap in zip(row, gaps)) + f",c{label}")
    path.write_text("\n".join(lines) + "\n")


def run_ours(train: Path, test: Path):
    """(distributions, seconds spent in fit + predict_proba)."""
    X, y = load_arff(train)
    X_test, _ = load_arff(test)
    start = time.perf_counter()
    distributions = AODE().fit(X, y).predict_proba(X_test)
    return distributions, time.perf_counter() - start


def run_weka(train: Path, test: Path, build: Path):
    """(distributions, seconds Weka spent in buildClassifier + distributionForInstance)."""
    command = [
        "java",
        "-cp",
        f"{WEKA_JAR}{os.pathsep}{build}",
        "WekaDistributions",
        "weka.classifiers.bayes.AODE",
        str(train),
        str(test),
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    timings = dict(item.split("=") for item in result.stderr.split())
    out = result.stdout.splitlines()
    distributions = np.array([[float(v) for v in line.split(",")] for line in out[1:]])
    return distributions, float(timings["build_seconds"]) + float(timings["predict_seconds"])


def timed(function):
    """(end-to-end seconds, model seconds, result) of one call."""
    start = time.perf_counter()
    result, model_seconds = function()
    return time.perf_counter() - start, model_seconds, result


def medians(functions: dict, repeats: int) -> dict:
    """Per side: medians of the end-to-end and model seconds, and the last result. The sides
    alternate within each repeat, so a slow spell of the machine falls on both."""
    runs = {name: [] for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            runs[name].append(timed(function))
    return {
        name: (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs), rs[-1][2])
        for name, rs in runs.items()
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--attributes", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-weka", action="store_true", help="time pgm_models only")
    parser.add_argument("--write", help="append the Markdown table to this file")
    args = parser.parse_args(argv)
    use_weka = not args.no_weka
    if use_weka and not (WEKA_JAR.exists() and shutil.which("javac")):
        parser.error("Weka 3.6 (apt-get install weka) and a JDK are needed; use --no-weka to time pgm_models alone")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        if use_weka:
            subprocess.run(["javac", "-cp", str(WEKA_JAR), "-d", str(folder), str(HARNESS)], check=True)
        train, test = folder / "train.arff", folder / "test.arff"
        write_synthetic(train, args.rows, args.attributes, seed=1)
        write_synthetic(test, max(1, args.rows // 5), args.attributes, seed=1)  # same structure, first rows/5 rows
        with dataset_path("vote").open("rb") as source:
            (folder / "vote.arff").write_bytes(source.read())
        cases = [
            ("vote", folder / "vote.arff", folder / "vote.arff"),
            (f"synthetic {args.rows} × {args.attributes}", train, test),
        ]
        for name, train_file, test_file in cases:
            sides = {"ours": lambda: run_ours(train_file, test_file)}
            if use_weka:
                sides["weka"] = lambda: run_weka(train_file, test_file, folder)
            timings = medians(sides, args.repeats)
            ours_s, ours_model_s, ours = timings["ours"]
            row = {"data": name, "pgm_models_s": ours_s, "pgm_models_model_s": ours_model_s}
            if use_weka:
                weka_s, weka_model_s, weka = timings["weka"]
                row.update(
                    weka_s=weka_s,
                    weka_model_s=weka_model_s,
                    speedup=weka_s / ours_s,
                    model_speedup=weka_model_s / ours_model_s,
                    max_difference=float(np.abs(ours - weka).max()),
                    same_predictions=bool((ours.argmax(axis=1) == weka.argmax(axis=1)).all()),
                )
            rows.append(row)
            print(row, flush=True)
    if args.write:
        command = "python -m benchmarks.aode_vs_weka " + " ".join(
            a for a in (argv if argv is not None else sys.argv[1:]) if a not in (args.write, "--write")
        )
        lines = [
            "",
            HEADING,
            "",
            f"Command: `{command.strip()}` — median of {args.repeats} runs, the two sides alternating. End to end: reading both ARFF files, "
            "fit, predict (Weka: JVM start-up included). Model: fit + predict only (Weka: buildClassifier + "
            "distributionForInstance, timed inside the JVM).",
            "",
            "| data | end to end: pgm_models (s) | Weka (s) | Weka / pgm_models | model: pgm_models (s) | Weka (s) | Weka / pgm_models | max abs Δp | same predictions |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
        nan = float("nan")
        for r in rows:
            lines.append(
                f"| {r['data']} | {r['pgm_models_s']:.3f} | {r.get('weka_s', nan):.3f} | {r.get('speedup', nan):.1f} | "
                f"{r['pgm_models_model_s']:.3f} | {r.get('weka_model_s', nan):.3f} | {r.get('model_speedup', nan):.1f} | "
                f"{r.get('max_difference', nan):.1e} | {r.get('same_predictions', '-')} |"
            )
        append_section(args.write, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
