"""MixedNB's count and categorical columns at their edges: counts bounded as the Gaussian columns
are (log x! of a larger count overflows to NaN), named with column and value; an all-missing
categorical column and an unseen value named as CategoricalNB names them."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from pgm_models import CategoricalNB, MixedNB
from pgm_models.conjugate.gamma import MAX_COUNT

Y = np.array([0, 0, 0, 1, 1, 1])


def _counts(big):
    return pd.DataFrame({"x": np.arange(6.0), "visits": [1.0, 2.0, 0.0, 3.0, big, 2.0]})


@pytest.mark.parametrize("big", [1e307, np.inf, 1e151])
def test_a_count_past_the_bound_is_refused_at_fit_and_prediction(big):
    message = (
        r"column 'visits' is a poisson column and has a value that is not a count ≥ 0 and ≤ 1e\+150 .*: "
        + re.escape(str(big))
    )
    with pytest.raises(ValueError, match=message):
        MixedNB(column_types={"visits": "poisson"}).fit(_counts(big), Y)
    model = MixedNB(column_types={"visits": "poisson"}).fit(_counts(4.0), Y)
    with pytest.raises(ValueError, match=r"column 'visits' is a poisson column and has a value that is not a count"):
        model.predict_proba(_counts(big))


@pytest.mark.parametrize("estimate", ["mean", "predictive", "mle"])
def test_the_largest_count_scores_finitely(estimate):
    model = MixedNB(column_types={"visits": "poisson"}, estimate=estimate).fit(_counts(MAX_COUNT), Y)
    log_proba = model.predict_log_proba(_counts(MAX_COUNT))
    assert np.isfinite(log_proba).all() or estimate == "mle"  # mle: a count impossible under a class is −inf there
    assert not np.isnan(log_proba).any()
    np.testing.assert_allclose(np.exp(log_proba).sum(axis=1), 1.0)


@pytest.mark.parametrize("Model", [MixedNB, CategoricalNB])
def test_an_all_missing_categorical_column_is_named(Model):
    frame = pd.DataFrame({"colour": [None, np.nan, None, None, np.nan, None], "x": np.arange(6.0)}).astype(
        {"colour": object}
    )
    X = frame if Model is MixedNB else frame[["colour"]]
    with pytest.raises(ValueError, match=r"column 'colour' has no value to model: it is missing in every row"):
        Model().fit(X, Y)


@pytest.mark.parametrize("Model", [MixedNB, CategoricalNB])
def test_unseen_values_are_shown_by_repr(Model):
    """The integer 1 and the string '1' differ, and the message shows which one came."""
    frame = pd.DataFrame({"colour": ["1", "2", "1", "2", "1", "2"], "x": np.arange(6.0)})
    columns = list(frame) if Model is MixedNB else ["colour"]
    model = Model(handle_unknown="error").fit(frame[columns], Y)
    unseen = frame.assign(colour=np.array([1, "2", "1", "1", "2", "3"], dtype=object))
    with pytest.raises(
        ValueError, match=re.escape("column 'colour' has value(s) [1, '3'] outside its domain ['1', '2']")
    ):
        model.predict(unseen[columns])
    with pytest.warns(
        UserWarning, match=re.escape("column 'colour' has value(s) [1, '3'] outside its domain ['1', '2']")
    ):
        Model().fit(frame[columns], Y).predict(unseen[columns])
