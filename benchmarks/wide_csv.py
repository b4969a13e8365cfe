"""Reading a wide CSV: ``load_table``'s Categoricals built a block of columns at a time against
``pd.Categorical`` column by column (what it did before), side by side in one run.

    python -m benchmarks.wide_csv [--shapes 5000x20 ...] [--repeats 3] [--no-cli] [--write FILE]

Each shape is columns × rows of text cells; the levels are three shared by every column ("abc")
or each column's own ("own": values named after the column). Both ways read the same file with
``pandas.read_csv`` and build the same frame (tests/test_load_table_categoricals.py checks the
categories and codes are identical); the times are CPU seconds of this process (``time.process_time``:
other jobs on a shared machine lengthen the wall time, not these), the best of ``--repeats``,
alternating. The last column is the wall time of the whole ``pgm-models fit --model categorical-nb``
command on the file, in a fresh process (interpreter start and imports included).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks import append_section
from pgm_models.datasets import load_table

HEADING = "## Reading a wide CSV: Categoricals by blocks of columns vs one `pd.Categorical` per column"


def write_csv(path, columns: int, rows: int, levels: str) -> None:
    index = np.add.outer(np.arange(rows), np.arange(columns)) % 3
    if levels == "abc":
        cells = np.array(list("abc"))[index]
    else:
        cells = np.char.add(np.char.add(np.arange(columns).astype(str)[None, :], "_"), index.astype(str))
    header = ",".join(f"c{j}" for j in range(columns)) + ",y"
    body = [",".join(row) + f",{'pn'[i % 2]}" for i, row in enumerate(cells)]
    Path(path).write_text("\n".join([header, *body]) + "\n")


def column_by_column(path):
    """The former ``load_table``: one ``pd.Categorical`` per text column."""
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    frame = pd.DataFrame(
        {c: v if pd.api.types.is_numeric_dtype(v) else pd.Categorical(v) for c, v in frame.items()}, index=frame.index
    )
    return frame.iloc[:, :-1], frame.iloc[:, -1]


def best_of(function, path, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        function(path)
        times.append(time.process_time() - start)
    return min(times)


def cli_seconds(path) -> tuple[float, int]:
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "pgm_models.app.cli", "fit", "--model", "categorical-nb", "--data", str(path)]
        + ["--max-rows", "3"],
        capture_output=True,
        env=env,
    )
    return time.perf_counter() - start, result.returncode


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", default=["5000x20", "1000x1000"], help="columns x rows")
    parser.add_argument("--levels", nargs="+", default=["abc", "own"], choices=["abc", "own"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-cli", action="store_true", help="skip the end-to-end command")
    parser.add_argument("--write", help="append the Markdown table to this file")
    args = parser.parse_args(argv)
    lines = [
        "",
        HEADING,
        "",
        "Command: `python -m benchmarks.wide_csv "
        + " ".join(a for a in (argv if argv is not None else sys.argv[1:]) if a not in (args.write, "--write"))
        + "`",
        "",
        "| columns × rows | levels | per column (CPU s) | by blocks (CPU s) | per column ÷ by blocks | `pgm-models fit` (wall s) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    with tempfile.TemporaryDirectory() as folder:
        for shape in args.shapes:
            columns, rows = (int(v) for v in shape.split("x"))
            for levels in args.levels:
                path = Path(folder) / f"{shape}-{levels}.csv"
                write_csv(path, columns, rows, levels)
                old = new = np.inf
                for _ in range(args.repeats):  # alternating, so both see the same machine load
                    old = min(old, best_of(column_by_column, path, 1))
                    new = min(new, best_of(load_table, path, 1))
                cli = "" if args.no_cli else "{:.1f} (exit {})".format(*cli_seconds(path))
                lines.append(f"| {columns} × {rows} | {levels} | {old:.2f} | {new:.2f} | {old / new:.1f} | {cli} |")
                print(lines[-1], flush=True)
    if args.write:
        append_section(args.write, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
