"""10-fold cross-validation with and without two busy processes beside it: a loaded machine
should slow the package down in proportion, not many-fold (BLAS threads, pgm_models._threads).

    python -m benchmarks.cv_under_load [--repeats 3] [--write FILE]

Models: LogisticRegression on vote (one-hot), GaussianNB, LDA and QDA on iris. The quiet and the
loaded runs alternate; each cell is the median of ``--repeats`` runs. The busy processes are
pure-Python loops, one per core of a 2-core machine.
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
    return [("LogisticRegression, vote", make_pipeline(one_hot, LogisticRegression()), vote),
            ("GaussianNB, iris", GaussianNB(), iris), ("LDA, iris", LDA(), iris), ("QDA, iris", QDA(), iris)]


def _cv_seconds(model, data) -> float:
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    X, y = data
    start = time.perf_counter()
    cross_val_score(model, X, y, cv=StratifiedKFold(10, shuffle=True, random_state=0))
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--busy", type=int, default=2, help="busy processes beside the loaded runs")
    parser.add_argument("--write", help="append the Markdown table to this file")
    args = parser.parse_args(argv)
    rows = []
    for name, model, data in _cases():
        quiet, loaded = [], []
        for _ in range(args.repeats):
            quiet.append(_cv_seconds(model, data))
            busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(args.busy)]
            try:
                time.sleep(0.5)  # let them start
                loaded.append(_cv_seconds(model, data))
            finally:
                for process in busy:
                    process.kill()
                    process.wait()
        rows.append((name, statistics.median(quiet), statistics.median(loaded)))
        print(rows[-1], flush=True)
    lines = ["", f"## 10-fold CV with {args.busy} busy processes beside it", "",
             f"Command: `python -m benchmarks.cv_under_load --repeats {args.repeats}` (median of {args.repeats}, quiet and "
             "loaded runs alternating; target: loaded ≤ 2 × quiet)", "",
             "| model | quiet (s) | loaded (s) | loaded ÷ quiet |", "|---|---:|---:|---:|"]
    lines += [f"| {name} | {quiet:.2f} | {loaded:.2f} | {loaded / quiet:.2f} |" for name, quiet, loaded in rows]
    print("\n".join(lines))
    if args.write:
        append_section(args.write, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
