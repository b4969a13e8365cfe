"""The discretizers' compiled kernels: Weka's MDL cut-point search (``MDLDiscretizer``) and
the intervals of values (every discretizer's transform), used once numba is loaded in the
process (``pgm_models._utils.jit.loaded``; else ``pgm_models.preprocessing.discretize``'s NumPy paths, the same
numbers).

For the search NumPy sorts each column's values class by class (its SIMD sort, faster than an
argsort of all the rows); the kernel merges the classes' sorted runs into each
distinct value's class counts and runs Weka's recursive cutPointsForSubset on them with a stack.
Compiled with numba (a core dependency, ``pgm_models._utils.jit``): loading them from numba's disk
cache is quick in a process that has imported numba (numba's import itself is what a lone fit
does not pay); the first use on a machine compiles them (BENCHMARKS.md, "MDL + AODE on
diabetes").

Every number of the search is the float that Weka's formulas give in the order Weka adds them:
the logarithms come from NumPy's tables (``x_ln_x``, ``log2``, ``class_cost``: the kernel takes
no logarithm of its own, whose last bit could differ from NumPy's), and numba contracts no
multiply-add, so the cut points are those of the row-by-row reference to the bit.
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.jit import compiled

LINEAR_CUTS = 32  # up to this many cut points a column's codes count the cuts below each value, in SIMD passes; above, a binary search per value


@compiled
def interval_codes(values, cuts, cut_ends, codes):
    """Write into ``codes`` (F, N) each value's interval among its column's cut points: the number
    of cut points below it (a value on a cut point goes left, as NumPy's ``searchsorted`` with
    side="left"), −1 where it is missing (NaN). Column j (a row of ``values``) has the ascending
    cut points ``cuts[cut_ends[j − 1]:cut_ends[j]]``.
    """
    for j in range(values.shape[0]):
        first, last = cut_ends[j - 1] if j else 0, cut_ends[j]
        row, out = values[j], codes[j]
        if last - first <= LINEAR_CUTS:
            out[:] = 0
            for c in range(first, last):
                cut = cuts[c]
                for i in range(len(row)):
                    out[i] += row[i] > cut
        else:
            for i in range(len(row)):
                low, high = first, last
                while low < high:
                    middle = (low + high) >> 1
                    if cuts[middle] < row[i]:
                        low = middle + 1
                    else:
                        high = middle
                out[i] = low - first
        for i in range(len(row)):
            if np.isnan(row[i]):
                out[i] = -1


@compiled
def mdl_cut_points(by_class, class_ends, x_ln_x, log2, class_cost, ln2):
    """The MDL cut points of every row of ``by_class`` (F, N): a column's values laid out class
    by class (class k in [``class_ends[k − 1]``, ``class_ends[k]``)), each class's run ascending
    with its missing values (NaN) last. Returns all columns' cut points one after the other,
    ascending within a column, and how many each column has. Tables: ``x_ln_x[m]`` = m ln m,
    ``log2[m]`` = log2 m, ``class_cost[k]`` = log2(3^k − 2); ``ln2`` = ln 2.

    Per column, ``cum[k, g]`` counts class k's rows before the g-th distinct value (``cum[K, g]``
    all rows), so that the subset [g0, g1) of distinct values holds ``cum[:, g1] − cum[:, g0]``.
    On each subset: the entropy H = (n ln n − Σ_k c_k ln c_k) / (n ln 2) of every side of every
    cut between two distinct values, the first cut with strictly the lowest conditional entropy
    (n_L H(L) + n_R H(R)) / n (added up as Weka's entropyConditionedOnRows), kept when its gain over H(subset) exceeds
    (log2(n − 1) + log2(3^k − 2) − [k H − k_R H(R) − k_L H(L)]) / n (k counting the classes
    present); a kept cut puts both its sides on the stack.
    """
    n_columns, n_rows = by_class.shape
    n_classes = len(class_ends)
    cuts = np.empty(max(16, n_columns), np.float64)
    n_cuts = np.zeros(n_columns, np.intp)
    total = 0
    cum = np.empty((n_classes + 1, n_rows + 1), np.intp)
    distinct = np.empty(n_rows, np.float64)
    stack = np.empty((n_rows + 1, 2), np.intp)
    after = np.empty(n_rows, np.intp)  # the distinct value right of each kept cut
    left_terms = np.empty(n_rows, np.float64)
    running = np.empty(n_rows, np.float64)
    run_value = np.empty(n_rows + n_classes, np.float64)  # each class's distinct values, then +inf
    run_count = np.zeros(n_rows + n_classes, np.intp)
    head = np.empty(n_classes, np.intp)
    head_value = np.empty(n_classes, np.float64)
    rows = cum[n_classes]
    for j in range(n_columns):
        values = by_class[j]
        # each class's run of ascending values as (distinct value, count) pairs, then the runs
        # merged, all without data-dependent branches: with them, the fold's values mispredicted
        r = -1
        for k in range(n_classes):
            first, stop = class_ends[k - 1] if k else 0, class_ends[k]
            while stop > first and np.isnan(values[stop - 1]):
                stop -= 1
            head[k] = r + 1
            for i in range(first, stop):
                r += (i == first) | (values[i] != values[i - 1])
                run_value[r] = values[i]
                run_count[r] += 1
            r += 1
            run_value[r] = np.inf
            run_count[r] = 0
        # merge the classes' runs: each distinct value and its count in every class
        for k in range(n_classes):
            head_value[k] = run_value[head[k]]
        cum[:, 0] = 0
        n_groups = 0
        while True:
            smallest = np.inf
            for k in range(n_classes):
                smallest = min(smallest, head_value[k])
            if smallest == np.inf:
                break
            distinct[n_groups] = smallest
            n_groups += 1
            rows[n_groups] = rows[n_groups - 1]
            for k in range(n_classes):
                here = head_value[k] == smallest
                count = run_count[head[k]] * here
                cum[k, n_groups] = cum[k, n_groups - 1] + count
                rows[n_groups] += count
                head[k] += here
                head_value[k] = run_value[head[k]]
        run_count[: r + 1] = 0
        kept, depth = 0, 0
        if n_groups >= 2:
            stack[0, 0], stack[0, 1], depth = 0, n_groups, 1
        while depth:
            depth -= 1
            start, end = stack[depth, 0], stack[depth, 1]
            n = rows[end] - rows[start]
            n_candidates = end - start - 1
            # every candidate's Σ c ln c on its left side, class by class (Weka's order of the sum)
            left_terms[:n_candidates] = 0.0
            prior_terms, k_prior = 0.0, 0
            for k in range(n_classes):
                counts = cum[k]
                first, last = counts[start], counts[end]
                prior_terms += x_ln_x[last - first]
                k_prior += last > first
                for i in range(n_candidates):
                    left_terms[i] += x_ln_x[counts[start + 1 + i] - first]
            prior = (x_ln_x[n] - prior_terms) / (n * ln2)
            # Weka's entropyConditionedOnRows in its order: the left classes' terms (left_terms),
            # − n_L ln n_L, + each right class's term, − n_R ln n_R
            for i in range(n_candidates):
                running[i] = left_terms[i] - x_ln_x[rows[start + 1 + i] - rows[start]]
            for k in range(n_classes):
                counts = cum[k]
                last = counts[end]
                for i in range(n_candidates):
                    running[i] += x_ln_x[last - counts[start + 1 + i]]
            best, best_entropy = -1, prior
            for i in range(n_candidates):
                n_right = n - (rows[start + 1 + i] - rows[start])
                conditional = -(running[i] - x_ln_x[n_right]) / (n * ln2)
                if conditional < best_entropy:
                    best, best_entropy = i, conditional
            if best < 0:
                continue
            n_left = rows[start + 1 + best] - rows[start]
            cut = start + 1 + best
            right_terms = 0.0  # the best cut's right side only, class by class as Weka's entropy
            for k in range(n_classes):
                right_terms += x_ln_x[cum[k, end] - cum[k, cut]]
            left = (x_ln_x[n_left] - left_terms[best]) / (n_left * ln2)
            right = (x_ln_x[n - n_left] - right_terms) / ((n - n_left) * ln2)
            k_left, k_right = 0, 0
            for k in range(n_classes):
                k_left += cum[k, cut] > cum[k, start]
                k_right += cum[k, end] > cum[k, cut]
            delta = class_cost[k_prior] - (k_prior * prior - k_right * right - k_left * left)
            if not prior - best_entropy > (log2[n - 1] + delta) / n:
                continue
            after[kept] = cut
            kept += 1
            if cut - start >= 2:
                stack[depth, 0], stack[depth, 1] = start, cut
                depth += 1
            if end - cut >= 2:
                stack[depth, 0], stack[depth, 1] = cut, end
                depth += 1
        if total + kept > len(cuts):
            grown = np.empty(max(2 * len(cuts), total + kept), np.float64)
            grown[:total] = cuts[:total]
            cuts = grown
        for c in range(
            1, kept
        ):  # ascending (insertion: a column keeps few cuts; numba's sort doubles the compile time)
            cut, place = after[c], c
            while place and after[place - 1] > cut:
                after[place] = after[place - 1]
                place -= 1
            after[place] = cut
        for c in range(kept):
            below, above = distinct[after[c] - 1], distinct[after[c]]
            midpoint = (below + above) / 2.0
            # two values beyond half the largest float: halves first, as the NumPy path
            cuts[total + c] = midpoint if not np.isinf(midpoint) else below / 2.0 + above / 2.0
        total += kept
        n_cuts[j] = kept
    return cuts[:total], n_cuts
