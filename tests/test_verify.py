"""check_posterior: passes on NUTS samples of every model, fails when it should."""

import arviz as az
import numpy as np
import pytest
import xarray as xr
from scipy.stats import norm

from pgm_models.verify import COLUMNS, check_posterior

from conftest import WRONG_PRIOR

MODELS = ["CategoricalNB", "BernoulliNB", "MultinomialNB", "GaussianNB", "LDA", "QDA", "SPODE", "TAN"]


@pytest.mark.nuts
@pytest.mark.parametrize("name", MODELS)
def test_nuts_agrees_with_the_closed_form(name, fitted_models, nuts_samples):
    result = check_posterior(fitted_models[name], nuts_samples[name])
    assert result.passed, result.reasons
    assert list(result.table.columns) == COLUMNS
    n_parameters = sum(v.size for v in fitted_models[name].analytic_posterior("mean").data_vars.values())
    assert len(result.table) == n_parameters
    assert result.table["ok"].all()
    assert result.divergences == 0


@pytest.mark.nuts
@pytest.mark.parametrize("name", MODELS)
def test_nuts_disagrees_with_a_posterior_whose_prior_is_off_by_one(name, fitted_models, training_data, nuts_samples):
    right = fitted_models[name]
    wrong = type(right)(**{**right.get_params(), **WRONG_PRIOR[name]}).fit(*training_data[name])
    result = check_posterior(wrong, nuts_samples[name])
    assert not result.passed
    assert result.max_abs_z > result.thresholds["z_max"]
    assert any("|z| must be" in reason for reason in result.reasons)
    assert not any(reason.startswith("class_prob") for reason in result.reasons)  # class prior unchanged


@pytest.fixture(scope="module")
def exact(fitted_models):
    model = fitted_models["CategoricalNB"]
    return model, model.posterior_draws(1000, random_seed=4)


def test_exact_draws_pass_and_carry_the_models_names_and_dims(exact):
    model, idata = exact
    assert set(idata.posterior.data_vars) == set(model.analytic_posterior().data_vars)
    assert idata.posterior["feature_prob_outlook"].dims == ("chain", "draw", "class", "outlook_value")
    assert az.summary(idata, var_names=["class_prob"]).shape[0] == 2  # ArviZ works on it
    assert check_posterior(model, idata).passed


def test_exact_draws_of_a_wrong_posterior_fail(exact, weather):
    model, idata = exact
    wrong = type(model)(alpha=2).fit(*weather)
    assert not check_posterior(wrong, idata).passed


def test_default_z_threshold_is_bonferroni(exact):
    model, idata = exact
    result = check_posterior(model, idata)
    assert result.thresholds["z_max"] == pytest.approx(norm.isf(0.01 / (4 * len(result.table))))


def _with_posterior(idata, posterior, sample_stats=None):
    groups = {"posterior": posterior}
    if sample_stats is not None:
        groups["sample_stats"] = sample_stats
    return az.InferenceData(**groups)


def test_chains_that_disagree_fail_on_r_hat(exact):
    model, idata = exact
    posterior = idata.posterior.copy()
    shift = xr.DataArray([0.0, 0.05], dims="chain")
    posterior["class_prob"] = posterior["class_prob"] + shift
    result = check_posterior(model, _with_posterior(idata, posterior), z_max=1e9)
    assert not result.passed
    assert any("R-hat" in reason and reason.startswith("class_prob") for reason in result.reasons)


def test_autocorrelated_draws_fail_on_ess(exact):
    model, idata = exact
    sticky = idata.posterior.isel(draw=np.repeat(np.arange(50), 20)).assign_coords(draw=np.arange(1000))
    result = check_posterior(model, _with_posterior(idata, sticky), z_max=1e9, rhat_max=10)
    assert not result.passed
    assert all("bulk ESS" in reason for reason in result.reasons)


def test_divergences_fail(exact):
    model, idata = exact
    diverging = np.zeros((2, 1000), dtype=bool)
    diverging[0, 10] = True
    stats = xr.Dataset({"diverging": (("chain", "draw"), diverging)})
    result = check_posterior(model, _with_posterior(idata, idata.posterior, stats))
    assert not result.passed
    assert result.reasons == ["1 divergent transitions (at most 0 allowed)"]
    assert check_posterior(model, _with_posterior(idata, idata.posterior, stats), max_divergences=1).passed


def test_missing_parameter_is_an_error(exact):
    model, idata = exact
    with pytest.raises(ValueError, match=r"lacks the model's parameters \['class_prob'\]"):
        check_posterior(model, _with_posterior(idata, idata.posterior.drop_vars("class_prob")))


def test_verdict_reads_as_a_boolean_and_a_one_line_summary(exact, weather):
    model, idata = exact
    passed = check_posterior(model, idata)
    assert bool(passed) and repr(passed).endswith("PASSED)")
    failed = check_posterior(type(model)(alpha=2).fit(*weather), idata)
    assert not bool(failed) and "FAILED: feature_prob_" in repr(failed)


def test_analytic_posterior_rejects_an_unknown_statistic(exact):
    model, _ = exact
    with pytest.raises(ValueError, match="statistic='median' is not one of"):
        model.analytic_posterior("median")


@pytest.mark.nuts
def test_a_starved_nuts_run_fails_on_its_diagnostics(fitted_models):
    """No tuning and 40 draws: the sampler's own diagnostics must fail the check, whatever the means say."""
    model = fitted_models["CategoricalNB"]
    idata = model.sample_posterior(draws=40, tune=0, chains=2, cores=1, random_seed=3, progressbar=False,
                                   compute_convergence_checks=False)
    result = check_posterior(model, idata, z_max=1e9)
    assert not result.passed
    assert any("bulk ESS" in reason for reason in result.reasons)
    assert any("R-hat" in reason for reason in result.reasons)


def test_draws_are_deterministic_given_the_seed(exact, fitted_models, nuts_samples):
    model, _ = exact
    a, b = model.posterior_draws(50, random_seed=11), model.posterior_draws(50, random_seed=11)
    assert a.posterior.equals(b.posterior)
    assert not a.posterior.equals(model.posterior_draws(50, random_seed=12).posterior)


@pytest.mark.nuts
def test_nuts_is_deterministic_given_the_seed(fitted_models):
    model = fitted_models["BernoulliNB"]
    settings = dict(draws=30, tune=30, chains=1, cores=1, random_seed=7, progressbar=False, compute_convergence_checks=False)
    first, second = model.sample_posterior(**settings), model.sample_posterior(**settings)
    np.testing.assert_array_equal(first.posterior["feature_prob"].values, second.posterior["feature_prob"].values)


def test_check_sampler_judges_health_alone(exact):
    from pgm_models.verify import check_sampler

    model, idata = exact
    healthy = check_sampler(idata)
    assert healthy.passed and np.isnan(healthy.max_abs_z)
    assert set(healthy.table["variable"]) == set(idata.posterior.data_vars)
    sticky = idata.posterior.isel(draw=np.repeat(np.arange(50), 20)).assign_coords(draw=np.arange(1000))
    result = check_sampler(_with_posterior(idata, sticky), var_names=["class_prob"], rhat_max=10)
    assert not result.passed and len(result.table) == 2
    assert all("bulk ESS" in reason for reason in result.reasons)
