"""Exact leave-one-out cross-validation of the conjugate models, as ArviZ ``ELPDData``.

For a conjugate model the leave-one-out predictive p(y_i, x_i | D₋ᵢ) needs no refit and no
importance sampling: removing row i from the posterior is a downdate of its sufficient
statistics — Dirichlet concentrations minus the row's counts, a rank-one downdate of the
Normal–Inverse-Gamma / Normal–Inverse-Wishart posterior — and the exact posterior predictive of
the downdated posterior scores the row. Row i was counted only in its own class y_i, so

    log p(y = k, x_i | D₋ᵢ) = log (N_k − δ_k + c_k)/(N − 1 + Σc) + log p(x_i | y = k, D₋ᵢ),

where δ_k = 1{k = y_i}, c the class concentration, and p(x_i | y = k, D₋ᵢ) equals the full-data
predictive for every k ≠ y_i except where classes share a parameter (LDA's Σ). Two scores:

* ``conditional=True``: log p(y_i | x_i, D₋ᵢ) = the joint above normalised over k — the
  leave-one-out log loss of the classifier;
* ``conditional=False``: log p(y_i, x_i | D₋ᵢ), the joint (what PSIS-LOO estimates from draws
  of the rows-form PyMC model).

The result is an ``arviz.ELPDData`` like ``az.loo``'s, so ``az.compare`` ranks zoo models:
``elpd_loo`` = Σ_i loo_i, ``se`` = √(N Var(loo_i)), ``p_loo`` = lppd − elpd_loo with lppd the
same score under the full-data posterior, ``n_samples`` = 0 (nothing was sampled) and no
``pareto_k`` (no importance weights). LOO keeps what the fit fixed: attribute domains and any
data-scaled prior (the Gaussian models' default m0, s0²) are those of the full fit.
"""

from __future__ import annotations

import numpy as np
import xarray as xr
from sklearn.utils.validation import check_is_fitted

from pgm_models._validation import as_array_like, check_labels, check_n_rows
from pgm_models.conjugate import log_probabilities, log_sum_exp
from pgm_models.conjugate.dirichlet import downdated_log_evidence
from pgm_models.conjugate.normal import NormalInverseGamma, NormalInverseWishart


class ExactLOO:
    """Mixin adding ``loo`` to a conjugate estimator. The estimator provides
    ``_loo_feature_log_likelihood(encoded, class_index)``: (N, K) log p(x_i | y = k, D₋ᵢ)."""

    def loo(self, X, y, conditional=True):
        """Exact leave-one-out ELPD of the rows (X, y) the model was fitted on (each with weight 1).

        Returns ``arviz.ELPDData`` with ``elpd_loo``, ``se``, ``p_loo`` and the pointwise
        ``loo_i`` (an ``xarray.DataArray`` over ``row``): log p(y_i | x_i, D₋ᵢ) when
        ``conditional``, else log p(y_i, x_i | D₋ᵢ).
        """
        from arviz.stats.stats_utils import ELPDData

        check_is_fitted(self, "classes_")
        labels = check_labels(y, self)
        X = as_array_like(X)
        check_n_rows(np.shape(X)[0], len(labels))
        class_index = self._class_index(labels)
        counted = np.bincount(class_index, minlength=len(self.classes_))
        if not np.allclose(counted, self.class_count_, rtol=0, atol=1e-9):
            raise ValueError(
                f"y has class counts {counted.tolist()} but the model was fitted on {self.class_count_.tolist()}: "
                "leave-one-out needs the very rows of the fit, each with weight 1"
            )
        encoded = self._encode(X, reset=False, training=True)
        rows = np.arange(len(class_index))
        full, left_out = self._full_and_loo_joint(encoded, class_index)
        if conditional:
            full = full - log_sum_exp(full, axis=1)[:, None]
            left_out = left_out - log_sum_exp(left_out, axis=1)[:, None]
        pointwise = left_out[rows, class_index]
        elpd = pointwise.sum()
        lppd = full[rows, class_index].sum()
        n = len(pointwise)
        loo_i = xr.DataArray(pointwise, dims="row", coords={"row": rows}, name="loo_i")
        return ELPDData(
            data=[elpd, np.sqrt(n * np.var(pointwise)), lppd - elpd, 0, n, False, loo_i, "log"],
            index=["elpd_loo", "se", "p_loo", "n_samples", "n_data_points", "warning", "loo_i", "scale"],
        )

    def _full_and_loo_joint(self, encoded, class_index):
        """(N, K) log p(y = k, x_i | D) and log p(y = k, x_i | D₋ᵢ): the class prior times the
        features (a model whose joint is not of that form overrides this)."""
        features = self._feature_log_likelihood(encoded, "predictive")  # (N, K) log p(x_i | y = k, D)
        class_log = log_probabilities(self._class_prior.estimate(self.class_count_, "predictive"))
        full = class_log[None, :] + features  # before _loo_joint, which may overwrite features
        return full, self._loo_joint(encoded, class_index, features)

    def _loo_joint(self, encoded, class_index, features):
        """(N, K) log p(y = k, x_i | D₋ᵢ), given the full-data ``features`` log p(x_i | y = k, D)
        (overwritten)."""
        concentration = np.broadcast_to(self.class_concentration_, (len(class_index), len(self.classes_))).copy()
        concentration[np.arange(len(class_index)), class_index] -= 1
        class_log = log_probabilities(np.maximum(concentration, 0.0)) - np.log(self.class_concentration_.sum() - 1)
        return class_log + self._loo_feature_log_likelihood(encoded, class_index, features)

    def _loo_feature_log_likelihood(self, encoded, class_index, features):
        """Features with a parameter per class: only column y_i of the full-data ``features``
        changes, to the true class's downdated predictive ``_loo_own_class``."""
        features = features.copy()
        features[np.arange(len(class_index)), class_index] = self._loo_own_class(encoded, class_index)
        return features


class DirichletLOO(ExactLOO):
    """Exact LOO of a model whose feature parameters are Dirichlet blocks, one row per class of
    ``feature_concentration_``: the row's counts in that layout (``_loo_design``, blocks
    ``_loo_blocks``) are taken off its own class and its Dirichlet–multinomial evidence is the
    downdated predictive."""

    _loo_one_hot = False  # at most one count, of 1, per block and row (categorical attributes)

    def _loo_blocks(self):
        return self._feature_blocks()

    def _loo_design(self, encoded):
        return self._design(encoded)

    def _loo_own_class(self, encoded, class_index):
        concentration = self.feature_concentration_
        return downdated_log_evidence(
            concentration.reshape(len(concentration), -1), self._loo_blocks(), self._loo_design(encoded), class_index,
            one_hot=self._loo_one_hot,
        )


class GaussianLOO(ExactLOO):
    """Exact LOO of the Gaussian models: the one-row downdate of the Normal–Inverse-Gamma
    posterior of the row's class (naive Bayes) or of the Normal–Inverse-Wishart posterior (LDA's
    shared Σ moves every class's predictive, so all K columns are recomputed)."""

    def _loo_feature_log_likelihood(self, X, class_index, features):
        posterior = self.posterior_
        if isinstance(posterior, NormalInverseWishart):
            return posterior.leave_one_out_log_predictive(X, class_index)
        return super()._loo_feature_log_likelihood(X, class_index, features)

    def _loo_own_class(self, X, class_index):
        posterior = self.posterior_
        own = NormalInverseGamma(*(v[class_index] for v in (posterior.m, posterior.kappa, posterior.a, posterior.b)))
        return own.downdate(X).log_predictive(X).sum(axis=1)


def compare_loo(results: dict):
    """``az.compare`` of exact-LOO results {name: ELPDData} (elpd_loo ± se, difference to the
    best, stacking weight), or None with fewer than two models. Every result must score the
    same rows."""
    import arviz as az

    if len(results) < 2:
        return None
    return az.compare(results, ic="loo")
