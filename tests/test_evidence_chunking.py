"""Hyperparameters learned by "evidence" depend on the data's statistics only: one ``fit`` and
the same rows in ``partial_fit`` batches (any chunking, any order) learn the same values and the
same log evidence. The Gaussian models used to keep the first batch's data-scaled reference and
to start each batch's optimiser from the previous batch's optimum."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from pgm_models import AODE, LDA, QDA, CategoricalNB, GaussianNB
from pgm_models.datasets import load_dataset
from pgm_models.model_selection.evidence import use_evidence_priors


def _learned(model) -> dict:
    names = (*model.evidence_parameters, "class_alpha")
    return {name: np.atleast_1d(getattr(model, f"{name}_")) for name in names if hasattr(model, f"{name}_")}


def _numeric(name):
    rng = np.random.default_rng(4)
    if name == "iris, unbalanced":
        X, y = load_dataset("iris")
        keep = np.r_[0:50, 50:80, 100:115]  # unbalanced: class_alpha has a finite optimum
        return X.to_numpy()[keep], y.to_numpy()[keep]
    if name == "diabetes":
        X, y = load_dataset("diabetes")
        return X.to_numpy()[:300], y.to_numpy()[:300]
    # classes whose covariance is the data-scaled guess itself and means close together: strengths run to large values
    y = np.repeat(["a", "b"], [70, 50])
    return rng.normal(size=(120, 3)) * [1.0, 3.0, 0.5] + (y == "b")[:, None] * 0.05, y


def _nominal(name):
    if name == "vote":
        X, y = load_dataset("vote")
        return X.iloc[:200], y.iloc[:200].to_numpy()
    X, y = load_dataset("breast-cancer")
    return X, y.to_numpy()


def _check_same(model, X, y, n_batches):
    one = clone(model).fit(X, y)
    order = np.random.default_rng(n_batches).permutation(len(y))
    many = clone(model)
    for batch in np.array_split(order, n_batches):
        many.partial_fit(X.iloc[batch] if hasattr(X, "iloc") else X[batch], y[batch], classes=np.unique(y))
    learned, again = _learned(one), _learned(many)
    assert set(learned) == set(again) and learned
    for name, value in learned.items():
        np.testing.assert_allclose(again[name], value, rtol=1e-6, atol=0, err_msg=name)
    assert many.log_evidence() == pytest.approx(one.log_evidence(), rel=1e-6)


def _evidence(model):
    use_evidence_priors(model)
    return model


@pytest.mark.parametrize("data", ["iris, unbalanced", "diabetes"])
@pytest.mark.parametrize("model", [GaussianNB(), LDA(), QDA()], ids=type)
@pytest.mark.parametrize("n_batches", [2, 4])
def test_gaussian_evidence_does_not_depend_on_the_chunking(model, data, n_batches):
    _check_same(_evidence(clone(model)), *_numeric(data), n_batches)


@pytest.mark.parametrize("data", ["vote", "breast-cancer"])
@pytest.mark.parametrize("model", [CategoricalNB(), CategoricalNB(alpha="evidence-per-attribute"), AODE()], ids=repr)
def test_discrete_evidence_does_not_depend_on_the_chunking(model, data):
    _check_same(
        _evidence(clone(model))
        if model.alpha != "evidence-per-attribute"
        else model.set_params(class_alpha="evidence"),
        *_nominal(data),
        4,
    )
