"""The vectorised MDL search against a row-by-row reference of Weka's cutPointsForSubset, and the
transform against the interval mapping written out column by column."""

from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pgm_models._utils import jit as _numba
from pgm_models.datasets import load_dataset
from pgm_models.preprocessing.discretize import (
    EqualFrequencyDiscretizer,
    EqualWidthDiscretizer,
    MDLDiscretizer,
    _interval_labels,
)

LN2 = float(np.log(2))
WEKA = Path(__file__).parent.parent / "pgm_models" / "datasets" / "data" / "weka"


@contextmanager
def numba_loaded(loaded: bool):
    """The discretizers' compiled kernels run once numba is loaded in the process, else NumPy:
    either path, whatever the tests before have imported."""
    with mock.patch.object(_numba, "loaded", lambda: loaded):
        yield


PATHS = [pytest.param(False, id="numpy"), pytest.param(True, id="compiled")]


def weka_cut_points(values, classes, n_classes):
    """Weka 3.6's supervised Discretize on one column, as its Java reads: sort the present rows,
    walk them once per subset updating the left and right class counts, score a cut wherever the
    next value is larger, keep the first strictly lower conditional entropy, accept it by Fayyad
    & Irani's MDL test, recurse on both sides. Weka's float operations (x ln x of counts from
    numpy's log, classes summed in order, the conditional entropy as entropyConditionedOnRows adds
    it, log2 as ln x / ln 2) so that the cut points agree to the last bit, ties broken alike."""
    present = ~np.isnan(values)
    order = np.argsort(values[present], kind="stable")
    v, c = values[present][order].tolist(), classes[present][order].tolist()
    counts = np.arange(len(v) + 1.0)
    x_ln_x = (counts * np.log(np.where(counts < 1, 1.0, counts))).tolist()

    def entropy(class_counts, total):
        terms = 0.0
        for count in class_counts:
            terms += x_ln_x[count]
        return (x_ln_x[total] - terms) / (total * LN2)

    def cut_points_for_subset(first, last):
        if last - first < 2:
            return []
        n = last - first
        prior = [c[first:last].count(k) for k in range(n_classes)]
        prior_entropy = best_entropy = entropy(prior, n)
        left, right, best = [0] * n_classes, list(prior), None
        for i in range(first, last - 1):
            left[c[i]] += 1
            right[c[i]] -= 1
            if v[i] < v[i + 1]:
                n_left = i + 1 - first
                # ContingencyTables.entropyConditionedOnRows, term by term in Weka's order
                running = 0.0
                for side, total in ((left, n_left), (right, n - n_left)):
                    for count in side:
                        running += x_ln_x[count]
                    running -= x_ln_x[total]
                current = -running / (n * LN2)
                if current < best_entropy:
                    best_entropy, best, best_left, best_right = current, i, list(left), list(right)
        if best is None:
            return []
        k, k_left, k_right = (sum(count > 0 for count in side) for side in (prior, best_left, best_right))
        n_left = best + 1 - first
        delta = np.log(3.0**k - 2) / LN2 - (
            k * prior_entropy - k_right * entropy(best_right, n - n_left) - k_left * entropy(best_left, n_left)
        )
        if not prior_entropy - best_entropy > (np.log(n - 1) / LN2 + delta) / n:
            return []
        cut = (v[best] + v[best + 1]) / 2.0
        return cut_points_for_subset(first, best + 1) + [cut] + cut_points_for_subset(best + 1, last)

    return cut_points_for_subset(0, len(v))


@st.composite
def labelled_columns(draw):
    """Up to 5 columns of up to 80 rows over a few distinct values (many ties, some missing),
    each column's values shifted by the class to a drawn degree, so that some columns get cuts
    and others none; 1 to 9 classes (from 8 classes on, numpy's own sum would add the classes'
    terms pairwise instead of in order)."""
    n_rows = draw(st.integers(2, 80))
    n_classes = draw(st.integers(1, 9))
    classes = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n_rows, max_size=n_rows)))
    columns = {}
    for j in range(draw(st.integers(1, 5))):
        levels = draw(st.integers(1, 12))
        noise = np.array(draw(st.lists(st.integers(0, levels - 1), min_size=n_rows, max_size=n_rows)), dtype=float)
        values = (
            noise + draw(st.sampled_from([0.0, 0.5, 2.0, 6.0])) * classes + draw(st.sampled_from([0.0, -3.25, 1e6]))
        )
        missing = np.array(draw(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows))) & draw(st.booleans())
        columns[f"x{j}"] = np.where(missing, np.nan, values)
    return pd.DataFrame(columns), classes


@settings(max_examples=300, deadline=None)
@given(labelled_columns())
def test_cut_points_equal_weka_row_by_row(data):
    X, classes = data
    codes = pd.factorize(classes)[0]  # class indices in order of appearance, as the fit's
    for loaded in (False, True):  # the NumPy search and the compiled one
        with numba_loaded(loaded):
            found = MDLDiscretizer().fit(X, classes).cut_points_
        for column, cuts in zip(X.columns, found):
            expected = weka_cut_points(X[column].to_numpy(), codes, codes.max() + 1)
            assert cuts.tolist() == expected, (column, loaded)  # equal floats, not close ones


@pytest.mark.parametrize("loaded", PATHS)
@pytest.mark.parametrize("dataset", ["iris", "diabetes"])
def test_both_searches_give_weka_s_cut_points(dataset, loaded):
    """weka.filters.supervised.attribute.Discretize 3.6.14's fixtures, by the NumPy search and by
    the compiled one."""
    X, y = load_dataset(dataset)
    reference = pd.read_csv(WEKA / f"mdl_cut_points_{dataset}.csv", keep_default_na=False)
    with numba_loaded(loaded):
        found = MDLDiscretizer().fit(X, y).cut_points_
    assert [cuts.tolist() for cuts in found] == [[float(c) for c in text.split()] for text in reference["cut_points"]]


def test_data_drawn_like_the_examples_give_0_to_3_cuts():
    """The property above is only as good as its examples: on data drawn like them (numpy's
    generator, fixed seed), columns get no cut, one, and several (recursion), and still agree."""
    rng = np.random.default_rng(0)
    numbers_of_cuts = set()
    for _ in range(100):
        n = int(rng.integers(20, 80))
        classes = pd.factorize(rng.integers(0, 3, n))[0]  # numbered in order of appearance, as the fit's
        values = rng.integers(0, 8, n) + rng.choice([0.0, 0.5, 2.0, 6.0]) * classes
        cuts = weka_cut_points(values, classes, classes.max() + 1)
        numbers_of_cuts.add(len(cuts))
        assert cuts == MDLDiscretizer().fit(values[:, None], classes).cut_points_[0].tolist()
    assert {0, 1, 2, 3} <= numbers_of_cuts


def test_hand_derived_cuts():
    """Rows 1..8, classes 0,0,0,0,1,1,1,1: the cut 4.5 leaves both sides pure (gain 1 bit) and
    the MDL cost is (log2 7 + log2 7 − 2) / 8 ≈ 0.45 < 1, so it is kept; pure sides stop there.
    Shuffled, with repeated values (10 rows: cost (log2 9 + log2 7 − 2) / 10 ≈ 0.40): the same.
    Rows 1, 2, 3 of classes 0, 1, 0: the best cut 1.5 (conditional entropy 2/3, the first of two
    equal ones) gains 0.918 − 0.667 = 0.25 bits, but costs (log2 2 + log2 7 − (2 · 0.918 − 2 · 1)) / 3
    ≈ 1.32: the MDL test refuses it."""
    X = pd.DataFrame({"x": [1.0, 2, 3, 4, 5, 6, 7, 8]})
    assert MDLDiscretizer().fit(X, [0, 0, 0, 0, 1, 1, 1, 1]).cut_points_[0].tolist() == [4.5]
    X = pd.DataFrame({"x": [8.0, 1, 7, 2, 6, 3, 5, 4, 1, 8]})
    assert MDLDiscretizer().fit(X, list("babababaab")).cut_points_[0].tolist() == [4.5]
    assert MDLDiscretizer().fit(np.array([[1.0], [2.0], [3.0]]), [0, 1, 0]).cut_points_[0].tolist() == []


def test_transform_is_the_interval_of_each_value():
    """Each numeric column: code = the first cut ≥ x (x on a cut goes left), missing stays
    missing, categories = Weka's interval names; other columns pass through; the dtype object is
    the one made at fit, shared by every transform's output."""
    X, y = load_dataset("diabetes")
    X = X.assign(kind=np.where(np.arange(len(X)) % 2, "odd", "even"))
    X.iloc[::7, 1] = np.nan
    discretizer = MDLDiscretizer().fit(X, y)
    queried = pd.concat(
        [X.iloc[::3], X.iloc[:5].assign(plas=np.resize(discretizer.cut_points_[1], 5))]
    )  # values on the cuts
    out = discretizer.transform(queried)
    expected = {}
    for column, cuts in zip(X.columns, discretizer.cut_points_):
        if cuts is None:
            expected[column] = queried[column]
            continue
        values = queried[column].to_numpy()
        codes = np.where(
            np.isnan(values), -1, [np.flatnonzero(np.append(cuts, np.inf) >= x)[0] if x == x else 0 for x in values]
        )
        expected[column] = pd.Categorical.from_codes(codes, categories=_interval_labels(cuts.tolist()))
    pd.testing.assert_frame_equal(out, pd.DataFrame(expected, index=queried.index))
    again = discretizer.transform(X.iloc[:4])
    assert all(again[c].dtype is out[c].dtype for c in X.columns if c != "kind")


@pytest.mark.parametrize("zero", [0.0, -0.0])
def test_interval_names_follow_the_fit_cut_points_not_an_earlier_fit(zero):
    """The interval dtypes are shared between fits with the same cut points: -0.0 and 0.0 are
    different cut points to the interval names, whichever was fitted first."""
    for sign in (zero, -zero):
        X = pd.DataFrame({"x": [-1.0, sign, sign, 1.0]})
        discretizer = EqualFrequencyDiscretizer(n_bins=2).fit(X)
        cuts = discretizer.cut_points_[0]
        assert list(discretizer.transform(X)["x"].cat.categories) == _interval_labels(cuts.tolist())


def test_columns_searched_in_batches_find_the_same_cuts(monkeypatch):
    """Wide data are searched in NumPy a few columns at a time (memory); batches of 2 of 5 columns
    give every column the cut points of the row-by-row reference."""
    from pgm_models.preprocessing import discretize

    rng = np.random.default_rng(1)
    classes = pd.factorize(rng.integers(0, 3, 120))[0]  # numbered in order of appearance, as the fit's
    X = pd.DataFrame({f"x{j}": rng.integers(0, 10, 120) + j * classes for j in range(5)}, dtype=float)
    monkeypatch.setattr(discretize, "_BATCH_VALUES", 2 * len(X))
    with numba_loaded(False):
        found = MDLDiscretizer().fit(X, classes).cut_points_
    assert [cuts.tolist() for cuts in found] == [weka_cut_points(X[c].to_numpy(), classes, 3) for c in X.columns]
    assert sum(len(cuts) > 0 for cuts in found) >= 3


def test_more_cut_points_than_columns_each_to_its_column():
    """The compiled search writes every column's cut points end to end into a buffer that grows
    (first as long as the columns): 20 columns of several cuts each, interleaved with columns of
    none, each get the row-by-row reference's cut points."""
    rng = np.random.default_rng(1)
    classes = pd.factorize(rng.integers(0, 4, 400))[0]  # numbered in order of appearance, as the fit's
    X = pd.DataFrame({f"x{j}": rng.integers(0, 40, 400) + (j % 2) * 10.0 * classes for j in range(40)}, dtype=float)
    with numba_loaded(True):
        found = MDLDiscretizer().fit(X, classes).cut_points_
    assert [cuts.tolist() for cuts in found] == [weka_cut_points(X[c].to_numpy(), classes, 4) for c in X.columns]
    assert sum(len(cuts) for cuts in found) > 40 and sum(len(cuts) == 0 for cuts in found) >= 10


@pytest.mark.parametrize("loaded", PATHS)
@pytest.mark.parametrize("n_bins", [5, 34, 120])
def test_interval_codes_are_searchsorted_ones(n_bins, loaded):
    """The compiled interval codes count the cut points below a value in passes up to
    LINEAR_CUTS cut points and search above it (33 and 119 cuts; 120 bins fit int8 codes, 34 do
    too): both are NumPy's searchsorted(side="left") column by column (the path without numba),
    on the cut points themselves, outside the training range and at NaN (−1)."""
    from pgm_models.preprocessing._kernels import LINEAR_CUTS

    rng = np.random.default_rng(n_bins)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.integers(0, 50, 300).astype(float)})
    discretizer = EqualWidthDiscretizer(n_bins=n_bins).fit(X)
    cuts = discretizer.cut_points_
    queried = pd.DataFrame(
        {
            "a": np.concatenate((cuts[0], [-9.0, 9.0, np.nan], rng.normal(size=50))),
            "b": np.concatenate((cuts[1], [-1.0, 99.0, np.nan], rng.integers(0, 50, 50))),
        }
    )
    with numba_loaded(loaded):
        out = discretizer.transform(queried)
        again = discretizer.fit_transform(X)
    for column, column_cuts in zip(X.columns, cuts):
        values = queried[column].to_numpy()
        expected = np.where(np.isnan(values), -1, np.searchsorted(column_cuts, values, side="left"))
        np.testing.assert_array_equal(out[column].cat.codes.to_numpy(), expected)
    assert (len(cuts[0]) > LINEAR_CUTS) == (n_bins > LINEAR_CUTS + 1)
    pd.testing.assert_frame_equal(again, discretizer.transform(X))  # one read of the frame, the same intervals


def test_transform_keeps_columns_that_share_a_name():
    X = pd.DataFrame([[1.0, 2.0, "a"], [2.0, 1.0, "b"], [3.0, 5.0, "a"], [4.0, 6.0, "b"]], columns=["x", "x", "kind"])
    out = MDLDiscretizer().fit(X, [0, 0, 1, 1]).transform(X)
    assert list(out.columns) == ["x", "x", "kind"]
    assert [out.iloc[:, j].tolist() for j in range(2)] == [
        ["(-inf-2.5]"] * 2 + ["(2.5-inf)"] * 2,
        ["(-inf-3.5]"] * 2 + ["(3.5-inf)"] * 2,
    ]


@pytest.mark.parametrize("loaded", PATHS)
def test_columns_passed_through_are_the_outputs_own(loaded):
    """A bool and a datetime column pass through a discretizer as copies: writing to the input
    after transform, or to the output after fit_transform, leaves the other frame as it was."""
    with numba_loaded(loaded):
        X = pd.DataFrame({"x": np.arange(8.0), "flag": [True] * 8, "when": pd.to_datetime(["2020-01-01"] * 8)})
        y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
        out = MDLDiscretizer().fit(X, y).transform(X)
        X.loc[0, "flag"], X.loc[0, "when"] = False, pd.Timestamp("1999-01-01")
        assert out.loc[0, "flag"] and out.loc[0, "when"] == pd.Timestamp("2020-01-01")
        X = pd.DataFrame({"x": np.arange(8.0), "flag": [True] * 8})
        out = MDLDiscretizer().fit_transform(X, y)
        out.loc[0, "flag"] = False
        assert X.loc[0, "flag"]


@pytest.mark.parametrize("Discretizer", [MDLDiscretizer, EqualWidthDiscretizer])
def test_a_frame_is_matched_by_column_name(Discretizer):
    """The cut points belong to the names fit read: the same columns in another order get their
    own intervals (output in the fitted order), other names are an error that names them; an
    array goes by position."""
    X = pd.DataFrame({"a": np.r_[np.zeros(10), np.ones(10)], "b": np.arange(20.0) * 100})
    y = np.r_[np.zeros(10), np.ones(10)]
    discretizer = Discretizer().fit(X, y)
    expected = discretizer.transform(X)
    pd.testing.assert_frame_equal(discretizer.transform(X[["b", "a"]]), expected)
    pd.testing.assert_frame_equal(discretizer.transform(X.to_numpy()), expected.set_axis([0, 1], axis=1))
    with pytest.raises(ValueError, match=r"unseen at fit time: \['c'\]; seen at fit time, yet now missing: \['a'\]"):
        discretizer.transform(X.rename(columns={"a": "c"}))
    shared = X.assign(c=X["a"]).set_axis(["x", "x", "c"], axis=1)
    with pytest.raises(ValueError, match="share a name"):
        Discretizer().fit(shared, y).transform(shared.iloc[:, [2, 0, 1]])


@pytest.mark.parametrize("loaded", PATHS)
def test_mdl_with_more_classes_than_3_to_the_k_fits_a_float(loaded):
    """700 classes, each on its own value twice: 3^700 overflows a float (Weka's cost becomes
    infinite and it keeps no cut); here the cost is k log2 3 and the classes are cut apart where
    the MDL test accepts it: every cut a midpoint between two classes' values, both paths alike."""
    values = np.repeat(np.arange(700.0), 2)
    with numba_loaded(loaded):
        cuts = MDLDiscretizer().fit(pd.DataFrame({"x": values}), values.astype(int)).cut_points_[0]
    assert len(cuts) > 0 and np.all(cuts % 1 == 0.5) and np.all(np.diff(cuts) > 0)
    with numba_loaded(not loaded):
        np.testing.assert_array_equal(
            MDLDiscretizer().fit(pd.DataFrame({"x": values}), values.astype(int)).cut_points_[0], cuts
        )


@pytest.mark.parametrize("loaded", PATHS)
def test_cut_points_between_huge_values_are_finite(loaded):
    """Midpoints and widths of values beyond half the largest float are taken by halves."""
    huge = np.finfo(float).max
    X = pd.DataFrame({"x": [0.9 * huge] * 4 + [huge] * 4})
    with numba_loaded(loaded):
        (cut,) = MDLDiscretizer().fit(X, [0] * 4 + [1] * 4).cut_points_[0]
    assert cut == 0.9 * huge / 2 + huge / 2 and 0.9 * huge < cut < huge
    cuts = EqualWidthDiscretizer(n_bins=4).fit(pd.DataFrame({"x": [-huge, huge]})).cut_points_[0]
    np.testing.assert_allclose(cuts, [-huge / 2, 0.0, huge / 2], atol=1e-300)


@pytest.mark.parametrize("loaded", PATHS)
@pytest.mark.parametrize(
    ("classes", "values", "weka"),
    [
        # two cuts of mathematically equal conditional entropy: Weka's rounding of
        # entropyConditionedOnRows makes the later one strictly lower, so it is taken
        ([1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1], np.arange(16.0), ["0x1.3p+3", "0x1.bp+3"]),
        ([2, 2, 2, 2, 1, 1, 0, 0, 2, 2, 0, 0, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0], np.arange(22.0), ["0x1.cp+1", "0x1.6p+2"]),
        (
            [0, 1, 0, 3, 2, 4, 4],
            [-4.968975582470261e-13, -1.9629487280316392e-13, 2.4332414120613425e-13, 1.0249677086806802e-12]
            + [1.5763134826160096e-12, 1.7427403766670251e-12, 2.1916177314546945e-12],
            ["0x1.6e190833263c2p-40", "0x1.d31d848df56bap-40"],
        ),
    ],
)
def test_exact_entropy_ties_break_as_weka_s(classes, values, weka, loaded):
    """Weka 3.6.14's supervised Discretize, run on these rows (Double.toHexString of getCutPoints):
    a first cut tied with another in exact arithmetic is the one Weka's floats make strictly lower
    (the conditional entropy as (n_L H(L) + n_R H(R))/n took the other, and then different cuts)."""
    with numba_loaded(loaded):
        found = MDLDiscretizer().fit(np.array(values)[:, None], np.array(classes)).cut_points_[0]
    assert found.tolist() == [float.fromhex(text) for text in weka]  # to the last bit
