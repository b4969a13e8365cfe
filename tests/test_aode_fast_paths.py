"""The AODE speed paths of issue 16 against what they replace: attribute-major codes, the one
BLAS thread of the semi-naive products, the SPODE scores' (parent, class, row) layout, the
uniform weights' normaliser, and log_sum_exp's whole reduction of contiguous slices."""

import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from pgm_models import AODE, TAN, CategoricalNB
from pgm_models._utils.threads import one_blas_thread
from pgm_models.conjugate import log_sum_exp
from pgm_models.discrete import pairs as _pairs
from pgm_models.discrete.attributes import _stacked


def _blas_threads():
    return {info["filepath"]: info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"}


def _nominal(n_rows, seed):
    """Categorical columns (one shared dtype, as load_arff gives), 5 % missing, a class that
    depends on the first two."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 3, (n_rows, 6))
    y = np.where(values[:, 0] + values[:, 1] + rng.integers(0, 2, n_rows) > 2, "yes", "no")
    dtype = pd.CategoricalDtype(["a", "b", "c"])
    labels = np.array(["a", "b", "c"], dtype=object)[values]
    labels[rng.random(labels.shape) < 0.05] = None
    X = pd.DataFrame({f"x{j}": pd.Categorical(labels[:, j], dtype=dtype) for j in range(6)})
    return X, pd.Series(y)


def test_stacked_codes_equal_column_stack():
    rng = np.random.default_rng(0)
    columns = [
        rng.integers(-2, 5, 40).astype(np.int8),
        rng.integers(-1, 300, 40).astype(np.int16),
        rng.integers(-1, 3, 40),
    ]
    stacked = _stacked(columns)
    assert stacked.dtype == np.intp and stacked.flags.f_contiguous
    np.testing.assert_array_equal(stacked, np.column_stack(columns))


def test_categorical_encoding_gives_the_codes_of_each_column_and_shares_a_dtype_s_categories():
    X, y = _nominal(50, 1)
    model = CategoricalNB().fit(X, y)
    expected = np.column_stack([X[name].cat.codes.to_numpy() for name in X.columns])
    np.testing.assert_array_equal(model._encode(X, reset=False, training=False), expected)
    assert all(c is model.categories_[0] for c in model.categories_)  # one dtype: one array
    assert model.categories_[0].tolist() == ["a", "b", "c"]


def test_outside_values_of_a_recoded_categorical_are_still_found():
    """A column whose dtype is not the fitted one is recoded; its unseen value is still reported."""
    X, y = _nominal(50, 2)
    model = AODE().fit(X, y)
    other = X.copy()
    other["x3"] = pd.Categorical(["d"] + ["a"] * (len(X) - 1))
    with pytest.warns(UserWarning, match=r"column 'x3' has value\(s\) \['d'\] outside its domain"):
        model.predict_proba(other)
    with pytest.raises(ValueError, match=r"column 'x3' has value\(s\) \['d'\] outside its domain"):
        AODE(handle_unknown="error").fit(X, y).predict_proba(other)


@pytest.mark.parametrize("weights", ["unit", "whole", "fractional"])
def test_pair_counts_of_attribute_major_codes_equal_those_of_row_major_codes(weights, monkeypatch):
    rng = np.random.default_rng(4)
    layout = _pairs.PairLayout([3, 2, 4, 1])
    codes = np.column_stack([rng.integers(-1, r, 300) for r in (3, 2, 4, 1)])
    class_index = rng.integers(0, 3, 300)
    weight = {"unit": np.ones(300), "whole": rng.integers(0, 5, 300).astype(float), "fractional": rng.random(300)}[
        weights
    ]
    monkeypatch.setattr(_pairs, "FLOATS_PER_BLOCK", 30 * layout.n_cells)  # several blocks per class
    row_major = _pairs.pair_counts(layout, codes, class_index, weight, 3)
    attribute_major = _pairs.pair_counts(layout, np.asfortranarray(codes), class_index, weight, 3)
    np.testing.assert_array_equal(attribute_major, row_major)
    assert row_major[:, layout.missing_cells[:, None], layout.value_cells].any()  # missing values were counted


def test_one_blas_thread_limits_blas_inside_and_restores_it_after():
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        with one_blas_thread():
            inside = _blas_threads()
        after = _blas_threads()
    assert before and set(inside.values()) == {1}
    assert after == before and set(before.values()) == {2}


@pytest.mark.parametrize("model", [AODE, TAN])
def test_semi_naive_products_run_on_one_blas_thread_and_restore_the_caller_s(model, monkeypatch):
    """Fit and predict see one BLAS thread (T' ≤ SINGLE_THREAD_CELLS) and give the caller back
    its setting; their results do not depend on it. (The BLAS products: the compiled paths, which
    call no BLAS, are switched off.)"""
    from pgm_models.discrete import pairs as _pairs
    from pgm_models.semi_naive import _base, aode

    monkeypatch.setattr(_pairs, "COMPILED_SMALL_COUNTS", False)
    monkeypatch.setattr(aode, "COMPILED_SCORING", False)
    seen = []
    counts = _base.pair_counts
    monkeypatch.setattr(_base, "pair_counts", lambda *args: seen.append(_blas_threads()) or counts(*args))
    scores = _base.SemiNaiveBayes._parent_cell_scores
    monkeypatch.setattr(
        _base.SemiNaiveBayes,
        "_parent_cell_scores",
        lambda self, *args: seen.append(_blas_threads()) or scores(self, *args),
    )
    X, y = _nominal(400, 3)
    with threadpool_limits(limits=2, user_api="blas"):
        fitted = model().fit(X, y)
        probabilities = fitted.predict_proba(X)
        after = _blas_threads()
    assert len(seen) >= 1 + (model is AODE) and all(set(threads.values()) == {1} for threads in seen)
    assert set(after.values()) == {2}
    with threadpool_limits(limits=1, user_api="blas"):
        np.testing.assert_array_equal(model().fit(X, y).predict_proba(X), probabilities)


def test_spode_scores_layout_is_parent_class_row():
    X, y = _nominal(200, 5)
    model = AODE().fit(X, y)
    cells = model._value_index(model._encode(X, reset=False, training=False))
    scores = model._spode_scores(cells, model._spode_operands("mean"))
    assert scores.shape == (200, 2, 6) and scores.transpose(2, 1, 0).flags.c_contiguous
    assert np.isneginf(scores).any()  # missing parents


def test_uniform_weights_normaliser_equals_the_weighted_average():
    """Uniform weights take log(number of eligible parents); the general path with a constant
    log weight c (not 0, so it is taken) gives the same average, up to rounding."""
    rng = np.random.default_rng(6)
    scores = rng.normal(size=(50, 3, 7)) * 20
    eligible = rng.random((50, 7)) < 0.6
    eligible[0] = False  # a fallback row
    uniform, fallback = AODE._average(scores.copy(), eligible, np.zeros(7))
    constant, fallback_constant = AODE._average(scores.copy(), eligible, np.full(7, -3.0))
    np.testing.assert_array_equal(fallback, ~eligible.any(axis=1))
    np.testing.assert_array_equal(fallback, fallback_constant)
    np.testing.assert_allclose(uniform[~fallback], constant[~fallback], rtol=1e-14)
    masked = np.where(eligible[:, None, :], scores, -np.inf)[~fallback]
    expected = np.log(np.exp(masked).sum(axis=2) / eligible[~fallback].sum(axis=1)[:, None])
    np.testing.assert_allclose(uniform[~fallback], expected, rtol=1e-12)


@pytest.mark.parametrize("n_slices", [1, 2, 30, 64])
def test_log_sum_exp_of_contiguous_slices_equals_the_loop_exactly(n_slices):
    """Up to 64 slices a non-contiguous layout is walked slice by slice; the contiguous one is
    reduced whole, adding the slices in the same order: the same bits."""
    rng = np.random.default_rng(n_slices)
    values = rng.normal(size=(n_slices, 300, 3)) * 50
    values[rng.random(values.shape) < 0.2] = -np.inf
    values[:, 0] = -np.inf  # a column with no mass
    strided = np.asfortranarray(values)  # the same values, slices not contiguous: the loop
    assert not np.moveaxis(strided, 0, 0).flags.c_contiguous
    whole = log_sum_exp(values, axis=0)
    np.testing.assert_array_equal(whole, log_sum_exp(strided, axis=0))
    assert np.isneginf(whole[0]).all() and np.isfinite(whole[1:]).any()
