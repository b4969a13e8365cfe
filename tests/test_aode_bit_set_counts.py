"""Issue 16, AODE at 50 000 × 30: the bit-set pair counts (``semi_naive._bitsets``) against brute
force, and the transposed scoring product against the sparse one and term-by-term sums."""

import numba  # noqa: F401  (small data is counted by the compiled bit sets once numba is loaded)
import numpy as np
import pytest

from pgm_models import AODE, TAN
from pgm_models.discrete import pairs as _pairs
from pgm_models.semi_naive import _base


def _brute_force_pairs(layout, codes, class_index, weight, n_classes):
    expected = np.zeros((n_classes, layout.n_cells, layout.n_cells))
    for row, k, w in zip(layout.cells(codes), class_index, weight):
        expected[k][np.ix_(row, row)] += w
    return expected


CASES = {
    # sizes, fraction missing per attribute, number of classes
    "missing values": ([3, 2, 4, 5], [0.1, 0.0, 0.3, 0.05], 3),
    "no missing value": ([4, 4, 3], [0.0, 0.0, 0.0], 2),
    "one-valued attributes": ([1, 3, 1], [0.2, 0.0, 0.0], 2),
    "a single class": ([3, 2], [0.1, 0.1], 1),
    "an attribute missing in every row": ([3, 2, 2], [0.0, 1.0, 0.1], 2),
}


def _codes(rng, n_rows, sizes, missing):
    codes = np.column_stack([rng.integers(0, size, n_rows) for size in sizes])
    codes[rng.random(codes.shape) < np.asarray(missing)] = -1
    return codes


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("chunks", ["one", "several"])
@pytest.mark.parametrize("path", ["large data", "small data"])
def test_bit_set_counts_equal_brute_force(case, chunks, path, monkeypatch):
    """Unit weights through the bit sets: every count of the tensor exact, on large data the
    missing cells' derived from the value cells' (``_derived_pair_counts``), on small data counted
    directly over every cell; 701 rows (not a multiple of 64, several words per class), in one chunk
    or in chunks of 64 rows, each chunk's counts added to the last's; a declared value no row has (an
    empty cell) and, beside two or more classes, a class no row has (the last) count 0."""
    sizes, missing, n_classes = CASES[case]
    empty_class = n_classes > 1
    rng = np.random.default_rng(sum(map(ord, case)))
    layout = _pairs.PairLayout([*sizes, 3])  # one more attribute whose value 2 never occurs
    codes = np.column_stack([_codes(rng, 701, sizes, missing), rng.integers(0, 2, 701)])
    class_index = rng.integers(0, n_classes, 701)
    weight = np.ones(701)
    expected = _brute_force_pairs(layout, codes, class_index, weight, n_classes + empty_class)
    if path == "large data":
        monkeypatch.setattr(
            _pairs, "DIRECT_PRODUCT_WORK", 0
        )  # the derivation, not small data's bit sets over every cell
    if chunks == "several":
        monkeypatch.setattr(_pairs, "BITSET_BYTES", 8)  # 64 rows a call
    used = []
    bit_counts = _pairs._bit_counts
    monkeypatch.setattr(_pairs, "_bit_counts", lambda *args: used.append(1) or bit_counts(*args))
    counts = _pairs.pair_counts(layout, codes, class_index, weight, n_classes + empty_class)
    assert used  # the bit sets counted them
    np.testing.assert_array_equal(counts, expected)
    assert not counts[:, layout.starts[-1] + 2].any() and not (empty_class and counts[n_classes].any())
    assert counts[:, layout.missing_cells].any() == (max(missing) > 0)


def test_bit_set_counts_read_any_layout_and_integer_dtype(monkeypatch):
    """Codes by rows or by attributes (an encoded DataFrame's), int8 or intp, and int8 class
    indices: the same counts."""
    rng = np.random.default_rng(5)
    layout = _pairs.PairLayout([3, 5, 2])
    codes = _codes(rng, 300, [3, 5, 2], [0.1, 0.1, 0.1])
    class_index = rng.integers(0, 2, 300)
    monkeypatch.setattr(_pairs, "DIRECT_PRODUCT_WORK", 0)
    expected = _brute_force_pairs(layout, codes, class_index, np.ones(300), 2)
    for variant in (np.asfortranarray(codes), codes.astype(np.int8), np.asfortranarray(codes.astype(np.int8))):
        np.testing.assert_array_equal(
            _pairs.pair_counts(layout, variant, class_index.astype(np.int8), np.ones(300), 2), expected
        )


def test_weights_other_than_one_keep_the_product_and_agree(monkeypatch):
    """Whole-number weights other than 1 are counted by the float32 product (the bit sets count
    rows): weight 2 on every row gives twice the unit-weight counts, and an AODE fitted with unit
    sample weights equals one fitted without."""
    rng = np.random.default_rng(6)
    layout = _pairs.PairLayout([3, 4])
    codes = _codes(rng, 400, [3, 4], [0.1, 0.2])
    class_index = rng.integers(0, 2, 400)
    monkeypatch.setattr(_pairs, "DIRECT_PRODUCT_WORK", 0)
    used = []
    bit_counts = _pairs._bit_counts
    monkeypatch.setattr(_pairs, "_bit_counts", lambda *args: used.append(1) or bit_counts(*args))
    doubled = _pairs.pair_counts(layout, codes, class_index, np.full(400, 2.0), 2)
    assert not used
    np.testing.assert_array_equal(doubled, 2 * _pairs.pair_counts(layout, codes, class_index, np.ones(400), 2))
    assert used
    X, y = np.where(codes < 0, np.nan, codes), np.array(["a", "b"])[class_index]
    unit = AODE(n_categories=[3, 4]).fit(X, y, sample_weight=np.ones(400))
    np.testing.assert_array_equal(unit.pair_count_, AODE(n_categories=[3, 4]).fit(X, y).pair_count_)
    np.testing.assert_array_equal(unit.pair_count_, _brute_force_pairs(layout, codes, class_index, np.ones(400), 2))


def test_many_class_cells_keep_the_product_and_agree(monkeypatch):
    """Bit sets pass over every class's pairs in every chunk, so past BITSET_CLASS_CELLS class
    cells (K·T) the product counts: with the bound lowered to 2·T, three classes take the product
    and two the bit sets, both exact."""
    rng = np.random.default_rng(8)
    layout = _pairs.PairLayout([3, 4, 2])
    codes = _codes(rng, 500, [3, 4, 2], [0.1, 0.0, 0.2])
    monkeypatch.setattr(_pairs, "DIRECT_PRODUCT_WORK", 0)
    monkeypatch.setattr(_pairs, "BITSET_CLASS_CELLS", 2 * 9)
    used = []
    bit_counts = _pairs._bit_counts
    monkeypatch.setattr(_pairs, "_bit_counts", lambda *args: used.append(args[4]) or bit_counts(*args))
    for n_classes in (3, 2):
        class_index = rng.integers(0, n_classes, 500)
        np.testing.assert_array_equal(
            _pairs.pair_counts(layout, codes, class_index, np.ones(500), n_classes),
            _brute_force_pairs(layout, codes, class_index, np.ones(500), n_classes),
        )
    assert used == [2]


@pytest.mark.parametrize("model", [AODE, TAN])
def test_models_fitted_through_the_bit_sets_count_like_brute_force(model, monkeypatch):
    """Through the estimators, on data large enough for the bit sets (DIRECT_PRODUCT_WORK
    lowered to 0 so that a small set is): NaN as missing, a declared value never seen."""
    rng = np.random.default_rng(7)
    codes = _codes(rng, 500, [3, 4, 2, 3], [0.05, 0.0, 0.1, 0.2])
    y = rng.integers(0, 3, 500)
    monkeypatch.setattr(_pairs, "DIRECT_PRODUCT_WORK", 0)
    fitted = model(n_categories=[3, 5, 2, 3]).fit(np.where(codes < 0, np.nan, codes), y)
    expected = _brute_force_pairs(fitted._layout, codes, y, np.ones(500), 3)
    np.testing.assert_array_equal(fitted.pair_count_, expected)


@pytest.mark.parametrize("estimate", ["mean", "mle"])
def test_dense_and_sparse_scoring_products_agree(estimate, monkeypatch):
    """The dense product, computed as (K·P, N) and read through its transpose, and the sparse one
    (read by rows) give the same SPODE scores and AODE probabilities; the MLE's zero
    probabilities are −inf in both. 30 values per attribute take the sparse product; raising
    SPARSE_DESIGN_RATIO takes the dense one."""
    rng = np.random.default_rng(8)
    X = rng.integers(0, 30, (300, 4)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = rng.integers(0, 2, 300)
    model = AODE(n_categories=30).fit(X, y)
    cells = model._value_index(model._encode(X[:120], reset=False, training=False))
    operands = model._stack(*model._spode_tables(estimate))
    sparse_scores, sparse = model._spode_scores(cells, operands), model.predict_proba(X[:120], estimate=estimate)
    assert model._parent_cell_products(cells, operands).flags.c_contiguous  # read by rows
    monkeypatch.setattr(_base, "SPARSE_DESIGN_RATIO", 1000)
    assert model._parent_cell_products(cells, operands).flags.f_contiguous  # the transposed product, read by columns
    dense_scores = model._spode_scores(cells, operands)
    np.testing.assert_array_equal(np.isneginf(dense_scores), np.isneginf(sparse_scores))
    missing_parents = 2 * (cells >= 120).sum()  # −inf in both classes
    assert missing_parents and (np.isneginf(dense_scores).sum() > missing_parents) == (estimate == "mle")
    finite = np.isfinite(sparse_scores)
    np.testing.assert_allclose(dense_scores[finite], sparse_scores[finite], rtol=1e-13)
    np.testing.assert_allclose(model.predict_proba(X[:120], estimate=estimate), sparse, rtol=1e-12, atol=1e-300)


def test_bit_sets_count_without_a_writable_cache(monkeypatch):
    """Where numba finds no folder to cache the compiled kernel in, it is compiled in the process
    (numba would refuse the cached definition): the same counts. (Compiles the kernel once more.)"""
    import importlib

    from numba.core import caching

    from pgm_models.discrete import bitsets as _bitsets

    rng = np.random.default_rng(9)
    codes, class_index = _codes(rng, 200, [3, 2], [0.1, 0.0]), rng.integers(0, 2, 200)
    layout = _pairs.PairLayout([3, 2])
    cache_impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.59
    monkeypatch.setattr(cache_impl, "_locator_classes", [])
    try:
        uncached = importlib.reload(_bitsets)
        assert uncached.add_value_pair_counts._cache.__class__.__name__ == "NullCache"
        counts = np.zeros((2, 5, 5))
        uncached.add_value_pair_counts(codes, layout.value_starts, layout.no_cells, class_index, counts)
    finally:
        monkeypatch.undo()
        importlib.reload(_bitsets)
    expected = _brute_force_pairs(layout, codes, class_index, np.ones(200), 2)
    np.testing.assert_array_equal(counts, expected[:, layout.value_cells[:, None], layout.value_cells])
