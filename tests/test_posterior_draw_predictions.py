"""Predictions under posterior draws: PosteriorDraw as an estimate, predict_proba_draws, and the
posterior summary that reads its intervals off exact draws."""

import numpy as np
import pytest
from scipy import stats

import pgm_models.base
from pgm_models import AODE, LogisticRegression
from pgm_models.conjugate import PosteriorDraw
from pgm_models.inference.summary import posterior_summary

MODELS = ["CategoricalNB", "BernoulliNB", "MultinomialNB", "GaussianNB", "LDA", "QDA", "SPODE", "TAN"]


@pytest.mark.parametrize("name", MODELS)
def test_averaging_the_joint_over_draws_gives_the_posterior_predictive(name, fitted_models, training_data):
    """E_θ[p(x, y | θ)] is the exact posterior predictive p(x, y | D) when each parameter enters
    the likelihood once (every model here): the average of 4000 draws must agree within 5
    Monte Carlo standard errors. A draw reused across rows or re-drawn within a row would not."""
    model = fitted_models[name]
    X = training_data[name][0][:4]
    rng = np.random.default_rng(0)
    draws = np.exp(np.stack([model.predict_joint_log_proba(X, estimate=PosteriorDraw(rng)) for _ in range(4000)]))
    exact = np.exp(model.predict_joint_log_proba(X, estimate="predictive"))
    standard_error = draws.std(axis=0) / np.sqrt(len(draws))
    assert np.all(np.abs(draws.mean(axis=0) - exact) <= 5 * standard_error + 1e-300)
    assert np.all(draws.std(axis=0) > 0)  # the draws do vary


def test_every_row_of_a_pass_sees_the_same_draw_even_across_scoring_blocks(fitted_models, training_data, monkeypatch):
    model = fitted_models["SPODE"]
    X = training_data["SPODE"][0]
    monkeypatch.setattr(pgm_models.base, "FLOATS_PER_BLOCK", 1)  # 256-row blocks
    tiled = X.iloc[np.tile(np.arange(len(X)), 40)]  # 560 rows: three blocks under a point estimate
    proba = model.predict_proba(tiled, estimate=PosteriorDraw(1))
    np.testing.assert_array_equal(proba[:14], proba[-14:])
    assert not np.allclose(proba[:14], model.predict_proba(X, estimate=PosteriorDraw(2)))


def test_a_missing_super_parent_is_summed_out_under_one_draw(fitted_models, training_data):
    model = fitted_models["SPODE"]  # parent "outlook" with three values
    row = training_data["SPODE"][0].iloc[[0]]
    rows = row.iloc[[0, 0, 0, 0]].copy()
    rows.iloc[0, 0] = np.nan
    for position, value in enumerate(["sunny", "overcast", "rainy"], start=1):
        rows.iloc[position, 0] = value
    joint = model.predict_joint_log_proba(rows, estimate=PosteriorDraw(3))
    np.testing.assert_allclose(joint[0], np.logaddexp.reduce(joint[1:], axis=0), rtol=1e-12)


def test_predict_proba_draws_is_seeded_and_normalised(fitted_models, training_data):
    model = fitted_models["GaussianNB"]
    X = training_data["GaussianNB"][0][:5]
    draws = model.predict_proba_draws(X, n_draws=30, random_seed=7)
    assert draws.shape == (30, 5, 3)
    np.testing.assert_allclose(draws.sum(axis=2), 1.0)
    np.testing.assert_array_equal(draws, model.predict_proba_draws(X, n_draws=30, random_seed=7))


def test_aode_has_no_joint_posterior_to_draw_from(fitted_models, training_data):
    assert not hasattr(AODE().fit(*training_data["SPODE"]), "predict_proba_draws")


@pytest.mark.nuts
def test_logistic_regression_draws_are_its_nuts_draws():
    from pgm_models.datasets import load_dataset

    X, y = load_dataset("iris")
    X, y = X.to_numpy()[50:, 2:], y.to_numpy()[50:]
    model = LogisticRegression(prior_sd=2.0).fit(X, y)
    model.sample_posterior(draws=200, chains=2, cores=1, random_seed=1, progressbar=False)
    draws = model.predict_proba_draws(X, n_draws=10_000)  # more than there are: every draw once
    assert draws.shape == (400, 100, 2)
    np.testing.assert_allclose(draws.mean(axis=0), model.predict_proba(X, estimate="predictive"), rtol=1e-10)
    summary = posterior_summary(model)
    np.testing.assert_allclose(
        summary.loc[summary.parameter == "intercept[Iris-virginica]", "mean"],
        model.idata_.posterior["intercept"].mean(),
    )
    assert "mode" not in summary.columns


def test_summary_of_a_closed_form_reads_the_beta_quantiles(fitted_models):
    model = fitted_models["CategoricalNB"]  # weather: 9 yes, 5 no, class_alpha 1 → π_yes ~ Beta(10, 6)
    summary = posterior_summary(model, prob=0.9).set_index("parameter")
    row = summary.loc["class_prob[yes]"]
    assert row["mean"] == pytest.approx(10 / 16) and row["sd"] == pytest.approx(stats.beta(10, 6).std())
    assert row["mode"] == pytest.approx(9 / 14)
    # the Beta marginal's own quantiles, not those of draws (once within 0.01 of them)
    np.testing.assert_allclose([row["q5.0%"], row["q95.0%"]], stats.beta(10, 6).ppf([0.05, 0.95]), rtol=1e-12)
    assert len(summary) == 2 + 2 * (3 + 3 + 2 + 2)  # class, outlook, temperature, humidity, windy


def test_summary_of_aode_has_one_block_per_spode_with_its_weight(training_data):
    X, y = training_data["SPODE"]
    bma = AODE(weights="bma").fit(X, y)
    summary = posterior_summary(bma, n_draws=200)
    weights = summary.groupby("spode", sort=False)["weight"].first()
    assert list(weights.index) == list(X.columns)
    evidence = bma.spode_log_evidence()
    np.testing.assert_allclose(weights, np.exp(evidence - np.logaddexp.reduce(evidence)))
    uniform = posterior_summary(AODE().fit(X, y), n_draws=200)
    assert set(uniform["weight"]) == {0.25}


def test_summary_errors_are_named(fitted_models, training_data):
    with pytest.raises(ValueError, match="prob must be in"):
        posterior_summary(fitted_models["CategoricalNB"], prob=1.5)
    X, y = training_data["GaussianNB"]
    with pytest.raises(ValueError, match="call sample_posterior"):
        posterior_summary(LogisticRegression().fit(X, y))
