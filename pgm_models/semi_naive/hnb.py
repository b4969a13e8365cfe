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
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy

from pgm_models.conjugate import log_probabilities
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

    _closed_form = False  # a mixture of tables: see the tables' own Dirichlet posteriors
    _pymc_model = False

    def __init__(self, estimator="m-estimate", m=1.0, alpha=1.0, estimate="mean", n_categories=None, handle_unknown="missing"):
        self.estimator = estimator
        self.m = m
        self.alpha = alpha
        self.estimate = estimate
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown

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
        class_prob = self._class_prior.estimate(self.class_count_, estimate)
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

    def _loo_block(self, codes, class_index):
        raise NotImplementedError("HNB has no exact leave-one-out: without a row its conditional mutual information weights change "
                                  "(refit without each row, or use AODE, WAODE or AODEsr, whose loo is exact)")
