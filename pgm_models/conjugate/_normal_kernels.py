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
def diagonal_moments(X, class_index, weight, n_classes):
    """(n_k, x̄_k, per-feature S_k) of rows with no missing value: Σ w, then Σ w x and Σ w (x − x̄_y)² in
    blocks of ``BLOCK`` rows; a class of no weight has mean 0.
    """
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
    scatter = np.zeros((n_classes, p))
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
def normal_rows(X, loc, scale, log_constant, weight):
    """(N, K) Σ_j [log_constant_kj − weight_kj ((x_nj − loc_kj)/scale_kj)²] over each row's present
    (not NaN) entries.
    """
    n_rows, p = X.shape
    n_classes = loc.shape[0]
    scores = np.empty((n_rows, n_classes))
    for i in range(n_rows):
        for k in range(n_classes):
            constant, quadratic = 0.0, 0.0
            for j in range(p):
                x = X[i, j]
                if x == x:
                    z = (x - loc[k, j]) / scale[k, j]
                    quadratic += (z * z) * weight[k, j]
                    constant += log_constant[k, j]
            scores[i, k] = constant - quadratic
    return scores
