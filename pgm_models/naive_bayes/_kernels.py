"""CategoricalNB's counting and scoring loops, compiled (numba; ``pgm_models._utils.jit``).

Both do what the NumPy path does, in its order, so their numbers are its numbers to the bit: the
counts add each (class, cell)'s weights row by row, as one ``np.bincount`` of (class, cell) keys
does, and a row's score adds its attributes' log probabilities one after another from the first,
as the one-hot look-ups and the sparse product do (``pgm_models.discrete.one_hot``). What they save is the
NumPy calls around that arithmetic, which on a small fold cost far more than the loops
(BENCHMARKS.md, "Compiled kernels for small folds"). A large input's rows are split into blocks shared
by threads (``pgm_models._utils.threads``): :func:`value_counts` and :func:`log_sums` run the loops on
the blocks.
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils import threads
from pgm_models._utils.jit import compiled


@compiled
def add_value_counts(codes, offsets, class_index, weight, counts):
    """Add ``weight[n]`` to ``counts[class_index[n], offsets[j] + codes[n, j]]`` for every row n and
    attribute j whose code is not −1 (missing): ``counts`` (K, T). Row by row, so that the F additions
    of a row go to F different cells and need not wait on each other (attribute by attribute, rows that
    share a cell come one after another and wait on each other); each cell belongs to one
    attribute, so its weights are still added in row order.
    """
    for n in range(codes.shape[0]):
        row, w = counts[class_index[n]], weight[n]
        for j in range(codes.shape[1]):
            if codes[n, j] >= 0:
                row[offsets[j] + codes[n, j]] += w


def value_counts(codes, offsets, class_index, weight, shape):
    """(K, T) counts of ``add_value_counts`` from zero, a large input's row blocks on threads and
    their counts added in block order.
    """

    def block(start, stop):
        counts = np.zeros(shape)
        add_value_counts(codes[start:stop], offsets, class_index[start:stop], weight[start:stop], counts)
        return counts

    return threads.add_over_row_blocks(block, len(codes))


def log_sums(log_table, codes, offsets, class_column):
    """(N, K) scores of ``add_log_sums``, a large input's row blocks on threads."""
    scores = np.empty((len(codes), log_table.shape[0]))
    threads.over_row_blocks(
        lambda start, stop: add_log_sums(log_table, codes[start:stop], offsets, class_column, scores[start:stop]),
        len(codes),
    )
    return scores


@compiled
def add_log_sums(log_table, codes, offsets, class_column, scores):
    """Into ``scores`` (N, K): Σ_j log_table[k, offsets[j] + codes[n, j]] for every row n and class k,
    a missing code (−1) adding nothing, and then, if ``class_column`` ≥ 0, log_table[k, class_column]
    (the class prior's log, added last as the template adds it to the features' sum).
    """
    n_rows, n_features = codes.shape
    for n in range(n_rows):
        for k in range(log_table.shape[0]):
            score = 0.0
            for j in range(n_features):
                if codes[n, j] >= 0:
                    score += log_table[k, offsets[j] + codes[n, j]]
            if class_column >= 0:
                score += log_table[k, class_column]
            scores[n, k] = score


# NumPy adds a contiguous run of numbers pairwise (its ``pairwise_sum``: eight running partial sums
# from 8 numbers on, halves from 129 on); ``_pairwise`` repeats it for runs of at most this many
PAIRWISE_BLOCK = 128


@compiled
def _pairwise(values, start, stop):
    """Σ values[start:stop] (at most ``PAIRWISE_BLOCK`` numbers) in ``pairwise_sum``'s order: one after
    another from 0 below 8 numbers, else eight running partial sums added as a tree, then the rest.
    """
    n = stop - start
    total = 0.0
    if n < 8:
        for i in range(start, stop):
            total += values[i]
        return total
    partial = values[start : start + 8].copy()
    i = start + 8
    while i < stop - n % 8:
        for j in range(8):
            partial[j] += values[i + j]
        i += 8
    total = ((partial[0] + partial[1]) + (partial[2] + partial[3])) + (
        (partial[4] + partial[5]) + (partial[6] + partial[7])
    )
    while i < stop:
        total += values[i]
        i += 1
    return total


@compiled
def mean_tables(class_concentration, feature_concentration, starts, sizes):
    """(K, T + 1) posterior means from the posterior concentrations, as ``Dirichlet.mean`` finds them:
    the class probabilities ``class_concentration`` (K,) over their ``np.sum`` in the last column, each
    attribute's block (``starts``, ``sizes``) of ``feature_concentration`` (K, T) over its
    ``np.add.reduceat`` sum (the first cell, then the others' pairwise sum), an empty block or no class
    mass uniform; and whether that is what this returns: False if a concentration is negative or not
    finite (the caller takes the NumPy path, which names the problem) or a sum is longer than
    ``PAIRWISE_BLOCK`` (NumPy then splits it in halves).
    """
    n_classes, n_cells = feature_concentration.shape
    table = np.empty((n_classes, n_cells + 1))
    valid = n_classes <= PAIRWISE_BLOCK
    if not valid:
        return table, valid
    total = _pairwise(class_concentration, 0, n_classes)
    for k in range(n_classes):
        value = class_concentration[k]
        valid &= 0.0 <= value < np.inf
        table[k, n_cells] = value / total if total > 0 else 1.0 / n_classes
    for b in range(len(starts)):
        first, end = starts[b], starts[b] + sizes[b]
        valid &= sizes[b] - 1 <= PAIRWISE_BLOCK
        for k in range(n_classes):
            concentration = feature_concentration[k]
            total = concentration[first] + _pairwise(concentration, first + 1, end)
            for t in range(first, end):
                value = concentration[t]
                valid &= 0.0 <= value < np.inf
                table[k, t] = value / total if total > 0 else 1.0 / sizes[b]
    return table, valid


def dense_class_sums(design, class_index, weight, n_classes):
    """(K, T) sums of ``add_dense_class_sums`` from zero, a large input's row blocks on threads and
    their sums added in block order.
    """

    def block(start, stop):
        sums = np.zeros((n_classes, design.shape[1]))
        add_dense_class_sums(design[start:stop], class_index[start:stop], weight[start:stop], sums)
        return sums

    return threads.add_over_row_blocks(block, len(design))


@compiled
def add_dense_class_sums(design, class_index, weight, sums):
    """Add to ``sums`` (K, T) Σ_n w_n 1{y_n = k} D[n, t] of a dense design, its rows in order (whole
    counts, the 0/1 design under whole weights, are the product's to the bit; fractional ones to rounding).
    """
    n_rows, n_columns = design.shape
    for n in range(n_rows):
        own, w = sums[class_index[n]], weight[n]
        for t in range(n_columns):
            own[t] += w * design[n, t]


def csr_class_sums(X, class_index, weight, n_classes):
    """(K, V) Σ_n w_n 1{y_n = k} X[n, v] of a CSR matrix, each row's entries added in order (whole
    counts exactly the product's), a large input's row blocks on threads added in block order.
    """
    indptr, indices, data = X.indptr, X.indices, X.data

    def block(start, stop):
        sums = np.zeros((n_classes, X.shape[1]))
        add_csr_class_sums(indptr[start : stop + 1], indices, data, class_index[start:stop], weight[start:stop], sums)
        return sums

    return threads.add_over_row_blocks(block, X.shape[0])


@compiled
def add_csr_class_sums(indptr, indices, data, class_index, weight, sums):
    """Add w_n X[n, v] to ``sums[class_index[n], v]`` for every stored entry of the rows that ``indptr`` spans."""
    for n in range(len(indptr) - 1):
        own, w = sums[class_index[n]], weight[n]
        for entry in range(indptr[n], indptr[n + 1]):
            own[indices[entry]] += w * data[entry]


def csr_products(X, weights, scores):
    """Into ``scores`` (N, K): X @ weightsᵀ of a CSR matrix and dense (K, V) weights, each (row, class)'s
    products added from 0 in the row's stored order, as scipy's sparse product adds them; a large
    input's row blocks on threads.
    """
    indptr, indices, data = X.indptr, X.indices, X.data
    threads.over_row_blocks(
        lambda start, stop: add_csr_products(indptr[start : stop + 1], indices, data, weights, scores[start:stop]),
        X.shape[0],
    )


@compiled
def add_csr_products(indptr, indices, data, weights, scores):
    """Into ``scores`` (rows, K): Σ X[n, v] weights[k, v] over the stored entries of each row ``indptr`` spans."""
    for n in range(len(indptr) - 1):
        for k in range(weights.shape[0]):
            total = 0.0
            for entry in range(indptr[n], indptr[n + 1]):
                total += data[entry] * weights[k, indices[entry]]
            scores[n, k] = total
