"""GaussianNB's defaults on awkward real-data shapes: a declared class with no rows, a feature
constant within a class, and the predictive's memory (issues #14 and #17 item 12)."""

import tracemalloc

import numpy as np
import pandas as pd
import pytest
import sklearn.naive_bayes as skl
from scipy import stats

from pgm_models import GaussianNB


@pytest.fixture
def empty_class():
    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0]})
    y = pd.Series(pd.Categorical(["p", "p", "q", "q"], categories=["p", "q", "r"]))
    return X, y


def test_a_declared_class_with_no_rows_predicts_from_its_prior(empty_class):
    X, y = empty_class
    # prior of class r by hand: m0 = 1.5 (overall mean), s0² = 1.25 (overall variance),
    # ν0 = 3: σ² ~ InvGamma(1.5, 1.5 · 1.25), μ | σ² ~ N(1.5, σ²/0.01); its class probability
    # (class_alpha = 2 so that the MAP's is positive too): mean 2/10, mode 1/7
    a0, b0, m0, kappa0 = 1.5, 1.5 * 1.25, 1.5, 0.01
    x = X["a"].to_numpy()
    by_hand = {
        "mean": stats.norm.logpdf(x, m0, np.sqrt(b0 / (a0 - 1))),
        "map": stats.norm.logpdf(x, m0, np.sqrt(b0 / (a0 + 1.5))),
        "predictive": stats.t.logpdf(x, 2 * a0, m0, np.sqrt(b0 * (kappa0 + 1) / (a0 * kappa0))),
    }
    class_prob = {"mean": 2 / 10, "map": 1 / 7, "predictive": 2 / 10}
    for estimate, log_density in by_hand.items():
        model = GaussianNB(estimate=estimate, class_alpha=2.0).fit(X, y)
        np.testing.assert_allclose(
            model.predict_joint_log_proba(X)[:, 2], np.log(class_prob[estimate]) + log_density, rtol=1e-12
        )


def test_an_estimate_that_does_not_exist_names_one_that_does(empty_class):
    X, y = empty_class
    with pytest.raises(
        ValueError,
        match=r"class 'r', feature 'a': the mle variance is undefined \(n = 0 rows.*'mean', 'map' or 'predictive'",
    ):
        GaussianNB(estimate="mle").fit(X, y).predict_proba(X)
    # ν0 ≤ 2 leaves the empty class without a posterior mean of σ²; the message's remedies work
    with pytest.raises(
        ValueError, match=r"no posterior mean .*use estimate='map' or 'predictive', or var_strength > 2"
    ):
        GaussianNB(var_strength=2.0).fit(X, y).predict_proba(X)
    for remedy in (
        dict(var_strength=2.0, estimate="map"),
        dict(var_strength=2.0, estimate="predictive"),
        dict(var_strength=2.5),
    ):
        proba = GaussianNB(class_alpha=2.0, **remedy).fit(X, y).predict_proba(X)  # class_alpha 2: a MAP class prob > 0
        assert np.isfinite(proba).all() and (proba[:, 2] > 0).all()


def test_a_feature_constant_within_a_class_names_var_smoothing_which_matches_scikit_learn():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    y = np.repeat([0, 1, 2], 10)
    X[y == 1, 2] = 4.0  # constant within class 1, as integer-valued UCI features often are
    with pytest.raises(
        ValueError,
        match=r"class 1, feature 2: the mle variance is 0.0 \(n = 10 rows; the feature is constant.*var_smoothing",
    ):
        GaussianNB(estimate="mle").fit(X, y).predict_proba(X)
    ours = GaussianNB(estimate="mle", class_alpha=0, var_smoothing=1e-9).fit(X, y)
    theirs = skl.GaussianNB(var_smoothing=1e-9).fit(X, y)
    np.testing.assert_allclose(ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X), rtol=1e-10)
    with pytest.raises(ValueError, match="var_smoothing must be a number ≥ 0, got -1"):
        GaussianNB(var_smoothing=-1).fit(X, y)


def test_predictive_scores_without_rows_by_classes_by_features_temporaries():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40_000, 50)), np.arange(40_000) % 10
    model = GaussianNB(estimate="predictive").fit(X, y)
    tracemalloc.start()
    scores = model.predict_joint_log_proba(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 0.25 * X.size * 10 * 8  # an (N, K, F) temporary would be 160 MB; blocks keep ~20 MB
    post = model.posterior_
    scale = np.sqrt(post.b * (post.kappa + 1) / (post.a * post.kappa))
    by_scipy = stats.t.logpdf(X[:50, None, :], df=2 * post.a, loc=post.m, scale=scale).sum(axis=2)
    np.testing.assert_allclose(
        scores[:50], np.log(model._class_prior.estimate(model.class_count_, "mean")) + by_scipy, rtol=1e-12
    )
