"""Multinomial naive Bayes: word counts over a vocabulary of V words.

Model: π ~ Dirichlet(class_alpha), θ_k ~ Dirichlet(alpha · 1_V) over the vocabulary,
y_d ~ Categorical(π), x_d | y_d = k ~ Multinomial(n_d, θ_k) for a document of n_d words.
With N_kv the count of word v in the documents of class k:

    θ_k | D ~ Dirichlet(alpha + N_k·),  posterior mean (N_kv + α)/(N_k + Vα).

A document is scored as an ordered sequence (the multinomial coefficient is the same for every
class and is left out). The exact posterior predictive of a document is the Dirichlet–multinomial

    p(x_d | y = k, D) = Γ(A_k)/Γ(A_k + n_d) Π_v Γ(a_kv + x_dv)/Γ(a_kv),   a_k = alpha + N_k·,

a Pólya urn: each word drawn raises its own count and the total, so a repeated word is more
likely than under the posterior-mean plug-in Π_v (a_kv/A_k)^{x_dv}; the two agree only for a
one-word document. estimate="predictive" uses it.
X may be a scipy sparse matrix (e.g. from a CountVectorizer in a Pipeline).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pgm_models._utils.validation import check_numeric_matrix
from pgm_models.conjugate import Dirichlet
from pgm_models.base import integer_counts
from pgm_models.naive_bayes._discrete import DiscreteNB, log_linear


class MultinomialNB(DiscreteNB):
    """Naive Bayes on count vectors with a Dirichlet(alpha) prior on each class's word distribution.

    Parameters
    ----------
    alpha : float or array of one per word, ≥ 0
    class_alpha : float or array of one per class, ≥ 0
    estimate : {"mean", "map", "mle", "predictive"} (see CategoricalNB; "predictive" is the
        Dirichlet–multinomial above, which differs from "mean" for documents of several words)
    class_prior : array of one probability per class (in the order of ``classes_``), optional
        A prevalence-shift correction: predictions use these class probabilities in place of the
        class-probability posterior, under every estimate (``set_class_prior`` changes them on a
        fitted model, without refitting). None (default): the posterior. ``loo`` ignores it.

    Attributes
    ----------
    feature_count_ : (K, V) N_kv
    feature_concentration_ : (K, V) alpha + N_kv
    """

    def __init__(self, alpha=1.0, class_alpha=1.0, estimate="mean", class_prior=None):
        self.alpha = alpha
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.class_prior = class_prior

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        return tags

    def _encode(self, X, reset, training):
        X = self._check_feature_names(X, reset)
        return check_numeric_matrix(X, getattr(self, "feature_names_in_", None), nonnegative=True, what="MultinomialNB")

    def _prior_concentration(self, alpha):
        return np.broadcast_to(alpha, (len(self.classes_), self.n_features_in_))

    def _feature_log_likelihood(self, X, estimate):
        if estimate == "predictive":
            return Dirichlet(self.feature_concentration_).log_predictive_rows(X)
        return log_linear(X, self._feature_log_prob(estimate))

    def _coords(self):
        names = getattr(self, "feature_names_in_", None)
        words = np.asarray(names) if names is not None else np.arange(self.n_features_in_)
        return {"class": self.classes_, "feature": words}

    def _feature_posterior(self):
        return {"feature_prob": (Dirichlet(self.feature_concentration_), ("class", "feature"))}

    def _feature_prior_variable(self):
        """θ_k ~ Dirichlet(alpha) over the vocabulary."""
        import pymc as pm

        return pm.Dirichlet("feature_prob", a=self._feature_prior.concentration, dims=("class", "feature"))

    def _counts_model(self, model):
        """N_k ~ Multinomial(N, π); (N_kv)_v ~ Multinomial(Σ_v N_kv, θ_k)."""
        import pymc as pm

        self._class_model(model, observe_counts=True)
        feature_prob = self._feature_prior_variable()
        counts = integer_counts(self.feature_count_, "word counts")
        pm.Multinomial("feature_count", n=counts.sum(axis=1), p=feature_prob, observed=counts, dims=("class", "feature"))

    def _rows_model(self, model, X, class_index):
        """y_d ~ Categorical(π); x_d ~ Multinomial(n_d, θ[y_d])."""
        import pymc as pm

        class_prob = self._class_model(model, observe_counts=False)
        feature_prob = self._feature_prior_variable()
        dense = integer_counts(X.toarray() if sp.issparse(X) else np.asarray(X), "word counts")
        model.add_coord("row", np.arange(len(class_index)))
        y = pm.Categorical("y", p=class_prob, observed=class_index, dims="row")
        pm.Multinomial("x", n=dense.sum(axis=1), p=feature_prob[y], observed=dense, dims=("row", "feature"))
