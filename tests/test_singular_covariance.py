"""A covariance the data leave singular under estimate="mle" is refused, with its rank decided
with a tolerance: rounding leaves the scatter of fewer than p + 1 rows, of collinear features or
of a constant feature just positive definite, and the "fit" then scored with it."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from pgm_models import LDA, QDA, GaussianNB, MixedNB

REMEDY = r"use estimate='mean'/'map' \(the prior keeps it positive definite\) or reg_param > 0"


def _rows(seed, n):
    """Rows at a scale and location whose rank-deficient scatter rounding leaves positive definite
    (found by trying seeds: a plain Cholesky factorised these)."""
    rng = np.random.default_rng(seed)
    scale, location = 10 ** rng.uniform(-3, 3), 10 ** rng.uniform(-2, 4)
    return rng.normal(size=(13, 4))[:n] * scale + location


def test_qda_class_of_three_rows_in_four_dimensions():
    X, y = _rows(14, 13), np.array([0] * 10 + [1] * 3)
    model = QDA(estimate="mle").fit(X, y)
    with pytest.raises(
        ValueError,
        match=rf"the covariance of class 1 is singular under estimate='mle' \(3 rows for 4 features.*{REMEDY}",
    ):
        model.predict_proba(X)
    assert np.isfinite(QDA(estimate="mle", reg_param=0.1).fit(X, y).predict_proba(X)).all()


@pytest.mark.parametrize("method", ["predict_proba", "predict_joint_log_proba"])
def test_lda_five_rows_in_four_dimensions(method):
    X, y = _rows(0, 5), np.array([0, 0, 0, 1, 1])
    with pytest.raises(
        ValueError, match=rf"the pooled covariance is singular under estimate='mle' \(5 rows for 4 features.*{REMEDY}"
    ):
        getattr(LDA(estimate="mle").fit(X, y), method)(X)


def test_collinear_features_are_singular():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2)) * [3.7, 0.013] + [120.0, -0.4]
    X = np.column_stack([X, X[:, 0] * 0.1 - X[:, 1] * 7])  # a third feature from the first two
    y = np.repeat([0, 1], 20)
    with pytest.raises(ValueError, match="the pooled covariance is singular"):
        LDA(estimate="mle").fit(X, y).predict(X)
    with pytest.raises(ValueError, match="the covariance of class 0 is singular"):
        QDA(estimate="mle").fit(X, y).predict(X)


def test_full_rank_mle_is_the_textbook_density():
    """The tolerance refuses nothing of full rank: QDA's mle joint is log π_k + log N(x | x̄_k, S_k/n_k)."""
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(16, 4)) * [100, 0.01, 1, 5] + [5e3, 0, 1, -7], np.repeat([0, 1], 8)
    model = QDA(estimate="mle", class_alpha=0).fit(X, y)
    expected = np.column_stack(
        [
            np.log(0.5) + multivariate_normal(X[y == k].mean(axis=0), np.cov(X[y == k].T, bias=True)).logpdf(X)
            for k in (0, 1)
        ]
    )
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-8)


@pytest.mark.parametrize("Model", [GaussianNB, MixedNB])
def test_constant_feature_at_rounding_level_is_zero_variance(Model):
    """A constant 0.1 leaves a scatter of about 1e-33 (its deviations' rounding), not 0."""
    X = np.column_stack([np.random.default_rng(1).normal(size=30), np.full(30, 0.1)])
    y = np.repeat([0, 1], 15)
    kwargs = {"column_types": {0: "gaussian", 1: "gaussian"}} if Model is MixedNB else {}
    model = Model(estimate="mle", var_smoothing=0, **kwargs).fit(X, y)
    with pytest.raises(
        ValueError, match=r"class 0, feature 1: the mle variance is 0.0 \(n = 15 rows; the feature is constant"
    ):
        model.predict_proba(X)
    smoothed = Model(estimate="mle", var_smoothing=1e-9, **kwargs).fit(X, y)
    assert np.isfinite(smoothed.predict_proba(X)).all()


def test_qda_mle_class_without_rows():
    X, y = np.random.default_rng(2).normal(size=(24, 3)), np.repeat([0, 1], 12)
    declared = QDA(estimate="mle").partial_fit(X, y, classes=[0, 1, 2])
    message = r"the covariance of class 2 is undefined under estimate='mle' \(the class has no rows.*estimate='mean', 'map' or 'predictive'"
    with pytest.raises(ValueError, match=message):
        declared.predict_proba(X)
    weightless = QDA(estimate="mle").fit(X, np.repeat([0, 1, 2], 8), sample_weight=np.repeat([1.0, 1.0, 0.0], 8))
    with pytest.raises(ValueError, match=message):
        weightless.predict_proba(X)
    assert np.isfinite(QDA(estimate="mean").partial_fit(X, y, classes=[0, 1, 2]).predict_proba(X)).all()
