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

from pgm_models.base import Marginal, integer_counts
from pgm_models.conjugate import PosteriorDraw
from pgm_models.conjugate.normal import NormalInverseGamma, normal_log_density_rows, plug_in_moments
from pgm_models.model_selection.evidence import EVIDENCE, check_option
from pgm_models.gaussian._base import GaussianClassifier


class GaussianNB(GaussianClassifier):
    """Gaussian naive Bayes: independent Normal features per class, NIG priors.

    Parameters
    ----------
    class_alpha : Dirichlet concentration of the class probabilities, or "evidence".
    estimate : {"mean", "map", "mle", "predictive"}.
    prior_mean : m0, None for the overall mean of each feature.
    mean_strength : κ0 > 0, the prior mean's weight in rows, or "evidence".
    prior_var : s0², None for the overall variance of each feature, or "evidence" (one per feature).
    var_strength : ν0 > 0, the prior variance's weight in rows (a0 = ν0/2, b0 = ν0 s0²/2), or "evidence".
    ddof : the "mle" variance is S/(n − ddof) (ddof=1: the unbiased sample variance).
    var_smoothing : ≥ 0; the "mle" variances get var_smoothing × the largest overall feature
        variance of the first batch added, a floor for features constant within a class
        (scikit-learn's default is 1e-9; 0 here keeps the plain MLE).
    class_prior : array of one probability per class (in the order of ``classes_``), optional
        A prevalence-shift correction: predictions use these class probabilities in place of the
        class-probability posterior, under every estimate (``set_class_prior`` changes them on a
        fitted model, without refitting). None (default): the posterior. ``loo`` ignores it.

    Attributes
    ----------
    class_count_, feature_mean_ (K, F), feature_scatter_ (K, F) Σ(x − x̄)² per class,
    posterior_ : the NIG posterior (m', κ', a', b' arrays of shape (K, F)),
    mean_strength_, var_strength_, prior_var_ (F,), class_alpha_ : the values learned where
    "evidence" was asked for.
    """

    # nutpie's diagonal mass matrix (GaussianNB/iris: the low-rank one's min bulk ESS at half its CPU seconds; BENCHMARKS.md)
    _nutpie_low_rank = False

    evidence_parameters = ("mean_strength", "var_strength", "prior_var")

    def __init__(self, class_alpha=1.0, estimate="mean", prior_mean=None, mean_strength=0.01,
                 prior_var=None, var_strength=3.0, ddof=0,
                 var_smoothing=0.0, class_prior=None):
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
        values = {"mean_strength": self._hyperparameter("mean_strength", 0.01),
                  "var_strength": self._hyperparameter("var_strength", 3.0), "prior_var": np.ones(len(data_var))}
        if isinstance(self.prior_var, str):
            check_option(self.prior_var, "prior_var", (EVIDENCE,), "numbers > 0, or None")
        guess = data_var if self.prior_var is None or isinstance(self.prior_var, str) else (
            np.broadcast_to(np.asarray(self.prior_var, float), data_var.shape))
        if not np.all(np.isfinite(guess)) or np.any(guess <= 0):
            raise ValueError(f"prior_var must be > 0, got {self.prior_var!r}")
        if not np.isscalar(self.var_smoothing) or not np.isfinite(self.var_smoothing) or self.var_smoothing < 0:
            raise ValueError(f"var_smoothing must be a number ≥ 0, got {self.var_smoothing!r}")
        self.epsilon_ = self.var_smoothing * data_var.max()
        self._prior_reference = np.broadcast_to(self._prior_location(data_mean), (len(self.classes_), len(data_mean))), guess
        self._start_prior(values)

    def _prior_from(self, values) -> NormalInverseGamma:
        """NIG(m0, κ0, ν0/2, ν0 c_j v_j/2): ``values`` holds κ0, ν0 and c (s0² relative to the
        data-scaled guess v)."""
        location, guess = self._prior_reference
        nu = values["var_strength"]
        return NormalInverseGamma(location, values["mean_strength"], nu / 2, np.broadcast_to(nu * values["prior_var"] * guess / 2, location.shape))

    def _prior_gradient(self, values, gradient) -> dict:
        """NIG (κ, a, b) gradients → (κ0, ν0, c): a0 = ν0/2 and b0_j = ν0 c_j v_j/2."""
        guess = self._prior_reference[1]
        return {"mean_strength": gradient["kappa"].sum(),
                "var_strength": (gradient["a"] / 2 + gradient["b"] * values["prior_var"] * guess / 2).sum(),
                "prior_var": (gradient["b"] * values["var_strength"] * guess / 2).sum(axis=0)}

    def _learned_attributes(self) -> dict:
        values = self._prior_values
        return {"mean_strength": float(values["mean_strength"]), "var_strength": float(values["var_strength"]),
                "prior_var": values["prior_var"] * self._prior_reference[1]}

    def _moments(self):
        """(n, x̄, S) as the NIG posterior takes them: counts (K, 1), means and scatters (K, F)."""
        return self.class_count_[:, None], self.feature_mean_, self.feature_scatter_

    @property
    def posterior_(self) -> NormalInverseGamma:
        return self._prior.posterior(*self._moments())

    def _point(self, estimate):
        """(μ, σ²) of shape (K, F) under a plug-in estimate."""
        return plug_in_moments(
            estimate, self.posterior_, self.class_count_[:, None], self.feature_mean_, self.feature_scatter_,
            self.ddof, self.epsilon_, self.classes_, self._feature_names_or_index(),
        )

    def _floats_per_row(self) -> int:
        # scoring keeps (rows × features) temporaries, so rows are scored in blocks of ~1M floats
        return self.n_features_in_

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
        pm.Normal("sample_mean", mu=mean[seen], sigma=pm.math.sqrt(var[seen] / n[seen, None]), observed=self.feature_mean_[seen])
        pm.Gamma("sample_scatter", alpha=(n[several, None] - 1) / 2, beta=1 / (2 * var[several]), observed=self.feature_scatter_[several])

    def _rows_model(self, model, X, class_index):
        """y_i ~ Categorical(π); x_ij ~ N(μ[y_i, j], σ²[y_i, j])."""
        import pymc as pm

        class_prob = self._class_model(model, observe_counts=False)
        mean, var = self._feature_priors()
        model.add_coord("row", np.arange(len(class_index)))
        y = pm.Categorical("y", p=class_prob, observed=class_index, dims="row")
        pm.Normal("x", mu=mean[y], sigma=pm.math.sqrt(var[y]), observed=X, dims=("row", "feature"))
