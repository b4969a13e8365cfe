"""The per-call shortcuts of issue 16 (small data) give what the general paths give: the class
index of a Categorical y read from its codes, the feature-name check of string column names, the
concentration check, the pair counts of small data; and the benchmark's stage breakdown adds up."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import validate_data

from pgm_models import AODE, CategoricalNB
from pgm_models._utils.validation import check_concentration, check_labels
from pgm_models.base import _all_str
from pgm_models.datasets import load_dataset
from pgm_models.discrete import pairs as _pairs


def _shuffled_categorical(y, categories):
    return pd.Series(pd.Categorical(np.asarray(y, dtype=object), categories=categories))


@pytest.mark.parametrize("Model", [CategoricalNB, AODE])
def test_a_categorical_y_fits_as_its_labels_with_the_declared_classes(Model, weather):
    """Categories in an unsorted order and one never observed: the codes path gives the classes_,
    counts and probabilities of fitting the plain labels with those classes declared."""
    X, y = weather
    categorical = _shuffled_categorical(y, ["yes", "maybe", "no"])
    from_codes = Model().fit(X, categorical)
    from_labels = Model().partial_fit(X, np.asarray(y, dtype=object), classes=["yes", "maybe", "no"])
    assert from_codes.classes_.tolist() == ["maybe", "no", "yes"]
    np.testing.assert_array_equal(from_codes.class_count_, from_labels.class_count_)
    assert from_codes.class_count_[0] == 0 and from_codes.class_count_.sum() == len(y)
    np.testing.assert_array_equal(from_codes.predict_proba(X), from_labels.predict_proba(X))


def test_a_later_categorical_batch_with_an_unknown_class_names_it(weather):
    X, y = weather
    model = CategoricalNB().fit(X, y)
    later = _shuffled_categorical(["no"] * (len(y) - 1) + ["perhaps"], ["perhaps", "no", "yes"])
    with pytest.raises(ValueError, match=r"y has label 'perhaps', which is not among classes_ \['no', 'yes'\]"):
        model.partial_fit(X, later)
    assert check_labels(later, model, categorical=True) is later.array  # the array itself, not a copy of its labels


def test_repeated_declared_classes_are_still_refused(weather):
    X, y = weather
    with pytest.raises(ValueError, match=r"classes has repeated labels: \['no', 'yes', 'no'\]"):
        CategoricalNB().partial_fit(X, y, classes=["no", "yes", "no"])


class _Reference(ClassifierMixin, BaseEstimator):
    """scikit-learn's own feature-name check, for comparison."""

    def fit(self, X, y=None):
        validate_data(self, X, reset=True, skip_check_array=True)
        return self

    def check(self, X):
        validate_data(self, X, reset=False, skip_check_array=True)


def _outcome(call):
    """(result or exception type and message, warning messages) of a call."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
        except Exception as error:  # noqa: BLE001 — the exception is the outcome compared
            result = (type(error).__name__, str(error).replace("_Reference", "NAME"))
    return result, [str(w.message).replace("_Reference", "NAME") for w in caught]


def _frame(columns, rows=6):
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {j: pd.Categorical(rng.choice(["a", "b"], rows), categories=["a", "b"]) for j in range(len(columns))}
    ).set_axis(columns, axis=1)


@pytest.mark.parametrize(
    "columns",
    [
        pd.Index(["x", "y", "z"], dtype="str"),  # pandas' string dtype: no name iterated
        pd.Index(["x", "y", "z"], dtype=object),
        pd.Index(["x", np.nan, "z"], dtype="str"),  # a missing name in a string Index: not all str
        pd.Index(["x", 1, "z"], dtype=object),  # mixed: scikit-learn's TypeError
        pd.Index([0, 1, 2]),  # no names
        pd.Index([np.str_("x"), np.str_("y"), np.str_("z")], dtype=object),  # str subclass: not a name for scikit-learn
    ],
)
def test_fit_sets_the_feature_names_scikit_learn_sets(columns):
    X = _frame(columns)
    y = np.array([0, 1, 0, 1, 0, 1])
    ours = _outcome(lambda: getattr(CategoricalNB().fit(X, y), "feature_names_in_", None))
    reference = _outcome(lambda: getattr(_Reference().fit(X, y), "feature_names_in_", None))
    assert _all_str(X.columns) == (X.columns.size > 0 and all(type(c) is str for c in X.columns))
    if isinstance(reference[0], tuple):  # an error: the same one, the estimator's name aside
        assert ours[0][0] == reference[0][0] and ours[0][1] == reference[0][1].replace("NAME", "CategoricalNB")
    else:
        assert (ours[0] is None and reference[0] is None) or ours[0].tolist() == reference[0].tolist()


@pytest.mark.parametrize("Model", [CategoricalNB, AODE])
@pytest.mark.parametrize(
    "change", ["same columns", "a copy's columns", "reordered", "renamed", "numpy", "unnamed frame"]
)
def test_prediction_checks_columns_as_scikit_learn_does(Model, change):
    """After a DataFrame fit: the fitted frame's own columns (the fast path), equal columns of a
    new Index and reordered ones (matched by name) predict alike; a renamed column, a NumPy array
    and a frame without names get scikit-learn's error or warning."""
    X, y = load_dataset("vote")
    model, reference = Model().fit(X, y), _Reference().fit(X, y)
    test = X.iloc[:20]
    other = {
        "same columns": test,
        "a copy's columns": test.set_axis(list(test.columns), axis=1),
        "reordered": test[test.columns[::-1]],
        "renamed": test.rename(columns={test.columns[3]: "other"}),
        "numpy": test.to_numpy(),
        "unnamed frame": test.set_axis(range(test.shape[1]), axis=1),
    }[change]
    ours = _outcome(lambda: model.predict_proba(other))
    if change == "reordered":  # scikit-learn refuses reordered names; pgm_models matches them by name
        assert ours[1] == []
        np.testing.assert_array_equal(ours[0], model.predict_proba(test))
        return
    expected = _outcome(lambda: reference.check(other))
    assert ours[1] == [m.replace("NAME", Model.__name__) for m in expected[1]]
    if isinstance(expected[0], tuple):
        assert ours[0][0] == expected[0][0] and ours[0][1] == expected[0][1].replace("NAME", Model.__name__)
    else:
        np.testing.assert_array_equal(ours[0], model.predict_proba(test))


@pytest.mark.parametrize(
    "value",
    [
        0.0,
        1.5,
        np.inf,
        -np.inf,
        np.nan,
        -1.0,
        [1.0, 2.0],
        [1.0, np.nan],
        [0.0, -0.5],
        [np.inf, 1.0],
        [],
        np.float32(2.0),
        3,
    ],
)
def test_concentration_check_accepts_what_finite_nonnegative_means(value):
    array = np.asarray(value, dtype=float)
    valid = bool(np.all(np.isfinite(array)) and not np.any(array < 0))
    if valid:
        np.testing.assert_array_equal(check_concentration(value, "alpha"), array)
    else:
        with pytest.raises(ValueError, match="alpha must be finite and ≥ 0"):
            check_concentration(value, "alpha")


@pytest.mark.parametrize("size", [1, 2, 8, 9, 40])
def test_finite_nonnegative_check_of_few_and_many_entries(size):
    """A few entries are checked as Python floats, more by two reductions: the same answer for a
    NaN, ±inf or a negative entry anywhere, −0.0 and a 2-D array."""
    from pgm_models._utils.validation import is_finite_nonnegative

    assert is_finite_nonnegative(np.zeros(size)) and is_finite_nonnegative(np.full(size, -0.0))
    assert is_finite_nonnegative(np.arange(size, dtype=float)) and is_finite_nonnegative(np.ones((1, size)))
    for bad in (np.nan, np.inf, -np.inf, -1e-300):
        for at in {0, size - 1}:
            values = np.ones(size)
            values[at] = bad
            assert not is_finite_nonnegative(values) and not is_finite_nonnegative(values.reshape(1, -1))


def test_unit_weights_are_shared_read_only_and_known_by_identity_or_value():
    """A fit without sample_weight gets the one read-only array of ones of its length; other arrays
    of ones are unit weights by value, anything else is not; past UNIT_WEIGHTS_ROWS none is kept."""
    from pgm_models._utils import weights as _weights
    from pgm_models._utils.validation import check_sample_weight

    shared = check_sample_weight(None, 391)
    assert shared is _weights.unit_weights(391) and not shared.flags.writeable and shared.tolist() == [1.0] * 391
    assert (
        _weights.is_unit_weight(shared)
        and _weights.is_unit_weight(np.ones(391))
        and _weights.is_unit_weight(shared[:5])
    )
    assert not _weights.is_unit_weight(np.array([1.0, 2.0])) and not _weights.is_unit_weight(np.array([1.0, 0.0]))
    assert _weights.is_unit_weight(check_sample_weight([1, 1, 1], 3)) and not _weights.is_unit_weight(
        check_sample_weight(2.0, 3)
    )
    large = _weights.UNIT_WEIGHTS_ROWS + 1
    assert _weights.unit_weights(large) is not _weights.unit_weights(large) and _weights.is_unit_weight(
        _weights.unit_weights(large)
    )


@pytest.mark.parametrize("rows", ["all", "one attribute"])
def test_small_data_counts_every_cell_and_equals_the_derived_counts(rows, monkeypatch):
    """Below DIRECT_PRODUCT_WORK the product spans every cell (the derivation is not called);
    above it the derivation runs; both give the brute-force counts exactly."""
    rng = np.random.default_rng(5)
    layout = _pairs.PairLayout([3, 2, 4, 1])
    codes = np.column_stack(
        [rng.integers(-1, 3, 120), rng.integers(0, 2, 120), rng.integers(-1, 4, 120), np.full(120, -1)]
    )
    class_index, weight = rng.integers(0, 2, 120), rng.integers(0, 4, 120).astype(float)
    expected = np.zeros((2, layout.n_cells, layout.n_cells))
    for row, k, w in zip(layout.cells(codes), class_index, weight):
        expected[k][np.ix_(row, row)] += w
    pair_rows = slice(None) if rows == "all" else layout.pair_cells(2)
    derived = _pairs._derived_pair_counts
    called = []
    monkeypatch.setattr(_pairs, "_derived_pair_counts", lambda *args: called.append(1) or derived(*args))
    direct = _pairs.pair_counts(layout, codes, class_index, weight, 2, pair_rows)
    assert not called
    monkeypatch.setattr(_pairs, "DIRECT_PRODUCT_WORK", 0)
    by_derivation = _pairs.pair_counts(layout, codes, class_index, weight, 2, pair_rows)
    assert called
    np.testing.assert_array_equal(direct, expected[:, pair_rows])
    np.testing.assert_array_equal(by_derivation, expected[:, pair_rows])


def test_the_benchmark_stage_breakdown_adds_up():
    """Each remainder is the whole less the stages timed; a pipeline is compared with its steps
    called directly, then lists its discretizer's and its model's stages."""
    from benchmarks.vs_warm_weka import MODELS, format_breakdown, modulo_folds, stage_breakdown

    X, y = load_dataset("weather.nominal")
    stages = dict(stage_breakdown(CategoricalNB, modulo_folds(X, y, 2), rounds=1))
    assert stages["  the rest (counts, priors)"] == pytest.approx(
        stages["fit"] - stages["  X to codes, training rows"] - stages["  y to class indices"], abs=1e-12
    )
    assert stages["  the rest (estimates, scoring)"] == pytest.approx(
        stages["predict_proba"] - stages["  X to codes, test rows"], abs=1e-12
    )
    assert all(ms > 0 for name, ms in stages.items() if "rest" not in name)
    X, y = load_dataset("iris")
    stages = stage_breakdown(MODELS["mdl-aode"][1], modulo_folds(X, y, 2), rounds=1)
    names, ms = zip(*stages)
    assert names[1:6] == (
        "Pipeline's own (the whole less the same steps called directly)",
        "the same steps called directly",
        "  discretizer fit_transform, training rows",
        "    of which the fit",
        "  discretizer transform, test rows",
    )
    assert ms[1] == pytest.approx(ms[0] - ms[2], abs=1e-12)
    assert "  AODE: predict_proba" in names and "discretizer fit_transform" in format_breakdown(stages)


def test_available_memory_is_read_at_most_once_a_second(monkeypatch):
    reads, clock = [], [100.0]
    monkeypatch.setattr(_pairs, "_read_available_memory", lambda: reads.append(1) or 1000 * len(reads))
    monkeypatch.setattr(_pairs.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(_pairs, "_meminfo", {"read_at": -np.inf, "bytes": 0})
    assert _pairs.available_memory() == 1000
    clock[0] += 0.5
    assert _pairs.available_memory() == 1000 and len(reads) == 1  # within the second: the reading stands
    clock[0] += 0.6
    assert _pairs.available_memory() == 2000 and len(reads) == 2


def test_folds_with_the_same_attribute_sizes_share_one_read_only_layout():
    X, y = load_dataset("vote")
    first, second = AODE().fit(X.iloc[::2], y.iloc[::2]), AODE().fit(X.iloc[1::2], y.iloc[1::2])
    assert first._layout is second._layout
    with pytest.raises(ValueError, match="read-only"):
        first._layout.value_cells[0] = 1
    np.testing.assert_array_equal(first._layout.missing_cells, np.arange(2, 48, 3))  # 16 attributes of 2 values


def test_a_categorical_y_of_nanosecond_datetimes_fits_as_its_plain_labels():
    """np.asarray of such categories lists ints, the Index lists Timestamps: the class lookup
    compares them as classes_ holds them."""
    from pgm_models import CategoricalNB

    X = pd.DataFrame({"a": pd.Categorical(["x", "y", "x", "y", "x"])})
    for unit in ("ns", "us"):
        stamps = pd.to_datetime(["2020-01-03", "2020-01-01", "2020-01-03", "2020-01-01", "2020-01-02"]).as_unit(unit)
        categorical = CategoricalNB().fit(X, pd.Series(pd.Categorical(stamps)))
        plain = CategoricalNB().fit(X, pd.Series(stamps))
        np.testing.assert_array_equal(categorical.classes_, plain.classes_)
        np.testing.assert_array_equal(categorical.class_count_, [2, 1, 2])
        np.testing.assert_array_equal(categorical.predict_proba(X), plain.predict_proba(X))


def test_a_memory_request_near_the_cached_reading_reads_again(monkeypatch):
    from pgm_models.discrete import pairs as _pairs

    readings = iter([8 * 2**30, 1 * 2**30])
    monkeypatch.setattr(_pairs, "_read_available_memory", lambda: next(readings))
    monkeypatch.setattr(_pairs, "_meminfo", {"read_at": -np.inf, "bytes": 0})
    _pairs.check_memory(2**27, "a small table", "")  # 1 GiB of 8: the first reading serves
    with pytest.raises(ValueError, match="more than the 1 GiB available"):
        _pairs.check_memory(5 * 2**27, "a large table", "use fewer values")  # 5 GiB > 8/2: read again, 1 GiB left


@pytest.mark.parametrize("shape", [(39, 2), (255, 3), (256, 3), (3000, 8), (3000, 9)])
def test_per_class_and_per_row_terms_equal_numpy_broadcasting_bit_for_bit(shape):
    """Column by column (many rows, few classes) or broadcast: every entry gets the same single
    addition or subtraction, so the result is NumPy's broadcast to the bit, in place."""
    from pgm_models._utils.scores import add_per_class, subtract_per_row

    rng = np.random.default_rng(sum(shape))
    scores, per_class, per_row = rng.normal(size=shape) * 1e3, rng.normal(size=shape[1]), rng.normal(size=shape[0])
    added = scores.copy()
    assert add_per_class(added, per_class) is added
    np.testing.assert_array_equal(added, scores + per_class)
    subtracted = scores.copy()
    assert subtract_per_row(subtracted, per_row) is subtracted
    np.testing.assert_array_equal(subtracted, scores - per_row[:, None])
