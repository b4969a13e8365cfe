"""Categorical naive Bayes: each attribute has its own finite domain of S_j values.

Model (classes k = 1..K, attributes j = 1..F, values s = 1..S_j):

    π ~ Dirichlet(class_alpha · 1_K)                 y_i | π ~ Categorical(π)
    θ_jk ~ Dirichlet(alpha_j · 1_{S_j})              x_ij | y_i = k, θ ~ Categorical(θ_jk)

Closed-form posterior from the counts N_k and N_kjs (available cases: a missing x_ij is not
counted): π | D ~ Dirichlet(class_alpha + N_k), θ_jk | D ~ Dirichlet(alpha_j + N_kjs), so

    P(y = k) = (N_k + λ)/(N + Kλ),   P(x_j = s | y = k) = (N_kjs + λ)/(N_kj + S_j λ)

for the posterior mean (λ = 1: Laplace smoothing, λ = 0: the MLE). Because each parameter
enters p(x, y | θ) once and the posterior factorises, the exact posterior predictive
p(y, x | D) equals this posterior-mean plug-in. A missing attribute is skipped at prediction,
so ``CategoricalNB(alpha=1, class_alpha=1)`` reproduces Weka's NaiveBayes on nominal data.

Counting (small data) and scoring run as compiled loops (``pgm_models.naive_bayes._kernels``,
numba; ``COMPILED_LOOPS``) with the NumPy path's numbers, once numba is loaded in the process
(``pgm_models._utils.jit.loaded``: PyMC loads it), so that a lone fit never pays its import.

Domains: a pandas Categorical column's declared categories (declared but unseen values get
prior mass, as in Weka), else ``n_categories`` (values 0..n−1), else the values seen in fit.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pgm_models._utils import jit
from pgm_models._utils.weights import is_unit_weight
from pgm_models.base import integer_counts
from pgm_models.conjugate import Dirichlet, log_probabilities
from pgm_models.conjugate.blocks import DirichletBlocks, class_block
from pgm_models.discrete.attributes import CategoricalAttributes
from pgm_models.discrete.one_hot import LOOKUP_VALUES, one_hot_log_sums
from pgm_models.discrete.pairs import PairLayout
from pgm_models.naive_bayes._discrete import DiscreteNB, log_linear

JOINT_CELLS = 4096  # cells of a group's joint table (32 KiB of int64 counts: stays in cache)
KEY_ROWS = 1 << 16  # rows whose keys are made per slice (a 512 KiB buffer)
# below this many values, setting up the joint tables costs more than counting cell by cell
JOINT_MIN_VALUES = 1 << 16
# from this many values on, the compiled counting loop saves more than loading numba costs a process
# (the joint tables make several passes over each slice of rows; the loop makes one)
COMPILED_MIN_VALUES = 1 << 24
# Count below JOINT_MIN_VALUES and score at any size with the compiled loops of ``_kernels`` (numba:
# the same numbers, bit for bit, faster on small folds: BENCHMARKS.md, "Compiled kernels for small
# folds"; a process's first call would import numba, and a machine's first compiles the two
# loops), when numba is already loaded (``jit.loaded``). False: the NumPy path only.
COMPILED_LOOPS = True


def _attribute_runs(n_classes: int, radix, limit: int) -> list:
    """Consecutive runs of attributes whose joint table with the class, n_classes × Π radix_j
    cells, stays within ``limit`` cells (an attribute alone may exceed it).
    """
    runs, cells = [], limit + 1
    for j, size in enumerate(int(r) for r in radix):
        if cells * size <= limit:
            runs[-1].append(j)
            cells *= size
        else:
            runs.append([j])
            cells = n_classes * size
    return runs


def _missing_shift(radix) -> int:
    """What adding 1 to every code adds to a mixed-radix key: Σ_j the place value of digit j."""
    places = np.cumprod(np.append(radix[1:], 1)[::-1])[::-1]
    return int(places.sum())


class CategoricalNB(CategoricalAttributes, DiscreteNB):
    r"""Naive Bayes on categorical attributes with conjugate Dirichlet priors.

    Each attribute j takes one of S_j values (a pandas Categorical's categories, integer codes
    0..S_j−1, or any labels). The class and every attribute given the class are categorical
    with Dirichlet priors, so ``fit`` computes the exact posterior from counts in one pass, and
    predictions plug in its mean, mode, the MLE, or the exact posterior predictive. Missing
    values (NaN, None) are skipped when counting and when predicting.

    Parameters
    ----------
    alpha : float, array-like of shape (n_features,), "evidence" or "evidence-per-attribute", default=1.0
        Dirichlet concentration λ of every cell of θ_jk, one number or one per attribute
        (≥ 0; 1 is Laplace smoothing, 0 the maximum likelihood). "evidence" learns one shared
        value by maximising the marginal likelihood, "evidence-per-attribute" one per attribute
        (see :meth:`log_evidence`); the learned value is ``alpha_``.
    class_alpha : float, array-like of shape (n_classes,) or "evidence", default=1.0
        Dirichlet concentration of the class probabilities π (≥ 0), in the order of
        ``classes_``; "evidence" learns it (``class_alpha_``).
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters predictions plug in: the posterior mean, the posterior mode, the
        maximum-likelihood estimate, or the exact posterior predictive (here equal to the
        mean). Each prediction method also takes ``estimate=`` per call.
    n_categories : int or array-like of shape (n_features,), default=None
        Domain size of integer-coded attributes (values 0..n−1) that are not Categoricals;
        None: the values seen in ``fit``.
    handle_unknown : {"missing", "error"}, default="missing"
        A value outside an attribute's domain at prediction is skipped like a missing value
        (with a warning) or raises a ValueError. In training it always raises: it cannot be
        counted.
    class_prior : array-like of shape (n_classes,), default=None
        A prevalence-shift correction: predictions use these class probabilities (in the order of
        ``classes_``) in place of the class-probability posterior, under every estimate;
        ``set_class_prior`` changes them on a fitted model without refitting. None: the posterior.
        ``loo`` ignores it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted (a Categorical y's declared categories, else the observed ones).
    class_count_ : ndarray of shape (n_classes,)
        N_k, the (weighted) number of training rows of each class.
    class_concentration_ : ndarray of shape (n_classes,)
        The posterior Dirichlet concentration of π, class_alpha + N_k.
    categories_ : list of ndarray
        The domain of each attribute, in code order.
    n_categories_ : ndarray of shape (n_features,)
        The domain sizes S_j.
    feature_count_ : ndarray of shape (n_classes, T)
        N_kjs, the (weighted) count of value s of attribute j among the rows of class k, the
        attributes' blocks side by side (T = Σ_j S_j cells).
    feature_concentration_ : ndarray of shape (n_classes, T)
        The posterior concentrations alpha_j + N_kjs, in the layout of ``feature_count_``.
    n_features_in_ : int
        The number of attributes seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.
    alpha_ : float or ndarray of shape (n_features,)
        The learned ``alpha`` (only with ``alpha="evidence"`` or ``"evidence-per-attribute"``).
    class_alpha_ : float
        The learned ``class_alpha`` (only with ``class_alpha="evidence"``).

    See Also
    --------
    BernoulliNB : Binary features.
    MultinomialNB : Word counts.
    MixedNB : Categorical, numeric, binary and count columns in one model.
    AODE, TAN, SPODE : Semi-naive Bayes models that relax the independence of the attributes.
    HierarchicalNB : A hyperprior on ``alpha``, integrated out.
    EqualFrequencyDiscretizer, MDLDiscretizer : Turn numeric columns into categorical ones.

    Notes
    -----
    The generative model, for classes k = 1..K and attributes j = 1..F with values s = 1..S_j:

    .. math::

        \pi &\sim \mathrm{Dirichlet}(\alpha_c \mathbf 1_K), &\quad
        y_i \mid \pi &\sim \mathrm{Categorical}(\pi), \\
        \theta_{jk} &\sim \mathrm{Dirichlet}(\lambda_j \mathbf 1_{S_j}), &\quad
        x_{ij} \mid y_i = k, \theta &\sim \mathrm{Categorical}(\theta_{jk}).

    The posterior is conjugate: with N_k the rows of class k and N_kjs those of them with
    x_j = s (a missing x_ij is not counted),

    .. math::

        \pi \mid D \sim \mathrm{Dirichlet}(\alpha_c + N_k), \qquad
        \theta_{jk} \mid D \sim \mathrm{Dirichlet}(\lambda_j + N_{kjs}).

    The estimates of P(x_j = s | y = k) are

    - ``"mean"``: (N_kjs + λ) / (N_kj + S_j λ) (λ = 1: Laplace smoothing);
    - ``"map"``: (N_kjs + λ − 1) / (N_kj + S_j λ − S_j), the Dirichlet mode (a cell with
      N_kjs + λ ≤ 1 gets 0, and a block with no unique mode uses the mean);
    - ``"mle"``: N_kjs / N_kj;
    - ``"predictive"``: the exact posterior predictive p(y, x | D). Each parameter enters
      p(x, y | θ) once and the posterior factorises, so it equals the posterior-mean plug-in.

    and likewise for P(y = k) from N_k and class_alpha. A row is scored by
    log P(y = k) + Σ_j log P(x_j | y = k) over its present attributes. With ``alpha=1,
    class_alpha=1`` the model reproduces Weka's NaiveBayes on nominal data.

    References
    ----------
    .. [1] Li Hang, *Statistical Learning Methods* (2nd ed.), Tsinghua University Press, 2019,
       chapter 4 (naive Bayes; Bayesian estimation with λ-smoothing).
    .. [2] K. P. Murphy, *Machine Learning: A Probabilistic Perspective*, MIT Press, 2012,
       sections 3.4 (the Dirichlet–multinomial model) and 3.5 (naive Bayes classifiers).

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import CategoricalNB
    >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 1])
    >>> model = CategoricalNB(alpha=1.0).fit(X, y)
    >>> model.class_count_
    array([2., 4.])
    >>> model.feature_count_
    array([[2., 0., 0., 1., 1.],
           [0., 2., 2., 1., 3.]])
    >>> model.predict_proba(X[:2]).round(3)
    array([[0.654, 0.346],
           [0.791, 0.209]])
    >>> model.predict(np.array([[0, 1], [2, 0]]))
    array([0, 1])
    >>> model.analytic_posterior("mean")["feature_prob_x0"].values.round(3)
    array([[0.6  , 0.2  , 0.2  ],
           [0.143, 0.429, 0.429]])
    """

    # nutpie's diagonal mass matrix: the low-rank one costs more CPU than it gains here
    # (BENCHMARKS.md, "Mass matrices and tuning steps")
    _nutpie_low_rank = False

    def __init__(
        self, alpha=1.0, class_alpha=1.0, estimate="mean", n_categories=None, handle_unknown="missing", class_prior=None
    ):
        self.alpha = alpha
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown
        self.class_prior = class_prior

    def _loo_codes(self, codes):
        return codes  # one value, or none, per attribute's block

    def _n_design_columns(self):
        return len(self._value_layout().value_cells)

    def _value_layout(self) -> PairLayout:
        """The attributes' cells (``PairLayout.of_sizes`` of ``n_categories_``: shared, read-only), looked
        up once per fit (the tuple of sizes and its hash are a cost on every look-up, several a small fold).
        """
        known = getattr(self, "_layout_of", None)
        if known is None or known[0] is not self.n_categories_:  # a new fit has a new n_categories_
            known = self._layout_of = (self.n_categories_, PairLayout.of_sizes(tuple(self.n_categories_.tolist())))
        return known[1]

    def _feature_blocks(self):
        return self.n_categories_

    def _design(self, codes):
        """One-hot (N, T) sparse matrix; a missing attribute contributes no entry."""
        n_rows, n_attributes = codes.shape
        columns = codes + self._offsets()
        if codes.min(initial=0) >= 0:
            indptr = np.arange(0, n_rows * n_attributes + 1, n_attributes)
            columns = columns.ravel()
        else:
            present = codes >= 0
            indptr = np.concatenate(([0], np.cumsum(present.sum(axis=1))))
            columns = columns[present]
        return sp.csr_array((np.ones(columns.size), columns, indptr), shape=(n_rows, self._n_design_columns()))

    def _batch_counts(self, codes, class_index, weight):
        """N_kjs of one batch: by the compiled loop (``_kernels.add_value_counts``) once numba is loaded
        or the batch has ``COMPILED_MIN_VALUES`` values; else with unit weights and at least
        ``JOINT_MIN_VALUES`` values, by counting joint cells (``_unit_counts``); otherwise as one weighted count of (class,
        cell) keys, a block of rows at a time: the same numbers as the one-hot design's product
        without its N × F entries, and the block's temporaries stay in cache (fresh full-size
        arrays cost more in page faults than the counting). The keys are the cells of the
        attributes' value-and-missing layout (``PairLayout``) shifted by one, so that code −1 of
        attribute j lands, with no mask, in the missing cell before it (of attribute j − 1, or
        for j = 0 the slot before the class's cells), and only the value cells are read off. Unit
        weights are counted unweighted (no weight to repeat per key).
        """
        layout = self._value_layout()
        if COMPILED_LOOPS and (
            jit.loaded() or codes.size >= COMPILED_MIN_VALUES
        ):  # each cell's weights in row order (per block from THREAD_MIN_ROWS rows); unit weights: exact integers
            value_counts = jit.kernels("pgm_models.naive_bayes._kernels").value_counts
            shape = (len(self.classes_), len(layout.value_cells))
            return value_counts(jit.kernel_codes(codes), layout.value_starts, class_index, weight, shape)
        unit = is_unit_weight(weight)
        if codes.size >= JOINT_MIN_VALUES and unit:
            return self._unit_counts(codes, class_index)
        n_classes = len(self.classes_)
        n_slots = n_classes * layout.n_cells + 1
        starts = layout.starts[:, None]
        counts = np.zeros(n_slots)
        n_attributes, rows = codes.shape[1], max(1, (1 << 16) // codes.shape[1])
        for start in range(0, len(codes), rows):
            # keys made attribute by attribute, (F, rows), each a contiguous row: the codes are
            # stacked so (``_stacked``), and the class term adds along rows, not down columns
            keys = codes[start : start + rows].T + starts
            keys += class_index[start : start + rows] * layout.n_cells + 1
            if unit:
                counts += np.bincount(keys.ravel(), minlength=n_slots)
            else:  # each key's weights are added in row order, as in a row-major ravel
                counts += np.bincount(keys.ravel(), np.tile(weight[start : start + rows], n_attributes), n_slots)
        return counts[1:].reshape(n_classes, layout.n_cells)[:, layout.value_cells]

    def _unit_counts(self, codes, class_index):
        """N_kjs of rows of weight 1 from the joint cells of a group of attributes: each row's
        (class, x_a, .., x_b) is one mixed-radix key (a missing value is a cell of its own), the
        keys of a group are counted by one ``np.bincount`` of N keys (not N × F cells), and each
        attribute's counts are the margins of its group's table. Groups are runs of attributes
        whose table has at most ``JOINT_CELLS`` cells (a single attribute may have more). The
        keys are made a slice of rows at a time in one buffer that stays in cache, reading the
        codes in their own dtype (int8 for small domains). Integer counts: exact.
        """
        n_classes, radix = len(self.classes_), self.n_categories_ + 1
        groups = _attribute_runs(n_classes, radix, JOINT_CELLS)
        tables = [np.zeros(n_classes * int(np.prod(radix[g])), dtype=np.int64) for g in groups]
        shifts = [_missing_shift(radix[g]) for g in groups]  # code −1 (missing) is digit 0
        key = np.empty(min(len(codes), KEY_ROWS), dtype=np.intp)
        for start in range(0, len(codes), KEY_ROWS):
            block = codes[start : start + KEY_ROWS]
            keys = key[: len(block)]
            for group, table, shift in zip(groups, tables, shifts):
                np.copyto(keys, class_index[start : start + KEY_ROWS], casting="unsafe")
                for j in group:
                    keys *= radix[j]
                    np.add(keys, block[:, j], out=keys, casting="unsafe")
                keys += shift
                table += np.bincount(keys, minlength=table.size)
        margins = []
        for group, table in zip(groups, tables):
            table = table.reshape(n_classes, *radix[group])
            for axis in range(1, len(group) + 1):
                others = tuple(a for a in range(1, len(group) + 1) if a != axis)
                margins.append(table.sum(axis=others)[:, 1:])  # the missing digit dropped
        return np.concatenate(margins, axis=1).astype(float)

    def _prior_concentration(self, alpha):
        cells = np.repeat(np.broadcast_to(alpha, (self.n_features_in_,)), self.n_categories_)
        return np.broadcast_to(cells, (len(self.classes_), cells.size))

    # ------------------------------------------------------------------ scoring
    def _joint_log_likelihood(self, codes, estimate):
        """The template's log p(y = k) + Σ_j log θ̂[k, x_j]; under the posterior mean with the compiled
        loops, the class and attribute tables are read off the posterior concentrations in one pass
        (``_kernels.mean_tables``, ``Dirichlet.mean``'s sums in its order), logged by one NumPy call,
        and the class prior's log is added after each row's attribute terms: the template's
        numbers to the bit, without its two posteriors, two normalisations and three more logs and sums
        (BENCHMARKS.md, "Compiled kernels for small folds").
        """
        if (
            not (COMPILED_LOOPS and isinstance(estimate, str) and estimate in ("mean", "predictive") and jit.loaded())
            or self.class_prior is not None
        ):  # the kernel reads the class posterior's tables
            return super()._joint_log_likelihood(codes, estimate)
        kernels = jit.kernels("pgm_models.naive_bayes._kernels")
        layout = self._value_layout()
        tables, valid = kernels.mean_tables(
            self._class_prior.concentration + self.class_count_,
            self._feature_prior.concentration + self._feature_counts(),
            layout.value_starts,
            layout.sizes,
        )
        if not valid:  # a concentration the posterior refuses (the template's path names it), or very long sums
            return super()._joint_log_likelihood(codes, estimate)
        return kernels.log_sums(
            log_probabilities(tables), np.asarray(codes, dtype=np.intp), layout.value_starts, tables.shape[1] - 1
        )

    def _feature_log_likelihood(self, codes, estimate):
        """Σ_j log θ̂[k, x_j], a missing x_j skipped: the one-hot design's log-linear score, for a
        few rows by looking their cells up (the same numbers; ``pgm_models.discrete.one_hot``).
        """
        if COMPILED_LOOPS and jit.loaded():
            log_sums = jit.kernels("pgm_models.naive_bayes._kernels").log_sums
            offsets = self._value_layout().value_starts
            return log_sums(self._feature_log_prob(estimate), np.asarray(codes, dtype=np.intp), offsets, -1)
        if codes.size * len(self.classes_) <= LOOKUP_VALUES:
            return one_hot_log_sums(self._feature_log_prob(estimate), codes, self._offsets())
        return log_linear(self._design(codes), self._feature_log_prob(estimate))

    # ------------------------------------------------------------------ posterior and PyMC
    def _blocks(self):
        """(name, slice of the flat layout) of each attribute."""
        offsets = self._offsets()
        return [(name, slice(o, o + s)) for name, o, s in zip(self._feature_names(), offsets, self.n_categories_)]

    def _coords(self):
        coords = {"class": self.classes_}
        for (name, _), categories in zip(self._blocks(), self.categories_):
            coords[f"{name}_value"] = np.asarray(categories)
        return coords

    def _feature_posterior(self):
        concentration = self.feature_concentration_
        return {
            f"feature_prob_{name}": (Dirichlet(concentration[:, block]), ("class", f"{name}_value"))
            for name, block in self._blocks()
        }

    def _stacked_blocks(self):
        return ["class_prob", *(f"feature_prob_{name}" for name, _ in self._blocks())]

    def _priors(self):
        """π ~ Dirichlet(class_alpha) and θ_jk ~ Dirichlet(alpha_j) for each attribute, stacked by
        their numbers of values (``pgm_models.conjugate.blocks``).
        """
        prior = self._feature_prior.concentration
        return DirichletBlocks(
            [
                class_block(self),
                *(
                    (f"feature_prob_{name}", prior[:, block], ("class", f"{name}_value"))
                    for name, block in self._blocks()
                ),
            ]
        )

    def _counts_model(self, model):
        """N_k ~ Multinomial(N, π); (N_kjs)_s ~ Multinomial(N_kj, θ_jk) for each class and attribute."""
        counts = integer_counts(self.feature_count_, "attribute counts")
        self._priors().observe(
            {
                "class_prob": integer_counts(self.class_count_, "class counts"),
                **{f"feature_prob_{name}": counts[:, block] for name, block in self._blocks()},
            }
        )

    def _rows_model(self, model, codes, class_index):
        """y_i ~ Categorical(π); x_ij ~ Categorical(θ_j[y_i]) for every observed x_ij."""
        import pymc as pm

        prob = self._priors().prob
        model.add_coord("row", np.arange(len(class_index)))
        y = pm.Categorical("y", p=prob["class_prob"], observed=class_index, dims="row")
        for (name, _), column in zip(self._blocks(), codes.T):
            rows = np.flatnonzero(column >= 0)
            model.add_coord(f"{name}_row", rows)
            pm.Categorical(
                f"x_{name}", p=prob[f"feature_prob_{name}"][y[rows]], observed=column[rows], dims=f"{name}_row"
            )
