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

from pgm_models._utils import jit
from pgm_models._utils.scores import add_per_class
from pgm_models._utils.validation import as_array_like, check_fitted, check_numeric_matrix
from pgm_models.base import integer_counts
from pgm_models.conjugate import Dirichlet, log_probabilities
from pgm_models.naive_bayes._discrete import DiscreteNB, is_csr, log_linear

# Sparse rows are scored against the K − 1 weight differences one at a time up to this many: a sparse
# product with one vector takes less than its share of one with two or three, not of one with many
DIFFERENCE_PRODUCTS = 3


class MultinomialNB(DiscreteNB):
    r"""Naive Bayes on count vectors with a Dirichlet(alpha) prior on each class's word distribution.

    Each row is a document of word counts over a vocabulary of V words (e.g. the output of a
    ``CountVectorizer`` in a Pipeline; sparse X stays sparse). Absent words are not evidence.

    Parameters
    ----------
    alpha : float, array-like of shape (n_features,), "evidence" or "evidence-per-attribute", default=1.0
        Dirichlet concentration of each word's cell (≥ 0), one number or one per word;
        "evidence" and "evidence-per-attribute" learn it by maximising the marginal likelihood
        (``alpha_``).
    class_alpha : float, array-like of shape (n_classes,) or "evidence", default=1.0
        Dirichlet concentration of the class probabilities (≥ 0).
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters predictions plug in (see Notes; "predictive" is the Dirichlet–multinomial,
        which differs from "mean" for documents of several words).
    class_prior : array-like of shape (n_classes,), default=None
        A prevalence-shift correction: predictions use these class probabilities (in the order of
        ``classes_``) in place of the class-probability posterior, under every estimate;
        ``set_class_prior`` changes them on a fitted model without refitting. None: the posterior.
        ``loo`` ignores it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        N_k, the (weighted) number of documents of each class.
    class_concentration_ : ndarray of shape (n_classes,)
        The posterior Dirichlet concentration of the class probabilities, class_alpha + N_k.
    feature_count_ : ndarray of shape (n_classes, n_features)
        N_kv, the (weighted) count of word v in the documents of class k.
    feature_concentration_ : ndarray of shape (n_classes, n_features)
        The posterior Dirichlet concentrations alpha + N_kv.
    n_features_in_ : int
        The vocabulary size V seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.
    alpha_ : float or ndarray of shape (n_features,)
        The learned ``alpha`` (only with ``alpha="evidence"`` or ``"evidence-per-attribute"``).
    class_alpha_ : float
        The learned ``class_alpha`` (only with ``class_alpha="evidence"``).

    See Also
    --------
    BernoulliNB : Presence and absence of each word.
    CategoricalNB : Categorical attributes.
    HierarchicalNB : A hyperprior on ``alpha``, integrated out.

    Notes
    -----
    The generative model, for a document d of n_d words:

    .. math::

        \pi \sim \mathrm{Dirichlet}(\alpha_c \mathbf 1_K), \quad
        \theta_k \sim \mathrm{Dirichlet}(\alpha \mathbf 1_V), \quad
        y_d \sim \mathrm{Categorical}(\pi), \quad
        x_d \mid y_d = k \sim \mathrm{Multinomial}(n_d, \theta_k).

    With N_kv the count of word v in the documents of class k and N_k· = Σ_v N_kv, the
    posterior is θ_k | D ~ Dirichlet(α + N_kv); its mean is (N_kv + α) / (N_k· + Vα), its mode
    (N_kv + α − 1) / (N_k· + Vα − V), the MLE N_kv / N_k·. A document is scored as an ordered
    sequence (the multinomial coefficient is the same for every class and is left out). The exact
    posterior predictive (``"predictive"``) is the Dirichlet–multinomial

    .. math::

        p(x_d \mid y = k, D) = \frac{\Gamma(A_k)}{\Gamma(A_k + n_d)}
        \prod_v \frac{\Gamma(a_{kv} + x_{dv})}{\Gamma(a_{kv})}, \qquad
        a_{kv} = \alpha + N_{kv},\ A_k = \textstyle\sum_v a_{kv},

    a Pólya urn: a repeated word is more likely than under the posterior-mean plug-in
    Π_v (a_kv / A_k)^{x_dv}; the two agree only for a one-word document.

    References
    ----------
    .. [1] K. P. Murphy, *Machine Learning: A Probabilistic Perspective*, MIT Press, 2012,
       sections 3.4 (the Dirichlet–multinomial model) and 3.5 (naive Bayes classifiers).
    .. [2] A. McCallum and K. Nigam, "A comparison of event models for naive Bayes text
       classification", AAAI-98 Workshop on Learning for Text Categorization, 1998.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import MultinomialNB
    >>> X = np.array([[3, 0, 1], [2, 1, 0], [0, 2, 3], [1, 0, 4]])
    >>> y = np.array([0, 0, 1, 1])
    >>> model = MultinomialNB().fit(X, y)
    >>> model.feature_count_
    array([[5., 1., 1.],
           [1., 2., 7.]])
    >>> model.predict_proba(np.array([[2, 0, 0]])).round(3)
    array([[0.938, 0.062]])
    >>> model.predict_proba(np.array([[2, 0, 0]]), estimate="predictive").round(3)
    array([[0.921, 0.079]])
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
        return check_numeric_matrix(
            X, getattr(self, "feature_names_in_", None), nonnegative=True, what=type(self).__name__
        )

    def _prior_concentration(self, alpha):
        return np.broadcast_to(alpha, (len(self.classes_), self.n_features_in_))

    def _score_weights(self, estimate):
        """(K, V) weights w and (K,) class terms c of the plug-in scores X @ wᵀ + c (log p(x, y = k))."""
        return self._feature_log_prob(estimate), log_probabilities(self._class_probabilities(estimate))

    def _plug_in_scores(self, X, estimate):
        """The plug-in scores less class 0's words term, X @ (w_k − w_0)ᵀ + c_k, or None where they do
        not apply (the predictive, a posterior draw, an infinite weight).

        The same probabilities as the joint with one product fewer: class 0's column needs none, and a
        sparse X is multiplied by each difference apart (``DIFFERENCE_PRODUCTS``). ``predict_proba`` only: an
        unlikely class's log probability (−700 on a long document) differs from the joint's by the joint's
        rounding (its scale times ε), which ``predict_log_proba`` keeps equal to scikit-learn's.
        """
        check_fitted(self, "classes_")
        estimate = self._estimate(estimate)
        if not (isinstance(estimate, str) and estimate in ("mean", "map", "mle")):
            return None
        weights, class_terms = self._score_weights(estimate)
        if not np.isfinite(weights).all():  # log 0 (alpha = 0, "mle"): the plain path keeps 0 · log 0 = 0
            return None
        encoded = self._encode(as_array_like(X), reset=False, training=False)
        differences = weights[1:] - weights[0]
        scores = np.empty((encoded.shape[0], len(weights)))
        scores[:, 0] = 0.0
        if jit.loaded() and is_csr(encoded) and encoded.dtype == np.float64:
            # each row's stored entries read once for every class, as scipy adds them: its numbers
            jit.kernels("pgm_models.naive_bayes._kernels").csr_products(encoded, differences, scores[:, 1:])
        elif sp.issparse(encoded) and len(differences) <= DIFFERENCE_PRODUCTS:
            for k, difference in enumerate(differences, start=1):
                scores[:, k] = encoded @ difference
        else:
            scores[:, 1:] = encoded @ differences.T
        return add_per_class(scores, class_terms)

    def _probability_scores(self, X, estimate):
        scores = self._plug_in_scores(X, estimate)
        return self._log_posterior_scores(X, estimate) if scores is None else scores

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
        pm.Multinomial(
            "feature_count", n=counts.sum(axis=1), p=feature_prob, observed=counts, dims=("class", "feature")
        )

    def _log_likelihood_offset(self, X):
        """−log(n_d! / Π_v x_dv!): the rows form's Multinomial scores the counts, ``loo`` and the
        predictions the ordered sequence of words, which leaves the coefficient out.
        """
        from scipy.special import gammaln

        counts = self._encode(X, reset=False, training=True)
        counts = counts.toarray() if sp.issparse(counts) else np.asarray(counts, dtype=float)
        return gammaln(counts + 1).sum(axis=1) - gammaln(counts.sum(axis=1) + 1)

    def _rows_model(self, model, X, class_index):
        """y_d ~ Categorical(π); x_d ~ Multinomial(n_d, θ[y_d])."""
        import pymc as pm

        class_prob = self._class_model(model, observe_counts=False)
        feature_prob = self._feature_prior_variable()
        dense = integer_counts(X.toarray() if sp.issparse(X) else np.asarray(X), "word counts")
        model.add_coord("row", np.arange(len(class_index)))
        y = pm.Categorical("y", p=class_prob, observed=class_index, dims="row")
        pm.Multinomial("x", n=dense.sum(axis=1), p=feature_prob[y], observed=dense, dims=("row", "feature"))
