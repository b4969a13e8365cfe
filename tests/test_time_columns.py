"""Datetime and timedelta columns are refused by name, at fit and at prediction, by every model
that takes numbers (converted they would be nanoseconds: 1.7e18 for a date of 2024)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pgm_models import LDA, QDA, BernoulliNB, GaussianNB, LogisticRegression, MixedNB, MultinomialNB

NUMERIC = [GaussianNB, LDA, QDA, LogisticRegression, MultinomialNB, BernoulliNB]
Y = np.repeat([0, 1], 6)


def _frame(time):
    rng = np.random.default_rng(0)
    numbers = pd.DataFrame({"size": rng.poisson(3.0, 12).astype(float), "weight": rng.poisson(5.0, 12).astype(float)})
    dates = pd.Series(pd.date_range("2024-01-01", periods=12, freq="D"))
    return numbers.assign(when=dates if time == "datetime" else dates - dates[0])


TIMES = {"datetime": "datetime64", "timedelta": "timedelta64"}


@pytest.mark.parametrize("time", TIMES)
@pytest.mark.parametrize("Model", NUMERIC)
def test_time_column_is_refused_at_fit(Model, time):
    with pytest.raises(
        ValueError,
        match=rf"column 'when' holds {TIMES[time]}\[\w+\] values, which {Model.__name__} does not take as numbers",
    ):
        Model().fit(_frame(time), Y)


@pytest.mark.parametrize("time", TIMES)
@pytest.mark.parametrize("Model", NUMERIC)
def test_time_column_is_refused_at_prediction(Model, time):
    frame = _frame(time)
    numbers = frame.assign(when=np.arange(12.0))  # the same column, as numbers, at fit
    model = Model().fit(numbers, Y)
    with pytest.raises(ValueError, match=rf"column 'when' holds {TIMES[time]}\[\w+\] values"):
        model.predict_proba(frame)


@pytest.mark.parametrize("time", TIMES)
def test_time_array_is_refused(time):
    values = np.arange(12).reshape(6, 2).astype(f"{TIMES[time]}[D]")
    with pytest.raises(ValueError, match=rf"X holds {TIMES[time]}\[D\] values, which GaussianNB does not take"):
        GaussianNB().fit(values, Y[:6])


@pytest.mark.parametrize("time", TIMES)
def test_mixed_nb_refuses_a_time_column_at_fit_and_prediction(time):
    frame = _frame(time)
    with pytest.raises(
        ValueError, match=rf"column 'when' holds {TIMES[time]}\[\w+\] values, which a gaussian column does not take"
    ):
        MixedNB(column_types={"when": "gaussian"}).fit(frame, Y)
    model = MixedNB().fit(frame.assign(when=np.arange(12.0)), Y)
    with pytest.raises(
        ValueError, match=rf"column 'when' holds {TIMES[time]}\[\w+\] values, which a gaussian column does not take"
    ):
        model.predict_proba(frame)
