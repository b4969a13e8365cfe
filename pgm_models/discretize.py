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
        self._interval_dtypes = [None if cuts is None else pd.CategoricalDtype(_interval_labels(cuts)) for cuts in self.cut_points_]
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
            columns[name] = pd.Categorical.from_codes(codes, dtype=self._interval_dtypes[j])
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


def _entropy_bits(counts: np.ndarray, total=None) -> np.ndarray:
    """Entropy in bits of class-count rows, as Weka computes it (x ln x, terms below 1e-6 are 0);
    ``total``: the rows' sums, when the caller knows them."""
    def x_log_x(x):
        return np.where(x < 1e-6, 0.0, x * np.log(np.where(x < 1e-6, 1.0, x)))

    total = counts.sum(axis=-1) if total is None else total
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (x_log_x(total) - x_log_x(counts).sum(axis=-1)) / (total * np.log(2))
    return np.where(total > 0, value, 0.0)


class MDLDiscretizer(_Discretizer):
    """Supervised Fayyad–Irani MDL discretisation, as Weka's supervised Discretize."""

    def fit(self, X, y=None):
        if y is None:
            raise ValueError("MDLDiscretizer is supervised: fit(X, y) needs the class labels y")
        labels = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y, dtype=object)
        if pd.isna(labels).any():
            raise ValueError("y has missing labels; MDL discretisation needs every row's class")
        return super().fit(X, pd.factorize(labels)[0])  # class indices, found once for every column

    def _cut_points(self, values, y):
        present = ~np.isnan(values)
        order = np.argsort(values[present], kind="stable")
        sorted_values = values[present][order]
        onehot = np.eye(y.max() + 1)[y[present][order]]
        return np.array(self._split(sorted_values, onehot, 0, len(sorted_values)))

    def _split(self, values, onehot, first, last):
        """Weka's cutPointsForSubset on the sorted rows [first, last)."""
        if last - first < 2:
            return []
        boundary = values[first : last - 1] < values[first + 1 : last]
        if not boundary.any():
            return []
        block = onehot[first:last]
        prior = block.sum(axis=0)
        left = np.cumsum(block, axis=0)[:-1]  # class counts of rows first..i, i < last − 1
        right = prior - left
        n = last - first
        n_left = np.arange(1.0, n)  # the rows' count on the left of each cut: the sums of the one-hot rows
        # the entropy of both sides of every cut in one array operation
        sides = _entropy_bits(np.concatenate([left, right]), np.concatenate([n_left, n - n_left]))
        conditional = (n_left * sides[: n - 1] + (n - n_left) * sides[n - 1 :]) / n
        prior_entropy = float(_entropy_bits(prior))
        candidates = np.where(boundary, conditional, np.inf)
        best = int(np.argmin(candidates))
        if not candidates[best] < prior_entropy:
            return []
        gain = prior_entropy - candidates[best]
        n_classes = np.count_nonzero(prior)
        n_left, n_right = np.count_nonzero(left[best]), np.count_nonzero(right[best])
        delta = np.log2(3.0**n_classes - 2) - (
            n_classes * prior_entropy - n_right * _entropy_bits(right[best]) - n_left * _entropy_bits(left[best])
        )
        if not gain > (np.log2(n - 1) + delta) / n:
            return []
        cut = (values[first + best] + values[first + best + 1]) / 2.0
        split = first + best + 1
        return self._split(values, onehot, first, split) + [cut] + self._split(values, onehot, split, last)
