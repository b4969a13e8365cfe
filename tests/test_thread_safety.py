"""Prediction never writes to the estimator, so one fitted model serves many threads: every
estimator × every prediction method, called from 8 threads at once 25 times each, gives the
sequential results, and the model's state (every attribute, compared deeply) is unchanged."""

from __future__ import annotations

import copy
import threading

import numpy as np
import pytest
from zoo_cases import fitted, prediction_methods

import pgm_models
from pgm_models._utils.threads import one_blas_thread

N_THREADS, N_CALLS = 8, 25


def assert_same_state(before, after, path="model", seen=None):
    """``before`` and ``after`` equal all the way down: arrays by dtype, shape and value, objects
    by their attributes (each pair once: a part may refer back to the model)."""
    seen = set() if seen is None else seen
    if (id(before), id(after)) in seen:
        return
    seen.add((id(before), id(after)))
    assert type(before) is type(after), f"{path}: {type(before).__name__} became {type(after).__name__}"
    if isinstance(before, np.ndarray):
        assert before.dtype == after.dtype and before.shape == after.shape, (
            f"{path}: {before.dtype}{before.shape} became {after.dtype}{after.shape}"
        )
        assert np.array_equal(before, after, equal_nan=before.dtype.kind in "fc"), f"{path} changed"
    elif isinstance(before, dict):
        assert list(before) == list(after), f"{path}: keys {list(before)} became {list(after)}"
        for key in before:
            assert_same_state(before[key], after[key], f"{path}[{key!r}]", seen)
    elif isinstance(before, (list, tuple)):
        assert len(before) == len(after), f"{path}: length {len(before)} became {len(after)}"
        for i, (a, b) in enumerate(zip(before, after)):
            assert_same_state(a, b, f"{path}[{i}]", seen)
    elif hasattr(before, "__dict__") and not isinstance(before, type):
        assert_same_state(vars(before), vars(after), f"{path}.", seen)
    else:
        assert before == after or (before != before and after != after), f"{path}: {before!r} became {after!r}"


def _calls(model, rows):
    methods = list(prediction_methods(model).items())
    batches = [rows, np.resize(rows, (300, rows.shape[1]))]  # a few rows, and past the column-by-column threshold
    return [(name, method, batch) for name, method in methods for batch in batches]


@pytest.mark.parametrize("name", pgm_models.ESTIMATORS)
def test_concurrent_predictions_equal_sequential_ones_and_leave_the_model_alone(name):
    model, rows = fitted(name)
    state = vars(copy.deepcopy(model))
    calls = _calls(model, rows)
    expected = [method(batch) for _, method, batch in calls]
    assert_same_state(state, vars(model))
    start, results, errors = threading.Barrier(N_THREADS), {}, []

    def work(thread):
        start.wait()
        try:
            for i in range(N_CALLS):
                which = (thread + i) % len(calls)
                results[thread, i] = which, calls[which][1](calls[which][2])
        except Exception as error:  # reported below, with the thread's call
            errors.append((thread, calls[which][0], error))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(N_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors[0]
    for (thread, i), (which, output) in results.items():
        np.testing.assert_array_equal(
            output, expected[which], err_msg=f"{calls[which][0]} in thread {thread}, call {i}"
        )
    assert_same_state(state, vars(model))


def test_concurrent_single_blas_thread_sections_restore_the_setting():
    """Overlapping ``one_blas_thread`` sections in several threads leave BLAS as it was before them all."""
    from threadpoolctl import threadpool_info

    def blas_threads():
        return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]

    before = blas_threads()
    start = threading.Barrier(N_THREADS)

    def work():
        start.wait()
        for _ in range(50):
            with one_blas_thread():
                np.ones((4, 4)) @ np.ones((4, 4))

    threads = [threading.Thread(target=work) for _ in range(N_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert blas_threads() == before
