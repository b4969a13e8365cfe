"""Discretizers: Weka's supervised MDL cut points, interval mapping, Pipelines."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import cross_validate
from sklearn.pipeline import make_pipeline

from pgm_models import AODE, TAN, CategoricalNB
from pgm_models.datasets import load_dataset
from pgm_models.preprocessing.discretize import EqualFrequencyDiscretizer, EqualWidthDiscretizer, MDLDiscretizer

WEKA = Path(__file__).parent.parent / "pgm_models" / "datasets" / "data" / "weka"


@pytest.mark.parametrize("dataset", ["iris", "diabetes"])
def test_mdl_reproduces_weka_supervised_discretize(dataset):
    """weka.filters.supervised.attribute.Discretize 3.6.14 (pgm_models/datasets/data/weka/COMMANDS.txt)."""
    X, y = load_dataset(dataset)
    reference = pd.read_csv(WEKA / f"mdl_cut_points_{dataset}.csv", keep_default_na=False)
    ours = MDLDiscretizer().fit(X, y).cut_points_
    assert list(reference["attribute"]) == list(X.columns)
    for cuts, found in zip(reference["cut_points"], ours):
        np.testing.assert_array_equal(found, [float(c) for c in cuts.split()])
    assert any(len(c) == 0 for c in ours) == (dataset == "diabetes")  # 'pres' and 'skin' get no cut


def test_values_on_a_cut_go_left_and_every_interval_is_declared():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, np.nan]})
    discretizer = EqualWidthDiscretizer(n_bins=3).fit(X)
    np.testing.assert_allclose(discretizer.cut_points_[0], [2.0, 3.0])
    out = discretizer.transform(pd.DataFrame({"x": [2.0, 2.5, 3.0, 9.0, np.nan]}))
    assert list(out["x"].cat.categories) == ["(-inf-2]", "(2-3]", "(3-inf)"]
    assert out["x"].tolist()[:4] == ["(-inf-2]", "(2-3]", "(2-3]", "(3-inf)"]
    assert pd.isna(out["x"].iloc[4])


def test_equal_frequency_cuts_at_quantiles():
    X = pd.DataFrame({"x": np.arange(1.0, 13.0)})
    cuts = EqualFrequencyDiscretizer(n_bins=4).fit(X).cut_points_[0]
    np.testing.assert_allclose(cuts, np.quantile(np.arange(1.0, 13.0), [0.25, 0.5, 0.75]))
    counts = EqualFrequencyDiscretizer(n_bins=4).fit_transform(X)["x"].value_counts().to_numpy()
    assert (counts == 3).all()


def test_non_numeric_columns_pass_through():
    X, y = load_dataset("weather.numeric")
    out = MDLDiscretizer().fit_transform(X, y)
    assert out["outlook"].equals(X["outlook"])
    assert isinstance(out["temperature"].dtype, pd.CategoricalDtype)


@pytest.mark.parametrize("Model", [CategoricalNB, AODE, TAN])
def test_pipeline_refits_the_cut_points_in_every_fold(Model):
    X, y = load_dataset("iris")
    result = cross_validate(make_pipeline(MDLDiscretizer(), Model()), X, y, cv=5, return_estimator=True)
    assert result["test_score"].mean() > 0.85
    cuts = [tuple(pipe[0].cut_points_[0]) for pipe in result["estimator"]]
    assert len(set(cuts)) > 1  # each fold learned its own cut points


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda X: MDLDiscretizer().fit(X), "needs the class labels"),
        (lambda X: EqualWidthDiscretizer(n_bins=0).fit(X), "n_bins must be"),
        (lambda X: MDLDiscretizer().fit(X, [0, 1]), "X has 150 rows but y has 2"),
    ],
)
def test_bad_input_is_named(make, message):
    X, _ = load_dataset("iris")
    with pytest.raises(ValueError, match=message):
        make(X)
