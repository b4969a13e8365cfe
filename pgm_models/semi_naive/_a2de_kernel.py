"""A2DE's triple counts and scores by compiled loops (numba).

The counts N(y, s, t, u), for every multiset {s ≤ t ≤ u} of a row's observed value cells (one
cell per attribute, so s = t only on the diagonals that hold the pair and single counts), each
sorted triple then written in its six orders, so the tensor is the symmetric one that the
estimates read. Unit-weight rows (``unit_triple_counts``) are counted by bit sets, as AODE's pairs
are: per class and value cell s of an attribute, a bit set over that group's rows for each later
cell, and one AND and POPCNT per 64 rows and pair of later cells. Weighted rows
(``triple_counts``) add their weight attribute triple by attribute triple into a small block at a
flat index, each cell's rows in row order. Both give the same whole-number counts of unit weights
(a test compares them bit for bit). The scores of the posterior means (``a2de_scores``): per row
and class, the sum over the row's eligible attribute pairs (a < b) of P(y, x_a, x_b) Π_j P(x_j | y,
x_a, x_b), F lookups in one contiguous line of the child table per pair, pair by pair over the rows
so that the pair's lines stay in cache, and one log per row and class; where a product could fall
below the normal floats, and for the other estimates, the same in logs (``a2de_log_scores``: a
running log-sum-exp over the pairs, an exp per pair). Gathering every (row, class, a, b, j) at once
held K·F³ floats a row.
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.jit import compiled
from pgm_models.discrete.bitsets import _popcount


@compiled
def triple_counts(cells, class_index, weight, value_starts, sizes, counts):
    """Write into ``counts`` (K, T, T, T), zeros, N(y = k, s, t, u): the summed ``weight`` of the rows of class k with the value
    cells s, t and u, on the rows observing all three (``cells`` (N, F) each row's value cells in
    attribute order, T = Σ sizes where missing; ``value_starts`` and ``sizes`` (F,) each attribute's
    first value cell and number of values).

    Attribute triple by attribute triple (a ≤ b ≤ c; a = b, b = c the diagonals: the pair and
    single counts), every row adds its weight to one cell of a K·(r_a + 1)(r_b + 1)(r_c + 1) block
    at a flat index (its pair's index, kept from the triples before, times r_c + 1 plus its code of
    c): a block that stays in cache and one addition a row, where adding a row's triples at once
    touches the whole tensor. The extra slot of each attribute takes the rows missing it, which the
    block's copy into the tensor (each sorted triple in its six orders) leaves out. Each cell adds its
    rows in row order.
    """
    n_rows, n_features = cells.shape
    n_classes, n_values = counts.shape[0], counts.shape[1]
    local = np.empty((n_features, n_rows), np.intp)  # each attribute's codes, r_j where missing
    for j in range(n_features):
        for n in range(n_rows):
            cell = cells[n, j]
            local[j, n] = cell - value_starts[j] if cell < n_values else sizes[j]
    widest = 0
    for j in range(n_features):
        widest = max(widest, sizes[j] + 1)
    block = np.empty(n_classes * widest**3)
    single, pair = np.empty(n_rows, np.intp), np.empty(n_rows, np.intp)
    for a in range(n_features):
        ra, sa = sizes[a], value_starts[a]
        for n in range(n_rows):
            single[n] = class_index[n] * (ra + 1) + local[a, n]
        block[: n_classes * (ra + 1)] = 0.0
        for n in range(n_rows):
            block[single[n]] += weight[n]
        for k in range(n_classes):
            for x in range(ra):
                counts[k, sa + x, sa + x, sa + x] = block[k * (ra + 1) + x]
        for b in range(a + 1, n_features):
            rb, sb = sizes[b], value_starts[b]
            column = local[b]
            for n in range(n_rows):
                pair[n] = single[n] * (rb + 1) + column[n]
            block[: n_classes * (ra + 1) * (rb + 1)] = 0.0
            for n in range(n_rows):
                block[pair[n]] += weight[n]
            for k in range(n_classes):
                for x in range(ra):
                    s = sa + x
                    for z in range(rb):
                        t = sb + z
                        c = block[(k * (ra + 1) + x) * (rb + 1) + z]
                        counts[k, s, s, t] = c
                        counts[k, s, t, s] = c
                        counts[k, t, s, s] = c
                        counts[k, s, t, t] = c
                        counts[k, t, s, t] = c
                        counts[k, t, t, s] = c
            for c_ in range(b + 1, n_features):
                rc, sc = sizes[c_], value_starts[c_]
                column = local[c_]
                block[: n_classes * (ra + 1) * (rb + 1) * (rc + 1)] = 0.0
                for n in range(n_rows):
                    block[pair[n] * (rc + 1) + column[n]] += weight[n]
                for k in range(n_classes):
                    for x in range(ra):
                        s = sa + x
                        for z in range(rb):
                            t = sb + z
                            base = ((k * (ra + 1) + x) * (rb + 1) + z) * (rc + 1)
                            for v in range(rc):
                                u = sc + v
                                c = block[base + v]
                                counts[k, s, t, u] = c
                                counts[k, s, u, t] = c
                                counts[k, t, s, u] = c
                                counts[k, t, u, s] = c
                                counts[k, u, s, t] = c
                                counts[k, u, t, s] = c


@compiled
def unit_triple_counts(cells, class_index, value_starts, sizes, counts):
    """Write into ``counts`` (K, T, T, T), zeros, ``triple_counts`` of unit-weight rows by bit sets: for
    each class k and value cell s of attribute a, the bit set B over the ranks of the rows of (k, s)
    of each later attribute's cell, and

        N(k, s, t, u) = Σ_w popcount(B[w, t] & B[w, u]),   N(k, s, t, t) = Σ_w popcount(B[w, t]),

    one AND and one POPCNT for 64 rows where the row loop adds 1 to one cell per row and triple.
    The bits are set in one pass over the rows per attribute a (a row's bits land in one word of
    each of its later cells, side by side), all of a's groups at once: reading the rows group
    by group swept the whole code matrix once per group; a missing value's bit lands in a spare
    word. Each group's words are then laid out cell by cell, so that a pair's count is one
    contiguous reduction. Where an attribute c is never missing, the pairs (t, last value of c) are
    N(k, s, t, t) less the pairs with c's other values, one r_c-th of the popcounts saved per side.
    The counts are whole numbers, so they equal the row loop's sums exactly. The caller allocates ``counts`` (NumPy's allocation of a large array asks for huge pages, numba's
    faults it in 4 KiB pages) and the loops reuse one buffer of each kind for every attribute.
    """
    n_rows, n_features = cells.shape
    n_classes, n_values = counts.shape[0], counts.shape[1]
    flat = counts.reshape(-1)
    largest = n_classes * sizes.max()
    group_rows = np.zeros(largest, np.intp)
    offsets = np.zeros(largest + 1, np.intp)
    rank = np.zeros(largest, np.intp)
    pairs = np.empty((n_values, n_values))
    complete = np.ones(n_features, np.bool_)  # attributes with no missing value
    for n in range(n_rows):
        for j in range(n_features):
            if cells[n, j] == n_values:
                complete[j] = False
    # room for the bits of every attribute's groups: the first's are the widest, each group ≤ 63 spare bits
    bits = np.empty(((n_rows + 63 * largest) // 64 + largest) * (n_values + 1), np.uint64)
    for a in range(n_features):
        ra, sa = sizes[a], value_starts[a]
        first = sa + ra  # the later attributes' cells are first … n_values − 1
        n_later = n_values - first
        n_groups = n_classes * ra  # (class, value of a)
        group_rows[:n_groups] = 0
        for n in range(n_rows):
            if cells[n, a] < n_values:
                group_rows[class_index[n] * ra + cells[n, a] - sa] += 1
        for g in range(n_groups):
            counts[g // ra, sa + g % ra, sa + g % ra, sa + g % ra] = group_rows[g]
        if n_later == 0:
            continue
        # each group's words (word, later cell and a spare one for the missing), one group after the other
        width = n_later + 1
        for g in range(n_groups):
            offsets[g + 1] = offsets[g] + (group_rows[g] + 63) // 64 * width
        bits[: offsets[n_groups]] = 0
        rank[:n_groups] = 0
        # (no array slice in the loops: each costs numba a reference count, more than the work)
        for n in range(n_rows):
            s = cells[n, a]
            if s == n_values:
                continue
            g = class_index[n] * ra + s - sa
            i = rank[g]
            rank[g] += 1
            # (unsigned indices, here and below: numba adds no test for a negative index)
            start = np.uint64(offsets[g] + (i >> 6) * width) - np.uint64(first)  # + a later cell ≥ first
            bit = np.uint64(1) << np.uint64(i & 63)
            for b in range(a + 1, n_features):
                bits[start + np.uint64(cells[n, b])] |= bit  # a missing value's bit lands in the spare word
        for g in range(n_groups):
            k, s = g // ra, sa + g % ra
            n_words = (offsets[g + 1] - offsets[g]) // width
            # each later cell's words together (cell t's at t·n_words), so that a pair's count is one
            # contiguous reduction
            by_cell = np.ascontiguousarray(bits[offsets[g] : offsets[g + 1]].reshape(n_words, width).T)
            # the group's counts of pairs of later cells, symmetric (0 between two cells of one attribute,
            # the pair counts N(k, s, t) on the diagonal)
            for t in range(n_later):
                total = np.uint64(0)
                for w in range(n_words):
                    total += _popcount(by_cell[t, w])
                pairs[t, t] = float(total)
            for b in range(a + 1, n_features):
                low_b, high_b = value_starts[b] - first, value_starts[b] + sizes[b] - first
                for t in range(low_b, high_b):
                    for u in range(low_b, high_b):
                        if u != t:
                            pairs[t, u] = 0.0
                for c in range(b + 1, n_features):
                    low_c, high_c = value_starts[c] - first, value_starts[c] + sizes[c] - first
                    # the last value of an attribute never missing by subtraction: a cell's rows in the
                    # group are those of its pairs with each value of that attribute (whole numbers, exact)
                    for t in range(low_b, high_b - 1 if complete[b] else high_b):
                        for u in range(low_c, high_c - 1 if complete[c] else high_c):
                            total = np.uint64(0)
                            for w in range(np.uint64(n_words)):
                                total += _popcount(by_cell[np.uint64(t), w] & by_cell[np.uint64(u), w])
                            pairs[t, u] = pairs[u, t] = float(total)
                        if complete[c]:
                            rest = pairs[t, t]
                            for u in range(low_c, high_c - 1):
                                rest -= pairs[t, u]
                            pairs[t, high_c - 1] = pairs[high_c - 1, t] = rest
                    if complete[b]:
                        for u in range(low_c, high_c):
                            rest = pairs[u, u]
                            for t in range(low_b, high_b - 1):
                                rest -= pairs[t, u]
                            pairs[high_b - 1, u] = pairs[u, high_b - 1] = rest
            # the six orders of each triple, line by line: the slab of s, and the lines [x, s, ·] and
            # [x, ·, s] of each later cell x (writing them triple by triple touched a page per write)
            cube = np.uint64(k * n_values**3)
            for x in range(n_later):
                c = pairs[x, x]
                counts[k, s, s, first + x] = c
                counts[k, s, first + x, s] = c
                counts[k, first + x, s, s] = c
                # the lines [s, x, ·], [x, s, ·] and the column [x, ·, s] from first on
                line_sx = cube + np.uint64(((s * n_values) + first + x) * n_values + first)
                line_xs = cube + np.uint64(((first + x) * n_values + s) * n_values + first)
                column = cube + np.uint64(((first + x) * n_values + first) * n_values + s)
                for y in range(np.uint64(n_later)):
                    c = pairs[x, y]
                    flat[line_sx + y] = c
                    flat[line_xs + y] = c
                    flat[column + y * np.uint64(n_values)] = c


@compiled
def _add_term(peaks, sums, n, k, term):
    """Add exp(``term``) to row n's and class k's running log-sum-exp (its peak and the sum of
    exp(term − peak), rescaled when the peak rises).
    """
    peak = peaks[n, k]
    if term == -np.inf:  # adds exp(−∞) = 0
        return
    if term <= peak:
        sums[n, k] += np.exp(term - peak)
    else:  # a new peak: the sum so far rescaled to it
        sums[n, k] = sums[n, k] * np.exp(peak - term) + 1.0
        peaks[n, k] = term


@compiled
def a2de_log_scores(log_joint, log_child, pair_frequency, cells, frequency_limit):
    """(scores (N, K), number of eligible pairs (N,)): log of the average over the row's eligible
    pairs a < b (both observed, N(x_a, x_b) ≥ ``frequency_limit``) of P(y = k, x_a, x_b) Π_j
    P(x_j | y = k, x_a, x_b); a row with none scores 0 (left to the fallback).

    ``log_joint`` (K, T, T), ``log_child`` (K, T, T, T) (0 at a's and b's own attributes; (K, T, T,
    0) with no third attribute), ``pair_frequency`` (T, T) N(s, t), ``cells`` (N, F) the rows' value
    cells (T where missing). Pair by pair, every row: the K·r_a·r_b lines of the pair's child tables
    stay in cache, where a row's pairs at once read lines all over the K·T³ tables. Each row's
    observed cells are listed once, and a pair's term adds the line at all of them: the parents'
    own cells read log 1 = 0, which leaves the sum as it was, so the loop has no test (a row with
    missing values pads its list with its cell of a, another 0). With two classes, four eligible
    rows are summed side by side: eight chains of additions, each in the one-row order, where one
    row's chain waits on each addition. The log-sum-exp over the pairs is kept running.
    """
    n_rows, n_features = cells.shape
    n_classes, n_values = log_joint.shape[0], log_joint.shape[1]
    children = log_child.shape[3] > 0
    # two bytes a cell (T³ floats never fit in memory at T = 2¹⁵), and each attribute's cells
    # together: every pair reads every row's, and the (N, F) copies of 8 bytes left the cache
    observed = np.full((n_rows, n_features), -1, np.int16)  # −1: padding
    columns = np.empty((n_features, n_rows), np.int16)
    for n in range(n_rows):
        m = 0
        for j in range(n_features):
            columns[j, n] = cells[n, j]
            if cells[n, j] < n_values:
                observed[n, m] = cells[n, j]
                m += 1
    peaks = np.full((n_rows, n_classes), -np.inf)
    sums = np.zeros((n_rows, n_classes))
    counts = np.zeros(n_rows, np.intp)
    eligible = np.empty(n_rows, np.intp)
    for a in range(n_features):
        for b in range(a + 1, n_features):
            n_eligible = 0
            for n in range(n_rows):
                s, t = columns[a, n], columns[b, n]
                if s == n_values or t == n_values or pair_frequency[s, t] < frequency_limit:
                    continue
                counts[n] += 1
                eligible[n_eligible] = n
                n_eligible += 1
            done = 0
            if children and n_classes == 2:
                while done + 4 <= n_eligible:
                    n0, n1, n2, n3 = eligible[done], eligible[done + 1], eligible[done + 2], eligible[done + 3]
                    s0, s1, s2, s3 = columns[a, n0], columns[a, n1], columns[a, n2], columns[a, n3]
                    t0, t1, t2, t3 = columns[b, n0], columns[b, n1], columns[b, n2], columns[b, n3]
                    a00, a01, a02, a03 = (
                        log_joint[0, s0, t0],
                        log_joint[0, s1, t1],
                        log_joint[0, s2, t2],
                        log_joint[0, s3, t3],
                    )
                    a10, a11, a12, a13 = (
                        log_joint[1, s0, t0],
                        log_joint[1, s1, t1],
                        log_joint[1, s2, t2],
                        log_joint[1, s3, t3],
                    )
                    for i in range(n_features):  # (no array slices: each costs numba a reference count)
                        u0, u1, u2, u3 = observed[n0, i], observed[n1, i], observed[n2, i], observed[n3, i]
                        u0 = s0 if u0 < 0 else u0
                        u1 = s1 if u1 < 0 else u1
                        u2 = s2 if u2 < 0 else u2
                        u3 = s3 if u3 < 0 else u3
                        a00 += log_child[0, s0, t0, u0]
                        a10 += log_child[1, s0, t0, u0]
                        a01 += log_child[0, s1, t1, u1]
                        a11 += log_child[1, s1, t1, u1]
                        a02 += log_child[0, s2, t2, u2]
                        a12 += log_child[1, s2, t2, u2]
                        a03 += log_child[0, s3, t3, u3]
                        a13 += log_child[1, s3, t3, u3]
                    _add_term(peaks, sums, n0, 0, a00)
                    _add_term(peaks, sums, n0, 1, a10)
                    _add_term(peaks, sums, n1, 0, a01)
                    _add_term(peaks, sums, n1, 1, a11)
                    _add_term(peaks, sums, n2, 0, a02)
                    _add_term(peaks, sums, n2, 1, a12)
                    _add_term(peaks, sums, n3, 0, a03)
                    _add_term(peaks, sums, n3, 1, a13)
                    done += 4
            for e in range(done, n_eligible):  # one row at a time
                n = eligible[e]
                s, t = columns[a, n], columns[b, n]
                for k in range(n_classes):
                    term = log_joint[k, s, t]
                    if children:
                        for i in range(n_features):
                            if observed[n, i] < 0:
                                break
                            term += log_child[k, s, t, observed[n, i]]
                    _add_term(peaks, sums, n, k, term)
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


@compiled
def child_means(triple, value_starts, sizes, attribute_of_value_cell, alpha, child):
    """Write into ``child`` (T, T, T + 1, K), zeros, ``log_child_means``'s table before its logs, class
    last: child[s, t, u, k] = P(x_j = u | y = k, x_a = s, x_b = t) = (n + α_u) / Σ_{u' of j} (n + α_u')
    (each the quotient that ``log_child_means`` logs) on the lines s < t of two attributes, 1 where u's
    attribute is s's or t's and in the extra cell u = T (a padding that leaves a product as it was);
    return the least child probability (> 0: every α > 0), which bounds the products' range.
    """
    n_classes, n_values = triple.shape[0], triple.shape[1]
    n_features = len(sizes)
    smallest = 1.0
    for s in range(n_values):
        for t in range(s + 1, n_values):
            a, b = attribute_of_value_cell[s], attribute_of_value_cell[t]
            if a == b:
                continue
            for k in range(n_classes):
                child[s, t, n_values, k] = 1.0
                for j in range(n_features):
                    start, stop = value_starts[j], value_starts[j] + sizes[j]
                    if j == a or j == b:
                        for u in range(start, stop):
                            child[s, t, u, k] = 1.0
                        continue
                    total = 0.0
                    for u in range(start, stop):
                        total += triple[k, s, t, u] + alpha[u]
                    for u in range(start, stop):
                        p = (triple[k, s, t, u] + alpha[u]) / total
                        child[s, t, u, k] = p
                        smallest = min(smallest, p)
    return smallest


@compiled
def a2de_scores(joint, child, pair_frequency, cells, frequency_limit):
    """``a2de_log_scores`` in probability space: (scores (N, K), number of eligible pairs (N,)), each
    pair's term the product P(y = k, x_a, x_b) Π_j P(x_j | y = k, x_a, x_b) of ``joint`` (T, T, K) and
    ``child`` (T, T, T + 1, K) (``child_means``'s: 1 at a's and b's own attributes and at u = T),
    summed over the row's eligible pairs, and the score log(sum) − log(count): one log a row and class
    where the log path takes an exp a pair. The caller checks that no product can fall below the
    smallest normal float (each factor is the number whose log the log path adds, so the two agree to
    rounding). Pair by pair over the rows, as ``a2de_log_scores``; each row's observed cells listed
    once as offsets into a line (padded with the cell T, whose 1 leaves the product as it was: no
    test), the classes of a cell side by side, and with two classes four eligible rows at once.
    """
    n_rows, n_features = cells.shape
    n_values, n_classes = joint.shape[1], joint.shape[2]
    line = (n_values + 1) * n_classes  # one (s, t)'s cells
    flat = child.reshape(-1)
    observed = np.full((n_rows, n_features), n_values * n_classes, np.uint32)  # offsets u·K; T·K: padding
    columns = np.empty((n_features, n_rows), np.int16)
    for n in range(n_rows):
        m = 0
        for j in range(n_features):
            columns[j, n] = cells[n, j]
            if cells[n, j] < n_values:
                observed[n, m] = cells[n, j] * n_classes
                m += 1
    sums = np.zeros((n_rows, n_classes))
    counts = np.zeros(n_rows, np.intp)
    eligible = np.empty(n_rows, np.intp)
    for a in range(n_features):
        for b in range(a + 1, n_features):
            n_eligible = 0
            for n in range(n_rows):
                s, t = columns[a, n], columns[b, n]
                if s == n_values or t == n_values or pair_frequency[s, t] < frequency_limit:
                    continue
                counts[n] += 1
                eligible[n_eligible] = n
                n_eligible += 1
            done = 0
            if n_classes == 2:
                while done + 4 <= n_eligible:
                    n0, n1, n2, n3 = eligible[done], eligible[done + 1], eligible[done + 2], eligible[done + 3]
                    s0, s1, s2, s3 = columns[a, n0], columns[a, n1], columns[a, n2], columns[a, n3]
                    t0, t1, t2, t3 = columns[b, n0], columns[b, n1], columns[b, n2], columns[b, n3]
                    p00, p01, p02, p03 = joint[s0, t0, 0], joint[s1, t1, 0], joint[s2, t2, 0], joint[s3, t3, 0]
                    p10, p11, p12, p13 = joint[s0, t0, 1], joint[s1, t1, 1], joint[s2, t2, 1], joint[s3, t3, 1]
                    l0 = np.uint64((s0 * n_values + t0) * line)
                    l1 = np.uint64((s1 * n_values + t1) * line)
                    l2 = np.uint64((s2 * n_values + t2) * line)
                    l3 = np.uint64((s3 * n_values + t3) * line)
                    one = np.uint64(1)
                    # (unsigned offsets: numba adds no test for negative indices; no array slices: each
                    # costs numba a reference count)
                    for i in range(n_features):
                        c0, c1, c2, c3 = (
                            l0 + observed[n0, i],
                            l1 + observed[n1, i],
                            l2 + observed[n2, i],
                            l3 + observed[n3, i],
                        )
                        p00 *= flat[c0]
                        p10 *= flat[c0 + one]
                        p01 *= flat[c1]
                        p11 *= flat[c1 + one]
                        p02 *= flat[c2]
                        p12 *= flat[c2 + one]
                        p03 *= flat[c3]
                        p13 *= flat[c3 + one]
                    sums[n0, 0] += p00
                    sums[n0, 1] += p10
                    sums[n1, 0] += p01
                    sums[n1, 1] += p11
                    sums[n2, 0] += p02
                    sums[n2, 1] += p12
                    sums[n3, 0] += p03
                    sums[n3, 1] += p13
                    done += 4
            for e in range(done, n_eligible):  # one row at a time
                n = eligible[e]
                s, t = columns[a, n], columns[b, n]
                origin = np.uint64((s * n_values + t) * line)
                for k in range(n_classes):
                    term = joint[s, t, k]
                    for i in range(n_features):
                        term *= flat[origin + observed[n, i] + np.uint64(k)]
                    sums[n, k] += term
    scores = np.zeros((n_rows, n_classes))
    for n in range(n_rows):
        if counts[n] == 0:
            continue
        for k in range(n_classes):
            # every pair's product 0 (a class of zero probability): −∞
            scores[n, k] = np.log(sums[n, k]) - np.log(float(counts[n])) if sums[n, k] > 0 else -np.inf
    return scores, counts
