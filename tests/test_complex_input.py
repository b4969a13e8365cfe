"""Complex X is refused by name, as scikit-learn refuses it ("Complex data not supported"): NumPy's
cast to float would keep only the real part, with a warning and no error, and fit that."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from pgm_models import LDA, QDA, BernoulliNB, ComplementNB, GaussianNB, MixedNB, MultinomialNB

MODELS = [GaussianNB, LDA, QDA, MultinomialNB, ComplementNB, BernoulliNB, MixedNB]
RNG = np.random.default_rng(0)
REAL = RNG.poisson(2.0, (20, 3)).astype(float)
Y = np.repeat([0, 1], 10)
COMPLEX = REAL + 1j * RNG.normal(size=REAL.shape)


def _message(Model, frame=False):
    where = "column 0" if Model is MixedNB or frame else "X"  # a DataFrame's column is named
    return rf"{where} holds complex values \(complex128\), which .* does not take: the models are for real numbers"


FORMS = ["dense", "zero imaginary part", "DataFrame", "CSR"]
SPARSE_MODELS = (MultinomialNB, ComplementNB, BernoulliNB)  # the others refuse a sparse X for being sparse


@pytest.mark.parametrize(
    "Model, form",
    [(M, form) for M in MODELS for form in FORMS if form != "CSR" or M in SPARSE_MODELS],
    ids=lambda v: v if isinstance(v, str) else v.__name__,
)
def test_complex_x_is_refused_at_fit(Model, form):
    X = {
        "dense": COMPLEX,
        "zero imaginary part": REAL.astype(complex),
        "DataFrame": pd.DataFrame(COMPLEX),
        "CSR": sp.csr_array(COMPLEX),
    }[form]
    with pytest.raises(ValueError, match=_message(Model, frame=form == "DataFrame")):
        Model().fit(X, Y)


@pytest.mark.parametrize("Model", MODELS, ids=lambda m: m.__name__)
def test_complex_x_is_refused_at_prediction(Model):
    model = Model().fit(REAL, Y)
    assert np.isfinite(model.predict_proba(REAL)).all()  # the same values, real, are fine
    with pytest.raises(ValueError, match=_message(Model)):
        model.predict_proba(COMPLEX)
