"""HNB's scores by one compiled loop (numba).

For every row n, class k and observed attribute j, the hidden parent's mixture
Σ_{p≠j observed} W_jp P(x_j | y = k, x_p) / Σ_p W_jp (naive Bayes' P(x_j | y = k) where the sum
of weights is 0) and the sum of its logs: F² lookups in the K·T² child table, which stays in
cache, where NumPy's path gathers every (class, row, parent, child) at once, K·F² floats a row.
The sums over the parents run in attribute order, as NumPy's einsum may not: the scores agree
with its to rounding in the last bits (a test compares both paths).
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.jit import compiled


@compiled
def hnb_log_scores(child, naive_bayes, log_class, weights, cells):
    """(N, K) log P(y = k) + Σ_j log P(x_j | y = k, h_j) over each row's observed attributes.

    ``child`` (K, T, T) P(x_j = v | y = k, x_p = u) at [k, u, v]; ``naive_bayes`` (K, T)
    P(x_j = v | y = k); ``log_class`` (K,); ``weights`` (F, F) W_jp at [j, p] (0 on the diagonal);
    ``cells`` (N, F) the rows' value cells (T where missing).
    """
    n_rows, n_features = cells.shape
    n_classes, n_values = naive_bayes.shape
    scores = np.empty((n_rows, n_classes))
    for n in range(n_rows):
        row = cells[n]
        for k in range(n_classes):
            scores[n, k] = log_class[k]
        for j in range(n_features):
            v = row[j]
            if v == n_values:  # a missing child adds nothing
                continue
            total = 0.0
            for p in range(n_features):
                if row[p] < n_values:
                    total += weights[j, p]
            for k in range(n_classes):
                if total > 0:
                    mixed = 0.0
                    for p in range(n_features):
                        if row[p] < n_values:
                            mixed += weights[j, p] * child[k, row[p], v]
                    scores[n, k] += np.log(mixed / total)
                else:  # no observed parent of positive weight: naive Bayes
                    scores[n, k] += np.log(naive_bayes[k, v])
    return scores
