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
def _interval_dtype(labels: tuple[str, ...]) -> pd.CategoricalDtype:
    """The Categorical dtype of these intervals, shared by every fit that finds the same ones
    (dtypes are immutable; building one from strings costs more than finding a fold's cut points,
    and cross-validation finds the same intervals again: a column without a cut, refits of a fold)."""
    return pd.CategoricalDtype(labels)


class _Discretizer(TransformerMixin, BaseEstimator):
    """Fit cut points per numeric column (``_cut_points``), then map values to intervals."""

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
        numeric = [pd.api.types.is_numeric_dtype(d) and not pd.api.types.is_bool_dtype(d) for d in frame.dtypes]
        target = None if y is None else np.asarray(y)
        if target is not None and len(target) != len(frame):
            raise ValueError(f"X has {len(frame)} rows but y has {len(target)}")
        self.cut_points_ = [
            self._cut_points(_numbers(column, frame.columns[j]), target) if numeric[j] else None
            for j, column in enumerate(_column_arrays(frame))
        ]
        # one dtype per column, made once: every transform's output shares it, so a model fitted
        # downstream recognises its own domain without comparing the labels
        self._interval_dtypes = [None if cuts is None else _interval_dtype(tuple(_interval_labels(cuts))) for cuts in self.cut_points_]
        return self

    def transform(self, X):
        check_is_fitted(self, "cut_points_")
        frame = _as_frame(X)
        if frame.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {frame.shape[1]} features, but {type(self).__name__} is expecting {self.n_features_in_} features as input")
        columns = {}
        for j, (name, column) in enumerate(zip(frame.columns, _column_arrays(frame))):
            cuts = self.cut_points_[j]
            if cuts is None:
                columns[name] = column
                continue
            values = _numbers(column, name)
            codes = np.searchsorted(cuts, values, side="left")  # first cut ≥ x: x ≤ c goes left
            codes = np.where(np.isnan(values), -1, codes)
            columns[name] = pd.Categorical.from_codes(codes, dtype=self._interval_dtypes[j], validate=False)  # in range by construction
        return pd.DataFrame(columns, index=frame.index)

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


def _column_arrays(frame: pd.DataFrame) -> list:
    """The columns' own arrays: pandas' column iterator builds no Series (a Series per column
    costs more than discretising a small fold)."""
    return list(frame._iter_column_arrays())


def _numbers(column, name) -> np.ndarray:
    """A column as floats, NaN where missing; ±inf is an error that names the column."""
    values = np.asarray(column, dtype=float) if isinstance(column, np.ndarray) else column.to_numpy(dtype=float)
    if np.isinf(values).any():
        raise ValueError(f"column {name!r} has an infinite value (NaN or inf): a missing value must be NaN")
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


@functools.lru_cache(maxsize=16)
def _x_ln_x(n: int) -> np.ndarray:
    """m ln m for every count m = 0..n (0 ln 0 = 0), the terms of Weka's entropy of counts: the MDL
    search looks every count up instead of taking a logarithm per cut (read-only: it is shared)."""
    m = np.arange(n + 1.0)
    table = m * np.log(np.where(m < 1, 1.0, m))
    table.flags.writeable = False
    return table


_LN2 = np.log(2)


class MDLDiscretizer(_Discretizer):
    """Supervised Fayyad–Irani MDL discretisation, as Weka's supervised Discretize.

    Weka's ``cutPointsForSubset`` on the sorted rows, computed on the distinct values: each
    column is sorted once and its class counts accumulated per distinct value (``cum[g]``: the
    counts of the values below the g-th), so the rows of a subset [g0, g1) left of the cut after
    value g count ``cum[g + 1] − cum[g0]``. A cut between two equal values is no candidate, so
    only the distinct values' boundaries are scored; the conditional entropy
    (n_L H(left) + n_R H(right)) / n of all of them comes from one array operation, with
    H(c) = (n ln n − Σ c ln c) / (n ln 2) (Weka's: terms of a zero count are 0). The first
    strictly smallest is the best cut; it is kept when its gain beats the MDL cost
    (log2(n − 1) + log2(3^k − 2) − [k H − k_L H(left) − k_R H(right)]) / n, k counting the
    classes present, and both sides are split again.
    """

    def fit(self, X, y=None):
        if y is None:
            raise ValueError("MDLDiscretizer is supervised: fit(X, y) needs the class labels y")
        labels = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y, dtype=object)
        if pd.isna(labels).any():
            raise ValueError("y has missing labels; MDL discretisation needs every row's class")
        return super().fit(X, pd.factorize(labels)[0])  # class indices, found once for every column

    def _cut_points(self, values, y):
        order = np.argsort(values)  # NaN sorts last: the present values come first
        n = len(values) - int(np.count_nonzero(np.isnan(values)))
        if n < 2:
            return np.array([])
        order = order[:n]
        sorted_values = values[order]
        new = sorted_values[1:] != sorted_values[:-1]  # a boundary between distinct values
        distinct = np.append(sorted_values[:-1][new], sorted_values[-1])
        group = np.concatenate(([0], np.cumsum(new)))  # each sorted row's distinct value
        n_classes = int(y.max()) + 1
        counts = np.bincount(group * n_classes + y[order], minlength=len(distinct) * n_classes)
        cum = np.zeros((len(distinct) + 1, n_classes), dtype=np.intp)
        np.cumsum(counts.reshape(len(distinct), n_classes), axis=0, out=cum[1:])
        return np.array(_mdl_cuts(distinct, cum, cum.sum(axis=1), _x_ln_x(n), 0, len(distinct)))


def _mdl_cuts(distinct, cum, rows, x_ln_x, g0, g1) -> list[float]:
    """Weka's cutPointsForSubset on the rows of the distinct values [g0, g1): ``cum`` and
    ``rows`` are the class and row counts below each distinct value (see MDLDiscretizer)."""
    if g1 - g0 < 2:
        return []
    m = g1 - g0 - 1  # candidate cuts: after each distinct value but the last
    n = int(rows[g1] - rows[g0])
    prior = cum[g1] - cum[g0]
    inner = cum[g0 + 1 : g1]
    n_left = rows[g0 + 1 : g1] - rows[g0]
    # the entropies of both sides of every cut and of the whole subset (last row) in one operation
    sides = np.concatenate((inner - cum[g0], cum[g1] - inner, prior[None]))
    totals = np.concatenate((n_left, n - n_left, [n]))
    entropy = (x_ln_x[totals] - x_ln_x[sides].sum(axis=1)) / (totals * _LN2)
    conditional = (n_left * entropy[:m] + (n - n_left) * entropy[m:-1]) / n
    best = int(np.argmin(conditional))
    best_entropy, prior_entropy = float(conditional[best]), float(entropy[-1])
    if not best_entropy < prior_entropy:
        return []
    k, k_left, k_right = np.count_nonzero(sides[[-1, best, m + best]], axis=1).tolist()
    delta = np.log2(3.0**k - 2) - (k * prior_entropy - k_right * float(entropy[m + best]) - k_left * float(entropy[best]))
    if not prior_entropy - best_entropy > (np.log2(n - 1) + delta) / n:
        return []
    split = g0 + best + 1
    cut = (float(distinct[split - 1]) + float(distinct[split])) / 2.0
    return _mdl_cuts(distinct, cum, rows, x_ln_x, g0, split) + [cut] + _mdl_cuts(distinct, cum, rows, x_ln_x, split, g1)
