"""A2DE: averaged two-dependence estimators (Webb, Boughton, Zheng, Ting & Salem 2012).

Each pair of super-parents (a, b) gives the generative model

    p(y, x | a, b) = P(y, x_a, x_b) Π_{j∉{a,b}} P(x_j | y, x_a, x_b),
    P(y, x_a, x_b) ~ Dirichlet over the K·r_a·r_b cells, P(x_j | y, x_a, x_b) ~ Dirichlet over r_j values,

and A2DE averages them over the pairs whose values are both observed and occur together at least
``frequency_limit`` times in training; a row with no such pair falls back to AODE (which falls
back to naive Bayes), as Webb et al.'s AnDE falls back to A(n−1)DE. The estimates are the
Dirichlet posterior means (or mode, or MLE) on the available cases, with AODE's priors: Laplace
α per cell, or the m-estimate's m pseudo-rows spread evenly over a block (m/(K r_a r_b) per joint
cell, m/r_j per child cell). A missing value is skipped as parent and as child.

The counts are the triple tensor N(y = k, s, t, u) over the T value cells (``triple_count_``,
K·T³ floats); its diagonals are the pair and joint counts. A tensor that cannot fit in memory is
refused before counting, with its size: one above ``max_triple_cells``, or one that cannot fit in
memory. The counts, the posterior-mean child tables and the scores are compiled loops
(``pgm_models.semi_naive._a2de_kernel``, numba, which A2DE loads itself: its K·T³ counts repay
the import), F³/6 additions a training row and K·F³/2 lookups a test row.
"""

from __future__ import annotations

import math

import numpy as np

from pgm_models._utils import jit
from pgm_models._utils.weights import is_unit_weight
from pgm_models.base import FLOATS_PER_BLOCK
from pgm_models.conjugate import Dirichlet, PosteriorDraw, log_probabilities
from pgm_models.discrete.pairs import check_memory
from pgm_models.model_selection.evidence import is_learned
from pgm_models.semi_naive._base import _OPERANDS_OF_CALL, _added
from pgm_models.semi_naive.aode import AODE

# the least log-product a pair's term may have for scoring in probabilities: 2^−1000, a normal float
SMALLEST_LOG_PRODUCT = -1000 * math.log(2)


class A2DE(AODE):
    r"""Averaged two-dependence estimators.

    A2DE averages the models in which every attribute depends on the class and on a pair of
    super-parent attributes (a, b), over every pair whose values are observed together often
    enough, one step further than :class:`AODE`'s single super-parents (the AnDE family with
    n = 2). It trades more variance for less bias than AODE, and its triple counts grow as
    K·T³ in the number of values T.

    Parameters
    ----------
    alpha : float, default=1.0
        The Laplace pseudo-count of every cell, for ``estimator="laplace"`` (no "evidence": A2DE
        does not learn its prior).
    frequency_limit : int, default=1
        A pair of parent values must occur together this often in training for its model to vote
        (and, in AODE's fallback, a parent value alone as often).
    estimator : {"laplace", "m-estimate"}, default="laplace"
        Laplace's estimate (α per cell) or the m-estimate (m pseudo-rows spread evenly over a
        block).
    m : float, default=1.0
        The m-estimate's weight in pseudo-rows, for ``estimator="m-estimate"``.
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters every model plugs in ("predictive" equals "mean": each parameter enters a
        model's likelihood once).
    max_triple_cells : int, default=2**26
        The largest triple tensor, K·T³ cells, that ``fit`` builds (2²⁶ is 512 MiB of counts, held
        about 4 times while scoring; T ≈ 320 values with 2 classes). A larger one is refused
        before counting, whatever memory the machine has, as scoring it costs K·T³ too.
    n_categories : int or array-like of shape (n_features,), default=None
        Domain size of integer-coded attributes (values 0..n−1), as in :class:`CategoricalNB`.
    handle_unknown : {"missing", "error"}, default="missing"
        A value outside an attribute's domain at prediction is skipped like a missing value (with
        a warning) or raises.
    class_prior : array-like of shape (n_classes,), default=None
        A prevalence-shift correction: predictions use these class probabilities (in the order of
        ``classes_``) in place of the class-probability posterior, under every estimate;
        ``set_class_prior`` changes them on a fitted model without refitting. None: the posterior.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        N_k, the (weighted) number of training rows of each class.
    class_concentration_ : ndarray of shape (n_classes,)
        The posterior Dirichlet concentration of the class probabilities.
    categories_ : list of ndarray
        The domain of each attribute.
    n_categories_ : ndarray of shape (n_features,)
        The domain sizes r_j.
    triple_count_ : ndarray of shape (n_classes, T, T, T), or None
        N(y = k, s, t, u), the (weighted) rows of class k with the value cells s, t and u
        (T = Σ_j r_j, attribute j's r_j cells after those of the attributes before it), counted
        on the rows observing all three; its diagonals are the pair and single counts. None with
        fewer than three attributes: no pair of super-parents has a child, and the pairs' joint
        counts are ``pair_count_``'s.
    pair_count_ : ndarray of shape (n_classes, T', T')
        The pair-count tensor of the AODE fallback, as in :class:`AODE` (T' = Σ_j (r_j + 1), a
        cell for "missing" after each attribute's values).
    n_features_in_ : int
        The number of attributes seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.

    See Also
    --------
    AODE : One super-parent per model (A1DE), and A2DE's fallback.
    AODEsr : AODE with subsumption resolution.
    KDB : Up to k learned parents per attribute in a single network.
    CategoricalNB : No parent attribute (A0DE).

    Notes
    -----
    Each pair of super-parents (a, b) gives the generative model
    p(y, x | a, b) = P(y, x_a, x_b) Π_{j∉{a,b}} P(x_j | y, x_a, x_b), with a Dirichlet block over
    the K·r_a·r_b cells of P(y, x_a, x_b) and one over the r_j values of each P(x_j | y, x_a, x_b).
    With n the counts on the rows observing what each involves, the posterior means give

    .. math::

        p(y, x) \propto \sum_{a < b \text{ eligible}}
        \frac{n(y, x_a, x_b) + \alpha_J}{N_{ab} + K r_a r_b \alpha_J}
        \prod_{j \notin \{a, b\}} \frac{n(y, x_a, x_b, x_j) + \alpha_j}{n_j(y, x_a, x_b) + r_j \alpha_j},

    divided by the number of eligible pairs: those whose values are both observed and occur
    together at least ``frequency_limit`` times. Laplace: α_J = α_j = α; m-estimate:
    α_J = m/(K r_a r_b), α_j = m/r_j. A row with no eligible pair falls back to AODE (which falls
    back to naive Bayes), as AnDE falls back to A(n−1)DE; a missing value is skipped as parent and
    as child. There is no exact leave-one-out (``loo`` raises NotImplementedError).

    References
    ----------
    .. [1] G. I. Webb, J. R. Boughton, F. Zheng, K. M. Ting and H. Salem, "Learning by
       extrapolation from marginal to full-multivariate probability distributions: decreasingly
       naive Bayesian classification", *Machine Learning* 86(2), 233–272, 2012.

    Examples
    --------
    >>> from pgm_models import A2DE, AODE, load_dataset
    >>> X, y = load_dataset("weather.nominal")
    >>> model = A2DE().fit(X, y)
    >>> model.triple_count_.shape  # 2 classes, 3 + 3 + 2 + 2 values
    (2, 10, 10, 10)
    >>> model.predict_proba(X[:1]).round(4)
    array([[0.7889, 0.2111]])
    >>> AODE().fit(X, y).predict_proba(X[:1]).round(4)
    array([[0.8144, 0.1856]])
    """

    weights = "uniform"  # AODE's options that A2DE does not take
    temperature = 1.0

    def __init__(
        self,
        alpha=1.0,
        frequency_limit=1,
        estimator="laplace",
        m=1.0,
        estimate="mean",
        max_triple_cells=2**26,
        n_categories=None,
        handle_unknown="missing",
        class_prior=None,
    ):
        self.alpha = alpha
        self.max_triple_cells = max_triple_cells
        self.frequency_limit = frequency_limit
        self.estimator = estimator
        self.m = m
        self.estimate = estimate
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown
        self.class_prior = class_prior

    def _check_estimator(self):
        if is_learned(self.alpha):
            raise ValueError(f"alpha={self.alpha!r}: A2DE takes a number (no learned prior)")
        super()._check_estimator()

    def _has_children(self) -> bool:
        """Whether a pair of super-parents has a child to count: at least three attributes."""
        return len(self._layout.sizes) >= 3

    def _init_counts(self, codes, class_index, weight):
        super()._init_counts(codes, class_index, weight)
        n_values = int(self._layout.sizes.sum())
        shape = (len(self.classes_), n_values, n_values, n_values)
        if not (isinstance(self.max_triple_cells, (int, np.integer)) and self.max_triple_cells > 0):
            raise ValueError(f"max_triple_cells must be a whole number > 0, got {self.max_triple_cells!r}")
        if not self._has_children():  # the one pair's joint is read off AODE's pair counts
            return
        if math.prod(shape) > self.max_triple_cells:
            raise ValueError(
                f"A2DE's triple counts would be a {' × '.join(map(str, shape))} tensor (classes × values³, {n_values} values of "
                f"{len(self._layout.sizes)} attributes), {math.prod(shape):,} cells, more than max_triple_cells="
                f"{self.max_triple_cells:,}; use fewer attributes or values (merge rare values, discretise into fewer "
                "bins), raise max_triple_cells, or use AODE"
            )
        check_memory(
            4 * math.prod(shape),  # the counts, the child estimates, their logs, a padded copy
            lambda: (
                f"A2DE's triple counts, a {' × '.join(map(str, shape))} tensor (classes × values³, {n_values} values of "
                f"{len(self._layout.sizes)} attributes) held about 4 times,"
            ),
            "use fewer attributes or values (merge rare values, discretise into fewer bins), or AODE",
        )

    def _count(self, codes, class_index, weight):
        super()._count(codes, class_index, weight)
        if not self._has_children():
            self.triple_count_ = None
            return
        kernels = jit.kernels("pgm_models.semi_naive._a2de_kernel")  # loads numba: K·T³ counts repay its import
        layout = self._layout
        cells = self._value_index(codes)
        # row by row, two bytes a cell where they fit: the kernels read each row's cells together, once per attribute
        cells = np.ascontiguousarray(cells, dtype=np.int16 if len(layout.value_cells) < 2**15 else np.intp)
        class_index = np.asarray(class_index, dtype=np.intp)
        # NumPy's zeros, which a large array gets in huge pages (numba's allocation faults 4 KiB pages)
        n_values = len(layout.value_cells)
        triple = np.zeros((len(self.classes_), n_values, n_values, n_values))
        if is_unit_weight(weight):  # whole counts: bit sets
            kernels.unit_triple_counts(cells, class_index, layout.value_starts, layout.sizes, triple)
        else:
            kernels.triple_counts(
                cells, class_index, np.asarray(weight, dtype=float), layout.value_starts, layout.sizes, triple
            )
        self.triple_count_ = _added(getattr(self, "triple_count_", None), triple)

    # ------------------------------------------------------------------ estimates
    def _log_pair_joint(self, estimate):
        """Log P(y = k, x_a = s, x_b = t) for value cells s, t of different attributes (K, T, T),
        each attribute pair's K·r_a·r_b cells one Dirichlet block; 0 elsewhere (never read).
        """
        layout, n_classes = self._layout, len(self.classes_)
        joint = self._value_counts(self.pair_count_, layout)  # (K, T, T): n(k, s, t)
        sizes, attribute = layout.sizes, layout.attribute_of_value_cell
        # every (k, s, t) of two attributes, block (a, b) after block, each block's cells in (k, s, t)
        # order: one gather, where slicing the F(F − 1) blocks one by one cost a Python step each
        k, s, t = (axis.ravel() for axis in np.indices(joint.shape))
        of_two = attribute[s] != attribute[t]
        k, s, t = k[of_two], s[of_two], t[of_two]
        order = np.lexsort((t, s, k, attribute[t], attribute[s]))
        k, s, t = k[order], s[order], t[order]
        first, second = np.nonzero(~np.eye(len(sizes), dtype=bool))  # the blocks (a, b), a ≠ b, in that order
        block_cells = n_classes * sizes[first] * sizes[second]
        concentration = np.repeat(np.broadcast_to(self._per_cell(block_cells), block_cells.shape), block_cells)
        flat = Dirichlet(concentration, block_cells).estimate(joint[k, s, t], estimate)
        result = np.zeros(joint.shape)
        with np.errstate(divide="ignore"):
            result[k, s, t] = np.log(flat)
        return result

    def _log_pair_child(self, estimate):
        """Log P(x_j = u | y = k, x_a = s, x_b = t) (K, T, T, T); 0 where u's attribute is s's or t's
        (a parent is not a child).
        """
        layout = self._layout
        if self.triple_count_ is None:  # no child: an empty line for each pair
            return np.zeros((len(self.classes_), len(layout.value_cells), len(layout.value_cells), 0))
        alpha = np.broadcast_to(self._per_value_cell(layout.sizes), self.triple_count_.shape)
        log_child = log_probabilities(Dirichlet(alpha, layout.sizes).estimate(self.triple_count_, estimate))
        same = layout.same_attribute_mask()
        np.copyto(log_child, 0.0, where=same[None, :, None, :] | same[None, None, :, :])
        return log_child

    def _compiled_child_means(self, estimate) -> bool:
        """Whether the child tables are the compiled posterior means (``log_child_means``): the estimate
        (a name, not a PosteriorDraw) is the mean and every concentration > 0.
        """
        return (
            isinstance(estimate, str)
            and estimate in ("mean", "predictive")
            and bool(np.min(self._per_value_cell(self._layout.sizes)) > 0)
        )

    def _log_child_means(self):
        """``_log_pair_child("mean")`` where scoring reads it, by one compiled pass over the counts
        (NumPy's blocked estimate holds several K·T³ temporaries).
        """
        layout = self._layout
        return jit.kernels("pgm_models.semi_naive._a2de_kernel").log_child_means(
            self.triple_count_,
            layout.value_starts,
            layout.sizes,
            layout.attribute_of_value_cell,
            np.ascontiguousarray(self._per_value_cell(layout.sizes), dtype=float),
        )

    def _child_means(self):
        """(``child_means``'s table (T, T, T + 1, K): ``_log_child_means`` before its logs, class last, the
        least child probability), by one compiled pass into NumPy's zeros (huge pages where numba's
        allocation faults 4 KiB pages).
        """
        layout = self._layout
        n_classes, n_values = self.triple_count_.shape[0], self.triple_count_.shape[1]
        child = np.zeros((n_values, n_values, n_values + 1, n_classes))
        smallest = jit.kernels("pgm_models.semi_naive._a2de_kernel").child_means(
            self.triple_count_,
            layout.value_starts,
            layout.sizes,
            layout.attribute_of_value_cell,
            np.ascontiguousarray(self._per_value_cell(layout.sizes), dtype=float),
            child,
        )
        return child, smallest

    def _components(self):
        """None: A2DE averages two-parent models that it does not expose one by one (AODE's
        SPODEs are not its members).
        """
        return None

    def _synthetic_rows(self, n_datasets, n_rows, rng, prior):
        """Per dataset a pair of super-parents (a, b), uniformly (A2DE's weights), its tables from
        their prior or posterior (the joint of (y, x_a, x_b), each child's given them), then the rows.
        """
        from pgm_models.inference.workflow import dirichlet_draws, sampled_labels

        if self.n_features_in_ < 2:  # no pair of super-parents: AODE's rows, as its predictions
            return super()._synthetic_rows(n_datasets, n_rows, rng, prior)
        sizes, n_classes = self._layout.sizes, len(self.classes_)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        spans = [slice(start, start + size) for start, size in zip(starts, sizes)]
        first, second = np.triu_indices(len(sizes), 1)
        chosen = rng.integers(len(first), size=n_datasets)
        triple = self.triple_count_
        if triple is not None:
            triple = np.zeros_like(triple) if prior else triple
            pairs = np.diagonal(triple, axis1=2, axis2=3)  # the joint's counts n(k, s, t)
        else:  # two attributes keep no triples (no child): the joint's counts are the pair counts'
            pairs = self._value_counts(self.pair_count_, self._layout) * (not prior)
        child_alpha = self._per_value_cell(sizes)
        labels = np.zeros((n_datasets, n_rows), dtype=np.intp)
        codes = np.zeros((n_datasets, n_rows, len(sizes)), dtype=np.intp)
        for pair in np.unique(chosen):
            a, b = int(first[pair]), int(second[pair])
            datasets = np.flatnonzero(chosen == pair)
            m, cells = len(datasets), n_classes * sizes[a] * sizes[b]
            joint = pairs[:, spans[a], spans[b]].reshape(-1)
            joint = dirichlet_draws(rng, np.broadcast_to(joint + self._per_cell(cells), (m, cells)))
            cell = sampled_labels(np.broadcast_to(joint[:, None, :], (m, n_rows, cells)), rng)
            y, rest = np.divmod(cell, sizes[a] * sizes[b])
            x_a, x_b = np.divmod(rest, sizes[b])
            labels[datasets], codes[datasets, :, a], codes[datasets, :, b] = y, x_a, x_b
            for j in range(len(sizes)):
                if j in (a, b):
                    continue
                block = triple[:, spans[a], spans[b], spans[j]] + child_alpha[spans[j]]  # (K, r_a, r_b, r_j)
                table = dirichlet_draws(rng, np.broadcast_to(block, (m, *block.shape)))
                codes[datasets, :, j] = sampled_labels(table[np.arange(m)[:, None], y, x_a, x_b], rng)
        return {"parents": (("pair",), np.stack([first[chosen], second[chosen]], axis=1))}, labels, codes

    def _structure_edges(self):
        """The class → every attribute, and each attribute → every other with its share of the
        pairs of super-parents it belongs to, 2/F (A2DE's pairs are weighted alike).
        """
        names = self._feature_names()
        share = 2.0 / len(names) if len(names) > 1 else 1.0
        edges = [("class", f"x_{name}", 1.0, False) for name in names]
        edges += [(f"x_{p}", f"x_{c}", share, False) for p in names for c in names if p != c]
        return (
            "A2DE: the average of the models of every pair of super-parents; a dashed edge a → j is labelled with "
            "the share of those pairs that hold a",
            edges,
        )

    def _floats_per_row(self):
        """Each row's cells and offsets and its K sums and scores in the compiled loop, about 2F + 2K
        floats (the AODE fallback's rows go through AODE's blocks): the child tables, read once per
        block, then one block for most calls.
        """
        return 2 * (self.n_features_in_ + len(self.classes_))

    def _a2de_tables(self, estimate):
        """(joint, child, N(x_a, x_b) (T, T), in probabilities): the tables of P(y, x_a, x_b) and
        P(x_j | y, x_a, x_b), (T, T, K) and (T, T, T + 1, K) in probabilities, (K, T, T) and (K, T, T, T)
        in logs, made once per prediction call (``_OPERANDS_OF_CALL``, as
        AODE's operands; a PosteriorDraw, whose rows form one block, draws each parameter once). In
        probabilities (``a2de_scores``) for the compiled posterior means where no pair's product can fall
        below 2^−1000 (``_products_stay_normal``), else their logs (``a2de_log_scores``).
        """
        model, cache = _OPERANDS_OF_CALL.get()
        if model is self and not isinstance(estimate, PosteriorDraw) and ("a2de", estimate) in cache:
            return cache["a2de", estimate]
        log_joint = self._log_pair_joint(estimate)
        pair_frequency = self._value_counts(self.pair_count_, self._layout).sum(axis=0)
        tables = None
        if self._compiled_child_means(estimate) and self.triple_count_ is not None:
            child, smallest = self._child_means()
            if self._products_stay_normal(log_joint, smallest):
                tables = (np.ascontiguousarray(np.exp(log_joint).transpose(1, 2, 0)), child, pair_frequency, True)
            else:
                tables = (log_joint, self._log_child_means(), pair_frequency, False)
        if tables is None:
            tables = (log_joint, self._log_pair_child(estimate), pair_frequency, False)
        if model is self and not isinstance(estimate, PosteriorDraw):
            cache["a2de", estimate] = tables
        return tables

    def _products_stay_normal(self, log_joint, smallest_child):
        """Whether every pair's product P(y, x_a, x_b) Π_j P(x_j | y, x_a, x_b) is at least 2^−1000 (a
        normal float, far from the subnormals whose rounding the logs' sum does not share): the least
        joint times the least child probability to the power F − 2, the most children a pair has.
        """
        n_children = self.n_features_in_ - 2
        with np.errstate(divide="ignore"):
            least = float(log_joint.min()) + n_children * math.log(smallest_child)  # −∞ with an empty joint cell
        return least >= SMALLEST_LOG_PRODUCT

    def _joint_log_likelihood(self, codes, estimate):
        self._check_frequency_limit()
        if self.n_features_in_ < 2:  # no pair of super-parents: every row is AODE's
            return super()._joint_log_likelihood(codes, estimate)
        joint, child, pair_frequency, in_probabilities = self._a2de_tables(estimate)
        kernels = jit.kernels("pgm_models.semi_naive._a2de_kernel")
        averaged, count = (kernels.a2de_scores if in_probabilities else kernels.a2de_log_scores)(
            joint,
            child,
            pair_frequency,
            np.asarray(self._value_index(codes), dtype=np.intp),
            float(self.frequency_limit),
        )
        fallback = count == 0  # a row with no eligible pair: AODE's
        if fallback.any():  # in AODE's blocks, which bound its per-row temporaries
            rows = np.flatnonzero(fallback)
            size = max(256, FLOATS_PER_BLOCK // super()._floats_per_row())
            for start in range(0, len(rows), size):
                block = rows[start : start + size]
                averaged[block] = super()._joint_log_likelihood(codes[block], estimate)
        return averaged

    _members = "SP2DEs (pairs of super-parents)"
    _loo_route = "A2DE has no exact leave-one-out either (its loo raises NotImplementedError): refit without each row"

    def _loo_block(self, codes, class_index):
        raise NotImplementedError(
            "A2DE has no exact leave-one-out (its pair counts' downdates are not implemented); "
            "refit without each row, or use AODE, whose loo is exact"
        )
