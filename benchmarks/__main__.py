"""Run every benchmark and rewrite BENCHMARKS.md (not part of the test run).

    python -m benchmarks [--quick] [--output BENCHMARKS.md] [--only vs_sklearn aode_vs_weka ...]

One run on one machine: scikit-learn comparisons (benchmarks.vs_sklearn), each closed form against
its least compiled work (benchmarks.floor), a fresh process's time to its first posterior
(benchmarks.first_posterior), Weka's AODE
(benchmarks.aode_vs_weka, skipped with a note when Weka is not installed), per-fold time against a
warm Weka with a profile of one AODE fit + predict on vote (benchmarks.vs_warm_weka), the same for
AODEsr, WAODE and HNB with A2DE's time and memory against AODE's (benchmarks.one_dependence_vs_weka), structure
search per fold against a warm Weka BayesNet, against rows, and BMATAN against TAN (benchmarks.structure_search), AODE weights
(benchmarks.aode_weights), exact draws vs NUTS (benchmarks.exact_vs_nuts), counts-form vs
rows-form NUTS (benchmarks.counts_vs_rows), peak memory (benchmarks.large_data), the text models on a
1e6 × 1e5 sparse corpus, on Reuters and through Dask (benchmarks.text_at_scale), shrinkage LDA/QDA
against scikit-learn and against the evidence-learned prior (benchmarks.shrinkage), Dask rows/s
against workers and out of core (benchmarks.dask_scaling), MixedNB against Weka and binned naive
Bayes (benchmarks.mixed_nb), reading a wide CSV (benchmarks.wide_csv), 10-fold CV beside busy processes (benchmarks.cv_under_load), the NUTS
backends on every zoo model (benchmarks.samplers), the cold vs warm start of `pgm-models zoo` per
backend (benchmarks.zoo_start), exact LOO (benchmarks.loo), empirical Bayes in cross-validation
(benchmarks.evidence_cv), SBC of the hierarchical models (benchmarks.sbc) and the false-alarm rate and
power of the verification (benchmarks.false_alarm; docs/false_alarm.md has a longer run); then the written analysis
in benchmarks/ANALYSIS.md. ``--quick`` uses small sizes (a smoke run). ``--only NAME ...`` runs the named
benchmarks in one run and puts their sections in place of the same sections of the output (the
others, and the machine line, stay as they were).
"""

from __future__ import annotations

import argparse
import platform
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pymc
import sklearn

import pgm_models
from benchmarks import (
    aode_vs_weka,
    aode_weights,
    counts_vs_rows,
    cv_under_load,
    dask_scaling,
    evidence_cv,
    exact_vs_nuts,
    false_alarm,
    first_posterior,
    floor,
    large_data,
    loo,
    mixed_nb,
    one_dependence_vs_weka,
    samplers,
    sbc,
    shrinkage,
    structure_search,
    text_at_scale,
    vs_sklearn,
    vs_warm_weka,
    wide_csv,
    zoo_start,
)


def _steps(quick: bool):
    """(name, run(output)) of every benchmark, in the order of BENCHMARKS.md."""
    from pgm_models.inference.sampling import available_samplers

    def weka_aode(output):
        if aode_vs_weka.WEKA_JAR.exists() and shutil.which("javac"):
            aode_vs_weka.main(
                (["--rows", "2000", "--repeats", "1"] if quick else ["--repeats", "5"]) + ["--write", str(output)]
            )
        else:
            with output.open("a") as handle:
                handle.write(
                    f"\n{aode_vs_weka.HEADING}\n\nNot run: Weka 3.6 (`apt-get install weka`) and a JDK were not found.\n"
                )

    def nuts_backends(output):
        if quick:  # a cold start compiles every model of the zoo: minutes, not a smoke run
            with output.open("a") as handle:
                for heading in (samplers.HEADING, zoo_start.HEADING):
                    handle.write(f"\n{heading}\n\nNot run with --quick.\n")
        else:
            samplers.main(["--write", str(output)])
            zoo_start.main(["--samplers", *available_samplers(), "--write", str(output)])

    def run(module, quick_arguments, arguments=()):
        return lambda output: module.main(list(quick_arguments if quick else arguments) + ["--write", str(output)])

    return [
        (
            "vs_sklearn",
            lambda output: vs_sklearn.main(
                (
                    ["--sizes", "2000", "--repeats", "1"]
                    if quick
                    else ["--sizes", "10000", "100000", "1000000", "--repeats", "5"]
                )
                + ["--append", str(output)]
            ),
        ),
        (
            "floor",
            run(floor, ["--sizes", "2000", "--repeats", "1"], ["--sizes", "100000", "1000000", "10000000"]),
        ),
        ("first_posterior", run(first_posterior, ["--repeats", "1"], ["--repeats", "5"])),
        ("aode_vs_weka", weka_aode),
        ("vs_warm_weka", run(vs_warm_weka, ["--repeats", "1", "--warmup", "2", "--rounds", "1", "--rows", "2000"])),
        (
            "structure_search",
            run(
                structure_search,
                ["--repeats", "1", "--warmup", "1", "--rounds", "1", "--rows", "2000", "--bmatan-rounds", "1"],
            ),
        ),
        (
            "one_dependence_vs_weka",
            run(
                one_dependence_vs_weka,
                ["--repeats", "1", "--warmup", "2", "--rounds", "1", "--rows", "2000"]
                + ["--a2de-rows", "2000", "--a2de-attributes", "8", "--a2de-folds", "1"],
            ),
        ),
        ("aode_weights", run(aode_weights, ["--datasets", "contact-lenses"])),
        ("exact_vs_nuts", run(exact_vs_nuts, ["--draws", "100", "--models", "CategoricalNB"])),
        ("counts_vs_rows", run(counts_vs_rows, ["--sizes", "100", "200", "--draws", "30", "--models", "GaussianNB"])),
        (
            "large_data",
            run(
                large_data,
                [
                    "--rows",
                    "2000",
                    "--models",
                    "AODE",
                    "--aode-rows",
                    "500",
                    "--aode-attributes",
                    "10",
                    "--wide",
                    "20x10",
                ],
            ),
        ),
        (
            "text_at_scale",
            lambda output: text_at_scale.main(
                (
                    ["--rows", "2000", "--words", "3000", "--repeats", "1", "--reuters-repeats", "1"]
                    + ["--dask-models", "MultinomialNB"]
                    if quick
                    else []
                )
                + ["--append", str(output)]
            ),
        ),
        (
            "shrinkage",
            run(
                shrinkage,
                ["--rows", "2000", "--features", "20", "--repeats", "1", "--cv-seeds", "1", "--folds", "3"],
            ),
        ),
        (
            "dask_scaling",
            run(dask_scaling, ["--rows", "20000", "--blocks", "4", "--repeats", "1", "--ooc-rows", "40000"]),
        ),
        ("wide_csv", run(wide_csv, ["--shapes", "300x20", "--repeats", "1", "--no-cli"], ["--shapes", "5000x20"])),
        ("mixed_nb", run(mixed_nb, ["--rows", "2000", "--repeats", "1", "--datasets", "iris"])),
        ("cv_under_load", run(cv_under_load, ["--repeats", "1", "--min-seconds", "0"], ["--repeats", "3"])),
        ("samplers", nuts_backends),
        ("loo", run(loo, ["--rows", "2000", "--repeats", "1", "--draws", "50", "--dataset", "weather.nominal"])),
        ("evidence_cv", run(evidence_cv, ["--datasets", "weather.nominal", "contact-lenses"])),
        (
            "sbc",
            run(
                sbc,
                ["--replications", "3", "--draws", "30", "--models", "CategoricalNB"],
                ["--figure", "docs/sbc-ranks.png"],
            ),
        ),
        (
            "false_alarm",
            run(
                false_alarm,
                ["--seeds", "5", "--datasets", "contact-lenses", "--nuts-seeds", "0", "--power-seeds", "5"],
                ["--seeds", "40", "--nuts-seeds", "3", "--nuts-datasets", "contact-lenses", "--power-seeds", "50"],
            ),
        ),
    ]


def _sections(text: str) -> list[tuple[str, str]]:
    """(heading, text) of each "## " or "# " section of a Markdown file, in order; the text before
    the first heading has the heading "". Lines inside ``` code blocks are never headings."""
    sections, heading, lines = [], "", []
    fenced = False
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith(("## ", "# ")):
            sections.append((heading, "".join(lines)))
            heading, lines = line.strip(), []
        lines.append(line)
    sections.append((heading, "".join(lines)))
    return sections


def _stem(heading: str) -> str:
    """A heading without its parenthesised settings: "## Dask: rows/s against workers (10
    attributes …)" and the same benchmark run with other settings are one section."""
    return heading.split(" (")[0].rstrip(":").strip()


def replace_sections(path: Path, new_text: str) -> None:
    """Put each section of ``new_text`` in place of the table section of ``path`` (before "# Reading
    the tables", the written analysis, which is left alone) whose heading has the same stem
    (``_stem``; a stem that repeats has its sections replaced in order); add the others before the
    analysis."""
    old = _sections(path.read_text())
    pending = {}
    for heading, text in _sections(new_text):
        if heading:
            pending.setdefault(_stem(heading), []).append(text if text.endswith("\n\n") else text.rstrip("\n") + "\n\n")
    merged, in_analysis = [], False
    for heading, text in old:
        if heading == "# Reading the tables":
            merged += [text for texts in pending.values() for text in texts]
            pending, in_analysis = {}, True
        merged.append(pending[_stem(heading)].pop(0) if not in_analysis and pending.get(_stem(heading)) else text)
    merged += [text for texts in pending.values() for text in texts]
    path.write_text("".join(text if text.endswith("\n") else text + "\n" for text in merged if text))


def _note_partial_run(path: Path, names) -> None:
    """Say in the file's preamble which sections the last ``--only`` run regenerated, and where."""
    kept_lines = [line for line in path.read_text().splitlines(keepends=True) if not line.startswith(PARTIAL_RUN)]
    sections = _sections("".join(kept_lines))
    heading, preamble = next(((h, t) for h, t in sections if h.startswith("# ")), ("", ""))
    if not heading:  # a file of the named sections only
        sections.insert(0, ("", ""))
    kept = preamble.rstrip()
    note = (
        f"{PARTIAL_RUN} `python -m benchmarks --only {' '.join(names)}` in one run on {vs_sklearn.machine()}, "
        f"{time.strftime('%d %b %Y %H:%M UTC', time.gmtime())}."
    )
    sections[sections.index((heading, preamble))] = (heading, f"{kept}\n\n{note}\n\n".lstrip())
    path.write_text("".join(text for _, text in sections))


PARTIAL_RUN = "Last partial run:"
# what every section holds, in the preamble of a full run (and of the file as kept between runs)
PREAMBLE = (
    "Each section below is the latest run of one benchmark (`python -m benchmarks --only NAME` reruns one): its "
    "command, then its machine, date and load average, then its tables; ratios are measured side by side within "
    'one run. The written analysis follows under "Reading the tables" (benchmarks/ANALYSIS.md); earlier runs '
    "are in git history and CHANGELOG.md."
)


def main(argv=None) -> int:
    steps = _steps(False)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    parser.add_argument("--output", default="BENCHMARKS.md")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=[name for name, _ in steps],
        help="run only these benchmarks, in one run, and put their sections in place of the same sections of --output",
    )
    args = parser.parse_args(argv)
    output = Path(args.output)
    steps = _steps(args.quick)
    if args.only:
        with tempfile.TemporaryDirectory() as folder:
            partial = Path(folder) / "partial.md"
            partial.write_text("")
            for name, run in steps:
                if name in args.only:
                    run(partial)
            if output.exists():
                replace_sections(output, partial.read_text())
            else:
                output.write_text(partial.read_text())
        _note_partial_run(output, args.only)
        return 0
    output.write_text(
        "# Benchmarks\n\nRegenerated by `python -m benchmarks` in one run on one machine: "
        f"{vs_sklearn.machine()}, Python {platform.python_version()}, numpy {np.__version__}, scikit-learn "
        f"{sklearn.__version__}, PyMC {pymc.__version__}, pgm_models {pgm_models.__version__}. " + PREAMBLE + "\n\n"
    )
    for _, run in steps:
        run(output)
    with output.open("a") as handle:
        handle.write("\n" + (Path(__file__).parent / "ANALYSIS.md").read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
