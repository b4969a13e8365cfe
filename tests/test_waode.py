"""WAODE: Weka 3.6.14 agreement (mode-imputed and MDL-discretised data too), the mutual
information weights, missing values, exact leave-one-out, estimates, partial_fit and weights."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.metrics import mutual_info_score

from pgm_models import AODE, WAODE
from pgm_models.datasets import load_dataset
from pgm_models.preprocessing.discretize import MDLDiscretizer

WEKA = Path(__file__).parent.parent / "pgm_models" / "datasets" / "data" / "weka"


def weka_data(dataset, preparation):
    """The data Weka's classifier saw: as loaded, after ReplaceMissingValues (each missing value
    the attribute's most frequent, the first in declared order on a tie), or after the supervised
    MDL Discretize (``MDLDiscretizer`` equals it)."""
    X, y = load_dataset(dataset)
    if preparation == "imputed":
        X = X.fillna(X.mode().iloc[0])
    elif preparation == "mdl":
        X = MDLDiscretizer().fit(X, y).transform(X)
    return X, y


@pytest.mark.parametrize(
    "fixture, dataset, preparation",
    [
        ("waode_weather.nominal", "weather.nominal", None),
        ("waode_contact-lenses", "contact-lenses", None),
        ("waode_imputed_vote", "vote", "imputed"),
        ("waode_imputed_breast-cancer", "breast-cancer", "imputed"),
        ("waode_mdl_diabetes", "diabetes", "mdl"),
    ],
)
def test_reproduces_weka_waode(fixture, dataset, preparation):
    """weka.classifiers.bayes.WAODE 3.6.14, alone or in a FilteredClassifier (commands:
    pgm_models/datasets/data/weka/COMMANDS.txt)."""
    X, y = weka_data(dataset, preparation)
    reference = pd.read_csv(WEKA / f"{fixture}.csv")
    model = WAODE().fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), reference[list(model.classes_)].to_numpy(), rtol=0, atol=1e-12)


def test_weights_are_scikit_learn_s_mutual_information_on_the_observed_rows():
    X, y = load_dataset("vote")
    model = WAODE().fit(X, y)
    for a, column in enumerate(X.columns):
        observed = X[column].notna()
        assert model.mutual_information()[a] == pytest.approx(
            mutual_info_score(y[observed], X[column][observed]), rel=1e-12, abs=1e-15
        )


def test_is_the_mutual_information_weighted_average_of_its_spodes(weather):
    X, y = weather
    model = WAODE(estimator="laplace", alpha=0.5).fit(X, y)
    weights = model.mutual_information()
    spodes = np.stack([np.exp(model.spode(a).predict_joint_log_proba(X)) for a in range(X.shape[1])])
    expected = np.tensordot(weights, spodes, axes=1) / weights.sum()
    np.testing.assert_allclose(np.exp(model.predict_joint_log_proba(X)), expected, rtol=1e-12)


def test_missing_values_are_skipped_and_weights_counted_on_the_available_cases():
    """A missing parent drops out of the weighted average; its attribute's information is
    counted on the rows that observe it."""
    X, y = load_dataset("breast-cancer")
    model = WAODE().fit(X, y)
    row = X.iloc[[0]].copy()
    row.iloc[0, 2] = np.nan
    weights = model.mutual_information()
    spodes = np.stack([np.exp(model.spode(a).predict_joint_log_proba(row))[0] for a in range(X.shape[1]) if a != 2])
    kept = np.delete(weights, 2)
    np.testing.assert_allclose(np.exp(model.predict_joint_log_proba(row))[0], kept @ spodes / kept.sum(), rtol=1e-12)


def test_attributes_without_information_weigh_nothing_and_all_without_is_aode():
    """x1 is independent of y in the sample (each of its values splits the classes evenly):
    weight 0; with every attribute so, the weights are uniform: AODE with frequency limit 0."""
    y = np.array(list("aabbaabbaabb"))
    x0 = np.array([0, 0, 1, 1, 0, 1, 1, 1, 0, 0, 1, 0])
    x1 = np.array([0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1])
    X = pd.DataFrame({"x0": x0, "x1": x1}).astype("category")
    model = WAODE().fit(X, y)
    assert model.mutual_information()[1] == 0 and model.mutual_information()[0] > 0
    only_x0 = np.exp(model.spode(0).predict_joint_log_proba(X))
    np.testing.assert_allclose(np.exp(model.predict_joint_log_proba(X)), only_x0, rtol=1e-12)
    independent = X[["x1"]].assign(x2=pd.Categorical(np.tile([0, 1, 1, 0], 3)))
    none = WAODE().fit(independent, y)
    assert not none.mutual_information().any()
    aode = AODE(estimator="m-estimate", m=1.0, frequency_limit=0).fit(independent, y)
    np.testing.assert_allclose(none.predict_proba(independent), aode.predict_proba(independent), rtol=1e-12)


def test_exact_leave_one_out_equals_refits():
    """With missing values; the weights are recomputed without each row."""
    X, y = load_dataset("breast-cancer")
    X, y = X.iloc[:40], y.iloc[:40]
    X = X.mask(np.random.default_rng(1).random(X.shape) < 0.1)
    model = WAODE(m=2.0)
    fitted = clone(model).fit(X, y)
    joint = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        joint.append(
            clone(model).fit(X.iloc[keep], y.iloc[keep]).predict_joint_log_proba(X.iloc[[i]], estimate="predictive")[0]
        )
    joint = np.array(joint)
    own = fitted._class_index(np.asarray(y))
    np.testing.assert_allclose(
        fitted.loo(X, y, conditional=False).loo_i.values, joint[np.arange(len(y)), own], rtol=0, atol=1e-10
    )


@pytest.mark.parametrize("estimate", ["mle", "map", "mean", "predictive"])
def test_estimates_weigh_aode_s_spodes(estimate):
    X, y = load_dataset("vote")
    model = WAODE(estimator="laplace", alpha=2.0).fit(X, y)
    weights = model.mutual_information()
    observed = X.notna().to_numpy()
    spodes = np.stack(
        [np.exp(model.spode(a).predict_joint_log_proba(X, estimate=estimate)) for a in range(X.shape[1])]
    )  # (F, N, K)
    per_row = np.where(observed, weights, 0.0)  # (N, F)
    some = observed.any(axis=1)  # (a row with no value falls back to naive Bayes)
    assert not some.all()
    expected = np.einsum("nf,fnk->nk", per_row[some], spodes[:, some]) / per_row[some].sum(axis=1)[:, None]
    np.testing.assert_allclose(np.exp(model.predict_joint_log_proba(X, estimate=estimate))[some], expected, rtol=1e-10)


def test_partial_fit_and_integer_weights_equal_fit_on_the_rows():
    X, y = load_dataset("vote")
    model = WAODE().fit(X, y)
    batches = WAODE().partial_fit(X[:200], y[:200], classes=model.classes_).partial_fit(X[200:], y[200:])
    np.testing.assert_allclose(batches.predict_proba(X), model.predict_proba(X), rtol=1e-12)
    weight = np.arange(len(y)) % 3
    rows = np.repeat(np.arange(len(y)), weight)
    np.testing.assert_allclose(
        WAODE().fit(X, y, sample_weight=weight).predict_proba(X),
        WAODE().fit(X.iloc[rows], y.iloc[rows]).predict_proba(X),
        rtol=1e-12,
    )
