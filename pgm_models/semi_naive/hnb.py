"""HNB: hidden naive Bayes (Zhang, Jiang & Su 2005), as in Weka 3.6.

Each attribute x_j has a hidden parent h_j that mixes the one-dependence estimates given every
other attribute, weighted by their conditional mutual information given the class:

    p(y, x) ∝ P(y) Π_j P(x_j | y, h_j),
    P(x_j | y, h_j) = Σ_{p≠j} W_jp P(x_j | y, x_p) / Σ_{p≠j} W_jp,   W_jp = I(X_j; X_p | Y),

with I the empirical conditional mutual information (relative frequencies, whatever
``estimate`` the tables use) and, where Σ_p W_jp = 0, naive Bayes' P(x_j | y). The tables are
the SPODEs' Dirichlet blocks read off the pair tensor (``pgm_models.semi_naive._base``):
P(x_j | y, x_p) ~ Dirichlet over r_j values per (class, x_p), P(x_j | y) per class, P(y); Weka's
are their posterior means under the m-estimate with m = 1, so ``HNB()`` reproduces
``weka.classifiers.bayes.HNB``. Every parameter enters p(y, x) once and linearly, so the exact
posterior predictive ("predictive") equals the posterior-mean plug-in.

Missing values, which Weka's HNB refuses: a missing child is skipped; a missing parent leaves
the mixture (the weights renormalised over the observed others, naive Bayes where none of
positive weight is left); every count — tables and conditional mutual informations — is on the
available cases (rows observing the attributes involved).

PyMC: the counts form observes the class counts ~ Multinomial(N, π) and, for every ordered pair
of attributes (p, j), the counts N(y, x_p = u, x_j = ·) ~ Multinomial(φ_{j|p}[y, u]) and N(y, x_j = ·)
~ Multinomial(φ_j[y]): the Dirichlet blocks whose posterior means HNB mixes (``feature_prob_{j}_given_{p}``
and ``feature_prob_{j}``); the rows form observes each row once per table it fills. It is the
posterior of the tables, each conjugate to its own counts; the conditional mutual information
weights are fixed statistics of the counts, and the mixture p(y, x) above is not itself a
normalised likelihood (each attribute's hidden parent is drawn among the others).
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
from scipy.special import xlogy

from pgm_models._utils import jit
from pgm_models.base import integer_counts
from pgm_models.conjugate import Dirichlet, PosteriorDraw, log_probabilities
from pgm_models.conjugate.blocks import DirichletBlocks, class_block
from pgm_models.semi_naive._base import _OPERANDS_OF_CALL, SemiNaiveBayes
from pgm_models.semi_naive._small import SmallFolds

# Score with the compiled loop of ``_hnb_kernel`` (numba) once numba is loaded in the process
# (``jit.loaded``: a lone fit does not pay its import). False: always the NumPy path.
COMPILED_SCORING = True


class HNB(SmallFolds, SemiNaiveBayes):
    r"""Hidden naive Bayes.

    Each attribute x_j gets a hidden parent that mixes the one-dependence estimates
    P(x_j | y, x_p) given every other attribute p, weighted by the conditional mutual information
    I(X_j; X_p | Y), so that every attribute depends on all the others without a structure search.
    ``HNB()`` reproduces Weka 3.6's ``weka.classifiers.bayes.HNB``; unlike Weka's it accepts
    missing values.

    Parameters
    ----------
    estimator : {"m-estimate", "laplace"}, default="m-estimate"
        The m-estimate (Weka's, with m = 1) or Laplace's estimate.
    m : float, default=1.0
        The m-estimate's weight in pseudo-rows (Weka: 1).
    alpha : float or "evidence", default=1.0
        The Laplace pseudo-count of every cell, for ``estimator="laplace"``; "evidence": learned by
        maximising the marginal likelihood of the one-dependence tables (:meth:`log_evidence`,
        ``alpha_``).
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters of the tables ("predictive" equals "mean": each parameter enters p(y, x)
        once and linearly). The weights always use the relative frequencies.
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
    pair_count_ : ndarray of shape (n_classes, T', T')
        The pair-count tensor: C[k, s, t], the (weighted) rows of class k with the value or missing
        cells s and t of two attributes (T' = Σ_j (r_j + 1)); its diagonal holds the single counts.
        Every table P(x_j | y, x_p), P(x_j | y) and every weight I(X_j; X_p | Y) is read off it.
    n_features_in_ : int
        The number of attributes seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.
    alpha_ : float
        The learned α (only with ``alpha="evidence"``).

    See Also
    --------
    AODE : Averages whole one-parent models instead of mixing each attribute's parents.
    WAODE : Weights the one-parent models by mutual information with the class.
    TAN : One learned parent per attribute.
    KDB : Up to k learned parents per attribute.
    CategoricalNB : No parent attribute (HNB's fallback for an attribute without weight).

    Notes
    -----
    The model is

    .. math::

        p(y, x) \propto P(y) \prod_j \frac{\sum_{p \ne j} W_{jp} P(x_j \mid y, x_p)}{\sum_{p \ne j} W_{jp}},
        \qquad W_{jp} = I(X_j; X_p \mid Y),

    with naive Bayes' P(x_j | y) where Σ_p W_jp = 0. For attributes j ≠ p and
    n_kuv = N(y = k, x_p = u, x_j = v) on the N_jp rows observing both,

    .. math::

        I(X_j; X_p \mid Y) = \sum_{k,u,v} \frac{n_{kuv}}{N_{jp}} \log \frac{n_{kuv} n_k}{n_{ku} n_{kv}},

    n_k, n_ku, n_kv the margins of that table (nats). The m-estimates are
    P(y) = (n_k + m/K)/(N + m), P(x_j = v | y, x_p = u) = (n_kuv + m/r_j)/(n_ku + m) and
    P(x_j = v | y) = (n_kv + m/r_j)/(n_k + m), the Dirichlet posterior means of the tables, whose
    closed-form posterior and PyMC model (``feature_prob_{j}_given_{p}`` and ``feature_prob_{j}``)
    are each table's conjugate posterior; the weights are fixed statistics of the counts.

    Missing values: a missing child is skipped; a missing parent leaves the mixture (the weights
    renormalised over the observed others); every count is on the available cases. There is no
    exact leave-one-out (``loo`` raises NotImplementedError): without a row the weights change.

    References
    ----------
    .. [1] H. Zhang, L. Jiang and J. Su, "Hidden naive Bayes", *Proceedings of AAAI 2005*,
       919–924, 2005.

    Examples
    --------
    >>> from pgm_models import HNB, load_dataset
    >>> X, y = load_dataset("weather.nominal")
    >>> model = HNB().fit(X, y)
    >>> model.conditional_mutual_information().round(3)  # W_jp, outlook .. windy
    array([[0.   , 0.291, 0.154, 0.216],
           [0.291, 0.   , 0.291, 0.117],
           [0.154, 0.291, 0.   , 0.042],
           [0.216, 0.117, 0.042, 0.   ]])
    >>> model.pair_count_.shape  # 2 classes, (3 + 1) + (3 + 1) + (2 + 1) + (2 + 1) cells
    (2, 14, 14)
    >>> model.predict_proba(X[:1]).round(4)
    array([[0.9356, 0.0644]])
    """

    def __init__(
        self,
        estimator="m-estimate",
        m=1.0,
        alpha=1.0,
        estimate="mean",
        n_categories=None,
        handle_unknown="missing",
        class_prior=None,
    ):
        self.estimator = estimator
        self.m = m
        self.alpha = alpha
        self.estimate = estimate
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown
        self.class_prior = class_prior

    def conditional_mutual_information(self):
        """I(X_j; X_p | Y) in nats for every pair of attributes (F, F), 0 on the diagonal, each on
        the rows that observe both.
        """
        layout = self._layout
        values = self._value_counts(self.pair_count_, layout)  # (K, T, T): n(k, u, v)
        if self._compiled_scoring():  # one pass over the counts, not some twenty NumPy calls (a small fold's cost)
            kernels = jit.kernels("pgm_models.semi_naive._hnb_kernel")
            return kernels.conditional_mutual_information(values, layout.value_starts, layout.sizes)
        starts = layout.value_starts
        by_parent_value = np.add.reduceat(values, starts, axis=2)  # (K, T, F): n(k, u) in the (p, j) table
        by_child_value = np.add.reduceat(values, starts, axis=1)  # (K, F, T): n(k, v)
        by_class = np.add.reduceat(by_parent_value, starts, axis=1)  # (K, F, F): n(k)
        attribute = layout.attribute_of_value_cell
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = (
                values
                * by_class[:, attribute][:, :, attribute]
                / (by_parent_value[:, :, attribute] * by_child_value[:, attribute, :])
            )
        terms = xlogy(values, np.where(values > 0, ratio, 1.0)).sum(axis=0)  # (T, T)
        information = np.add.reduceat(np.add.reduceat(terms, starts, axis=0), starts, axis=1)
        total = by_class.sum(axis=0)
        with np.errstate(invalid="ignore"):
            information = np.where(total > 0, np.maximum(information / total, 0.0), 0.0)
        np.fill_diagonal(information, 0.0)  # an attribute is not its own parent
        return information

    def _floats_per_row(self):
        """Per row: the compiled loop's K scores and F cells, or NumPy's every class's F × F gathered
        table entries, weights and their products.
        """
        n_features = self.n_features_in_
        if self._compiled_scoring():
            return len(self.classes_) + n_features
        return 3 * len(self.classes_) * n_features * n_features + 4 * n_features

    def _hnb_tables(self, estimate):
        """(P(x_j = v | y, x_p = u) (K, T, T), P(x_j = v | y) (K, T), P(y) (K,), W (F, F)), made once per
        prediction call (``_OPERANDS_OF_CALL``, as AODE's operands; a PosteriorDraw, whose rows form
        one block, draws each parameter once).
        """
        model, cache = _OPERANDS_OF_CALL.get()
        shared = model is self and not isinstance(estimate, PosteriorDraw)
        if shared and ("hnb", estimate) in cache:
            return cache["hnb", estimate]
        tables = (
            self._child_prior().estimate(self._value_counts(self.pair_count_, self._layout), estimate),
            self._naive_bayes_prior().estimate(self._diagonal_counts(), estimate),
            self._class_probabilities(estimate),
            self.conditional_mutual_information(),
        )
        if shared:
            cache["hnb", estimate] = tables
        return tables

    @staticmethod
    def _compiled_scoring() -> bool:
        """Whether the rows are scored by ``_hnb_kernel``: ``COMPILED_SCORING`` is on and numba is loaded."""
        return COMPILED_SCORING and jit.loaded()

    def _scoring_threads(self, estimate):
        if self._compiled_scoring():
            return nullcontext()  # the compiled loop calls no BLAS (setting its threads is a cost for nothing)
        return super()._scoring_threads(estimate)

    def _scored_from_counts(self, estimate) -> bool:
        """Whether the rows are scored by ``_hnb_kernel.hnb_scores_from_counts`` (tables, weights and
        scores in one call): the compiled scoring, the posterior mean (a name, not a PosteriorDraw) and
        every concentration > 0 (no empty block).
        """
        if not (self._compiled_scoring() and isinstance(estimate, str) and estimate in ("mean", "predictive")):
            return False
        per_cell = self._per_cell(1)
        return per_cell > 0 if type(per_cell) in (float, int) else bool(np.min(per_cell) > 0)

    def _joint_log_likelihood(self, codes, estimate):
        if self._scored_from_counts(estimate):
            layout = self._layout
            alpha = self._per_value_cell(layout.sizes).astype(float, copy=False)  # child and naive Bayes tables alike
            with np.errstate(divide="ignore"):  # a class of probability 0 (a class_prior's) scores −inf
                log_class = np.log(self._class_probabilities(estimate))
            return jit.kernels("pgm_models.semi_naive._hnb_kernel").hnb_scores_from_counts(
                self.pair_count_,
                layout.value_cells,
                layout.value_starts,
                layout.sizes,
                alpha,
                alpha,
                log_class,
                np.asarray(codes, dtype=np.intp),
            )
        child, naive_bayes, class_prob, information = self._hnb_tables(estimate)
        cells = self._value_index(codes)  # (N, F), T where missing
        if self._compiled_scoring():
            with np.errstate(divide="ignore"):
                log_class = np.log(class_prob)
            return jit.kernels("pgm_models.semi_naive._hnb_kernel").hnb_log_scores(
                np.ascontiguousarray(child, dtype=float),
                np.ascontiguousarray(naive_bayes, dtype=float),
                np.ascontiguousarray(log_class, dtype=float),
                np.ascontiguousarray(information),
                np.asarray(cells, dtype=np.intp),
            )
        observed = cells < len(self._layout.value_cells)
        padded = np.pad(child, ((0, 0), (0, 1), (0, 1)))
        # [k, n, p, j] = P(x_j | y = k, x_p): parent p's value against child j's
        gathered = padded[:, cells[:, :, None], cells[:, None, :]]
        weights = information.T[None, :, :] * observed[:, :, None]  # (N, p, j): W_jp for observed p
        total = weights.sum(axis=1)  # (N, j)
        with np.errstate(invalid="ignore", divide="ignore"):
            mixed = np.einsum("knpj,npj->knj", gathered, weights) / total[None]
        fallback = np.pad(naive_bayes, ((0, 0), (0, 1)))[:, cells]  # (K, N, F)
        per_child = np.where(total[None] > 0, mixed, fallback)
        with np.errstate(divide="ignore"):
            log_child = np.where(observed[None], np.log(per_child), 0.0)  # a missing child adds nothing
        return log_probabilities(class_prob)[None, :] + log_child.sum(axis=2).T

    # ------------------------------------------------------------------ posterior and PyMC
    def _pairs(self):
        """(child j, parent p, table name) of every one-dependence table, then (j, None, name) of
        every naive Bayes table.
        """
        names = self._feature_names()
        pairs = [
            (j, p, f"feature_prob_{names[j]}_given_{names[p]}")
            for j in range(self.n_features_in_)
            for p in range(self.n_features_in_)
            if p != j
        ]
        return pairs + [(j, None, f"feature_prob_{names[j]}") for j in range(self.n_features_in_)]

    def _block(self, j, p):
        """(counts, concentration, dims) of P(x_j | y, x_p) ((K, r_p, r_j); p None: P(x_j | y),
        (K, r_j)), on the available cases.
        """
        layout, names = self._layout, self._feature_names()
        child = slice(layout.value_starts[j], layout.value_starts[j] + layout.sizes[j])
        if p is None:
            counts, dims = self._diagonal_counts()[:, child], ("class", f"{names[j]}_value")
        else:
            parent = slice(layout.value_starts[p], layout.value_starts[p] + layout.sizes[p])
            counts = self._value_counts(self.pair_count_, layout)[:, parent, child]
            dims = ("class", f"{names[p]}_value", f"{names[j]}_value")
        return counts, np.full(counts.shape, self._attribute_alpha(layout.sizes)[j]), dims

    def _coords(self):
        coords = {"class": self.classes_}
        for j, name in enumerate(self._feature_names()):
            coords[f"{name}_value"] = np.asarray(self.categories_[j])
        return coords

    def _feature_posterior(self):
        parameters = {}
        for j, p, name in self._pairs():
            counts, concentration, dims = self._block(j, p)
            parameters[name] = (Dirichlet(concentration).posterior(counts), dims)
        return parameters

    def _stacked_blocks(self):
        return ["class_prob", *(name for _, _, name in self._pairs())]

    def _priors(self):
        """π ~ Dirichlet and every table's Dirichlet blocks, stacked by their numbers of values
        (``pgm_models.conjugate.blocks``).
        """
        return DirichletBlocks([class_block(self), *((name, *self._block(j, p)[1:]) for j, p, name in self._pairs())])

    def _check_proper_prior(self):
        if np.min(self._per_cell(1)) <= 0:
            raise ValueError(
                f"the PyMC model needs a proper prior: {'alpha' if self.estimator == 'laplace' else 'm'} > 0"
            )

    def _counts_model(self, model):
        """N_k ~ Multinomial(N, π); each table's counts given (class, parent value) ~ Multinomial."""
        counts = {name: integer_counts(self._block(j, p)[0], "counts") for j, p, name in self._pairs()}
        self._priors().observe({"class_prob": integer_counts(self.class_count_, "class counts"), **counts})

    def _rows_model(self, model, codes, class_index):
        """y_i ~ Categorical(π); x_ij ~ Categorical(φ_{j|p}[y_i, x_ip]) for every other attribute p,
        and ~ Categorical(φ_j[y_i]), on the rows observing the attributes involved.
        """
        import pymc as pm

        prob = self._priors().prob
        model.add_coord("row", np.arange(len(class_index)))
        y = pm.Categorical("y", p=prob["class_prob"], observed=class_index, dims="row")
        for j, p, name in self._pairs():
            rows = np.flatnonzero((codes[:, j] >= 0) & ((codes[:, p] >= 0) if p is not None else True))
            row_dim = f"{name.removeprefix('feature_prob_')}_row"
            model.add_coord(row_dim, rows)
            table = prob[name][y[rows]] if p is None else prob[name][y[rows], codes[rows, p]]
            pm.Categorical(f"x_{name.removeprefix('feature_prob_')}", p=table, observed=codes[rows, j], dims=row_dim)

    def _loo_block(self, codes, class_index):
        raise NotImplementedError(
            "HNB has no exact leave-one-out: without a row its conditional mutual information weights change "
            "(refit without each row, or use AODE, WAODE or AODEsr, whose loo is exact)"
        )
