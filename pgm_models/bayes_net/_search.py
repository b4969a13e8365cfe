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

A search compares scores that are equal in exact arithmetic wherever a candidate parent splits no
configuration (a constant attribute, one missing in every row and so replaced by one mode, a copied
attribute) or the score is score-equivalent (TAN's two directions of a link): rounding then picks
the structure. So a family's terms are added in Weka's order (``LocalScoreSearchAlgorithm.
calcScoreOfCounts``): one running sum over the configurations — the class in its declared order
(``FamilyCounter``'s ``class_rank``), then the parents in the order added — and, in each, its
cells, then − log Γ(n_q + rα), − r log Γ(α), + log Γ(rα) ("bdeu": α = 1/(q r), n_q + rα the
running sum of the α + n_qv, and + log Γ(1/q)), or the n_qv log(n_qv / n_q) of the cells with
counts, the penalty last; log Γ is ``log_gamma``, the form of Cephes' that Weka's
``Statistics.lnGamma`` has. Ties then fall as Weka's do: NumPy's pairwise sums in sorted class
order gave Weka's structure on 259 of 300 small random sets with constant and copied attributes
(K2 with 1–3 parents and TAN, every score), these sums on all 300.

Searches (attribute indices exclude the class; ``max_parents`` counts the class, as Weka's):

* "k2": each attribute in the data's order greedily adds the earlier attribute that most raises
  its score (strictly), until none does or it has ``max_parents`` parents;
* "tan": Weka's TAN — the score gain S(h | C, t) − S(h | C) of every ordered pair, the strongest
  first link, then repeatedly the strongest link with exactly one end already linked (ties: the
  first in (head, tail) order), and each link directed as Weka does. Under a score-equivalent
  score (bdeu, bic, aic, loglik) the gains of (h, t) and (t, h) are equal but for rounding, so which
  orientation wins — and so the root, which the α = 0.5 tables' predictions depend on — follows
  the rounding, Weka's with the sums in its order (above);
* "hill-climb": Weka's HillClimber with arc reversal, restricted to arcs between attributes (the
  class stays a parent of every attribute): from naive Bayes, apply the best of every arc
  addition, deletion and reversal (additions first, then deletions, then reversals, attributes
  in order, strictly better only) while it raises the total score.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

from pgm_models._utils import jit

SEARCHES = ("k2", "hill-climb", "tan")
SCORES = ("bayes", "bdeu", "bic", "aic", "loglik")
# A family's table may hold at most this many cells (classes × parent values × child values)
MAX_TABLE_CELLS = 1_000_000
# Under the "bayes" score, rows of whole-number weights summing to at most COMPILED_SCORES_ROWS are
# counted, scored and searched by compiled calls (``_kernels``: a batch of families, K2 whole, hill
# climbing with two parents whole, the tables; a small fold is mostly the NumPy path's fixed cost),
# once numba is loaded (``jit.loaded``); their log Γ tables hold one entry per possible count, hence
# the limit. False: always the NumPy path.
COMPILED_SCORES = True
COMPILED_SCORES_ROWS = 100_000


class FamilyCounter:
    """Family count tables and scores from the distinct rows of (class, codes)."""

    def __init__(
        self,
        codes,
        class_index,
        weight,
        sizes,
        n_classes: int,
        score: str,
        prior_count: float,
        compress=True,
        class_rank=None,
    ):
        # the classes counted in their declared order (``class_rank[k]``: class k's place), Weka's; the
        # tables come back in the callers' order
        self.class_rank = class_rank
        if class_rank is not None:
            class_index = np.asarray(class_rank)[class_index]
        rows = np.column_stack([class_index, codes]).astype(np.intp)
        if compress:
            self.rows, inverse = np.unique(rows, axis=0, return_inverse=True)
            self.weight = np.bincount(inverse.ravel(), weight, len(self.rows))
        else:  # rows nearly distinct already: a repeated row only costs its own term in each count
            self.rows, self.weight = rows, np.asarray(weight, dtype=float)
        self._columns = np.ascontiguousarray(self.rows.T)  # one contiguous array per column
        self.sizes, self.n_classes = np.asarray(sizes), n_classes
        self.score_name, self.prior_count = score, prior_count
        self.n_rows = float(weight.sum())
        self._scores = {}
        self._log_gamma = None  # the compiled path's operands, made at its first use
        self._log_gamma_memo = {}  # the NumPy path's stepped log Γ values (``log_gamma``)

    def _compiled(self) -> bool:
        """Whether new families are counted and scored by ``_kernels.bayes_family_scores``."""
        if self._log_gamma is None:
            whole = self.score_name == "bayes" and bool(np.all(self.weight == np.floor(self.weight)))
            self._log_gamma = (
                {} if COMPILED_SCORES and jit.loaded() and whole and self.n_rows <= COMPILED_SCORES_ROWS else False
            )
        return self._log_gamma is not False

    def _operands(self):
        """The kernels' operands, made once: the columns and sizes as intp, and log Γ(α + n) and log
        Γ(rα + n), n = 0..N, tabulated by ``log_gamma`` (rα the product r · α, as Weka; a row per r).
        """
        if not self._log_gamma:
            n = int(self.n_rows)
            r_values = sorted(set(self.sizes.tolist()))
            blocks = [r * self.prior_count for r in r_values]
            self._log_gamma.update(
                cell=log_gamma(self.prior_count + np.arange(n + 1.0)),
                block=log_gamma(np.array(blocks)[:, None] + np.arange(n + 1.0)),
                row=np.array([r_values.index(r) for r in self.sizes.tolist()], dtype=np.intp),
                columns=np.ascontiguousarray(self._columns, dtype=np.intp),
                sizes=np.asarray(self.sizes, dtype=np.intp),
            )
        return self._log_gamma

    def _compiled_scores(self, children, families) -> np.ndarray:
        """The kernel's scores of ``families`` (sorted parent lists) of ``children``."""
        operands = self._operands()
        return jit.kernels("pgm_models.bayes_net._kernels").bayes_family_scores(
            operands["columns"],
            self.weight,
            operands["sizes"],
            self.n_classes,
            np.array(children, dtype=np.intp),
            *_padded(families),
            operands["cell"],
            operands["block"],
            operands["row"],
        )

    def prefetch(self, families) -> None:
        """Score the (child, parents) ``families`` a search is about to read, all by one kernel call
        on the compiled path (the NumPy path scores each child's batch when asked).
        """
        if self._compiled():
            new = list(dict.fromkeys(k for k in ((c, frozenset(p)) for c, p in families) if k not in self._scores))
            if new:
                scores = self._compiled_scores([c for c, _ in new], [sorted(p) for _, p in new])
                self._scores.update(zip(new, scores.tolist()))

    def one_parent_scores(self) -> np.ndarray:
        """Compiled path: (F, F) score(h | C, t) at [h, t] and score(h | C) at [h, h], every family
        of at most one attribute parent by one kernel call (hill climbing with two parents and TAN
        read nothing else).
        """
        n = len(self.sizes)
        children = np.repeat(np.arange(n, dtype=np.intp), n)
        parents = np.tile(np.arange(n, dtype=np.intp), n)[:, None]
        operands = self._operands()
        return (
            jit.kernels("pgm_models.bayes_net._kernels")
            .bayes_family_scores(
                operands["columns"],
                self.weight,
                operands["sizes"],
                self.n_classes,
                children,
                parents,
                (children != parents[:, 0]).astype(np.intp),  # the diagonal's family has no attribute parent
                operands["cell"],
                operands["block"],
                operands["row"],
            )
            .reshape(n, n)
        )

    def remember(self, parents, scores) -> None:
        """Cache the one-parent families ``parents`` (a list per attribute) from ``one_parent_scores``'s matrix."""
        for j, p in enumerate(parents):
            self._scores[(j, frozenset(p))] = float(scores[j, p[0] if p else j])

    def tables(self, parents) -> list[np.ndarray]:
        """``table(j, parents[j])`` of every attribute j (one kernel call on the compiled path)."""
        if not self._compiled():
            return [self.table(j, list(p)) for j, p in enumerate(parents)]
        operands = self._operands()
        counts, starts = jit.kernels("pgm_models.bayes_net._kernels").family_tables(
            operands["columns"], self.weight, operands["sizes"], self.n_classes, *_padded(parents)
        )
        return [
            self._callers_classes(
                counts[a:b].reshape(self.n_classes, *(int(self.sizes[q]) for q in p), int(self.sizes[j]))
            )
            for j, (p, a, b) in enumerate(zip(parents, starts[:-1].tolist(), starts[1:].tolist()))
        ]

    def _callers_classes(self, table: np.ndarray) -> np.ndarray:
        """A table counted with the classes in ``class_rank`` order, its class axis in the callers' order."""
        return table if self.class_rank is None else table[self.class_rank]

    def _keys(self, child: int, parents) -> np.ndarray:
        """Each row's cell of the family's (K, r_p1, .., r_child) table, flattened."""
        shape = (self.n_classes, *(int(self.sizes[p]) for p in parents), int(self.sizes[child]))
        key = self._columns[0]
        for size, column in zip(shape[1:], [p + 1 for p in parents] + [child + 1]):
            key = key * size + self._columns[column]  # ravel_multi_index's keys without its checks
        return key

    def table(self, child: int, parents) -> np.ndarray:
        """(K, r_p1, .., r_child) weighted counts of the family, parents in the given order."""
        shape = (self.n_classes, *(int(self.sizes[p]) for p in parents), int(self.sizes[child]))
        return self._callers_classes(
            np.bincount(self._keys(child, parents), self.weight, math.prod(shape)).reshape(shape)
        )

    def score(self, child: int, parents) -> float:
        known = self._scores.get((child, frozenset(parents)))
        return known if known is not None else self.scores(child, [parents])[0]

    def scores(self, child: int, parent_sets) -> list[float]:
        """``score(child, parents)`` of each parent set: those not scored before are counted by one
        ``bincount`` (each family's cells after the previous family's) and scored together, since a
        family's table is small and numpy's fixed cost per call would dominate one at a time.
        """
        keys = [(child, frozenset(parents)) for parents in parent_sets]
        # each new family once, its parents in the order first given (the order added: Weka's configurations)
        given = {}
        for key, parents in zip(keys, parent_sets):
            if key not in self._scores:
                given.setdefault(key, list(parents))
        new, families = list(given), list(given.values())
        if new and self._compiled():
            self._scores.update(zip(new, self._compiled_scores([child] * len(new), families).tolist()))
        elif new:
            r = int(self.sizes[child])
            configurations = [self.n_classes * math.prod(int(self.sizes[p]) for p in f) for f in families]
            offsets = np.concatenate(([0], np.cumsum(configurations)[:-1])) * r
            cells = np.concatenate([self._keys(child, f) + offset for f, offset in zip(families, offsets)])
            counts = np.bincount(cells, np.tile(self.weight, len(new)), sum(configurations) * r).reshape(-1, r)
            values = family_scores(
                counts, configurations, self.score_name, self.prior_count, self.n_rows, self._log_gamma_memo
            )
            self._scores.update(zip(new, values))
        return [self._scores[key] for key in keys]


# Cephes' log Γ (S. L. Moshier): the rational function on [2, 3] (from 13 on, gammaln's Stirling series)
_NUMERATOR = (-1.37825152569120859100e3, -3.88016315134637840924e4, -3.31612992738871184744e5,
              -1.16237097492762307383e6, -1.72173700820839662146e6, -8.53555664245765465627e5)  # fmt: skip
_DENOMINATOR = (1.0, -3.51815701436523470549e2, -1.70642106651881159223e4, -2.20528590553854454839e5,
                -1.13933444367982507207e6, -2.53252307177582951285e6, -2.01889141433532773231e6)  # fmt: skip


# the numerator's leading 0 · y + c0 is c0 exactly, so both evaluate as one (2, n) Horner scheme
_RATIONAL = np.array([(0.0, *_NUMERATOR), _DENOMINATOR]).T[:, :, None]  # (7, 2, 1): a coefficient each
_STEPS_DOWN = np.arange(1.0, 11.0)  # x −= 1 from below 13 to [2, 3): at most 10 steps


def log_gamma(x, memo=None) -> np.ndarray:
    """The log Γ(x), x > 0, of Cephes' ``lgam`` in its original form, which Weka's ``Statistics.lnGamma``
    follows: below 13, x steps to [2, 3) by x −= 1 and x += 1 (SciPy's ``gammaln``, Cephes' later
    form, steps from the argument, x + p, and so rounds otherwise where x is not a whole number or
    a half: at 1/3 and 4/3, two of BDeu's α = 1/(q r), they differ in the last bit, which decides
    ties); from 13 on, Stirling's series, as ``gammaln``. ``memo``, a dict, keeps the stepped
    values by argument (a search's arguments repeat: α plus small counts).
    """
    x = np.asarray(x, dtype=float)
    result = np.array(gammaln(x), dtype=float)  # an array for a scalar too, to write into
    small = (x < 13.0) & (2.0 * x != np.floor(2.0 * x))  # both forms step a whole number or a half exactly
    if small.any():
        # each distinct argument stepped once (they repeat: α plus small counts), kept in ``memo``
        memo = {} if memo is None else memo
        arguments, inverse = x[small], None
        if len(arguments) > 256:  # many: their distinct values by one sort
            arguments, inverse = np.unique(arguments, return_inverse=True)
        arguments = arguments.tolist()
        if missing := set(arguments).difference(memo):
            missing = list(missing)
            memo.update(zip(missing, _stepped_log_gamma(np.array(missing)).tolist()))
        values = [memo[v] for v in arguments]
        result[small] = values if inverse is None else np.array(values)[inverse.reshape(-1)]
    return result if result.ndim else result[()]


# below this many arguments the Cephes steps run on Python floats (the same IEEE operations, one
# at a time), cheaper than some forty NumPy calls on a short array
STEPPED_SCALARS = 48


def _stepped_log_gamma(y) -> np.ndarray:
    """``log_gamma`` of arguments in (0, 13): stepped to [2, 3), then Cephes' rational function."""
    return (_stepped_log_gamma_arrays if len(y) > STEPPED_SCALARS else _stepped_log_gamma_scalars)(y)


def _stepped_log_gamma_scalars(y, n=_NUMERATOR, d=_DENOMINATOR) -> np.ndarray:
    """``_stepped_log_gamma_arrays``, its steps and rational function one argument at a time (the same bits)."""
    products, reduced, series = [], [], []
    for v in y.tolist():
        z = 1.0
        while v >= 3.0:
            v -= 1.0
            z *= v
        while v < 2.0:
            z /= v
            v += 1.0
        v -= 2.0
        products.append(z)
        reduced.append(v)
        # Horner's scheme as the arrays' (the denominator's leading 1 · v is v exactly)
        numerator = ((((n[0] * v + n[1]) * v + n[2]) * v + n[3]) * v + n[4]) * v + n[5]
        denominator = (((((v + d[1]) * v + d[2]) * v + d[3]) * v + d[4]) * v + d[5]) * v + d[6]
        series.append(v * numerator / denominator)
    logs = np.log(products)
    return np.where(np.array(reduced) == 0.0, logs, logs + series)


def _stepped_log_gamma_arrays(y) -> np.ndarray:
    """``_stepped_log_gamma`` by whole-array operations."""
    # x −= 1 from x ≥ 3 is exact, so the k-th step gives y − k (floor(y) − 2 steps) and z the
    # product of these in order (``multiply.accumulate``; a factor 1.0 past the last leaves it)
    steps = np.maximum(np.floor(y) - 2.0, 0.0)
    factors = np.where(_STEPS_DOWN[:, None] <= steps, y - _STEPS_DOWN[:, None], 1.0)
    z = np.multiply.accumulate(factors, axis=0)[-1]
    y = y - steps
    for _ in range(2):  # x += 1 rounds, so step by step: at most twice from (0, 2)
        below = y < 2.0
        z = np.where(below, z / y, z)
        y = np.where(below, y + 1.0, y)
    y = y - 2.0
    rational = _RATIONAL[0]
    for c in _RATIONAL[1:]:
        rational = rational * y + c
    with np.errstate(invalid="ignore", divide="ignore"):
        series = y * rational[0] / rational[1]
    return np.where(y == 0.0, np.log(z), np.log(z) + series)


def _padded(families):
    """(M, P) the parent lists zero-padded to the longest (at least 1) and (M,) their lengths, as the kernels take them."""
    parents = np.zeros((len(families), max([1, *(len(f) for f in families)])), dtype=np.intp)
    for m, family in enumerate(families):
        parents[m, : len(family)] = family
    return parents, np.array([len(f) for f in families], dtype=np.intp)


def family_scores(counts, configurations, score: str, prior_count: float, n_rows: float, memo=None) -> list[float]:
    """The score of each of consecutive families of one child: ``counts`` (Σ q, r) stacks their
    tables, q = ``configurations`` rows each; each family's terms added in Weka's order, one running
    sum (``np.cumsum`` adds in order, where ``sum`` and ``np.add.reduceat`` add pairwise; see the
    module's docstring). ``memo``, a dict kept across calls, keeps the log Γ values they share.
    """
    q = np.asarray(configurations, dtype=np.intp).reshape(-1)
    r = counts.shape[1]
    if score in ("bayes", "bdeu"):
        memo = {} if memo is None else memo
        if score == "bayes":  # n_q + rα as the compiled path reads it, Weka's sum for a dyadic α such as 0.5
            ((alpha, table, empty, last, dyadic),) = _dirichlet(r, [(float(prior_count), r * float(prior_count))], memo)
            table = None if dyadic else table
            cells = alpha + counts
            totals = counts.cumsum(axis=1)[:, -1] + r * alpha
            index = counts
        else:
            alpha, table, empty, last, _ = (
                np.array(c) for c in zip(*_dirichlet(r, [(1.0 / (r * n), 1.0 / n) for n in q.tolist()], memo))
            )
            if len(q) > 1:
                alpha, empty, last = np.repeat(alpha, q)[:, None], np.repeat(empty, q), np.repeat(last, q)
            cells = alpha + counts
            totals = cells.cumsum(axis=1)[:, -1]
            # each family's α + n read from its own row of the tables
            index = counts if len(q) == 1 else counts + np.repeat(len(_WHOLE) * np.arange(len(q)), q)[:, None]
        terms = np.empty((len(totals), r + 3))
        terms[:, :r] = _cell_log_gamma(cells, index, table, memo)
        terms[:, r] = -log_gamma(totals, memo)
        terms[:, r + 1] = empty
        terms[:, r + 2] = last
    else:
        totals = counts.cumsum(axis=1)[:, -1:]
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(counts > 0, counts * np.log(counts / totals), 0.0)
    totals = _running_sums(terms.ravel(), q * terms.shape[1])
    if score == "bic":
        return [t - 0.5 * n * (r - 1) * math.log(n_rows) for t, n in zip(totals, q.tolist())]
    if score == "aic":
        return [t - n * (r - 1) for t, n in zip(totals, q.tolist())]
    return totals


_WHOLE = np.arange(13.0)  # the counts n whose α + n may be below 13, where log Γ steps


def _dirichlet(r: int, families, memo) -> list[tuple]:
    """Each family's α, log Γ(α + n) for n = 0..12, − r log Γ(α), log Γ(``last``), and whether α is
    a whole number or a half (``gammaln``'s are then ``log_gamma``'s), ``families`` its (α, last);
    made once per (r, α) in ``memo``, those not made yet by one ``log_gamma`` call.
    """
    keys = [("dirichlet", r, alpha, last) for alpha, last in families]
    if new := list(dict.fromkeys(key for key in keys if key not in memo)):
        values = log_gamma(np.array([[alpha, last, *(alpha + _WHOLE)] for _, _, alpha, last in new]), memo).tolist()
        for key, v in zip(new, values):
            alpha = key[2]
            memo[key] = (alpha, v[2:], -(r * v[0]), v[1], 2.0 * alpha == math.floor(2.0 * alpha))
    return [memo[key] for key in keys]


def _cell_log_gamma(cells, index, table, memo) -> np.ndarray:
    """Log Γ of ``cells`` = α + n: gammaln's from 13 on, below it (whole counts n) ``table``'s
    entry ``index`` = n plus 13 × the family's row; ``table`` None: ``log_gamma``'s.
    """
    if table is None:  # α a whole number or a half: whole counts' are too, and fractional ones log_gamma's own
        return log_gamma(cells, memo)
    values = gammaln(cells)
    small = cells < 13.0
    if small.any():
        index = index[small]
        whole = index.astype(np.intp)
        if not np.array_equal(whole, index):  # fractional weights
            return log_gamma(cells, memo)
        values[small] = np.ravel(table)[whole]
    return values


def _running_sums(terms, lengths) -> list[float]:
    """Each of consecutive runs of ``terms`` (``lengths`` long) summed in order, one running sum
    each: the runs as rows padded with −0.0, which leaves every sum exactly as it was, even −0.0.
    """
    width = int(lengths.max(initial=0))
    if width == 0:
        return [0.0] * len(lengths)
    if len(terms) == width * len(lengths):  # all of one length: the runs are the rows already
        return terms.reshape(len(lengths), width).cumsum(axis=1)[:, -1].tolist()
    rows = np.full((len(lengths), width), -0.0)
    rows[np.arange(width) < lengths[:, None]] = terms
    sums = rows.cumsum(axis=1)[:, -1]
    sums[lengths == 0] = 0.0  # an empty family's sum, as ``float(0)``
    return sums.tolist()


def family_score(counts, score: str, prior_count: float, n_rows: float) -> float:
    """The score of one family from its (q, r) count table, summed as ``family_scores`` sums (KDB's
    pair statistic and its distinct rows, ``FamilyCounter``, so give the same bits).
    """
    return family_scores(counts, [counts.shape[0]], score, prior_count, n_rows)[0]


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
    if counter._compiled():  # the whole search in one call; its families' scores join the cache
        operands = counter._operands()
        chosen, n_chosen, scores = jit.kernels("pgm_models.bayes_net._kernels").bayes_k2(
            operands["columns"],
            counter.weight,
            operands["sizes"],
            counter.n_classes,
            max_parents,
            operands["cell"],
            operands["block"],
            operands["row"],
        )
        parents = [row[:n].tolist() for row, n in zip(chosen, n_chosen.tolist())]
        counter._scores.update(((j, frozenset(p)), s) for j, (p, s) in enumerate(zip(parents, scores.tolist())))
        return parents
    parents = []
    for j in range(len(counter.sizes)):
        chosen, best = [], counter.score(j, [])
        while len(chosen) + 1 < max_parents:
            pick = -1
            candidates = [c for c in range(j) if c not in chosen]
            for candidate, score in zip(candidates, counter.scores(j, [chosen + [c] for c in candidates])):
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
    if counter._compiled():
        scores = counter.one_parent_scores()
        gain = scores - np.diag(scores)[:, None]  # score(h | C, t) − score(h | C), as below
        np.fill_diagonal(gain, -np.inf)
    else:
        scores = None
        base = [counter.score(j, []) for j in range(n)]
        gain = np.full((n, n), -np.inf)
        for h in range(n):
            tails = [t for t in range(n) if t != h]
            gain[h, tails] = np.array(counter.scores(h, [[t] for t in tails])) - base[h]
    # each step: the first (head, tail) in row-major order of the greatest gain among the pairs
    # allowed (two ends, exactly one linked after the first step); the gains are finite, so masking
    # the others with −inf and taking NumPy's first argmax is the scan of the pairs in that order
    linked = np.zeros(n, dtype=bool)
    off_diagonal = ~np.eye(n, dtype=bool)
    links = []
    for step in range(n - 1):
        allowed = off_diagonal if step == 0 else linked[:, None] != linked[None, :]
        head, tail = divmod(int(np.where(allowed, gain, -np.inf).argmax()), n)
        links.append((tail, head))
        linked[[head, tail]] = True
    has_parent = np.zeros(n, dtype=bool)
    for first, second in links:  # Weka's direction: the scored tail takes the head as parent unless it has one
        if not has_parent[first]:
            parents[first].append(second)
            has_parent[first] = True
        else:
            parents[second].append(first)
            has_parent[second] = True
    if scores is not None:
        counter.remember(parents, scores)
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


def _descendants(children, start: int) -> set:
    """The nodes reached from ``start`` along arcs parent → child (``start`` not included unless on a cycle)."""
    seen, frontier = set(), list(children[start])
    while frontier:
        node = frontier.pop()
        if node not in seen:
            seen.add(node)
            frontier.extend(children[node])
    return seen


def hill_climb(counter: FamilyCounter, max_parents: int) -> list[list[int]]:
    n = len(counter.sizes)
    if max_parents == 2 and counter._compiled():  # one attribute parent each: the whole search in one call
        scores = counter.one_parent_scores()
        parent = jit.kernels("pgm_models.bayes_net._kernels").hill_climb_one_parent(np.diag(scores).copy(), scores)
        parents = [[p] if p >= 0 else [] for p in parent.tolist()]
        counter.remember(parents, scores)
        return parents
    counter.prefetch(
        [(j, []) for j in range(n)] + [(h, [t]) for h in range(n) for t in range(n) if t != h and max_parents > 1]
    )
    parents = [[] for _ in range(n)]
    while True:
        best, operation = -1e100, None
        children = [[] for _ in range(n)]
        for j in range(n):
            for p in parents[j]:
                children[p].append(j)
        for head in range(n):
            if len(parents[head]) + 1 >= max_parents:
                continue
            # an arc tail → head makes a cycle when tail is already a descendant of head
            below = _descendants(children, head)
            tails = [t for t in range(n) if t != head and t not in parents[head] and t not in below]
            current = counter.score(head, parents[head])
            for tail, score in zip(tails, counter.scores(head, [parents[head] + [t] for t in tails])):
                delta = score - current
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
