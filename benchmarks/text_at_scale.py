"""The text models at scale: MultinomialNB, BernoulliNB and ComplementNB fit + predict_proba on a
sparse Zipf corpus and on the bundled Reuters text, against scikit-learn's, with peak memory; and
the corpus through the Dask path from a folder of sparse blocks.

    python -m benchmarks.text_at_scale [--rows 1000000] [--words 100000] [--draws 95] [--repeats 3]
                                       [--parts corpus reuters dask] [--reuters-repeats 20]
                                       [--dask-models MultinomialNB ...] [--small]
                                       [--write FILE | --append FILE]

The corpus (identical for both libraries): ``rows`` documents over ``words`` words, ``draws``
word draws a document (a repeated word adds up: 95 draws give about 50 nonzeros a row at 1e5 words), the word ranks Zipf(1.2)-distributed and
each of the 3 classes reading the ranks through its own mild permutation of the vocabulary, so the
classes differ mostly in their frequent words. It is built in blocks of rows, as CSR, and never
dense. Times are the median over ``repeats`` runs with the two libraries alternating; the peak
memory of fit + predict_proba is measured in a separate run under ``tracemalloc`` (which slows what
it traces), as the largest traced allocation above the corpus itself. ``--small``: 5 000 × 20 000,
a smoke run.

Reuters: the bundled Reuters-21578 "grain" text (``reuters-grain-train``: fit, ``reuters-grain-test``:
predict_proba), word counts of scikit-learn's ``CountVectorizer`` fitted on the training text, the
median of ``reuters-repeats`` runs (the data are small).

Dask: the corpus written as a folder of CSR blocks (``scipy.sparse.save_npz``, one file per block of
rows, the labels beside them), then, per model, two fresh processes: one fits a dask array of those
blocks (dask's threaded scheduler; a block is read when its task runs) and computes predict_proba,
the other reads every block into one CSR matrix and fits it in memory. Each reports its seconds and
its peak resident memory (VmHWM, the whole process: interpreter, data and model), and the largest
differences of their feature counts and probabilities are printed beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np
import scipy
import scipy.sparse as sp
import sklearn
import sklearn.naive_bayes as skl

import pgm_models
from benchmarks import run_record
from pgm_models import BernoulliNB, ComplementNB, MultinomialNB

N_CLASSES = 3
ZIPF_EXPONENT = 1.2
BLOCK_ROWS = 100_000

CASES = {
    "MultinomialNB": (lambda: MultinomialNB(), lambda: skl.MultinomialNB()),
    "BernoulliNB": (lambda: BernoulliNB(), lambda: skl.BernoulliNB()),
    "ComplementNB": (lambda: ComplementNB(), lambda: skl.ComplementNB()),
}


def corpus_blocks(n_rows: int, n_words: int, draws: int, seed: int = 0):
    """The Zipf corpus of the module docstring as (CSR block of rows, their labels), a block at a time."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, n_rows)
    # each class swaps a random tenth of the ranks with their neighbours: the same Zipf law, other frequent words
    permutations = np.tile(np.arange(n_words), (N_CLASSES, 1))
    for k in range(N_CLASSES):
        swapped = rng.choice(n_words - 1, size=n_words // 10, replace=False)
        permutations[k, swapped], permutations[k, swapped + 1] = permutations[k, swapped + 1], permutations[k, swapped]
    for start in range(0, n_rows, BLOCK_ROWS):
        labels = y[start : start + BLOCK_ROWS]
        ranks = np.minimum(rng.zipf(ZIPF_EXPONENT, size=(len(labels), draws)) - 1, n_words - 1)
        columns = permutations[labels[:, None], ranks]
        block = sp.csr_array(
            (np.ones(columns.size), columns.ravel(), np.arange(0, columns.size + 1, draws)),
            shape=(len(labels), n_words),
        )
        block.sum_duplicates()
        yield block, labels


def make_corpus(n_rows: int, n_words: int, draws: int, seed: int = 0):
    """(CSR counts, labels) of the Zipf corpus of the module docstring, built a block of rows at a time."""
    blocks, labels = zip(*corpus_blocks(n_rows, n_words, draws, seed))
    return sp.vstack(blocks, format="csr"), np.concatenate(labels)


def time_fit_predict(make_model, X, y, X_score=None) -> tuple[float, float]:
    model = make_model()
    start = time.perf_counter()
    model.fit(X, y)
    fitted = time.perf_counter()
    model.predict_proba(X if X_score is None else X_score)
    return fitted - start, time.perf_counter() - fitted


def peak_bytes(make_model, X, y, X_score=None) -> int:
    """The largest memory traced during fit + predict_proba, beyond what was allocated before."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        make_model().fit(X, y).predict_proba(X if X_score is None else X_score)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - before


def compare(X, y, repeats: int, X_score=None, label: str = "") -> list[dict]:
    """Each model of CASES against scikit-learn's on (X, y), predict_proba on ``X_score`` (default X)."""
    results = []
    for name, (ours, theirs) in CASES.items():
        for make_model in (ours, theirs):  # a first call of each, untimed: imports and caches
            make_model().fit(X[:50], y[:50])
        runs = {"ours": [], "theirs": []}
        for _ in range(repeats):
            for side, make_model in (("ours", ours), ("theirs", theirs)):
                runs[side].append(time_fit_predict(make_model, X, y, X_score))
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
            "data": label,
            "ours": median["ours"],
            "theirs": median["theirs"],
            "ratio": median["ours"][2] / median["theirs"][2],
            "ours_peak": peak_bytes(ours, X, y, X_score),
            "theirs_peak": peak_bytes(theirs, X, y, X_score),
        }
        results.append(result)
        print(
            f"{name:14s} fit {result['ours'][0]:.3f} / {result['theirs'][0]:.3f} s, predict_proba {result['ours'][1]:.3f} / "
            f"{result['theirs'][1]:.3f} s, ratio {result['ratio']:.2f}, peak {result['ours_peak'] / 2**20:.1f} / "
            f"{result['theirs_peak'] / 2**20:.1f} MiB (pgm_models / scikit-learn)",
            flush=True,
        )
    return results


def run(n_rows: int, n_words: int, draws: int, repeats: int) -> list[dict]:
    X, y = make_corpus(n_rows, n_words, draws)
    print(f"corpus {n_rows:,} × {n_words:,}, {X.nnz:,} nonzeros ({X.nnz / n_rows:.1f} a row)", flush=True)
    return compare(X, y, repeats, label=f"{n_rows:,} × {n_words:,} ({X.nnz:,})")


def reuters_counts():
    """(X_train, y_train, X_test, y_test): word counts of the bundled Reuters grain text."""
    from sklearn.feature_extraction.text import CountVectorizer

    from pgm_models.datasets import load_dataset

    train, y_train = load_dataset("reuters-grain-train")
    test, y_test = load_dataset("reuters-grain-test")
    vectorizer = CountVectorizer()
    X_train = sp.csr_array(vectorizer.fit_transform(train["Text"]), dtype=np.float64)
    X_test = sp.csr_array(vectorizer.transform(test["Text"]), dtype=np.float64)
    return X_train, y_train.to_numpy(), X_test, y_test.to_numpy()


def run_reuters(repeats: int) -> list[dict]:
    X_train, y_train, X_test, _ = reuters_counts()
    label = f"Reuters grain: fit {X_train.shape[0]:,}, predict {X_test.shape[0]:,} × {X_train.shape[1]:,} words"
    print(label, flush=True)
    return compare(X_train, y_train, repeats, X_score=X_test, label=label)


DASK_CASE = r"""
import glob, json, os, sys, time
import numpy as np
import scipy.sparse as sp
folder, model_name, mode = sys.argv[1], sys.argv[2], sys.argv[3]
files = sorted(glob.glob(os.path.join(folder, "block-*.npz")))
y = np.load(os.path.join(folder, "labels.npy"))
import dask
import dask.array as da
import pgm_models
model = getattr(pgm_models, model_name)()
start = time.perf_counter()
if mode == "dask":
    sizes = [int(n) for n in np.load(os.path.join(folder, "sizes.npy"))]
    n_words = int(np.load(os.path.join(folder, "words.npy")))
    meta = sp.csr_array((0, n_words))
    X = da.concatenate([
        da.from_delayed(dask.delayed(sp.load_npz)(f), shape=(n, n_words), dtype=np.float64, meta=meta)
        for f, n in zip(files, sizes)
    ])
    labels = da.from_array(y, chunks=(tuple(sizes),))
    model.fit(X, labels)
    fitted = time.perf_counter()
    proba = model.predict_proba(X).compute()
else:
    X = sp.vstack([sp.load_npz(f) for f in files], format="csr")  # reading counts in the fit, as for Dask
    model.fit(X, y)
    fitted = time.perf_counter()
    proba = model.predict_proba(X)
done = time.perf_counter()
np.save(os.path.join(folder, f"{mode}-{model_name}-counts.npy"), model.feature_count_)
np.save(os.path.join(folder, f"{mode}-{model_name}-proba.npy"), proba)
with open("/proc/self/status") as status:
    peak = next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmHWM:"))
print(json.dumps({"fit": fitted - start, "predict_proba": done - fitted, "peak_mib": peak}))
"""


def write_blocks(folder: str, n_rows: int, n_words: int, draws: int) -> int:
    """The corpus as one .npz file per block of rows in ``folder`` (with labels, block sizes and
    the vocabulary size); returns the number of nonzeros."""
    labels, sizes, nnz = [], [], 0
    for i, (block, block_labels) in enumerate(corpus_blocks(n_rows, n_words, draws)):
        sp.save_npz(os.path.join(folder, f"block-{i:04d}.npz"), sp.csr_matrix(block), compressed=False)
        labels.append(block_labels)
        sizes.append(block.shape[0])
        nnz += block.nnz
    np.save(os.path.join(folder, "labels.npy"), np.concatenate(labels))
    np.save(os.path.join(folder, "sizes.npy"), np.array(sizes))
    np.save(os.path.join(folder, "words.npy"), np.array(n_words))
    return nnz


def run_dask(n_rows: int, n_words: int, draws: int, models) -> list[dict]:
    results = []
    with tempfile.TemporaryDirectory() as folder:
        nnz = write_blocks(folder, n_rows, n_words, draws)
        n_blocks = -(-n_rows // BLOCK_ROWS)
        print(f"Dask: {n_blocks} blocks of up to {BLOCK_ROWS:,} rows, {nnz:,} nonzeros", flush=True)
        for name in models:
            runs = {}
            for mode in ("dask", "memory"):
                out = subprocess.run(
                    [sys.executable, "-c", DASK_CASE, folder, name, mode], capture_output=True, text=True, check=True
                ).stdout
                runs[mode] = json.loads(out.strip().splitlines()[-1])
            loaded = {
                (mode, what): np.load(os.path.join(folder, f"{mode}-{name}-{what}.npy"))
                for mode in runs
                for what in ("counts", "proba")
            }
            result = {
                "model": name,
                "data": f"{n_rows:,} × {n_words:,} ({nnz:,}), {n_blocks} blocks",
                **runs,
                "counts_difference": float(np.abs(loaded["dask", "counts"] - loaded["memory", "counts"]).max()),
                "proba_difference": float(np.abs(loaded["dask", "proba"] - loaded["memory", "proba"]).max()),
            }
            results.append(result)
            print(
                f"{name:14s} Dask fit {runs['dask']['fit']:.2f} s + predict_proba {runs['dask']['predict_proba']:.2f} s, "
                f"peak {runs['dask']['peak_mib']:.0f} MiB; in memory {runs['memory']['fit']:.2f} + "
                f"{runs['memory']['predict_proba']:.2f} s, peak {runs['memory']['peak_mib']:.0f} MiB; max |Δcount| "
                f"{result['counts_difference']:.1e}, max |Δp| {result['proba_difference']:.1e}",
                flush=True,
            )
    return results


def markdown(results: list[dict], reuters: list[dict], dask_results: list[dict], command: str, args) -> str:
    versions = (
        f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}, pgm_models {pgm_models.__version__}"
    )
    header = [
        "| model | data | fit (s) ours / sklearn | predict_proba (s) ours / sklearn | ratio | peak MiB ours / sklearn |",
        "|---|---|---:|---:|---:|---:|",
    ]
    lines = [
        "## Text at scale: sparse Zipf corpus vs scikit-learn",
        "",
        f"Command: `{command}` — median of {args.repeats} runs"
        + (f" (Reuters: {args.reuters_repeats})" if reuters else "")
        + ", the two libraries "
        "alternating, identical CSR data; ratio = pgm_models / scikit-learn of fit + predict_proba; peak = "
        "tracemalloc's peak above the data during fit + predict_proba (a separate run).",
        run_record(versions),
        "",
    ]

    def rows(results):
        return [
            f"| {r['model']} | {r['data']} | {r['ours'][0]:.3f} / {r['theirs'][0]:.3f} | "
            f"{r['ours'][1]:.3f} / {r['theirs'][1]:.3f} | {r['ratio']:.2f} | "
            f"{r['ours_peak'] / 2**20:.1f} / {r['theirs_peak'] / 2**20:.1f} |"
            for r in results
        ]

    if results:
        lines += ["Zipf corpus (rows × words, nonzeros):", "", *header, *rows(results), ""]
    if reuters:
        lines += ["Reuters-21578 grain (bundled), CountVectorizer word counts:", "", *header, *rows(reuters), ""]
    if dask_results:
        lines += [
            "The corpus through Dask from a folder of CSR blocks (dask's threaded scheduler), against the same blocks "
            "read into one CSR matrix and fitted in memory; each in a fresh process, fit including reading the "
            "blocks, peak = the process's peak resident memory (VmHWM):",
            "",
            "| model | data | Dask fit / predict_proba (s) | in memory fit / predict_proba (s) | peak RSS MiB Dask / in memory | max \\|Δ count\\| | max \\|Δp\\| |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
        for r in dask_results:
            lines.append(
                f"| {r['model']} | {r['data']} | {r['dask']['fit']:.2f} / {r['dask']['predict_proba']:.2f} | "
                f"{r['memory']['fit']:.2f} / {r['memory']['predict_proba']:.2f} | "
                f"{r['dask']['peak_mib']:.0f} / {r['memory']['peak_mib']:.0f} | {r['counts_difference']:.1e} | "
                f"{r['proba_difference']:.1e} |"
            )
        lines.append("")
    return "\n".join(lines)


PARTS = ("corpus", "reuters", "dask")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--words", type=int, default=100_000)
    parser.add_argument("--draws", type=int, default=95, help="word draws a document")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reuters-repeats", type=int, default=20)
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    parser.add_argument("--dask-models", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument("--small", action="store_true", help="5 000 × 20 000: a smoke run")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--write", help="write the Markdown table to this file (replacing it)")
    output.add_argument("--append", help="append the Markdown table to this file")
    args = parser.parse_args(argv)
    for name in ("rows", "words", "draws", "repeats", "reuters_repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    rows, words = (5_000, 20_000) if args.small else (args.rows, args.words)
    results = run(rows, words, args.draws, args.repeats) if "corpus" in args.parts else []
    reuters = run_reuters(args.reuters_repeats) if "reuters" in args.parts else []
    dask_results = run_dask(rows, words, args.draws, args.dask_models) if "dask" in args.parts else []
    arguments = argv if argv is not None else sys.argv[1:]
    command = " ".join(
        [
            "python -m benchmarks.text_at_scale",
            *(a for a in arguments if a not in (args.write, args.append, "--write", "--append")),
        ]
    )
    if args.write or args.append:
        with open(args.write or args.append, "w" if args.write else "a") as handle:
            handle.write(markdown(results, reuters, dask_results, command, args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
