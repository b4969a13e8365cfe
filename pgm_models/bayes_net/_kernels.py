"""Compiled loops (numba) of ``BayesNetClassifier``'s small folds: the structure search's family counts,
"bayes" scores and searches, the family tables, and the posterior-mean tables and look-ups of predict_proba.

A small fold is nearly all fixed cost of NumPy calls and Python loops (BENCHMARKS.md, "Compiled
kernels for small folds"): ``FamilyCounter.scores`` counts the new families of one child by one
``bincount`` over the distinct rows and scores them with ``family_scores``, some twenty calls a
batch, the searches loop over candidates in Python, and prediction builds a Dirichlet, its mean,
log and gather per attribute table. Here one call counts and scores any batch of families
(``bayes_family_scores``), K2 runs whole in one (``bayes_k2``), hill climbing with two parents in
one over the matrix of one-parent scores (``hill_climb_one_parent``), the tables are counted in
one (``family_tables``), one call makes every table's mean (``mean_tables``, logged by NumPy as the
NumPy path logs them); ``pgm_models.discrete.lookups`` sums each row's entries. They give the
NumPy path's bits:

* each family's cells add the rows' weights in row order from 0, as ``bincount`` does;
* log Γ is not evaluated here but read from tables that SciPy's ``gammaln`` filled (the same
  function on the same arguments): with integer weights every count n is a whole number ≤ N, so
  log Γ(α + n) is ``log_gamma_cell[n]`` and log Γ(rα + n_q) is ``log_gamma_block[n_q]``;
* a family's score is one running sum in Weka's order, as ``_search.family_scores`` adds it (a
  configuration's cells, − log Γ(rα + n_q), − r log Γ(α), + log Γ(rα), configuration by
  configuration); the other sums are NumPy's pairwise summation (``pairwise_sum``: below 8 terms
  in order, up to 128 in eight interleaved partial sums, beyond that halves at a multiple of 8),
  in the NumPy path's order: a table row's concentrations α + n; a row's log entries attribute by
  attribute from 0;
* the searches try the Python searches' moves in their order, keep a move only when strictly
  better, and add a delta's terms in the Python expression's order, so they find the same network.
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.jit import compiled


@compiled
def block_sum(values, start, n):
    """Σ values[start : start + n], n ≤ 128, in NumPy's order: below 8 terms one by one, else eight
    interleaved partial sums added as a tree, then the rest one by one.
    """
    if n < 8:
        total = 0.0
        for i in range(start, start + n):
            total += values[i]
        return total
    r0, r1, r2, r3 = values[start], values[start + 1], values[start + 2], values[start + 3]
    r4, r5, r6, r7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
    i = start + 8
    stop = start + n - n % 8
    while i < stop:
        r0 += values[i]
        r1 += values[i + 1]
        r2 += values[i + 2]
        r3 += values[i + 3]
        r4 += values[i + 4]
        r5 += values[i + 5]
        r6 += values[i + 6]
        r7 += values[i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < start + n:
        total += values[i]
        i += 1
    return total


@compiled
def pairwise_sum(values, start, n):
    """Σ values[start : start + n] in NumPy's order (its add reduction's ``pairwise_sum``): blocks
    of ≤ 128 by ``block_sum``, a longer run the sum of its two halves split at a multiple of 8;
    the recursion unrolled on a stack (numba's cache does not reload a recursive function).
    """
    if n <= 128:
        return block_sum(values, start, n)
    starts, lengths, split = np.empty(128, np.intp), np.empty(128, np.intp), np.empty(128, np.bool_)
    partial = np.empty(128)
    top, sums = 0, 0
    starts[0], lengths[0], split[0] = start, n, False
    while top >= 0:
        s, m, done = starts[top], lengths[top], split[top]
        top -= 1
        if m <= 128:
            partial[sums] = block_sum(values, s, m)
            sums += 1
        elif done:  # both halves summed: left then right on the stack of partial sums
            partial[sums - 2] = partial[sums - 2] + partial[sums - 1]
            sums -= 1
        else:
            half = m // 2
            half -= half % 8
            starts[top + 1], lengths[top + 1], split[top + 1] = s, m, True
            starts[top + 2], lengths[top + 2], split[top + 2] = s + half, m - half, False
            starts[top + 3], lengths[top + 3], split[top + 3] = s, half, False
            top += 3
    return partial[0]


@compiled
def count_family(columns, weight, sizes, n_classes, child, parents, n_parents, counts):
    """Add each row's weight to its cell of ``counts`` (zeros, the family's (K, r_p1, .., r_child)
    cells in C order, the parents in ``parents[:n_parents]``'s order), rows in order as ``bincount``.
    """
    r = sizes[child]
    for row in range(columns.shape[1]):
        key = columns[0, row]
        for i in range(n_parents):
            key = key * sizes[parents[i]] + columns[parents[i] + 1, row]
        counts[key * r + columns[child + 1, row]] += weight[row]


@compiled
def family_size(sizes, n_classes, child, parents, n_parents):
    """K Π r_p · r_child: the cells of a family's table."""
    cells = n_classes * sizes[child]
    for i in range(n_parents):
        cells *= sizes[parents[i]]
    return cells


@compiled
def bayes_score(columns, weight, sizes, n_classes, child, parents, n_parents, log_gamma_cell, log_gamma_block):
    """The "bayes" score of one family (parents ``parents[:n_parents]`` in the order added): Σ_q [Σ_v
    log Γ(α + n_qv) − log Γ(rα + n_q) − r log Γ(α) + log Γ(rα)], the cells ordered (class, parents,
    child), every term added to one running sum in that order (Weka's, ``_search.family_scores``'s);
    ``log_gamma_block`` the child's r's row.
    """
    r = sizes[child]
    counts = np.zeros(family_size(sizes, n_classes, child, parents, n_parents))
    count_family(columns, weight, sizes, n_classes, child, parents, n_parents, counts)
    q = len(counts) // r
    empty = r * log_gamma_cell[0]  # r log Γ(α), a double product as Weka's
    score = 0.0
    for u in range(q):
        total = 0.0
        for v in range(r):
            count = counts[u * r + v]
            score += log_gamma_cell[int(count)]
            total += count
        score += -log_gamma_block[int(total)]
        score += -empty
        score += log_gamma_block[0]
    return score


@compiled
def bayes_family_scores(
    columns, weight, sizes, n_classes, children, parents, n_parents, log_gamma_cell, log_gamma_block, block_row
):
    """(M,) ``bayes_score`` of each family m: child ``children[m]``, parents the first ``n_parents[m]``
    of ``parents[m]`` (in the order added).

    ``columns`` (1 + F, N) the distinct rows' class index and codes, one contiguous row each;
    ``weight`` (N,) their whole-number weights; ``sizes`` (F,) the attributes' numbers of values;
    ``log_gamma_cell[n]`` = log Γ(α + n) and ``log_gamma_block[block_row[j], n]`` = log Γ(r_j α + n),
    n = 0..N.
    """
    scores = np.empty(len(children))
    for m in range(len(children)):
        child = children[m]
        scores[m] = bayes_score(
            columns,
            weight,
            sizes,
            n_classes,
            child,
            parents[m],
            n_parents[m],
            log_gamma_cell,
            log_gamma_block[block_row[child]],
        )
    return scores


@compiled
def bayes_k2(columns, weight, sizes, n_classes, max_parents, log_gamma_cell, log_gamma_block, block_row):
    """``_search.k2`` under the "bayes" score in one call (operands as ``bayes_family_scores``'s):
    (F, max(1, max_parents − 1)) each attribute's parents in the order added, (F,) how many, (F,)
    the score of its family. Candidates in attribute order, strictly better only, each family's
    parents in the order added, as the Python search scores them.
    """
    n_features = len(sizes)
    width = max(1, max_parents - 1)
    chosen = np.zeros((n_features, width), dtype=np.intp)
    n_chosen = np.zeros(n_features, dtype=np.intp)
    best_scores = np.empty(n_features)
    family = np.empty(width + 1, dtype=np.intp)
    for j in range(n_features):
        block = log_gamma_block[block_row[j]]
        best = bayes_score(columns, weight, sizes, n_classes, j, family, 0, log_gamma_cell, block)
        while n_chosen[j] + 1 < max_parents:
            pick = -1
            for candidate in range(j):
                taken = False
                for i in range(n_chosen[j]):
                    taken = taken or chosen[j, i] == candidate
                if taken:
                    continue
                # the chosen parents in the order added, then the candidate (Weka's configurations)
                size = 0
                for i in range(n_chosen[j]):
                    family[size] = chosen[j, i]
                    size += 1
                family[size] = candidate
                size += 1
                score = bayes_score(columns, weight, sizes, n_classes, j, family, size, log_gamma_cell, block)
                if score > best:
                    best, pick = score, candidate
            if pick < 0:
                break
            chosen[j, n_chosen[j]] = pick
            n_chosen[j] += 1
        best_scores[j] = best
    return chosen, n_chosen, best_scores


@compiled
def hill_climb_one_parent(alone, pairs):
    """``_search.hill_climb`` with ``max_parents=2`` (one attribute parent at most) from the scores
    of every family: ``alone[j]`` = score(j | C), ``pairs[h, t]`` = score(h | C, t). (F,) each
    attribute's parent, −1 for none. The same moves in the same order as the Python search
    (additions, deletions, reversals; heads then tails in attribute order; strictly better only;
    each delta's terms added in its order), so the same network.
    """
    n = len(alone)
    parent = np.full(n, -1, dtype=np.intp)
    while True:
        best, kind, best_tail, best_head = -1e100, 0, -1, -1
        for head in range(n):
            if parent[head] >= 0:
                continue
            for tail in range(n):
                if tail == head:
                    continue
                below = False  # tail a descendant of head: its chain of parents meets head
                node = parent[tail]
                while node >= 0:
                    if node == head:
                        below = True
                        break
                    node = parent[node]
                if below:
                    continue
                delta = pairs[head, tail] - alone[head]
                if delta > best:
                    best, kind, best_tail, best_head = delta, 1, tail, head
        for head in range(n):
            tail = parent[head]
            if tail >= 0:
                delta = alone[head] - pairs[head, tail]
                if delta > best:
                    best, kind, best_tail, best_head = delta, 2, tail, head
        for head in range(n):
            tail = parent[head]
            # the reversed arc head → tail: tail must have no parent yet; head, left without one, has no ancestor
            if tail >= 0 and parent[tail] < 0:
                delta = alone[head] - pairs[head, tail] + pairs[tail, head] - alone[tail]
                if delta > best:
                    best, kind, best_tail, best_head = delta, 3, tail, head
        if kind == 0 or best <= 0:
            return parent
        if kind == 1:
            parent[best_head] = best_tail
        else:
            parent[best_head] = -1
            if kind == 3:
                parent[best_tail] = best_head


@compiled
def family_tables(columns, weight, sizes, n_classes, parents, n_parents):
    """(every attribute's family counts stacked, each table's first cell and one past its last):
    attribute j's table with the parents ``parents[j, :n_parents[j]]`` in that order.
    """
    n_features = len(sizes)
    starts = np.zeros(n_features + 1, dtype=np.intp)
    for j in range(n_features):
        starts[j + 1] = starts[j] + family_size(sizes, n_classes, j, parents[j], n_parents[j])
    counts = np.zeros(starts[n_features])
    for j in range(n_features):
        count_family(columns, weight, sizes, n_classes, j, parents[j], n_parents[j], counts[starts[j] : starts[j + 1]])
    return counts, starts


@compiled
def mean_tables(counts, starts, n_values, alpha):
    """The posterior means (α + n_uv) / Σ_v (α + n_uv) of every table, stacked as ``counts``: table
    j's cells ``starts[j]`` to ``starts[j + 1]``, rows of ``n_values[j]`` cells (its child's values).
    """
    means = np.empty(len(counts))
    for j in range(len(n_values)):
        r = n_values[j]
        for row in range(starts[j], starts[j + 1], r):
            for v in range(row, row + r):
                means[v] = alpha + counts[v]
            total = pairwise_sum(means, row, r)
            for v in range(row, row + r):
                means[v] = means[v] / total
    return means
