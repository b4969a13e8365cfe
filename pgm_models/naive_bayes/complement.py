"""Complement naive Bayes (Rennie et al. 2003): each class scored against the word distribution of
every *other* class.

With N_kv the count of word v in the documents of class k, the complement counts are
Ñ_kv = Σ_{j≠k} N_jv (the count of word v in all classes but k). The complement word distribution
θ̃_k (the words of a document that is *not* of class k) has the conjugate model

    θ̃_k ~ Dirichlet(alpha · 1_V),  (Ñ_kv)_v ~ Multinomial(Ñ_k, θ̃_k),
    θ̃_k | D ~ Dirichlet(alpha + Ñ_k·),  posterior mean (Ñ_kv + α)/(Ñ_k + Vα),

one Dirichlet block per class, each document observed once under the complement of every class
but its own. A row x is scored by weights w_kv on the point estimate θ̂̃ of θ̃:

    score_k(x) = Σ_v x_v w_kv,  w_kv = −log θ̂̃_kv  (norm=False),
                                w_kv = log θ̂̃_kv / Σ_u log θ̂̃_ku  (norm=True, Rennie's "weight normalisation"),

a class is likely when the document is unlikely under its complement. P(y = k | x) is the softmax
of the scores, with no class-prior term (scikit-learn's ComplementNB, Rennie et al.'s weights).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pgm_models.base import integer_counts
from pgm_models.conjugate import Dirichlet, PosteriorDraw
from pgm_models.naive_bayes._discrete import log_linear
from pgm_models.naive_bayes.multinomial import MultinomialNB


class ComplementNB(MultinomialNB):
    """Complement naive Bayes on count vectors, with a Dirichlet(alpha) prior on each class's
    complement word distribution.

    Parameters
    ----------
    alpha : float, array-like of shape (n_features,), "evidence" or "evidence-per-attribute", default=1.0
        Dirichlet concentration of every cell of the complement distributions θ̃_k (≥ 0), one
        number or one per word; scikit-learn's smoothing ``alpha`` (``estimate="mean"`` gives its
        weights exactly). "evidence" learns one shared value by maximising the marginal likelihood
        of the complement counts, "evidence-per-attribute" one per word (``alpha_``).
    class_alpha : float, array-like of shape (n_classes,) or "evidence", default=1.0
        Dirichlet concentration of the class probabilities π (≥ 0). Their posterior is fitted and
        sampled as in every model of the package, but it does not enter the scores (see Notes).
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        Which θ̃ the weights use: the posterior mean (scikit-learn's smoothed estimate), the
        posterior mode, the complement frequencies Ñ_kv/Ñ_k (alpha ignored), or "predictive":
        score_k(x) = −log p(x | not k, D), the exact Dirichlet–multinomial posterior predictive
        of the document under the complement of class k (not linear in x; norm=False only).
        ``predict_proba_draws`` scores under exact posterior draws of θ̃.
    norm : bool, default=False
        Divide each class's log weights by their sum (Rennie et al.'s weight normalisation,
        scikit-learn's ``norm``); the point estimate must then put probability > 0 on every word.
    class_prior : array-like of shape (n_classes,), default=None
        A prevalence-shift correction: predictions use these class probabilities (in the order of
        ``classes_``) in place of the class-probability posterior, under every estimate;
        ``set_class_prior`` changes them on a fitted model without refitting. None: the posterior.
        ComplementNB's scores have no class term, so a fixed prior adds log class_prior_k to class
        k's score (None: scikit-learn's scores).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        N_k, the (weighted) number of documents of each class.
    class_concentration_ : ndarray of shape (n_classes,)
        The posterior Dirichlet concentration of the class probabilities, class_alpha + N_k.
    feature_count_ : ndarray of shape (n_classes, n_features)
        N_kv, the (weighted) count of word v in the documents of class k (the class's own counts;
        the complement counts are Ñ_kv = Σ_j N_jv − N_kv).
    feature_concentration_ : ndarray of shape (n_classes, n_features)
        The posterior Dirichlet concentrations alpha + Ñ_kv of the complement distributions θ̃_k
        (``complement_prob`` in ``analytic_posterior`` and ``posterior_draws``).
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
    MultinomialNB : Scores each class by its own word distribution, with the class prior.
    BernoulliNB : Presence and absence of each word.
    HierarchicalNB : A hyperprior on ``alpha``, integrated out.

    Notes
    -----
    What is Bayesian here, and what is not. Each complement distribution θ̃_k has an exact
    conjugate posterior, Dirichlet(alpha + Ñ_k·): that is what ``fit`` computes, what
    ``analytic_posterior`` and ``posterior_draws`` report (as ``complement_prob``), and what
    NUTS on ``pymc_model`` reproduces. The PyMC model treats the K complement blocks as
    independent observations: its rows form observes each document K − 1 times, once under the
    complement of every class but its own. That is a model of the complements, not a generative
    model of (x, y): under one generative model θ̃_k would be a mixture of the other classes'
    word distributions, and the documents could not be observed more than once.

    The classifier built on it is scikit-learn's heuristic (Rennie et al.): P(y = k | x) ∝
    exp(score_k(x)) with the weights above. It is not the posterior predictive
    p(y = k | x, D) of any generative model: the class prior is left out of the score (as in
    scikit-learn, whose ``fit_prior`` and ``class_prior`` enter its ComplementNB only with a
    single training class, where every row's probability is 1 anyway), and −log θ̃_k is used as
    evidence *for* class k. So ``estimate`` changes only the point estimate plugged into that
    heuristic (or, for "predictive", replaces the plug-in −log Π_v θ̂̃_kv^x_v by the exact
    −log p(x | not k, D)), and ``predict_proba_draws`` shows how the heuristic's probabilities
    vary over the posterior of θ̃. There is no exact leave-one-out (``loo``): the score is no
    predictive density of the rows.

    A word never seen outside class k has Ñ_kv = 0; with alpha = 0 or estimate="mle" its weight
    −log 0 is +∞, and a document containing it gets score +∞ for class k. A row whose score is
    +∞ for some classes splits its probability equally among them.

    References
    ----------
    .. [1] J. D. M. Rennie, L. Shih, J. Teevan and D. R. Karger, "Tackling the poor assumptions of
       naive Bayes text classifiers", *Proceedings of ICML 2003*, 616–623, 2003.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import ComplementNB
    >>> X = np.array([[3, 0, 1], [2, 1, 0], [0, 2, 3], [1, 0, 4]])
    >>> model = ComplementNB(alpha=1.0).fit(X, ["a", "a", "b", "b"])
    >>> model.feature_concentration_  # alpha + the counts of the other class
    array([[2., 3., 8.],
           [6., 2., 2.]])
    >>> model.predict(np.array([[2, 0, 0], [0, 0, 2]])).tolist()
    ['a', 'b']
    """

    def __init__(self, alpha=1.0, class_alpha=1.0, estimate="mean", norm=False, class_prior=None):
        super().__init__(alpha=alpha, class_alpha=class_alpha, estimate=estimate, class_prior=class_prior)
        self.norm = norm

    def _init_counts(self, encoded, class_index, weight):
        self._check_norm(self.estimate)
        super()._init_counts(encoded, class_index, weight)

    def _feature_counts(self):
        """(K, V) complement counts Ñ_kv = Σ_j N_jv − N_kv."""
        return self.feature_count_.sum(axis=0) - self.feature_count_

    def _check_norm(self, estimate):
        if not isinstance(self.norm, (bool, np.bool_)):
            raise ValueError(f"norm must be True or False, got {self.norm!r}")
        if self.norm and isinstance(estimate, str) and estimate == "predictive":
            raise ValueError(
                "norm=True normalises the weights of a point estimate; estimate='predictive' has none "
                "(its score is the document's exact complement predictive): use norm=False"
            )

    def _feature_log_likelihood(self, X, estimate):
        """(N, K) scores Σ_v x_v w_kv, or −log p(x | not k, D) for "predictive"."""
        self._check_norm(estimate)
        if isinstance(estimate, str) and estimate == "predictive":
            return -Dirichlet(self.feature_concentration_).log_predictive_rows(X)
        log_prob = self._feature_log_prob(estimate)
        if not self.norm:
            return -log_linear(X, log_prob)  # +inf where a word has complement probability 0
        if np.isneginf(log_prob).any():
            k, v = np.argwhere(np.isneginf(log_prob))[0]
            raise ValueError(
                f"norm=True divides by the sum of log θ̃, which is -inf: word {v} has complement probability 0 for "
                f"class {self._class_label(k)!r} under estimate={'a posterior draw' if isinstance(estimate, PosteriorDraw) else repr(estimate)} "
                "(a word seen in that class only, with alpha = 0 or estimate='mle'); use alpha > 0 with 'mean' or 'map'"
            )
        return np.asarray(X @ (log_prob / log_prob.sum(axis=1, keepdims=True)).T)

    def _joint_log_likelihood(self, encoded, estimate):
        """The scores alone (Rennie et al.'s classifier has no class-prior term), plus log
        ``class_prior`` when one is fixed: a prevalence shift of the scores.
        """
        scores = self._feature_log_likelihood(encoded, estimate)
        prior = self._fixed_class_prior()
        if prior is None:
            return scores
        with np.errstate(divide="ignore"):  # a class of prior 0 scores −inf
            return scores + np.log(prior)

    def _score_weights(self, estimate):
        """(K, V) weights, −log θ̂̃ or log θ̂̃ over its sum (norm), and (K,) class terms: log ``class_prior``
        when one is fixed, else 0; a −inf log θ̂̃ leaves an infinite weight (the plain path names it).
        """
        self._check_norm(estimate)
        log_prob = self._feature_log_prob(estimate)
        if not self.norm:
            weights = -log_prob
        elif np.isneginf(log_prob).any():
            weights = log_prob
        else:
            weights = log_prob / log_prob.sum(axis=1, keepdims=True)
        prior = self._fixed_class_prior()
        if prior is None:
            return weights, np.zeros(len(weights))
        with np.errstate(divide="ignore"):  # a class of prior 0 scores −inf
            return weights, np.log(prior)

    def _log_posterior_scores(self, X, estimate):
        """The scores, with a row that reaches +∞ for some classes made uniform over them."""
        scores = self.predict_joint_log_proba(X, estimate)
        infinite = np.isposinf(scores)
        if infinite.any():
            rows = infinite.any(axis=1)
            scores[rows] = np.where(infinite[rows], 0.0, -np.inf)
        return scores

    def loo(self, X, y, conditional=True):
        """Exact leave-one-out cross-validation: not available for ComplementNB.

        The other estimators' ``loo`` scores each training row by the exact posterior predictive
        of the model fitted without it. ComplementNB's class scores are Rennie et al.'s weights,
        not the posterior predictive of a generative model of (x, y), so there is no leave-one-out
        predictive density to report, and this method always raises. Estimate its out-of-sample
        accuracy or log loss by cross-validation instead
        (``sklearn.model_selection.cross_val_score``), or compare it with :class:`MultinomialNB`,
        whose ``loo`` is exact.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The training word counts (accepted for the common signature; not read).
        y : array-like of shape (n_samples,)
            Their labels (not read).
        conditional : bool, default=True
            Whether log p(y_i | x_i, D₋ᵢ) or the joint log p(y_i, x_i | D₋ᵢ) would be scored (not
            read).

        Raises
        ------
        NotImplementedError
            Always: ComplementNB has no exact leave-one-out.

        See Also
        --------
        MultinomialNB.loo : The exact leave-one-out of multinomial naive Bayes.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import ComplementNB
        >>> X = np.array([[3, 0, 1], [2, 1, 0], [0, 2, 3], [1, 0, 4]])
        >>> y = ["a", "a", "b", "b"]
        >>> model = ComplementNB().fit(X, y)
        >>> model.loo(X, y)
        Traceback (most recent call last):
            ...
        NotImplementedError: ComplementNB has no exact leave-one-out: ...
        """
        raise NotImplementedError(
            "ComplementNB has no exact leave-one-out: its class scores are Rennie et al.'s weights, not a "
            "posterior predictive of (x, y); cross-validate it instead (sklearn.model_selection.cross_val_score)"
        )

    def _feature_posterior(self):
        return {"complement_prob": (Dirichlet(self.feature_concentration_), ("class", "feature"))}

    def _feature_prior_variable(self):
        """θ̃_k ~ Dirichlet(alpha) over the vocabulary."""
        import pymc as pm

        return pm.Dirichlet("complement_prob", a=self._feature_prior.concentration, dims=("class", "feature"))

    def _counts_model(self, model):
        """N_k ~ Multinomial(N, π); (Ñ_kv)_v ~ Multinomial(Ñ_k, θ̃_k)."""
        import pymc as pm

        self._class_model(model, observe_counts=True)
        complement_prob = self._feature_prior_variable()
        counts = integer_counts(self._feature_counts(), "complement word counts")
        pm.Multinomial(
            "complement_count", n=counts.sum(axis=1), p=complement_prob, observed=counts, dims=("class", "feature")
        )

    def _log_likelihood_offset(self, X):
        """None: the class scores are not a likelihood, so no scoring to match (no exact ``loo``)."""
        return None

    def _rows_model(self, model, X, class_index):
        """y_d ~ Categorical(π); x_d ~ Multinomial(n_d, θ̃_k) for every class k ≠ y_d."""
        import pymc as pm

        class_prob = self._class_model(model, observe_counts=False)
        complement_prob = self._feature_prior_variable()
        dense = integer_counts(X.toarray() if sp.issparse(X) else np.asarray(X), "word counts")
        model.add_coord("row", np.arange(len(class_index)))
        pm.Categorical("y", p=class_prob, observed=class_index, dims="row")
        row, other = np.nonzero(class_index[:, None] != np.arange(len(self.classes_)))
        model.add_coord("complement_entry", np.arange(len(row)))
        # each document is observed once per other class: the entries' rows, for its log likelihood per row
        pm.Data("complement_entry_row", row, dims="complement_entry")
        pm.Multinomial(
            "x",
            n=dense.sum(axis=1)[row],
            p=complement_prob[other],
            observed=dense[row],
            dims=("complement_entry", "feature"),
        )
