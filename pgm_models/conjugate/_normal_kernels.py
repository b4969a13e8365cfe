"""The diagonal Gaussian models' moments and row scores, compiled (numba; ``pgm_models._utils.jit``).

Each is one pass over the rows in their own order, with no (rows × features) temporary: the NumPy
path (``normal._diagonal_moments``, ``normal._rows_by_class``) makes its sums through per-chunk
products, centred copies and squares, which at large N cost several times the reading of X. The
numbers agree with the NumPy path's to the rounding of their sums (a few ulps), not bit for bit.
A large input's rows are split into blocks shared by threads (``pgm_models._utils.threads``): each
block's sums are added in block order, the same at any thread count.
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils import threads
from pgm_models._utils.jit import compiled

# rows summed apart before their sums join the totals: a running sum over a block, then the blocks' sums,
# keeps the error of a long sum small (as NumPy's blocked pairwise sums do)
BLOCK = 512


@compiled
def class_sums(X, class_index, weight, n_classes):
    """Σ w x per class, in blocks of ``BLOCK`` rows."""
    n_rows, p = X.shape
    sums = np.zeros((n_classes, p))
    block = np.empty((n_classes, p))
    for start in range(0, n_rows, BLOCK):
        block[:] = 0.0
        for i in range(start, min(start + BLOCK, n_rows)):
            k, w = class_index[i], weight[i]
            for j in range(p):
                block[k, j] += w * X[i, j]
        sums += block
    return sums


@compiled
def diagonal_scatter(X, class_index, weight, mean):
    """Per class and feature Σ w (x − x̄_y)², in blocks of ``BLOCK`` rows."""
    n_rows, p = X.shape
    scatter = np.zeros(mean.shape)
    block = np.empty(mean.shape)
    for start in range(0, n_rows, BLOCK):
        block[:] = 0.0
        for i in range(start, min(start + BLOCK, n_rows)):
            k, w = class_index[i], weight[i]
            for j in range(p):
                d = X[i, j] - mean[k, j]
                block[k, j] += w * (d * d)
        scatter += block
    return scatter


@compiled
def lower_scatter(X, class_index, weight, mean):
    """Per class the lower triangle of Σ w (x − x̄_y)(x − x̄_y)ᵀ (the upper left 0), in blocks of ``BLOCK`` rows."""
    n_rows, p = X.shape
    n_classes = mean.shape[0]
    scatter = np.zeros((n_classes, p, p))
    block_scatter = np.empty((n_classes, p, p))
    d = np.empty(p)
    for start in range(0, n_rows, BLOCK):
        block_scatter[:] = 0.0
        for i in range(start, min(start + BLOCK, n_rows)):
            k, w = class_index[i], weight[i]
            for j in range(p):
                d[j] = X[i, j] - mean[k, j]
            own = block_scatter[k]
            for a in range(p):
                wd = w * d[a]
                for b in range(a + 1):
                    own[a, b] += wd * d[b]
        scatter += block_scatter
    return scatter


def _summed(kernel, X, class_index, weight, *args):
    """``kernel(X, class_index, weight, *args)`` over a large input's row blocks, added in block order."""
    return threads.add_over_row_blocks(
        lambda start, stop: kernel(X[start:stop], class_index[start:stop], weight[start:stop], *args), len(X)
    )


def _class_means(X, class_index, weight, n_classes):
    """(n_k, x̄_k); a class of no weight has mean 0. The weights are summed by ``np.bincount``, as the
    template sums them into ``class_count_`` (a batch merged into the counts before it is then merged
    with exactly none where there were none).
    """
    n = np.bincount(class_index, weight, n_classes)
    sums = _summed(class_sums, X, class_index, weight, n_classes)
    mean = np.zeros_like(sums)
    np.divide(sums, n[:, None], out=mean, where=n[:, None] > 0)
    return n, mean


def diagonal_moments(X, class_index, weight, n_classes):
    """(n_k, x̄_k, per-feature S_k) of rows with no missing value: Σ w, then Σ w x and Σ w (x − x̄_y)² in
    blocks of ``BLOCK`` rows; a class of no weight has mean 0.
    """
    n, mean = _class_means(X, class_index, weight, n_classes)
    return n, mean, _summed(diagonal_scatter, X, class_index, weight, mean)


def full_moments(X, class_index, weight, n_classes):
    """(n_k, x̄_k, S_k) with S_k the full p × p scatter Σ w (x − x̄_y)(x − x̄_y)ᵀ: Σ w and Σ w x, then the
    scatter's lower triangle, in blocks of ``BLOCK`` rows, mirrored at the end; a class of no weight
    has mean 0 and scatter 0.
    """
    n, mean = _class_means(X, class_index, weight, n_classes)
    scatter = _summed(lower_scatter, X, class_index, weight, mean)
    scatter[n <= 0] = 0.0
    rows, columns = np.triu_indices(X.shape[1], 1)
    scatter[:, rows, columns] = scatter[:, columns, rows]
    return n, mean, scatter


def normal_rows(X, loc, coef, log_constant):
    """(N, K) scores of ``add_normal_rows``, a large input's row blocks on threads."""
    scores = np.empty((len(X), loc.shape[0]))
    threads.over_row_blocks(
        lambda start, stop: add_normal_rows(X[start:stop], loc, coef, log_constant, scores[start:stop]), len(X)
    )
    return scores


@compiled
def add_normal_rows(X, loc, coef, log_constant, scores):
    """Into ``scores`` (N, K): Σ_j [log_constant_kj − coef_kj (x_nj − loc_kj)²] over each row's present
    (not NaN) entries; a row with every entry present takes Σ_j log_constant_kj summed once, not per row.
    """
    n_rows, p = X.shape
    n_classes = loc.shape[0]
    constant_all = np.zeros(n_classes)
    for k in range(n_classes):
        for j in range(p):
            constant_all[k] += log_constant[k, j]
    for i in range(n_rows):
        row = X[i]
        complete = True
        for j in range(p):
            if row[j] != row[j]:
                complete = False
        for k in range(n_classes):
            constant, quadratic = constant_all[k], 0.0
            if complete:
                for j in range(p):
                    d = row[j] - loc[k, j]
                    quadratic += coef[k, j] * d * d
            else:
                constant = 0.0
                for j in range(p):
                    if row[j] == row[j]:
                        d = row[j] - loc[k, j]
                        quadratic += coef[k, j] * d * d
                        constant += log_constant[k, j]
            scores[i, k] = constant - quadratic
