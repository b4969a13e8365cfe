"""Discretisation of numeric attributes into pandas Categorical columns, as scikit-learn
transformers, so that a Pipeline can put them in front of CategoricalNB, SPODE, AODE or TAN and
fit the cut points inside each cross-validation fold.

* :class:`EqualWidthDiscretizer` — ``n_bins`` bins of equal width between the training
  minimum and maximum;
* :class:`EqualFrequencyDiscretizer` — cut points at the training quantiles i/``n_bins``
  (repeated cut points merged);
* :class:`MDLDiscretizer` — supervised: Fayyad & Irani's (1993) recursive minimum-entropy
  split accepted by the MDL criterion, exactly as Weka 3.6's
  ``weka.filters.supervised.attribute.Discretize`` with its defaults (candidate cuts halfway
  between consecutive distinct values, the first strictly best entropy, log2(N − 1) for the
  cut point's cost), so it reproduces Weka's cut points.

Output: one Categorical column per input column; a numeric column becomes intervals
"(-inf-c1]", "(c1-c2]", …, "(ck-inf)" (Weka's names), every interval declared as a category —
so an interval that a fold's training data never reaches still gets prior mass downstream. A
value x goes to the first interval with x ≤ its upper cut. Missing values stay missing, and
non-numeric columns pass through unchanged.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from pgm_models._frames import categorical_codes, column_arrays
from pgm_models._param_names import ParamNamesOnce


def _interval_labels(cuts) -> list[str]:
    """Weka's interval names, cut points rounded to 6 decimals — unless that merges two cut
    points or rounds one to 0 (small-scale data), then each cut point's shortest exact decimal,
    so that the labels stay distinct and true (Python's shortest repr of the float)."""
    text = [np.format_float_positional(round(c, 6), trim="-") for c in cuts]
    if len(set(text)) < len(text) or any(c != 0 and round(c, 6) == 0 for c in cuts):
        text = [repr(float(c)) for c in cuts]
    if not text:
        return ["All"]
    return [f"(-inf-{text[0]}]"] + [f"({a}-{b}]" for a, b in zip(text[:-1], text[1:])] + [f"({text[-1]}-inf)"]


@functools.lru_cache(maxsize=256)
def _interval_dtype(cuts: bytes) -> pd.CategoricalDtype:
    """The Categorical dtype of the intervals between these cut points (float64 bytes: -0.0 and
    0.0 stay apart), shared by every fit that finds the same ones: dtypes are immutable, building
    one from strings costs more than finding a fold's cut points, and cross-validation finds the
    same intervals again (a column without a cut, refits of a fold)."""
    return pd.CategoricalDtype(_interval_labels(np.frombuffer(cuts).tolist()))


class _Discretizer(ParamNamesOnce, TransformerMixin, BaseEstimator):
    """Fit cut points per numeric column (``_cut_points``, or ``_cut_points_of`` for all
    columns at once), then map values to intervals."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # a missing value stays missing
        return tags

    def fit(self, X, y=None):
        frame = _as_frame(X)
        if frame.shape[1] == 0:
            raise ValueError(f"X has 0 feature(s) (shape={frame.shape}) while a minimum of 1 is required.")
        if frame.shape[0] == 0:
            raise ValueError(f"X has 0 sample(s) (shape={frame.shape}) while a minimum of 1 is required.")
        self.feature_names_in_ = np.asarray(frame.columns, dtype=object)
        self.n_features_in_ = frame.shape[1]
        columns = column_arrays(frame)
        numeric = [pd.api.types.is_numeric_dtype(c.dtype) and not pd.api.types.is_bool_dtype(c.dtype) for c in columns]
        target = None if y is None else np.asarray(y)
        if target is not None and len(target) != len(frame):
            raise ValueError(f"X has {len(frame)} rows but y has {len(target)}")
        found = iter(self._cut_points_of([_numbers(columns[j], frame.columns, j) for j in np.flatnonzero(numeric)], target))
        self.cut_points_ = [next(found) if is_numeric else None for is_numeric in numeric]
        # one dtype per column, made once: every transform's output shares it, so a model fitted
        # downstream recognises its own domain without comparing the labels
        self._interval_dtypes = [None if cuts is None else _interval_dtype(np.asarray(cuts, dtype=float).tobytes()) for cuts in self.cut_points_]
        return self

    def _cut_points_of(self, columns: list[np.ndarray], y) -> list[np.ndarray]:
        """The ascending cut points of each of these numeric columns (floats, NaN where missing)."""
        return [self._cut_points(values, y) for values in columns]

    def transform(self, X):
        check_is_fitted(self, "cut_points_")
        frame = _as_frame(X)
        if frame.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {frame.shape[1]} features, but {type(self).__name__} is expecting {self.n_features_in_} features as input")
        columns = column_arrays(frame)
        for j, cuts in enumerate(self.cut_points_):
            if cuts is not None:
                values = _numbers(columns[j], frame.columns, j)
                codes = np.searchsorted(cuts, values, side="left")  # first cut ≥ x: x ≤ c goes left
                codes[np.isnan(values)] = -1
                columns[j] = pd.Categorical.from_codes(codes, dtype=self._interval_dtypes[j], validate=False)  # in range by construction
        # the frame straight from its columns: DataFrame(dict) would check every column again and
        # build a new Index of the names (as long as discretising a small fold)
        return pd.DataFrame._from_arrays(columns, columns=frame.columns, index=frame.index, verify_integrity=False)

    def get_feature_names_out(self, input_features=None):
        return self.feature_names_in_


def _as_frame(X) -> pd.DataFrame:
    """A DataFrame; an array of numbers-as-objects becomes numeric, other objects stay as they are."""
    if isinstance(X, pd.DataFrame):
        return X
    if sp.issparse(X):
        raise TypeError("sparse input is not supported: discretizers take a dense array or a DataFrame")
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(f"Expected a 2-D X (rows × columns), got shape {array.shape}. Reshape your data")
    if np.iscomplexobj(array):
        raise ValueError("Complex data not supported: X must be real numbers or labels")
    if array.dtype == object:
        try:
            array = array.astype(float)
        except TypeError as error:
            raise TypeError(f"X has a value that is neither a number nor a label ({error}): argument must be a string or a number") from None
        except ValueError:
            pass  # labels: the columns pass through unchanged
    return pd.DataFrame(array)


def _numbers(column, names: pd.Index, j: int) -> np.ndarray:
    """Column ``j`` as floats, NaN where missing; ±inf is an error that names the column (looked
    up only then: indexing an Index of strings costs more than converting the column)."""
    values = np.asarray(column, dtype=float) if isinstance(column, np.ndarray) else column.to_numpy(dtype=float)
    if np.isinf(values).any():
        raise ValueError(f"column {names[j]!r} has an infinite value (NaN or inf): a missing value must be NaN")
    return values


class _BinnedDiscretizer(_Discretizer):
    """A discretizer with a number of bins."""

    def __init__(self, n_bins=10):
        self.n_bins = n_bins

    def _checked_n_bins(self) -> int:
        if not (isinstance(self.n_bins, (int, np.integer)) and self.n_bins >= 1):
            raise ValueError(f"n_bins must be an integer ≥ 1, got {self.n_bins!r}")
        return int(self.n_bins)


class EqualWidthDiscretizer(_BinnedDiscretizer):
    """``n_bins`` equal-width intervals over the training range of each numeric column."""

    def _cut_points(self, values, y):
        n_bins = self._checked_n_bins()
        low, high = np.nanmin(values), np.nanmax(values)
        if not np.isfinite(low) or high == low:
            return np.array([])
        return low + (high - low) * np.arange(1, n_bins) / n_bins


class EqualFrequencyDiscretizer(_BinnedDiscretizer):
    """``n_bins`` intervals holding about equally many training values (quantile cuts)."""

    def _cut_points(self, values, y):
        n_bins = self._checked_n_bins()
        present = values[~np.isnan(values)]
        if present.size == 0:
            return np.array([])
        cuts = np.unique(np.quantile(present, np.arange(1, n_bins) / n_bins))
        return cuts[cuts < present.max()]  # a cut at the maximum would leave an empty last bin


def _x_ln_x(n: int) -> np.ndarray:
    """m ln m for every count m = 0..n (0 ln 0 = 0), the terms of Weka's entropy of counts: the MDL
    search looks every count up instead of taking a logarithm per cut."""
    m = np.arange(n + 1.0)
    return m * np.log(np.where(m < 1, 1.0, m))


@functools.lru_cache(maxsize=16)
def _log2_class_cost(n_classes: int) -> np.ndarray:
    """log2(3^k − 2) for k = 0..n_classes, the MDL cost of the classes on the two sides of a cut
    (Python's 3.0**k: numpy's power can round 3^k differently once it passes 2^53)."""
    return np.array([0.0] + [np.log2(3.0**k - 2) for k in range(1, n_classes + 1)])


_LN2 = np.log(2)


class MDLDiscretizer(_Discretizer):
    """Supervised Fayyad–Irani MDL discretisation, as Weka's supervised Discretize.

    Weka's recursive ``cutPointsForSubset`` on each column's sorted rows, computed breadth-first
    on the distinct values of all columns at once. Every column is sorted once and its class
    counts accumulated per distinct value (``cum[g]``: the counts of the values before the g-th),
    so the rows of a subset [g0, g1) of distinct values left of a cut before value g count
    ``cum[g] − cum[g0]``; a cut between two equal values is no candidate, so only the boundaries
    between distinct values are scored. One round scores every candidate cut of every open subset
    in a few array operations: the conditional entropy (n_L H(left) + n_R H(right)) / n with
    H(c) = (n ln n − Σ c ln c) / (n ln 2) (Weka's: terms of a zero count are 0). The first
    strictly smallest of a subset is its best cut, kept when its gain beats the MDL cost
    (log2(n − 1) + log2(3^k − 2) − [k H − k_L H(left) − k_R H(right)]) / n, k counting the
    classes present; a kept cut opens both its sides for the next round.
    """

    def fit(self, X, y=None):
        if y is None:
            raise ValueError("MDLDiscretizer is supervised: fit(X, y) needs the class labels y")
        # class indices found once for every column: a Categorical's codes (their declared order,
        # Weka's class order; factorize costs 27 µs, a tenth of a small fold's discretisation),
        # else in order of appearance
        if isinstance(y, pd.Series) and isinstance(y.dtype, pd.CategoricalDtype):
            classes = categorical_codes(y.array).astype(np.intp)
        else:
            classes = pd.factorize(y if isinstance(y, pd.Series) else np.asarray(y, dtype=object))[0]
        if (classes < 0).any():
            raise ValueError("y has missing labels; MDL discretisation needs every row's class")
        return super().fit(X, classes)

    def _cut_points_of(self, columns, y):
        # the columns searched together, as many at a time as make about _BATCH_VALUES values:
        # the search's arrays stay that size however wide the data
        per_batch = max(1, _BATCH_VALUES // len(y))
        return [cuts for i in range(0, len(columns), per_batch) for cuts in _mdl_cut_points(columns[i : i + per_batch], y)]


_BATCH_VALUES = 1 << 20


def _mdl_cut_points(columns: list[np.ndarray], y: np.ndarray) -> list[np.ndarray]:
    """Each column's MDL cut points, ascending: rounds of ``_best_mdl_cuts`` on the open subsets
    of all the columns' distinct values until no subset is left to split."""
    distinct, cum, segments, offsets = _distinct_class_counts(np.vstack(columns), y)
    x_ln_x, class_cost = _x_ln_x(len(y)), _log2_class_cost(len(cum) - 1)
    cuts = [np.array([], dtype=np.intp)]  # the distinct value right of each kept cut
    while len(segments):
        chosen = _best_mdl_cuts(cum, segments, x_ln_x, class_cost)
        kept = segments[chosen >= 0]
        split = chosen[chosen >= 0]
        cuts.append(split)
        segments = np.concatenate((np.column_stack((kept[:, 0], split)), np.column_stack((split, kept[:, 1]))))
        segments = segments[segments[:, 1] - segments[:, 0] >= 2]
    after = np.sort(np.concatenate(cuts))
    values = (distinct[after - 1] + distinct[after]) / 2.0
    return np.split(values, np.searchsorted(after, offsets[1:-1]))


def _distinct_class_counts(values: np.ndarray, y: np.ndarray):
    """Each column (a row of ``values``) sorted, its present values grouped by distinct value and
    the groups of all columns numbered in one sequence. Returns the distinct values; ``cum``, the
    class counts (one row per class, then a row counting rows) before each group; the [first, end)
    groups of each column with at least two distinct values; the first group of each column and
    the end."""
    n_classes = int(y.max()) + 1
    order = np.argsort(values, axis=1)  # NaN sorts last: a column's present values come first
    # one take at flat positions (take_along_axis builds broadcast index arrays: twice as long)
    sorted_values = values.ravel().take(order + (np.arange(len(values)) * values.shape[1])[:, None])
    present = ~np.isnan(sorted_values)
    first = np.empty(values.shape, dtype=bool)  # the first row of a distinct value
    first[:, 0] = True
    np.not_equal(sorted_values[:, 1:], sorted_values[:, :-1], out=first[:, 1:])
    first &= present
    group = np.cumsum(first) - 1  # each row's distinct value, numbered across the columns
    offsets = np.concatenate(([0], np.cumsum(np.count_nonzero(first, axis=1))))
    cum = np.zeros((n_classes + 1, offsets[-1] + 1), dtype=np.intp)
    counts = np.bincount(y[order][present] * offsets[-1] + group[present.ravel()], minlength=n_classes * offsets[-1])
    np.cumsum(counts.reshape(n_classes, -1), axis=1, out=cum[:-1, 1:])
    cum[-1] = cum[:-1].sum(axis=0)
    segments = np.column_stack((offsets[:-1], offsets[1:]))
    return sorted_values[first], cum, segments[segments[:, 1] - segments[:, 0] >= 2], offsets


def _best_mdl_cuts(cum, segments, x_ln_x, class_cost) -> np.ndarray:
    """Weka's cutPointsForSubset on each subset [g0, g1) of distinct values (rows of
    ``segments``, each with ≥ 2 values): the group right of its accepted cut, or −1."""
    g0, g1 = segments.T
    n_candidates = g1 - g0 - 1
    owner = np.repeat(np.arange(len(segments)), n_candidates)
    start = np.cumsum(n_candidates) - n_candidates  # each subset's first candidate
    g0_owner = g0[owner]
    cut = np.arange(len(owner)) + (g0_owner + 1 - start[owner])  # the group right of each candidate
    m = len(cut)
    # class and row counts of every cut's left and right side and of every whole subset (the
    # columns), and their entropies in one operation; the classes' terms summed in order, as Weka
    sides = np.take(cum, np.concatenate((cut, g1[owner], g1)), axis=1) - np.take(cum, np.concatenate((g0_owner, cut, g0)), axis=1)
    terms = x_ln_x[sides]
    class_terms = terms[0]
    for row in terms[1:-1]:
        class_terms = class_terms + row
    entropy = (terms[-1] - class_terms) / (sides[-1] * _LN2)
    n = sides[-1, 2 * m :]
    conditional = (sides[-1, :m] * entropy[:m] + sides[-1, m : 2 * m] * entropy[m : 2 * m]) / n[owner]
    # the first strictly smallest of each subset: argmin's choice
    smallest = np.flatnonzero(conditional == np.minimum.reduceat(conditional, start)[owner])
    best = smallest[np.concatenate(([True], owner[smallest[1:]] != owner[smallest[:-1]]))]
    best_entropy, prior_entropy = conditional[best], entropy[2 * m :]
    k, k_left, k_right = np.count_nonzero(sides[:-1, np.concatenate((np.arange(2 * m, len(entropy)), best, m + best))], axis=0).reshape(3, -1)
    delta = class_cost[k] - (k * prior_entropy - k_right * entropy[m + best] - k_left * entropy[best])
    accepted = (best_entropy < prior_entropy) & (prior_entropy - best_entropy > (np.log2(n - 1) + delta) / n)
    return np.where(accepted, cut[best], -1)
