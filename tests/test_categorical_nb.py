"""CategoricalNB: Weka and scikit-learn agreement, domains, missing values, the PyMC forms."""

from pathlib import Path

import numpy as np
import pandas as pd
import pymc as pm
import pytest
import sklearn.naive_bayes as skl
from conftest import frame, logp_at_random_points

from pgm_models import CategoricalNB
from pgm_models.datasets import load_dataset

WEKA = Path(__file__).parent.parent / "pgm_models" / "datasets" / "data" / "weka"


@pytest.mark.parametrize("dataset", ["vote", "breast-cancer", "weather.nominal"])
def test_reproduces_weka_naive_bayes_with_missing_values(dataset):
    """Weka 3.6.14 NaiveBayes (fixture: pgm_models/datasets/data/weka/COMMANDS.txt)."""
    X, y = load_dataset(dataset)
    reference = pd.read_csv(WEKA / f"naive_bayes_{dataset}.csv")
    model = CategoricalNB(alpha=1, class_alpha=1).fit(X, y)
    assert list(model.classes_) == sorted(reference.columns)  # Weka's columns follow the declared order
    np.testing.assert_allclose(model.predict_proba(X), reference[list(model.classes_)].to_numpy(), rtol=0, atol=1e-9)


def test_vote_and_breast_cancer_exercise_missing_and_unseen_values():
    """The Weka agreement above covers both features of the data it claims to."""
    X, _ = load_dataset("vote")
    assert X.isna().to_numpy().sum() == 392
    X, _ = load_dataset("breast-cancer")
    unseen = [c for c in X.columns if (X[c].value_counts() == 0).any()]
    assert unseen  # declared values never observed still count in the Laplace denominator


@pytest.mark.parametrize("alpha", [1.0, 0.3])
def test_matches_scikit_learn_with_mle_class_prior(alpha):
    """scikit-learn's CategoricalNB uses the MLE class prior: our class_alpha=0."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, [3, 4, 2, 5], size=(200, 4))
    y = rng.integers(0, 3, size=200)
    ours = CategoricalNB(alpha=alpha, class_alpha=0, n_categories=[3, 4, 2, 5]).fit(X, y)
    theirs = skl.CategoricalNB(alpha=alpha, min_categories=[3, 4, 2, 5]).fit(X, y)
    X_test = rng.integers(0, [3, 4, 2, 5], size=(50, 4))
    np.testing.assert_allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test), atol=1e-12)
    np.testing.assert_allclose(ours.predict_joint_log_proba(X_test), theirs.predict_joint_log_proba(X_test), atol=1e-10)


def test_declared_but_unseen_value_gets_prior_mass():
    X = frame({"a": ["x", "x", "y"]}, {"a": ["x", "y", "z"]})
    model = CategoricalNB(alpha=1).fit(X, ["c", "c", "c"])
    means = model.analytic_posterior("mean")["feature_prob_a"].sel({"class": "c"})
    np.testing.assert_allclose(means.values, [3 / 6, 2 / 6, 1 / 6])  # (n + 1)/(3 + 3)


def test_missing_attribute_is_skipped_when_counting_and_predicting(weather):
    X, y = weather
    X = X.copy()
    X.loc[[0, 3, 7], "outlook"] = np.nan
    model = CategoricalNB().fit(X, y)
    # available cases: class counts still use every row; outlook counts use 11 rows
    assert model.class_count_.sum() == 14
    np.testing.assert_allclose(model.feature_count_[:, :3].sum(), 11)
    # a row missing 'outlook' scores exactly like a model that never had 'outlook'
    without = CategoricalNB().fit(X.drop(columns="outlook"), y)
    row = X.iloc[[0]]
    np.testing.assert_allclose(model.predict_proba(row), without.predict_proba(row.drop(columns="outlook")))


def test_unseen_value_at_prediction_is_missing_with_warning_or_an_error(weather):
    X, y = weather
    model = CategoricalNB().fit(X.astype(str), y)
    foggy = X.astype(str).iloc[[0]].assign(outlook="foggy")
    with pytest.warns(UserWarning, match=r"column 'outlook' has value\(s\) \['foggy'\].*treated as missing"):
        proba = model.predict_proba(foggy)
    missing = X.astype(object).iloc[[0]].assign(outlook=None)
    np.testing.assert_allclose(proba, model.predict_proba(missing))
    strict = CategoricalNB(handle_unknown="error").fit(X.astype(str), y)
    with pytest.raises(ValueError, match=r"column 'outlook' has value\(s\) \['foggy'\] outside its domain"):
        strict.predict(foggy)


def test_value_outside_the_domain_in_training_raises():
    with pytest.raises(ValueError, match=r"column 1 has value\(s\) \[4\] outside its domain \[0, 1, 2\]"):
        CategoricalNB(n_categories=3).fit(np.array([[0, 1], [2, 4]]), [0, 1])
    model = CategoricalNB().partial_fit(np.array([["a"], ["b"]]), [0, 1], classes=[0, 1])
    with pytest.raises(ValueError, match=r"column 0 has value\(s\) \['c'\].*declare them"):
        model.partial_fit(np.array([["c"]]), [0])


def test_domains_from_n_categories_declared_categories_or_observed_values():
    model = CategoricalNB(n_categories=[4, 2]).fit(np.array([[0, 1], [3, 0]]), [0, 1])
    assert model.n_categories_.tolist() == [4, 2]
    model = CategoricalNB().fit(np.array([["b", 5], ["a", 7]], dtype=object), [0, 1])
    assert [list(c) for c in model.categories_] == [["a", "b"], [5, 7]]


def test_partial_fit_over_chunks_equals_one_fit():
    X, y = load_dataset("vote")
    whole = CategoricalNB().fit(X, y)
    chunked = CategoricalNB()
    for start in range(0, len(X), 100):
        chunked.partial_fit(X.iloc[start : start + 100], y.iloc[start : start + 100])
    np.testing.assert_allclose(chunked.feature_count_, whole.feature_count_)
    np.testing.assert_allclose(chunked.predict_proba(X), whole.predict_proba(X))


def test_integer_sample_weight_equals_duplicated_rows(weather):
    X, y = weather
    weight = np.arange(14) % 3
    weighted = CategoricalNB().fit(X, y, sample_weight=weight)
    repeated = CategoricalNB().fit(X.loc[X.index.repeat(weight)], y.loc[y.index.repeat(weight)])
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X))


def test_dataframe_columns_are_matched_by_name(weather):
    X, y = weather
    model = CategoricalNB().fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X[X.columns[::-1]]), model.predict_proba(X))
    with pytest.raises(ValueError, match="feature names"):
        model.predict(X.rename(columns={"windy": "gusty"}))


def test_per_attribute_alpha(weather):
    X, y = weather
    model = CategoricalNB(alpha=[1, 2, 3, 4]).fit(X, y)
    humidity = model.analytic_posterior("mean")["feature_prob_humidity"].sel({"class": "yes"})
    # 9 'yes' days: humidity high 3, normal 6; alpha = 3 → (3+3)/(9+6), (6+3)/(9+6)
    np.testing.assert_allclose(humidity.values, [6 / 15, 9 / 15])
    with pytest.raises(ValueError, match="alpha has 2 entries; expected 4"):
        CategoricalNB(alpha=[1, 2]).fit(X, y)


def test_estimates_map_mle_predictive_and_per_call_override(weather):
    X, y = weather
    model = CategoricalNB(alpha=2, class_alpha=2).fit(X, y)
    outlook = model.analytic_posterior("mode")["feature_prob_outlook"].sel({"class": "no"})
    # 'no' days: sunny 3, overcast 0, rainy 2 → (n + 2 − 1)/(5 + 6 − 3)
    np.testing.assert_allclose(outlook.values, [4 / 8, 1 / 8, 3 / 8])
    mean = model.predict_proba(X)
    assert np.allclose(model.predict_proba(X, estimate="predictive"), mean)
    assert not np.allclose(model.predict_proba(X, estimate="map"), mean)
    map_model = CategoricalNB(alpha=2, class_alpha=2, estimate="map").fit(X, y)
    np.testing.assert_allclose(map_model.predict_proba(X), model.predict_proba(X, estimate="map"))
    np.testing.assert_allclose(
        model.predict_proba(X, estimate="mle"), CategoricalNB(alpha=0, class_alpha=0).fit(X, y).predict_proba(X)
    )


def test_alpha_zero_gives_minus_infinity_never_nan(weather):
    X, y = weather
    model = CategoricalNB(alpha=0, class_alpha=0).fit(X, y)
    joint = model.predict_joint_log_proba(X)
    assert not np.isnan(joint).any()
    assert np.isneginf(joint).any()  # overcast never happens on a 'no' day
    proba = model.predict_proba(X)
    assert not np.isnan(proba).any()
    np.testing.assert_allclose(proba.sum(axis=1), 1)


def test_row_impossible_under_every_class_gets_the_uniform_posterior():
    X = np.array([["a", "u"], ["b", "v"]], dtype=object)
    model = CategoricalNB(alpha=0, class_alpha=0).fit(X, [0, 1])
    impossible = np.array([["a", "v"]], dtype=object)
    assert np.all(np.isneginf(model.predict_joint_log_proba(impossible)))
    np.testing.assert_allclose(model.predict_proba(impossible), [[0.5, 0.5]])


def test_single_class_has_probability_one():
    model = CategoricalNB().fit(np.array([["a"], ["b"]], dtype=object), ["only", "only"])
    np.testing.assert_array_equal(model.predict_proba(np.array([["a"]], dtype=object)), [[1.0]])
    assert model.predict(np.array([["b"]], dtype=object))[0] == "only"


def test_categorical_target_declares_the_classes():
    y = pd.Categorical(["a", "a"], categories=["a", "b"])
    model = CategoricalNB().fit(np.array([["u"], ["v"]], dtype=object), y)
    assert list(model.classes_) == ["a", "b"]
    np.testing.assert_allclose(model.class_concentration_, [3, 1])


# ---------------------------------------------------------------------- the PyMC models
def test_counts_and_rows_forms_have_the_same_posterior(weather):
    X, y = weather
    X = X.copy()
    X.loc[[2, 5], "humidity"] = np.nan  # the rows form must skip missing cells too
    model = CategoricalNB(alpha=1.5).fit(X, y)
    counts_model, rows_model = model.pymc_model("counts"), model.pymc_model("rows", X, y)
    # outlook and temperature (3 values each) are one stacked Dirichlet and Multinomial (pgm_models.conjugate.blocks)
    assert set(counts_model.named_vars) >= {"class_prob", "feature_prob_outlook", "stacked_prob_3", "stacked_count_3"}
    assert list(counts_model.coords["stacked_prob_3_rows"]) == [
        f"feature_prob_{name}[{k}]" for name in ("outlook", "temperature") for k in ("no", "yes")
    ]
    assert counts_model.named_vars_to_dims["feature_prob_outlook"] == ("class", "outlook_value")
    assert list(counts_model.coords["outlook_value"]) == ["sunny", "overcast", "rainy"]
    difference = logp_at_random_points(counts_model) - logp_at_random_points(rows_model)
    # the multinomial coefficients: a constant of the data, not of the parameters
    np.testing.assert_allclose(difference, difference[0], atol=1e-9)
    assert abs(difference[0]) > 1  # the forms really differ by that constant


def test_rows_form_generates_synthetic_datasets(weather):
    X, y = weather
    model = CategoricalNB().fit(X, y)
    rows_model = model.pymc_model("rows", X, y)
    prior = pm.sample_prior_predictive(draws=50, model=rows_model, random_seed=1)
    synthetic = prior.prior_predictive
    assert synthetic["x_outlook"].shape == (1, 50, 14)
    assert set(np.unique(synthetic["x_outlook"])) <= {0, 1, 2}
    # posterior predictive from the exact closed-form draws: same variable names
    posterior = pm.sample_posterior_predictive(
        model.pymc_trace(model.posterior_draws(200, random_seed=2)), model=rows_model, random_seed=3
    )
    y_rate = (posterior.posterior_predictive["y"] == model.classes_.tolist().index("yes")).mean()
    assert float(y_rate) == pytest.approx(10 / 16, abs=0.05)  # E[π_yes] = (9+1)/(14+2)


def test_forward_sampling_reads_every_table_from_the_exact_draws(weather):
    """pymc_trace adds the stacked Dirichlet groups to the exact draws, so PyMC's forward sampling
    recomputes each table from the draws; without them (the draws as returned, each table once)
    it resamples the groups, and so every table, from the prior."""
    X, y = weather
    model = CategoricalNB().fit(X, y)
    draws = model.posterior_draws(50, random_seed=2)
    names = ["class_prob", "feature_prob_outlook", "feature_prob_windy"]
    trace = model.pymc_trace(draws)
    assert set(draws.posterior.data_vars) == set(
        model.analytic_posterior().data_vars
    )  # pymc_trace left them as they were
    np.testing.assert_array_equal(
        trace.posterior["stacked_prob_2"].sel(stacked_prob_2_rows="class_prob"), draws.posterior["class_prob"]
    )
    forward = pm.sample_posterior_predictive(
        trace, model=model.pymc_model("rows", X, y), var_names=names, random_seed=3
    )
    for name in names:
        np.testing.assert_allclose(
            forward.posterior_predictive[name].to_numpy(), draws.posterior[name].to_numpy(), rtol=1e-12
        )
    from_prior = pm.sample_posterior_predictive(
        draws, model=model.pymc_model("rows", X, y), var_names=names, random_seed=3
    )
    assert not np.allclose(
        from_prior.posterior_predictive["class_prob"].to_numpy(), draws.posterior["class_prob"].to_numpy()
    )
    # draws of some tables only: their groups cannot be rebuilt, and pymc_trace says which tables are missing
    some = model.posterior_draws(50, random_seed=2, var_names=["class_prob"])
    with pytest.raises(ValueError, match=r"the draws lack \['feature_prob_outlook'.*draw them from the prior"):
        model.pymc_trace(some)


def test_pymc_model_needs_a_proper_prior_and_whole_counts(weather):
    X, y = weather
    with pytest.raises(ValueError, match="alpha=0: the PyMC model needs a proper prior"):
        CategoricalNB(alpha=0).fit(X, y).pymc_model()
    with pytest.raises(ValueError, match="non-integer sample_weight"):
        CategoricalNB().fit(X, y, sample_weight=np.full(14, 0.5)).pymc_model()
    with pytest.raises(ValueError, match="form='rows' observes rows"):
        CategoricalNB().fit(X, y).pymc_model("rows")


def test_find_map_is_the_closed_form_mode(weather):
    X, y = weather
    model = CategoricalNB(alpha=2, class_alpha=2).fit(X, y)
    found, mode = model.find_map(), model.analytic_posterior("mode")
    for name in mode.data_vars:
        np.testing.assert_allclose(found[name], mode[name], atol=1e-5)
