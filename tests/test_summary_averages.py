"""``posterior_summary`` of an average of models with no per-parameter posterior (A2DE, MANB,
BMATAN) says what the model offers instead. It used to tell them to call ``sample_posterior()``,
which none of them has; each suggestion in the messages is checked to run."""

import re

import arviz as az
import pytest

from pgm_models import A2DE, BMATAN, MANB, LogisticRegression, posterior_summary
from pgm_models.datasets import load_dataset

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture(scope="module")
def weather():
    return load_dataset("weather.nominal")


@pytest.mark.parametrize("make", [MANB, BMATAN], ids=["MANB", "BMATAN"])
def test_structure_averages_point_to_their_exact_joint_draws(weather, make):
    model = make().fit(*weather)
    name = make.__name__
    message = (
        f"{name} is an average over structures, with no per-parameter posterior to list and no sample_posterior "
        "(no PyMC model of its own): az.summary(model.posterior_draws()) summarises exact joint draws of a "
        "structure and its tables"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        posterior_summary(model)
    assert not hasattr(model, "sample_posterior")
    summary = az.summary(model.posterior_draws(100, random_seed=0))  # what the message suggests runs
    assert len(summary) > 0 and summary["mean"].notna().all()


def test_a2de_says_it_has_neither_draws_nor_nuts(weather):
    model = A2DE().fit(*weather)
    message = (
        "A2DE averages its members with fixed weights, not by a posterior over them: it has no posterior to "
        "summarise, neither sample_posterior (no PyMC model of its own) nor posterior_draws; graph() shows its "
        "averaged structure and sample_posterior_predictive(X) draws labels from its predictive"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        posterior_summary(model)
    assert not hasattr(model, "sample_posterior")
    with pytest.raises(ValueError, match="A2DE has no posterior_draws"):
        model.posterior_draws(10)
    assert "outlook" in model.graph().source
    X = weather[0]
    idata = model.sample_posterior_predictive(X, n=5, random_seed=0)
    assert idata.posterior_predictive["y"].shape[-1] == len(X)


def test_a_model_sampled_by_nuts_is_still_told_to_sample(weather):
    X, y = weather
    from sklearn.preprocessing import OneHotEncoder

    model = LogisticRegression().fit(OneHotEncoder(sparse_output=False).fit_transform(X), y)
    with pytest.raises(ValueError, match=r"^LogisticRegression has no closed form: call sample_posterior\(\) before"):
        posterior_summary(model)


def test_stored_structure_draws_are_summarised_with_arcs_as_indicators(weather):
    """MANB's stored exact draws (``posterior_draws(store=True)``) are summarised like NUTS draws, the
    boolean arc draws as 0/1 (xarray's quantile refused booleans): each arc's mean is the draws'
    frequency of the arc, its interval ends 0 or 1, and the frequency is the exact ``arc_posterior_``
    within 5 standard errors of its draws (a false-failure chance below 1e-6 per arc)."""
    import numpy as np

    model = MANB().fit(*weather)
    draws = model.posterior_draws(store=True, random_seed=0)
    table = posterior_summary(model).set_index("parameter")
    arcs = draws.posterior["arc"]
    n_draws = arcs.sizes["chain"] * arcs.sizes["draw"]
    for j, name in enumerate(weather[0].columns):  # independent exact draws: a binomial frequency
        row = table.loc[f"arc[{name}]"]
        assert row["mean"] == float(arcs.sel(attribute=name).astype(float).mean())
        assert {row["q3.0%"], row["q97.0%"]} <= {0.0, 1.0}
        p = model.arc_posterior_[j]
        assert abs(row["mean"] - p) <= 5 * np.sqrt(p * (1 - p) / n_draws) + 1e-12
