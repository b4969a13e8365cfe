"""Issue 39: the large-data paths of the closed forms give what the general paths give, at every
size threshold: an integer matrix's domains by one count of its values, CategoricalNB's compiled
counting at any size, and the diagonal Gaussian models' compiled moments and scores."""

import numba  # noqa: F401  (the compiled paths run once numba is loaded: pgm_models._utils.jit.loaded)
import numpy as np
import pandas as pd
import pytest

from pgm_models import LDA, QDA, BernoulliNB, CategoricalNB, GaussianNB, MixedNB, base
from pgm_models._utils import jit
from pgm_models._utils.validation import check_numeric_matrix
from pgm_models.base import _shifted_exp
from pgm_models.conjugate import normal
from pgm_models.discrete import attributes
from pgm_models.naive_bayes import categorical


@pytest.mark.parametrize("loaded", [True, False])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8, np.uint8, np.uint16])
def test_seen_integers_are_each_columns_sorted_distinct_values_in_its_dtype(dtype, loaded, monkeypatch):
    """Gaps, negative values, a constant column and slices of rows that do not divide the rows all
    give what ``pd.unique`` of each column, sorted, gives (the hashing path), dtype included: by the
    compiled marking of seen values (numba loaded) and by NumPy's counts of keys."""
    monkeypatch.setattr(jit, "loaded", lambda: loaded)
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
        complete = pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])]).assign(c=frame["c"])
        mixed = MixedNB(estimate=estimate).fit(complete, y, sample_weight=weight)  # overall moments unmasked
        out += [mixed.predict_proba(complete), mixed.predict_joint_log_proba(complete.iloc[:50])]
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


def _discriminant_outputs(X, y, weight):
    out = []
    for Model in (LDA, QDA):
        for sample_weight in (None, weight):
            model = Model(estimate="mle", class_alpha=0).fit(X, y, sample_weight=sample_weight)
            out += [model.feature_scatter_, model.predict_proba(X), model.predict_log_proba(X)]
            out += [model.predict_joint_log_proba(X)]
    return out


def test_discriminant_compiled_scatters_are_the_numpy_paths():
    """LDA and QDA's full p × p scatters by the compiled blocks of rows and by each class's gathered
    rows through BLAS, unit and random weights, a class of three rows, features of scales 0.1 to 100:
    the same to the rounding of their sums, and so every prediction method."""
    rng = np.random.default_rng(5)
    n_rows = 3 * 512 + 7  # blocks of BLOCK rows and a partial one
    X = rng.normal(size=(n_rows, 4)) @ rng.normal(size=(4, 4)) * [1, 10, 100, 0.1] + [0, 5, -3, 10]
    y = rng.integers(0, 2, n_rows)
    y[:9] = 2
    X += y[:, None]
    weight = rng.random(n_rows) + 0.5
    compiled = _discriminant_outputs(X, y, weight)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(normal, "_compiled", lambda X: False)
        plain = _discriminant_outputs(X, y, weight)
    for a, b in zip(compiled, plain):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)


def test_full_scatter_by_hand():
    """Two classes, weights 1, 2, 1 and 3: x̄_0 = (1·(0, 0) + 2·(3, 6))/3 = (2, 4), S_0 = Σ w (x − x̄)(x − x̄)ᵀ."""
    X = np.array([[0.0, 0.0], [3.0, 6.0], [1.0, 1.0], [5.0, 1.0]])
    n, mean, scatter = jit.kernels("pgm_models.conjugate._normal_kernels").full_moments(
        X, np.array([0, 0, 1, 1]), np.array([1.0, 2.0, 1.0, 3.0]), 3
    )
    assert n.tolist() == [3.0, 4.0, 0.0]
    assert mean.tolist() == [[2.0, 4.0], [4.0, 1.0], [0.0, 0.0]]
    # class 0: 1·(−2, −4)(−2, −4)ᵀ + 2·(1, 2)(1, 2)ᵀ; class 1: 1·(−3, 0)(−3, 0)ᵀ + 3·(1, 0)(1, 0)ᵀ
    assert scatter.tolist() == [[[6.0, 12.0], [12.0, 24.0]], [[12.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]]


def test_compiled_normalisation_is_the_numpy_paths():
    """Rows of ordinary, very unequal and equal scores, one of −inf everywhere (uniform), one with a −inf
    class, one of a single finite class: the compiled normalisation and ``_shifted_exp`` agree to a few ulps,
    as probabilities and as their logarithms; the scores are overwritten by the result."""
    rng = np.random.default_rng(6)
    scores = np.vstack(
        [
            rng.normal(size=(200, 3)) * 30,
            [[-1000.0, -1001.0, -1000.5], [-np.inf, -np.inf, -np.inf], [0.0, -np.inf, 2.0], [-np.inf, 5.0, -np.inf]],
            [[7.0, 7.0, 7.0]],
        ]
    )
    kernels = jit.kernels("pgm_models._utils._row_kernels")
    for log in (False, True):
        compiled = scores.copy()
        kernels.normalise_rows(compiled, log)
        shifted, exp, total = _shifted_exp(scores.copy())
        expected = shifted - np.log(total)[:, None] if log else exp / total[:, None]
        np.testing.assert_allclose(
            compiled, expected, rtol=2e-15, atol=2e-15 if log else 0
        )  # a few ulps: NumPy's exp may be its own SIMD one
        np.testing.assert_array_equal(np.isneginf(compiled), np.isneginf(expected))
    probabilities = scores.copy()
    kernels.normalise_rows(probabilities, False)
    assert probabilities[201].tolist() == [1 / 3] * 3 and probabilities[-1].tolist() == [1 / 3] * 3
    assert probabilities[203].tolist() == [0.0, 1.0, 0.0]


@pytest.mark.parametrize("Model", [GaussianNB, LDA, CategoricalNB, BernoulliNB])
def test_predictions_normalised_by_numpy_and_compiled_agree(Model, monkeypatch):
    """predict_proba and predict_log_proba through the compiled normalisation (numba loaded) and through
    NumPy's (the template without it); predict_joint_log_proba, which neither touches, bit for bit."""
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, size=(300, 4)).astype(float) if Model is not GaussianNB and Model is not LDA else None
    if X is None:
        X = rng.normal(size=(300, 4))
    y = rng.integers(0, 3, 300)
    model = Model(**({"binarize": None} if Model is BernoulliNB else {})).fit(X, y)
    compiled = [model.predict_proba(X), model.predict_log_proba(X), model.predict_joint_log_proba(X)]
    monkeypatch.setattr(base, "normalised_in_place", lambda scores, log: None)
    plain = [model.predict_proba(X), model.predict_log_proba(X), model.predict_joint_log_proba(X)]
    np.testing.assert_allclose(compiled[0], plain[0], rtol=2e-15, atol=1e-16)
    np.testing.assert_allclose(compiled[1], plain[1], rtol=2e-15, atol=2e-15)
    np.testing.assert_array_equal(compiled[2], plain[2])


BAD_VALUES = [
    (np.nan, "NaN or inf value: nan in column 1"),
    (np.inf, "NaN or inf value: inf in column 1"),
    (-2e150, r"the value -2e\+150 in column 1; Gaussian models need \|x\| ≤ 1e\+150"),
]


@pytest.mark.parametrize("value, message", BAD_VALUES)
@pytest.mark.parametrize("loaded", [True, False])
@pytest.mark.parametrize("order", ["C", "F"])
def test_one_compiled_pass_refuses_what_numpys_passes_refuse(value, message, loaded, order, monkeypatch):
    """The values a Gaussian model refuses, found by the compiled summary (numba loaded) and by NumPy's
    sum, minimum and maximum, in a row-major and a column-major X; a clean X passes both."""
    monkeypatch.setattr(jit, "loaded", lambda: loaded)
    X = np.asarray(np.random.default_rng(8).normal(size=(40, 3)), order=order)
    GaussianNB().fit(X, np.arange(40) % 2)
    X[5, 1] = value
    with pytest.raises(ValueError, match=message):
        GaussianNB().fit(X, np.arange(40) % 2)


@pytest.mark.parametrize("loaded", [True, False])
def test_one_compiled_pass_refuses_non_binary_and_negative_values(loaded, monkeypatch):
    monkeypatch.setattr(jit, "loaded", lambda: loaded)
    X = np.zeros((30, 3))
    X[::2, 1] = 1.0
    BernoulliNB(binarize=None).fit(X, np.arange(30) % 2)
    X[7, 2] = 0.5
    with pytest.raises(ValueError, match=r"non-binary value 0.5 in column 2; binarize=None"):
        BernoulliNB(binarize=None).fit(X, np.arange(30) % 2)
    X[7, 2] = -1.0
    with pytest.raises(ValueError, match=r"negative value -1.0 in column 2"):
        check_numeric_matrix(X, nonnegative=True, what="MultinomialNB")
    assert check_numeric_matrix(np.zeros((0, 3)), nonnegative=True, what="x", binary="b").shape == (0, 3)


def test_fit_leaves_no_factorized_labels_behind():
    """fit hashes y once and hands the codes to the class index; nothing of y stays on the estimator,
    after a fit or a failed one, and the classes and counts are those of partial_fit (which hashes anew)."""
    X, y = np.zeros((6, 2)), np.array(["b", "a", "c", "a", "b", "a"], dtype=object)
    model = CategoricalNB().fit(X.astype(int), y)
    assert not hasattr(model, "_factorized_labels")
    assert model.classes_.tolist() == ["a", "b", "c"] and model.class_count_.tolist() == [3.0, 2.0, 1.0]
    other = CategoricalNB().partial_fit(X.astype(int), y, classes=["a", "b", "c"])
    np.testing.assert_array_equal(model.class_count_, other.class_count_)
    failed = GaussianNB()
    with pytest.raises(ValueError, match="NaN or inf value"):
        failed.fit(np.full((6, 2), np.nan), y)
    assert not hasattr(failed, "_factorized_labels")


def _mixed_categorical_outputs(frame, y, weight):
    model = MixedNB(column_types=dict.fromkeys(frame.columns, "categorical"))
    model.partial_fit(frame.iloc[:700], y[:700], classes=[0, 1, 2], sample_weight=weight[:700])
    model.partial_fit(frame.iloc[700:], y[700:], sample_weight=weight[700:])
    return [model.categorical_count_, model.predict_joint_log_proba(frame), model.predict_proba(frame)]


def test_mixed_nb_categorical_columns_compiled_are_the_look_ups_bit_for_bit(monkeypatch):
    """MixedNB's categorical columns counted and scored by the compiled loops (numba loaded) and by
    NumPy's per-column bincounts and look-ups: the same numbers to the bit, with fractional weights over
    two batches, missing values (code −1), an int8-coded Categorical column and integer columns."""
    rng = np.random.default_rng(9)
    n_rows = 1500
    frame = pd.DataFrame({f"c{j}": rng.integers(0, 4 + j, n_rows).astype(float) for j in range(3)})
    frame.loc[rng.random(n_rows) < 0.1, "c1"] = np.nan
    frame["cat"] = pd.Categorical(rng.choice(["a", "b", "c"], n_rows))
    y = rng.integers(0, 3, n_rows)
    weight = rng.random(n_rows) + 0.25
    compiled = _mixed_categorical_outputs(frame, y, weight)
    monkeypatch.setattr(jit, "loaded", lambda: False)
    plain = _mixed_categorical_outputs(frame, y, weight)
    np.testing.assert_array_equal(compiled[0], plain[0])
    np.testing.assert_array_equal(compiled[1], plain[1])
    np.testing.assert_allclose(compiled[2], plain[2], rtol=1e-15, atol=1e-16)


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint16])
def test_integer_codes_against_a_range_domain_are_the_look_ups(dtype):
    """An integer column against the domain 0..S−1 is its own codes (no hashing): what the index look-up
    gives, values outside the domain (negative, S and above) marked outside; a domain with a gap is
    looked up as before."""
    values = np.array([0, 3, 1, 7, 2, 4, 3, 0], dtype=dtype)
    if np.dtype(dtype).kind == "i":
        values[5] = -1
    for categories in (np.arange(4, dtype=dtype), np.array([0, 1, 3], dtype=dtype)):
        codes = attributes._codes_in(values, categories, "column 'x'")
        expected = pd.Index(categories).get_indexer(values)
        expected[expected < 0] = attributes._OUTSIDE
        assert codes.dtype == np.intp and codes.tolist() == expected.tolist()
    assert attributes._codes_in(values, np.arange(4, dtype=dtype), "x")[3] == attributes._OUTSIDE
    inside = np.array([0, 3, 1, 2, 2], dtype=dtype)  # all inside: the values themselves, not writable through
    codes = attributes._codes_in(inside, np.arange(4, dtype=dtype), "x")
    assert codes.tolist() == [0, 3, 1, 2, 2] and codes.dtype == np.intp and not codes.flags.writeable
