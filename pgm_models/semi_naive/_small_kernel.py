"""The small-fold path's normalisation by one compiled loop (numba): each row's probabilities from its
joint log scores, where ``base._shifted_exp`` takes some ten NumPy calls (a small fold's fixed cost).
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.jit import compiled
from pgm_models.semi_naive._aode_kernel import class_value_joint


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


@compiled
def aode_scores(
    pair_count, value_cells, value_starts, sizes, joint_alpha, child_alpha, codes, frequency_limit, log_weights
):
    """(scores (N, K), fallback (N,)): ``_aode_kernel.aode_log_scores`` of the rows ``codes`` (N, F)
    (−1 missing) read straight off the pair counts, in the probability domain: each parent's
    P(y = k, x_a) Π_j P(x_j | y = k, x_a) a product, and each row and class one log, where the
    tables' logs are K·T² (and most of a small fold's scoring: no vectorised log on this machine's
    NumPy, and the tables outnumber the rows' terms). The estimates are the posterior means of
    ``aode_probabilities`` (every concentration > 0, so every probability is > 0): ``joint_alpha``
    (T, K) and ``child_alpha`` (T, T) (parent cell, child cell). A product is moved into a log before
    it can underflow (a factor below 1e-20 adds its own log; the product is logged below 1e-280) and
    such a row and class averages its parents in the log domain. A row with no eligible parent of
    positive weight is a fallback row (score 0). The scores agree with AODE's kernels to rounding.
    """
    n_classes = pair_count.shape[0]
    n_values, n_features = len(value_cells), len(sizes)
    attribute = np.empty(n_values, np.intp)
    for a in range(n_features):
        for v in range(value_starts[a], value_starts[a] + sizes[a]):
            attribute[v] = a
    # P(y = k, x_a = v) (each attribute's K·r_a cells one block) and N(x_a = v)
    joint, frequency = class_value_joint(pair_count, value_cells, value_starts, sizes, joint_alpha)
    # P(x_j = u | y = k, x_a = v) at [v, u, k] (a row's classes side by side: K products side by side,
    # not one chain of multiplications); 1 where u is of a's own attribute and in column T (missing)
    child = np.empty((n_values, n_values + 1, n_classes))
    totals = np.empty(n_features)
    least = 1.0  # the smallest probability of the tables: whether a row's products can underflow
    for k in range(n_classes):
        for v in range(n_values):
            least = min(least, joint[k, v])
            totals[:] = 0.0
            row = value_cells[v]
            for u in range(n_values):
                totals[attribute[u]] += pair_count[k, row, value_cells[u]] + child_alpha[v, u]
            for a in range(n_features):
                totals[a] = 1.0 / totals[a]  # a product a cell, not a division
            for u in range(n_values):
                child[v, u, k] = (pair_count[k, row, value_cells[u]] + child_alpha[v, u]) * totals[attribute[u]]
                least = min(least, child[v, u, k])
            a = attribute[v]
            for u in range(value_starts[a], value_starts[a] + sizes[a]):
                child[v, u, k] = 1.0
            child[v, n_values, k] = 1.0
    uniform = not np.any(log_weights)
    safe = (n_features + 1) * np.log(least) > -600.0
    n_rows = codes.shape[0]
    scores = np.zeros((n_rows, n_classes))
    fallback = np.zeros(n_rows, np.bool_)
    cells = np.empty(n_features, np.intp)
    parents = np.empty(n_features, np.intp)  # the eligible parents' attributes
    parent_cells = np.empty(n_features, np.intp)  # and their value cells
    products = np.empty((n_features, n_classes))
    relative = np.ones(n_features)  # the eligible parents' w_a / max w_a
    logged = np.empty((n_features, n_classes))  # each parent's logs moved out of its products
    for n in range(n_rows):
        n_eligible, peak = 0, -np.inf
        for a in range(n_features):
            cells[a] = value_starts[a] + codes[n, a] if codes[n, a] >= 0 else n_values
            if cells[a] < n_values and frequency[cells[a]] >= frequency_limit:
                parents[n_eligible] = a
                n_eligible += 1
                peak = max(peak, log_weights[a])
        if peak == -np.inf:
            fallback[n] = True
            continue
        # log Σ_a w_a over the eligible parents, less the log of their largest
        if uniform:
            normaliser = np.log(float(n_eligible))
        else:
            total = 0.0
            for p in range(n_eligible):
                relative[p] = np.exp(log_weights[parents[p]] - peak)
                total += relative[p]
            normaliser = np.log(total)
        underflow = False
        if safe:  # no product of a joint and F children can underflow: no test per factor
            for p in range(n_eligible):
                parent_cells[p] = cells[parents[p]]
                for k in range(n_classes):
                    products[p, k] = joint[k, parent_cells[p]]
            # child by child, every parent's and class's product one step: K·P independent chains of
            # multiplications, not one chain of F per parent and class
            for j in range(n_features):
                cell = cells[j]
                for p in range(n_eligible):
                    parent = parent_cells[p]
                    for k in range(n_classes):
                        products[p, k] *= child[parent, cell, k]
        for p in range(n_eligible if not safe else 0):
            parent = cells[parents[p]]
            for k in range(n_classes):
                products[p, k], logged[p, k] = joint[k, parent], 0.0
                if products[p, k] < 1e-20:
                    products[p, k], logged[p, k] = 1.0, np.log(products[p, k])
                    underflow = True
            for j in range(n_features):
                cell = cells[j]
                for k in range(n_classes):
                    factor = child[parent, cell, k]
                    if factor < 1e-20:
                        logged[p, k] += np.log(factor)
                        underflow = True
                        continue
                    products[p, k] *= factor
                    if products[p, k] < 1e-280:
                        logged[p, k] += np.log(products[p, k])
                        products[p, k] = 1.0
                        underflow = True
        for k in range(n_classes):
            if not underflow:
                total = 0.0
                for p in range(n_eligible):
                    total += relative[p] * products[p, k]
                scores[n, k] = np.log(total) - normaliser
                continue
            top = -np.inf
            for p in range(n_eligible):
                logged[p, k] += np.log(products[p, k]) + np.log(relative[p])
                top = max(top, logged[p, k])
            total = 0.0
            for p in range(n_eligible):
                total += np.exp(logged[p, k] - top)
            scores[n, k] = np.log(total) + top - normaliser
    return scores, fallback
