"""A fresh Python process to its first posterior: import, fit, sample_posterior, az.summary.

    python -m benchmarks.first_posterior [--repeats 5] [--sampler nutpie-numba] [--write BENCHMARKS.md]

What a user waits for the first time: a new process imports pgm_models, fits CategoricalNB on vote,
draws its posterior by NUTS (``sample_posterior(random_seed=0)``, the default backend, 4 chains of
1000 draws) and summarises it with ArviZ. One untimed run first fills the disk caches (numba's,
PyTensor's), so that the timed runs measure a warm cache, as a user's second session is; each step's
wall and CPU seconds (``time.process_time``: all the process's threads) are the medians over
``repeats`` fresh processes, beside the heavy modules each step loaded (the import should not load
what the fit does not use). The target is ≤ 2 s of wall time in all. On a machine shared with other
work the wall time grows with the load; the CPU time much less so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks import append_section, command_line, run_record

HEADING = "## First posterior in a fresh process"
STEPS = ("import", "load + fit", "sample_posterior", "az.summary")
HEAVY = ("pandas", "sklearn", "scipy.stats", "xarray", "pymc", "pytensor", "numba", "nutpie", "arviz", "dask", "jax")

CHILD = r"""
import json, sys, time
HEAVY = {heavy!r}
marks, loaded, start = {{}}, {{}}, (time.perf_counter(), time.process_time())
last = start

def mark(step):
    global last
    now = (time.perf_counter(), time.process_time())
    marks[step] = (now[0] - last[0], now[1] - last[1])
    loaded[step] = [name for name in HEAVY if name in sys.modules and not any(name in v for v in loaded.values())]
    last = time.perf_counter(), time.process_time()

from pgm_models import CategoricalNB
from pgm_models.datasets import load_dataset
mark("import")
X, y = load_dataset("vote")
model = CategoricalNB().fit(X, y)
mark("load + fit")
idata = model.sample_posterior(random_seed=0, sampler={sampler!r})
mark("sample_posterior")
import arviz as az
summary = az.summary(idata)
mark("az.summary")
assert len(summary) > 0
print("RESULT" + json.dumps({{"marks": marks, "loaded": loaded}}))
"""


def run_child(sampler: str) -> dict:
    """One fresh process's step times and loaded modules."""
    code = CHILD.format(heavy=HEAVY, sampler=sampler)
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root, check=False)
    line = next((line for line in done.stdout.splitlines() if line.startswith("RESULT")), None)
    if done.returncode or line is None:
        raise RuntimeError(f"the fresh process failed:\n{done.stderr[-3000:]}")
    return json.loads(line[len("RESULT") :])


def run(repeats: int, sampler: str) -> dict:
    run_child(sampler)  # fills the disk caches
    runs = [run_child(sampler) for _ in range(repeats)]
    steps = {
        step: (
            statistics.median(r["marks"][step][0] for r in runs),
            statistics.median(r["marks"][step][1] for r in runs),
        )
        for step in STEPS
    }
    total = (
        statistics.median(sum(r["marks"][s][0] for s in STEPS) for r in runs),
        statistics.median(sum(r["marks"][s][1] for s in STEPS) for r in runs),
    )
    for step, (wall, cpu) in steps.items():
        print(
            f"{step:18s} wall {wall:6.2f} s  CPU {cpu:6.2f} s  loads {', '.join(runs[-1]['loaded'][step])}", flush=True
        )
    print(f"{'total':18s} wall {total[0]:6.2f} s  CPU {total[1]:6.2f} s", flush=True)
    return {"steps": steps, "total": total, "loaded": runs[-1]["loaded"]}


def markdown(result: dict, command: str, repeats: int, sampler: str) -> list[str]:
    lines = [
        "",
        HEADING,
        "",
        f"Command: `{command}` — a new Python process imports pgm_models, fits CategoricalNB on vote, runs "
        f"`sample_posterior(random_seed=0)` ({sampler}, 4 chains × 1000 draws) and `az.summary`, on a warm disk "
        f"cache (one untimed run first); medians of {repeats} processes; target ≤ 2 s of wall time in all.",
        run_record(f"Python {sys.version.split()[0]}"),
        "",
        "| step | wall (s) | CPU (s) | heavy modules it loads |",
        "|---|---:|---:|---|",
    ]
    for step, (wall, cpu) in result["steps"].items():
        lines.append(f"| {step} | {wall:.2f} | {cpu:.2f} | {', '.join(result['loaded'][step]) or '—'} |")
    lines.append(f"| total | {result['total'][0]:.2f} | {result['total'][1]:.2f} | |")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sampler", default="nutpie-numba")
    parser.add_argument("--write", help="append the Markdown table to this file")
    args = parser.parse_args(argv)
    result = run(args.repeats, args.sampler)
    if args.write:
        append_section(
            args.write,
            markdown(result, command_line("first_posterior", argv), args.repeats, args.sampler),
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
