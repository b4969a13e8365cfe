"""No fitted model keeps the caller's arrays: every estimator, fitted on (X, y, sample_weight),
predicts the same after the caller overwrites those arrays in place, and no array it holds
shares memory with them."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from zoo_cases import fit, make, prediction_methods, training_data

import pgm_models


def _arrays(value, seen=None):
    """Every NumPy array (a sparse matrix's too) reachable from ``value``, each once."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        yield value
        if value.base is not None and isinstance(value.base, np.ndarray):
            yield value.base
    elif sp.issparse(value):
        yield from (value.data, value.indices, value.indptr) if hasattr(value, "indptr") else ()
    elif isinstance(value, dict):
        for item in value.values():
            yield from _arrays(item, seen)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _arrays(item, seen)
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        yield from _arrays(vars(value), seen)


@pytest.mark.parametrize("name", pgm_models.ESTIMATORS)
def test_overwriting_the_inputs_after_fit_changes_nothing(name):
    X, y, weight = training_data(name)
    model = fit(make(name), X, y, weight)
    rows = np.unique(X, axis=0)  # its own array
    methods = prediction_methods(model)
    before = {method: predict(rows) for method, predict in methods.items()}
    for attribute, value in vars(model).items():
        for array in _arrays(value):
            for input_name, given in (("X", X), ("y", y), ("sample_weight", weight)):
                assert not np.shares_memory(array, given), f"{attribute} shares memory with the caller's {input_name}"
    X[:] = X[::-1].copy() * 2 + 1  # other valid values of every kind the models take
    y[:] = y[::-1].copy()
    weight[:] = weight[::-1].copy() * 3
    for method, predict in methods.items():
        np.testing.assert_array_equal(predict(rows), before[method], err_msg=method)
