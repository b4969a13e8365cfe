"""A2DE's triple counts and scores by compiled loops (numba).

The counts: each row adds its weight to N(y, s, t, u) for every multiset {s ≤ t ≤ u} of its
observed value cells (one cell per attribute, so s = t only on the diagonals that hold the pair
and single counts), F³/6 additions a row where a one-hot product costs T³ multiply-adds, attribute
by attribute of the first cell so that the slabs written stay in cache; the other
orderings of each triple are then copied from the sorted one, so the tensor is the symmetric one
that the estimates read. The scores: per row and class, the log-sum-exp over the row's eligible
attribute pairs (a < b) of log P(y, x_a, x_b) + Σ_j log P(x_j | y, x_a, x_b), F lookups in one
contiguous line of the log child table per pair, pair by pair over the rows so that the pair's
lines stay in cache; gathering every (row, class, a, b, j) at once held K·F³ floats a row.
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.jit import compiled


@compiled
def triple_counts(cells, class_index, weight, n_classes, n_values):
    """(K, T, T, T) N(y = k, s, t, u): the summed ``weight`` of the rows of class k with the value
    cells s, t and u, on the rows observing all three (``cells`` (N, F) each row's value cells in
    attribute order, ascending, ``n_values`` T where missing).
    """
    n_rows, n_features = cells.shape
    counts = np.zeros((n_classes, n_values, n_values, n_values))
    later = np.empty(n_features, np.intp)
    # attribute by attribute: the rows' triples whose first cell is a's touch only the K·r_a (T, T)
    # slabs of a's cells, which stay in cache, where all triples of a row at once touch the whole tensor
    for a in range(n_features):
        for n in range(n_rows):
            s = cells[n, a]
            if s == n_values:
                continue
            slab, w, m = counts[class_index[n], s], weight[n], 1
            later[0] = s
            for b in range(a + 1, n_features):
                if cells[n, b] < n_values:
                    later[m] = cells[n, b]
                    m += 1
            for i in range(m):
                line = slab[later[i]]
                for j in range(i, m):
                    line[later[j]] += w
    # every other ordering of a sorted triple (only sorted ones were counted, the rest are 0)
    for k in range(n_classes):
        for s in range(n_values):
            for t in range(s, n_values):
                for u in range(t, n_values):
                    c = counts[k, s, t, u]
                    if c != 0.0:
                        counts[k, s, u, t] = c
                        counts[k, t, s, u] = c
                        counts[k, t, u, s] = c
                        counts[k, u, s, t] = c
                        counts[k, u, t, s] = c
    return counts


@compiled
def a2de_log_scores(log_joint, log_child, pair_frequency, cells, frequency_limit):
    """(scores (N, K), number of eligible pairs (N,)): log of the average over the row's eligible
    pairs a < b (both observed, N(x_a, x_b) ≥ ``frequency_limit``) of P(y = k, x_a, x_b) Π_j
    P(x_j | y = k, x_a, x_b); a row with none scores 0 (left to the fallback).

    ``log_joint`` (K, T, T), ``log_child`` (K, T, T, T) (never read at a's or b's attribute: (K, T,
    T, 0) with no third attribute), ``pair_frequency`` (T, T) N(s, t), ``cells`` (N, F) the rows' value cells (T where
    missing). Pair by pair, every row: the K·r_a·r_b lines of the pair's child tables stay in cache,
    where a row's pairs at once read lines all over the K·T³ tables. The log-sum-exp over the pairs
    is kept running (its peak and the sum of exp(term − peak), rescaled when the peak rises).
    """
    n_rows, n_features = cells.shape
    n_classes, n_values = log_joint.shape[0], log_joint.shape[1]
    peaks = np.full((n_rows, n_classes), -np.inf)
    sums = np.zeros((n_rows, n_classes))
    counts = np.zeros(n_rows, np.intp)
    for a in range(n_features):
        for b in range(a + 1, n_features):
            for n in range(n_rows):
                s, t = cells[n, a], cells[n, b]
                if s == n_values or t == n_values or pair_frequency[s, t] < frequency_limit:
                    continue
                counts[n] += 1
                row = cells[n]
                for k in range(n_classes):
                    line = log_child[k, s, t]
                    term = log_joint[k, s, t]
                    for j in range(n_features):
                        if j != a and j != b and row[j] < n_values:  # the parents are not children
                            term += line[row[j]]
                    peak = peaks[n, k]
                    if term == -np.inf:  # adds exp(−∞) = 0
                        continue
                    if term <= peak:
                        sums[n, k] += np.exp(term - peak)
                    else:  # a new peak: the sum so far rescaled to it
                        sums[n, k] = sums[n, k] * np.exp(peak - term) + 1.0
                        peaks[n, k] = term
    scores = np.zeros((n_rows, n_classes))
    for n in range(n_rows):
        if counts[n] == 0:
            continue
        for k in range(n_classes):
            # every pair's term −∞ (a class of zero probability): −∞
            scores[n, k] = np.log(sums[n, k]) + peaks[n, k] - np.log(float(counts[n])) if sums[n, k] > 0 else -np.inf
    return scores, counts


@compiled
def log_child_means(triple, value_starts, sizes, attribute_of_value_cell, alpha):
    """(K, T, T, T) log P(x_j = u | y = k, x_a = s, x_b = t) under the posterior mean, (n + α_u) /
    Σ_{u' of j} (n + α_u'), for the cells s < t of different attributes that scoring reads (every α
    > 0: no empty block); 0 where u's attribute is s's or t's, and for every other (s, t).
    ``triple`` (K, T, T, T) the triple counts, ``alpha`` (T,) the concentration of each child cell.
    """
    n_classes, n_values = triple.shape[0], triple.shape[1]
    n_features = len(sizes)
    log_child = np.zeros(triple.shape)
    for k in range(n_classes):
        for s in range(n_values):
            for t in range(s + 1, n_values):
                a, b = attribute_of_value_cell[s], attribute_of_value_cell[t]
                if a == b:
                    continue
                counts, table = triple[k, s, t], log_child[k, s, t]
                for j in range(n_features):
                    if j == a or j == b:
                        continue
                    start, stop = value_starts[j], value_starts[j] + sizes[j]
                    total = 0.0
                    for u in range(start, stop):
                        total += counts[u] + alpha[u]
                    for u in range(start, stop):
                        table[u] = np.log((counts[u] + alpha[u]) / total)
    return log_child
