"""PyMC's chains run in parallel on every CPU the process may use (PyMC's own default halves the
CPU count, assuming hyper-threads, and ran four chains one after another on a 2-core machine)."""

import os

import arviz as az
import pymc as pm
import pytest

from pgm_models.inference import sampling

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture(scope="module")
def bernoulli(fitted_models):
    return fitted_models["BernoulliNB"]


@pytest.mark.parametrize("chains", [1, 4, 64])
def test_pymc_runs_as_many_chains_at_once_as_the_process_has_cpus(monkeypatch, chains, bernoulli):
    seen = {}
    monkeypatch.setattr(pm, "sample", lambda **kwargs: seen.update(kwargs) or az.InferenceData())
    sampling.sample(bernoulli._sampling_model(), sampler="pymc", chains=chains)
    assert seen["cores"] == min(chains, len(os.sched_getaffinity(0)))
    assert sampling.usable_cores() == len(os.sched_getaffinity(0))


def test_an_explicit_core_count_is_kept(monkeypatch, bernoulli):
    seen = {}
    monkeypatch.setattr(pm, "sample", lambda **kwargs: seen.update(kwargs) or az.InferenceData())
    sampling.sample(bernoulli._sampling_model(), sampler="pymc", chains=4, cores=3)
    assert seen["cores"] == 3


@pytest.mark.nuts
def test_chains_in_parallel_processes_report_every_iteration_to_progress(bernoulli):
    reports = []
    idata = bernoulli.sample_posterior(
        draws=20,
        tune=10,
        chains=2,
        cores=2,
        sampler="pymc",
        random_seed=1,
        progress=lambda done, total: reports.append((done, total)),
    )
    # the chain processes send each iteration to this process, which reports it (tuning included)
    assert reports == [(i, 60) for i in range(1, 61)]
    assert idata.posterior.sizes["chain"] == 2 and idata.posterior.sizes["draw"] == 20


def test_a_daemonic_process_samples_its_chains_in_itself(monkeypatch):
    import multiprocessing

    class Daemon:
        daemon = True

    assert sampling._default_cores(4) == min(4, sampling.usable_cores())
    monkeypatch.setattr(multiprocessing, "current_process", lambda: Daemon())
    assert sampling._default_cores(4) == 1  # a pool's worker may not start processes of its own


def test_chains_none_gives_nutpie_as_many_chains_as_cores_and_at_least_two(monkeypatch, bernoulli):
    import arviz as az
    import numpy as np

    from pgm_models.inference import _nutpie_numba

    seen = []
    draws = az.from_dict(posterior={"class_prob": np.zeros((1, 2, 2))})
    monkeypatch.setattr(_nutpie_numba, "sample", lambda model, **kwargs: seen.append(kwargs["chains"]) or draws)
    for cores in (None, 1, 3):
        sampling.sample(bernoulli._sampling_model(), sampler="nutpie-numba", chains=None, cores=cores)
    assert seen == [max(2, len(os.sched_getaffinity(0))), 2, 3]


def test_chains_none_leaves_pymc_one_chain_process_per_cpu(monkeypatch, bernoulli):
    seen = {}
    monkeypatch.setattr(pm, "sample", lambda **kwargs: seen.update(kwargs) or az.InferenceData())
    sampling.sample(bernoulli._sampling_model(), sampler="pymc", chains=None)
    assert seen["cores"] == len(os.sched_getaffinity(0)) and seen["chains"] is None
