"""The bad-input matrix: one row per case — the estimator, what is wrong, the error it must give.

Every message names the offending column, value or shape; nothing is silently dropped.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from pgm_models import AODE, LDA, SPODE, BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB

X3 = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0], [2.0, 2.0, 0.0], [1.0, 1.0, 1.0]])
Y = np.array(["a", "b", "a", "b"])
COLORS = pd.DataFrame({"color": ["red", "blue", "red", "blue"], "size": ["S", "L", "L", "S"]})


def with_value(row, column, value, X=X3):
    bad = X.copy()
    bad[row, column] = value
    return bad


def fit(Model, X=X3, y=Y, **params):
    return lambda: Model(**params).fit(X, y)


def predict(Model, X_fit, X_predict, **params):
    return lambda: Model(**params).fit(X_fit, Y).predict(X_predict)


CASES = [
    ("NaN in numeric input", fit(GaussianNB, with_value(1, 2, np.nan)), ValueError, r"NaN or inf value: nan in column 2"),
    ("inf in numeric input", fit(LDA, with_value(0, 1, np.inf)), ValueError, r"NaN or inf value: inf in column 1"),
    ("negative counts", fit(MultinomialNB, with_value(2, 0, -4.0)), ValueError, r"negative value -4.0 in column 0"),
    ("non-binary with binarize=None", fit(BernoulliNB, X3, binarize=None), ValueError, r"non-binary value 2.0 in column 2"),
    ("unseen category, policy error", predict(CategoricalNB, COLORS, COLORS.assign(color="green"), handle_unknown="error"),
     ValueError, r"column 'color' has value\(s\) \['green'\] outside its domain \['blue', 'red'\]"),
    ("unseen category in training", lambda: CategoricalNB(n_categories=2).fit(with_value(0, 0, 7.0), Y), ValueError,
     r"column 0 has value\(s\) \['2.0', '7.0'\] outside its domain \[0, 1\]"),
    ("wrong feature count", predict(GaussianNB, X3, X3[:, :2]), ValueError, r"X has 2 features, but GaussianNB is expecting 3"),
    ("X/y length mismatch", fit(AODE, X3, Y[:3]), ValueError, r"X has 4 rows but y has 3"),
    ("empty X", fit(MultinomialNB, X3[:0], Y[:0]), ValueError, r"X is empty \(0 rows\)"),
    ("NaN labels", fit(CategoricalNB, X3, np.array(["a", np.nan, "b", "a"], dtype=object)), ValueError, r"y has 1 missing label\(s\).*row 1"),
    ("loss matrix of the wrong shape", lambda: GaussianNB().fit(X3, Y).predict(X3, loss=np.ones((3, 3))), ValueError,
     r"loss matrix has shape \(3, 3\); expected \(2, 2\)"),
    ("negative loss", lambda: GaussianNB().fit(X3, Y).predict(X3, loss=[[0, 1], [-2, 0]]), ValueError, r"entry \[1, 0\] = -2.0 is negative"),
    ("alpha < 0", fit(MultinomialNB, alpha=-0.5), ValueError, r"alpha must be finite and ≥ 0, got -0.5"),
    ("unknown estimate", fit(SPODE, estimate="posterior"), ValueError, r"estimate='posterior' is not one of"),
    ("super-parent out of range", fit(SPODE, parent=3), ValueError, r"parent=3 is out of range: there are 3 attributes"),
    ("1-D X", fit(GaussianNB, X3[:, 0]), ValueError, r"Expected a 2-D X .* Reshape your data"),
    ("sparse X for a Gaussian model", lambda: GaussianNB().fit(__import__("scipy.sparse").sparse.csr_matrix(X3), Y), ValueError,
     r"GaussianNB needs dense numeric X"),
]


@pytest.mark.parametrize("case, action, error, message", CASES, ids=[c[0] for c in CASES])
def test_bad_input_gets_an_error_that_names_it(case, action, error, message):
    with pytest.raises(error, match=message):
        action()


def test_unseen_category_default_policy_warns_and_skips_it():
    model = CategoricalNB().fit(COLORS, Y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        proba = model.predict_proba(COLORS.assign(color="green"))
    assert any("'green'" in str(w.message) and "treated as missing" in str(w.message) for w in caught)
    np.testing.assert_allclose(proba, model.predict_proba(COLORS.assign(color=None)))
