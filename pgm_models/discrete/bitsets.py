"""Pair counts of unit-weight rows by bit sets, compiled with numba (a PyMC dependency, through
PyTensor); imported by ``_pairs.pair_counts``: on large data for the value cells' counts (the
missing cells' follow by subtraction), on small data for every cell's (``COMPILED_SMALL_COUNTS``).

Give the rows of class k ranks 0, 1, … and let B[k, t] be the bit set of the ranks of class k's
rows that have value cell t (64 rows to a word). Then

    C[k, s, t] = Σ_w popcount(B[k, s, w] & B[k, t, w]),

one AND and one POPCNT for 64 rows where the one-hot product spends 64 multiply-adds, and no
one-hot design to write, so they count much faster than the product (BENCHMARKS.md, "Against
a warm Weka, per CV fold"). The counts are integers, exact at any size.
The first use in a process imports numba and loads the compiled kernel from its disk cache;
the first on a machine compiles it, once for each array layout of the codes (by rows, by
attributes, read-only).
"""

from __future__ import annotations

import numba
import numpy as np
from numba.extending import intrinsic

from pgm_models._utils.jit import compiled


@intrinsic
def _popcount(typingctx, word):
    """LLVM's ctpop of a uint64 (the POPCNT instruction; vectorised where the CPU has one)."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return numba.types.uint64(numba.types.uint64), codegen


@compiled
def add_value_pair_counts(codes, value_starts, missing_cells, class_index, counts):
    """Add to ``counts`` (K, T, T) the pair counts of the cells of the rows: ``codes`` (N, F)
    integer codes (−1 missing), ``value_starts`` (F,) each attribute's first value cell,
    ``missing_cells`` (F,) the cell of its missing value (−1: none, not counted), ``class_index``
    (N,) each row's class.
    """
    n_classes, n_values = counts.shape[0], counts.shape[1]
    seen = np.zeros(n_classes, np.int64)
    for i in range(len(class_index)):
        seen[class_index[i]] += 1
    # set row by row into (class, word, cell): a row's bits land in one word of each of its
    # cells, T words side by side (cell-major, each row's F bits would lie T·words apart, which is slower)
    by_word = np.zeros((n_classes, (seen.max() + 63) // 64, n_values), np.uint64)
    rank = np.zeros(n_classes, np.int64)
    for i in range(len(class_index)):
        k = class_index[i]
        words = by_word[k, rank[k] >> 6]
        bit = np.uint64(1) << np.uint64(rank[k] & 63)
        rank[k] += 1
        for j in range(codes.shape[1]):
            code = codes[i, j]
            if code >= 0:
                words[value_starts[j] + code] |= bit
            elif missing_cells[j] >= 0:
                words[missing_cells[j]] |= bit
    bits = np.ascontiguousarray(by_word.transpose((0, 2, 1)))  # (class, cell, word): each cell's words contiguous
    for k in range(n_classes):
        n_words = (seen[k] + 63) // 64
        for s in range(n_values):
            for t in range(s, n_values):
                total = np.uint64(0)
                for w in range(n_words):
                    total += _popcount(bits[k, s, w] & bits[k, t, w])
                counts[k, s, t] += total
                if t != s:
                    counts[k, t, s] += total
