"""The small-fold path's normalisation by one compiled loop (numba): each row's probabilities from its
joint log scores, where ``base._shifted_exp`` takes some ten NumPy calls (a small fold's fixed cost).
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.jit import compiled


@compiled
def probabilities(scores):
    """(N, K) exp(scores − each row's peak) over the row's sum: ``predict_proba`` from the joint log
    probabilities, as ``base.predict_proba`` computes it (a row that is −inf everywhere uniform).
    """
    n_rows, n_classes = scores.shape
    result = np.empty((n_rows, n_classes))
    for n in range(n_rows):
        peak = scores[n, 0]
        for k in range(1, n_classes):
            peak = max(peak, scores[n, k])
        if peak == -np.inf:  # probability 0 under every class: uniform, not NaN
            for k in range(n_classes):
                result[n, k] = 1.0 / n_classes
            continue
        total = 0.0
        for k in range(n_classes):
            result[n, k] = np.exp(scores[n, k] - peak)
            total += result[n, k]
        for k in range(n_classes):
            result[n, k] /= total
    return result
