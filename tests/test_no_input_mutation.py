"""No estimator modifies its input: every model × every input kind it takes (dense array, CSR,
CSC, DataFrame) × fit / partial_fit / predict / predict_proba leaves X's bytes and y unchanged.

The inputs are chosen to tempt a mutation: sparse matrices with explicit zeros, duplicate and
unsorted entries (what ``eliminate_zeros``/``sum_duplicates``/``sort_indices`` would rewrite in
place), values under and over a binarize threshold, missing values in categorical frames."""

import pickle

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from pgm_models import (
    AODE,
    LDA,
    QDA,
    SPODE,
    TAN,
    BernoulliNB,
    CategoricalNB,
    GaussianNB,
    LogisticRegression,
    MultinomialNB,
)
from pgm_models.preprocessing.discretize import EqualFrequencyDiscretizer, EqualWidthDiscretizer, MDLDiscretizer

Y = np.array([0, 1, 0, 1, 1, 0])


def _numeric():
    rng = np.random.default_rng(0)
    X = np.abs(rng.normal(size=(6, 4))) + np.eye(6, 4) * 2
    X[X < 0.6] = 0.0  # zeros: sparse input has something to leave out
    return X


def _awkward_sparse(dense, fmt):
    """The dense matrix as CSR/CSC with, in its first compressed row, the entries in reverse
    order, the first of them split into two duplicate halves and an explicit zero — each a
    canonical-format rewrite (sort_indices, sum_duplicates, eliminate_zeros) waiting to happen."""
    major = dense if fmt == "csr" else dense.T
    data, indices, indptr = [], [], [0]
    for i, line in enumerate(major):
        entries = [(j, line[j]) for j in np.flatnonzero(line)]
        if i == 0:
            (first, value), zero = entries[0], int(np.flatnonzero(line == 0)[0])
            entries = [(first, value / 2)] + entries[1:][::-1] + [(zero, 0.0), (first, value / 2)]
        stored, values = [j for j, _ in entries], [v for _, v in entries]
        data += values
        indices += stored
        indptr.append(len(data))
    Matrix = sp.csr_matrix if fmt == "csr" else sp.csc_matrix
    matrix = Matrix((np.array(data), np.array(indices), np.array(indptr)), shape=dense.shape)
    matrix.has_sorted_indices = False
    np.testing.assert_array_equal(matrix.toarray(), dense)  # the same values, awkwardly stored
    assert len(matrix.data) == np.count_nonzero(dense) + 2
    return matrix


def _inputs(kind):
    """{input name: X} of every kind a model of this ``kind`` takes."""
    dense = _numeric()
    frame = pd.DataFrame(dense, columns=list("abcd"))
    if kind == "categorical":
        codes = np.array([[0, 1, 2], [1, 1, 0], [2, 0, 1], [0, 0, 0], [1, 2, 2], [2, 2, 1]])
        objects = pd.DataFrame(codes.astype(str), columns=list("abc")).astype(object)
        objects.iloc[1, 0] = None
        return {"dense": codes, "DataFrame": objects, "DataFrame of Categoricals": objects.astype("category")}
    inputs = {"dense": dense, "DataFrame": frame}
    if kind == "sparse":
        inputs.update(CSR=_awkward_sparse(dense, "csr"), CSC=_awkward_sparse(dense, "csc"))
    return inputs


MODELS = [
    (CategoricalNB(), "categorical"),
    (SPODE(), "categorical"),
    (AODE(weights="bma"), "categorical"),
    (TAN(), "categorical"),
    (BernoulliNB(binarize=1.0), "sparse"),
    (MultinomialNB(), "sparse"),
    (LogisticRegression(), "sparse"),
    (GaussianNB(), "dense"),
    (LDA(), "dense"),
    (QDA(), "dense"),
]
CASES = [(model, name, X) for model, kind in MODELS for name, X in _inputs(kind).items()]


def _snapshot(value):
    """Every byte of the value (arrays, index arrays, format flags, dtypes, pandas metadata)."""
    if sp.issparse(value):  # the flags first: reading them caches them in the matrix
        flags = (value.has_sorted_indices, value.has_canonical_format)
        return (*flags, value.data.tobytes(), value.indices.tobytes(), value.indptr.tobytes(), pickle.dumps(value))
    return pickle.dumps(value)


@pytest.mark.parametrize("model, name, X", CASES, ids=[f"{type(m).__name__}-{name}" for m, name, _ in CASES])
def test_fit_partial_fit_and_predict_leave_the_input_unchanged(model, name, X):
    y = pd.Series(Y) if name.startswith("DataFrame") else Y.copy()
    before_X, before_y = _snapshot(X), _snapshot(y)
    calls = [lambda m: m.fit(X, y), lambda m: m.predict(X), lambda m: m.predict_proba(X)]
    if hasattr(model, "partial_fit"):
        calls.append(lambda m: m.partial_fit(X, y, classes=[0, 1]))
    fitted = model.__class__(**model.get_params())
    for call in calls:
        call(fitted)
        assert _snapshot(X) == before_X and _snapshot(y) == before_y, f"{type(model).__name__} changed its {name} input"


@pytest.mark.parametrize("Discretizer", [EqualWidthDiscretizer, EqualFrequencyDiscretizer, MDLDiscretizer])
@pytest.mark.parametrize("name", ["dense", "DataFrame"])
def test_discretizers_leave_the_input_unchanged(Discretizer, name):
    X = _inputs("dense")[name]
    before = _snapshot(X)
    Discretizer().fit(X, Y).transform(X)
    assert _snapshot(X) == before
