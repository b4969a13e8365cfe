"""The bad-input matrix: one row per case — the estimator, what is wrong, the error it must give.

Every message names the offending column, value or shape; nothing is silently dropped.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

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
    MixedNB,
    MultinomialNB,
)

X3 = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0], [2.0, 2.0, 0.0], [1.0, 1.0, 1.0]])
Y = np.array(["a", "b", "a", "b"])
COLORS = pd.DataFrame({"color": ["red", "blue", "red", "blue"], "size": ["S", "L", "L", "S"]})
NULLABLE = pd.DataFrame({"w": pd.array([1.0, None, 2.0, 0.0], dtype="Float64"), "v": [1.0, 2.0, 0.0, 1.0]})
HUGE = np.vstack([X3, X3 + 1]) * 1e160


def with_value(row, column, value, X=X3):
    bad = X.copy()
    bad[row, column] = value
    return bad


def fit(Model, X=X3, y=Y, **params):
    return lambda: Model(**params).fit(X, y)


def predict(Model, X_fit, X_predict, **params):
    return lambda: Model(**params).fit(X_fit, Y).predict(X_predict)


CASES = [
    (
        "NaN in numeric input",
        fit(GaussianNB, with_value(1, 2, np.nan)),
        ValueError,
        r"NaN or inf value: nan in column 2",
    ),
    ("inf in numeric input", fit(LDA, with_value(0, 1, np.inf)), ValueError, r"NaN or inf value: inf in column 1"),
    ("negative counts", fit(MultinomialNB, with_value(2, 0, -4.0)), ValueError, r"negative value -4.0 in column 0"),
    (
        "non-binary with binarize=None",
        fit(BernoulliNB, X3, binarize=None),
        ValueError,
        r"non-binary value 2.0 in column 2",
    ),
    (
        "unseen category, policy error",
        predict(CategoricalNB, COLORS, COLORS.assign(color="green"), handle_unknown="error"),
        ValueError,
        r"column 'color' has value\(s\) \['green'\] outside its domain \['blue', 'red'\]",
    ),
    (
        "unseen category in training",
        lambda: CategoricalNB(n_categories=2).fit(with_value(0, 0, 7.0), Y),
        ValueError,
        r"column 0 has value\(s\) \[2.0, 7.0\] outside its domain \[0, 1\]",
    ),
    (
        "wrong feature count",
        predict(GaussianNB, X3, X3[:, :2]),
        ValueError,
        r"X has 2 features, but GaussianNB is expecting 3",
    ),
    ("X/y length mismatch", fit(AODE, X3, Y[:3]), ValueError, r"X has 4 rows but y has 3"),
    ("empty X", fit(MultinomialNB, X3[:0], Y[:0]), ValueError, r"X is empty \(0 rows\)"),
    (
        "NaN labels",
        fit(CategoricalNB, X3, np.array(["a", np.nan, "b", "a"], dtype=object)),
        ValueError,
        r"y has 1 missing label\(s\).*row 1",
    ),
    (
        "loss matrix of the wrong shape",
        lambda: GaussianNB().fit(X3, Y).predict(X3, loss=np.ones((3, 3))),
        ValueError,
        r"loss matrix has shape \(3, 3\); expected \(2, 2\)",
    ),
    (
        "negative loss",
        lambda: GaussianNB().fit(X3, Y).predict(X3, loss=[[0, 1], [-2, 0]]),
        ValueError,
        r"entry \[1, 0\] = -2.0 is negative",
    ),
    ("alpha < 0", fit(MultinomialNB, alpha=-0.5), ValueError, r"alpha must be finite and ≥ 0, got -0.5"),
    ("unknown estimate", fit(SPODE, estimate="posterior"), ValueError, r"estimate='posterior' is not one of"),
    (
        "super-parent out of range",
        fit(SPODE, parent=3),
        ValueError,
        r"parent=3 is out of range: there are 3 attributes",
    ),
    ("1-D X", fit(GaussianNB, X3[:, 0]), ValueError, r"Expected a 2-D X .* Reshape your data"),
    (
        "sparse X for a Gaussian model",
        lambda: GaussianNB().fit(__import__("scipy.sparse").sparse.csr_matrix(X3), Y),
        ValueError,
        r"GaussianNB needs dense numeric X",
    ),
    # issue 17: values whose squares overflow, parameters out of range, draws, nullable <NA>
    *[
        (
            f"values of 1e160 for {M.__name__}",
            fit(M, HUGE, np.r_[Y, Y]),
            ValueError,
            r"X has the value 1e\+160 in column 0; Gaussian models need \|x\| ≤ 1e\+150",
        )
        for M in (GaussianNB, LDA, QDA)
    ],
    # MixedNB's Gaussian columns as GaussianNB's: one class's overflowing scatter made every class's NaN
    *[
        (
            f"{value} in a Gaussian column of MixedNB",
            fit(MixedNB, pd.DataFrame({"a": [value, 2.0, 3.0, 1.0], "b": [0.1, 0.5, 0.3, 0.2]})),
            ValueError,
            rf"column 'a' is a gaussian column and has a value beyond ±1e\+150 .*rescale the column\): {text}",
        )
        for value, text in ((1e160, r"1e\+160"), (-1e200, r"-1e\+200"), (np.inf, "inf"))
    ],
    *[
        (
            f"reg_param={r} for {M.__name__}",
            fit(M, reg_param=r),
            ValueError,
            rf"reg_param must be a number in \[0, 1\].*got {r}",
        )
        for M in (LDA, QDA)
        for r in (2.0, -1, np.nan)
    ],
    (
        "frequency_limit NaN",
        lambda: AODE(frequency_limit=np.nan).fit(X3, Y).predict(X3),
        ValueError,
        r"frequency_limit must be a number ≥ 0 \(Weka -F\), got nan",
    ),
    (
        "binarize NaN",
        fit(BernoulliNB, binarize=np.nan),
        ValueError,
        r"binarize must be a finite number \(the threshold\) or None, got nan",
    ),
    (
        "no posterior draws",
        lambda: CategoricalNB().fit(X3, Y).predict_proba_draws(X3, n_draws=0),
        ValueError,
        r"n_draws must be a whole number ≥ 1 \(how many posterior draws\), got 0",
    ),
    (
        "fractional number of draws",
        lambda: GaussianNB().fit(X3, Y).predict_proba_draws(X3, n_draws=2.5),
        ValueError,
        r"n_draws must be a whole number ≥ 1",
    ),
    (
        "no exact draws",
        lambda: CategoricalNB().fit(X3, Y).posterior_draws(0),
        ValueError,
        r"n must be a whole number ≥ 1.*got 0",
    ),
    *[
        (
            f"nullable <NA> for {M.__name__}",
            fit(M, NULLABLE),
            ValueError,
            r"X has a NaN or inf value: nan in column 'w'",
        )
        for M in (GaussianNB, LDA, BernoulliNB, MultinomialNB, LogisticRegression)
    ],
    *[
        (
            f"repeated column name at fit for {M.__name__}",
            fit(M, pd.DataFrame(X3, columns=["u", "v", "u"])),
            ValueError,
            r"X has repeated column name\(s\) \['u'\]: every column needs its own name",
        )
        for M in (GaussianNB, LDA, MultinomialNB, LogisticRegression)
    ],
    *[
        (
            f"repeated column name at fit for {M.__name__}",
            fit(M, COLORS.set_axis(["c", "c"], axis=1)),
            ValueError,
            r"X has repeated column name\(s\) \['c'\]",
        )
        for M in (CategoricalNB, AODE, TAN)
    ],
    (
        "repeated column name at predict",
        predict(CategoricalNB, COLORS, COLORS.assign(size2=COLORS["size"]).set_axis(["color", "size", "size"], axis=1)),
        ValueError,
        r"X has repeated column name\(s\) \['size'\]",
    ),
    (
        "pair tensor beyond memory",
        lambda: TAN(n_categories=1000).fit(np.zeros((2, 2000), dtype=int), [0, 1]),
        ValueError,
        r"TAN's pair counts, a 2 × 2002000 × 2002000 tensor .* GiB of memory, more than the .* GiB available",
    ),
]


@pytest.mark.parametrize("case, action, error, message", CASES, ids=[c[0] for c in CASES])
def test_bad_input_gets_an_error_that_names_it(case, action, error, message):
    with pytest.raises(error, match=message):
        action()


def test_predict_proba_draws_on_no_rows_is_empty():
    model = CategoricalNB().fit(X3, Y)
    assert model.predict_proba_draws(X3[:0], n_draws=3).shape == (3, 0, 2)
    assert model.predict_proba(X3[:0]).shape == (0, 2)


def test_nullable_missing_values_are_missing_for_categorical_models():
    """A nullable Float64 column's <NA> is a missing value, like NaN."""
    with_na = CategoricalNB().fit(NULLABLE, Y).predict_proba(NULLABLE)
    with_nan = CategoricalNB().fit(NULLABLE.astype(float), Y).predict_proba(NULLABLE.astype(float))
    np.testing.assert_allclose(with_na, with_nan)


def test_unseen_category_default_policy_warns_and_skips_it():
    model = CategoricalNB().fit(COLORS, Y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        proba = model.predict_proba(COLORS.assign(color="green"))
    assert any("'green'" in str(w.message) and "treated as missing" in str(w.message) for w in caught)
    np.testing.assert_allclose(proba, model.predict_proba(COLORS.assign(color=None)))
