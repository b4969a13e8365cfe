"""The zoo's model choice per kind of data, its runs and table, and the report (Markdown and HTML)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import Pipeline

from pgm_models.app.zoo import applicable_models, run_zoo
from pgm_models.datasets import list_datasets, load_dataset

pytestmark = pytest.mark.filterwarnings("ignore")


def _final_steps(models):
    return {name: type(m[-1] if isinstance(m, Pipeline) else m).__name__ for name, m in models}


def test_nominal_data_gets_the_discrete_family_and_one_hot_logistic_regression():
    X, _ = load_dataset("vote")
    models = applicable_models(X)
    assert _final_steps(models) == {
        "CategoricalNB": "CategoricalNB",
        "SPODE": "SPODE",
        "AODE": "AODE",
        "TAN": "TAN",
        "AODEsr": "AODEsr",
        "WAODE": "WAODE",
        "HNB": "HNB",
        "A2DE": "A2DE",
        "KDB": "KDB",
        "BayesNet-K2": "BayesNetClassifier",
        "MANB": "MANB",
        "BMATAN": "BMATAN",
        "LogisticRegression": "LogisticRegression",
    }
    assert not isinstance(dict(models)["TAN"], Pipeline)  # nominal data needs no transform


def test_numeric_data_gets_the_gaussian_family_and_mdl_binned_aode():
    X, _ = load_dataset("iris")
    models = dict(applicable_models(X))
    assert _final_steps(models.items()) == {
        "GaussianNB": "GaussianNB",
        "LDA": "LDA",
        "QDA": "QDA",
        "LogisticRegression": "LogisticRegression",
        "AODE (MDL bins)": "AODE",
    }
    assert type(models["LogisticRegression"][0]).__name__ == "StandardScaler"


def test_mixed_data_bins_the_numeric_attributes_for_the_nominal_models():
    X, y = load_dataset("weather.numeric")
    models = dict(applicable_models(X))
    # A2DE needs nominal data whose triple tensor is known to be small: not the bins of numeric columns
    assert list(models) == [
        "CategoricalNB",
        "SPODE",
        "AODE",
        "TAN",
        "AODEsr",
        "WAODE",
        "HNB",
        "KDB",
        "BayesNet-K2",
        "MANB",
        "BMATAN",
        "LogisticRegression",
        "MixedNB",
    ]
    binned = models["TAN"][0].fit_transform(X, y)
    assert all(isinstance(dtype, pd.CategoricalDtype) for dtype in binned.dtypes)


def test_text_gets_multinomial_bernoulli_and_complement_on_a_bounded_vocabulary():
    X, y = load_dataset("reuters-grain-test")
    models = dict(applicable_models(X, max_words=50))
    assert list(models) == ["MultinomialNB", "BernoulliNB", "ComplementNB"]
    for name in ("MultinomialNB", "ComplementNB"):
        fitted = models[name].fit(X, y)
        assert fitted[-1].feature_count_.shape == (2, 50)
        assert np.mean(fitted.predict(X) == np.asarray(y)) > 0.9, name


def test_a_frame_with_several_text_columns_is_refused():
    X = pd.DataFrame({"a": ["x y", "y"], "b": ["z", "z w"]})
    with pytest.raises(ValueError, match="single text column"):
        applicable_models(X)


@pytest.fixture(scope="module")
def aode_on_iris():
    """A zoo run of one model with no PyMC model (so no NUTS): MDL-binned AODE on iris."""
    X, y = load_dataset("iris")
    models = [entry for entry in applicable_models(X) if entry[0] == "AODE (MDL bins)"]
    steps = []
    result = run_zoo(X, y, dataset="iris", seed=1, models=models, progress=lambda *step: steps.append(step))
    return result, steps


def test_run_scores_every_estimate_on_the_stratified_test_split(aode_on_iris):
    result, steps = aode_on_iris
    assert steps == [(0, 1, "AODE (MDL bins): fitting"), (1, 1, "done")]
    assert result.settings["n_test"] == 45 and result.y_test.value_counts().tolist() == [15, 15, 15]
    table = result.table()
    assert table.loc[0, "verified"] == "n/a" and np.isnan(table.loc[0, "max_abs_z"]) and result.passed
    run = result.runs[0]
    proba = run.model[-1].predict_proba(run.features(result.X_test), estimate="map")
    expected_accuracy = np.mean(run.model[-1].classes_[proba.argmax(axis=1)] == result.y_test.to_numpy())
    assert table.loc[0, "acc_map"] == expected_accuracy > 0.85


@pytest.mark.parametrize(
    "settings, message", [({"draws": 0}, "--draws and --chains"), ({"test_size": 1.5}, "--test-size")]
)
def test_bad_settings_are_named(settings, message):
    X, y = load_dataset("weather.nominal")
    with pytest.raises(ValueError, match=message):
        run_zoo(X, y, **settings)


def test_the_zoo_leaves_r_hat_and_ess_to_its_own_verification(monkeypatch):
    """PyMC's convergence checks would compute R-hat and ESS a second time (check_posterior and
    check_sampler compute them): the zoo turns them off, and keeps 1000 tuning steps."""
    from pgm_models.inference import sampling

    class Captured(Exception):
        pass

    seen = {}

    def capture(model, **kwargs):
        seen.update(kwargs)
        raise Captured

    monkeypatch.setattr(sampling, "sample", capture)
    X, y = load_dataset("weather.nominal")
    models = [entry for entry in applicable_models(X) if entry[0] == "CategoricalNB"]
    with pytest.raises(Captured):
        run_zoo(X, y, models=models)
    assert seen["compute_convergence_checks"] is False and seen["tune"] == 1000 and seen["draws"] == 1000


def test_an_mle_the_training_rows_leave_undefined_scores_nan_and_says_why():
    """heights-weights, seed 2: the three women of the training split lie on a line (160, 55),
    (163, 58), (165, 60), so QDA's MLE covariance is singular; the zoo scores it NaN, keeps the
    other estimates' scores and says why (it stopped the whole zoo before)."""
    from sklearn.model_selection import train_test_split

    from pgm_models import QDA, score_estimates
    from pgm_models.app.zoo import _scores

    X, y = load_dataset("heights-weights")
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=2, stratify=y)
    model = QDA().fit(X_train, y_train)
    with pytest.raises(ValueError, match="singular under estimate='mle'"):
        score_estimates(model, X_test, y_test, estimates=("mle",))
    scores, undefined = _scores(model, X_test, y_test)
    assert list(undefined) == ["mle"] and "class 'woman' is singular" in undefined["mle"]
    assert scores.loc["mle"].isna().all()
    expected = score_estimates(model, X_test, y_test, estimates=("mean", "map", "predictive")).set_index("estimate")
    pd.testing.assert_frame_equal(scores.loc[["mean", "map", "predictive"], expected.columns], expected)


class _NothingSampled(dict):
    """The catalogue's ``NOT_SAMPLED`` with every model in it (the note is what the zoo reports)."""

    def __contains__(self, name):
        return True

    def __getitem__(self, name):
        return "not sampled in this test"


@pytest.mark.parametrize("seed", [0, 2])
@pytest.mark.parametrize("dataset", list(list_datasets()["name"]))
def test_every_bundled_dataset_runs_through_the_zoo_but_the_sampling(monkeypatch, dataset, seed):
    """Fit, exact LOO and scores of every applicable model on every bundled dataset and two splits,
    NUTS left out (LogisticRegression, whose mean needs its draws, with it): the NUTS sweep of
    benchmarks/false_alarm.py found the zoo stopping on heights-weights seed 2 (an undefined MLE)
    and on the two-attribute datasets (A2DE's absent triples in the LOO check)."""
    import pgm_models.app.zoo as zoo

    monkeypatch.setattr(zoo, "NOT_SAMPLED", _NothingSampled())
    catalogue = zoo.applicable_models
    monkeypatch.setattr(zoo, "applicable_models", lambda X: [m for m in catalogue(X) if m[0] != "LogisticRegression"])
    X, y = load_dataset(dataset)
    result = run_zoo(X, y, dataset=dataset, seed=seed)
    assert [run.name for run in result.runs] == [name for name, _ in catalogue(X) if name != "LogisticRegression"]
    for run in result.runs:
        assert np.isfinite(run.scores.loc[["mean", "predictive"], "accuracy"]).all(), run.name
        assert set(run.undefined) <= {"mle"}
        assert run.scores.loc["mle"].isna().all() == ("mle" in run.undefined)
