"""Benchmarks of pgm_models (not part of the test run; `python -m benchmarks.discrete`)."""


def append_section(path, lines) -> None:
    """Append a benchmark's Markdown lines (a section of BENCHMARKS.md) to ``path``."""
    with open(path, "a") as handle:
        handle.write("\n".join(lines) + "\n")
