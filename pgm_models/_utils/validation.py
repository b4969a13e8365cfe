"""Input checks shared by the estimators; every message names the offending value or column."""

from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import column_or_1d

from pgm_models._utils import jit, threads
from pgm_models._utils.frames import categorical_codes
from pgm_models._utils.weights import unit_weights


def is_finite_nonnegative(array: np.ndarray) -> bool:
    """Whether every entry is finite and ≥ 0: the smallest ≥ 0 (NaN fails it) and the largest
    finite, two reductions (full-size masks cost a small fit more), by the ufuncs themselves (the
    array methods' wrappers and NumPy's isfinite on a scalar cost as much as the reductions); a few
    entries (a class posterior's) as Python floats, cheaper there than one reduction.
    """
    if array.size <= 8:
        return all(0 <= value < math.inf for value in array.ravel().tolist())  # NaN fails 0 <= value
    return bool(np.minimum.reduce(array, axis=None, initial=np.inf) >= 0) and math.isfinite(
        np.maximum.reduce(array, axis=None, initial=0.0)
    )


def is_number(value) -> bool:
    """Whether ``value`` is one real number (a Python or NumPy int or float): not a string, None,
    a sequence or an array, so that a check's comparisons and ``np.isfinite`` are defined on it.
    """
    return isinstance(value, numbers.Real)


def check_fitted(estimator, attribute: str) -> None:
    """scikit-learn's ``check_is_fitted(estimator, attribute)``, its error and message, without
    reading the estimator's tags first (a fixed cost on every call of a small fold's predict_proba):
    given an attribute, scikit-learn's check is whether the estimator has it.
    """
    if not hasattr(estimator, attribute):
        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' with appropriate arguments before using this estimator."
        )


def check_concentration(value, name: str, length: int | None = None, length_name: str = "") -> np.ndarray:
    """A Dirichlet hyperparameter: a number ≥ 0, or one per item (``length`` of them)."""
    if type(value) in (float, int) and 0 <= value < math.inf:  # a plain number (NaN fails): no array to check
        return np.asarray(value, dtype=float)
    array = np.asarray(value, dtype=float) if not isinstance(value, str) else None
    if array is None or array.ndim > 1:
        raise ValueError(f"{name} must be a number ≥ 0 or a 1-D array of them, got {value!r}")
    if array.ndim == 1 and length is not None and array.shape[0] != length:
        raise ValueError(f"{name} has {array.shape[0]} entries; expected {length} (one per {length_name})")
    if not is_finite_nonnegative(array):
        raise ValueError(f"{name} must be finite and ≥ 0, got {value!r}")
    return array


def check_class_prior(prior, n_classes: int, name: str = "class_prior") -> np.ndarray | None:
    """A fixed class-probability vector (None passes): n_classes probabilities ≥ 0 summing to 1
    (within 1e-8), as a read-only float array.
    """
    if prior is None:
        return None
    try:
        values = np.array(prior, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a vector of class probabilities, got {prior!r}") from None
    if values.ndim != 1 or len(values) != n_classes:
        raise ValueError(f"{name} has shape {values.shape}; it needs one probability per class ({n_classes})")
    if not is_finite_nonnegative(values):
        raise ValueError(f"{name} must be finite and ≥ 0, got {values.tolist()}")
    if abs(values.sum() - 1.0) > 1e-8:
        raise ValueError(f"{name} must sum to 1, its entries sum to {float(values.sum())!r}")
    values.flags.writeable = False
    return values


def check_n_draws(n, name: str) -> int:
    """A number of posterior draws: a whole number ≥ 1."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"{name} must be a whole number ≥ 1 (how many posterior draws), got {n!r}")
    return int(n)


def check_sample_weight(sample_weight, n_rows: int) -> np.ndarray:
    """The rows' weights as a float array, finite and ≥ 0 and not all 0; ``unit_weights`` when none are given."""
    if sample_weight is None:
        return unit_weights(n_rows)
    weight = np.asarray(sample_weight, dtype=float)
    if weight.ndim == 0:
        weight = np.full(n_rows, float(weight))
    if weight.shape != (n_rows,):
        raise ValueError(f"sample_weight has shape {weight.shape}; expected ({n_rows},), one per row of X")
    bad = ~np.isfinite(weight) | (weight < 0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(f"sample_weight[{row}] = {weight[row]}: weights must be finite and ≥ 0")
    if n_rows and not weight.any():
        raise ValueError("sample_weight is zero for every row: there is nothing to learn from")
    return weight


def sorted_classes(classes) -> np.ndarray:
    """Class labels in sorted order, as scikit-learn's ``classes_``: its metrics and scorers
    (``log_loss``, ``neg_log_loss``, ``roc_auc_score``) read the probability columns in sorted
    label order, so a declared order (a Categorical's categories, ``classes=``) would misalign
    them. Labels of mixed types, which do not sort, keep the order given.
    """
    classes = np.asarray(classes)
    try:
        return np.sort(classes, kind="stable")
    except TypeError:
        return classes.copy()  # the estimator's own array, not the caller's (nor a cached one)


def check_labels(y, estimator=None, categorical: bool = False):
    """A 1-D label array with no missing label (a column vector is flattened with a warning).
    ``categorical``: a pandas Categorical Series comes back as its Categorical array, whose codes
    index its categories (looking the labels up costs more than fitting small data).
    """
    if y is None:
        raise ValueError(f"{type(estimator).__name__} requires y to be passed, but the target y is None")
    # a Categorical's own codes (its ``codes`` property makes a read-only view each time), read only
    codes = (
        categorical_codes(y.array) if isinstance(y, pd.Series) and isinstance(y.dtype, pd.CategoricalDtype) else None
    )
    if codes is not None and np.minimum.reduce(codes, initial=0) >= 0:  # a Categorical with no missing label (code −1)
        if categorical:
            return y.array
        # the categories once, then their codes: converting label by label costs more than fitting
        # small data, and looking for missing labels among N strings costs more than among the codes
        return np.asarray(y.dtype.categories)[codes]
    labels = y.to_numpy() if isinstance(y, (pd.Series, pd.Index)) else np.asarray(y)
    if labels.ndim == 2 and labels.shape[1] == 1:
        labels = column_or_1d(labels, warn=True)  # scikit-learn's DataConversionWarning
    if labels.ndim != 1:
        raise ValueError(f"y must be 1-D (one label per row), got shape {labels.shape}")
    missing = pd.isna(labels)
    if missing.any():
        rows = np.flatnonzero(missing)
        raise ValueError(
            f"y has {rows.size} missing label(s) (NaN/None), first at row {rows[0]}; every training row needs a class"
        )
    return labels


def as_array_like(X):
    """DataFrames and sparse matrices as they are; any other array-like as a NumPy array."""
    if isinstance(X, pd.DataFrame) or sp.issparse(X):
        return X
    return np.asarray(X)


def check_unique_columns(X) -> None:
    """A DataFrame whose columns each have their own name: a name given twice would be counted,
    or matched at predict, as whichever copy came first.
    """
    if isinstance(X, pd.DataFrame) and not X.columns.is_unique:
        repeated = X.columns[X.columns.duplicated()].unique().tolist()
        raise ValueError(f"X has repeated column name(s) {repeated}: every column needs its own name")


def check_names_apart(parameters: dict) -> None:
    """A ValueError if a parameter's name is also a dimension's name: both come from column names
    (column 'a_value''s table ``feature_prob_a_value`` is column 'feature_prob_a''s values' dim),
    and xarray would refuse the draws or PyMC's InferenceData silently drop the table.
    ``parameters``: name → (distribution, dims), as ``_parameters()``.
    """
    clash = sorted(set(parameters) & {dim for _, dims in parameters.values() for dim in dims})
    if clash:
        raise ValueError(
            f"the parameter name(s) {clash} are also the name(s) of a dimension (one column's table "
            "'feature_prob_<column>' and another column's values '<column>_value'): rename one of those columns"
        )


def check_slash_free(names) -> None:
    """A ValueError if a variable or dimension name of the PyMC model or of ``idata_`` holds a '/':
    they are made from column names (``feature_prob_<column>``, ``<column>_value``, ``x_<column>``),
    PyMC refuses such a variable name and netCDF any such name, so ``save`` would fail later.
    """
    slashed = sorted({str(name) for name in names if "/" in str(name)})
    if slashed:
        raise ValueError(
            f"the model's variable or dimension name(s) {slashed} hold a '/', taken from a column name: PyMC "
            "and netCDF (save) refuse '/' in names; rename the column(s), e.g. "
            "X.rename(columns=lambda c: c.replace('/', '_')), and fit again"
        )


def idata_names(idata):
    """Every variable and dimension name of an InferenceData's groups."""
    return [name for group in idata.groups() for name in (*idata[group].data_vars, *idata[group].dims)]


def check_n_rows(X_rows: int, y_rows: int) -> None:
    if X_rows == 0:
        raise ValueError("X is empty (0 rows): at least one row is needed")
    if X_rows != y_rows:
        raise ValueError(f"X has {X_rows} rows but y has {y_rows}; they must match")


def column_name(names, index: int) -> str:
    return f"column {index}" if names is None else f"column {names[index]!r}"


def reject_entries(matrix, bad, names, problem: str, remedy: str = "") -> None:
    """Raise naming the first entry where ``bad(values)`` holds: the value, its column, a remedy.
    The position is only looked up on the error path.
    """
    values = matrix.data if sp.issparse(matrix) else matrix
    flagged = bad(values)
    if not flagged.any():
        return
    if sp.issparse(matrix):
        first = np.flatnonzero(flagged)[0]
        value, column = values[first], matrix.indices[first]
    else:
        row, column = np.argwhere(flagged)[0]
        value = values[row, column]
    where = column_name(names, column)
    raise ValueError(f"X has {problem} {value} in {where}" + (f"; {remedy}" if remedy else ""))


def reject_non_real_values(dtype, where: str, what: str) -> None:
    """Refuse values that are not real numbers. Datetimes and durations: converted, they would be
    nanoseconds since 1970 (or in the span), a scale no model's prior or bound was set for. Complex
    numbers: converting them to float drops the imaginary part with only NumPy's warning.
    """
    if getattr(dtype, "kind", None) == "c":
        raise ValueError(
            f"{where} holds complex values ({dtype}), which {what} does not take: the models are for real "
            "numbers; pass the real part, the modulus, or both as separate columns"
        )
    if getattr(dtype, "kind", None) in ("M", "m"):
        raise ValueError(
            f"{where} holds {dtype} values, which {what} does not take as numbers; convert them "
            "first (e.g. to days since a reference date, or to a duration in days)"
        )


def check_numeric_matrix(X, names=None, *, nonnegative: bool, what: str, max_abs=None, binary=None):
    """A finite numeric 2-D matrix (dense ndarray or scipy CSR), optionally with no negative entry,
    no entry beyond ±bound (``max_abs``: (bound, the remedy its error gives)) and every entry 0 or 1
    (``binary``: the remedy its error gives).

    A sparse X becomes CSR with its duplicate entries summed (a cell's value is the sum of its
    stored entries): a copy when there are duplicates to sum, else it may share the caller's
    arrays (copying tens of MB per call cost more than the model), so the result is read-only
    for the caller of this function. Whether a float64 CSR X is canonical is read from X (scipy
    computes the flag once and keeps it on the matrix). A nullable pandas dtype's <NA> becomes NaN, which is then
    rejected as missing.
    """
    if sp.issparse(X):
        reject_non_real_values(X.dtype, "X", what)
        # a float64 CSR's flag as scipy caches it on the caller's matrix: predicting on the matrix a fit
        # read does not scan its indices again
        canonical = X.has_canonical_format if X.format == "csr" and X.dtype == np.float64 else None
        matrix = sp.csr_array(X, dtype=np.float64)
        if canonical is None:
            canonical = matrix.has_canonical_format
        if canonical:
            matrix.has_canonical_format = True  # the caller's arrays, whose flag this matrix does not carry
        else:
            matrix = matrix.copy()  # summing duplicates in place would rewrite the caller's arrays
            matrix.sum_duplicates()
    else:
        if isinstance(X, pd.DataFrame):
            for j, dtype in enumerate(X.dtypes):
                reject_non_real_values(dtype, f"column {X.columns[j]!r}", what)
        else:
            reject_non_real_values(getattr(X, "dtype", None), "X", what)
        try:
            if isinstance(X, pd.DataFrame):
                matrix = X.to_numpy(dtype=float, na_value=np.nan)
            else:
                matrix = np.asarray(X, dtype=float)
        except TypeError as error:
            raise TypeError(f"X must be numeric for {what}: {error}{_non_numeric_entry(X)}") from None
        except ValueError as error:
            raise ValueError(f"X must be numeric for {what}: {error}{_non_numeric_entry(X)}") from None
        if matrix.ndim != 2:
            raise ValueError(f"X must be 2-D (rows × features), got shape {matrix.shape}. Reshape your data")
    values = matrix.data if sp.issparse(matrix) else matrix
    counts = _dense_counts(values, np.finfo(float).max if max_abs is None else max_abs[0])
    if counts is None:
        with np.errstate(over="ignore", invalid="ignore"):
            all_finite = np.isfinite(values.sum())  # one pass; only a failure pays to locate the entry
        # the minimum and maximum: no full-size mask (nor |X| temporary) unless an entry fails
        low = values.min() if values.size and (nonnegative or max_abs is not None) else 0.0
        high = values.max() if values.size and max_abs is not None else 0.0
        beyond = max_abs is not None and max(high, -low) > max_abs[0]
        negative = nonnegative and low < 0
        non_binary = binary is not None and not _is_binary(values)
    else:
        outside, negatives, non_binaries = counts
        # which kind of entry is outside the limit is looked up on a failure only
        all_finite = outside == 0 or bool(np.isfinite(values).all())
        beyond = max_abs is not None and outside > 0
        negative = nonnegative and negatives > 0
        non_binary = binary is not None and non_binaries > 0
    if not all_finite:
        reject_entries(matrix, lambda v: ~np.isfinite(v), names, "a NaN or inf value:")
    if beyond:
        reject_entries(matrix, lambda v: np.abs(v) > max_abs[0], names, "the value", max_abs[1])
    if non_binary:
        reject_entries(matrix, lambda v: (v != 0) & (v != 1), names, "the non-binary value", binary)
    if negative:
        reject_entries(
            matrix,
            lambda v: v < 0,
            names,
            "a negative value",
            f"Negative values in data are not counts: {what} needs counts ≥ 0",
        )
    return matrix


def _non_numeric_entry(X) -> str:
    """Where the first entry that is not a number is (" (column c, row i)"), for the error path only."""
    columns = X.items() if isinstance(X, pd.DataFrame) else enumerate(np.asarray(X, dtype=object).reshape(len(X), -1).T)
    for label, column in columns:
        for i, value in enumerate(np.asarray(column, dtype=object)):
            try:
                float(value if value is not pd.NA else np.nan)
            except (TypeError, ValueError):
                return f" (column {label!r}, row {i}: {value!r})"
    return ""


def _dense_counts(values, limit: float):
    """(entries beyond ±``limit`` or not finite, negative entries, entries neither 0 nor 1) of a dense 2-D
    float array in one compiled pass, once numba is loaded (``_utils._row_kernels``); None otherwise (the
    NumPy reductions, a pass each, decide).
    """
    if not (jit.loaded() and isinstance(values, np.ndarray) and values.ndim == 2 and values.dtype == np.float64):
        return None
    oriented = values.T if values.flags.f_contiguous and not values.flags.c_contiguous else values
    value_counts = jit.kernels("pgm_models._utils._row_kernels").value_counts
    return threads.add_over_row_blocks(
        lambda start, stop: value_counts(oriented[start:stop], float(limit)), len(oriented)
    )


def _is_binary(values: np.ndarray) -> bool:
    """All values in {0, 1}, checked a block of 2^16 values at a time: the masks of a block stay
    in cache, where full-size masks cost more than scoring the rows.
    """
    flat = np.ravel(values, order="K")  # a view of any contiguous layout
    block = 1 << 16
    return all(
        bool(((part == 0) | (part == 1)).all())
        for part in (flat[start : start + block] for start in range(0, flat.size, block))
    )
