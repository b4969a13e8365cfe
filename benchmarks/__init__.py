"""Benchmarks of pgm_models (not part of the test run; `python -m benchmarks`)."""

import os
import platform
import sys
import time


def machine() -> str:
    """CPU model and core count, for the record next to the numbers."""
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            model = next(line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{platform.machine()} {model}, {os.cpu_count()} cores"


def run_record(details: str = "") -> str:
    """The "Machine:" line under a section's command: the CPU, ``details`` (versions), the date and
    the load average at the end of the run, so that every table says where and when it was measured."""
    try:
        load = "load average (1, 5, 15 min) at the end of the run: " + ", ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        load = "load average not available"
    return f"Machine: {machine()}{', ' + details if details else ''}; {time.strftime('%d %b %Y %H:%M UTC', time.gmtime())}; {load}."


def command_line(module: str, argv) -> str:
    """The command a table was made by, as a reader would rerun it: ``python -m benchmarks.<module>``
    and the arguments (``argv``, or this process's) without ``--write FILE``."""
    shown = list(argv if argv is not None else sys.argv[1:])
    if "--write" in shown:
        at = shown.index("--write")
        del shown[at : at + 2]
    return " ".join([f"python -m benchmarks.{module}", *shown])


def append_section(path, lines) -> None:
    """Append a benchmark's Markdown lines (a section of BENCHMARKS.md) to ``path``, with the run's
    "Machine:" line (``run_record``) right under its "Command:" line (under the heading if it has none)
    unless the section writes its own."""
    lines = list(lines)
    if not any(line.startswith("Machine:") for line in lines):
        at = next((i + 1 for i, line in enumerate(lines) if line.startswith("Command:")), None)
        if at is None:
            at = next((i + 1 for i, line in enumerate(lines) if line.startswith("## ")), 0)
            lines[at:at] = ["", run_record()]
        else:
            lines.insert(at, run_record())
    with open(path, "a") as handle:
        handle.write("\n".join(lines) + "\n")
