"""Awkward data: pandas dtypes, column order, and a million rows."""

import numpy as np
import pytest

from pgm_models import (
    AODE,
    LDA,
    QDA,
    SPODE,
    TAN,
    BernoulliNB,
    CategoricalNB,
    GaussianNB,
    LogisticRegression,
    MultinomialNB,
)
from pgm_models.datasets import load_dataset


@pytest.mark.parametrize("Model", [CategoricalNB, SPODE, AODE, TAN])
def test_categorical_object_and_string_dtypes_give_the_same_model(Model):
    X, y = load_dataset("breast-cancer")  # declared categories, some never observed, and missing values
    as_object = X.astype(object).where(X.notna(), None)
    as_string = X.astype("string")
    declared = Model().fit(X, y)
    # object and string columns learn their domain from the values seen: compare on those
    observed = X.apply(lambda c: c.cat.remove_unused_categories())
    reference = Model().fit(observed, y).predict_proba(observed)
    for frame in (as_object, as_string):
        np.testing.assert_allclose(Model().fit(frame, y).predict_proba(frame), reference, atol=1e-12)
    assert declared.n_categories_.sum() > Model().fit(as_object, y).n_categories_.sum()  # declared values count


NUMERIC = [BernoulliNB, MultinomialNB, GaussianNB, LDA, QDA, LogisticRegression]
CATEGORICAL = [CategoricalNB, SPODE, AODE, TAN]


@pytest.mark.parametrize("Model", NUMERIC + CATEGORICAL, ids=lambda m: m.__name__)
def test_dataframe_columns_are_matched_by_name(Model):
    if Model in CATEGORICAL:
        X, y = load_dataset("vote")
    else:
        X, y = load_dataset("iris")
        y = y.to_numpy()
    model = Model().fit(X, y)
    shuffled = X[list(reversed(X.columns))]
    np.testing.assert_allclose(model.predict_proba(shuffled), model.predict_proba(X))
    with pytest.raises(ValueError, match="feature names"):
        model.predict(X.rename(columns={X.columns[0]: "renamed"}))


@pytest.mark.parametrize("Model", [CategoricalNB, MultinomialNB, GaussianNB, AODE])
def test_a_million_rows(Model):
    """Fit and predict 1e6 rows (peak memory is measured by benchmarks.large_data)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 1_000_000)
    if Model is GaussianNB:
        X = rng.normal(size=(1_000_000, 8)) + y[:, None]
    elif Model is MultinomialNB:
        rates = np.ones((3, 8)) + 4 * np.eye(3, 8)  # each class favours its own word
        X = rng.poisson(rates[y])
    else:
        X = rng.integers(0, 4, size=(1_000_000, 8)) + y[:, None]
    model = Model().fit(X, y)
    assert (model.predict(X[:100_000]) == y[:100_000]).mean() > 0.6
