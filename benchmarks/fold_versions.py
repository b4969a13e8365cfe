"""Small-fold time of this checkout against earlier ones, beside a warm Weka, side by side.

    git worktree add /tmp/before REV      # or: git archive REV | tar -x -C /tmp/before
    python -m benchmarks.fold_versions --checkouts /tmp/before . [--alternations 3]

The guard against a small-fold regression: each checkout runs its own ``benchmarks.vs_warm_weka
--rows 0 --repeats 1`` (Weka's 10 folds of vote, breast-cancer and diabetes, a warm JVM beside it)
in its own process, the checkouts alternating, so a busy machine slows both alike; and counts the
Python calls of one fold (cProfile), which no load changes. Reported per fold: each checkout's
median ms and its ratio to warm Weka over the alternations, and calls per fold.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks import append_section

LINE = re.compile(
    r"^(?P<data>\S+)\s+(?P<model>.+?)\s+pgm_models\s+(?P<ours>[\d.]+) ms\s+warm Weka\s+(?P<weka>[\d.]+) ms"
)

CALLS = """
import cProfile, pstats, sys, warnings
warnings.simplefilter("ignore")
import numpy as np
from pgm_models import AODE, CategoricalNB
from pgm_models.datasets import load_dataset
for name in sys.argv[1:]:
    X, y = load_dataset(name)
    test = np.arange(len(y)) % 10 == 0
    for model in (CategoricalNB, AODE):
        model().fit(X[~test], y[~test]).predict_proba(X[test])
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(20):
            model().fit(X[~test], y[~test]).predict_proba(X[test])
        profiler.disable()
        calls = sum(row[1] for row in pstats.Stats(profiler).stats.values()) / 20
        print(name, model.__name__, calls)
"""


def parse_folds(text: str) -> dict[tuple[str, str], tuple[float, float]]:
    """(data, model) → (ours ms, Weka ms) from the lines ``vs_warm_weka`` prints."""
    return {
        (m["data"], m["model"].strip()): (float(m["ours"]), float(m["weka"]))
        for m in map(LINE.match, text.splitlines())
        if m
    }


def _run(checkout: Path, arguments: list[str]) -> str:
    environment = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
    result = subprocess.run([sys.executable, *arguments], env=environment, capture_output=True, text=True, cwd=checkout)
    if result.returncode:
        raise RuntimeError(f"{checkout}: {' '.join(arguments[:3])} failed: {result.stderr.strip()[-300:]}")
    return result.stdout


def fold_times(checkout: Path) -> dict[tuple[str, str], tuple[float, float]]:
    return parse_folds(_run(checkout, ["-m", "benchmarks.vs_warm_weka", "--rows", "0", "--repeats", "1"]))


def calls_per_fold(checkout: Path, datasets=("vote", "breast-cancer")) -> dict[tuple[str, str], float]:
    lines = _run(checkout, ["-c", CALLS, *datasets]).split("\n")
    return {(d, m): float(c) for d, m, c in (line.split() for line in lines if line.strip())}


def label(checkout: Path) -> str:
    """The checkout's short commit where it is a git checkout, else its path."""
    result = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return result.stdout.strip() or str(checkout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkouts", nargs="+", type=Path, required=True, help="the first is the reference")
    parser.add_argument("--alternations", type=int, default=3)
    parser.add_argument("--write", help="append the Markdown section to this file")
    args = parser.parse_args(argv)
    times = {checkout: [] for checkout in args.checkouts}
    for _ in range(args.alternations):
        for checkout in args.checkouts:
            times[checkout].append(fold_times(checkout))
    calls = {checkout: calls_per_fold(checkout) for checkout in args.checkouts}
    folds = list(times[args.checkouts[0]][0])
    names = {checkout: label(checkout) for checkout in args.checkouts}
    header = ["data", "model"]
    for i, checkout in enumerate(args.checkouts):
        name = names[checkout]
        header += [f"{name} (ms)", f"{name} / Weka", f"{name} calls"] + (
            [f"{name} / {names[args.checkouts[0]]}"] if i else []
        )
    rows = []
    for fold in folds:
        cells = list(fold)
        reference = None
        for checkout in args.checkouts:
            runs = [run[fold] for run in times[checkout] if fold in run]
            ours = statistics.median(o for o, _ in runs)
            ratio = statistics.median(o / w for o, w in runs)
            cells += [f"{ours:.2f}", f"{ratio:.2f}", f"{calls[checkout].get(fold, float('nan')):.0f}"]
            if reference is None:
                reference = ours
            else:
                cells.append(f"{ours / reference:.2f}")
        rows.append(cells)
        print("  ".join(cells), flush=True)
    if args.write:
        command = "python -m benchmarks.fold_versions --checkouts " + " ".join(map(str, args.checkouts))
        append_section(
            args.write,
            [
                "",
                "## Small folds against earlier checkouts (beside a warm Weka)",
                "",
                f"Command: `{command} --alternations {args.alternations}` — each checkout's own "
                "`vs_warm_weka --rows 0 --repeats 1` in its own process, the checkouts alternating; medians over "
                "the alternations; calls = Python function calls per fold (cProfile, 20 folds), which load does not "
                "change.",
                "",
                "| " + " | ".join(header) + " |",
                "|" + "---|" * 2 + "---:|" * (len(header) - 2),
                *("| " + " | ".join(cells) + " |" for cells in rows),
            ],
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
