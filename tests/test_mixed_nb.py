"""MixedNB: each column type's block against the model it generalises, the sum of the parts,
missing values, the Gamma–Poisson block by hand, the PyMC forms, NUTS, pipelines."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pymc as pm
import pytest
from conftest import logp_at_random_points
from scipy import stats
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from pgm_models import BernoulliNB, CategoricalNB, GaussianNB, MixedNB
from pgm_models.datasets import load_dataset
from pgm_models.inference.verify import check_posterior

ESTIMATES = ("mean", "map", "mle", "predictive")
FIXTURES = Path(__file__).parent.parent / "pgm_models" / "datasets" / "data" / "weka"


@pytest.fixture(scope="module")
def credit():
    return load_dataset("credit-g")


@pytest.fixture(scope="module")
def mixed():
    """A synthetic table with every column type and missing values, 2 classes of 40 rows
    (enough for the fourth moments of the Gaussian blocks' variances: a' = 1.5 + n/2 > 4)."""
    rng = np.random.default_rng(5)
    y = np.repeat(["a", "b"], 40)
    b = y == "b"
    X = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], size=80, p=[0.5, 0.3, 0.2]).astype(object),
            "height": rng.normal(np.where(b, 1.0, 0.0), 1.0),
            "weight": rng.normal(np.where(b, 60.0, 70.0), 8.0),
            "smoker": rng.random(80) < np.where(b, 0.6, 0.2),
            "visits": rng.poisson(np.where(b, 4.0, 1.5)).astype(np.int64),
        }
    )
    X.loc[[3, 50], "height"] = np.nan
    X.loc[[7], "colour"] = None
    return X, y


@pytest.mark.parametrize("estimate", ESTIMATES)
def test_only_nominal_columns_is_categorical_nb(estimate):
    X, y = load_dataset("vote")  # missing values in most columns
    mixed = MixedNB(estimate=estimate, alpha=0.5, class_alpha=2.0).fit(X, y)
    categorical = CategoricalNB(estimate=estimate, alpha=0.5, class_alpha=2.0).fit(X, y)
    np.testing.assert_allclose(mixed.predict_joint_log_proba(X), categorical.predict_joint_log_proba(X), rtol=1e-12)


@pytest.mark.parametrize("estimate", ESTIMATES)
def test_only_numeric_columns_is_gaussian_nb(estimate):
    X, y = load_dataset("diabetes")
    mixed = MixedNB(estimate=estimate).fit(X, y)
    gaussian = GaussianNB(estimate=estimate).fit(X, y)
    assert set(mixed.column_types_.values()) == {"gaussian"}
    np.testing.assert_allclose(mixed.predict_joint_log_proba(X), gaussian.predict_joint_log_proba(X), rtol=1e-12)


@pytest.mark.parametrize("estimate", ESTIMATES)
def test_only_binary_columns_is_bernoulli_nb(binary_data, estimate):
    X, y = binary_data
    mixed = MixedNB(estimate=estimate).fit(X.astype(bool), y)
    assert set(mixed.column_types_.values()) == {"bernoulli"}
    bernoulli = BernoulliNB(binarize=None, estimate=estimate).fit(X, y)
    np.testing.assert_allclose(
        mixed.predict_joint_log_proba(X.astype(bool)), bernoulli.predict_joint_log_proba(X), rtol=1e-12
    )


@pytest.mark.parametrize("estimate", ESTIMATES)
def test_joint_log_proba_is_the_class_term_plus_each_block(credit, estimate):
    X, y = credit
    nominal, numeric = X.select_dtypes("category"), X.select_dtypes("number")
    whole = MixedNB(estimate=estimate).fit(X, y).predict_joint_log_proba(X)
    parts = [MixedNB(estimate=estimate).fit(part, y).predict_joint_log_proba(part) for part in (nominal, numeric)]
    classes = CategoricalNB(estimate=estimate).fit(nominal, y)
    class_term = np.log(classes._class_prior.estimate(classes.class_count_, estimate))
    np.testing.assert_allclose(whole, parts[0] + parts[1] - class_term, rtol=1e-12)


def test_column_types_are_inferred_from_dtypes_and_can_be_set(mixed):
    X, y = mixed
    model = MixedNB().fit(X, y)
    assert model.column_types_ == {
        "colour": "categorical",
        "height": "gaussian",
        "weight": "gaussian",
        "smoker": "bernoulli",
        "visits": "poisson",
    }  # an integer dtype is counts, whatever its values
    counted = MixedNB(column_types={"visits": "poisson", "weight": "categorical"}).fit(X, y)
    assert counted.column_types_["visits"] == "poisson" and counted.column_types_["weight"] == "categorical"
    assert len(counted.categories_[1]) == X["weight"].nunique()
    with pytest.raises(ValueError, match=r"column_types names column 'age', which X does not have"):
        MixedNB(column_types={"age": "gaussian"}).fit(X, y)
    with pytest.raises(ValueError, match=r"column_types\['visits'\] = 'count' is not one of"):
        MixedNB(column_types={"visits": "count"}).fit(X, y)
    with pytest.raises(ValueError, match=r"column 'colour' is a gaussian column but has a non-numeric value"):
        MixedNB(column_types={"colour": "gaussian"}).fit(X, y)
    with pytest.raises(
        ValueError, match=r"column 'height' is a poisson column and has a value that is not a count ≥ 0"
    ):
        MixedNB(column_types={"height": "poisson"}).fit(X, y)
    bad = X.assign(smoker=X["smoker"].astype(int) * 2)
    with pytest.raises(ValueError, match=r"column 'smoker' is a bernoulli column and has a value other than 0/1: 2.0"):
        MixedNB(column_types={"smoker": "bernoulli"}).fit(bad, y)


def test_missing_values_are_skipped_per_column(mixed):
    X, y = mixed
    model = MixedNB().fit(X, y)
    present = X["height"].notna().to_numpy()
    alone = GaussianNB().fit(X.loc[present, ["height"]], y[present])
    posterior = model.analytic_posterior("mean")
    np.testing.assert_allclose(
        posterior["feature_mean"].sel(gaussian_feature="height"),
        alone.analytic_posterior("mean")["feature_mean"][:, 0],
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        posterior["feature_var"].sel(gaussian_feature="height"),
        alone.analytic_posterior("mean")["feature_var"][:, 0],
        rtol=1e-12,
    )
    # a row's missing entries contribute nothing: scoring it equals scoring without those columns
    row = X.iloc[[3]]
    without = MixedNB().fit(X.drop(columns="height"), y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(row), without.predict_joint_log_proba(row.drop(columns="height")), rtol=1e-12
    )


def test_gamma_poisson_block_by_hand():
    X = pd.DataFrame({"visits": [0, 2, 3, np.nan, 1, 5, 4]})
    y = np.array([0, 0, 0, 0, 1, 1, 1])
    model = MixedNB(column_types={"visits": "poisson"}, count_strength=2.0).fit(X, y)
    # prior Gamma(2 · 15/6, 2) (overall mean 15/6 of the 6 observed counts); class 0 saw 3 counts summing to 5
    a, b = 2 * 2.5 + np.array([5, 10]), 2 + np.array([3, 3])
    posterior = model.analytic_posterior("mean")["poisson_rate"].values[:, 0]
    np.testing.assert_allclose(posterior, a / b, rtol=1e-12)
    np.testing.assert_allclose(model.analytic_posterior("sd")["poisson_rate"].values[:, 0], np.sqrt(a) / b, rtol=1e-12)
    np.testing.assert_allclose(model.analytic_posterior("mode")["poisson_rate"].values[:, 0], (a - 1) / b, rtol=1e-12)
    new = pd.DataFrame({"visits": [0.0, 7.0]})
    class_log_prob = np.log((np.array([4, 3]) + 1) / 9)
    predictive = stats.nbinom.logpmf(new.to_numpy(), a, b / (b + 1))
    np.testing.assert_allclose(
        model.predict_joint_log_proba(new, estimate="predictive"), class_log_prob + predictive, rtol=1e-12
    )
    plug_in = stats.poisson.logpmf(new.to_numpy(), [5 / 3, 10 / 3])
    np.testing.assert_allclose(
        model.predict_joint_log_proba(new, estimate="mle") - np.log(np.array([4, 3]) / 7), plug_in, rtol=1e-12
    )
    empty = MixedNB(column_types={"visits": "poisson"}).fit(X, pd.Series(pd.Categorical(y, categories=[0, 1, 2])))
    with pytest.raises(
        ValueError, match=r"class 2, count column 'visits': the mle rate is undefined.*'mean', 'map' or 'predictive'"
    ):
        empty.predict_proba(new, estimate="mle")
    assert np.isfinite(empty.predict_proba(new)).all()


def test_forward_sampling_reads_the_categorical_tables_from_the_exact_draws(mixed):
    """As CategoricalNB's: pymc_trace adds the stacked Dirichlet group of the categorical columns to
    the exact draws, so PyMC's forward sampling recomputes the tables from the draws, not from the prior."""
    X, y = mixed
    model = MixedNB(column_types={"visits": "poisson"}).fit(X, y)
    draws = model.posterior_draws(50, random_seed=2)
    forward = pm.sample_posterior_predictive(
        model.pymc_trace(draws), model=model.pymc_model("rows", X, y), var_names=["feature_prob_colour"], random_seed=3
    )
    np.testing.assert_allclose(
        forward.posterior_predictive["feature_prob_colour"].to_numpy(),
        draws.posterior["feature_prob_colour"].to_numpy(),
        rtol=1e-12,
    )


def test_counts_and_rows_forms_have_the_same_posterior(mixed):
    X, y = mixed
    model = MixedNB(column_types={"visits": "poisson"}).fit(X, y)
    counts, rows = model.pymc_model("counts"), model.pymc_model("rows", X, y)
    assert {v.name for v in counts.free_RVs} == {v.name for v in rows.free_RVs}
    difference = logp_at_random_points(counts) - logp_at_random_points(rows)
    np.testing.assert_allclose(difference, difference[0], atol=1e-8)
    assert abs(difference[0]) > 1


@pytest.mark.nuts
def test_nuts_agrees_with_the_closed_form_on_mixed_data(mixed):
    """Every block type at once, the Gamma–Poisson one included. False-failure chance: the
    z-scores are tested at a 1e-6 family-wise level; with 4 chains of 1000 draws (ESS per chain
    in the hundreds) split R-hat > 1.01 needs a χ²₇ above 70, below 1e-10 per parameter, and the
    ESS and divergence thresholds have the same margin on these smooth, light-tailed posteriors:
    well under 1e-4 per run."""
    X, y = mixed
    model = MixedNB(column_types={"visits": "poisson"}).fit(X, y)
    idata = model.sample_posterior(draws=1000, tune=1000, chains=4, cores=1, random_seed=14, progressbar=False)
    result = check_posterior(model, idata, family_error=1e-6)
    assert result.passed, result.reasons
    assert {"feature_prob_colour", "feature_mean", "feature_var", "bernoulli_prob", "poisson_rate"} <= set(
        result.table["variable"]
    )
    wrong = MixedNB(column_types={"visits": "poisson"}, count_strength=30.0).fit(X, y)
    assert not check_posterior(wrong, idata, family_error=1e-6).passed  # a wrong Gamma prior is seen


def test_pipeline_and_cross_val_score_on_a_mixed_dataframe(mixed, credit):
    X, y = mixed
    pipeline = make_pipeline(FunctionTransformer(lambda frame: frame.assign(bmi=frame["weight"] / 3)), MixedNB())
    scores = cross_val_score(pipeline, X, y, cv=StratifiedKFold(4, shuffle=True, random_state=0))
    assert scores.mean() > 0.7  # the classes differ in every column: a random guess is 0.5
    X, y = credit
    y = y.astype(str)  # scikit-learn's log-loss scorer assumes sorted classes_; credit-g declares {good, bad}
    scores = cross_val_score(
        MixedNB(), X, y, cv=StratifiedKFold(10, shuffle=True, random_state=0), scoring="neg_log_loss"
    )
    assert -scores.mean() < 0.605  # measured 0.596; the prior-only log loss of 70/30 classes is 0.611


def test_exact_posterior_draws_score_every_block(mixed):
    X, y = mixed
    model = MixedNB(column_types={"visits": "poisson"}).fit(X, y)
    draws = model.predict_proba_draws(X.head(3), n_draws=200, random_seed=0)
    assert draws.shape == (200, 3, 2)
    # the draws' spread is the posterior's: their mean is near the posterior-mean plug-in
    np.testing.assert_allclose(draws.mean(axis=0), model.predict_proba(X.head(3)), atol=0.05)


@pytest.mark.parametrize("name", ["iris", "diabetes", "credit-g"])
def test_cross_validated_accuracy_is_within_a_point_of_weka_naive_bayes(name):
    """Weka 3.6.14's NaiveBayes on the same 10 folds (pgm_models/datasets/data/weka/COMMANDS.txt): Weka
    fits a Normal with its own variance floor to numeric attributes and Laplace-smoothed counts
    to nominal ones; MixedNB's posterior means differ from it by the priors only."""
    X, y = load_dataset(name)
    weka = pd.read_csv(FIXTURES / f"naive_bayes_cv10_{name}.csv")
    fold, codes = weka["fold"].to_numpy(), y.cat.codes.to_numpy()
    ours = np.empty(len(y), dtype=object)
    for f in range(10):
        test = fold == f
        ours[test] = MixedNB().fit(X[~test], y[~test]).predict(X[test])
    weka_accuracy = (
        weka.drop(columns="fold").to_numpy().argmax(axis=1) == codes
    ).mean()  # Weka's columns: declared order
    assert abs((ours == y.to_numpy()).mean() - weka_accuracy) <= 0.01


def test_cli_fits_a_mixed_csv_and_shows_each_block_in_its_own_terms(tmp_path, capsys):
    from pgm_models.app.cli import main

    frame = pd.DataFrame(
        {
            "colour": ["red", "red", "blue", "blue", "red", "blue"],
            "height": [1.0, 1.5, 2.0, 2.5, 1.2, 2.2],
            "smoker": [True, False, True, True, False, False],
            "label": ["a", "a", "b", "b", "a", "b"],
        }
    )
    path = tmp_path / "mixed.csv"
    frame.to_csv(path, index=False)
    assert main(["fit", "--model", "mixednb", "--data", str(path), "--max-rows", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    parsed = [re.match(r"\s*\S+\s+([^\s\[]+(?:\[[^\]]*\])?)\s+(\S+)", line).groups() for line in out[2:]]
    rows = {parameter: float(mean) for parameter, mean in parsed}
    assert set(rows) == {
        "class_prob[a]",
        "class_prob[b]",
        "feature_prob_colour[a, blue]",
        "feature_prob_colour[a, red]",
        "feature_prob_colour[b, blue]",
        "feature_prob_colour[b, red]",
    } | {
        f"{name}[{k}, {column}]"
        for name, column in [("feature_mean", "height"), ("feature_var", "height"), ("bernoulli_prob", "smoker")]
        for k in "ab"
    }
    assert rows["bernoulli_prob[a, smoker]"] == pytest.approx(2 / 5, abs=5e-5)  # Beta(1 + 1, 1 + 2)
    assert rows["feature_mean[b, height]"] == pytest.approx((0.01 * 1.7333333 + 3 * 2.2333333) / 3.01, abs=5e-5)


def test_benchmark_runs_at_a_tiny_size_and_writes_its_tables(tmp_path):
    from benchmarks import mixed_nb

    out = tmp_path / "b.md"
    assert mixed_nb.main(["--rows", "300", "--repeats", "1", "--datasets", "iris", "--write", str(out)]) == 0
    text = out.read_text()
    assert "| iris | Weka NaiveBayes | 0.9533 |" in text and "| iris | MDL + CategoricalNB |" in text
    assert "`python -m benchmarks.mixed_nb --rows 300 --repeats 1 --datasets iris --write" in text


def test_gamma_poisson_marginals_and_exact_draws():
    from pgm_models.conjugate.gamma import GammaPoisson

    posterior = GammaPoisson(2.0, 1.0).posterior(n=np.array([4.0, 0.0]), total=np.array([10.0, 0.0]))
    np.testing.assert_allclose(posterior.mean(), [12 / 5, 2.0])
    for index in [(0,), (1,)]:
        exact = posterior.marginal_distribution(index)
        assert exact.mean() == pytest.approx(posterior.mean()[index]) and exact.std() == pytest.approx(
            posterior.sd()[index]
        )
    draws = posterior.sample(200_000, random_state=0)
    # 6 Monte Carlo standard errors: a false failure about once in 5e8 runs
    assert np.all(np.abs(draws.mean(axis=0) - posterior.mean()) < 6 * posterior.sd() / np.sqrt(200_000))


def test_gamma_poisson_verification_statistics_are_scipys():
    """check_posterior's sd test needs each marginal's excess kurtosis and tail index, and its
    support check the rates' domain: Gamma(a, b) has kurtosis 6/a (scipy), every moment, rates ≥ 0."""
    from scipy import stats

    from pgm_models.conjugate.gamma import GammaPoisson

    posterior = GammaPoisson(np.array([0.5, 3.0]), np.array([2.0, 0.25]))
    np.testing.assert_allclose(
        posterior.excess_kurtosis(), [stats.gamma(a).stats(moments="k") for a in (0.5, 3.0)], rtol=1e-12
    )
    assert np.all(np.isinf(posterior.tail_index()))
    assert posterior.in_support(np.array([[0.1, 2.0], [-1e-3, 2.0]]), atol=1e-9).tolist() == [True, False]


@pytest.mark.parametrize("estimate", ["mean", "predictive"])
def test_missing_gaussian_values_only_past_the_first_chunk_of_rows_are_skipped(estimate):
    """Gaussian columns are scored a chunk of rows at a time (``normal.WORK_ROWS``); a NaN only in
    a later chunk (rows 3000 and 4500, none in the first 2048) is skipped as missing there: every
    score is finite, each row scores as it does alone, and the NaN is not scored as a value (as 0)."""
    from pgm_models.conjugate import normal

    rng = np.random.default_rng(12)
    y = rng.integers(0, 2, 5000)
    X = pd.DataFrame(rng.normal(size=(5000, 3)) + y[:, None], columns=["a", "b", "c"])
    model = MixedNB(estimate=estimate).fit(X, y)
    X.iloc[3000, 1] = X.iloc[4500, 2] = np.nan
    assert normal.WORK_ROWS < 3000
    scores = model.predict_joint_log_proba(X)
    assert np.isfinite(scores).all()
    for row in (0, 2047, 2048, 3000, 4500, 4999):
        np.testing.assert_allclose(scores[row], model.predict_joint_log_proba(X.iloc[row : row + 1])[0], rtol=1e-13)
    assert not np.allclose(scores[3000], model.predict_joint_log_proba(X.iloc[3000:3001].fillna(0.0))[0])


@pytest.mark.parametrize(
    ("dataset", "parameter", "value", "message"),
    [
        # vote has only categorical columns: no Gaussian, 0/1 or count column reads these
        ("vote", "mean_strength", "evidence-per-attribute", "mean_strength must be a number > 0"),
        ("vote", "var_strength", -1.0, "var_strength must be a number > 0"),
        ("vote", "var_smoothing", "x", "var_smoothing must be a number ≥ 0"),
        ("vote", "prior_mean", {"physician-fee-freeze": 1.0}, "prior_mean names column 'physician-fee-freeze'"),
        ("vote", "prior_rate", 3.0, "prior_rate must be a dict"),
        # credit-g has categorical and float columns, no integer (count) one
        ("credit-g", "count_strength", "evidence", "count_strength must be a number > 0"),
        ("credit-g", "prior_rate", {"age": 2.0}, "prior_rate names column 'age', which is not a poisson column"),
        # diabetes has only float columns: no categorical or 0/1 column reads alpha
        ("diabetes", "alpha", -1.0, "alpha must be finite and ≥ 0"),
    ],
)
def test_invalid_parameters_of_an_absent_column_kind_are_refused_at_fit(dataset, parameter, value, message):
    X, y = load_dataset(dataset)
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        MixedNB(**{parameter: value}).fit(X, y)
    assert repr(value) in str(error.value) or parameter.startswith("prior_")


def test_valid_parameters_of_an_absent_column_kind_change_nothing():
    """Valid strengths of kinds vote lacks are accepted and leave every score as the defaults give it."""
    X, y = load_dataset("vote")
    default = MixedNB().fit(X, y).predict_joint_log_proba(X)
    other = MixedNB(mean_strength=5.0, var_strength=7.0, var_smoothing=0.1, count_strength=2.0, prior_rate={}).fit(X, y)
    np.testing.assert_array_equal(other.predict_joint_log_proba(X), default)
