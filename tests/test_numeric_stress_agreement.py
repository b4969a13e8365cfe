"""Numeric and count models against scikit-learn, and against exact invariances where scikit-learn's
float64 route loses the digits: features from 1e-8 to 1e8, a per-feature Bernoulli alpha, and the
documented difference of LDA's class_prior from scikit-learn's priors."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.discriminant_analysis as sda
from scipy.special import log_softmax

from pgm_models import LDA, QDA, BernoulliNB

SCALES = 10.0 ** np.array([-8, -4, 0, 2, 5, 8])


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 300)
    X = rng.normal(size=(3, 6))[y] + rng.normal(size=(300, 6)) @ rng.normal(size=(6, 6)) * 0.5
    return X, y


@pytest.mark.parametrize(
    "make", [lambda: LDA(estimate="mle"), lambda: LDA(estimate="mle", shrinkage="auto"), lambda: QDA(estimate="mle")]
)
def test_mle_probabilities_do_not_change_when_features_are_rescaled_from_1e_minus_8_to_1e8(data, make):
    """Unshrunk and Ledoit–Wolf-on-standardised covariances are equivariant to rescaling a feature, so
    the probabilities are the same; scikit-learn's lsqr LDA (a least-squares solve of a covariance of
    condition 1e28) gets them wrong by up to 0.98 here and its QDA refuses the 1e-8 feature."""
    X, y = data
    expected = make().fit(X, y).predict_proba(X)
    np.testing.assert_allclose(make().fit(X * SCALES, y).predict_proba(X * SCALES), expected, rtol=0, atol=1e-12)


def test_lda_class_prior_shifts_the_class_term_only_unlike_scikit_learn_priors():
    """class_prior replaces log(n_k/N) in the scores and keeps the n_k/N-pooled covariance; scikit-learn's
    priors also reweight the pooled covariance (its covariance_ is Σ_k priors_k C_k)."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 200)
    X = rng.normal(size=(3, 4))[y] + rng.normal(size=(200, 4)) * np.array([1.0, 2.0, 0.5, 1.5]) * (1 + y[:, None])
    prior = np.array([0.5, 0.3, 0.2])
    ours = LDA(estimate="mle", class_prior=prior).fit(X, y).predict_log_proba(X)
    plain = sda.LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    shifted = plain.decision_function(X) - np.log(plain.priors_) + np.log(prior)
    np.testing.assert_allclose(ours, log_softmax(shifted, axis=1), rtol=1e-10, atol=1e-10)
    theirs = sda.LinearDiscriminantAnalysis(solver="lsqr", priors=prior).fit(X, y).predict_log_proba(X)
    assert np.abs(np.exp(ours) - np.exp(theirs)).max() > 0.05  # the documented difference is real


def test_bernoulli_per_feature_alpha_is_the_smoothed_frequency():
    """θ_kj = (N_kj + α_j) / (n_k + 2 α_j); scikit-learn's BernoulliNB cannot broadcast a per-feature alpha."""
    rng = np.random.default_rng(1)
    X = (rng.poisson(rng.gamma(0.3, 2.0, (3, 12))[y := rng.integers(0, 3, 80)]) > 0).astype(float)
    alpha = rng.uniform(0.05, 2.0, 12)
    n = np.bincount(y, minlength=3)
    theta = (np.array([X[y == k].sum(0) for k in range(3)]) + alpha) / (n[:, None] + 2 * alpha)
    joint = X @ np.log(theta).T + (1 - X) @ np.log1p(-theta).T + np.log(n / n.sum())
    model = BernoulliNB(alpha=alpha, class_alpha=0, binarize=None).fit(X, y)
    np.testing.assert_allclose(model.predict_log_proba(X), log_softmax(joint, axis=1), rtol=0, atol=1e-12)
