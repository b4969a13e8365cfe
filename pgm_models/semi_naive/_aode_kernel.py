"""AODE's scores from its pair counts in one compiled pass (numba), for the posterior-mean tables.

For every row n and class k, with the estimates of ``pgm_models.semi_naive._base`` read off the
pair counts C (the posterior mean: (count + α) / (block total + Σα), every α > 0),

    s[n, k, a] = log P(y = k, x_a) + Σ_{j ≠ a, x_j observed} log P(x_j | y = k, x_a)
    score[n, k] = log Σ_{a eligible} w_a exp(s[n, k, a]) − log Σ_{a eligible} w_a,

the parents a eligible where x_a is observed and occurs at least ``frequency_limit`` times in
training. The NumPy path (``AODE._spode_scores`` and ``_average``) computes the same numbers as a
one-hot product of every row with every (class, parent cell)'s stacked log table, K·T·(T + 1)
multiply-adds a row where only K·F² terms are not 0, after some thirty NumPy calls that build the
tables (about 0.2 ms of a small fold, most of it fixed cost). Here the K·T² log tables are made in
one loop and each row gathers its F² entries per class. The sums run in the NumPy path's order
(child cells ascending, then the joint, then the weight; the parents' log-sum-exp from the first
parent), so the scores agree with it to rounding in the last bits (a test compares both paths).
"""

from __future__ import annotations

import numpy as np

from pgm_models.semi_naive._bitsets import _compiled


@_compiled
def aode_log_scores(pair_count, value_cells, value_starts, sizes, joint_alpha, child_alpha, cells, frequency_limit, log_weights):
    """(scores (N, K), fallback (N,)): AODE's averaged log p(x_n, y = k) under the posterior-mean
    estimates, and whether row n has no eligible parent (its score is 0, left to the fallback).

    ``pair_count`` (K, T', T') the pair counts; ``value_cells`` (T,) the value cells among the T'
    cells; ``value_starts`` and ``sizes`` (F,) each attribute's first value cell and number of
    values; ``joint_alpha`` (T, K) the concentration of each (value cell, class) of P(y, x_a);
    ``child_alpha`` (T, T) of each (parent value cell, child value cell) of P(x_j | y, x_a);
    ``cells`` (N, F) each row's value cell, T where missing; ``log_weights`` (F,) log w_a."""
    n_classes = pair_count.shape[0]
    n_values, n_features = len(value_cells), len(sizes)
    # log P(y = k, x_a = v): each attribute's K·r_a cells one block, summed value cell by value cell, class by class
    log_joint = np.empty((n_classes, n_values))
    frequency = np.zeros(n_values)
    for a in range(n_features):
        total = 0.0
        for v in range(value_starts[a], value_starts[a] + sizes[a]):
            for k in range(n_classes):
                total += pair_count[k, value_cells[v], value_cells[v]] + joint_alpha[v, k]
                frequency[v] += pair_count[k, value_cells[v], value_cells[v]]
        for v in range(value_starts[a], value_starts[a] + sizes[a]):
            for k in range(n_classes):
                log_joint[k, v] = np.log((pair_count[k, value_cells[v], value_cells[v]] + joint_alpha[v, k]) / total)
    # log P(x_j = u | y = k, x_a = v): each (class, parent cell, child attribute) one block; 0 where j is
    # a's own attribute and in a last column T, a missing child's, so a row adds all F terms unchecked
    log_child = np.zeros((n_classes, n_values, n_values + 1))
    for k in range(n_classes):
        for v in range(n_values):
            row = pair_count[k, value_cells[v]]
            for j in range(n_features):
                if value_starts[j] <= v < value_starts[j] + sizes[j]:
                    continue
                total = 0.0
                for u in range(value_starts[j], value_starts[j] + sizes[j]):
                    total += row[value_cells[u]] + child_alpha[v, u]
                for u in range(value_starts[j], value_starts[j] + sizes[j]):
                    log_child[k, v, u] = np.log((row[value_cells[u]] + child_alpha[v, u]) / total)
    uniform = not np.any(log_weights)
    n_rows = cells.shape[0]
    scores = np.zeros((n_rows, n_classes))
    fallback = np.zeros(n_rows, np.bool_)
    parent_scores = np.empty(n_features)
    eligible = np.empty(n_features, np.bool_)
    for n in range(n_rows):
        row_cells = cells[n]
        # log Σ_a w_a over the eligible parents: the log of their number (uniform), else their log-sum-exp
        peak, n_eligible = -np.inf, 0
        for a in range(n_features):
            eligible[a] = row_cells[a] < n_values and frequency[row_cells[a]] >= frequency_limit
            if eligible[a]:
                n_eligible += 1
                peak = max(peak, log_weights[a])
        if peak == -np.inf:
            fallback[n] = True
            continue
        if uniform:
            normaliser = np.log(float(n_eligible))
        else:
            total = 0.0
            for a in range(n_features):
                if eligible[a]:
                    total += np.exp(log_weights[a] - peak)
            normaliser = np.log(total) + peak
        for k in range(n_classes):
            peak = -np.inf
            for a in range(n_features):
                score = -np.inf
                if eligible[a]:
                    child = log_child[k, row_cells[a]]
                    score = 0.0
                    for j in range(n_features):
                        score += child[row_cells[j]]
                    score = score + log_joint[k, row_cells[a]] + log_weights[a]
                parent_scores[a] = score
                peak = max(peak, score)
            total = 0.0
            for a in range(n_features):
                if eligible[a]:
                    total += np.exp(parent_scores[a] - peak)
            scores[n, k] = np.log(total) + peak - normaliser
    return scores, fallback
