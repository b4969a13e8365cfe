"""The NUTS backend option: every installed backend passes check_posterior with the model's names
and dims; unknown or missing backends give clear errors."""

import pytest
from conftest import assert_names_like_the_exact_draws

from pgm_models.inference import sampling
from pgm_models.inference.verify import check_posterior

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture(scope="module")
def bernoulli(fitted_models):
    """BernoulliNB on 40 rows × 4 binary features: 9 parameters, Beta and Dirichlet posteriors."""
    return fitted_models["BernoulliNB"]


@pytest.mark.nuts
@pytest.mark.parametrize("sampler", sampling.SAMPLERS)
def test_each_installed_backend_passes_check_posterior_with_the_models_names_and_dims(sampler, bernoulli):
    for package in sampling._PACKAGES[sampler]:
        pytest.importorskip(package)
    # False-failure chance per run, well below 1e-4: the z test's family error is 1e-6 (the
    # Bonferroni bound over all 18 z-scores; sampled sds' heavier tails at most double it).
    # 4 chains × 1000 draws of a 9-parameter posterior of near-Gaussian Beta/Dirichlet marginals
    # give bulk ESS near 4000 on every backend (measured 3000-4500), so ESS < 400 needs a ten-fold
    # drop and split R-hat > 1.01 needs a deviation of many of its sds (≈ 1/ESS-scale); divergences
    # do not occur on these smooth, unbounded-in-transformed-space posteriors.
    reports = []
    idata = bernoulli.sample_posterior(
        draws=1000,
        tune=1000,
        chains=4,
        sampler=sampler,
        random_seed=20261122,
        progress=lambda done, total: reports.append((done, total)),
    )
    assert reports[-1] == (8000, 8000)  # every backend tells progress that the run is over
    result = check_posterior(bernoulli, idata, family_error=1e-6)
    assert result.passed, result
    assert_names_like_the_exact_draws(bernoulli, idata)
    # the model's own variables only, as pm.sample returns them: an unconstrained "…__" form would be
    # judged by check_sampler(idata) too; no tuning draws
    assert not [name for name in idata.posterior.data_vars if name.endswith("__")]
    assert not {"warmup_posterior", "warmup_sample_stats"} & set(idata.groups())
    assert idata.posterior.sizes["chain"] == 4 and idata.posterior.sizes["draw"] == 1000
    assert idata.sample_stats["diverging"].dtype == bool


def test_an_unknown_sampler_is_named_with_the_valid_ones(bernoulli):
    with pytest.raises(
        ValueError, match=r"sampler='stan' is not one of 'pymc', 'nutpie-numba', 'nutpie', 'numpyro', 'blackjax'"
    ):
        bernoulli.sample_posterior(sampler="stan")


def test_a_missing_backend_says_what_to_install(monkeypatch, bernoulli):
    # one package that is never installed: the message must not depend on what else (jax) this machine has
    monkeypatch.setitem(sampling._PACKAGES, "numpyro", ("numpyro_is_not_installed",))
    with pytest.raises(
        ImportError,
        match=r"sampler='numpyro' needs the 'numpyro_is_not_installed' package\(s\), which are "
        r"not installed \(pip install numpyro_is_not_installed\)",
    ):
        bernoulli.sample_posterior(sampler="numpyro")
    assert "numpyro" not in sampling.available_samplers()
    with pytest.raises(ValueError, match="not installed"):  # one line on the command line, like bad arguments
        sampling.check_sampler_name("numpyro")


def test_the_default_sampler_is_installed():
    assert sampling.DEFAULT_SAMPLER in sampling.available_samplers()
    assert sampling.available_samplers()[0] == "pymc"


@pytest.mark.nuts
def test_pymc_backend_reports_every_iteration_to_progress(bernoulli):
    reports = []
    bernoulli.sample_posterior(
        draws=20,
        tune=10,
        chains=2,
        cores=1,
        sampler="pymc",
        random_seed=1,
        progress=lambda done, total: reports.append((done, total)),
    )
    # one report per iteration of each chain (tuning included)
    assert reports == [(i, 60) for i in range(1, 61)]


def test_zoo_command_names_an_unknown_sampler_in_one_line(capsys):
    from pgm_models.app.cli import main

    assert main(["zoo", "--dataset", "weather.nominal", "--sampler", "stan"]) == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert (
        error
        == "pgm-models: error: sampler='stan' is not one of 'pymc', 'nutpie-numba', 'nutpie', 'numpyro', 'blackjax'"
    )


def test_sample_posterior_defaults_to_four_chains():
    """Split R-hat ≤ 1.01 over many parameters needs four chains (README, issue 19): the default."""
    import inspect

    from pgm_models import CategoricalNB, LogisticRegression

    for model in (CategoricalNB, LogisticRegression):
        assert inspect.signature(model.sample_posterior).parameters["chains"].default == 4
