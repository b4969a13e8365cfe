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

    The child table is read as [v, u, k] (a copy): a child's K·T entries lie together, and its
    classes side by side; each row's observed attributes are listed once, and with two classes
    both mixtures run side by side (two chains of additions, each in attribute order).
    """
    n_rows, n_features = cells.shape
    n_classes, n_values = naive_bayes.shape
    by_child = np.empty((n_values, n_values, n_classes))
    for k in range(n_classes):
        for u in range(n_values):
            for v in range(n_values):
                by_child[v, u, k] = child[k, u, v]
    scores = np.empty((n_rows, n_classes))
    observed = np.empty(n_features, np.intp)
    mixed = np.empty(n_classes)
    for n in range(n_rows):  # (no array slices in the loops: each costs numba a reference count)
        m = 0
        for p in range(n_features):
            if cells[n, p] < n_values:
                observed[m] = p
                m += 1
        for k in range(n_classes):
            scores[n, k] = log_class[k]
        for i in range(m):
            j = observed[i]
            v = cells[n, j]
            total = 0.0
            for q in range(m):
                total += weights[j, observed[q]]
            if total > 0:
                if n_classes == 2:
                    first, second = 0.0, 0.0
                    for q in range(m):
                        p = observed[q]
                        w, u = weights[j, p], cells[n, p]
                        first += w * by_child[v, u, 0]
                        second += w * by_child[v, u, 1]
                    mixed[0], mixed[1] = first, second
                else:
                    mixed[:] = 0.0
                    for q in range(m):
                        p = observed[q]
                        w, u = weights[j, p], cells[n, p]
                        for k in range(n_classes):
                            mixed[k] += w * by_child[v, u, k]
                for k in range(n_classes):
                    scores[n, k] += np.log(mixed[k] / total)
            else:  # no observed parent of positive weight: naive Bayes
                for k in range(n_classes):
                    scores[n, k] += np.log(naive_bayes[k, v])
    return scores


@compiled
def conditional_mutual_information(values, value_starts, sizes):
    """(F, F) I(X_j; X_p | Y) in nats from the value-cell pair counts ``values`` (K, T, T), each
    pair's table on the rows observing both: Σ_{k,u,v} n_kuv log(n_kuv n_k / (n_ku n_kv)) / N_jp, never
    below 0 (rounding where they are independent), 0 for an empty table and on the diagonal.
    """
    n_classes, n_features = values.shape[0], len(sizes)
    information = np.zeros((n_features, n_features))
    widest = 1
    for j in range(n_features):
        widest = max(widest, sizes[j])
    by_parent, by_child = np.empty(widest), np.empty(widest)  # (indexed, no slice or array made per pair)
    for p in range(n_features):
        for j in range(n_features):
            if p == j:
                continue
            rows, columns = value_starts[p], value_starts[j]
            total, terms = 0.0, 0.0
            for k in range(n_classes):
                for u in range(sizes[p]):
                    row_total = 0.0
                    for v in range(sizes[j]):
                        row_total += values[k, rows + u, columns + v]
                    by_parent[u] = row_total
                for v in range(sizes[j]):
                    by_child[v] = 0.0
                for u in range(sizes[p]):
                    for v in range(sizes[j]):
                        by_child[v] += values[k, rows + u, columns + v]
                by_class = 0.0
                for u in range(sizes[p]):
                    by_class += by_parent[u]
                total += by_class
                for u in range(sizes[p]):
                    for v in range(sizes[j]):
                        n = values[k, rows + u, columns + v]
                        if n > 0:
                            terms += n * np.log(n * by_class / (by_parent[u] * by_child[v]))
            if total > 0:
                information[p, j] = max(terms / total, 0.0)
    return information
