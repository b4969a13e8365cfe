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
    both mixtures run side by side (two chains of additions, each in attribute order). A row's
    factors are multiplied and logged once a class (a log per factor was most of a small fold's
    scoring), the sum of logs to rounding.
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
    product = np.empty(n_classes)  # the row's factors multiplied: one log a class, not one a factor
    for n in range(n_rows):  # (no array slices in the loops: each costs numba a reference count)
        m = 0
        for p in range(n_features):
            if cells[n, p] < n_values:
                observed[m] = p
                m += 1
        for k in range(n_classes):
            scores[n, k] = log_class[k]
            product[k] = 1.0
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
                    _multiply(scores, product, n, k, mixed[k] / total)
            else:  # no observed parent of positive weight: naive Bayes
                for k in range(n_classes):
                    _multiply(scores, product, n, k, naive_bayes[k, v])
        for k in range(n_classes):
            scores[n, k] += np.log(product[k])
    return scores


@compiled
def _multiply(scores, product, n, k, factor):
    """Row n's running product of class k times ``factor``, its log moved into ``scores`` before the
    product can underflow: each factor kept is ≥ 1e-100 and the product ≥ 1e-200 before it (a smaller
    factor, 0 included, adds its own log).
    """
    if factor < 1e-100:
        scores[n, k] += np.log(factor)
        return
    product[k] *= factor
    if product[k] < 1e-200:
        scores[n, k] += np.log(product[k])
        product[k] = 1.0


@compiled
def conditional_mutual_information(values, value_starts, sizes):
    """(F, F) I(X_j; X_p | Y) in nats from the value-cell pair counts ``values`` (K, T, T), each
    pair's table on the rows observing both: Σ_{k,u,v} n_kuv log(n_kuv n_k / (n_ku n_kv)) / N_jp, never
    below 0 (rounding where they are independent), 0 for an empty table and on the diagonal; computed
    once per unordered pair (p < j, the table with p's values as rows) and mirrored.
    """
    n_classes, n_features = values.shape[0], len(sizes)
    information = np.zeros((n_features, n_features))
    widest = 1
    for j in range(n_features):
        widest = max(widest, sizes[j])
    by_parent, by_child = np.empty(widest), np.empty(widest)  # (indexed, no slice or array made per pair)
    for p in range(n_features):
        for j in range(p + 1, n_features):  # I(X_j; X_p | Y) = I(X_p; X_j | Y): each pair's logs once
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
                information[p, j] = information[j, p] = max(terms / total, 0.0)
    return information


@compiled
def hnb_scores_from_counts(
    pair_count, value_cells, value_starts, sizes, child_alpha, naive_bayes_alpha, log_class, codes
):
    """``hnb_log_scores`` of the rows ``codes`` (N, F) (−1 missing) read straight off the pair counts
    ``pair_count`` (K, T', T'): the value cells' counts, the posterior-mean tables P(x_j | y, x_p)
    and P(x_j | y) (each block's count plus ``child_alpha`` and ``naive_bayes_alpha`` (T,), every
    one > 0, over its total) and the conditional mutual informations, in one call where the NumPy
    path's priors, estimates and gathers are some hundred Python calls (a small fold's cost).
    """
    n_classes, n_features = pair_count.shape[0], len(sizes)
    n_values = len(value_cells)
    values = np.empty((n_classes, n_values, n_values))
    for k in range(n_classes):
        for u in range(n_values):
            for v in range(n_values):
                values[k, u, v] = pair_count[k, value_cells[u], value_cells[v]]
    child = np.empty((n_classes, n_values, n_values))
    naive_bayes = np.empty((n_classes, n_values))
    for k in range(n_classes):
        for j in range(n_features):
            start, stop = value_starts[j], value_starts[j] + sizes[j]
            total = 0.0
            for v in range(start, stop):
                total += values[k, v, v] + naive_bayes_alpha[v]
            for v in range(start, stop):
                naive_bayes[k, v] = (values[k, v, v] + naive_bayes_alpha[v]) / total
            for u in range(n_values):
                total = 0.0
                for v in range(start, stop):
                    total += values[k, u, v] + child_alpha[v]
                for v in range(start, stop):
                    child[k, u, v] = (values[k, u, v] + child_alpha[v]) / total
    weights = conditional_mutual_information(values, value_starts, sizes)
    n_rows = codes.shape[0]
    cells = np.empty((n_rows, n_features), np.intp)
    for n in range(n_rows):
        for a in range(n_features):
            cells[n, a] = value_starts[a] + codes[n, a] if codes[n, a] >= 0 else n_values
    return hnb_log_scores(child, naive_bayes, log_class, weights, cells)
