"""Hyperparameters learned by "evidence" depend on the data's statistics only: one ``fit`` and
the same rows in ``partial_fit`` batches (any chunking, any order) learn the same values and the
same log evidence. The Gaussian models used to keep the first batch's data-scaled reference and
to start each batch's optimiser from the previous batch's optimum; then, where a strength ran to
its 1e6 bound, the other values agreed to 0.4 % only (the evidence's rounding there, two large
log Γ cancelling, stalled L-BFGS-B anywhere along the flat directions), and LDA/QDA's learned
scale ran to the bound together with ν0."""

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
    if name == "wide, ν0 on its bound":
        # classes whose covariance is the data-scaled guess itself and means close together: GaussianNB's
        # var_strength runs to its bound, mean_strength to thousands (a flat direction)
        y = np.repeat(["a", "b"], [70, 50])
        return rng.normal(size=(120, 3)) * [1.0, 3.0, 0.5] + (y == "b")[:, None] * 0.05, y
    # three classes of one distribution: every model's variance strength (ν0) runs to its bound, κ0 stays inside
    rng = np.random.default_rng(5)
    y = np.repeat(["a", "b", "c"], 40)
    return rng.normal(size=(120, 3)) * [1.0, 2.0, 0.5] + (y == "b")[:, None] * 0.02, y


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


@pytest.mark.parametrize("data", ["iris, unbalanced", "diabetes", "wide, ν0 on its bound", "one distribution"])
@pytest.mark.parametrize("model", [GaussianNB(), LDA(), QDA()], ids=type)
@pytest.mark.parametrize("n_batches", [2, 4])
def test_gaussian_evidence_does_not_depend_on_the_chunking(model, data, n_batches):
    _check_same(_evidence(clone(model)), *_numeric(data), n_batches)


@pytest.mark.parametrize("model", [GaussianNB(), LDA(), QDA()], ids=type)
def test_a_strength_whose_evidence_rises_to_infinity_sits_on_the_bound(model):
    """On one distribution's classes the evidence rises with ν0 without end: ν0 is the bound itself
    (not a stall below it), the log evidence there is the highest along ν0, and the other values are
    a stationary point of the rest (their log-space gradient vanishes)."""
    model = _evidence(clone(model)).fit(*_numeric("one distribution"))
    strength = "var_strength" if isinstance(model, GaussianNB) else "cov_strength"
    free = model._prior_values[strength]
    assert free == pytest.approx(1e6, rel=1e-12)
    moments = model._moments()
    best = model._prior.log_evidence(*moments).sum()
    for lower in (1e2, 1e4, 3e5, 9.9e5):
        assert model._prior_from({**model._prior_values, strength: lower}).log_evidence(*moments).sum() < best
    gradient = model._prior_gradient(model._prior_values, model._prior.log_evidence_gradient(*moments))
    assert gradient[strength] > 0  # still rising at the bound
    for name, value in model._prior_values.items():
        if name != strength:
            np.testing.assert_allclose(np.asarray(gradient[name]) * value, 0, atol=1e-9, err_msg=name)


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
