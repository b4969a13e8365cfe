"""Categorical attributes: their domains, codes, missing values and unseen values.

Shared by every model over nominal attributes (naive Bayes and the semi-naive family). An
attribute's domain is a pandas Categorical's declared categories (declared but unseen values
get prior mass, as in Weka), else ``n_categories`` (values 0..n−1), else the values seen in
the first fit. Missing values (NaN/None) are coded −1. An attribute with no value at all (missing in
every row and nothing declared) is an error naming it; with declared values it is modelled with
prior mass only. A value outside the domain raises in
training; at prediction it is treated as missing with a warning (``handle_unknown="missing"``)
or raises (``handle_unknown="error"``).
"""

from __future__ import annotations

import operator
import warnings
import weakref

import numpy as np
import pandas as pd
import scipy.sparse as sp

from pgm_models._utils import jit
from pgm_models._utils.frames import categorical_codes_of, column_arrays, index_values
from pgm_models._utils.validation import check_concentration, column_name

HANDLE_UNKNOWN = ("missing", "error")


class CategoricalAttributes:
    """Mixin giving an estimator with ``n_categories`` and ``handle_unknown`` parameters the
    attribute encoding; sets ``categories_`` and ``n_categories_`` on the first fit.
    """

    _needs_declared_domains = True  # a domain must be known before counting (the Dask engine asks)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # NaN is a missing value, skipped as Weka does
        # the values are categories, text or not (as scikit-learn's CategoricalNB says)
        tags.input_tags.categorical = tags.input_tags.string = True
        return tags

    def _checked_columns(self, X, reset):
        """X's columns as arrays and the fitted feature names, after checking handle_unknown
        and the feature names (set on ``reset``).
        """
        if self.handle_unknown not in HANDLE_UNKNOWN:
            raise ValueError(f"handle_unknown={self.handle_unknown!r} is not one of {HANDLE_UNKNOWN}")
        X = self._check_feature_names(X, reset)
        return _columns(X, type(self).__name__), getattr(self, "feature_names_in_", None)

    def _placeholder_rows(self, n: int):
        """N rows of codes, every attribute at its first value (the template's hook)."""
        return np.zeros((n, len(self.n_categories_)), dtype=np.intp)

    def _encode(self, X, reset, training):
        """Codes (N, F) into each attribute's domain, −1 where missing: intp, except for a batch
        being counted (``_partial_fit`` sets ``_fit_weight``) of integer codes all inside their
        domains, which is X itself in its own dtype if that casts safely to intp (widening int8
        codes to intp was a large share of CategoricalNB's fit; the counting reads them narrow).
        """
        columns, names = self._checked_columns(X, reset)
        column_dtypes = list(map(_DTYPE, columns))  # read once: a Categorical's dtype is a property
        seen = None
        if reset:
            declared = self._declared_sizes(len(columns))
            weight = getattr(self, "_fit_weight", None)
            seen = (
                _seen_integers(X)
                if _is_integer_matrix(X)
                and X.size >= SEEN_BY_COUNTS
                and all(size is None for size in declared)
                and (weight is None or bool((weight > 0).all()))
                else None
            )
            if seen is not None:  # an integer matrix's seen values, every column in one pass over its rows
                self.categories_, self._domain_dtypes, sizes = (
                    seen,
                    [None] * len(seen),
                    [len(domain) for domain in seen],
                )
            else:
                # a Categorical column's dtype is its domain: a later column of the same dtype encodes by its codes alone
                self.categories_, self._domain_dtypes, sizes = _domains(columns, column_dtypes, declared, names, weight)
            self.n_categories_ = np.array(sizes)
            check_values_to_model(sizes, [column_name(names, j) for j in range(len(sizes))] if 0 in sizes else None)
        dtypes = getattr(self, "_domain_dtypes", None) or [None] * len(columns)
        if all(map(operator.is_, column_dtypes, dtypes)):
            # every column a Categorical of its fitted domain's own dtype (a fold of the training
            # frame, the training frame itself): its codes are the codes, none outside the domain;
            # a batch being counted keeps their own dtype (int8 below 128 values: written and read
            # an eighth of intp's bytes), as integer codes do below
            narrow = training and hasattr(self, "_fit_weight")
            return _stacked(categorical_codes_of(columns), None if narrow else np.intp)
        if isinstance(X, pd.DataFrame) and _one_integer_dtype(columns):
            # integer columns (Parquet's, say) in the fitted order: one array, for the integer-codes path
            X = _stacked(columns, columns[0].dtype)
        if _is_integer_matrix(X) and all(_is_range(c) for c in self.categories_):
            # integer codes against domains 0..S_j−1: the values are their own codes
            if seen is not None or (  # domains just found as X's values: every value is in its domain
                X.size
                and X.min() >= 0
                and (X.max() < self.n_categories_.min() or bool((X.max(axis=0) < self.n_categories_).all()))
            ):
                # all inside (whole-array reductions; per column only if need be): X itself,
                # read-only, instead of masks and a copy of a large X
                # uint64 stays out: with intp offsets it would promote to float64
                narrow = training and hasattr(self, "_fit_weight") and np.can_cast(X.dtype, np.intp)
                codes = (X if narrow else X.astype(np.intp, copy=False)).view()
                codes.flags.writeable = False
                return codes
            codes = np.where((X >= 0) & (X < self.n_categories_), X, _OUTSIDE).astype(np.intp, copy=False)
            outside = np.flatnonzero((codes == _OUTSIDE).any(axis=0))
        else:
            per_column = [
                _codes_in(c, self.categories_[j], column_name(names, j), dtypes[j]) for j, c in enumerate(columns)
            ]
            codes = _stacked(per_column)
            # looked for in each column's own codes (int8 for a Categorical's), not in the stacked intp array;
            # a column of the fitted domain's dtype has only codes of that domain
            outside = [
                j
                for j, c in enumerate(per_column)
                if column_dtypes[j] is not dtypes[j] and c.min(initial=0) == _OUTSIDE
            ]
        weight = getattr(self, "_fit_weight", None) if training else None
        for j in outside:
            self._handle_outside(codes[:, j], columns[j], j, training, column_name(names, j), weight)
        return codes

    def _declared_sizes(self, n_features):
        if self.n_categories is None:
            return [None] * n_features
        try:
            sizes = check_concentration(self.n_categories, "n_categories", n_features, "feature")
        except ValueError as error:
            if "entries; expected" in str(error):  # a length mismatch says so itself
                raise
            raise ValueError(f"n_categories must be whole numbers ≥ 1, got {self.n_categories!r}") from None
        sizes = np.broadcast_to(sizes, (n_features,))
        if np.any(sizes < 1) or np.any(sizes != np.round(sizes)):
            raise ValueError(f"n_categories must be whole numbers ≥ 1, got {self.n_categories!r}")
        return sizes.astype(int).tolist()

    def _handle_outside(self, codes, column, j: int, training: bool, where: str, weight=None) -> None:
        """Values outside the domain: an error in training (unless the row has weight 0, so is
        not counted); at prediction, missing (with a warning) or an error, by ``handle_unknown``.
        Rewrites ``codes`` in place.
        """
        unknown = codes == _OUTSIDE
        if training and weight is not None:
            codes[unknown & (weight == 0)] = -1  # a weightless row counts nothing
            unknown = codes == _OUTSIDE
            if not unknown.any():
                return
        # shown by repr, as Python values (not NumPy scalars): the value 1 and the string '1' differ
        distinct = {
            v.item() if isinstance(v, np.generic) else v for v in np.asarray(_values(column), dtype=object)[unknown]
        }
        seen = sorted(distinct, key=lambda v: (str(v), type(v).__name__))[:5]
        message = f"{where} has value(s) {seen!r} outside its domain {self.categories_[j].tolist()!r}"
        if training:
            raise ValueError(message + "; declare them with a pandas Categorical or n_categories")
        if self.handle_unknown == "error":
            raise ValueError(message)
        if (refusal := self._missing_refusal()) is not None:
            raise ValueError(f"{message}; {refusal}")
        warnings.warn(message + "; treated as missing (handle_unknown='missing')", UserWarning, stacklevel=5)
        codes[unknown] = -1

    def _missing_refusal(self) -> str | None:
        """Why this model refuses a missing value at prediction, for an unseen value that
        ``handle_unknown="missing"`` would make missing (None: it takes missing values).
        """
        return None

    def _offsets(self):
        return np.concatenate(([0], np.cumsum(self.n_categories_)[:-1]))

    def _feature_names(self):
        names = getattr(self, "feature_names_in_", None)
        return [str(n) for n in names] if names is not None else [f"x{j}" for j in range(self.n_features_in_)]


_OUTSIDE = -2  # code of a value outside the domain (−1 is missing)
_DTYPE = operator.attrgetter("dtype")


def _columns(X, owner: str = "CategoricalNB") -> list:
    """The attributes as a list of 1-D arrays: a DataFrame's own column arrays (pandas
    Categoricals stay Categoricals), numeric dtypes kept, so that numeric codes are looked up
    without boxing every value.
    """
    if isinstance(X, pd.DataFrame):
        return column_arrays(X)
    if sp.issparse(X):
        raise ValueError(f"{owner} takes dense attribute values, not a sparse matrix")
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(f"X must be a 2-D array or DataFrame (rows × attributes), got shape {array.shape}")
    return list(array.T)


def _stacked(codes: list, dtype=np.intp) -> np.ndarray:  # dtype None: the codes' own (common) dtype
    """(N, F) integer codes from the F attributes' code arrays, laid out attribute by attribute
    (Fortran order): each column one contiguous copy, cast as it is copied. np.column_stack writes
    each row's F codes apart (Categorical codes are int8) and a cast copies them again, which is
    slower; on a small fold one ``np.array`` of the list is also faster than a Python loop of row
    assignments.
    """
    return np.array(codes, dtype=dtype).T


def _one_integer_dtype(columns) -> bool:
    """Columns that are NumPy arrays of one integer dtype."""
    # NumPy arrays first: hashing a CategoricalDtype hashes its categories
    return (
        all(isinstance(c, np.ndarray) for c in columns)
        and len({c.dtype for c in columns}) == 1
        and columns[0].dtype.kind in "iu"
    )


# from this many values on, an integer column's (or matrix's) seen values are found by counting them
# (``_seen_integers``) rather than by hashing each column (``pd.unique``): the same sorted values
SEEN_BY_COUNTS = 1 << 16
SEEN_RANGE = 1 << 12  # the widest range of values (largest − smallest + 1) counted so
SEEN_ROWS = 1 << 16  # values counted per slice of rows: the slice's keys stay in cache


def _seen_integers(X: np.ndarray):
    """Each column's distinct values, sorted, in X's dtype, for an (N, F) integer array whose values
    span at most ``SEEN_RANGE``: one ``np.bincount`` of (column, value) keys a slice of rows at a
    time, reading X in its own order once (a C-ordered X's columns are strided: a pass per column
    would read all of it F times). None when the values span more (the caller hashes them).
    """
    low, high = int(X.min()), int(X.max())
    width = high - low + 1
    if width > SEEN_RANGE or X.dtype == np.uint64 or not -(1 << 62) < low <= high < 1 << 62:  # keys stay intp
        return None
    if jit.loaded():  # one compiled pass marking each (column, value), no key array
        present = jit.kernels("pgm_models.discrete._seen_kernels").seen_table(X, low, width)
        return [(np.flatnonzero(row) + low).astype(X.dtype) for row in present]
    n_rows, n_columns = X.shape
    places = np.arange(n_columns, dtype=np.intp) * width - low
    counts = np.zeros(n_columns * width, dtype=np.intp)
    rows = max(1, SEEN_ROWS // n_columns)
    keys = np.empty((min(rows, n_rows), n_columns), dtype=np.intp)
    for start in range(0, n_rows, rows):
        block = X[start : start + rows]
        np.add(block, places, out=keys[: len(block)], casting="unsafe")
        counts += np.bincount(keys[: len(block)].ravel(), minlength=counts.size)
    present = counts.reshape(n_columns, width) > 0
    return [(np.flatnonzero(row) + low).astype(X.dtype) for row in present]


def _is_integer_matrix(X) -> bool:
    return isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "iu"


def _is_range(categories: np.ndarray) -> bool:
    return categories.dtype.kind in "iu" and np.array_equal(categories, np.arange(len(categories)))


def _values(column) -> np.ndarray:
    """A column's values as a NumPy array (pandas extension arrays converted, <NA> as an object)."""
    return column if isinstance(column, np.ndarray) else column.to_numpy()


def _unhashable(where: str, error: TypeError) -> TypeError:
    return TypeError(f"{where} has a value that is not a category ({error}): argument must be a string or a number")


def _codes_in(column, categories: np.ndarray, where: str, domain_dtype=None) -> np.ndarray:
    """Position of each value in ``categories``; −1 where missing, _OUTSIDE where not in the
    domain. ``domain_dtype``: the Categorical dtype the domain was read from, if any.
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        if column.dtype is domain_dtype:
            return column.codes  # the fitted domain itself: codes are codes
        own = index_values(column.categories)
        if len(own) == len(categories) and bool((own == categories).all()):
            return column.codes
        # map the column's own categories once, then its integer codes
        recode = np.append(pd.Index(categories).get_indexer(column.categories), -1)
        recode[:-1][recode[:-1] < 0] = _OUTSIDE
        return recode[column.codes]
    values = _values(column)
    if (
        isinstance(values, np.ndarray)
        and values.dtype.kind in "iu"
        and values.dtype != np.uint64
        and _is_range(categories)
    ):
        # integers against the domain 0..S−1: each value is its own code (what the look-up finds), no hashing
        if not values.size or (values.min() >= 0 and values.max() < len(categories)):
            codes = values.astype(np.intp, copy=False).view()  # the caller's values themselves: read-only
            codes.flags.writeable = False
            return codes
        codes = values.astype(np.intp)
        codes[(codes < 0) | (codes >= len(categories))] = _OUTSIDE
        return codes
    try:
        codes = pd.Index(categories).get_indexer(values).astype(np.intp)
    except TypeError as error:
        raise _unhashable(where, error) from None
    missing = pd.isna(values)
    codes[(codes < 0) & ~missing] = _OUTSIDE
    codes[missing] = -1
    return codes


def _domains(columns, dtypes, declared, names, weight) -> tuple[list, list, list]:
    """Each attribute's ``_domain``, its Categorical dtype (None for other columns) and its size;
    the columns of one Categorical dtype (load_arff gives the attributes with the same values one
    dtype) share one array of its categories: converting them column by column is a noticeable
    share of a small fit. A frame of Categoricals whose dtypes are those of an earlier fit (the folds of a
    cross-validation) takes that fit's domains (``_CATEGORICAL_DOMAINS``). A column's name is looked
    up only for a column that is not a Categorical (whose domain cannot fail): naming each column
    cost as much as the rest of this.
    """
    key = tuple(map(id, dtypes))
    known = _CATEGORICAL_DOMAINS.get(key)
    if known is not None and all(ref() is dtype for ref, dtype in zip(known[0], dtypes)):  # an id can be reused
        return list(known[1]), dtypes, known[2]
    by_dtype, domains, kept = {}, [], []
    for j, (column, dtype) in enumerate(zip(columns, dtypes)):
        if isinstance(dtype, pd.CategoricalDtype):
            domain = by_dtype.get(id(dtype))
            if domain is None:
                domain = by_dtype[id(dtype)] = index_values(dtype.categories)
            domains.append(domain)
            kept.append(dtype)
        else:
            domains.append(_domain(column, declared[j], column_name(names, j), weight))
            kept.append(None)
    sizes = [len(domain) for domain in domains]
    if all(d is not None for d in kept):
        if len(_CATEGORICAL_DOMAINS) >= _CATEGORICAL_DOMAINS_KEPT:
            _CATEGORICAL_DOMAINS.clear()
        # the entry leaves with any of its dtypes (weak references: a large domain is not kept after its data)
        drop = lambda _, key=key: _CATEGORICAL_DOMAINS.pop(key, None)  # noqa: E731
        _CATEGORICAL_DOMAINS[key] = ([weakref.ref(dtype, drop) for dtype in kept], domains, sizes)  # shared read-only
    return list(domains), kept, sizes


# dtype ids → (weak references to the Categorical dtypes, their domains, sizes) of frames of
# Categoricals already fitted
_CATEGORICAL_DOMAINS: dict = {}
_CATEGORICAL_DOMAINS_KEPT = 64


def check_values_to_model(sizes, where, declare: str = "a pandas Categorical or n_categories") -> None:
    """Refuse, by name (``where``, each column's), a categorical column with a domain of no value
    (missing in every row, none declared); ``where`` is only needed when a size is 0; ``declare``:
    how the estimator takes declared values.
    """
    for j in [j for j, size in enumerate(sizes) if size == 0]:
        raise ValueError(
            f"{where[j]} has no value to model: it is missing in every row and declares no "
            f"categories; drop it, or declare its values ({declare}) to give them prior mass only"
        )


def _domain(column, declared_size, where: str, weight=None) -> np.ndarray:
    """An attribute's domain: declared Categorical categories, else range(n_categories), else
    the sorted values seen in rows of positive weight (a row of weight 0 is not observed).
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        return index_values(column.dtype.categories)
    values = _values(column)
    if declared_size is not None and values.dtype.kind in "iu":
        return np.arange(declared_size)  # integers need no look at their values (none is missing or infinite)
    if values.dtype.kind in "iu" and values.size >= SEEN_BY_COUNTS and (weight is None or bool((weight > 0).all())):
        seen = _seen_integers(values.reshape(-1, 1))
        if seen is not None:
            return seen[0]
    seen = ~pd.isna(values) if weight is None else ~pd.isna(values) & (weight > 0)
    try:
        observed = pd.unique(values[seen])
    except TypeError as error:
        raise _unhashable(where, error) from None
    numbers = [v for v in observed if isinstance(v, (int, float, np.number)) and not isinstance(v, bool)]
    if any(not np.isfinite(v) for v in numbers):
        raise ValueError(f"{where} has an infinite value; categories must be labels or finite numbers")
    if declared_size is not None:
        return np.arange(declared_size)
    try:
        return np.asarray(sorted(observed))
    except TypeError:
        raise ValueError(f"{where} mixes value types {sorted({type(v).__name__ for v in observed})}") from None
