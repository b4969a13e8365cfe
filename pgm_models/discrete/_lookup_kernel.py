"""Each row's sum of log-table entries under every class, compiled (numba; ``pgm_models._utils.jit``):
the scoring of models whose attributes each read one table by the class, their parents' values and
their own (``lookups.table_log_sums``).
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.jit import compiled


@compiled
def table_log_sums(log_tables, starts, sizes, parents, n_parents, codes, n_classes):
    """((K, N) Σ_j log θ_j[k, x_n,pa_j, x_nj], (N,) whether row n was summed): each row's entry of every
    table under every class, the tables stacked (each C-ordered (class, parents in ``parents[j]``'s
    order, child)); a row with a missing value (a code < 0) is not summed (its sums 0).
    """
    n_rows, n_features = codes.shape
    observed = np.ones(n_rows, np.bool_)
    for n in range(n_rows):
        for j in range(n_features):
            if codes[n, j] < 0:
                observed[n] = False
                break
    sums = np.zeros((n_classes, n_rows))
    for k in range(n_classes):
        for n in range(n_rows):
            if not observed[n]:
                continue
            total = 0.0
            for j in range(n_features):
                index = k
                for i in range(n_parents[j]):
                    index = index * sizes[parents[j, i]] + codes[n, parents[j, i]]
                total += log_tables[starts[j] + index * sizes[j] + codes[n, j]]
            sums[k, n] = total
    return sums, observed
