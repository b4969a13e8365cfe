"""Gaussian naive Bayes with conjugate Normal–Inverse-Gamma priors.

Model, for classes k and features j:

    π ~ Dirichlet(class_alpha),  σ²_kj ~ InvGamma(a0, b0),  μ_kj | σ²_kj ~ N(m0_j, σ²_kj/κ0),
    y_i ~ Categorical(π),  x_ij | y_i = k ~ N(μ_kj, σ²_kj).

Closed-form posterior per (k, j) from the class's (n, x̄, S): NIG with κ' = κ0 + n,
m' = (κ0 m0 + n x̄)/κ', a' = a0 + n/2, b' = b0 + S/2 + κ0 n (x̄ − m0)²/(2κ') (see
``pgm_models.conjugate.normal``). Estimates of (μ, σ²): "mean" (m', b'/(a'−1)), "map" the joint
mode (m', b'/(a' + 3/2)), "mle" (x̄, S/(n − ddof) + ε, ε = ``var_smoothing`` × the largest
overall variance, as scikit-learn's); "predictive" is the exact posterior predictive, a
Student-t(2a', m', b'(κ'+1)/(a'κ')) per feature.

Defaults (weakly informative, scaled to the data at the first fit): m0 = overall mean of each
feature, κ0 = ``mean_strength`` = 0.01 pseudo-rows, and σ² ~ InvGamma(ν0/2, ν0 s0²/2) with
s0² = overall variance of each feature and ν0 = ``var_strength`` = 3 pseudo-rows. ν0 > 2 makes
a0 > 1, so the posterior mean of σ² exists even for a declared class with no rows (it predicts
from its prior, E[σ²] = ν0 s0²/(ν0 − 2)); "map" and "predictive" exist for every ν0 > 0, and
"mle" needs n − ddof > 0 rows and a nonzero scatter (or ``var_smoothing`` > 0).

Empirical Bayes: ``mean_strength``, ``var_strength`` and ``prior_var`` each accept "evidence"
(``class_alpha`` too): those set so are chosen to maximise the log marginal likelihood

    log p(D | κ0, ν0, s0²) = Σ_kj −(n_k/2) log 2π + ½ log(κ0/κ'_kj) + a0 log b0_j − a'_kj log b'_kj
                             + log Γ(a'_kj) − log Γ(a0),   a0 = ν0/2, b0_j = ν0 s0²_j/2,

with one shared κ0, one shared ν0 and one s0²_j per feature (= c_j × the overall variance of
feature j, c_j learned), m0 kept at the overall mean (or ``prior_mean``). Fitted as
``mean_strength_``, ``var_strength_``, ``prior_var_``; ``log_evidence()`` is the maximised value
(plus the class part). A learned ν0 may go to the bound 1e6 (a point-mass prior on σ²_kj = s0²_j:
the data say the classes share each feature's variance).
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils import jit
from pgm_models._utils.validation import is_number
from pgm_models.base import Marginal, integer_counts
from pgm_models.conjugate.normal import NormalInverseGamma, normal_log_density_rows, plug_in_moments
from pgm_models.gaussian._base import GaussianClassifier
from pgm_models.model_selection.evidence import EVIDENCE, check_option


class GaussianNB(GaussianClassifier):
    r"""Gaussian naive Bayes: independent Normal features per class, with Normal–Inverse-Gamma priors.

    Every feature is Normal within each class, with its own mean and variance; their conjugate
    Normal–Inverse-Gamma prior is weakly informative and scaled to the data by default, so a
    class with few rows borrows strength from the overall mean and variance.

    Parameters
    ----------
    class_alpha : float, array-like of shape (n_classes,) or "evidence", default=1.0
        Dirichlet concentration of the class probabilities (≥ 0); "evidence" learns it.
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters predictions plug in (see Notes); each prediction method also takes it per call.
    prior_mean : float or array-like of shape (n_features,), default=None
        m0, the prior mean of the class means; None: the overall mean of each feature (first batch).
    mean_strength : float > 0 or "evidence", default=0.01
        κ0, the prior mean's weight in rows.
    prior_var : float, array-like of shape (n_features,) or "evidence", default=None
        s0², the prior guess of the variances; None: the overall variance of each feature;
        "evidence": learned, one per feature.
    var_strength : float > 0 or "evidence", default=3.0
        ν0, the prior variance's weight in rows (a0 = ν0/2, b0 = ν0 s0²/2).
    ddof : int, default=0
        The "mle" variance is S/(n − ddof) (ddof=1: the unbiased sample variance).
    var_smoothing : float ≥ 0, default=0.0
        The "mle" variances get var_smoothing × the largest overall feature variance of the first
        batch added, a floor for features constant within a class (scikit-learn's default is
        1e-9; 0 keeps the plain MLE).
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
        n_k, the (weighted) number of training rows of each class.
    class_concentration_ : ndarray of shape (n_classes,)
        The posterior Dirichlet concentration of the class probabilities, class_alpha + n_k.
    feature_mean_ : ndarray of shape (n_classes, n_features)
        x̄_kj, each class's mean of each feature.
    feature_scatter_ : ndarray of shape (n_classes, n_features)
        S_kj = Σ (x − x̄_kj)², each class's scatter of each feature.
    epsilon_ : float
        The variance floor the "mle" estimate adds, var_smoothing × the largest overall variance.
    posterior_ : NormalInverseGamma
        The posterior, m', κ', a', b' arrays of shape (n_classes, n_features).
    n_features_in_ : int
        The number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.
    mean_strength_, var_strength_, prior_var_, class_alpha_ : float or ndarray
        The values learned where "evidence" was asked for (``prior_var_`` of shape (n_features,)).

    See Also
    --------
    LDA : Correlated features sharing one covariance matrix.
    QDA : Correlated features with one covariance matrix per class.
    MixedNB : Numeric and categorical columns in one model.

    Notes
    -----
    The generative model, for classes k and features j:

    .. math::

        \pi \sim \mathrm{Dirichlet}(\alpha_c), \quad
        \sigma^2_{kj} \sim \mathrm{InvGamma}(a_0, b_0), \quad
        \mu_{kj} \mid \sigma^2_{kj} \sim \mathcal N(m_{0j}, \sigma^2_{kj}/\kappa_0), \quad
        x_{ij} \mid y_i = k \sim \mathcal N(\mu_{kj}, \sigma^2_{kj}),

    with a0 = ν0/2 and b0 = ν0 s0²/2. From a class's (n, x̄, S) the posterior of each (k, j) is
    Normal–Inverse-Gamma with

    .. math::

        \kappa' = \kappa_0 + n, \quad m' = \frac{\kappa_0 m_0 + n \bar x}{\kappa'}, \quad
        a' = a_0 + \frac n2, \quad
        b' = b_0 + \frac S2 + \frac{\kappa_0 n (\bar x - m_0)^2}{2\kappa'}.

    The estimates of (μ, σ²) are ``"mean"``: (m', b'/(a' − 1)); ``"map"``, the joint mode:
    (m', b'/(a' + 3/2)); ``"mle"``: (x̄, S/(n − ddof) + ε); and ``"predictive"`` is the exact
    posterior predictive, a Student-t(2a', m', b'(κ' + 1)/(a'κ')) per feature. The defaults
    (m0 and s0² the overall mean and variance, κ0 = 0.01, ν0 = 3 > 2) make the posterior mean of
    σ² exist even for a declared class with no rows, which predicts from its prior,
    E[σ²] = ν0 s0²/(ν0 − 2). "evidence" maximises the closed-form marginal likelihood
    (:meth:`log_evidence`).

    References
    ----------
    .. [1] K. P. Murphy, *Machine Learning: A Probabilistic Perspective*, MIT Press, 2012,
       section 4.6.3 (the Normal–Inverse-Gamma posterior) and 3.5 (naive Bayes).
    .. [2] K. P. Murphy, "Conjugate Bayesian analysis of the Gaussian distribution", 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import GaussianNB
    >>> X = np.array([[1.0, 2.1], [1.2, 1.9], [0.8, 2.0], [3.0, 0.9], [3.3, 1.1], [2.9, 1.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> model = GaussianNB().fit(X, y)
    >>> model.feature_mean_.round(3)
    array([[1.   , 2.   ],
           [3.067, 1.   ]])
    >>> model.predict_proba(np.array([[2.0, 1.5]])).round(3)
    array([[0.52, 0.48]])
    >>> model.predict_proba(np.array([[2.0, 1.5]]), estimate="predictive").round(3)
    array([[0.521, 0.479]])
    """

    # nutpie's diagonal mass matrix: the low-rank one costs more CPU than it gains here
    # (BENCHMARKS.md, "Mass matrices and tuning steps")
    _nutpie_low_rank = False

    evidence_parameters = ("mean_strength", "var_strength", "prior_var")

    def __init__(
        self,
        class_alpha=1.0,
        estimate="mean",
        prior_mean=None,
        mean_strength=0.01,
        prior_var=None,
        var_strength=3.0,
        ddof=0,
        var_smoothing=0.0,
        class_prior=None,
    ):
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.prior_mean = prior_mean
        self.mean_strength = mean_strength
        self.prior_var = prior_var
        self.var_strength = var_strength
        self.ddof = ddof
        self.var_smoothing = var_smoothing
        self.class_prior = class_prior

    def _set_prior(self, data_mean, data_var):
        values = {
            "mean_strength": self._hyperparameter("mean_strength", 0.01),
            "var_strength": self._hyperparameter("var_strength", 3.0),
            "prior_var": np.ones(len(data_var)),
        }
        if isinstance(self.prior_var, str):
            check_option(self.prior_var, "prior_var", (EVIDENCE,), "numbers > 0, or None")
        guess = (
            data_var
            if self.prior_var is None or isinstance(self.prior_var, str)
            else _per_feature(self.prior_var, data_var.shape, "prior_var")
        )
        if not np.all(np.isfinite(guess)) or np.any(guess <= 0):
            raise ValueError(f"prior_var must be > 0, got {self.prior_var!r}")
        if not (is_number(self.ddof) and np.isfinite(self.ddof) and self.ddof >= 0):
            raise ValueError(f"ddof must be a number ≥ 0 (subtracted from n in the mle variance), got {self.ddof!r}")
        if not is_number(self.var_smoothing) or not np.isfinite(self.var_smoothing) or self.var_smoothing < 0:
            raise ValueError(f"var_smoothing must be a number ≥ 0, got {self.var_smoothing!r}")
        self.epsilon_ = self.var_smoothing * data_var.max()
        self._prior_reference = (
            np.broadcast_to(self._prior_location(data_mean), (len(self.classes_), len(data_mean))),
            guess,
        )
        self._start_prior(values)

    def _prior_from(self, values) -> NormalInverseGamma:
        """NIG(m0, κ0, ν0/2, ν0 c_j v_j/2): ``values`` holds κ0, ν0 and c (s0² relative to the
        data-scaled guess v).
        """
        location, guess = self._prior_reference
        nu = values["var_strength"]
        return NormalInverseGamma(
            location,
            values["mean_strength"],
            nu / 2,
            np.broadcast_to(nu * values["prior_var"] * guess / 2, location.shape),
        )

    def _prior_gradient(self, values, gradient) -> dict:
        """NIG (κ, a, b) gradients → (κ0, ν0, c): a0 = ν0/2 and b0_j = ν0 c_j v_j/2."""
        guess = self._prior_reference[1]
        return {
            "mean_strength": gradient["kappa"].sum(),
            "var_strength": (gradient["a"] / 2 + gradient["b"] * values["prior_var"] * guess / 2).sum(),
            "prior_var": (gradient["b"] * values["var_strength"] * guess / 2).sum(axis=0),
        }

    def _learned_attributes(self) -> dict:
        values = self._prior_values
        return {
            "mean_strength": float(values["mean_strength"]),
            "var_strength": float(values["var_strength"]),
            "prior_var": values["prior_var"] * self._prior_reference[1],
        }

    def _moments(self):
        """(n, x̄, S) as the NIG posterior takes them: counts (K, 1), means and scatters (K, F)."""
        return self.class_count_[:, None], self.feature_mean_, self.feature_scatter_

    @property
    def posterior_(self) -> NormalInverseGamma:
        """The Normal–Inverse-Gamma posterior of every class's feature means and variances."""
        return self._prior.posterior(*self._moments())

    def _point(self, estimate):
        """(μ, σ²) of shape (K, F) under a plug-in estimate."""
        return plug_in_moments(
            estimate,
            self.posterior_,
            self.class_count_[:, None],
            self.feature_mean_,
            self.feature_scatter_,
            self.ddof,
            self.epsilon_,
            self.classes_,
            self._feature_names_or_index(),
        )

    def _floats_per_row(self) -> int:
        # the NumPy scoring keeps (rows × features) temporaries, so rows are scored in blocks of ~1M floats;
        # the compiled loop keeps none, and blocks would only add their (N × K) concatenation
        return 1 if jit.loaded() else self.n_features_in_

    def _feature_log_likelihood(self, X, estimate):
        if estimate == "predictive":
            return self.posterior_.log_predictive_rows(X)
        return normal_log_density_rows(X, *self._point(estimate))

    # ------------------------------------------------------------------ posterior and PyMC
    def _coords(self):
        return {"class": self.classes_, "feature": self._feature_names_or_index()}

    def _feature_posterior(self):
        joint = self.posterior_
        return {
            "feature_mean": (Marginal(joint, "mu"), ("class", "feature")),
            "feature_var": (Marginal(joint, "var"), ("class", "feature")),
        }

    def _feature_priors(self):
        """σ²_kj ~ InvGamma(a0, b0), μ_kj | σ² ~ N(m0, σ²/κ0)."""
        import pymc as pm

        prior = self._prior
        var = pm.InverseGamma("feature_var", alpha=prior.a, beta=prior.b, dims=("class", "feature"))
        mean = pm.Normal("feature_mean", mu=prior.m, sigma=pm.math.sqrt(var / prior.kappa), dims=("class", "feature"))
        return mean, var

    def _counts_model(self, model):
        """N_k ~ Multinomial(N, π); x̄_kj ~ N(μ_kj, σ²_kj/n_k); S_kj ~ Gamma((n_k − 1)/2, 1/(2σ²_kj))."""
        import pymc as pm

        self._class_model(model, observe_counts=True)
        mean, var = self._feature_priors()
        n = integer_counts(self.class_count_, "class counts")
        seen, several = np.flatnonzero(n >= 1), np.flatnonzero(n >= 2)
        pm.Normal(
            "sample_mean",
            mu=mean[seen],
            sigma=pm.math.sqrt(var[seen] / n[seen, None]),
            observed=self.feature_mean_[seen],
        )
        pm.Gamma(
            "sample_scatter",
            alpha=(n[several, None] - 1) / 2,
            beta=1 / (2 * var[several]),
            observed=self.feature_scatter_[several],
        )

    def _rows_model(self, model, X, class_index):
        """y_i ~ Categorical(π); x_ij ~ N(μ[y_i, j], σ²[y_i, j])."""
        import pymc as pm

        class_prob = self._class_model(model, observe_counts=False)
        mean, var = self._feature_priors()
        model.add_coord("row", np.arange(len(class_index)))
        y = pm.Categorical("y", p=class_prob, observed=class_index, dims="row")
        pm.Normal("x", mu=mean[y], sigma=pm.math.sqrt(var[y]), observed=X, dims=("row", "feature"))


def _per_feature(value, shape, name):
    """``value`` (one number, or one per feature) broadcast to ``shape``, or an error naming ``name``."""
    try:
        return np.broadcast_to(np.asarray(value, float), shape)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a number > 0 or {shape[0]} of them (one per feature), got {value!r}"
        ) from None
