"""MixedNB's column types come from the dtypes (or ``column_types``), never from the values a
subset happens to hold: an integer count column whose 2s all fall in one fold used to be
Bernoulli in the other folds, so ``cross_val_score`` and later ``partial_fit`` batches raised.
With the data-scaled priors pinned (``prior_mean``, ``prior_var``, ``prior_rate``) batches
equal one fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import KFold, cross_val_score

from pgm_models import MixedNB


@pytest.fixture(scope="module")
def table():
    """60 rows: an integer count column that is 0/1 except for its 2s, all in rows 0..19 (the
    first of three unshuffled folds); a 0/1 integer column; a float column; a categorical."""
    rng = np.random.default_rng(8)
    y = np.tile(["a", "b"], 30)
    visits = (rng.random(60) < np.where(y == "a", 0.7, 0.3)).astype(np.int64)
    visits[[2, 5, 11, 16]] = 2
    return pd.DataFrame(
        {
            "visits": visits,
            "member": (rng.random(60) < 0.5).astype(np.int64),
            "height": rng.normal(np.where(y == "a", 0.0, 1.0)),
            "colour": pd.Categorical(rng.choice(["red", "blue"], 60), categories=["blue", "red"]),
        }
    ), y


def test_types_are_those_of_the_dtypes_in_every_subset(table):
    X, y = table
    expected = {"visits": "poisson", "member": "poisson", "height": "gaussian", "colour": "categorical"}
    for rows in (slice(None), slice(20, 60), slice(40, 60)):
        assert MixedNB().fit(X.iloc[rows], y[rows]).column_types_ == expected
    declared = MixedNB(column_types={"member": "bernoulli"}).fit(X.iloc[20:], y[20:])
    assert declared.column_types_["member"] == "bernoulli"


def test_cross_val_score_with_the_2s_in_one_fold(table):
    X, y = table
    folds = KFold(3)  # unshuffled: the 2s of visits are all in the first test fold
    assert not (X["visits"].iloc[20:] == 2).any()
    scores = cross_val_score(MixedNB(), X, y, cv=folds, error_score="raise")
    assert scores.shape == (3,) and np.all((scores >= 0) & (scores <= 1))
    # each fold's model is the one fitted on the other folds' rows
    for (train, test), score in zip(folds.split(X), scores):
        model = MixedNB().fit(X.iloc[train], y[train])
        assert score == pytest.approx(np.mean(model.predict(X.iloc[test]) == y[test]))


def test_partial_fit_in_batches_equals_fit_with_pinned_priors(table):
    X, y = table
    model = MixedNB(prior_mean={"height": 0.5}, prior_var={"height": 1.2}, prior_rate={"visits": 0.6, "member": 0.5})
    once = clone(model).fit(X, y)
    batches = clone(model)
    for rows in (slice(20, 40), slice(40, 60), slice(0, 20)):  # the 2s come last
        batches.partial_fit(X.iloc[rows], y[rows], classes=["a", "b"])
    assert batches.column_types_ == once.column_types_
    for name, value in once._statistics().items():
        np.testing.assert_allclose(batches._statistics()[name], value, rtol=1e-12, atol=1e-12, err_msg=name)
    for estimate in ("mean", "map", "predictive"):
        np.testing.assert_allclose(
            batches.predict_joint_log_proba(X, estimate=estimate),
            once.predict_joint_log_proba(X, estimate=estimate),
            rtol=1e-12,
        )
    # the pinned values are the prior's: m0 = 0.5, ν0 s0²/2 = 3 · 1.2 / 2, the Gamma mean c̄ = 0.6
    gaussian, poisson = once._blocks["gaussian"].prior, once._blocks["poisson"].prior
    np.testing.assert_allclose(gaussian.m, 0.5)
    np.testing.assert_allclose(gaussian.b, 3.0 * 1.2 / 2)
    np.testing.assert_allclose(poisson.a / poisson.b, [[0.6, 0.5], [0.6, 0.5]])


def test_pinned_priors_are_checked(table):
    X, y = table
    with pytest.raises(ValueError, match=r"prior_mean names column 'visits', which is not a gaussian column"):
        MixedNB(prior_mean={"visits": 1.0}).fit(X, y)
    with pytest.raises(ValueError, match=r"prior_var\['height'\] must be a finite number > 0"):
        MixedNB(prior_var={"height": 0.0}).fit(X, y)
    with pytest.raises(ValueError, match=r"prior_rate must be a dict"):
        MixedNB(prior_rate=2.0).fit(X, y)
    with pytest.raises(ValueError, match=r"column 'height' is a poisson column .* \(column_types sets another type\)"):
        MixedNB().fit(X.assign(height=np.arange(60) - 3), y)
