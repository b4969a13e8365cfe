"""Categorical naive Bayes: each attribute has its own finite domain of S_j values.

Model (classes k = 1..K, attributes j = 1..F, values s = 1..S_j):

    π ~ Dirichlet(class_alpha · 1_K)                 y_i | π ~ Categorical(π)
    θ_jk ~ Dirichlet(alpha_j · 1_{S_j})              x_ij | y_i = k, θ ~ Categorical(θ_jk)

Closed-form posterior from the counts N_k and N_kjs (available cases: a missing x_ij is not
counted): π | D ~ Dirichlet(class_alpha + N_k), θ_jk | D ~ Dirichlet(alpha_j + N_kjs), so

    P(y = k) = (N_k + λ)/(N + Kλ),   P(x_j = s | y = k) = (N_kjs + λ)/(N_kj + S_j λ)

for the posterior mean (λ = 1: Laplace smoothing, λ = 0: the MLE). Because each parameter
enters p(x, y | θ) once and the posterior factorises, the exact posterior predictive
p(y, x | D) equals this posterior-mean plug-in. A missing attribute is skipped at prediction,
so ``CategoricalNB(alpha=1, class_alpha=1)`` reproduces Weka's NaiveBayes on nominal data.

Domains: a pandas Categorical column's declared categories (declared but unseen values get
prior mass, as in Weka), else ``n_categories`` (values 0..n−1), else the values seen in fit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp

from pgm_models._validation import check_concentration, column_name
from pgm_models.conjugate import Dirichlet
from pgm_models.base import integer_counts
from pgm_models.naive_bayes._discrete import DiscreteNB, log_linear

HANDLE_UNKNOWN = ("missing", "error")


class CategoricalNB(DiscreteNB):
    """Naive Bayes on categorical attributes with conjugate Dirichlet priors.

    Parameters
    ----------
    alpha : float or array of one per attribute, ≥ 0
        Dirichlet concentration of every cell of θ_jk (λ above).
    class_alpha : float or array of one per class, ≥ 0
        Dirichlet concentration of the class probabilities.
    estimate : {"mean", "map", "mle", "predictive"}
        The parameters predictions plug in: posterior mean (n+α)/(N+Σα), posterior mode
        (n+α−1)/(N+Σα−S), MLE n/N, or the exact posterior predictive (here equal to the mean).
    n_categories : int or array of one per attribute, optional
        Domain size of integer-coded attributes (values 0..n−1) that are not Categoricals.
    handle_unknown : {"missing", "error"}
        A value outside an attribute's domain at prediction is skipped like a missing value
        (with a warning) or raises. In training it always raises: it cannot be counted.

    Attributes
    ----------
    classes_, class_count_ (K,), class_concentration_ (K,)
    categories_ : list of arrays, the domain of each attribute
    n_categories_ : (F,) domain sizes S_j
    feature_count_ : (K, T) counts N_kjs, attributes' blocks side by side (T = Σ S_j)
    feature_concentration_ : (K, T) posterior concentrations alpha_j + N_kjs
    """

    def __init__(self, alpha=1.0, class_alpha=1.0, estimate="mean", n_categories=None, handle_unknown="missing"):
        self.alpha = alpha
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown

    # ------------------------------------------------------------------ encoding
    def _encode(self, X, reset, training):
        """Codes (N, F) into each attribute's domain, −1 where missing."""
        if self.handle_unknown not in HANDLE_UNKNOWN:
            raise ValueError(f"handle_unknown={self.handle_unknown!r} is not one of {HANDLE_UNKNOWN}")
        X = self._check_feature_names(X, reset)
        columns = _columns(X)
        names = getattr(self, "feature_names_in_", None)
        if reset:
            declared = self._declared_sizes(len(columns))
            self.categories_ = [_domain(c, declared[j], column_name(names, j)) for j, c in enumerate(columns)]
            self.n_categories_ = np.array([len(c) for c in self.categories_])
        if _is_integer_matrix(X) and all(_is_range(c) for c in self.categories_):
            # integer codes against domains 0..S_j−1: the values are their own codes
            codes = np.where((X >= 0) & (X < self.n_categories_), X, _OUTSIDE).astype(np.intp, copy=False)
        else:
            codes = np.column_stack([_codes_in(c, self.categories_[j]) for j, c in enumerate(columns)])
        for j in np.flatnonzero((codes == _OUTSIDE).any(axis=0)):
            self._handle_outside(codes[:, j], columns[j], j, training, column_name(names, j))
        return codes

    def _declared_sizes(self, n_features):
        if self.n_categories is None:
            return [None] * n_features
        sizes = check_concentration(self.n_categories, "n_categories", n_features, "feature")
        sizes = np.broadcast_to(sizes, (n_features,))
        if np.any(sizes < 1) or np.any(sizes != np.round(sizes)):
            raise ValueError(f"n_categories must be whole numbers ≥ 1, got {self.n_categories!r}")
        return sizes.astype(int).tolist()

    def _handle_outside(self, codes, column, j: int, training: bool, where: str) -> None:
        """Values outside the domain: an error in training; at prediction, missing (with a
        warning) or an error, by ``handle_unknown``. Rewrites ``codes`` in place."""
        unknown = codes == _OUTSIDE
        values = column.to_numpy() if isinstance(column, pd.Series) else column
        seen = sorted({str(v) for v in np.asarray(values, dtype=object)[unknown]})[:5]
        message = f"{where} has value(s) {seen} outside its domain {self.categories_[j].tolist()}"
        if training:
            raise ValueError(message + "; declare them with a pandas Categorical or n_categories")
        if self.handle_unknown == "error":
            raise ValueError(message)
        warnings.warn(message + "; treated as missing (handle_unknown='missing')", UserWarning, stacklevel=5)
        codes[unknown] = -1

    def _n_design_columns(self):
        return int(self.n_categories_.sum())

    def _feature_blocks(self):
        return self.n_categories_

    def _offsets(self):
        return np.concatenate(([0], np.cumsum(self.n_categories_)[:-1]))

    def _design(self, codes):
        """One-hot (N, T) sparse matrix; a missing attribute contributes no entry."""
        n_rows, n_attributes = codes.shape
        columns = codes + self._offsets()
        if codes.min(initial=0) >= 0:
            indptr = np.arange(0, n_rows * n_attributes + 1, n_attributes)
            columns = columns.ravel()
        else:
            present = codes >= 0
            indptr = np.concatenate(([0], np.cumsum(present.sum(axis=1))))
            columns = columns[present]
        return sp.csr_array((np.ones(columns.size), columns, indptr), shape=(n_rows, self._n_design_columns()))

    def _prior_concentration(self, alpha):
        cells = np.repeat(np.broadcast_to(alpha, (self.n_features_in_,)), self.n_categories_)
        return np.broadcast_to(cells, (len(self.classes_), cells.size))

    # ------------------------------------------------------------------ scoring
    def _feature_log_likelihood(self, codes, estimate):
        return log_linear(self._design(codes), self._feature_log_prob(estimate))

    # ------------------------------------------------------------------ posterior and PyMC
    def _feature_names(self):
        names = getattr(self, "feature_names_in_", None)
        return [str(n) for n in names] if names is not None else [f"x{j}" for j in range(self.n_features_in_)]

    def _blocks(self):
        """(name, slice of the flat layout) of each attribute."""
        offsets = self._offsets()
        return [(name, slice(o, o + s)) for name, o, s in zip(self._feature_names(), offsets, self.n_categories_)]

    def _coords(self):
        coords = {"class": self.classes_}
        for (name, _), categories in zip(self._blocks(), self.categories_):
            coords[f"{name}_value"] = np.asarray(categories)
        return coords

    def _feature_posterior(self):
        concentration = self.feature_concentration_
        return {
            f"feature_prob_{name}": (Dirichlet(concentration[:, block]), ("class", f"{name}_value"))
            for name, block in self._blocks()
        }

    def _feature_priors(self):
        """θ_jk ~ Dirichlet(alpha_j) for each attribute: {name: PyMC variable}."""
        import pymc as pm

        prior = self._feature_prior.concentration
        return {
            name: pm.Dirichlet(f"feature_prob_{name}", a=prior[:, block], dims=("class", f"{name}_value"))
            for name, block in self._blocks()
        }

    def _counts_model(self, model):
        """N_k ~ Multinomial(N, π); (N_kjs)_s ~ Multinomial(N_kj, θ_jk) for each class and attribute."""
        import pymc as pm

        self._class_model(model, observe_counts=True)
        feature_prob = self._feature_priors()
        counts = integer_counts(self.feature_count_, "attribute counts")
        for name, block in self._blocks():
            pm.Multinomial(
                f"feature_count_{name}",
                n=counts[:, block].sum(axis=1),
                p=feature_prob[name],
                observed=counts[:, block],
                dims=("class", f"{name}_value"),
            )

    def _rows_model(self, model, codes, class_index):
        """y_i ~ Categorical(π); x_ij ~ Categorical(θ_j[y_i]) for every observed x_ij."""
        import pymc as pm

        class_prob = self._class_model(model, observe_counts=False)
        feature_prob = self._feature_priors()
        model.add_coord("row", np.arange(len(class_index)))
        y = pm.Categorical("y", p=class_prob, observed=class_index, dims="row")
        for (name, _), column in zip(self._blocks(), codes.T):
            rows = np.flatnonzero(column >= 0)
            model.add_coord(f"{name}_row", rows)
            pm.Categorical(f"x_{name}", p=feature_prob[name][y[rows]], observed=column[rows], dims=f"{name}_row")


_OUTSIDE = -2  # code of a value outside the domain (−1 is missing)


def _columns(X) -> list:
    """The attributes as a list: pandas Series for a DataFrame, 1-D arrays (numeric dtypes kept,
    so that numeric codes are looked up without boxing every value) otherwise."""
    if isinstance(X, pd.DataFrame):
        return [X.iloc[:, j] for j in range(X.shape[1])]
    if sp.issparse(X):
        raise ValueError("CategoricalNB takes dense attribute values, not a sparse matrix")
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(f"X must be a 2-D array or DataFrame (rows × attributes), got shape {array.shape}")
    return list(array.T)


def _is_integer_matrix(X) -> bool:
    return isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "iu"


def _is_range(categories: np.ndarray) -> bool:
    return categories.dtype.kind in "iu" and np.array_equal(categories, np.arange(len(categories)))


def _codes_in(column, categories: np.ndarray) -> np.ndarray:
    """Position of each value in ``categories``; −1 where missing, _OUTSIDE where not in the domain."""
    domain = pd.Index(categories)
    if isinstance(column, pd.Series) and isinstance(column.dtype, pd.CategoricalDtype):
        # map the column's own categories once, then its integer codes
        recode = np.append(domain.get_indexer(column.cat.categories), -1)
        recode[:-1][recode[:-1] < 0] = _OUTSIDE
        return recode[column.cat.codes.to_numpy()]
    values = column.to_numpy() if isinstance(column, pd.Series) else column
    codes = domain.get_indexer(values).astype(np.intp)
    missing = pd.isna(values)
    codes[(codes < 0) & ~missing] = _OUTSIDE
    codes[missing] = -1
    return codes


def _domain(column, declared_size, where: str) -> np.ndarray:
    """An attribute's domain: declared Categorical categories, else range(n_categories), else
    the sorted values seen."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return np.asarray(column.dtype.categories)
    values = column.to_numpy() if isinstance(column, pd.Series) else column
    observed = pd.unique(values[~pd.isna(values)])
    numbers = [v for v in observed if isinstance(v, (int, float, np.number)) and not isinstance(v, bool)]
    if any(not np.isfinite(v) for v in numbers):
        raise ValueError(f"{where} has an infinite value; categories must be labels or finite numbers")
    if declared_size is not None:
        return np.arange(declared_size)
    try:
        return np.asarray(sorted(observed))
    except TypeError:
        raise ValueError(f"{where} mixes value types {sorted({type(v).__name__ for v in observed})}") from None
