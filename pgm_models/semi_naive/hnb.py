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

import numpy as np
from scipy.special import xlogy

from pgm_models.base import integer_counts
from pgm_models.conjugate import Dirichlet, log_probabilities
from pgm_models.conjugate.blocks import DirichletBlocks, class_block
from pgm_models.semi_naive._base import SemiNaiveBayes


class HNB(SemiNaiveBayes):
    """Hidden naive Bayes.

    Parameters
    ----------
    estimator : "m-estimate" (Weka's, with m = 1) or "laplace".
    m : the m-estimate's weight (Weka: 1).
    alpha : Laplace pseudo-count per cell, for ``estimator="laplace"``.
    estimate : {"mean", "map", "mle", "predictive"} for the tables.
    n_categories, handle_unknown : as for CategoricalNB.
    class_prior : array-like of shape (n_classes,), default=None
        A prevalence-shift correction: predictions use these class probabilities (in the order of
        ``classes_``) in place of the class-probability posterior, under every estimate;
        ``set_class_prior`` changes them on a fitted model without refitting. None: the posterior.

    Attributes
    ----------
    pair_count_ (K, T', T'), categories_, n_categories_, class_count_ : as for :class:`AODE`.

    Notes
    -----
    For attributes j ≠ p and n_kuv = N(y = k, x_p = u, x_j = v) on the N_jp rows observing both,

        I(X_j; X_p | Y) = Σ_kuv n_kuv / N_jp · log(n_kuv n_k / (n_ku n_kv)),

    n_k, n_ku, n_kv the margins of that table. The m-estimates are P(y) = (n_k + m/K)/(N + m),
    P(x_j = v | y, x_p = u) = (n_kuv + m/r_j)/(n_ku + m) and P(x_j = v | y) = (n_kv + m/r_j)/(n_k + m)
    (counts on available cases).

    References
    ----------
    H. Zhang, L. Jiang and J. Su (2005). Hidden naive Bayes. AAAI 2005, 919–924.

    Examples
    --------
    >>> from pgm_models import HNB, load_dataset
    >>> X, y = load_dataset("weather.nominal")
    >>> model = HNB().fit(X, y)
    >>> model.conditional_mutual_information().round(3)
    array([[0.   , 0.291, 0.154, 0.216],
           [0.291, 0.   , 0.291, 0.117],
           [0.154, 0.291, 0.   , 0.042],
           [0.216, 0.117, 0.042, 0.   ]])
    >>> model.predict_proba(X[:1]).round(4)
    array([[0.9356, 0.0644]])
    """

    def __init__(self, estimator="m-estimate", m=1.0, alpha=1.0, estimate="mean", n_categories=None, handle_unknown="missing", class_prior=None):
        self.estimator = estimator
        self.m = m
        self.alpha = alpha
        self.estimate = estimate
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown
        self.class_prior = class_prior

    def conditional_mutual_information(self):
        """I(X_j; X_p | Y) in nats for every pair of attributes (F, F), 0 on the diagonal, each on
        the rows that observe both."""
        layout = self._layout
        values = self._value_counts(self.pair_count_, layout)  # (K, T, T): n(k, u, v)
        starts = layout.value_starts
        by_parent_value = np.add.reduceat(values, starts, axis=2)  # (K, T, F): n(k, u) in the (p, j) table
        by_child_value = np.add.reduceat(values, starts, axis=1)  # (K, F, T): n(k, v)
        by_class = np.add.reduceat(by_parent_value, starts, axis=1)  # (K, F, F): n(k)
        attribute = layout.attribute_of_value_cell
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = (values * by_class[:, attribute][:, :, attribute]
                     / (by_parent_value[:, :, attribute] * by_child_value[:, attribute, :]))
        terms = xlogy(values, np.where(values > 0, ratio, 1.0)).sum(axis=0)  # (T, T)
        information = np.add.reduceat(np.add.reduceat(terms, starts, axis=0), starts, axis=1)
        total = by_class.sum(axis=0)
        with np.errstate(invalid="ignore"):
            information = np.where(total > 0, np.maximum(information / total, 0.0), 0.0)
        np.fill_diagonal(information, 0.0)  # an attribute is not its own parent
        return information

    def _floats_per_row(self):
        """Per row: every class's F × F gathered table entries, weights and their products."""
        n_features = self.n_features_in_
        return 3 * len(self.classes_) * n_features * n_features + 4 * n_features

    def _joint_log_likelihood(self, codes, estimate):
        layout = self._layout
        n_values = len(layout.value_cells)
        child = self._child_prior().estimate(self._value_counts(self.pair_count_, layout), estimate)  # (K, T, T) P(v | k, u)
        naive_bayes = self._naive_bayes_prior().estimate(self._diagonal_counts(), estimate)  # (K, T) P(v | k)
        class_prob = self._class_probabilities(estimate)
        cells = self._value_index(codes)  # (N, F), T where missing
        observed = cells < n_values
        padded = np.pad(child, ((0, 0), (0, 1), (0, 1)))
        # [k, n, p, j] = P(x_j | y = k, x_p): parent p's value against child j's
        gathered = padded[:, cells[:, :, None], cells[:, None, :]]
        weights = self.conditional_mutual_information().T[None, :, :] * observed[:, :, None]  # (N, p, j): W_jp for observed p
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
        every naive Bayes table."""
        names = self._feature_names()
        pairs = [(j, p, f"feature_prob_{names[j]}_given_{names[p]}") for j in range(self.n_features_in_)
                 for p in range(self.n_features_in_) if p != j]
        return pairs + [(j, None, f"feature_prob_{names[j]}") for j in range(self.n_features_in_)]

    def _block(self, j, p):
        """(counts, concentration, dims) of P(x_j | y, x_p) ((K, r_p, r_j); p None: P(x_j | y),
        (K, r_j)), on the available cases."""
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
        (``pgm_models.conjugate.blocks``)."""
        return DirichletBlocks([class_block(self), *((name, *self._block(j, p)[1:]) for j, p, name in self._pairs())])

    def _check_proper_prior(self):
        if np.min(self._per_cell(1)) <= 0:
            raise ValueError(f"the PyMC model needs a proper prior: {'alpha' if self.estimator == 'laplace' else 'm'} > 0")

    def _counts_model(self, model):
        """N_k ~ Multinomial(N, π); each table's counts given (class, parent value) ~ Multinomial."""
        counts = {name: integer_counts(self._block(j, p)[0], "counts") for j, p, name in self._pairs()}
        self._priors().observe({"class_prob": integer_counts(self.class_count_, "class counts"), **counts})

    def _rows_model(self, model, codes, class_index):
        """y_i ~ Categorical(π); x_ij ~ Categorical(φ_{j|p}[y_i, x_ip]) for every other attribute p,
        and ~ Categorical(φ_j[y_i]), on the rows observing the attributes involved."""
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
        raise NotImplementedError("HNB has no exact leave-one-out: without a row its conditional mutual information weights change "
                                  "(refit without each row, or use AODE, WAODE or AODEsr, whose loo is exact)")
