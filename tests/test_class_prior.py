"""class_prior: a fixed class-probability vector in place of the class posterior (a prevalence-shift
correction), on every estimator; scikit-learn's priors / class_prior as the reference."""

import numpy as np
import pytest
import sklearn.discriminant_analysis as sda
import sklearn.naive_bayes as skl
from sklearn.datasets import load_wine

import pgm_models
from pgm_models import (
    AODE,
    LDA,
    SPODE,
    CategoricalNB,
    GaussianNB,
    LogisticRegression,
    MultinomialNB,
)
from pgm_models.datasets import load_dataset

CLASSIFIERS = [name for name in pgm_models.ESTIMATORS if name != "HierarchicalNB"]


@pytest.fixture(scope="module")
def iris():
    X, y = load_dataset("iris")
    return X.to_numpy(), y.to_numpy()


def test_gaussian_nb_with_priors_matches_scikit_learn(iris):
    X, y = iris
    prior = [0.5, 0.3, 0.2]
    ours = GaussianNB(estimate="mle", var_smoothing=1e-9, class_prior=prior).fit(X, y)
    theirs = skl.GaussianNB(priors=prior, var_smoothing=1e-9).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-12)
    # the same prior set on a model fitted without one
    refitted = GaussianNB(estimate="mle", var_smoothing=1e-9).fit(X, y).set_class_prior(prior)
    np.testing.assert_allclose(refitted.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-12)


@pytest.mark.parametrize("dataset", ["iris", "wine"])
def test_lda_with_priors_matches_scikit_learn(dataset, iris):
    """Given priors, scikit-learn also weights the class covariances by them (covariance_ =
    Σ_k priors_k Σ_k); the pooled MLE covariance is matched as the MLE-limit test matches it, by
    fitting without priors, and the priors enter its intercepts as its fit puts them there
    (+ log priors_k)."""
    X, y = iris if dataset == "iris" else load_wine(return_X_y=True)
    prior = np.linspace(1, 2, 3) / np.linspace(1, 2, 3).sum()
    ours = LDA(class_alpha=0, estimate="mle", class_prior=prior).fit(X, y)
    theirs = sda.LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    theirs.intercept_ = theirs.intercept_ - np.log(theirs.priors_) + np.log(prior)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-12)


def test_multinomial_nb_with_class_prior_matches_scikit_learn():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 5, size=(60, 8))
    y = rng.integers(0, 3, size=60)
    prior = [0.7, 0.2, 0.1]
    ours = MultinomialNB(alpha=0.5, estimate="mean", class_prior=prior).fit(X, y)
    theirs = skl.MultinomialNB(alpha=0.5, class_prior=prior).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-12)


def test_a_fixed_prior_replaces_the_class_posterior_under_every_estimate():
    """CategoricalNB on vote: P(y | x) with the prior is the no-prior posterior reweighted by
    prior_k / π̂_k (π̂ the class estimate in use), renormalised; PosteriorDraw included (the class
    draw then does not enter)."""
    X, y = load_dataset("vote")
    prior = np.array([0.9, 0.1])
    plain = CategoricalNB().fit(X, y)
    for estimate in ("mean", "map", "mle", "predictive"):
        pi = plain._class_prior.estimate(plain.class_count_, estimate)
        expected = plain.predict_proba(X, estimate=estimate) * prior / pi
        expected /= expected.sum(axis=1, keepdims=True)
        fixed = CategoricalNB(class_prior=prior).fit(X, y)
        np.testing.assert_allclose(fixed.predict_proba(X, estimate=estimate), expected, rtol=1e-12, atol=1e-14)
    draws_a = CategoricalNB(class_prior=prior).fit(X, y).predict_proba_draws(X[:5], n_draws=3, random_seed=1)
    draws_b = CategoricalNB(class_prior=[0.2, 0.8]).fit(X, y).predict_proba_draws(X[:5], n_draws=3, random_seed=1)
    # the same feature draws (the class draw is skipped in both): the odds move by the prior ratio
    ratio = (draws_a[..., 0] / draws_a[..., 1]) / (draws_b[..., 0] / draws_b[..., 1])
    np.testing.assert_allclose(ratio, (0.9 / 0.1) / (0.2 / 0.8), rtol=1e-9)


@pytest.mark.parametrize("Model", [SPODE, AODE])
def test_semi_naive_joint_tables_keep_their_attribute_given_class(Model):
    """SPODE/AODE have no separate class factor: P(y, x_a) is scaled by prior_k / Σ_v P(k, v), so a
    SPODE's P(y | x) is the plain one reweighted by prior_k over its joint table's class marginal."""
    X, y = load_dataset("vote")
    prior = np.array([0.25, 0.75])
    plain, fixed = Model().fit(X, y), Model(class_prior=prior).fit(X, y)
    assert not np.allclose(plain.predict_proba(X), fixed.predict_proba(X))
    if Model is SPODE:
        from pgm_models.conjugate import Dirichlet

        joint = Dirichlet(plain._joint_concentration()).estimate(plain._counts()[0], "mean")  # P(y, x_a), K·r_a cells
        marginal = joint.reshape(2, -1).sum(axis=1)
        expected = plain.predict_proba(X) * prior / marginal
        expected /= expected.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(fixed.predict_proba(X), expected, rtol=1e-10)
    else:  # one SPODE's shifted tables are each parent's in the average: the map estimate (NumPy path) too
        for estimate in ("mean", "map"):
            spodes = [
                SPODE(parent=a, class_prior=prior).fit(X, y).predict_joint_log_proba(X, estimate=estimate)
                for a in range(X.shape[1])
            ]
            averaged = np.log(np.mean(np.exp(spodes), axis=0))
            expected = np.exp(averaged - np.log(np.exp(averaged).sum(axis=1, keepdims=True)))
            rows = ~X.isna().any(axis=1).to_numpy()  # AODE averages the parents a row has
            np.testing.assert_allclose(fixed.predict_proba(X, estimate=estimate)[rows], expected[rows], rtol=1e-9)


def test_logistic_regression_prevalence_shift_moves_the_log_odds_by_the_prior_ratio():
    X, y = load_dataset("breast-cancer")
    from sklearn.preprocessing import OneHotEncoder

    X = OneHotEncoder(sparse_output=False).fit_transform(X.astype(str))
    plain = LogisticRegression().fit(X, y)
    frequency = plain.class_count_ / plain.class_count_.sum()
    prior = np.array([0.5, 0.5])
    shifted = LogisticRegression(class_prior=prior).fit(X, y)
    plain_odds = np.log(plain.predict_proba(X)[:, 1] / plain.predict_proba(X)[:, 0])
    shifted_odds = np.log(shifted.predict_proba(X)[:, 1] / shifted.predict_proba(X)[:, 0])
    np.testing.assert_allclose(shifted_odds - plain_odds, np.log(frequency[0] / frequency[1]), rtol=1e-9)
    # the training frequencies themselves change nothing
    np.testing.assert_allclose(
        plain.set_class_prior(frequency).predict_proba(X), LogisticRegression().fit(X, y).predict_proba(X), atol=1e-14
    )


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_set_class_prior_equals_fitting_with_it_and_none_restores_the_posterior(name):
    X, y = (
        load_dataset("vote")
        if name
        not in ("GaussianNB", "LDA", "QDA", "MultinomialNB", "BernoulliNB", "ComplementNB", "LogisticRegression")
        else load_dataset("iris")
    )
    if name in ("MultinomialNB", "BernoulliNB", "ComplementNB"):
        X = X.to_numpy()
    y = y.to_numpy()
    if name == "LogisticRegression":
        X = X.to_numpy()
    n_classes = len(np.unique(y))
    prior = np.arange(1, n_classes + 1) / np.arange(1, n_classes + 1).sum()
    Model = getattr(pgm_models, name)
    plain = Model().fit(X, y)
    before = plain.predict_proba(X)
    fitted_with = Model(class_prior=prior).fit(X, y).predict_proba(X)
    assert plain.set_class_prior(prior) is plain
    np.testing.assert_array_equal(plain.predict_proba(X), fitted_with)
    assert not np.allclose(fitted_with, before)
    np.testing.assert_array_equal(plain.set_class_prior(None).predict_proba(X), before)


@pytest.mark.parametrize(
    "bad, problem",
    [
        ([0.5, 0.5, 0.0], r"class_prior has shape \(3,\); it needs one probability per class \(2\)"),
        ([1.2, -0.2], "class_prior must be finite and ≥ 0"),
        ([0.5, 0.4], "class_prior must sum to 1"),
        ([[0.5, 0.5]], "class_prior has shape"),
        ("ab", "class_prior must be a vector of class probabilities"),
    ],
)
def test_bad_class_prior_is_refused_naming_the_parameter(bad, problem):
    X, y = load_dataset("vote")
    with pytest.raises(ValueError, match=problem):
        CategoricalNB(class_prior=bad).fit(X, y)
    with pytest.raises(ValueError, match=problem):
        CategoricalNB().fit(X, y).set_class_prior(bad)
    CategoricalNB(class_prior=[0.5, 0.5 + 5e-9]).fit(X, y)  # within 1e-8 of 1


def test_set_class_prior_needs_a_fitted_model():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        CategoricalNB().set_class_prior([0.5, 0.5])


def test_loo_scores_the_fitted_posterior_whatever_the_class_prior():
    X, y = load_dataset("vote")
    plain = CategoricalNB().fit(X, y).loo(X, y)
    fixed = CategoricalNB(class_prior=[0.9, 0.1]).fit(X, y).loo(X, y)
    assert plain.elpd_loo == fixed.elpd_loo


def test_hierarchical_nb_passes_its_class_prior_to_every_draw():
    """At one λ draw the hierarchical predictive is CategoricalNB's posterior predictive at α = λ,
    with the class prior in place of the class posterior (set after the fit too)."""
    from pgm_models import HierarchicalNB

    X, y = load_dataset("vote")
    model = HierarchicalNB(class_prior=[0.3, 0.7]).fit_counts(X, y)
    model.alpha_draws_ = np.array([[2.5]])
    reference = CategoricalNB(alpha=2.5, class_prior=[0.3, 0.7]).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X, estimate="predictive"), rtol=1e-12)
    model.set_class_prior([0.6, 0.4])
    np.testing.assert_allclose(
        model.predict_proba(X),
        reference.set_class_prior([0.6, 0.4]).predict_proba(X, estimate="predictive"),
        rtol=1e-12,
    )


FACTORISED = [
    "CategoricalNB",
    "BernoulliNB",
    "MultinomialNB",
    "GaussianNB",
    "LDA",
    "QDA",
    "TAN",
    "HNB",
    "MANB",
    "BMATAN",
    "BayesNetClassifier",
    "KDB",
]


@pytest.mark.parametrize("name", FACTORISED)
def test_a_model_with_a_class_factor_reweights_its_posterior_by_the_prior(name):
    """p(y | x) ∝ p(y) L(x | y) for every model with a class factor: the fixed prior's
    probabilities are the posterior's reweighted by prior_k / π̂_k (π̂ the class estimate in use)."""
    numeric = name in ("GaussianNB", "LDA", "QDA", "MultinomialNB", "BernoulliNB")
    X, y = load_dataset("iris" if numeric else "vote")
    X, y = (X.to_numpy() if numeric else X), y.to_numpy()
    prior = np.arange(1, len(np.unique(y)) + 1, dtype=float)[::-1]
    prior /= prior.sum()
    Model = getattr(pgm_models, name)
    plain = Model().fit(X, y)
    for estimate in ("mean", "mle"):
        pi = plain._class_prior.estimate(plain.class_count_, estimate)
        expected = plain.predict_proba(X, estimate=estimate) * prior / pi
        expected /= expected.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(
            Model(class_prior=prior).fit(X, y).predict_proba(X, estimate=estimate), expected, rtol=1e-9, atol=1e-12
        )


def test_complement_nb_adds_the_log_prior_to_its_scores():
    rng = np.random.default_rng(0)
    X = rng.poisson(1.0, (60, 8)).astype(float)
    y = rng.integers(0, 3, 60)
    prior = np.array([0.5, 0.3, 0.2])
    plain = pgm_models.ComplementNB().fit(X, y)
    shifted = pgm_models.ComplementNB(class_prior=prior).fit(X, y)
    np.testing.assert_allclose(
        shifted.predict_joint_log_proba(X), plain.predict_joint_log_proba(X) + np.log(prior), rtol=1e-12
    )
