"""labelled_table and the sampler-only check on a scalar variable (a binary logistic regression's
intercept is one): the table reads it as one entry named by the variable alone."""

import arviz as az
import numpy as np

from pgm_models import check_sampler
from pgm_models.inference.summary import labelled_table


def test_a_scalar_variable_is_one_row_named_by_the_variable():
    rng = np.random.default_rng(0)
    posterior = az.from_dict(
        posterior={"intercept": rng.normal(size=(2, 50)), "weights": rng.normal(size=(2, 50, 3))}
    ).posterior
    table = labelled_table(mean=posterior.mean(("chain", "draw")))
    assert table["parameter"].tolist() == ["intercept", "weights[0]", "weights[1]", "weights[2]"]
    np.testing.assert_allclose(
        table["mean"], [posterior["intercept"].values.mean(), *posterior["weights"].values.mean(axis=(0, 1))]
    )
    assert labelled_table(max_rows=2, mean=posterior.mean(("chain", "draw")))["parameter"].tolist() == [
        "intercept",
        "weights[0]",
    ]


def test_check_sampler_judges_a_scalar_variable():
    rng = np.random.default_rng(1)
    draws = rng.normal(size=(4, 500))
    draws[0] += 5.0  # one chain stuck elsewhere
    result = check_sampler(az.from_dict(posterior={"intercept": draws}))
    assert not result.passed and result.reasons[0].startswith("intercept: R-hat")
