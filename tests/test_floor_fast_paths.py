"""Issue 39: the large-data paths of the closed forms give what the general paths give, at every
size threshold: an integer matrix's domains by one count of its values, CategoricalNB's compiled
counting at any size, and the diagonal Gaussian models' compiled moments and scores."""

import numba  # noqa: F401  (the compiled paths run once numba is loaded: pgm_models._utils.jit.loaded)
import numpy as np
import pandas as pd
import pytest

from pgm_models import CategoricalNB, GaussianNB, MixedNB
from pgm_models._utils import jit
from pgm_models.conjugate import normal
from pgm_models.discrete import attributes
from pgm_models.naive_bayes import categorical


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8, np.uint8, np.uint16])
def test_seen_integers_are_each_columns_sorted_distinct_values_in_its_dtype(dtype):
    """Gaps, negative values, a constant column and slices of rows that do not divide the rows all
    give what ``pd.unique`` of each column, sorted, gives (the hashing path), dtype included."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 7, size=(70_001, 6)).astype(dtype)
    X[:, 2] *= 3  # gaps: 0, 3, .., 18
    X[:, 4] = 5
    if np.dtype(dtype).kind == "i":
        X[:, 3] -= 3
    seen = attributes._seen_integers(X)
    for j, values in enumerate(seen):
        expected = np.asarray(sorted(pd.unique(X[:, j])))
        assert values.dtype == expected.dtype and values.tolist() == expected.tolist()
    assert [len(values) for values in seen] == [7, 7, 7, 7, 1, 7]


def test_seen_integers_leave_a_wide_range_to_hashing():
    assert attributes._seen_integers(np.array([[0, 1], [attributes.SEEN_RANGE, 2]])) is None
    assert attributes._seen_integers(np.array([[0, 1], [attributes.SEEN_RANGE - 1, 2]]))[0].tolist() == [
        0,
        attributes.SEEN_RANGE - 1,
    ]


@pytest.mark.parametrize("n_rows", [attributes.SEEN_BY_COUNTS // 4 - 1, attributes.SEEN_BY_COUNTS // 4])
def test_categorical_nb_domains_and_probabilities_are_those_of_the_hashing_path(n_rows, monkeypatch):
    """Either side of the threshold (4 columns: 2^16 values at 2^14 rows), with a gap in a domain, a
    weightless row holding a value no other row has (it is not part of the domain), and the domains
    found column by column (the threshold out of reach) as the reference."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 5, size=(n_rows, 4))
    X[:, 1] = np.where(X[:, 1] == 2, 4, X[:, 1])  # no 2
    X[0, 3] = 9
    y = rng.integers(0, 3, n_rows)
    weight = np.ones(n_rows)
    weight[0] = 0.0
    for sample_weight in (None, weight):
        model = CategoricalNB().fit(X, y, sample_weight=sample_weight)
        with monkeypatch.context() as patch:
            patch.setattr(attributes, "SEEN_BY_COUNTS", 1 << 62)
            reference = CategoricalNB().fit(X, y, sample_weight=sample_weight)
        assert [c.tolist() for c in model.categories_] == [c.tolist() for c in reference.categories_]
        assert model.categories_[1].tolist() == [0, 1, 3, 4]
        assert (9 in model.categories_[3]) == (sample_weight is None)
        np.testing.assert_array_equal(model.feature_count_, reference.feature_count_)
        np.testing.assert_array_equal(model.predict_proba(X[1:]), reference.predict_proba(X[1:]))


@pytest.mark.parametrize("n_rows", [categorical.JOINT_MIN_VALUES // 6 - 1, categorical.JOINT_MIN_VALUES // 6 + 1])
def test_categorical_nb_compiled_counts_are_the_numpy_paths_counts(n_rows, monkeypatch):
    """The compiled loop at any size against the joint tables (unit weights: the same integers) and
    the weighted count of keys (each cell's weights added in row order within one slice; across
    slices NumPy adds the slices' sums, so to rounding), missing values among the codes."""
    rng = np.random.default_rng(2)
    X = rng.integers(0, 4, size=(n_rows, 6)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = rng.integers(0, 3, n_rows)
    weight = rng.random(n_rows)
    for sample_weight in (None, weight):
        compiled = CategoricalNB().fit(X, y, sample_weight=sample_weight)
        with monkeypatch.context() as patch:
            patch.setattr(jit, "loaded", lambda: False)
            plain = CategoricalNB().fit(X, y, sample_weight=sample_weight)
        if sample_weight is None:
            np.testing.assert_array_equal(compiled.feature_count_, plain.feature_count_)
        else:
            np.testing.assert_allclose(compiled.feature_count_, plain.feature_count_, rtol=1e-13, atol=0)
        np.testing.assert_allclose(compiled.predict_proba(X), plain.predict_proba(X), rtol=0, atol=1e-13)


def test_categorical_nb_counts_compiled_from_the_size_threshold_without_numba_loaded(monkeypatch):
    """From ``COMPILED_MIN_VALUES`` values the counting loads the compiled loop itself."""
    rng = np.random.default_rng(3)
    X, y = rng.integers(0, 3, size=(400, 5)), rng.integers(0, 2, 400)
    calls = []
    kernels = jit.kernels("pgm_models.naive_bayes._kernels")
    count = kernels.add_value_counts
    monkeypatch.setattr(jit, "loaded", lambda: False)
    monkeypatch.setattr(kernels, "add_value_counts", lambda *a: calls.append(1) or count(*a))
    plain = CategoricalNB().fit(X, y)
    assert calls == []
    monkeypatch.setattr(categorical, "COMPILED_MIN_VALUES", X.size)
    np.testing.assert_array_equal(CategoricalNB().fit(X, y).feature_count_, plain.feature_count_)
    assert calls == [1]


def _gaussian_outputs(X, frame, y, weight):
    out = []
    for estimate in ("mean", "mle", "map", "predictive"):
        model = GaussianNB(estimate=estimate).fit(X, y, sample_weight=weight)
        out += [model.predict_proba(X), model.predict_joint_log_proba(X[:50])]
        mixed = MixedNB(estimate=estimate).fit(frame, y, sample_weight=weight)
        out += [mixed.predict_proba(frame), mixed.predict_joint_log_proba(frame.iloc[:50])]
    return out


@pytest.mark.parametrize("n_rows", [normal.WORK_ROWS - 1, 3 * normal.WORK_ROWS + 5])
def test_gaussian_compiled_moments_and_scores_are_the_numpy_paths(n_rows, monkeypatch):
    """GaussianNB and MixedNB (whose Gaussian columns have missing values) under every estimate,
    with sample weights, fitted and scored by the compiled loops and by NumPy's chunked products
    (below and across chunks of ``WORK_ROWS``): the same numbers to the rounding of their sums."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(n_rows, 5)) * [1, 10, 100, 0.1, 3] + [0, 5, -3, 10, 2]
    y = rng.integers(0, 3, n_rows)
    X += y[:, None]
    missing = X.copy()
    missing[rng.random(X.shape) < 0.1] = np.nan
    frame = pd.DataFrame(missing, columns=[f"g{j}" for j in range(5)])
    frame["c"] = pd.Categorical(rng.integers(0, 3, n_rows))
    weight = rng.random(n_rows) + 0.5
    compiled = _gaussian_outputs(X, frame, y, weight)
    monkeypatch.setattr(normal, "_compiled", lambda X: False)
    plain = _gaussian_outputs(X, frame, y, weight)
    for a, b in zip(compiled, plain):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_gaussian_compiled_paths_load_numba_from_the_size_threshold(monkeypatch):
    monkeypatch.setattr(jit, "loaded", lambda: False)
    X = np.zeros((10, 4))
    assert not normal._compiled(X)
    monkeypatch.setattr(normal, "COMPILED_MIN_VALUES", 40)
    assert normal._compiled(X) and not normal._compiled(X[:, :3])
