"""The names the PyMC models generate (pgm_models.conjugate.blocks' stacked groups, a column's
``<column>_value`` and ``<column>_row`` dims, ``feature_prob_<column>``, ``x_<column>``) and the
posterior's output: each parameter once in the InferenceData, whatever the data's column names."""

import arviz as az
import numpy as np
import pandas as pd
import pymc as pm
import pytest
import xarray as xr
from conftest import assert_names_like_the_exact_draws

from pgm_models import SPODE, TAN, CategoricalNB, GaussianNB, MixedNB
from pgm_models.inference.sampling import _model_variables_only

# the package's own names, as column names: the stacked groups', their dims' and the tables'
GENERATED = [
    "stacked_prob_2",
    "stacked_prob_2_row",
    "stacked_prob_2_rows",
    "stacked_count_2",
    "stacked_prob_3",
    "class_prob",
    "joint_prob",
    "feature_prob_z",
    "class",
    "row",
]


def _data(first_values):
    """40 rows: the generated names as nominal columns (two values; the first column's values
    ``first_values``), then z with three values; classes p, q."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({name: rng.choice(first_values if i == 0 else ["a", "b"], 40) for i, name in enumerate(GENERATED)})
    X["z"] = rng.choice(["u", "v", "w"], 40)
    return X, rng.choice(["p", "q"], 40)


MODELS = [
    CategoricalNB,
    TAN,
    lambda: SPODE(parent="z"),
    lambda: MixedNB(column_types=dict.fromkeys([*GENERATED, "z"], "categorical")),
]


@pytest.mark.parametrize("make", MODELS, ids=["CategoricalNB", "TAN", "SPODE", "MixedNB"])
@pytest.mark.parametrize("first_values", [[0, 1], ["a", "b"]], ids=["values 0, 1", "values a, b"])
def test_columns_named_like_the_generated_names_keep_their_own_variables(make, first_values):
    """A column named stacked_prob_2 has its own dim, stacked_prob_2_value, beside its group's
    (stacked_prob_2_rows, stacked_prob_2_values): with values 0, 1 the two shared one dim
    silently (the group's values are 0, 1 too), with other values building the model failed.
    Every table keeps its dims and coords in both forms, and forward sampling reads it back."""
    X, y = _data(first_values)
    model = make().fit(X, y)
    draws = model.posterior_draws(20, random_seed=1)
    for form in ("counts", "rows"):
        pymc_model = model.pymc_model(form, X, y)
        for name, table in draws.posterior.data_vars.items():
            assert pymc_model.named_vars_to_dims[name] == table.dims[2:]
            for dim in table.dims[2:]:
                np.testing.assert_array_equal(np.asarray(pymc_model.coords[dim]), draws.posterior[dim].to_numpy())
        np.testing.assert_array_equal(np.asarray(pymc_model.coords["stacked_prob_2_values"]), [0, 1])
    first = "feature_prob_stacked_prob_2"
    if first in draws.posterior:  # SPODE's super-parent z makes it a (class, z value, value) table
        assert list(draws.posterior[first].coords["stacked_prob_2_value"].to_numpy()) == first_values
    # the tables its groups stack (PyMC resamples a free variable named in var_names: MixedNB's class_prob)
    stacked = [variable.name for variable in pymc_model.deterministics]
    forward = pm.sample_posterior_predictive(
        model.pymc_trace(draws), model=pymc_model, var_names=stacked, random_seed=2, progressbar=False
    )
    for name in stacked:
        np.testing.assert_allclose(
            forward.posterior_predictive[name].to_numpy(), draws.posterior[name].to_numpy(), rtol=1e-12
        )
    # each probability once in az.summary: every entry of every table
    assert len(az.summary(draws, kind="stats")) == sum(table[0, 0].size for table in draws.posterior.data_vars.values())


def test_gaussian_nb_takes_any_column_names():
    """GaussianNB's columns are coordinate values of one dim (feature), never names."""
    X, y = _data(["a", "b"])
    numeric = pd.DataFrame(np.random.default_rng(3).normal(size=(40, len(GENERATED))), columns=GENERATED)
    model = GaussianNB().fit(numeric, y)
    for form in ("counts", "rows"):
        assert list(model.pymc_model(form, numeric, y).coords["feature"]) == GENERATED


def test_a_categorical_column_named_like_a_numeric_kind_is_named_in_the_error():
    """MixedNB observes a categorical column c as x_c and its Gaussian columns as x_gaussian: a
    categorical column named gaussian would be a second x_gaussian."""
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"gaussian": rng.choice(["a", "b"], 30), "height": rng.normal(size=30)})
    y = rng.choice(["p", "q"], 30)
    model = MixedNB().fit(X, y)
    assert "feature_prob_gaussian" in model.pymc_model("counts").named_vars  # the counts form observes no x_
    with pytest.raises(
        ValueError, match=r"the categorical column 'gaussian' would be observed by the PyMC variable 'x_gaussian'"
    ):
        model.pymc_model("rows", X, y)
    # a categorical column named categorical is observed as x_categorical, which nothing else is
    X = X.rename(columns={"gaussian": "categorical"})
    assert "x_categorical" in MixedNB().fit(X, y).pymc_model("rows", X, y).named_vars


def test_the_samplers_output_holds_each_parameter_once():
    """What every sampler's InferenceData goes through: the stacked groups (dims ``<group>_rows``,
    ``<group>_values``) and the unconstrained ``…__`` forms dropped, the tuning draws kept only
    when asked; a table over a column named like a group (dim ``stacked_prob_2_value``) kept."""

    def draws():
        return xr.Dataset(
            {
                "class_prob": (("chain", "draw", "class"), np.full((1, 3, 2), 0.5)),
                "feature_prob_stacked_prob_2": (
                    ("chain", "draw", "class", "stacked_prob_2_value"),
                    np.full((1, 3, 2, 2), 0.5),
                ),
                "stacked_prob_2": (
                    ("chain", "draw", "stacked_prob_2_rows", "stacked_prob_2_values"),
                    np.full((1, 3, 3, 2), 0.5),
                ),
                "stacked_prob_2_simplex__": (
                    ("chain", "draw", "stacked_prob_2_rows", "simplex"),
                    np.zeros((1, 3, 3, 1)),
                ),
            },
            coords={
                "class": ["p", "q"],
                "stacked_prob_2_value": [0, 1],
                "stacked_prob_2_values": [0, 1],
                "stacked_prob_2_rows": [
                    "class_prob",
                    "feature_prob_stacked_prob_2[p]",
                    "feature_prob_stacked_prob_2[q]",
                ],
            },
        )

    for keep_tuning in (True, False):
        idata = _model_variables_only(
            az.InferenceData(posterior=draws(), warmup_posterior=draws()), keep_tuning=keep_tuning
        )
        assert idata.groups() == (["posterior", "warmup_posterior"] if keep_tuning else ["posterior"])
        for group in idata.groups():
            assert list(idata[group].data_vars) == ["class_prob", "feature_prob_stacked_prob_2"]
            assert set(idata[group].dims) == {"chain", "draw", "class", "stacked_prob_2_value"}
            assert set(idata[group].coords) == {"class", "stacked_prob_2_value"}


@pytest.mark.nuts
@pytest.mark.parametrize("sampler", ["nutpie-numba", "pymc"])
def test_sample_posterior_holds_each_parameter_once(sampler):
    """NUTS draws (a few: only names and dims are checked) of a model with a column named like a
    group: the model's tables, each once, with their own dims and coords."""
    X, y = _data([0, 1])
    model = CategoricalNB().fit(X[["stacked_prob_2", "z"]], y)
    idata = model.sample_posterior(draws=20, tune=20, chains=2, cores=1, sampler=sampler, random_seed=5)
    assert_names_like_the_exact_draws(model, idata)
    assert len(az.summary(idata, kind="stats")) == 2 + 2 * (2 + 3)


def test_spodes_joint_cells_have_one_label_each():
    """SPODE labels joint_prob's cells 'class, parent value': class 'a, b' with value 'c' and class
    'a' with value 'b, c' would both be 'a, b, c', two cells under one coordinate."""
    rng = np.random.default_rng(6)
    X = pd.DataFrame({"p": rng.choice(["b, c", "c"], 40), "z": rng.choice(["u", "v"], 40)})
    model = SPODE(parent="p").fit(X, rng.choice(["a, b", "a"], 40))
    message = r"'a, b, c' would label both \[\('a', 'b, c'\), \('a, b', 'c'\)\]"
    for build in (model.analytic_posterior, lambda: model.posterior_draws(5), model.pymc_model):
        with pytest.raises(ValueError, match=message):
            build()
    model.predict_proba(X)  # the labels name the posterior's cells; predictions need none


@pytest.mark.parametrize("Model", ["CategoricalNB", "TAN", "MixedNB"])
def test_a_table_named_like_another_columns_values_is_an_error_naming_both(Model):
    """Column 'a_value''s table feature_prob_a_value is column 'feature_prob_a''s values' dim:
    xarray refused the exact draws, and PyMC's InferenceData silently dropped the table."""
    import pgm_models

    X = pd.DataFrame({"a_value": ["x", "y", "x", "y"], "feature_prob_a": ["p", "p", "q", "q"]})
    model = getattr(pgm_models, Model)().fit(X, ["c", "d", "d", "c"])
    message = r"\['feature_prob_a_value'\] are also the name\(s\) of a dimension"
    with pytest.raises(ValueError, match=message):
        model.posterior_draws(n=10)
    with pytest.raises(ValueError, match=message):
        model.sample_posterior(draws=10, sampler="pymc")
