"""Cold against warm start: the wall time of `pgm-models zoo` on a fresh PyTensor compile cache
and again on the cache that run left behind.

    python -m benchmarks.zoo_start [--dataset vote] [--draws 1000] [--samplers pymc numpyro ...] [--write FILE]

Both runs are separate processes with ``PYTENSOR_FLAGS=base_compiledir=<a new temporary folder>``,
so the first compiles every model's C (or numba) code and the second finds it all cached; the difference
is what PyTensor's compilation costs a first-time user. With several ``--samplers`` (NUTS
backends, ``pgm-models zoo --sampler``) each gets its own compile folder, the backends alternating.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import append_section

# the section heading in BENCHMARKS.md
HEADING = "## Cold vs warm start of `pgm-models zoo`"


def timed_zoo(arguments, compiledir) -> tuple[float, int]:
    # base_compiledir, not compiledir: PyTensor keeps numba's cache beside the C one, under base_compiledir/numba
    environment = {**os.environ, "PYTENSOR_FLAGS": f"base_compiledir={compiledir}"}
    script = Path(sys.executable).parent / "pgm-models"
    start = time.perf_counter()
    result = subprocess.run([str(script), "zoo", *arguments], env=environment, capture_output=True, text=True)
    return time.perf_counter() - start, result.returncode


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="vote")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--write", help="append the Markdown table to this file")
    parser.add_argument("--samplers", nargs="+", default=None, help="NUTS backends (default: the default one)")
    args = parser.parse_args(argv)
    arguments = ["--dataset", args.dataset, "--draws", str(args.draws)]
    samplers = args.samplers or [None]
    times = {}
    with tempfile.TemporaryDirectory() as folder:
        for run in ("cold", "warm"):
            for sampler in samplers:  # alternating, so that every backend sees the same machine load
                extra = ["--sampler", sampler] if sampler else []
                times[run, sampler] = timed_zoo(arguments + extra, os.path.join(folder, sampler or "default"))
    for sampler in samplers:
        (cold, cold_status), (warm, warm_status) = times["cold", sampler], times["warm", sampler]
        print(
            f"{sampler or 'default'}: cold {cold:.1f} s (exit {cold_status}), warm {warm:.1f} s (exit {warm_status})",
            flush=True,
        )
    if args.write:
        command = "python -m benchmarks.zoo_start " + " ".join(
            a for a in (argv if argv is not None else sys.argv[1:]) if a not in (args.write, "--write")
        )
        lines = [
            "",
            HEADING,
            "",
            f"Command: `{command.strip()}` "
            f"(runs `pgm-models zoo {' '.join(arguments)}` twice per sampler on one new PyTensor compile folder)",
            "",
            "| sampler | cold: empty compile cache (s) | warm: the cold run's cache (s) | exit status cold, warm | cold ÷ warm |",
            "|---|---:|---:|---|---:|",
        ]
        for sampler in samplers:
            (cold, cold_status), (warm, warm_status) = times["cold", sampler], times["warm", sampler]
            lines.append(
                f"| {sampler or 'default'} | {cold:.1f} | {warm:.1f} | {cold_status}, {warm_status} | {cold / warm:.2f} |"
            )
        append_section(args.write, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
