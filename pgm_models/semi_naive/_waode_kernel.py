"""WAODE's weights by one compiled loop (numba): log I(X_a; Y) of every attribute read straight off
the pair counts, where the NumPy path (``WAODE.mutual_information``) takes some twenty NumPy calls
(a small fold's fixed cost: BENCHMARKS.md, "Compiled kernels for small folds"). The terms are
the NumPy path's, summed in another order: the weights agree with its to rounding in the last bits
(a test compares both paths).
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.jit import compiled


@compiled
def waode_log_weights(pair_count, value_cells, value_starts, sizes):
    """(F,) log I(X_a; Y) in nats from the diagonal N(y = k, x_a = v) of ``pair_count`` (K, T', T'):
    Σ_kv n_kv log(n_kv N_a / (n_k n_v)) / N_a on the N_a rows observing x_a, never below 0, 0 for an
    empty table (log 0 = −inf); every weight 0: all 0 (uniform, AODE).
    """
    n_classes, n_features = pair_count.shape[0], len(sizes)
    log_weights = np.empty(n_features)
    widest = 1
    for a in range(n_features):
        widest = max(widest, sizes[a])
    by_value, by_class = np.empty(widest), np.empty(n_classes)
    informative = False
    for a in range(n_features):
        start, size = value_starts[a], sizes[a]
        total = 0.0
        for v in range(size):
            by_value[v] = 0.0
        for k in range(n_classes):
            row = 0.0
            for v in range(size):
                cell = value_cells[start + v]
                n = pair_count[k, cell, cell]
                row += n
                by_value[v] += n
            by_class[k] = row
            total += row
        information = 0.0
        if total > 0:
            terms = 0.0
            for k in range(n_classes):
                for v in range(size):
                    cell = value_cells[start + v]
                    n = pair_count[k, cell, cell]
                    if n > 0:
                        terms += n * np.log(n * total / (by_class[k] * by_value[v]))
            information = max(terms / total, 0.0)
        if information > 0:
            log_weights[a] = np.log(information)
            informative = True
        else:
            log_weights[a] = -np.inf
    if not informative:
        log_weights[:] = 0.0
    return log_weights
