"""AODE's scores from its pair counts by two compiled loops (numba), for the posterior-mean tables.

For every row n and class k, with the estimates of ``pgm_models.semi_naive._base`` read off the
pair counts C (the posterior mean: (count + α) / (block total + Σα), every α > 0),

    s[n, k, a] = log P(y = k, x_a) + Σ_{j ≠ a, x_j observed} log P(x_j | y = k, x_a)
    score[n, k] = log Σ_{a eligible} w_a exp(s[n, k, a]) − log Σ_{a eligible} w_a,

the parents a eligible where x_a is observed and occurs at least ``frequency_limit`` times in
training. The NumPy path (``AODE._spode_scores`` and ``_average``) computes the same numbers as a
one-hot product of every row with every (class, parent cell)'s stacked log table, K·T·(T + 1)
multiply-adds a row where only K·F² terms are not 0, after some thirty NumPy calls that build the
tables (on a small fold, mostly fixed cost: BENCHMARKS.md, "Compiled kernels for small folds").
Here the K·T² tables are made in one compiled loop (``aode_probabilities``) and logged by NumPy,
and each row gathers its F² entries per class (``aode_log_scores``). The sums run in the NumPy
path's order (child cells ascending, then the joint, then the weight; the parents' log-sum-exp
from the first parent), so the scores agree with it to rounding in the last bits (a test compares both paths).
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.jit import compiled


@compiled
def class_value_joint(pair_count, value_cells, value_starts, sizes, joint_alpha):
    """(P(y = k, x_a = v) at [k, v], N(x_a = v)) from the pair counts' diagonal: each attribute's K·r_a
    cells one block, summed value cell by value cell, class by class.
    """
    n_classes = pair_count.shape[0]
    n_values, n_features = len(value_cells), len(sizes)
    joint = np.empty((n_classes, n_values))
    frequency = np.zeros(n_values)
    for a in range(n_features):
        total = 0.0
        for v in range(value_starts[a], value_starts[a] + sizes[a]):
            for k in range(n_classes):
                count = pair_count[k, value_cells[v], value_cells[v]]
                total += count + joint_alpha[v, k]
                frequency[v] += count
        for v in range(value_starts[a], value_starts[a] + sizes[a]):
            for k in range(n_classes):
                joint[k, v] = (pair_count[k, value_cells[v], value_cells[v]] + joint_alpha[v, k]) / total
    return joint, frequency


@compiled
def aode_probabilities(pair_count, value_cells, value_starts, sizes, attribute_of_value_cell, joint_alpha, child_alpha):
    """(P(y = k, x_a = v) (K, T), P(x_j = u | y = k, x_a = v) (K, T, T + 1), N(x_a = v) (T,)): the
    posterior-mean estimates of every SPODE read off the pair counts, each block's total summed
    cell by cell in the order of the NumPy path's blocked normalisation; the child table holds 1
    (log 1 = 0) where j is a's own attribute and in a last column T, a missing child's, so that a row
    adds all F terms of its log unchecked. (Their logs are NumPy's: one vectorised call, cheaper
    than a compiled loop's scalar log per entry.)

    ``pair_count`` (K, T', T') the pair counts; ``value_cells`` (T,) the value cells among the T'
    cells; ``value_starts`` and ``sizes`` (F,) each attribute's first value cell and number of
    values; ``attribute_of_value_cell`` (T,); ``joint_alpha`` (T, K) the concentration of each (value cell, class) of P(y, x_a);
    ``child_alpha`` (T, T) of each (parent value cell, child value cell) of P(x_j | y, x_a).
    """
    n_classes = pair_count.shape[0]
    n_values, n_features = len(value_cells), len(sizes)
    joint, frequency = class_value_joint(pair_count, value_cells, value_starts, sizes, joint_alpha)
    # each (class, parent cell, child attribute) one block: every block's total in one pass over the
    # child cells (each added in its block's order), the ratios in a second, then 1 over the parent's own
    child = np.empty((n_classes, n_values, n_values + 1))
    totals = np.empty(n_features)
    for k in range(n_classes):
        for v in range(n_values):
            counts, alpha, table = pair_count[k, value_cells[v]], child_alpha[v], child[k, v]
            totals[:] = 0.0
            for u in range(n_values):
                totals[attribute_of_value_cell[u]] += counts[value_cells[u]] + alpha[u]
            for u in range(n_values):
                table[u] = (counts[value_cells[u]] + alpha[u]) / totals[attribute_of_value_cell[u]]
            a = attribute_of_value_cell[v]
            table[value_starts[a] : value_starts[a] + sizes[a]] = 1.0
            table[n_values] = 1.0
    return joint, child, frequency


def aode_log_scores(log_joint, log_child, frequency, codes, value_starts, frequency_limit, log_weights):
    """(scores (N, K), fallback (N,)): AODE's averaged log p(x_n, y = k) from the logs of
    ``aode_probabilities``, and whether row n has no eligible parent (its score is 0, left to the
    fallback). ``codes`` (N, F) the rows' codes (−1 missing), ``value_starts`` (F,) each attribute's
    first value cell, ``log_weights`` (F,) log w_a. Two loops around one NumPy exp of every (row,
    class, parent) term: a compiled loop's scalar exp per term costs more.
    """
    terms, peaks, normalisers, fallback = _parent_terms(
        log_joint, log_child, frequency, codes, value_starts, frequency_limit, log_weights
    )
    return _averages(np.exp(terms, out=terms), peaks, normalisers, fallback), fallback


@compiled
def _parent_terms(log_joint, log_child, frequency, codes, value_starts, frequency_limit, log_weights):
    """(terms (N, K, F), peaks (N, K), normalisers (N,), fallback (N,)) of ``aode_log_scores``: the
    term of row n, class k and parent a is s[n, k, a] + log w_a less the peak over the eligible parents
    (−∞ for a parent that is not eligible, and for every parent where the peak is −∞: a class of zero
    probability, whose exp(−∞ − −∞) would be NaN); the normaliser log Σ_a w_a over the eligible
    parents; a row with none is a fallback row (its terms −∞).
    """
    n_rows, n_features = codes.shape
    n_classes, n_values = log_joint.shape
    uniform = not np.any(log_weights)
    terms = np.full((n_rows, n_classes, n_features), -np.inf)
    peaks = np.full((n_rows, n_classes), -np.inf)
    normalisers = np.zeros(n_rows)
    fallback = np.zeros(n_rows, np.bool_)
    cells = np.empty(n_features, np.intp)  # the row's value cells, T where missing (the child table's column of 0)
    parent_scores = np.empty(n_features)
    eligible = np.empty(n_features, np.bool_)
    parent_cells = np.empty(n_features, np.intp)  # the eligible parents' value cells, in attribute order
    sums = np.empty(n_features)  # their children's log terms
    for n in range(n_rows):
        # log Σ_a w_a over the eligible parents: the log of their number (uniform), else their log-sum-exp
        peak, n_eligible = -np.inf, 0
        for a in range(n_features):
            cells[a] = value_starts[a] + codes[n, a] if codes[n, a] >= 0 else n_values
            eligible[a] = cells[a] < n_values and frequency[cells[a]] >= frequency_limit
            if eligible[a]:
                parent_cells[n_eligible] = cells[a]
                n_eligible += 1
                peak = max(peak, log_weights[a])
        if peak == -np.inf:
            fallback[n] = True
            continue
        if uniform:
            normalisers[n] = np.log(float(n_eligible))
        else:
            total = 0.0
            for a in range(n_features):
                if eligible[a]:
                    total += np.exp(log_weights[a] - peak)
            normalisers[n] = np.log(total) + peak
        for k in range(n_classes):
            # the eligible parents' sums over the children j four at a time, each added from j = 0 up: one
            # parent's F additions each wait for the last, four parents' chains do not
            # (indexed, not sliced: each array slice costs numba a reference count)
            for p in range(0, n_eligible - 3, 4):
                first, second, third, fourth = (
                    parent_cells[p],
                    parent_cells[p + 1],
                    parent_cells[p + 2],
                    parent_cells[p + 3],
                )
                s0 = s1 = s2 = s3 = 0.0
                for j in range(n_features):
                    cell = cells[j]
                    s0 += log_child[k, first, cell]
                    s1 += log_child[k, second, cell]
                    s2 += log_child[k, third, cell]
                    s3 += log_child[k, fourth, cell]
                sums[p], sums[p + 1], sums[p + 2], sums[p + 3] = s0, s1, s2, s3
            for p in range(n_eligible - n_eligible % 4, n_eligible):
                parent, score = parent_cells[p], 0.0
                for j in range(n_features):
                    score += log_child[k, parent, cells[j]]
                sums[p] = score
            peak, p = -np.inf, 0
            for a in range(n_features):
                score = -np.inf
                if eligible[a]:
                    score = sums[p] + log_joint[k, cells[a]] + log_weights[a]
                    p += 1
                parent_scores[a] = score
                peak = max(peak, score)
            if peak == -np.inf:  # every eligible parent's term is 0 (a class of zero probability)
                continue
            peaks[n, k] = peak
            for a in range(n_features):
                if eligible[a]:
                    terms[n, k, a] = parent_scores[a] - peak
    return terms, peaks, normalisers, fallback


@compiled
def _averages(exp_terms, peaks, normalisers, fallback):
    """``aode_log_scores``' scores from the exp of ``_parent_terms``' terms: log Σ_a (in attribute order)
    + peak − normaliser; −∞ where the peak is, 0 in a fallback row.
    """
    n_rows, n_classes, n_features = exp_terms.shape
    scores = np.zeros((n_rows, n_classes))
    for n in range(n_rows):
        if fallback[n]:
            continue
        for k in range(n_classes):
            if peaks[n, k] == -np.inf:
                scores[n, k] = -np.inf
                continue
            total = 0.0
            for a in range(n_features):
                total += exp_terms[n, k, a]
            scores[n, k] = np.log(total) + peaks[n, k] - normalisers[n]
    return scores


@compiled
def without_generalisations(pair_count, value_cells, value_starts, codes, critical_value, removed):
    """AODEsr's rows: ``codes`` (N, F) with −1 in place of each value x_i that another observed value
    x_j of the row subsumes: N(x_j) − ``removed`` > ``critical_value``, N(x_i, x_j) = N(x_j), and not
    N(x_i) = N(x_j) with i before j (two values that imply each other remove only the later
    attribute's). N are the class-free sums of ``pair_count`` (K, T', T'), added class by class as
    NumPy's sum over the classes adds them; ``value_cells`` (T,) and ``value_starts`` (F,) place
    each value among the T' cells. F² tests a row, where NumPy's path builds the T × T test first.
    Where the rows' N·F² tests outnumber the T'² pairs of cells, the class-free sums are added
    once, into a T' × T' table (in the same order: the same numbers), and each test reads one
    entry, not K scattered over the K tables.
    """
    n_rows, n_features = codes.shape
    n_classes, n_cells = pair_count.shape[0], pair_count.shape[1]
    tabled = n_rows * n_features * n_features > n_cells * n_cells
    class_free = np.zeros((n_cells, n_cells) if tabled else (0, 0))
    for k in range(n_classes if tabled else 0):
        for s in range(n_cells):
            for t in range(n_cells):
                class_free[s, t] += pair_count[k, s, t]
    result = codes.copy()
    cells = np.empty(n_features, np.intp)  # the row's cells among the T', −1 where missing
    frequency = np.empty(n_features)
    subsumer = np.empty(n_features, np.bool_)  # frequent enough to subsume
    for n in range(n_rows):
        for a in range(n_features):
            cells[a] = -1
            subsumer[a] = False
            if codes[n, a] >= 0:
                cell = value_cells[value_starts[a] + codes[n, a]]
                cells[a] = cell
                if tabled:
                    frequency[a] = class_free[cell, cell]
                else:
                    total = 0.0
                    for k in range(n_classes):
                        total += pair_count[k, cell, cell]
                    frequency[a] = total
                subsumer[a] = frequency[a] - removed > critical_value
        for i in range(n_features):
            if cells[i] < 0:
                continue
            for j in range(n_features):
                if j == i or not subsumer[j]:
                    continue
                if frequency[i] == frequency[j] and i < j:
                    continue
                if tabled:
                    both = class_free[cells[i], cells[j]]
                else:
                    both = 0.0
                    for k in range(n_classes):
                        both += pair_count[k, cells[i], cells[j]]
                if both == frequency[j]:
                    result[n, i] = -1
                    break
    return result
