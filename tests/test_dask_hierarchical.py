"""HierarchicalNB on dask collections: its wrapped model is counted by the engine, and every
prediction method maps the fitted model over the blocks and returns a dask array equal to the
in-memory predictions (it used to fail in ``np.stack`` on a DataFrame's blocks of unknown length,
and to return a computed NumPy array on a dask array). The blocks run on the synchronous
scheduler, in this process; λ's draws are fixed, so no NUTS runs."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

dask = pytest.importorskip("dask")
import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402

from pgm_models import CategoricalNB, HierarchicalNB  # noqa: E402
from pgm_models.datasets import load_dataset  # noqa: E402

METHODS = ("predict_joint_log_proba", "predict_log_proba", "predict_proba", "predict")
ALPHA_DRAWS = np.array([[0.3], [1.0], [4.0]])


def _fixed_draws(model):
    model.alpha_draws_ = ALPHA_DRAWS.copy()
    return model


def _assert_same_predictions(memory, distributed, X_memory, X_dask):
    for method in METHODS:
        expected = getattr(memory, method)(X_memory)
        result = getattr(distributed, method)(X_dask)
        assert isinstance(result, da.Array), method  # lazy, as the other models' predictions
        computed = result.compute()
        assert computed.shape == expected.shape, method
        if method == "predict":
            np.testing.assert_array_equal(computed, expected)
        else:
            np.testing.assert_allclose(computed, expected, rtol=1e-12, atol=1e-300, err_msg=method)


def test_predictions_on_a_dask_dataframe_equal_the_in_memory_ones():
    X, y = load_dataset("vote")  # Categorical columns with missing votes
    memory = _fixed_draws(HierarchicalNB().fit_counts(X, y))
    X_dask = dd.from_pandas(X, npartitions=3, sort=False)
    with dask.config.set(scheduler="sync"):
        distributed = HierarchicalNB().fit_counts(X_dask, dd.from_pandas(y, npartitions=3, sort=False))
        np.testing.assert_array_equal(distributed.model_.feature_count_, memory.model_.feature_count_)
        with pytest.raises(NotFittedError, match="HierarchicalNB instance is not fitted"):
            distributed.predict_proba(X_dask)  # fit_counts draws no λ: refused at the call, as in memory
        _assert_same_predictions(memory, _fixed_draws(distributed), X, X_dask)
    # the three draws really differ in what they predict, so the average over them is tested
    single = [memory._at(alpha).predict_proba(X, estimate="predictive") for alpha in ALPHA_DRAWS]
    assert np.abs(single[0] - single[2]).max() > 0.01


def test_predictions_on_a_dask_array_equal_the_in_memory_ones():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(120, 4))
    y = np.where(X[:, 0] + rng.integers(0, 2, 120) > 1, "a", "b")
    template = CategoricalNB(n_categories=3)
    memory = _fixed_draws(HierarchicalNB(template, per_attribute=False).fit_counts(X, y))
    X_dask = da.from_array(X, chunks=(50, 4))
    with dask.config.set(scheduler="sync"):
        distributed = _fixed_draws(HierarchicalNB(template).fit_counts(X_dask, da.from_array(y, chunks=50)))
        _assert_same_predictions(memory, distributed, X, X_dask)
        with pytest.raises(TypeError, match=r"HierarchicalNB\.predict\(\) got an unexpected keyword argument 'loss'"):
            distributed.predict(X_dask, loss=[[0, 1], [1, 0]])  # at the call, not in a block's task
