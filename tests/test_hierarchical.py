"""Hierarchical naive Bayes (a hyperprior on alpha) and simulation-based calibration."""

from __future__ import annotations

import arviz as az
import numpy as np
import pytest

from pgm_models import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB
from pgm_models.inference.calibration import simulation_based_calibration
from pgm_models.naive_bayes.hierarchical import HierarchicalNB

# SBC decisions use a uniformity test at 1e-6: a correct model fails with probability 1e-6.
SBC_ALPHA = 1e-6


def _beta_binomial_problem(n_trials=20):
    """θ ~ Beta(2, 3), k ~ Binomial(20, θ); the exact posterior is Beta(2 + k, 3 + 20 − k)."""

    def simulate(rng):
        theta = rng.beta(2, 3)
        return theta, rng.binomial(n_trials, theta)

    def posterior(k, n_draws, rng, extra=0):
        return rng.beta(2 + k + extra, 3 + n_trials - k, size=n_draws)

    return simulate, posterior


def test_sbc_passes_an_exact_posterior_and_fails_a_wrong_count():
    """Exact conjugate draws give uniform ranks; a likelihood that adds 10 successes to every
    count (grossly wrong) piles the ranks at the bottom. False-failure chances: 1e-6 for the
    correct model (the test's level); the wrong one's χ² over 500 replications is in the
    hundreds (p < 1e-40), so it passes with probability far below 1e-6."""
    simulate, posterior = _beta_binomial_problem()
    correct = simulation_based_calibration(simulate, posterior, n_replications=500, random_seed=1)
    wrong = simulation_based_calibration(
        simulate, lambda k, n, rng: posterior(k, n, rng, extra=10), n_replications=500, random_seed=1
    )
    assert correct.ranks.shape == (500, 1) and correct.names == ["theta"]
    assert correct.ranks.min() >= 0 and correct.ranks.max() <= 99
    assert correct.passed(SBC_ALPHA)
    assert not wrong.passed(SBC_ALPHA)
    assert wrong.ranks.mean() < 30  # too many successes: the posterior overshoots the truth


def test_sbc_names_and_checks_the_draws():
    result = simulation_based_calibration(
        lambda rng: ({"a": np.zeros(2), "b": 0.5}, None),
        lambda data, n, rng: {"a": np.ones((n, 2)), "b": np.zeros(n)},
        n_replications=3,
        n_draws=9,
    )
    assert result.names == ["a[0]", "a[1]", "b"]
    np.testing.assert_array_equal(result.ranks, [[0, 0, 9]] * 3)
    with pytest.raises(ValueError, match="returned 5 draws; expected n_draws=9"):
        simulation_based_calibration(
            lambda rng: (0.0, None), lambda d, n, rng: np.zeros(5), n_replications=1, n_draws=9
        )


@pytest.fixture(scope="module")
def counted(weather):
    return HierarchicalNB(CategoricalNB()).fit_counts(*weather)


def test_hierarchical_model_is_calibrated_by_its_own_exact_posterior(counted):
    """SBC of the hierarchical CategoricalNB with the PyMC model's own density: λ | counts
    drawn exactly (a 400-point grid of log λ, inverse CDF), so the check is of the model's
    log density, not of a sampler. A likelihood seeing three times the counts must fail.
    False-failure chances: 1e-6 (the level) for the correct model; the wrong one gave p ≈ 1e-40
    with these sizes, so passing by chance is far below 1e-6."""
    posterior = counted.grid_posterior_alpha(n_grid=400)
    correct = simulation_based_calibration(counted.simulate, posterior, n_replications=200, random_seed=2)
    wrong = simulation_based_calibration(
        counted.simulate, lambda c, n, rng: posterior(3 * c, n, rng), n_replications=200, random_seed=2
    )
    assert correct.passed(SBC_ALPHA)
    assert not wrong.passed(SBC_ALPHA)


@pytest.mark.parametrize("template", [CategoricalNB(), BernoulliNB(binarize=None), MultinomialNB()])
def test_model_density_is_the_dirichlet_multinomial_evidence_plus_the_hyperprior(
    template, weather, binary_data, count_data
):
    """The PyMC model's log density at λ equals the closed-form evidence log p(D | λ) (the fitted
    model's log_evidence at alpha = λ, less its class part) plus log Gamma(λ | 1, 1)."""
    data = {"CategoricalNB": weather, "BernoulliNB": binary_data, "MultinomialNB": count_data}[type(template).__name__]
    hierarchical = HierarchicalNB(template).fit_counts(*data)
    model = hierarchical.pymc_model()
    logp = model.compile_logp(jacobian=False)
    for lam in (0.3, 1.0, 4.0):
        fixed = template.set_params(alpha=lam).fit(*data)
        class_part = fixed._class_prior.log_evidence(fixed.class_count_).sum()
        expected = fixed.log_evidence() - class_part - lam  # log Gamma(λ | 1, 1) = −λ
        assert logp({"alpha_log__": np.log(lam)}) == pytest.approx(expected, rel=1e-10)


def test_prediction_averages_the_closed_form_predictive_over_alpha_draws(counted, weather):
    X, y = weather
    counted.alpha_draws_ = np.array([[0.2], [1.0], [5.0]])
    joint = counted.predict_joint_log_proba(X)
    by_hand = np.log(
        np.mean(
            [
                np.exp(CategoricalNB(alpha=a).fit(X, y).predict_joint_log_proba(X, estimate="predictive"))
                for a in (0.2, 1.0, 5.0)
            ],
            axis=0,
        )
    )
    np.testing.assert_allclose(joint, by_hand, rtol=1e-12)
    np.testing.assert_allclose(counted.predict_proba(X).sum(axis=1), 1.0)
    np.testing.assert_array_equal(counted.predict(X), counted.classes_[by_hand.argmax(axis=1)])


def test_bad_hyperprior_and_model_are_rejected(weather):
    with pytest.raises(ValueError, match="hyperprior='beta'"):
        HierarchicalNB(hyperprior="beta").fit_counts(*weather)
    with pytest.raises(ValueError, match="hyperprior_params"):
        HierarchicalNB(hyperprior_params=(1.0, -1.0)).fit_counts(*weather)
    with pytest.raises(ValueError, match="discrete naive Bayes"):
        HierarchicalNB(GaussianNB()).fit_counts(np.zeros((4, 1)), [0, 0, 1, 1])


@pytest.mark.nuts
def test_nuts_posterior_of_alpha_matches_the_exact_grid(weather):
    """NUTS on the counts-form model against the grid's exact posterior of λ: the mean of λ
    agrees within 4.5 Monte Carlo standard errors (false-failure chance 7e-6), and its sd
    within 15 %. Prediction integrates over the draws."""
    hierarchical = HierarchicalNB(draws=1000, tune=1000, chains=4, random_seed=20261122).fit(*weather)
    draws = hierarchical.idata_.posterior["alpha"]
    exact = hierarchical.grid_posterior_alpha(n_grid=4000)(
        hierarchical._layout()[2], 200_000, np.random.default_rng(0)
    )[:, 0]
    mcse = float(az.mcse(hierarchical.idata_, var_names=["alpha"])["alpha"])
    assert abs(float(draws.mean()) - exact.mean()) < 4.5 * np.hypot(mcse, exact.std() / np.sqrt(len(exact)))
    assert float(draws.std()) == pytest.approx(exact.std(), rel=0.15)
    assert hierarchical.predict_proba(weather[0]).shape == (14, 2)


def test_hierarchical_loo_reweights_alpha_draws_around_the_exact_conditional_loo(counted, weather):
    """With every λ draw equal, the leave-one-out weights are all equal too and the result is the
    exact joint LOO at that λ; with a spread of draws it lies between the extremes."""
    import xarray as xr

    X, y = weather
    for draws, check in (([[0.7]] * 8, "equal"), ([[0.3], [0.7], [2.0], [5.0]] * 2, "between")):
        counted.alpha_draws_ = np.array(draws)
        counted.idata_ = az.InferenceData(
            posterior=xr.Dataset({"alpha": (("chain", "draw"), counted.alpha_draws_.reshape(2, 4))})
        )
        result = counted.loo(X, y, conditional=False)
        at = [CategoricalNB(alpha=a).fit(X, y).loo(X, y, conditional=False).loo_i.values for a in np.unique(draws)]
        if check == "equal":
            np.testing.assert_allclose(result.loo_i.values, at[0], rtol=1e-10)
        else:
            assert np.all(result.loo_i.values >= np.min(at, axis=0) - 1e-9) and np.all(
                result.loo_i.values <= np.max(at, axis=0) + 1e-9
            )
