"""Structure search for Bayesian network classifiers with the class a parent of every attribute,
scored by a decomposable score of the family counts, as Weka 3.6's ``BayesNet`` searches.

The rows are compressed once into their distinct (class, x_1..x_F) combinations with summed
weights (``FamilyCounter``); every family's count table (class, parents, child) is then one
``bincount`` over the distinct rows, and a score is a function of that table: linear in the
rows, and each family is counted and scored once (cached by its parent set).

Scores of a family with q = K Π r_p parent configurations and child of r values, counts n_qv:

* "bayes" (Cooper & Herskovits' K2 with a Dirichlet prior count α per cell):
  Σ_q [log Γ(rα) − log Γ(rα + n_q) + Σ_v log Γ(α + n_qv) − log Γ(α)], the Dirichlet–multinomial
  marginal likelihood (``Dirichlet.log_evidence``);
* "bdeu": the same with α = 1/(q r) per cell (equivalent sample size 1, as Weka);
* "loglik": Σ_qv n_qv log(n_qv / n_q) (Weka's ENTROPY);
* "bic": loglik − ½ q (r − 1) log N (Weka's MDL); "aic": loglik − q (r − 1).

Searches (attribute indices exclude the class; ``max_parents`` counts the class, as Weka's):

* "k2": each attribute in the data's order greedily adds the earlier attribute that most raises
  its score (strictly), until none does or it has ``max_parents`` parents;
* "tan": Weka's TAN — the score gain S(h | C, t) − S(h | C) of every ordered pair, the strongest
  first link, then repeatedly the strongest link with exactly one end already linked (ties: the
  first in (head, tail) order), and each link directed as Weka does. Under a score-equivalent
  score (bdeu, bic, aic, loglik) the gains of (h, t) and (t, h) are equal but for rounding, so which
  orientation wins — and so the root, which the α = 0.5 tables' predictions depend on — follows
  the rounding of each implementation: on vote with bic, Weka's tree has the same edges as this
  one and another root;
* "hill-climb": Weka's HillClimber with arc reversal, restricted to arcs between attributes (the
  class stays a parent of every attribute): from naive Bayes, apply the best of every arc
  addition, deletion and reversal (additions first, then deletions, then reversals, attributes
  in order, strictly better only) while it raises the total score.
"""

from __future__ import annotations

import math

import numpy as np

from pgm_models.conjugate import Dirichlet

SEARCHES = ("k2", "hill-climb", "tan")
SCORES = ("bayes", "bdeu", "bic", "aic", "loglik")
# A family's table may hold at most this many cells (classes × parent values × child values)
MAX_TABLE_CELLS = 1_000_000


class FamilyCounter:
    """Family count tables and scores from the distinct rows of (class, codes)."""

    def __init__(self, codes, class_index, weight, sizes, n_classes: int, score: str, prior_count: float):
        rows = np.column_stack([class_index, codes]).astype(np.intp)
        self.rows, inverse = np.unique(rows, axis=0, return_inverse=True)
        self.weight = np.bincount(inverse.ravel(), weight, len(self.rows))
        self.sizes, self.n_classes = np.asarray(sizes), n_classes
        self.score_name, self.prior_count = score, prior_count
        self.n_rows = float(weight.sum())
        self._scores = {}

    def table(self, child: int, parents) -> np.ndarray:
        """(K, r_p1, .., r_child) weighted counts of the family, parents in the given order."""
        shape = (self.n_classes, *(int(self.sizes[p]) for p in parents), int(self.sizes[child]))
        columns = [0, *(p + 1 for p in parents), child + 1]
        key = np.ravel_multi_index(tuple(self.rows[:, c] for c in columns), shape)
        return np.bincount(key, self.weight, math.prod(shape)).reshape(shape)

    def score(self, child: int, parents) -> float:
        key = (child, frozenset(parents))
        if key not in self._scores:
            self._scores[key] = family_score(
                self.table(child, sorted(parents)).reshape(-1, int(self.sizes[child])),
                self.score_name,
                self.prior_count,
                self.n_rows,
            )
        return self._scores[key]


def family_score(counts, score: str, prior_count: float, n_rows: float) -> float:
    """The score of one family from its (q, r) count table."""
    q, r = counts.shape
    if score in ("bayes", "bdeu"):
        alpha = prior_count if score == "bayes" else 1.0 / (q * r)
        return float(Dirichlet(np.full(counts.shape, alpha)).log_evidence(counts).sum())
    totals = counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        loglik = float(np.where(counts > 0, counts * np.log(counts / totals), 0.0).sum())
    if score == "bic":
        return loglik - 0.5 * q * (r - 1) * math.log(n_rows)
    if score == "aic":
        return loglik - q * (r - 1)
    return loglik


def check_table_sizes(sizes, n_classes: int, max_parents: int, names) -> None:
    """Refuse, before searching, a search whose largest possible family table (the class, the
    ``max_parents`` − 1 largest other attributes, the child) exceeds ``MAX_TABLE_CELLS``.
    """
    sizes = np.asarray(sizes)
    order = np.argsort(-sizes, kind="stable")
    for j, size in enumerate(sizes):
        others = [int(sizes[p]) for p in order if p != j][: max(0, max_parents - 1)]
        cells = n_classes * math.prod(others) * int(size)
        if cells > MAX_TABLE_CELLS:
            raise ValueError(
                f"max_parents={max_parents} allows {names[j]!r} a table of {cells:,} cells ({n_classes} classes × "
                f"parents {others} × {int(size)} values), more than the limit of {MAX_TABLE_CELLS:,}; "
                "lower max_parents or merge values"
            )


def k2(counter: FamilyCounter, max_parents: int) -> list[list[int]]:
    parents = []
    for j in range(len(counter.sizes)):
        chosen, best = [], counter.score(j, [])
        while len(chosen) + 1 < max_parents:
            pick = -1
            for candidate in range(j):
                if candidate in chosen:
                    continue
                score = counter.score(j, chosen + [candidate])
                if score > best:
                    best, pick = score, candidate
            if pick < 0:
                break
            chosen.append(pick)
        parents.append(chosen)
    return parents


def tan(counter: FamilyCounter) -> list[list[int]]:
    n = len(counter.sizes)
    parents = [[] for _ in range(n)]
    if n < 2:
        return parents
    base = [counter.score(j, []) for j in range(n)]
    gain = np.array([[counter.score(h, [t]) - base[h] if h != t else -np.inf for t in range(n)] for h in range(n)])
    linked = np.zeros(n, dtype=bool)
    links = []
    for step in range(n - 1):
        best, link = -np.inf, None
        for head in range(n):
            for tail in range(n):
                if head == tail or (step > 0 and linked[head] == linked[tail]):
                    continue
                if link is None or gain[head, tail] > best:
                    best, link = gain[head, tail], (tail, head)
        links.append(link)
        linked[list(link)] = True
    has_parent = np.zeros(n, dtype=bool)
    for first, second in links:  # Weka's direction: the scored tail takes the head as parent unless it has one
        if not has_parent[first]:
            parents[first].append(second)
            has_parent[first] = True
        else:
            parents[second].append(first)
            has_parent[second] = True
    return parents


def _reaches(parents, start: int, target: int) -> bool:
    """Whether ``target`` is an ancestor of ``start`` (a path target → … → start)."""
    seen, frontier = set(), [start]
    while frontier:
        node = frontier.pop()
        if node == target:
            return True
        if node not in seen:
            seen.add(node)
            frontier.extend(parents[node])
    return False


def hill_climb(counter: FamilyCounter, max_parents: int) -> list[list[int]]:
    n = len(counter.sizes)
    parents = [[] for _ in range(n)]
    while True:
        best, operation = -1e100, None
        for head in range(n):
            if len(parents[head]) + 1 >= max_parents:
                continue
            for tail in range(n):
                # an arc tail → head makes a cycle when head is already an ancestor of tail
                if tail == head or tail in parents[head] or _reaches(parents, tail, head):
                    continue
                delta = counter.score(head, parents[head] + [tail]) - counter.score(head, parents[head])
                if delta > best:
                    best, operation = delta, ("add", tail, head)
        for head in range(n):
            for tail in parents[head]:
                delta = counter.score(head, [p for p in parents[head] if p != tail]) - counter.score(
                    head, parents[head]
                )
                if delta > best:
                    best, operation = delta, ("delete", tail, head)
        for head in range(n):
            for tail in parents[head]:
                if len(parents[tail]) + 1 >= max_parents:
                    continue
                without = [p for p in parents[head] if p != tail]
                trial = [without if j == head else parents[j] for j in range(n)]
                if _reaches(trial, head, tail):  # head → tail would close a cycle through another path
                    continue
                delta = (
                    counter.score(head, without)
                    - counter.score(head, parents[head])
                    + counter.score(tail, parents[tail] + [head])
                    - counter.score(tail, parents[tail])
                )
                if delta > best:
                    best, operation = delta, ("reverse", tail, head)
        if operation is None or best <= 0:
            return parents
        kind, tail, head = operation
        if kind in ("delete", "reverse"):
            parents[head] = [p for p in parents[head] if p != tail]
        if kind == "add":
            parents[head] = parents[head] + [tail]
        if kind == "reverse":
            parents[tail] = parents[tail] + [head]


def structure_log_score(counter: FamilyCounter, parents) -> float:
    """Σ_j score(x_j | C, parents_j): the attributes' part of the network's score."""
    return float(sum(counter.score(j, p) for j, p in enumerate(parents)))
