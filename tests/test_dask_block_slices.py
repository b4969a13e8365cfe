"""The Dask engine's per-worker rate (issue 13's rows/s target): the classes are found by hashing
each block's labels (not by sorting every block), and each block is counted in slices of rows
(its temporaries stay small). Both must leave the fit equal to the in-memory fit. The blocks run
on the synchronous scheduler here, in this process, so that a patched slice size reaches them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
from test_dask import assert_same_fit  # noqa: E402

from pgm_models import AODE, QDA, TAN, CategoricalNB, GaussianNB  # noqa: E402
from pgm_models.dask_engine import engine as dask_engine  # noqa: E402
from pgm_models.datasets import load_dataset  # noqa: E402


@pytest.fixture
def sync():
    with dask.config.set(scheduler="sync"):
        yield


@pytest.fixture(scope="module")
def vote():
    return load_dataset("vote")


def test_labels_found_block_by_block_are_the_sorted_distinct_labels(sync):
    labels = np.array(["b"] * 5 + ["a"] * 4 + ["c"] + ["b"] * 3)  # 'c' in one block only
    codes = (np.arange(len(labels))[:, None] + np.arange(2)) % 3
    for split_every in (2, 3, 8):
        found = dask_engine.fit(
            CategoricalNB(n_categories=3),
            da.from_array(codes, chunks=(4, -1)),
            da.from_array(labels, chunks=4),
            split_every=split_every,
        )
        np.testing.assert_array_equal(found.classes_, ["a", "b", "c"])
    series = dd.from_pandas(pd.Series(labels), npartitions=3, sort=False)
    frame = dd.from_pandas(pd.DataFrame(codes, columns=["u", "v"]), npartitions=3, sort=False)
    np.testing.assert_array_equal(
        dask_engine.fit(CategoricalNB(n_categories=3), frame, series, split_every=2).classes_, ["a", "b", "c"]
    )
    integers = np.array([7, 3, 3, -1, 7, 12, 3])
    found = dask_engine.fit(
        CategoricalNB(n_categories=3),
        da.from_array(codes[:7], chunks=(2, -1)),
        da.from_array(integers, chunks=2),
        split_every=2,
    )
    np.testing.assert_array_equal(found.classes_, [-1, 3, 7, 12])


def test_a_class_seen_in_the_last_block_only_is_a_class_of_the_fit(sync):
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 3, (90, 4))
    y = np.where(np.arange(90) < 80, rng.choice([10, 2], 90), 7)  # class 7: rows 80..89, the last block
    X_dask, y_dask = da.from_array(codes, chunks=(30, -1)), da.from_array(y, chunks=30)
    fitted = CategoricalNB(n_categories=3).fit(X_dask, y_dask)
    np.testing.assert_array_equal(fitted.classes_, [2, 7, 10])
    assert_same_fit(CategoricalNB(n_categories=3).fit(codes, y), fitted, codes, X_dask)


@pytest.fixture
def slices_of_7(monkeypatch):
    """Blocks counted 7 rows at a time; returns the rows of every slice counted."""
    counted = []
    take = dask_engine._take

    def recorded(v, rows):
        part = take(v, rows)
        if np.ndim(part) == 2:  # X's slice (y and the weights are 1-D)
            counted.append(part.shape[0])
        return part

    monkeypatch.setattr(dask_engine, "_slice_rows", lambda model, n_features: 7)
    monkeypatch.setattr(dask_engine, "_take", recorded)
    return counted


@pytest.mark.parametrize("model", [CategoricalNB(), AODE(weights="bma"), TAN(root=1)], ids=lambda m: type(m).__name__)
def test_blocks_counted_in_slices_give_the_in_memory_fit(sync, slices_of_7, vote, model):
    X, y = vote  # Categorical columns with missing values
    weight = pd.Series(np.arange(len(y)) % 3, index=y.index, dtype=float)  # a third of the rows weigh 0
    X_dask, y_dask, w_dask = (dd.from_pandas(v, npartitions=3, sort=False) for v in (X, y, weight))
    fitted = model.fit(X_dask, y_dask, sample_weight=w_dask)
    blocks = X_dask.map_partitions(len).compute()
    assert sum(slices_of_7) == len(y) and len(slices_of_7) == sum(-(-n // 7) for n in blocks)  # ⌈n/7⌉ a block
    memory = model.__class__(**model.get_params()).fit(X, y, sample_weight=weight)
    assert_same_fit(memory, fitted, X, X_dask)


@pytest.mark.parametrize("model", [GaussianNB(), QDA()], ids=lambda m: type(m).__name__)
def test_gaussian_moments_merged_slice_by_slice_agree_to_1e_12(sync, slices_of_7, model):
    X, y = load_dataset("iris")
    X, y = X.to_numpy(), y.to_numpy()
    X_dask = da.from_array(X, chunks=(50, -1))
    fitted = model.fit(X_dask, da.from_array(y, chunks=50))
    assert sum(slices_of_7) == len(y) and len(slices_of_7) == 3 * 8  # 50 rows: 7 slices of 7 and one of 1
    assert_same_fit(model.__class__().fit(X, y), fitted, X, X_dask)


def test_slice_rows_hold_2_to_the_21_values_or_16_per_statistics_cell():
    rng = np.random.default_rng(6)
    naive = CategoricalNB(n_categories=4).fit(rng.integers(0, 4, (20, 10)), rng.integers(0, 3, 20))
    assert dask_engine._slice_rows(naive, 10) == 2**21 // 10  # statistics: 3 + 3 × 40 cells, far fewer
    tan = TAN(n_categories=30).fit(rng.integers(0, 30, (50, 40)), rng.integers(0, 2, 50))
    # the pair tensor: 2 classes × (40 × 31)² cells (30 values and a missing cell per attribute)
    assert dask_engine._slice_rows(tan, 40) == 16 * (2 + 2 * (40 * 31) ** 2) // 40 == 1_230_080


def test_benchmark_warms_every_block_with_its_first_rows(sync):
    from benchmarks import dask_scaling

    X, y = dask_scaling.dask_data(3001, 4)  # blocks of 751, 750, 750, 750 rows
    first = dask_scaling.first_rows(X, 2)
    assert first.chunks[0] == (2, 2, 2, 2)
    np.testing.assert_array_equal(first.compute(), X.compute()[[0, 1, 751, 752, 1501, 1502, 2251, 2252]])


@pytest.mark.parametrize("model", [CategoricalNB(), AODE()], ids=lambda m: type(m).__name__)
def test_a_slice_whose_rows_all_weigh_zero_is_skipped_not_refused(sync, slices_of_7, vote, model):
    X, y = vote
    weight = pd.Series(
        np.where(np.arange(len(y)) < 20, 0.0, 1.0), index=y.index
    )  # the first block's first 2 slices weigh 0
    X_dask, y_dask, w_dask = (dd.from_pandas(v, npartitions=3, sort=False) for v in (X, y, weight))
    fitted = model.fit(X_dask, y_dask, sample_weight=w_dask)
    assert sum(slices_of_7) == len(y) - 14  # two slices of 7 rows were not counted
    memory = model.__class__(**model.get_params()).fit(X, y, sample_weight=weight)
    assert_same_fit(memory, fitted, X, X_dask)


def test_gaussian_slices_without_weight_are_skipped(sync, slices_of_7):
    X, y = load_dataset("iris")
    X, y = X.to_numpy(), y.to_numpy()
    weight = np.where(np.arange(len(y)) % 50 < 10, 0.0, 1.0)  # each 50-row block's first slice weighs 0
    chunks = 50
    fitted = GaussianNB().fit(
        da.from_array(X, chunks=(chunks, -1)),
        da.from_array(y, chunks=chunks),
        sample_weight=da.from_array(weight, chunks=chunks),
    )
    assert_same_fit(GaussianNB().fit(X, y, sample_weight=weight), fitted, X, da.from_array(X, chunks=(chunks, -1)))
