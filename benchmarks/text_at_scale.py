"""The text models at scale: MultinomialNB, BernoulliNB and ComplementNB fit + predict_proba on a
sparse Zipf corpus, against scikit-learn's, with peak memory.

    python -m benchmarks.text_at_scale [--rows 1000000] [--words 100000] [--draws 95] [--repeats 3]
                                       [--small] [--write FILE | --append FILE]

The corpus (identical for both libraries): ``rows`` documents over ``words`` words, ``draws``
word draws a document (a repeated word adds up: 95 draws give about 50 nonzeros a row at 1e5 words), the word ranks Zipf(1.2)-distributed and
each of the 3 classes reading the ranks through its own mild permutation of the vocabulary, so the
classes differ mostly in their frequent words. It is built in blocks of rows, as CSR, and never
dense. Times are the median over ``repeats`` runs with the two libraries alternating; the peak
memory of fit + predict_proba is measured in a separate run under ``tracemalloc`` (which slows what
it traces), as the largest traced allocation above the corpus itself. ``--small``: 5 000 × 20 000,
a smoke run.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp
import sklearn
import sklearn.naive_bayes as skl

import pgm_models
from benchmarks.vs_sklearn import machine
from pgm_models import BernoulliNB, ComplementNB, MultinomialNB

N_CLASSES = 3
ZIPF_EXPONENT = 1.2
BLOCK_ROWS = 100_000

CASES = {
    "MultinomialNB": (lambda: MultinomialNB(), lambda: skl.MultinomialNB()),
    "BernoulliNB": (lambda: BernoulliNB(), lambda: skl.BernoulliNB()),
    "ComplementNB": (lambda: ComplementNB(), lambda: skl.ComplementNB()),
}


def make_corpus(n_rows: int, n_words: int, draws: int, seed: int = 0):
    """(CSR counts, labels) of the Zipf corpus of the module docstring, built a block of rows at a time."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, n_rows)
    # each class swaps a random tenth of the ranks with their neighbours: the same Zipf law, other frequent words
    permutations = np.tile(np.arange(n_words), (N_CLASSES, 1))
    for k in range(N_CLASSES):
        swapped = rng.choice(n_words - 1, size=n_words // 10, replace=False)
        permutations[k, swapped], permutations[k, swapped + 1] = permutations[k, swapped + 1], permutations[k, swapped]
    blocks = []
    for start in range(0, n_rows, BLOCK_ROWS):
        labels = y[start : start + BLOCK_ROWS]
        ranks = np.minimum(rng.zipf(ZIPF_EXPONENT, size=(len(labels), draws)) - 1, n_words - 1)
        columns = permutations[labels[:, None], ranks]
        block = sp.csr_array(
            (np.ones(columns.size), columns.ravel(), np.arange(0, columns.size + 1, draws)),
            shape=(len(labels), n_words),
        )
        block.sum_duplicates()
        blocks.append(block)
    return sp.vstack(blocks, format="csr"), y


def time_fit_predict(make_model, X, y) -> tuple[float, float]:
    model = make_model()
    start = time.perf_counter()
    model.fit(X, y)
    fitted = time.perf_counter()
    model.predict_proba(X)
    return fitted - start, time.perf_counter() - fitted


def peak_bytes(make_model, X, y) -> int:
    """The largest memory traced during fit + predict_proba, beyond what was allocated before."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        make_model().fit(X, y).predict_proba(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - before


def run(n_rows: int, n_words: int, draws: int, repeats: int) -> list[dict]:
    X, y = make_corpus(n_rows, n_words, draws)
    print(f"corpus {n_rows:,} × {n_words:,}, {X.nnz:,} nonzeros ({X.nnz / n_rows:.1f} a row)", flush=True)
    results = []
    for name, (ours, theirs) in CASES.items():
        runs = {"ours": [], "theirs": []}
        for _ in range(repeats):
            for side, make_model in (("ours", ours), ("theirs", theirs)):
                runs[side].append(time_fit_predict(make_model, X, y))
        median = {
            side: (
                statistics.median(f for f, _ in r),
                statistics.median(p for _, p in r),
                statistics.median(f + p for f, p in r),
            )
            for side, r in runs.items()
        }
        result = {
            "model": name,
            "rows": n_rows,
            "words": n_words,
            "nnz": X.nnz,
            "ours": median["ours"],
            "theirs": median["theirs"],
            "ratio": median["ours"][2] / median["theirs"][2],
            "ours_peak": peak_bytes(ours, X, y),
            "theirs_peak": peak_bytes(theirs, X, y),
        }
        results.append(result)
        print(
            f"{name:14s} fit {result['ours'][0]:.3f} / {result['theirs'][0]:.3f} s, predict_proba {result['ours'][1]:.3f} / "
            f"{result['theirs'][1]:.3f} s, ratio {result['ratio']:.2f}, peak {result['ours_peak'] / 2**20:.1f} / "
            f"{result['theirs_peak'] / 2**20:.1f} MiB (pgm_models / scikit-learn)",
            flush=True,
        )
    return results


def markdown(results: list[dict], command: str, repeats: int) -> str:
    lines = [
        "## Text at scale: sparse Zipf corpus vs scikit-learn",
        "",
        f"Command: `{command}` — median of {repeats} runs, the two libraries alternating, identical CSR data; "
        "ratio = pgm_models / scikit-learn of fit + predict_proba; peak = tracemalloc's peak above the corpus during "
        "fit + predict_proba (a separate run).",
        f"Machine: {machine()}, Python {platform.python_version()}, numpy {np.__version__}, "
        f"scikit-learn {sklearn.__version__}, pgm_models {pgm_models.__version__}.",
        "",
        "| model | rows × words (nonzeros) | fit (s) ours / sklearn | predict_proba (s) ours / sklearn | ratio | peak MiB ours / sklearn |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['model']} | {r['rows']:,} × {r['words']:,} ({r['nnz']:,}) | {r['ours'][0]:.3f} / {r['theirs'][0]:.3f} | "
            f"{r['ours'][1]:.3f} / {r['theirs'][1]:.3f} | {r['ratio']:.2f} | "
            f"{r['ours_peak'] / 2**20:.1f} / {r['theirs_peak'] / 2**20:.1f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--words", type=int, default=100_000)
    parser.add_argument("--draws", type=int, default=95, help="word draws a document")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--small", action="store_true", help="5 000 × 20 000: a smoke run")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--write", help="write the Markdown table to this file (replacing it)")
    output.add_argument("--append", help="append the Markdown table to this file")
    args = parser.parse_args(argv)
    for name in ("rows", "words", "draws", "repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    rows, words = (5_000, 20_000) if args.small else (args.rows, args.words)
    results = run(rows, words, args.draws, args.repeats)
    arguments = argv if argv is not None else sys.argv[1:]
    command = " ".join(
        [
            "python -m benchmarks.text_at_scale",
            *(a for a in arguments if a not in (args.write, args.append, "--write", "--append")),
        ]
    )
    if args.write or args.append:
        with open(args.write or args.append, "w" if args.write else "a") as handle:
            handle.write(markdown(results, command, args.repeats))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
