"""The diagonal Gaussian models' moments and row scores, compiled (numba; ``pgm_models._utils.jit``).

Each is one pass over the rows in their own order, with no (rows × features) temporary: the NumPy
path (``normal._diagonal_moments``, ``normal._rows_by_class``) makes its sums through per-chunk
products, centred copies and squares, which at large N cost several times the reading of X. The
numbers agree with the NumPy path's to the rounding of their sums (a few ulps), not bit for bit.
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.jit import compiled

# rows summed apart before their sums join the totals: a running sum over a block, then the blocks' sums,
# keeps the error of a long sum small (as NumPy's blocked pairwise sums do)
BLOCK = 512


@compiled
def _class_means(X, class_index, weight, n_classes):
    """(n_k, x̄_k): Σ w and Σ w x in blocks of ``BLOCK`` rows; a class of no weight has mean 0."""
    n_rows, p = X.shape
    n = np.zeros(n_classes)
    sums = np.zeros((n_classes, p))
    block = np.empty((n_classes, p))
    for start in range(0, n_rows, BLOCK):
        block[:] = 0.0
        for i in range(start, min(start + BLOCK, n_rows)):
            k, w = class_index[i], weight[i]
            n[k] += w
            for j in range(p):
                block[k, j] += w * X[i, j]
        sums += block
    mean = np.zeros((n_classes, p))
    for k in range(n_classes):
        if n[k] > 0:
            mean[k] = sums[k] / n[k]
    return n, mean


@compiled
def diagonal_moments(X, class_index, weight, n_classes):
    """(n_k, x̄_k, per-feature S_k) of rows with no missing value: Σ w, then Σ w x and Σ w (x − x̄_y)² in
    blocks of ``BLOCK`` rows; a class of no weight has mean 0.
    """
    n_rows, p = X.shape
    n, mean = _class_means(X, class_index, weight, n_classes)
    scatter = np.zeros((n_classes, p))
    block = np.empty((n_classes, p))
    for start in range(0, n_rows, BLOCK):
        block[:] = 0.0
        for i in range(start, min(start + BLOCK, n_rows)):
            k, w = class_index[i], weight[i]
            for j in range(p):
                d = X[i, j] - mean[k, j]
                block[k, j] += w * (d * d)
        scatter += block
    return n, mean, scatter


@compiled
def full_moments(X, class_index, weight, n_classes):
    """(n_k, x̄_k, S_k) with S_k the full p × p scatter Σ w (x − x̄_y)(x − x̄_y)ᵀ: Σ w and Σ w x, then the
    scatter's lower triangle, in blocks of ``BLOCK`` rows, mirrored at the end; a class of no weight
    has mean 0 and scatter 0.
    """
    n_rows, p = X.shape
    n, mean = _class_means(X, class_index, weight, n_classes)
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
    for k in range(n_classes):
        if n[k] <= 0:
            scatter[k] = 0.0
        for a in range(p):
            for b in range(a):
                scatter[k, b, a] = scatter[k, a, b]
    return n, mean, scatter


@compiled
def normal_rows(X, loc, coef, log_constant):
    """(N, K) Σ_j [log_constant_kj − coef_kj (x_nj − loc_kj)²] over each row's present (not NaN)
    entries; a row with every entry present takes Σ_j log_constant_kj summed once, not per row.
    """
    n_rows, p = X.shape
    n_classes = loc.shape[0]
    scores = np.empty((n_rows, n_classes))
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
    return scores
