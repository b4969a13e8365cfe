"""What the discrete naive Bayes models share: Dirichlet priors on categorical features.

Each subclass turns X into a nonnegative *design* matrix D (N × T): one-hot codes for
categorical features, presence indicators for Bernoulli, word counts for multinomial. Then the
sufficient statistics of every subclass are the same product

    feature_count_[k, t] = Σ_n w_n 1{y_n = k} D[n, t],

the posterior is one conjugate Dirichlet update of it, and a point estimate θ̂ scores a row by
the log-linear form Σ_t D[n, t] log θ̂[k, t].
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pgm_models._utils import jit
from pgm_models._utils.shared_priors import shared_prior
from pgm_models._utils.threads import single_blas_thread
from pgm_models.base import BayesianClassifier
from pgm_models.conjugate import Dirichlet, log_probabilities
from pgm_models.model_selection.evidence import DirichletEvidence
from pgm_models.model_selection.loo import DirichletLOO


def log_linear(design, log_table: np.ndarray) -> np.ndarray:
    """Design (N, T) @ log_table(K, T)ᵀ with 0 · log 0 = 0.

    The finite part is a plain product; a row gets −inf for class k exactly where a positive
    design entry meets log θ = −inf (so α = 0 gives −inf, never NaN).
    """
    blocked = np.isneginf(log_table)
    if not blocked.any():
        return np.asarray(design @ log_table.T)
    score = design @ np.where(blocked, 0.0, log_table).T
    hits = design @ blocked.astype(float).T
    return np.where(hits > 0, -np.inf, score)


def is_csr(design) -> bool:
    """Whether ``design`` is a scipy CSR matrix or array (the compiled sparse loops read its three arrays)."""
    return sp.issparse(design) and design.format == "csr"


def class_weights(class_index: np.ndarray, weight: np.ndarray, n_classes: int) -> np.ndarray:
    """The (N, K) matrix of w_n 1{y_n = k}, dense so that designᵀ @ it is a dense (T, K)."""
    weights = np.zeros((len(class_index), n_classes))
    weights[np.arange(len(class_index)), class_index] = weight
    return weights


class DiscreteNB(DirichletLOO, DirichletEvidence, BayesianClassifier):
    """Template for naive Bayes with Dirichlet(alpha) priors on categorical feature parameters.

    Subclasses give ``_encode`` (X → encoded), ``_design`` (encoded → design matrix),
    ``_prior_concentration`` and ``_feature_blocks`` (the Dirichlet layout),
    ``_feature_counts`` (feature_count_ in that layout), ``_feature_log_likelihood``,
    ``_feature_posterior`` and the two PyMC forms.
    """

    _template = True

    # whether a dense design is counted by the compiled loop (numba loaded): BernoulliNB's 0/1 design, whose
    # sums under whole weights are exact either way; a design of fractional values keeps the product's rounding
    _compiled_dense_counts = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # as scikit-learn's discrete naive Bayes: its training-accuracy check feeds continuous
        # blobs, which are not counts, presence indicators or categories
        tags.classifier_tags.poor_score = True
        return tags

    def _design(self, encoded):
        return encoded

    def _n_design_columns(self) -> int:
        return self.n_features_in_

    def _feature_blocks(self):
        return None

    def _init_counts(self, encoded, class_index, weight):
        alpha = self._concentration_parameter(self.alpha, "alpha", self.n_features_in_, "feature")
        blocks = self._feature_blocks()
        # the prior depends on the model, the classes, the layout and alpha only: every fit with
        # these has it (the folds of a cross-validation), made once (pgm_models._utils.shared_priors)
        layout = (
            self.n_features_in_,
            self._n_design_columns(),
            None if blocks is None else tuple(np.asarray(blocks).tolist()),
        )
        self._feature_prior = shared_prior(
            ("feature", type(self), len(self.classes_), *layout, alpha.shape, alpha.tobytes()),
            lambda: Dirichlet(self._prior_concentration(alpha.copy()), blocks),
            self,
        )
        self.feature_count_ = np.zeros((len(self.classes_), self._n_design_columns()))

    def _count(self, encoded, class_index, weight):
        self.feature_count_ = self.feature_count_ + self._batch_counts(encoded, class_index, weight)
        self.feature_concentration_ = self._feature_prior.posterior(self._feature_counts()).concentration

    @single_blas_thread
    def _batch_counts(self, encoded, class_index, weight):
        """(K, T) Σ_n w_n 1{y_n = k} D[n, t] of one batch, on one BLAS thread: a K-row product reads the
        design once and gains nothing from threads, which on a busy machine wait on each other (BernoulliNB's
        fit took many times its single-thread time beside other work), and its sums then do not depend on
        the core count.
        """
        design = self._design(encoded)
        if (
            self._compiled_dense_counts
            and jit.loaded()
            and isinstance(design, np.ndarray)
            and design.ndim == 2
            and design.dtype == np.float64
        ):
            # a dense design read once by a compiled loop: no (N, K) matrix of class weights to build
            kernels = jit.kernels("pgm_models.naive_bayes._kernels")
            return kernels.dense_class_sums(design, class_index, np.asarray(weight, dtype=float), len(self.classes_))
        if jit.loaded() and is_csr(design) and design.dtype == np.float64:
            # the stored entries read once, row by row: no (N, K) class weights nor a transposed product
            kernels = jit.kernels("pgm_models.naive_bayes._kernels")
            return kernels.csr_class_sums(design, class_index, np.asarray(weight, dtype=float), len(self.classes_))
        return np.asarray(class_weights(class_index, weight, len(self.classes_)).T @ design)

    def _feature_counts(self):
        return self.feature_count_

    def _feature_log_prob(self, estimate):
        return log_probabilities(self._feature_prior.estimate(self._feature_counts(), estimate))

    def _check_proper_prior(self):
        super()._check_proper_prior()
        if np.any(self._feature_prior.concentration <= 0):  # alpha as given or as learned
            raise ValueError(
                f"alpha={self.alpha!r}: the PyMC model needs a proper prior (alpha > 0); "
                "with 0 only the closed-form posterior is available"
            )
