"""What the Gaussian class-conditional models share: numeric input, mergeable moments, and
weakly informative priors scaled to the data.

Sufficient statistics per class are the weighted count n_k (``class_count_``), mean x̄_k
(``feature_mean_``) and centered scatter S_k (``feature_scatter_``: per feature for naive
Bayes, a p×p matrix for discriminant analysis). Batches merge exactly (Chan et al.), so
``partial_fit`` over chunks equals one ``fit``.

Default priors are centred on the first batch: the prior mean of every class mean is the
overall mean of each feature, worth ``mean_strength`` = 0.01 rows, and the prior guess of
the (co)variance is the overall variance of each feature (a diagonal matrix), worth a few
rows. They are fixed at the first ``fit``/``partial_fit`` call. Strengths and scales set to
"evidence" are instead learned by type-II maximum likelihood (``pgm_models.model_selection.evidence``), the
scale as a positive multiple of that same data-scaled guess.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pgm_models._utils.threads import single_blas_thread
from pgm_models._utils.validation import check_numeric_matrix, reject_entries
from pgm_models.base import BayesianClassifier
from pgm_models.conjugate import PosteriorDraw
from pgm_models.conjugate.normal import batch_moments, merge_moments
from pgm_models.model_selection.evidence import GaussianEvidence
from pgm_models.model_selection.loo import GaussianLOO

# Squared deviations of values up to 1e150 stay below 1e300, so sums of them over up to 1e8
# rows (scatter matrices, variances) are finite in float64 (max 1.8e308).
MAX_ABS_VALUE = 1e150


def overall_moments(X: np.ndarray, weight: np.ndarray):
    """Weighted mean and variance of each feature over all rows (a NaN entry, a missing value,
    is left out of its column), the variance floored so the prior stays proper."""
    missing = np.isnan(X)
    if missing.any() or weight.sum() <= 0:
        weights = np.where(missing, 0.0, weight[:, None]) if weight.sum() > 0 else (~missing).astype(float)
        total = weights.sum(axis=0)
        X = np.where(missing, 0.0, X)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(total > 0, (weights * X).sum(axis=0) / total, 0.0)
            var = np.where(total > 0, (weights * (X - mean) ** 2).sum(axis=0) / total, 0.0)
    else:
        mean = np.average(X, axis=0, weights=weight)
        var = np.average((X - mean) ** 2, axis=0, weights=weight)
    return mean, floored_variance(var)


def pooled_moments(X: np.ndarray, weight: np.ndarray, n: np.ndarray, mean: np.ndarray, scatter: np.ndarray):
    """``overall_moments`` of a batch with no missing value, merged exactly from its classes'
    (n_k, x̄_k, S_k) (no pass over X, which is read only when every weight is 0)."""
    total = n.sum()
    if total <= 0:
        return overall_moments(X, weight)
    overall = n @ mean / total
    within = np.diagonal(scatter, axis1=1, axis2=2) if scatter.ndim == 3 else scatter
    return overall, floored_variance((within.sum(axis=0) + n @ (mean - overall) ** 2) / total)


def floored_variance(var: np.ndarray) -> np.ndarray:
    """The prior's variance guess: a zero variance floored at 1e-9 of the largest (or 1)."""
    floor = 1e-9 * var.max() if var.max() > 0 else 1.0
    return np.maximum(var, floor)


class GaussianClassifier(GaussianLOO, GaussianEvidence, BayesianClassifier):
    """Template for classifiers with Gaussian class-conditionals; ``full_scatter`` says whether
    the scatter is a p×p matrix (discriminant analysis) or per feature (naive Bayes)."""

    full_scatter = False

    def _encode(self, X, reset, training):
        X = self._check_feature_names(X, reset)
        if sp.issparse(X):
            raise ValueError(f"{type(self).__name__} needs dense numeric X, got a sparse matrix")
        names = getattr(self, "feature_names_in_", None)
        matrix = check_numeric_matrix(X, names, nonnegative=False, what=type(self).__name__)
        if matrix.size and max(matrix.max(), -matrix.min()) > MAX_ABS_VALUE:  # no |X| temporary, which costs a full-size allocation
            reject_entries(
                matrix, lambda v: np.abs(v) > MAX_ABS_VALUE, names, "the value",
                f"Gaussian models need |x| ≤ {MAX_ABS_VALUE:g} (sums of squared deviations must stay finite in float64): rescale X",
            )
        return matrix

    def _init_counts(self, X, class_index, weight):
        n_classes, p = len(self.classes_), X.shape[1]
        self.feature_mean_ = np.zeros((n_classes, p))
        self.feature_scatter_ = np.zeros((n_classes, p, p) if self.full_scatter else (n_classes, p))
        self._prior = None  # the default prior is scaled to this first batch: set from its moments in _count

    @single_blas_thread  # the moments' products gain nothing from a second thread here, and lose under load
    def _count(self, X, class_index, weight):
        batch = batch_moments(X, class_index, weight, len(self.classes_), self.full_scatter)
        if self._prior is None:
            self._set_prior(*pooled_moments(X, weight, *batch))
        previous = self.class_count_ - batch[0]
        _, self.feature_mean_, self.feature_scatter_ = merge_moments(
            previous, self.feature_mean_, self.feature_scatter_, *batch, full=self.full_scatter
        )

    def _posterior_point(self, estimate) -> dict:
        """The posterior's mode ("map"), one draw (a PosteriorDraw) or mean (otherwise) of every
        parameter."""
        if isinstance(estimate, PosteriorDraw):
            return {name: value[0] for name, value in self.posterior_.sample(1, estimate.rng).items()}
        return self.posterior_.mode() if estimate == "map" else self.posterior_.mean()

    def _prior_location(self, data_mean):
        """m0: ``prior_mean`` if given, else the overall mean of each feature."""
        if self.prior_mean is None:
            return data_mean
        location = np.broadcast_to(np.asarray(self.prior_mean, dtype=float), data_mean.shape)
        if not np.all(np.isfinite(location)):
            raise ValueError(f"prior_mean must be finite, got {self.prior_mean!r}")
        return location

    def _check_strength(self, name: str, minimum: float = 0.0) -> float:
        value = getattr(self, name)
        if not np.isscalar(value) or not np.isfinite(value) or value <= minimum:
            raise ValueError(f"{name} must be a number > {minimum:g}, got {value!r}")
        return float(value)

    def _feature_names_or_index(self):
        names = getattr(self, "feature_names_in_", None)
        return np.asarray(names) if names is not None else np.arange(self.n_features_in_)
