"""``loo(X, y)`` scores only the rows the model was fitted on, each with weight 1: other rows with
the same class counts and fits with ``sample_weight`` are refused (they gave a plausible ELPD,
−inf or NaN), while the same rows fitted in chunks, in another order or on Dask are accepted."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from pgm_models import AODE, LDA, QDA, SPODE, TAN, BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB


def _categorical(rng, n=40):
    columns = {f"x{j}": pd.Categorical.from_codes(rng.integers(0, 3, n), categories=["a", "b", "c"]) for j in range(3)}
    return pd.DataFrame(columns)


def _cases():
    rng = np.random.default_rng(5)
    y = np.repeat(["p", "q"], 20)
    categorical = _categorical(rng)
    binary = (rng.random((40, 4)) < 0.4).astype(float)
    counts = rng.poisson(2.0, (40, 5)).astype(float)
    numeric = rng.normal(size=(40, 3)) + (y == "q")[:, None]
    return {
        "CategoricalNB": (CategoricalNB(), categorical, y),
        "BernoulliNB": (BernoulliNB(binarize=None), binary, y),
        "MultinomialNB": (MultinomialNB(), counts, y),
        "GaussianNB": (GaussianNB(), numeric, y),
        "LDA": (LDA(), numeric, y),
        "QDA": (QDA(), numeric, y),
        "SPODE": (SPODE(parent=0), categorical, y),
        "TAN": (TAN(), categorical, y),
        "AODE": (AODE(), categorical, y),
    }


CASES = _cases()


def _rows(X, index):
    return X.iloc[index].reset_index(drop=True) if hasattr(X, "iloc") else X[index]


def _other_rows(X):
    """Rows of the same shape and class counts that were not fitted: attribute 0 moved across rows
    (and classes)."""
    if hasattr(X, "iloc"):
        other = X.copy()
        other["x0"] = pd.Categorical.from_codes(
            np.roll(X["x0"].cat.codes.to_numpy(), 7), categories=X["x0"].cat.categories
        )
        return other
    other = np.array(X, copy=True)
    other[:, 0] = np.roll(other[:, 0], 7)
    return other


@pytest.mark.parametrize("name", list(CASES))
def test_loo_refuses_other_rows_with_the_fitted_class_counts(name):
    model, X, y = CASES[name]
    fitted = clone(model).fit(X, y)
    other = _other_rows(X)
    assert not np.array_equal(np.asarray(other, dtype=object), np.asarray(X, dtype=object))
    with pytest.raises(ValueError, match="do not give the fitted"):
        fitted.loo(other, y)


@pytest.mark.parametrize("name", list(CASES))
def test_loo_refuses_a_weighted_fit_naming_sample_weight(name):
    model, X, y = CASES[name]
    weight = np.where(np.arange(len(y)) % 4 == 0, 2.0, 1.0)  # whole-number weights: the class counts are whole too
    with pytest.raises(ValueError, match="sample_weight"):
        clone(model).fit(X, y, sample_weight=weight).loo(X, y)
    with pytest.raises(ValueError, match="sample_weight"):
        clone(model).fit(X, y, sample_weight=np.full(len(y), 0.5)).loo(X, y)


@pytest.mark.parametrize("name", list(CASES))
def test_loo_accepts_the_fitted_rows_in_chunks_and_in_another_order(name):
    model, X, y = CASES[name]
    once = clone(model).fit(X, y).loo(X, y)
    chunked = clone(model)
    for batch in np.array_split(np.random.default_rng(1).permutation(len(y)), 3):
        chunked.partial_fit(_rows(X, batch), y[batch], classes=["p", "q"])
    order = np.random.default_rng(2).permutation(len(y))
    again = chunked.loo(_rows(X, order), y[order])
    assert np.isfinite(once.elpd_loo)
    if name in ("GaussianNB", "LDA", "QDA"):  # the data-scaled prior is the first batch's: another posterior
        assert np.isfinite(again.elpd_loo)
    else:
        np.testing.assert_allclose(again.loo_i.values, once.loo_i.values[order], rtol=1e-12)
    # a fit with every weight 1 is the unweighted fit
    weighted = clone(model).fit(X, y, sample_weight=np.ones(len(y))).loo(X, y)
    np.testing.assert_allclose(weighted.loo_i.values, once.loo_i.values, rtol=1e-12)


def test_loo_accepts_the_rows_of_a_dask_fit():
    dd = pytest.importorskip("dask.dataframe")
    model, X, y = CASES["GaussianNB"]
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    fitted = clone(model).fit(dd.from_pandas(frame, npartitions=3), dd.from_pandas(pd.Series(y), npartitions=3))
    expected = clone(model).fit(frame, y).loo(frame, y)
    np.testing.assert_allclose(fitted.loo(frame, y).loo_i.values, expected.loo_i.values, rtol=1e-9)
    with pytest.raises(ValueError, match="feature_mean_"):
        fitted.loo(frame.iloc[::-1].reset_index(drop=True), y)
