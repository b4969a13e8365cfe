"""10-fold cross-validation with and without two busy processes beside it: a loaded machine
should slow the package down in proportion, not many-fold (BLAS threads, pgm_models._utils.threads).

    python -m benchmarks.cv_under_load [--repeats 3] [--min-seconds 2] [--write FILE]

Models: LogisticRegression on vote (one-hot), GaussianNB, LDA and QDA on iris. The quiet and the
loaded runs alternate; each cell is the median of ``--repeats`` runs. The busy processes are
pure-Python loops, one per core of a 2-core machine.

Two timings of each run: the first 10-fold CV alone, and the mean time per CV of CVs repeated
for at least ``--min-seconds``. A Gaussian model's CV on iris takes ~30 ms, a few of the
kernel's scheduling slices, so one CV beside busy processes measures when the scheduler
happened to run it as much as the package; the repeated CVs measure the share of the cores it
gets (with 3 runnable processes on 2 cores a fair share is 2/3 of a core: 1.5× the quiet time).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from benchmarks import append_section

BUSY = "while True: pass"


def _cases():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    from pgm_models import LDA, QDA, GaussianNB, LogisticRegression
    from pgm_models.datasets import load_dataset

    vote, iris = load_dataset("vote"), load_dataset("iris")
    one_hot = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    return [
        ("LogisticRegression, vote", make_pipeline(one_hot, LogisticRegression()), vote),
        ("GaussianNB, iris", GaussianNB(), iris),
        ("LDA, iris", LDA(), iris),
        ("QDA, iris", QDA(), iris),
    ]


def _cv_seconds(model, data, min_seconds: float) -> tuple[float, float]:
    """Seconds of the first 10-fold CV, and the mean seconds per CV of CVs repeated until
    ``min_seconds`` have passed (the first included)."""
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    X, y = data
    folds = StratifiedKFold(10, shuffle=True, random_state=0)
    start = time.perf_counter()
    cross_val_score(model, X, y, cv=folds)
    first = elapsed = time.perf_counter() - start
    runs = 1
    while elapsed < min_seconds:
        cross_val_score(model, X, y, cv=folds)
        runs += 1
        elapsed = time.perf_counter() - start
    return first, elapsed / runs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--busy", type=int, default=2, help="busy processes beside the loaded runs")
    parser.add_argument("--min-seconds", type=float, default=2.0, help="repeat the CV for at least this long per run")
    parser.add_argument("--write", help="append the Markdown table to this file")
    args = parser.parse_args(argv)
    rows = []
    for name, model, data in _cases():
        _cv_seconds(model, data, 0)  # a first CV in the process runs slower (imports, caches): not in either column
        quiet, loaded = [], []
        for _ in range(args.repeats):
            quiet.append(_cv_seconds(model, data, args.min_seconds))
            busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(args.busy)]
            try:
                time.sleep(0.5)  # let them start
                loaded.append(_cv_seconds(model, data, args.min_seconds))
            finally:
                for process in busy:
                    process.kill()
                    process.wait()
        rows.append((name, *(statistics.median(run[i] for run in runs) for i in (0, 1) for runs in (quiet, loaded))))
        print(rows[-1], flush=True)
    lines = [
        "",
        f"## 10-fold CV with {args.busy} busy processes beside it",
        "",
        f"Command: `python -m benchmarks.cv_under_load --repeats {args.repeats} --min-seconds {args.min_seconds:g}` (median of "
        f"{args.repeats}, quiet and loaded runs alternating; one CV, and the mean per CV of CVs repeated for "
        f"{args.min_seconds:g} s; target: loaded ≤ 2 × quiet)",
        "",
        "| model | one CV: quiet (ms) | loaded (ms) | loaded ÷ quiet | repeated: quiet (ms per CV) | loaded (ms per CV) | loaded ÷ quiet |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {name} | {q1 * 1e3:.1f} | {l1 * 1e3:.1f} | {l1 / q1:.2f} | {q * 1e3:.1f} | {loaded * 1e3:.1f} | {loaded / q:.2f} |"
        for name, q1, l1, q, loaded in rows
    ]
    print("\n".join(lines))
    if args.write:
        append_section(args.write, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
