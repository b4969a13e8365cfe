"""Sums over spanning trees by the matrix-tree theorem, in log space.

For a complete graph on n nodes with edge weights w_uv > 0, Kirchhoff's theorem gives

    τ(w) = Σ_{spanning trees T} Π_{uv ∈ T} w_uv = det L₀(w),

L₀ the weighted Laplacian with one node's row and column removed (that node *grounded*). The
weights of Bayesian model averaging over trees are ratios of marginal likelihoods, which span
hundreds of orders of magnitude, so neither the weights nor the determinant fit in a float;
``log_tree_sum`` works with log weights throughout.

Stability argument. Gaussian elimination of L₀ is Kron reduction of the graph: eliminating node
i (pivot p_i = L₀[i, i]) leaves the Laplacian of the remaining nodes with weights
w'_jk = w_jk + w_ji w_ik / p_i and a grounding weight g'_j = g_j + w_ji g_i / p_i (g_j = the weight of
j's edge to the grounded node), and det L₀ = Π_i p_i with p_i = g_i + Σ_{j remaining} w_ij. So the
determinant is reached by sums and products of positive numbers only — the diagonal is never
stored, it is recomputed from the off-diagonal weights and the grounding weights (Grassmann,
Taksar & Heyman 1985; O'Cinneide 1993: the relative error of every pivot is O(n ε), with no
cancellation whatever the condition number of L₀). Each sum of positive terms is a log-sum-exp,
so the log weights can be of any size: the log determinant has a relative error of O(n² ε),
i.e. an absolute error O(n² ε log τ) in log τ.

Edge posteriors: P(uv ∈ T) = w_uv ∂ log τ / ∂ w_uv = w_uv (M_uu + M_vv − 2 M_uv) with M = L₀⁻¹ (the
weight times the effective resistance between u and v). That difference cancels badly when the
weights span many orders of magnitude (an inverse of L₀ read off in floats lost 5 digits on six
attributes of breast-cancer), so ``edge_probabilities`` takes the equal form w_uv τ(G/uv) / τ(G) —
the trees through uv are the trees of the graph with u and v merged — and computes every τ by
the same cancellation-free reduction.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp


def log_tree_sum(log_weight: np.ndarray) -> np.ndarray:
    """Log Σ_T Π_{uv ∈ T} w_uv for a batch of complete graphs: ``log_weight`` (..., n, n),
    symmetric (its diagonal is not read); returns (...). One node: log 1 = 0.
    """
    log_weight = np.asarray(log_weight, dtype=float)
    n = log_weight.shape[-1]
    if n <= 1:
        return np.zeros(log_weight.shape[:-2])
    weight = log_weight[..., :-1, :-1].copy()  # node n − 1 grounded
    ground = log_weight[..., :-1, -1].copy()
    total = np.zeros(log_weight.shape[:-2])
    for i in range(n - 1):
        row = weight[..., i, i + 1 :]
        pivot = np.logaddexp(ground[..., i], logsumexp(row, axis=-1)) if row.shape[-1] else ground[..., i].copy()
        total += pivot
        if not row.shape[-1]:
            break
        scaled = row - pivot[..., None]
        rest = weight[..., i + 1 :, i + 1 :]
        np.logaddexp(rest, row[..., :, None] + scaled[..., None, :], out=rest)
        np.logaddexp(ground[..., i + 1 :], scaled + ground[..., i, None], out=ground[..., i + 1 :])
    return total


def edge_probabilities(log_weight: np.ndarray) -> np.ndarray:
    """(n, n) P(uv ∈ T) when a spanning tree T has probability ∝ Π_{uv ∈ T} w_uv: symmetric, zero
    diagonal, summing to 2(n − 1). Each is w_uv τ(G/uv) / τ(G), G/uv the graph with u and v merged
    (the trees through uv are those of G/uv plus the edge), every τ by ``log_tree_sum``: O(n⁵) in
    all, the contracted graphs a block at a time.
    """
    log_weight = np.array(log_weight, dtype=float)
    n = len(log_weight)
    np.fill_diagonal(log_weight, -np.inf)
    probability = np.zeros((n, n))
    if n == 1:
        return probability
    total = log_tree_sum(log_weight)
    first, second = np.triu_indices(n, 1)
    block = max(1, (1 << 22) // (n * n))
    for start in range(0, len(first), block):
        u, v = first[start : start + block], second[start : start + block]
        merged = log_weight[None].repeat(len(u), axis=0)
        both = np.logaddexp(log_weight[u], log_weight[v])  # the merged node's edges (B, n)
        rows = np.arange(len(u))
        merged[rows, u, :] = both
        merged[rows, :, u] = both
        keep = np.array([np.delete(np.arange(n), w) for w in v])  # v's row and column go (B, n − 1)
        contracted = np.take_along_axis(np.take_along_axis(merged, keep[:, :, None], axis=1), keep[:, None, :], axis=2)
        probability[u, v] = np.exp(log_weight[u, v] + log_tree_sum(contracted) - total)
    return np.minimum(probability + probability.T, 1.0)


def random_spanning_tree(log_weight: np.ndarray, rng) -> np.ndarray:
    """A spanning tree T drawn with probability ∝ Π_{uv ∈ T} w_uv, as the parent of each node when
    rooted at node 0 (−1 for the root): (n,). Edge by edge, each is kept with its probability given
    the decisions before it, w_uv τ(G/uv) / τ(G), G the graph contracted along the edges kept and
    without those left out (every τ by ``log_tree_sum``): exact, O(n⁵) at most. The weights are
    scaled by the largest and floored at e⁻⁷⁰⁰ of it (an edge that light is never drawn, but the
    graph stays connected).
    """
    return random_spanning_trees(log_weight, 1, rng)[0]


def random_spanning_trees(log_weight: np.ndarray, n_trees: int, rng) -> np.ndarray:
    """``n_trees`` independent draws of ``random_spanning_tree``: (n_trees, n). The draws that made
    the same decisions so far share their contracted graph and its τ, so a step costs one τ per
    distinct history (at most the number of distinct trees drawn), not one per draw.
    """
    log_weight = np.array(log_weight, dtype=float)
    n = len(log_weight)
    np.fill_diagonal(log_weight, -np.inf)
    off = ~np.eye(n, dtype=bool)
    peak = np.max(log_weight[off], initial=0.0)
    weight = np.where(off, np.exp(np.maximum(log_weight - peak, -700.0)), 0.0)
    edges = list(zip(*np.triu_indices(n, 1)))
    parents = np.full((n_trees, n), -1, dtype=np.intp)

    def log_tau(matrix):
        with np.errstate(divide="ignore"):
            return log_tree_sum(np.log(matrix))

    # each history: (the draws that share it, the contracted graph's weights one row per contracted
    # node, each node's row in it, log τ of it, the edges kept, the next edge to decide)
    histories = [(np.arange(n_trees), weight.copy(), np.arange(n), log_tau(weight), [], 0)]
    while histories:
        draws, current, where, total, kept, step = histories.pop()
        while len(kept) < n - 1:
            u, v = edges[step]
            step += 1
            a, b = sorted((int(where[u]), int(where[v])))
            if a == b:
                continue
            merged = current.copy()
            merged[a] += merged[b]
            merged[:, a] += merged[:, b]
            merged[a, a] = 0.0
            merged = np.delete(np.delete(merged, b, axis=0), b, axis=1)
            log_through = log_tau(merged)
            keep = rng.random(len(draws)) < np.exp(min(0.0, np.log(weight[u, v]) + log_through - total))
            if keep.any():
                joined = np.where(where == b, a, where)
                joined = np.where(joined > b, joined - 1, joined)
                if keep.all():
                    current, where, total, kept = merged, joined, log_through, [*kept, (u, v)]
                    continue
                histories.append((draws[keep], merged, joined, log_through, [*kept, (u, v)], step))
                draws = draws[~keep]
            # left out: its weight leaves the contracted pair's (a lone edge's exactly)
            current = current.copy()
            current[a, b] = current[b, a] = max(0.0, current[a, b] - weight[u, v])
            total = log_tau(current)
        parents[draws] = _rooted_at_first(kept, n)
    return parents


def _rooted_at_first(kept, n) -> np.ndarray:
    """The parent of each node of the tree with edges ``kept``, rooted at node 0 (−1 for the root)."""
    parent = np.full(n, -1, dtype=np.intp)
    neighbours = {node: [] for node in range(n)}
    for u, v in kept:
        neighbours[u].append(v)
        neighbours[v].append(u)
    seen, frontier = {0}, [0]
    while frontier:
        node = frontier.pop()
        for other in neighbours[node]:
            if other not in seen:
                seen.add(other)
                parent[other] = node
                frontier.append(other)
    return parent
