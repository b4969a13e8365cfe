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
import math

import numpy as np
import pandas as pd
import scipy.sparse as sp
from pandas._libs.internals import BlockPlacement
from pandas.core.internals.blocks import ExtensionBlock, ensure_block_shape, new_block_2d
from pandas.core.internals.managers import BlockManager
from sklearn.base import BaseEstimator, TransformerMixin

from pgm_models._utils import jit
from pgm_models._utils.frames import categorical_codes, column_arrays, index_values
from pgm_models._utils.param_names import ParamNamesOnce
from pgm_models._utils.validation import check_fitted


def _interval_labels(cuts) -> list[str]:
    """Weka's interval names, cut points rounded to 6 decimals — unless that merges two cut
    points or rounds one to 0 (small-scale data), then each cut point's shortest exact decimal,
    so that the labels stay distinct and true (Python's shortest repr of the float).
    """
    text = [np.format_float_positional(round(c, 6), trim="-") for c in cuts]
    if len(set(text)) < len(text) or any(c != 0 and round(c, 6) == 0 for c in cuts):
        text = [repr(float(c)) for c in cuts]
    if not text:
        return ["All"]
    return [f"(-inf-{text[0]}]"] + [f"({a}-{b}]" for a, b in zip(text[:-1], text[1:])] + [f"({text[-1]}-inf)"]


@functools.lru_cache(maxsize=256)
def _intervals_template(cuts: bytes) -> pd.Categorical:
    """An empty Categorical of the intervals between these cut points (float64 bytes: -0.0 and
    0.0 stay apart); a transform's column is made from it with its codes. Its dtype is shared by
    every fit that finds the same cut points: dtypes are immutable, building one from strings
    costs more than finding a fold's cut points, and cross-validation finds the same intervals
    again (a column without a cut, refits of a fold).
    """
    dtype = pd.CategoricalDtype(_interval_labels(np.frombuffer(cuts).tolist()))
    return pd.Categorical._simple_new(np.empty(0, dtype=np.int8), dtype)  # codes of pandas' width for these categories


class _Discretizer(ParamNamesOnce, TransformerMixin, BaseEstimator):
    """Fit cut points per numeric column (``_cut_points``, or ``_cut_points_of`` for all
    columns at once), then map values to intervals.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # a missing value stays missing
        return tags

    def fit(self, X, y=None):
        self._fit(X, y)
        return self

    def fit_transform(self, X, y=None):
        # the training rows' intervals from the values the fit read (TransformerMixin's fit then
        # transform would read and check the frame twice)
        return self._intervals(*self._fit(X, y))

    def _fit(self, X, y):
        """Fit; returns the frame, its columns' arrays and its numeric columns' values."""
        frame = _as_frame(X)
        if frame.shape[1] == 0:
            raise ValueError(f"X has 0 feature(s) (shape={frame.shape}) while a minimum of 1 is required.")
        if frame.shape[0] == 0:
            raise ValueError(f"X has 0 sample(s) (shape={frame.shape}) while a minimum of 1 is required.")
        self.feature_names_in_ = index_values(frame.columns).astype(object)  # the names converted once per Index
        self.n_features_in_ = frame.shape[1]
        self._fitted_columns = frame.columns if isinstance(X, pd.DataFrame) else None
        columns = column_arrays(frame)
        self._numeric = [j for j, column in enumerate(columns) if _is_numeric(column.dtype)]
        target = None if y is None else np.asarray(y)
        if target is not None and len(target) != len(frame):
            raise ValueError(f"X has {len(frame)} rows but y has {len(target)}")
        values = _numbers(columns, self._numeric, frame.columns)
        self.cut_points_ = [None] * len(columns)
        for j, cuts in zip(self._numeric, self._cut_points_of(values, target)):
            self.cut_points_[j] = cuts
        found = [np.asarray(self.cut_points_[j], dtype=float) for j in self._numeric]
        # one dtype per column, made once: every transform's output shares it, so a model fitted
        # downstream recognises its own domain without comparing the labels
        self._templates = [_intervals_template(cuts.tobytes()) for cuts in found]
        # the cut points end to end, for the compiled interval codes; the codes' width is pandas'
        # for the most intervals (int8 below 127: no copy into the Categoricals)
        self._cuts = np.concatenate(found) if found else np.empty(0)
        self._cut_ends = np.array([len(cuts) for cuts in found], dtype=np.intp).cumsum()
        self._codes_dtype = max(
            (categorical_codes(empty).dtype for empty in self._templates),
            key=lambda dtype: dtype.itemsize,
            default=np.dtype(np.int8),
        )
        return frame, columns, values

    def _cut_points_of(self, values: np.ndarray, y) -> list[np.ndarray]:
        """The ascending cut points of each row of ``values`` (a numeric column's floats, NaN where missing)."""
        return [self._cut_points(row, y) for row in values]

    def transform(self, X):
        check_fitted(self, "cut_points_")
        frame = self._by_name(X) if isinstance(X, pd.DataFrame) else _as_frame(X)
        if frame.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {frame.shape[1]} features, but {type(self).__name__} is expecting {self.n_features_in_} features as input"
            )
        columns = column_arrays(frame)
        return self._intervals(frame, columns, _numbers(columns, self._numeric, frame.columns))

    def _by_name(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame``'s columns in the fitted order, matched by name when fit read a DataFrame (the
        cut points belong to names, not to positions): the fitted names in another order are
        reordered, as the models match them; a name unseen in fit or a fitted one missing is an
        error that names it. An array, or a frame after a fit on an array, goes by position.
        """
        fitted = self._fitted_columns
        if fitted is None or frame.columns.is_(fitted) or frame.columns.equals(fitted):
            return frame
        unseen = [name for name in frame.columns if name not in fitted]
        missing = [name for name in fitted if name not in frame.columns]
        if unseen or missing:
            raise ValueError(
                "The feature names should match those that were passed during fit: "
                + "; ".join(
                    f"{what} {names}"
                    for what, names in (
                        ("unseen at fit time:", unseen),
                        ("seen at fit time, yet now missing:", missing),
                    )
                    if names
                )
            )
        if not (fitted.is_unique and frame.columns.is_unique):
            raise ValueError(
                f"columns that share a name cannot be matched by name: pass them in the fitted order {list(fitted)}"
            )
        return frame[list(fitted)]

    def _intervals(self, frame, columns, values):
        """The frame with each numeric column (a row of ``values``) replaced by its intervals."""
        columns = list(columns)
        codes = self._interval_codes(values)
        for row, (j, empty) in enumerate(zip(self._numeric, self._templates)):
            # codes in range by construction: pandas' constructors would check them and the dtype again
            columns[j] = empty._from_backing_data(codes[row].astype(categorical_codes(empty).dtype, copy=False))
        return _frame(columns, frame.columns, frame.index)

    def _interval_codes(self, values):
        """Each value's interval (a row of ``values`` per numeric column): the number of its
        column's cut points below it (the first cut ≥ x: x ≤ c goes left), −1 where missing.
        Compiled once numba is loaded in the process (``pgm_models._utils.jit.loaded``), else NumPy's
        searchsorted column by column: the same codes.
        """
        codes = np.empty(values.shape, dtype=self._codes_dtype)
        if jit.loaded() and len(values):
            from pgm_models.preprocessing._kernels import interval_codes

            interval_codes(values, self._cuts, self._cut_ends, codes)
            return codes
        for row, (start, end) in enumerate(zip([0, *self._cut_ends[:-1].tolist()], self._cut_ends.tolist())):
            # the fitted cut points, as the compiled codes read them
            codes[row] = np.searchsorted(self._cuts[start:end], values[row], side="left")
        codes[np.isnan(values)] = -1
        return codes

    def get_feature_names_out(self, input_features=None):
        return self.feature_names_in_


def _frame(arrays, columns: pd.Index, index: pd.Index) -> pd.DataFrame:
    """A DataFrame of these 1-D column arrays, one block each, built straight from its blocks:
    ``DataFrame(dict)`` checks every column again and builds a new Index of the names, and even
    ``DataFrame._from_arrays`` sorts the arrays into blocks by dtype (together as long as
    discretising a small fold).
    """
    # a NumPy column passes through from the input: copied, since a block built here holds no
    # copy-on-write reference to the input's (writing to either frame would change the other)
    blocks = tuple(
        ExtensionBlock(array, place, 2)
        if isinstance(array, pd.Categorical)
        else new_block_2d(ensure_block_shape(array.copy(), ndim=2), place)
        for array, place in zip(arrays, _placements(len(arrays)))
    )
    manager = BlockManager(blocks, [columns, index], verify_integrity=False)
    return pd.DataFrame._from_mgr(manager, axes=manager.axes)


@functools.lru_cache(maxsize=64)
def _placements(n_columns: int) -> tuple:
    """Each column's block placement (immutable), made once per number of columns."""
    return tuple(BlockPlacement(slice(j, j + 1)) for j in range(n_columns))


def _is_numeric(dtype) -> bool:
    """A column that is discretised: numbers, not booleans (a NumPy dtype by its kind, cheaper
    than pandas' check of any dtype).
    """
    if isinstance(dtype, np.dtype):
        return dtype.kind in "iufc"
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


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
            raise TypeError(
                f"X has a value that is neither a number nor a label ({error}): argument must be a string or a number"
            ) from None
        except ValueError:
            pass  # labels: the columns pass through unchanged
    return pd.DataFrame(array)


def _numbers(columns, numeric: list[int], names: pd.Index) -> np.ndarray:
    """The ``numeric`` columns as the rows of one float array, NaN where missing; ±inf is an error
    that names the column (checked once for all the columns, looked up only then).
    """
    values = np.empty((len(numeric), len(columns[0]) if columns else 0))
    for row, j in enumerate(numeric):
        column = columns[j]
        values[row] = column if isinstance(column, np.ndarray) else column.to_numpy(dtype=float)
    infinite = np.isinf(values)
    if infinite.any():
        raise ValueError(
            f"column {names[numeric[infinite.any(axis=1).argmax()]]!r} has an infinite value (NaN or inf): a missing value must be NaN"
        )
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
    """Discretise numeric columns into bins of equal width.

    Each numeric column gets ``n_bins`` intervals of equal width between its training minimum and
    maximum; put it in a Pipeline before a categorical model so the cuts are fitted in each fold.

    Parameters
    ----------
    n_bins : int ≥ 1, default=10
        The number of intervals per numeric column.

    Attributes
    ----------
    cut_points_ : list
        The ascending cut points of each column (an ndarray), None for a non-numeric column.
    n_features_in_ : int
        The number of columns seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names (positions for an array).

    See Also
    --------
    EqualFrequencyDiscretizer : Bins of equally many training values.
    MDLDiscretizer : Supervised cut points.
    CategoricalNB : A model for the output.

    Notes
    -----
    The output has one pandas Categorical column per input column: a numeric column becomes the
    intervals "(-inf-c1]", "(c1-c2]", …, "(ck-inf)" (Weka's names), every interval declared as a
    category, so an interval a fold's training data never reaches still gets prior mass in a
    categorical model downstream. A value x goes to the first interval with x ≤ its upper cut.
    Missing values stay missing, and non-numeric columns pass through unchanged. The cut points are min + i (max − min)/n_bins, i = 1..n_bins − 1 (Weka's unsupervised
    Discretize).

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import EqualWidthDiscretizer
    >>> X = np.array([[0.0], [1.0], [2.5], [4.0]])
    >>> discretizer = EqualWidthDiscretizer(n_bins=2).fit(X)
    >>> discretizer.cut_points_
    [array([2.])]
    >>> discretizer.transform(X).iloc[:, 0].tolist()
    ['(-inf-2]', '(-inf-2]', '(2-inf)', '(2-inf)']
    """

    def _cut_points(self, values, y):
        n_bins = self._checked_n_bins()
        low, high = np.nanmin(values), np.nanmax(values)
        if not np.isfinite(low) or high == low:
            return np.array([])
        with np.errstate(over="ignore"):
            width = high - low
        if np.isinf(width):  # a range beyond the largest float: weighted ends stay finite
            share = np.arange(1, n_bins) / n_bins
            return low * (1 - share) + high * share
        return low + width * np.arange(1, n_bins) / n_bins


class EqualFrequencyDiscretizer(_BinnedDiscretizer):
    """Discretise numeric columns into bins of about equally many training values.

    Each numeric column is cut at its training quantiles i/``n_bins`` (repeated cut points
    merged); put it in a Pipeline before a categorical model so the cuts are fitted in each fold.

    Parameters
    ----------
    n_bins : int ≥ 1, default=10
        The number of intervals per numeric column (fewer where cut points coincide).

    Attributes
    ----------
    cut_points_ : list
        The ascending cut points of each column (an ndarray), None for a non-numeric column.
    n_features_in_ : int
        The number of columns seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names (positions for an array).

    See Also
    --------
    EqualWidthDiscretizer : Bins of equal width.
    MDLDiscretizer : Supervised cut points.

    Notes
    -----
    The output has one pandas Categorical column per input column: a numeric column becomes the
    intervals "(-inf-c1]", "(c1-c2]", …, "(ck-inf)" (Weka's names), every interval declared as a
    category, so an interval a fold's training data never reaches still gets prior mass in a
    categorical model downstream. A value x goes to the first interval with x ≤ its upper cut.
    Missing values stay missing, and non-numeric columns pass through unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import EqualFrequencyDiscretizer
    >>> X = np.array([[1.0], [2.0], [3.0], [10.0], [20.0], [30.0]])
    >>> discretizer = EqualFrequencyDiscretizer(n_bins=2).fit(X)
    >>> discretizer.cut_points_
    [array([6.5])]
    >>> discretizer.transform(X).iloc[:, 0].value_counts().sort_index().tolist()
    [3, 3]
    """

    def _cut_points(self, values, y):
        n_bins = self._checked_n_bins()
        present = values[~np.isnan(values)]
        if present.size == 0:
            return np.array([])
        cuts = np.unique(np.quantile(present, np.arange(1, n_bins) / n_bins))
        return cuts[cuts < present.max()]  # a cut at the maximum would leave an empty last bin


_LN2 = np.log(2)


@functools.lru_cache(maxsize=8)
def _mdl_tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    """M ln m (0 ln 0 = 0) and log2 m for every count m = 0..n, the terms of Weka's entropy of
    counts and of its MDL cost: the search looks every one up instead of taking a logarithm. Made
    once per number of rows (a cross-validation's folds have one or two) and read-only.
    """
    m = np.arange(n + 1.0)
    ln_m = np.log(np.where(m < 1, 1.0, m))
    # Weka's Utils.log2 is ln m / ln 2, which differs from log2 m in the last bit for many m
    tables = m * ln_m, ln_m / _LN2
    for table in tables:
        table.flags.writeable = False
    return tables


@functools.lru_cache(maxsize=16)
def _log2_class_cost(n_classes: int) -> np.ndarray:
    """log2(3^k − 2) for k = 0..n_classes, the MDL cost of the classes on the two sides of a cut
    (Python's 3.0**k: numpy's power can round 3^k differently once it passes 2^53), as Weka's Utils.log2: ln x / ln 2. From k = 600
    it is k log2 3, equal to double precision: 3.0**k overflows at k = 647, where Weka's
    ``Math.pow`` becomes infinite and so does its cost (Weka then keeps no cut); here the cost
    stays the finite number it is.
    """
    cost = np.array(
        [0.0] + [math.log(3.0**k - 2) / _LN2 if k < 600 else k * np.log2(3.0) for k in range(1, n_classes + 1)]
    )
    cost.flags.writeable = False
    return cost


class MDLDiscretizer(_Discretizer):
    r"""Supervised discretisation by Fayyad and Irani's MDL criterion, as Weka's supervised Discretize.

    Each numeric column is split recursively at the cut point of least class entropy, as long as
    the information gained beats the minimum-description-length cost of the cut; a column with no
    such cut becomes one interval ("All"). It reproduces the cut points of Weka 3.6's
    ``weka.filters.supervised.attribute.Discretize`` with its defaults. Put it in a Pipeline before
    a categorical model so the cuts are fitted in each fold.

    Attributes
    ----------
    cut_points_ : list
        The ascending cut points of each column (an ndarray), None for a non-numeric column.
    n_features_in_ : int
        The number of columns seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names (positions for an array).

    See Also
    --------
    EqualWidthDiscretizer, EqualFrequencyDiscretizer : Unsupervised cut points.
    CategoricalNB, AODE, TAN : Models for the output.

    Notes
    -----
    On each subset of a column's sorted distinct values, every cut halfway between two consecutive
    distinct values is scored by the conditional class entropy (n_L H(left) + n_R H(right))/n, with
    H(c) = (n ln n − Σ c ln c)/(n ln 2), each term added in Weka's order (so an exact tie between two
    cuts goes the way Weka's rounding sends it), and log2 x = ln x / ln 2 as Weka's. The first strictly smallest is the subset's best cut, kept
    when its gain beats the MDL cost

    .. math::

        \frac{\log_2(n - 1) + \log_2(3^k - 2) - [k H - k_L H(\mathrm{left}) - k_R H(\mathrm{right})]}{n},

    k counting the classes present; a kept cut splits both its sides again. The output has one pandas Categorical column per input column: a numeric column becomes the
    intervals "(-inf-c1]", "(c1-c2]", …, "(ck-inf)" (Weka's names), every interval declared as a
    category, so an interval a fold's training data never reaches still gets prior mass in a
    categorical model downstream. A value x goes to the first interval with x ≤ its upper cut.
    Missing values stay missing, and non-numeric columns pass through unchanged.

    Where Weka 3.6 gives no usable result this differs by design: the midpoint of two values beyond
    half the largest float is taken by halves (Weka's overflows to +inf, leaving an interval no value
    reaches); cut points that round to the same 6 decimals (values near 1e-12) get exact labels
    (Weka refuses to build the attribute); with 647 classes or more the cost log2(3^k − 2) stays
    finite (Weka's is infinite and keeps no cut).

    References
    ----------
    .. [1] U. M. Fayyad and K. B. Irani, "Multi-interval discretization of continuous-valued
       attributes for classification learning", *IJCAI-93*, 1022–1027, 1993.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import MDLDiscretizer
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0], [11.0], [12.0], [13.0], [14.0]])
    >>> y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> discretizer = MDLDiscretizer().fit(X, y)
    >>> discretizer.cut_points_
    [array([7.5])]
    >>> discretizer.transform(X).iloc[:, 0].cat.categories.tolist()
    ['(-inf-7.5]', '(7.5-inf)']
    """

    def _fit(self, X, y):
        if y is None:
            raise ValueError("MDLDiscretizer is supervised: fit(X, y) needs the class labels y")
        # class indices found once for every column: a Categorical's codes (their declared order,
        # Weka's class order; factorize is a noticeable share of a small fold's discretisation),
        # else in order of appearance
        if isinstance(y, pd.Series) and isinstance(y.dtype, pd.CategoricalDtype):
            classes = categorical_codes(y.array)  # int8 for a few classes: their stable argsort is faster
        else:
            classes = pd.factorize(y if isinstance(y, pd.Series) else np.asarray(y, dtype=object))[0]
        if (classes < 0).any():
            raise ValueError("y has missing labels; MDL discretisation needs every row's class")
        return super()._fit(X, classes)

    def _cut_points_of(self, values, y):
        if not len(values):
            return []
        if jit.loaded():
            return _compiled_mdl_cut_points(values, y)
        # in NumPy, the columns searched together, as many at a time as make about _BATCH_VALUES
        # values: the search's arrays stay that size however wide the data
        per_batch, y = max(1, _BATCH_VALUES // len(y)), y.astype(np.intp, copy=False)
        return [
            cuts for i in range(0, len(values), per_batch) for cuts in _mdl_cut_points(values[i : i + per_batch], y)
        ]


def _compiled_mdl_cut_points(values: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    """Each column's (row of ``values``) MDL cut points, ascending, by the compiled search."""
    from pgm_models.preprocessing._kernels import mdl_cut_points

    # each column's values class by class (y's stable argsort), each class's run sorted in place,
    # NaN last: NumPy's SIMD sort of the values (faster than their argsort)
    class_ends = np.bincount(y).cumsum()
    by_class = values.take(np.argsort(y, kind="stable"), axis=1)
    ends = class_ends.tolist()
    for start, end in zip([0, *ends[:-1]], ends):
        by_class[:, start:end].sort(axis=1)
    cuts, n_cuts = mdl_cut_points(by_class, class_ends, *_mdl_tables(len(y)), _log2_class_cost(len(ends)), _LN2)
    ends = n_cuts.cumsum().tolist()
    return [cuts[end - n : end] for n, end in zip(n_cuts.tolist(), ends)]


_BATCH_VALUES = 1 << 20


def _mdl_cut_points(values: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    """Each column's (row of ``values``) MDL cut points, ascending, in NumPy: rounds of
    ``_best_mdl_cuts`` on the open subsets of all the columns' distinct values until no subset is
    left to split.
    """
    distinct, cum, segments, offsets = _distinct_class_counts(values, y)
    x_ln_x, class_cost = _mdl_tables(len(y))[0], _log2_class_cost(len(cum) - 1)
    cuts = [np.array([], dtype=np.intp)]  # the distinct value right of each kept cut
    while len(segments):
        chosen = _best_mdl_cuts(cum, segments, x_ln_x, class_cost)
        kept = segments[chosen >= 0]
        split = chosen[chosen >= 0]
        cuts.append(split)
        segments = np.concatenate((np.column_stack((kept[:, 0], split)), np.column_stack((split, kept[:, 1]))))
        segments = segments[segments[:, 1] - segments[:, 0] >= 2]
    after = np.sort(np.concatenate(cuts))
    below, above = distinct[after - 1], distinct[after]
    with np.errstate(over="ignore"):
        midpoints = (below + above) / 2.0
    overflowed = np.isinf(midpoints)  # two values beyond half the largest float: halves first
    midpoints[overflowed] = below[overflowed] / 2.0 + above[overflowed] / 2.0
    return np.split(midpoints, np.searchsorted(after, offsets[1:-1]))


def _distinct_class_counts(values: np.ndarray, y: np.ndarray):
    """Each column (a row of ``values``) sorted, its present values grouped by distinct value and
    the groups of all columns numbered in one sequence. Returns the distinct values; ``cum``, the
    class counts (one row per class, then a row counting rows) before each group; the [first, end)
    groups of each column with at least two distinct values; the first group of each column and
    the end.
    """
    n_classes = int(y.max()) + 1
    order = np.argsort(values, axis=1)  # NaN sorts last: a column's present values come first
    # one take at flat positions (take_along_axis builds broadcast index arrays, which is slower)
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
    ``segments``, each with ≥ 2 values): the group right of its accepted cut, or −1.
    """
    g0, g1 = segments.T
    n_candidates = g1 - g0 - 1
    owner = np.repeat(np.arange(len(segments)), n_candidates)
    start = np.cumsum(n_candidates) - n_candidates  # each subset's first candidate
    g0_owner = g0[owner]
    cut = np.arange(len(owner)) + (g0_owner + 1 - start[owner])  # the group right of each candidate
    m = len(cut)
    # class and row counts of every cut's left and right side and of every whole subset (the
    # columns), and their entropies in one operation; the classes' terms summed in order, as Weka
    sides = np.take(cum, np.concatenate((cut, g1[owner], g1)), axis=1) - np.take(
        cum, np.concatenate((g0_owner, cut, g0)), axis=1
    )
    terms = x_ln_x[sides]
    class_terms = terms[0]
    for row in terms[1:-1]:
        class_terms = class_terms + row
    entropy = (terms[-1] - class_terms) / (sides[-1] * _LN2)
    n = sides[-1, 2 * m :]
    # Weka's entropyConditionedOnRows in its order (+ the left classes' terms, − n_L ln n_L, + the
    # right classes' terms, − n_R ln n_R): (n_L H(L) + n_R H(R))/n rounds differently, and an exact
    # tie between two cuts then goes to the other one
    running = class_terms[:m] - terms[-1, :m]
    for row in terms[:-1, m : 2 * m]:
        running = running + row
    conditional = -(running - terms[-1, m : 2 * m]) / (n[owner] * _LN2)
    # the first strictly smallest of each subset: argmin's choice
    smallest = np.flatnonzero(conditional == np.minimum.reduceat(conditional, start)[owner])
    best = smallest[np.concatenate(([True], owner[smallest[1:]] != owner[smallest[:-1]]))]
    best_entropy, prior_entropy = conditional[best], entropy[2 * m :]
    k, k_left, k_right = np.count_nonzero(
        sides[:-1, np.concatenate((np.arange(2 * m, len(entropy)), best, m + best))], axis=0
    ).reshape(3, -1)
    delta = class_cost[k] - (k * prior_entropy - k_right * entropy[m + best] - k_left * entropy[best])
    accepted = (best_entropy < prior_entropy) & (prior_entropy - best_entropy > (np.log(n - 1) / _LN2 + delta) / n)
    return np.where(accepted, cut[best], -1)
