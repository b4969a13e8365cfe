"""Empirical Bayes: choose prior concentrations by maximising the closed-form marginal likelihood.

Type-II maximum likelihood picks the hyperparameters λ that maximise the evidence

    log p(D | λ) = Σ_blocks log Γ(A) − log Γ(A + N) + Σ_cells [log Γ(α_c + n_c) − log Γ(α_c)]

of a Dirichlet–multinomial model (the sum of ``Dirichlet.log_evidence``; the multinomial
coefficients do not depend on λ), each cell concentration α_c being one of the free values λ_p.
Its gradient is ∂/∂α_c = ψ(α_c + n_c) − ψ(α_c) + ψ(A) − ψ(A + N) (``log_evidence_gradient``),
summed over the cells that share λ_p. One optimiser serves every such prior:
L-BFGS-B on log λ (so λ stays positive and the scale is natural), with the analytic gradient
λ_p ∂/∂λ_p, within [1e-6, 1e6].

Estimator options (a mixin; the estimator's ``alpha``/``class_alpha`` accept them):

* ``"evidence"`` — one shared concentration;
* ``"evidence-per-attribute"`` (``alpha`` only) — one per attribute (per word for
  MultinomialNB, per feature for BernoulliNB).

The learned values are ``alpha_`` and ``class_alpha_``. They are re-learned from the
sufficient statistics after every ``fit``/``partial_fit`` batch, so the optimum depends only on
the total counts: row order and chunking do not change it.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from pgm_models._threads import single_blas_thread
from pgm_models._validation import check_concentration
from pgm_models.conjugate import Dirichlet

EVIDENCE = "evidence"
EVIDENCE_OPTIONS = (EVIDENCE, "evidence-per-attribute")
LOG_BOUNDS = (np.log(1e-6), np.log(1e6))


@single_blas_thread  # L-BFGS-B on a few parameters: BLAS threads only oversubscribe (9× slower under load)
def maximize_log_evidence(log_evidence_and_gradient, n_params: int, start=None):
    """Maximise ``f(λ)`` over λ > 0 given ``log_evidence_and_gradient(λ) -> (f, ∂f/∂λ)``:
    L-BFGS-B on log λ from ``start`` (default 1). Returns (λ̂, f(λ̂))."""
    x0 = np.zeros(n_params) if start is None else np.log(np.broadcast_to(np.asarray(start, float), (n_params,)))

    def negative(log_params):
        params = np.exp(log_params)
        value, gradient = log_evidence_and_gradient(params)
        return -value, -gradient * params  # chain rule: ∂f/∂log λ = λ ∂f/∂λ

    result = minimize(negative, x0, jac=True, method="L-BFGS-B", bounds=[LOG_BOUNDS] * n_params,
                      options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 1000})
    if not result.success and "ABNORMAL" not in str(result.message):
        raise RuntimeError(f"evidence maximisation did not converge: {result.message}")
    return np.exp(result.x), -result.fun


def dirichlet_evidence(counts, block_sizes, cell_param: np.ndarray):
    """(log p(D | λ), ∂/∂λ) of Dirichlet blocks whose cell c has concentration λ[cell_param[c]]."""
    n_params = int(cell_param.max()) + 1

    def value_and_gradient(params):
        prior = Dirichlet(params[cell_param], block_sizes)
        cell_gradient = prior.log_evidence_gradient(counts)
        return prior.log_evidence(counts).sum(), np.bincount(cell_param.ravel(), cell_gradient.ravel(), n_params)

    return value_and_gradient, n_params


def _is_learned(value) -> bool:
    return isinstance(value, str)


def _check_option(value, name: str, options=EVIDENCE_OPTIONS):
    if value not in options:
        raise ValueError(f"{name}={value!r}: a string must be one of {options} (or give a number ≥ 0)")


class EmpiricalBayes:
    """Mixin for the estimators' Dirichlet hyperparameters: ``alpha``/``class_alpha`` equal to
    an option above are learned by type-II maximum likelihood after each batch is counted. The
    estimator reads its starting values through ``_concentration_parameter``; the feature part
    is learned by ``_learn_feature_prior`` (Dirichlet models below)."""

    def _concentration_parameter(self, value, name, length, length_name):
        """The checked concentration, or a start of 1 (refined after counting) if it is learned."""
        if _is_learned(value):
            _check_option(value, name, EVIDENCE_OPTIONS if name == "alpha" else (EVIDENCE,))
            return np.ones(length) if value != EVIDENCE else np.asarray(1.0)
        return check_concentration(value, name, length, length_name)

    def _class_concentration(self, n_classes):
        return self._concentration_parameter(self.class_alpha, "class_alpha", n_classes, "class")

    def _partial_fit(self, X, labels, classes, sample_weight):
        super()._partial_fit(X, labels, classes, sample_weight)
        if _is_learned(getattr(self, "class_alpha", None)):  # the semi-naive SPODE and AODE have none
            learn, n_params = dirichlet_evidence(self.class_count_, None, np.zeros(len(self.classes_), dtype=np.intp))
            (self.class_alpha_,), _ = maximize_log_evidence(learn, n_params)
            self._class_prior = Dirichlet(np.full(len(self.classes_), self.class_alpha_))
            self.class_concentration_ = self._class_prior.posterior(self.class_count_).concentration
        if _is_learned(getattr(self, "alpha", None)):
            self._learn_feature_prior(per_attribute=self.alpha != EVIDENCE)
        return self

    def _check_proper_prior(self):
        """A learned class_alpha is positive; a fixed one is checked as usual."""
        if not _is_learned(self.class_alpha):
            super()._check_proper_prior()


class DirichletEvidence(EmpiricalBayes):
    """Type-II ML of ``alpha`` for the discrete naive Bayes models: their prior concentration is
    ``_prior_concentration(alpha)`` with alpha one number or one per attribute, so evaluating it
    at the attribute indices 0..F−1 tells which free value every cell takes."""

    def _learn_feature_prior(self, per_attribute: bool):
        cell_param = self._concentration_index(per_attribute)
        learn, n_params = dirichlet_evidence(self._feature_counts(), self._feature_blocks(), cell_param)
        alpha, _ = maximize_log_evidence(learn, n_params)
        self.alpha_ = alpha if per_attribute else float(alpha[0])
        self._set_feature_prior(alpha[cell_param])

    def _concentration_index(self, per_attribute: bool) -> np.ndarray:
        """Which free value (attribute index, or 0 when shared) each prior cell takes."""
        index = self._prior_concentration(np.arange(self.n_features_in_)).astype(np.intp)
        return index if per_attribute else np.zeros_like(index)

    def _set_feature_prior(self, concentration):
        """Replace the feature prior (cells in the layout of ``_prior_concentration``) and its posterior."""
        self._feature_prior = Dirichlet(concentration, self._feature_blocks())
        self.feature_concentration_ = self._feature_prior.posterior(self._feature_counts()).concentration

    def log_evidence(self) -> float:
        """log p(D | alpha, class_alpha) of the fitted counts (ordered rows: no multinomial
        coefficients), the quantity ``"evidence"`` maximises."""
        return float(self._class_prior.log_evidence(self.class_count_).sum()
                     + self._feature_prior.log_evidence(self._feature_counts()).sum())


def describe_prior(classifier) -> str:
    """The learned hyperparameters of a fitted estimator, e.g. "alpha=0.93, class_alpha=10.1"
    ("" when nothing was learned)."""
    parts = []
    for name in ("alpha", "class_alpha"):
        value = getattr(classifier, f"{name}_", None)
        if value is not None:
            value = np.atleast_1d(value)
            parts.append(f"{name}={value[0]:.3g}" if value.size == 1 else f"{name}={value.min():.3g}…{value.max():.3g} ({value.size})")
    return ", ".join(parts)


def use_evidence_priors(classifier) -> bool:
    """Switch an estimator that supports it to alpha = class_alpha = "evidence"; False if it does not."""
    if not isinstance(classifier, EmpiricalBayes):
        return False
    classifier.set_params(**{name: EVIDENCE for name in ("alpha", "class_alpha") if name in classifier.get_params()})
    return True
