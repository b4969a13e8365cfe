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


def test_integer_labels_are_read_as_codes_once_per_block():
    classes = np.array([-3, 2, 5, 40])
    y = np.array([5, -3, 40, 2, 2, 5])
    coded = dask_engine._coded_labels(y, classes)
    assert isinstance(coded.dtype, pd.CategoricalDtype) and coded.cat.categories.dtype == classes.dtype
    np.testing.assert_array_equal(coded.cat.codes, [2, 0, 3, 1, 1, 2])  # positions in classes
    np.testing.assert_array_equal(coded.to_numpy(), y)
    series = pd.Series(y + 3, index=np.arange(10, 16))
    coded = dask_engine._coded_labels(series, classes + 3)
    np.testing.assert_array_equal(coded.cat.codes, [2, 0, 3, 1, 1, 2])
    assert coded.index.equals(series.index)
    unsigned = np.array([2, 0, 3], dtype=np.uint16)
    np.testing.assert_array_equal(
        dask_engine._coded_labels(unsigned, np.arange(4, dtype=np.uint16)).cat.codes, [2, 0, 3]
    )
    narrow = np.array([-100, 120, 120], dtype=np.int8)  # y − low overflows int8
    np.testing.assert_array_equal(dask_engine._coded_labels(narrow, np.array([-100, 120])).cat.codes, [0, 1, 1])


@pytest.mark.parametrize(
    "y, classes",
    [
        (np.array([0, 1, 3]), np.array([0, 1, 2, 3])[[0, 1, 3]]),  # fine: every label a class
        (np.array([0, 2, 3]), np.array([0, 1, 3])),  # 2: inside the range, not a class
        (np.array([0, 4]), np.array([0, 1, 3])),  # 4: above the classes
        (np.array([0, 1 << 20]), np.array([0, 1 << 20])),  # a range too wide for a table
        (np.array(["a", "b"]), np.array(["a", "b"])),  # not integers
        (np.array([0.0, 1.0]), np.array([0.0, 1.0])),
        (np.array([2**63, 2**63 + 1], dtype=np.uint64), np.array([2**63, 2**63 + 1], dtype=np.uint64)),
    ],
)
def test_labels_that_cannot_be_coded_are_left_as_they_are(y, classes):
    coded = dask_engine._coded_labels(y, classes)
    if np.isin(y, classes).all() and y.dtype.kind in "i" and classes[-1] - classes[0] < 1 << 16:
        np.testing.assert_array_equal(coded.cat.codes, np.searchsorted(classes, y))
    else:
        assert coded is y


def test_a_block_of_integer_labels_counted_as_codes_equals_one_counted_as_labels(sync, slices_of_7, monkeypatch):
    rng = np.random.default_rng(11)
    X = rng.integers(0, 4, (200, 5)).astype(np.int8)
    y = rng.choice([-7, 3, 9], 200)
    weight = rng.integers(0, 3, 200).astype(float)
    for model in (CategoricalNB(n_categories=4), AODE(n_categories=4)):
        X_dask, y_dask, w_dask = (
            da.from_array(X, chunks=(50, -1)),
            da.from_array(y, chunks=50),
            da.from_array(weight, chunks=50),
        )
        coded = model.__class__(**model.get_params()).fit(X_dask, y_dask, sample_weight=w_dask)
        declared = dask_engine.partial_fit(
            model.__class__(**model.get_params()), X_dask, y_dask, classes=[-7, 3, 9, 20]
        )
        with monkeypatch.context() as plain:
            plain.setattr(dask_engine, "_coded_labels", lambda y, classes: y)
            as_labels = model.__class__(**model.get_params()).fit(X_dask, y_dask, sample_weight=w_dask)
        for name, value in as_labels._statistics().items():
            np.testing.assert_array_equal(coded._statistics()[name], value)
        assert_same_fit(model.__class__(**model.get_params()).fit(X, y, sample_weight=weight), coded, X, X_dask)
        memory = model.__class__(**model.get_params()).partial_fit(X, y, classes=[-7, 3, 9, 20])
        assert_same_fit(memory, declared, X, X_dask)


def test_a_label_outside_declared_classes_is_still_refused_when_blocks_are_sliced(sync, slices_of_7):
    X = np.zeros((30, 2), dtype=np.int64)
    y = np.array([0, 1] * 14 + [2, 0])  # 2 is not declared
    with pytest.raises(ValueError, match=r"y has label 2, which is not among classes_ \[0, 1\]"):
        dask_engine.partial_fit(
            CategoricalNB(n_categories=1),
            da.from_array(X, chunks=(15, -1)),
            da.from_array(y, chunks=15),
            classes=[0, 1],
        )
