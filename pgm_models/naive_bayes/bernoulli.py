"""Bernoulli naive Bayes: presence/absence of each of F binary features.

Model: π ~ Dirichlet(class_alpha), θ_kj ~ Beta(alpha_j, alpha_j) = P(x_j = 1 | y = k),
y_i ~ Categorical(π), x_ij | y_i = k ~ Bernoulli(θ_kj). Beta–Bernoulli is the two-category
case of the Dirichlet core (absent, present), so with N_k rows of class k and N_kj of them
having x_j = 1 the posterior is θ_kj | D ~ Beta(alpha_j + N_kj, alpha_j + N_k − N_kj):

    posterior mean (N_kj + α)/(N_k + 2α),  mode (N_kj + α − 1)/(N_k + 2α − 2),  MLE N_kj/N_k.

Absent features count (the factor 1 − θ_kj), unlike multinomial naive Bayes. The exact
posterior predictive equals the posterior-mean plug-in.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pgm_models._utils.scores import add_per_class
from pgm_models._utils.threads import rows_times, single_blas_thread
from pgm_models._utils.validation import check_numeric_matrix, is_number
from pgm_models.base import integer_counts
from pgm_models.conjugate import Beta
from pgm_models.naive_bayes._discrete import DiscreteNB


class BernoulliNB(DiscreteNB):
    r"""Naive Bayes on binary features with Beta(alpha, alpha) priors.

    Each feature is present (1) or absent (0); both presence and absence are evidence (the factor
    1 − θ_kj), unlike in :class:`MultinomialNB`. Numeric input is thresholded by ``binarize``;
    sparse X stays sparse.

    Parameters
    ----------
    alpha : float, array-like of shape (n_features,), "evidence" or "evidence-per-attribute", default=1.0
        Beta(alpha, alpha) concentration of each θ_kj = P(x_j = 1 | y = k), one number or one per
        feature (≥ 0); "evidence" and "evidence-per-attribute" learn it by maximising the
        marginal likelihood (``alpha_``).
    class_alpha : float, array-like of shape (n_classes,) or "evidence", default=1.0
        Dirichlet concentration of the class probabilities (≥ 0).
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters predictions plug in (see Notes); each prediction method also takes it per call.
    binarize : float or None, default=0.0
        Threshold: x > binarize is "present". None means X is already 0/1 (anything else raises).
    class_prior : array of one probability per class (in the order of ``classes_``), optional
        A prevalence-shift correction: predictions use these class probabilities in place of the
        class-probability posterior, under every estimate (``set_class_prior`` changes them on a
        fitted model, without refitting). None (default): the posterior. ``loo`` ignores it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        N_k, the (weighted) number of training rows of each class.
    class_concentration_ : ndarray of shape (n_classes,)
        The posterior Dirichlet concentration of the class probabilities, class_alpha + N_k.
    feature_count_ : ndarray of shape (n_classes, n_features)
        N_kj, the (weighted) number of rows of class k with feature j present.
    feature_concentration_ : ndarray of shape (n_classes, n_features, 2)
        The posterior Beta parameters as a two-category Dirichlet: ``[..., 0]`` = alpha + absent
        count, ``[..., 1]`` = alpha + present count.
    n_features_in_ : int
        The number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.
    alpha_ : float or ndarray of shape (n_features,)
        The learned ``alpha`` (only with ``alpha="evidence"`` or ``"evidence-per-attribute"``).
    class_alpha_ : float
        The learned ``class_alpha`` (only with ``class_alpha="evidence"``).

    See Also
    --------
    CategoricalNB : Attributes with any finite number of values.
    MultinomialNB : Word counts, where absent words are not evidence.
    HierarchicalNB : A hyperprior on ``alpha``, integrated out.

    Notes
    -----
    The generative model:

    .. math::

        \pi \sim \mathrm{Dirichlet}(\alpha_c \mathbf 1_K), \quad
        \theta_{kj} \sim \mathrm{Beta}(\alpha_j, \alpha_j), \quad
        y_i \sim \mathrm{Categorical}(\pi), \quad
        x_{ij} \mid y_i = k \sim \mathrm{Bernoulli}(\theta_{kj}).

    Beta–Bernoulli is the two-category Dirichlet (absent, present), so with N_k rows of class k
    and N_kj of them having x_j = 1 the posterior is
    θ_kj | D ~ Beta(α + N_kj, α + N_k − N_kj), and the estimates of θ_kj are

    - ``"mean"``: (N_kj + α) / (N_k + 2α);
    - ``"map"``: (N_kj + α − 1) / (N_k + 2α − 2);
    - ``"mle"``: N_kj / N_k;
    - ``"predictive"``: the exact posterior predictive, equal to the posterior-mean plug-in.

    References
    ----------
    .. [1] Li Hang, *Statistical Learning Methods* (2nd ed.), Tsinghua University Press, 2019,
       chapter 4.
    .. [2] K. P. Murphy, *Machine Learning: A Probabilistic Perspective*, MIT Press, 2012,
       sections 3.3 (the Beta–binomial model) and 3.5 (naive Bayes classifiers).

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import BernoulliNB
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 1]])
    >>> y = np.array(["spam", "spam", "ham", "ham"])
    >>> model = BernoulliNB().fit(X, y)
    >>> model.classes_
    array(['ham', 'spam'], dtype='<U4')
    >>> model.feature_count_
    array([[0., 2.],
           [2., 1.]])
    >>> model.predict_proba(np.array([[1, 0]])).round(3)
    array([[0.143, 0.857]])
    """

    _compiled_dense_counts = True  # 0/1 features: whole counts, the same by the compiled loop and the product

    def __init__(self, alpha=1.0, class_alpha=1.0, estimate="mean", binarize=0.0, class_prior=None):
        self.alpha = alpha
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.binarize = binarize
        self.class_prior = class_prior

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _encode(self, X, reset, training):
        X = self._check_feature_names(X, reset)
        names = getattr(self, "feature_names_in_", None)
        matrix = check_numeric_matrix(
            X,
            names,
            nonnegative=False,
            what="BernoulliNB",
            binary=None
            if self.binarize is not None
            else "binarize=None expects 0/1 input; set binarize to a threshold",
        )
        if self.binarize is not None:
            if isinstance(self.binarize, (bool, np.bool_)) or not (
                is_number(self.binarize) and np.isreal(self.binarize) and np.isfinite(self.binarize)
            ):
                raise ValueError(f"binarize must be a finite number (the threshold) or None, got {self.binarize!r}")
            if sp.issparse(matrix):  # duplicates summed, but possibly sharing the caller's arrays
                if self.binarize < 0:
                    raise ValueError(f"binarize={self.binarize} < 0 would mark the implicit zeros of sparse X present")
                above = matrix.data > self.binarize
                if above.all():  # counts at binarize=0: no entry to drop, so the index arrays can be shared
                    return sp.csr_array((above.astype(float), matrix.indices, matrix.indptr), shape=matrix.shape)
                present = sp.csr_array(
                    (above.astype(float), matrix.indices.copy(), matrix.indptr.copy()), shape=matrix.shape
                )
                present.eliminate_zeros()
                return present
            return (matrix > self.binarize).astype(float)
        return matrix

    def _prior_concentration(self, alpha):
        return np.broadcast_to(np.asarray(alpha)[..., None], (len(self.classes_), self.n_features_in_, 2))

    def _feature_counts(self):
        """(K, F, 2): absent N_k − N_kj and present N_kj."""
        present = self.feature_count_
        return np.stack([self.class_count_[:, None] - present, present], axis=-1)

    @single_blas_thread  # an (N × F)(F × K) product reads X once: a second thread gains nothing, and waits under load
    def _feature_log_likelihood(self, X, estimate):
        """Σ_j x_j log θ_kj + (1 − x_j) log(1 − θ_kj), linear in X; log 0 terms are −inf only
        where they are actually used (0 · log 0 = 0).
        """
        log_prob = self._feature_log_prob(estimate)
        log_absent, log_present = log_prob[..., 0], log_prob[..., 1]
        if np.all(np.isfinite(log_prob)):
            # the per-class constant added in place: a new (N, K) array costs its page faults
            return add_per_class(np.asarray(rows_times(X, (log_present - log_absent).T)), log_absent.sum(axis=1))
        finite_absent = np.where(np.isfinite(log_absent), log_absent, 0.0)
        finite_present = np.where(np.isfinite(log_present), log_present, 0.0)
        blocked_absent, blocked_present = np.isneginf(log_absent), np.isneginf(log_present)
        score = rows_times(X, (finite_present - finite_absent).T) + finite_absent.sum(axis=1)
        hits = X @ (blocked_present.astype(float) - blocked_absent).T + blocked_absent.sum(axis=1)
        return np.where(hits > 0, -np.inf, score)

    def _loo_blocks(self):
        return np.full(self.n_features_in_, 2)

    def _loo_codes(self, X):
        """Each feature's cell in its (absent, present) block of the (K, F, 2) layout."""
        return (X.toarray() if sp.issparse(X) else X).astype(np.intp)

    def _coords(self):
        names = getattr(self, "feature_names_in_", None)
        features = np.asarray(names) if names is not None else np.arange(self.n_features_in_)
        return {"class": self.classes_, "feature": features}

    def _feature_posterior(self):
        concentration = self.feature_concentration_
        return {"feature_prob": (Beta(concentration[..., 1], concentration[..., 0]), ("class", "feature"))}

    def _feature_prior_variable(self):
        """θ_kj ~ Beta(alpha_j, alpha_j) = P(x_j = 1 | y = k)."""
        import pymc as pm

        prior = self._feature_prior.concentration
        return pm.Beta("feature_prob", alpha=prior[..., 1], beta=prior[..., 0], dims=("class", "feature"))

    def _counts_model(self, model):
        """N_k ~ Multinomial(N, π); N_kj ~ Binomial(N_k, θ_kj)."""
        import pymc as pm

        self._class_model(model, observe_counts=True)
        feature_prob = self._feature_prior_variable()
        class_count = integer_counts(self.class_count_, "class counts")
        pm.Binomial(
            "feature_count",
            n=class_count[:, None],
            p=feature_prob,
            observed=integer_counts(self.feature_count_, "feature counts"),
            dims=("class", "feature"),
        )

    def _placeholder_rows(self, n: int):
        """N rows of absent features (the template's hook)."""
        return np.zeros((n, self.n_features_in_))

    def _rows_model(self, model, X, class_index):
        """y_i ~ Categorical(π); x_ij ~ Bernoulli(θ[y_i, j])."""
        import pymc as pm

        class_prob = self._class_model(model, observe_counts=False)
        feature_prob = self._feature_prior_variable()
        model.add_coord("row", np.arange(len(class_index)))
        y = pm.Categorical("y", p=class_prob, observed=class_index, dims="row")
        dense = X.toarray() if sp.issparse(X) else X
        pm.Bernoulli("x", p=feature_prob[y], observed=dense.astype(np.int64), dims=("row", "feature"))
