"""Empirical Bayes for SPODE, AODE and TAN (pgm_models.semi_naive._evidence): the learned alpha
is a stationary maximum of the models' Dirichlet–multinomial evidence, the grid's optimum,
independent of row order and chunking; AODE's α are its SPODEs' own."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from pgm_models import AODE, SPODE, TAN, CategoricalNB
from pgm_models.datasets import load_dataset
from pgm_models.model_selection.evidence import dirichlet_evidence, use_evidence_priors

PARENT = "physician-fee-freeze"


@pytest.fixture(scope="module")
def vote():
    return load_dataset("vote")


def _stationary(fitted, per_attribute):
    """∂ log evidence / ∂ log α_p of the fitted model's learned α (one per free value)."""
    counts, blocks, attribute = fitted._evidence_cells()
    cell_param = attribute if per_attribute else np.zeros_like(attribute)
    value_and_gradient, _ = dirichlet_evidence(counts, blocks, cell_param)
    alpha = np.atleast_1d(fitted.alpha_)
    value, gradient = value_and_gradient(alpha)
    assert value == pytest.approx(
        fitted.log_evidence()
        - (fitted._class_prior.log_evidence(fitted.class_count_).sum() if isinstance(fitted, TAN) else 0.0),
        abs=1e-8,
    )
    return alpha, gradient * alpha


def test_spode_log_evidence_by_hand():
    """One class, parent x0, α = 1, rows (0, 0), (0, 1), (1, 1): the joint block (x0 counts 2, 1)
    is the Pólya sequence 1/2 · 2/3 · 1/4 = 1/12; x1 given x0 = 0 (values 0, 1) 1/2 · 1/3 = 1/6;
    x1 given x0 = 1 (value 1) 1/2."""
    X = np.array([[0, 0], [0, 1], [1, 1]])
    model = SPODE(parent=0).fit(X, ["c"] * 3)
    assert model.log_evidence() == pytest.approx(np.log(1 / 12 * 1 / 6 * 1 / 2), rel=1e-13)


@pytest.mark.parametrize(
    "model",
    [SPODE(parent=PARENT, alpha="evidence"), TAN(alpha="evidence", class_alpha="evidence")],
    ids=["SPODE", "TAN"],
)
def test_shared_alpha_is_the_grid_maximum_and_a_fixed_fit(vote, model):
    X, y = vote
    fitted = clone(model).fit(X, y)
    alpha = fitted.alpha_
    assert 0.05 < alpha < 20  # an interior optimum on vote
    alpha_hat, gradient = _stationary(fitted, per_attribute=False)
    assert abs(gradient[0]) < 1e-5
    fixed = dict(alpha=alpha) | ({"class_alpha": fitted.class_alpha_} if isinstance(fitted, TAN) else {})
    best = clone(model).set_params(**fixed).fit(X, y)
    assert best.log_evidence() == pytest.approx(fitted.log_evidence(), abs=1e-9)
    np.testing.assert_allclose(best.predict_proba(X), fitted.predict_proba(X), rtol=1e-12)
    for factor in (0.95, 1.05):  # neighbours are lower
        assert (
            clone(model).set_params(**(fixed | {"alpha": alpha * factor})).fit(X, y).log_evidence()
            < best.log_evidence()
        )
    grid = np.exp(np.linspace(np.log(alpha) - 2, np.log(alpha) + 2, 41))  # a factor 1.1 apart
    values = [clone(model).set_params(**(fixed | {"alpha": a})).fit(X, y).log_evidence() for a in grid]
    assert best.log_evidence() >= max(values) - 1e-9
    assert abs(np.log(grid[int(np.argmax(values))] / alpha)) <= 0.05 + 1e-12  # the grid's best is the nearest point


@pytest.mark.parametrize(
    "model",
    [SPODE(parent=PARENT, alpha="evidence-per-attribute"), TAN(alpha="evidence-per-attribute"), AODE(alpha="evidence")],
    ids=["SPODE", "TAN", "AODE"],
)
def test_per_attribute_and_per_spode_alpha_is_stationary_and_a_maximum(vote, model):
    X, y = vote
    fitted = clone(model).fit(X, y)
    alpha, gradient = _stationary(fitted, per_attribute=True)
    interior = (alpha > 1e-5) & (alpha < 1e5)
    assert interior.sum() >= 10
    np.testing.assert_array_less(np.abs(gradient[interior]), 1e-4)
    counts, blocks, attribute = fitted._evidence_cells()
    value_and_gradient, _ = dirichlet_evidence(counts, blocks, attribute)
    best = value_and_gradient(alpha)[0]
    for j in np.flatnonzero(interior):  # each coordinate's neighbours are lower
        for factor in (0.9, 1.1):
            assert value_and_gradient(np.where(np.arange(len(alpha)) == j, alpha * factor, alpha))[0] < best


def test_aode_learns_each_spodes_own_alpha(vote):
    X, y = vote
    aode = AODE(alpha="evidence").fit(X, y)
    for parent in (0, 3, 15):
        spode = SPODE(parent=parent, alpha="evidence").fit(X, y)
        assert aode.alpha_[parent] == pytest.approx(spode.alpha_, rel=1e-5)
        np.testing.assert_allclose(
            aode.spode(parent).predict_proba(X),
            SPODE(parent=parent, alpha=aode.alpha_[parent]).fit(X, y).predict_proba(X),
            rtol=1e-12,
        )
    assert aode.log_evidence() == pytest.approx(
        sum(SPODE(parent=a, alpha=aode.alpha_[a]).fit(X, y).log_evidence() for a in range(X.shape[1])), abs=1e-6
    )


def test_aode_fallback_alpha_maximises_naive_bayes_evidence(vote):
    """The fallback's α is one value for the class and attribute blocks: CategoricalNB's evidence
    with alpha = class_alpha = fallback_alpha_ is highest there."""
    X, y = vote
    aode = AODE(alpha="evidence").fit(X, y)
    a = aode.fallback_alpha_

    def nb(value):
        return CategoricalNB(alpha=value, class_alpha=value).fit(X, y).log_evidence()

    assert nb(a) > nb(a * 0.95) and nb(a) > nb(a * 1.05)
    assert (nb(a * (1 + 1e-5)) - nb(a * (1 - 1e-5))) / 2e-5 == pytest.approx(0, abs=1e-3)
    # rows with no value at all fall back to naive Bayes with that prior
    empty = pd.DataFrame([[np.nan] * X.shape[1]], columns=X.columns)
    expected = CategoricalNB(alpha=a, class_alpha=a).fit(X, y).predict_joint_log_proba(empty)
    np.testing.assert_allclose(aode.predict_joint_log_proba(empty), expected, rtol=1e-12)


@pytest.mark.parametrize(
    "model",
    [
        SPODE(parent=PARENT, alpha="evidence-per-attribute"),
        AODE(alpha="evidence", weights="bma"),
        TAN(alpha="evidence", class_alpha="evidence"),
    ],
    ids=["SPODE", "AODE", "TAN"],
)
def test_learned_alpha_ignores_row_order_and_chunking(vote, model):
    X, y = vote
    whole = clone(model).fit(X, y)
    order = np.random.default_rng(5).permutation(len(y))
    chunked = clone(model)
    for chunk in np.array_split(order, 3):
        chunked.partial_fit(X.iloc[chunk], y.iloc[chunk], classes=np.unique(y))
    np.testing.assert_allclose(chunked.alpha_, whole.alpha_, rtol=1e-9)
    np.testing.assert_allclose(chunked.predict_proba(X), whole.predict_proba(X), rtol=1e-9)


def test_learned_prior_reaches_the_posterior_and_loo(vote):
    X, y = vote
    spode = SPODE(parent=PARENT, alpha="evidence-per-attribute").fit(X, y)
    names = list(X.columns)
    parameters = spode._parameters()
    for j in (0, 5):
        posterior, _ = parameters[f"feature_prob_{names[j]}"]
        np.testing.assert_allclose(posterior.concentration - spode._counts()[1][j], spode.alpha_[j], rtol=1e-12)
    joint, _ = parameters["joint_prob"]
    np.testing.assert_allclose(joint.concentration - spode._counts()[0], spode.alpha_[names.index(PARENT)], rtol=1e-12)
    # leave-one-out keeps the learned α (as it keeps any fitted prior): that of a fixed fit
    fixed = SPODE(parent=PARENT, alpha=1.0)
    fixed.fit(X, y)
    assert spode.loo(X, y).elpd_loo != pytest.approx(fixed.loo(X, y).elpd_loo)


@pytest.mark.parametrize(
    "model, message",
    [
        (AODE(alpha="evidence-per-attribute"), "must be one of"),
        (SPODE(alpha="evidence", estimator="m-estimate"), "laplace"),
        (TAN(alpha="maximum"), "must be one of"),
    ],
)
def test_bad_evidence_options_are_named(vote, model, message):
    X, y = vote
    with pytest.raises(ValueError, match=message):
        clone(model).fit(X, y)


def test_zoo_switch_to_evidence_priors_works_without_class_alpha(vote):
    X, y = vote
    for model in (SPODE(parent=PARENT), AODE(), TAN()):
        assert use_evidence_priors(model)
        assert model.alpha == "evidence" and getattr(model, "class_alpha", "evidence") == "evidence"
        model.fit(X, y)
        assert np.all(np.asarray(model.alpha_) > 0)
