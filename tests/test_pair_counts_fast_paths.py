"""The fast paths of issue 16 (round 3) against brute force: pair counts whose missing cells are
derived by subtraction, labels indexed through their distinct values, feature names set without
scikit-learn's dataframe round trip."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.utils.validation import validate_data

from pgm_models import AODE, SPODE, CategoricalNB
from pgm_models.discrete import pairs as _pairs


def _brute_force_pairs(layout, codes, class_index, weight, n_classes):
    expected = np.zeros((n_classes, layout.n_cells, layout.n_cells))
    for row, k, w in zip(layout.cells(codes), class_index, weight):
        expected[k][np.ix_(row, row)] += w
    return expected


@pytest.mark.parametrize("weights", ["unit", "whole"])
@pytest.mark.parametrize("rows", ["all", "one attribute"])
def test_derived_missing_cells_equal_the_counted_ones(weights, rows, monkeypatch):
    """Whole-number weights: the product over value cells plus subtraction gives every count of
    the full tensor exactly, missing-by-missing cells included, for AODE's rows and a SPODE's; an
    attribute missing in every row and one never missing are among them."""
    rng = np.random.default_rng(11)
    sizes = [3, 2, 4, 1]
    layout = _pairs.PairLayout(sizes)
    codes = np.column_stack(
        [rng.integers(-1, 3, 300), rng.integers(0, 2, 300), rng.integers(-1, 4, 300), np.full(300, -1)]
    )
    class_index = rng.integers(0, 3, 300)
    weight = np.ones(300) if weights == "unit" else rng.integers(0, 7, 300).astype(float)
    expected = _brute_force_pairs(layout, codes, class_index, weight, 3)
    monkeypatch.setattr(_pairs, "FLOATS_PER_BLOCK", 40 * layout.n_cells)  # several blocks per class
    monkeypatch.setattr(_pairs, "DIRECT_PRODUCT_WORK", 0)  # the derivation, not small data's direct product
    pair_rows = slice(None) if rows == "all" else layout.pair_cells(2)
    counts = _pairs.pair_counts(layout, codes, class_index, weight, 3, pair_rows)
    np.testing.assert_array_equal(counts, expected[:, pair_rows])
    assert expected[:, layout.missing_cells[:, None], layout.missing_cells].any()  # the derived corner is not all 0


def test_spode_and_aode_fits_read_the_same_counts_as_brute_force():
    """Through the estimators (one-hot design of 2 classes, missing values as NaN)."""
    rng = np.random.default_rng(12)
    X = rng.integers(0, 3, size=(200, 5)).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = rng.integers(0, 2, 200)
    aode = AODE(n_categories=3).fit(X, y)
    codes = np.where(np.isnan(X), -1, X).astype(int)
    expected = _brute_force_pairs(aode._layout, codes, y, np.ones(200), 2)
    np.testing.assert_array_equal(aode.pair_count_, expected)
    spode = SPODE(parent=1, n_categories=3).fit(X, y)
    np.testing.assert_array_equal(spode.pair_count_, expected[:, aode._layout.pair_cells(1)])


@pytest.mark.parametrize(
    "labels",
    [
        np.array(["b", "a", "c", "a", "b"], dtype=object),
        np.array([3, 1, 2, 1, 3]),
        np.array([2.0, 0.0, 2.0, 1.0, 1.0]),
        np.array([True, False, True, True, False]),
    ],
)
def test_class_index_is_each_labels_position_in_classes(labels):
    model = CategoricalNB().fit(np.zeros((len(labels), 1), dtype=int), labels)
    np.testing.assert_array_equal(model.classes_, sorted(set(labels.tolist())))
    expected = [list(model.classes_).index(label) for label in labels]
    np.testing.assert_array_equal(model._class_index(labels), expected)


def test_a_label_outside_the_classes_is_named():
    model = CategoricalNB().partial_fit(np.zeros((2, 1), dtype=int), ["x", "y"], classes=["x", "y", "z"])
    with pytest.raises(ValueError, match="y has label 'w', which is not among classes_"):
        model.partial_fit(np.zeros((3, 1), dtype=int), ["x", "w", "z"])


def test_categorical_labels_with_a_missing_one_are_refused():
    y = pd.Series(pd.Categorical(["a", None, "b"], categories=["a", "b", "c"]))
    with pytest.raises(ValueError, match="y has 1 missing label"):
        CategoricalNB().fit(np.zeros((3, 1), dtype=int), y)
    complete = pd.Series(pd.Categorical(["a", "c", "a"], categories=["a", "b", "c"]))
    model = CategoricalNB().fit(np.zeros((3, 1), dtype=int), complete)
    assert list(model.classes_) == ["a", "b", "c"]  # the declared domain, "b" unseen
    np.testing.assert_array_equal(model.class_count_, [2, 0, 1])


class _Names(BaseEstimator):
    """scikit-learn's own bookkeeping of n_features_in_ and feature_names_in_."""

    def fit(self, X):
        validate_data(self, X, reset=True, skip_check_array=True)
        return self


@pytest.mark.parametrize("columns", [["a", "b"], [0, 1]])
def test_feature_names_are_scikit_learns(columns):
    X = pd.DataFrame([[0, 1], [1, 0]], columns=columns)
    ours, theirs = CategoricalNB().fit(X, [0, 1]), _Names().fit(X)
    assert ours.n_features_in_ == theirs.n_features_in_ == 2
    assert hasattr(ours, "feature_names_in_") == hasattr(theirs, "feature_names_in_")
    if hasattr(theirs, "feature_names_in_"):
        np.testing.assert_array_equal(ours.feature_names_in_, theirs.feature_names_in_)
        assert ours.feature_names_in_.dtype == theirs.feature_names_in_.dtype == object


def test_mixed_column_name_types_are_refused_as_scikit_learn_does():
    X = pd.DataFrame([[0, 1], [1, 0]], columns=["a", 1])
    with pytest.raises(TypeError, match="Feature names are only supported if all input features have string names"):
        CategoricalNB().fit(X, [0, 1])
