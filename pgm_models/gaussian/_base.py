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
scale as a positive multiple of that same data-scaled guess; then the guess, the overall mean
and the optimiser's start are re-derived from the merged moments of all rows counted so far
before each learning, so one ``fit`` and any chunking into ``partial_fit`` batches learn the
same values.
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.sparse as sp

from pgm_models._utils.threads import single_blas_thread
from pgm_models._utils.validation import check_numeric_matrix, is_number
from pgm_models.base import BayesianClassifier
from pgm_models.conjugate import PosteriorDraw
from pgm_models.conjugate.normal import (
    MAX_ABS_VALUE,
    batch_moments,
    class_pooled_moments,
    merge_moments,
    pooled_moments,
)
from pgm_models.discrete.pairs import check_memory
from pgm_models.model_selection.evidence import GaussianEvidence
from pgm_models.model_selection.loo import GaussianLOO

_SCATTER_COPIES = 6  # (K, p, p) arrays a full-covariance fit and its summary hold at once, at their peak


def merged_moment_statistics(a: dict, b: dict, full: bool) -> dict:
    """Two Gaussian models' statistics merged: class counts add, means and scatters by Chan's formula."""
    n, mean, scatter = merge_moments(
        a["class_count_"],
        a["feature_mean_"],
        a["feature_scatter_"],
        b["class_count_"],
        b["feature_mean_"],
        b["feature_scatter_"],
        full=full,
    )
    return {"class_count_": n, "feature_mean_": mean, "feature_scatter_": scatter}


class GaussianClassifier(GaussianLOO, GaussianEvidence, BayesianClassifier):
    """Template for classifiers with Gaussian class-conditionals; ``full_scatter`` says whether
    the scatter is a p×p matrix (discriminant analysis) or per feature (naive Bayes).
    """

    _template = True

    full_scatter = False

    def _encode(self, X, reset, training):
        X = self._check_feature_names(X, reset)
        if sp.issparse(X):
            raise ValueError(f"{type(self).__name__} needs dense numeric X, got a sparse matrix")
        names = getattr(self, "feature_names_in_", None)
        bound = (
            MAX_ABS_VALUE,
            f"Gaussian models need |x| ≤ {MAX_ABS_VALUE:g} (sums of squared deviations must stay finite in float64): rescale X",
        )
        matrix = check_numeric_matrix(X, names, nonnegative=False, what=type(self).__name__, max_abs=bound)
        return matrix

    def _placeholder_rows(self, n: int):
        """N rows of zeros (the template's hook)."""
        return np.zeros((n, self.n_features_in_))

    def _init_counts(self, X, class_index, weight):
        n_classes, p = len(self.classes_), X.shape[1]
        if self.full_scatter:
            check_memory(
                _SCATTER_COPIES * n_classes * p * p,
                lambda: (
                    f"{type(self).__name__}'s scatter matrices, {n_classes} × {p} × {p} (classes × features × features) "
                    f"held about {_SCATTER_COPIES} times,"
                ),
                "use fewer features (select or project them), or GaussianNB, whose variances need classes × features",
            )
        self.feature_mean_ = np.zeros((n_classes, p))
        self.feature_scatter_ = np.zeros((n_classes, p, p) if self.full_scatter else (n_classes, p))
        self._prior = None  # the default prior is scaled to this first batch: set from its moments in _count

    @single_blas_thread  # the moments' products gain nothing from a second thread here, and lose under load
    def _count(self, X, class_index, weight):
        # _encode rejected every non-finite entry: no missing value to search for
        batch = batch_moments(X, class_index, weight, len(self.classes_), self.full_scatter, may_miss=False)
        self._add_batch(X, weight, batch)

    def _add_batch(self, X, weight, batch):
        """Merge one batch's (n_k, x̄_k, S_k) into the statistics (the first batch also scales the prior)."""
        if self._prior is None:
            self._set_prior(*pooled_moments(X, weight, *batch))
        previous = self.class_count_ - batch[0]
        _, self.feature_mean_, self.feature_scatter_ = merge_moments(
            previous, self.feature_mean_, self.feature_scatter_, *batch, full=self.full_scatter
        )

    def _statistics(self) -> dict:
        return {
            "class_count_": self.class_count_,
            "feature_mean_": self.feature_mean_,
            "feature_scatter_": self.feature_scatter_,
        }

    def _statistics_merger(self):
        return functools.partial(merged_moment_statistics, full=self.full_scatter)

    def _after_merged_statistics(self, first_fit: bool) -> None:
        """On a first fit, the data-scaled prior from the whole data's moments, pooled from the
        merged class moments (the prior the in-memory fit reads off the rows).
        """
        if first_fit:
            self._set_prior(*class_pooled_moments(self.class_count_, self.feature_mean_, self.feature_scatter_))

    def _learn_feature_prior(self, learned):
        """Learn from the data-scaled reference and starting values of the whole data's merged
        moments, not the first batch's nor the previous batch's optimum: the optimum then
        depends on the statistics alone, however the rows were chunked.
        """
        self._set_prior(*class_pooled_moments(self.class_count_, self.feature_mean_, self.feature_scatter_))
        super()._learn_feature_prior(learned)

    def _posterior_point(self, estimate) -> dict:
        """The posterior's mode ("map"), one draw (a PosteriorDraw) or mean (otherwise) of every
        parameter.
        """
        if isinstance(estimate, PosteriorDraw):
            return {name: value[0] for name, value in self.posterior_.sample(1, estimate.rng).items()}
        return self.posterior_.mode() if estimate == "map" else self.posterior_.mean()

    def _prior_location(self, data_mean):
        """m0: ``prior_mean`` if given, else the overall mean of each feature."""
        if self.prior_mean is None:
            return data_mean
        try:
            location = np.broadcast_to(np.asarray(self.prior_mean, dtype=float), data_mean.shape)
        except (TypeError, ValueError):
            raise ValueError(
                f"prior_mean must be a number or {data_mean.shape[0]} numbers (one per feature), got {self.prior_mean!r}"
            ) from None
        if not np.all(np.isfinite(location)):
            raise ValueError(f"prior_mean must be finite, got {self.prior_mean!r}")
        return location

    def _check_strength(self, name: str, minimum: float = 0.0) -> float:
        value = getattr(self, name)
        if not is_number(value) or not np.isfinite(value) or value <= minimum:
            raise ValueError(f"{name} must be a number > {minimum:g}, got {value!r}")
        return float(value)

    def _feature_names_or_index(self):
        names = getattr(self, "feature_names_in_", None)
        return np.asarray(names) if names is not None else np.arange(self.n_features_in_)
