"""Empirical Bayes (pgm_models.model_selection.evidence): alpha="evidence" maximises the closed-form marginal
likelihood — a true maximum, the brute-force grid's, independent of row order and chunking."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from pgm_models import BernoulliNB, CategoricalNB, MultinomialNB
from pgm_models.conjugate import Dirichlet
from pgm_models.datasets import load_dataset
from pgm_models.model_selection.evidence import dirichlet_evidence, maximize_log_evidence


@pytest.fixture(scope="module")
def cases(binary_data, count_data):
    return {
        "CategoricalNB": (CategoricalNB(), *load_dataset("vote")),
        "BernoulliNB": (BernoulliNB(binarize=None), *binary_data),
        "MultinomialNB": (MultinomialNB(), *count_data),
    }


def _log_evidence(model, X, y, alpha):
    return clone(model).set_params(alpha=alpha).fit(X, y).log_evidence()


def test_log_evidence_is_the_dirichlet_multinomial_by_hand():
    """Two classes of one binary feature, alpha = class_alpha = 1: class sequence (a, a, b) has
    probability 1/2 · 2/3 · 1/4 = 1/12 under the Pólya urn; feature values (1, 1) in class a
    1/2 · 2/3 = 1/3, value 0 in class b 1/2."""
    model = BernoulliNB(binarize=None).fit(np.array([[1.0], [1.0], [0.0]]), ["a", "a", "b"])
    assert model.log_evidence() == pytest.approx(np.log(1 / 12 * 1 / 3 * 1 / 2), rel=1e-13)


def test_dirichlet_evidence_gradient_matches_finite_differences():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 6, size=(3, 7)).astype(float)
    blocks = np.array([3, 4])
    cell_param = np.array([0, 0, 0, 1, 1, 1, 1]) + np.array([[0], [2], [4]])  # 6 free values
    value_and_gradient, n_params = dirichlet_evidence(counts, blocks, cell_param)
    params = rng.uniform(0.3, 3.0, n_params)
    _, gradient = value_and_gradient(params)
    step = 1e-6
    numeric = [
        (value_and_gradient(params + step * e)[0] - value_and_gradient(params - step * e)[0]) / (2 * step)
        for e in np.eye(n_params)
    ]
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6)
    total = sum(Dirichlet(params[cell_param[k]], blocks).log_evidence(counts[k]).sum() for k in range(3))
    assert value_and_gradient(params)[0] == pytest.approx(total, rel=1e-13)


@pytest.mark.parametrize("name", ["CategoricalNB", "BernoulliNB", "MultinomialNB"])
def test_evidence_alpha_is_a_maximum_and_the_grid_optimum(cases, name):
    model, X, y = cases[name]
    fitted = clone(model).set_params(alpha="evidence").fit(X, y)
    alpha = fitted.alpha_
    assert 1e-3 < alpha < 1e3  # an interior optimum on these data
    best = fitted.log_evidence()
    assert best == pytest.approx(_log_evidence(model, X, y, alpha), abs=1e-9)
    # stationary: the derivative in log alpha vanishes (relative to the evidence's size)
    step = 1e-5
    slope = (_log_evidence(model, X, y, alpha * np.exp(step)) - _log_evidence(model, X, y, alpha * np.exp(-step))) / (
        2 * step
    )
    assert abs(slope) < 1e-4 * max(1.0, abs(best)) ** 0.5
    # a maximum: neighbours are lower
    for factor in (0.97, 1.03, 0.5, 2.0):
        assert _log_evidence(model, X, y, alpha * factor) < best
    # the brute-force grid agrees to its spacing, and never beats the optimiser
    grid = np.exp(np.linspace(np.log(1e-3), np.log(1e3), 1201))
    features_only, _ = dirichlet_evidence(
        fitted._feature_counts(),
        fitted._feature_blocks(),
        np.zeros(fitted._feature_prior.concentration.shape, dtype=np.intp),
    )
    values = np.array([features_only(np.array([a]))[0] for a in grid])  # the class part does not depend on alpha
    assert values.max() <= features_only(np.array([alpha]))[0] + 1e-9
    assert abs(np.log(grid[values.argmax()]) - np.log(alpha)) <= np.log(grid[1] / grid[0])


@pytest.mark.parametrize("name", ["CategoricalNB", "BernoulliNB", "MultinomialNB"])
def test_evidence_alpha_ignores_row_order_and_chunking(cases, name):
    model, X, y = cases[name]
    model = clone(model).set_params(alpha="evidence", class_alpha="evidence")
    reference = clone(model).fit(X, y)
    order = np.random.default_rng(0).permutation(len(y))
    X_shuffled = X.iloc[order] if hasattr(X, "iloc") else X[order]
    y_shuffled = y.iloc[order] if hasattr(y, "iloc") else np.asarray(y)[order]
    shuffled = clone(model).fit(X_shuffled, y_shuffled)
    assert shuffled.alpha_ == pytest.approx(reference.alpha_, rel=1e-7)
    assert shuffled.class_alpha_ == pytest.approx(reference.class_alpha_, rel=1e-7)
    if name != "CategoricalNB":  # vote's domains come from the Categorical dtype either way
        chunked = clone(model)
        for part in np.array_split(np.arange(len(y)), 3):
            chunked.partial_fit(X[part], np.asarray(y)[part], classes=reference.classes_)
        assert chunked.alpha_ == pytest.approx(reference.alpha_, rel=1e-7)
        np.testing.assert_allclose(chunked.predict_proba(X), reference.predict_proba(X), rtol=1e-9)


def test_evidence_fit_predicts_as_a_fixed_fit_at_the_learned_values(cases):
    model, X, y = cases["CategoricalNB"]
    learned = clone(model).set_params(alpha="evidence", class_alpha="evidence").fit(X, y)
    fixed = clone(model).set_params(alpha=learned.alpha_, class_alpha=learned.class_alpha_).fit(X, y)
    np.testing.assert_allclose(learned.predict_proba(X), fixed.predict_proba(X), rtol=1e-12)
    np.testing.assert_allclose(learned.feature_concentration_, fixed.feature_concentration_, rtol=1e-12)
    assert learned.log_evidence() == pytest.approx(fixed.log_evidence(), rel=1e-13)


def test_class_alpha_evidence_is_the_one_dimensional_optimum():
    """Class counts (30, 10): the evidence of c is log Γ(2c) − log Γ(2c + 40) + Σ log Γ(c + n_k) − 2 log Γ(c);
    its maximum, found here by a dense grid, is what class_alpha="evidence" picks."""
    from scipy.special import gammaln

    y = np.repeat([0, 1], [30, 10])
    model = BernoulliNB(binarize=None, class_alpha="evidence").fit(np.zeros((40, 1)), y)
    grid = np.exp(np.linspace(np.log(1e-2), np.log(1e2), 200001))
    evidence = gammaln(2 * grid) - gammaln(2 * grid + 40) + gammaln(grid + 30) + gammaln(grid + 10) - 2 * gammaln(grid)
    assert model.class_alpha_ == pytest.approx(grid[evidence.argmax()], rel=1e-4)


def test_per_attribute_evidence_is_stationary_in_every_interior_coordinate(cases):
    model, X, y = cases["CategoricalNB"]
    fitted = clone(model).set_params(alpha="evidence-per-attribute").fit(X, y)
    shared = clone(model).set_params(alpha="evidence").fit(X, y)
    assert fitted.alpha_.shape == (X.shape[1],)
    assert fitted.log_evidence() >= shared.log_evidence()  # more freedom cannot lower the maximum
    value_and_gradient, _ = dirichlet_evidence(
        fitted._feature_counts(),
        fitted._feature_blocks(),
        fitted._prior_concentration(np.arange(X.shape[1])).astype(np.intp),
    )
    _, gradient = value_and_gradient(fitted.alpha_)
    interior = (fitted.alpha_ > 1e-5) & (fitted.alpha_ < 1e5)
    assert interior.sum() >= X.shape[1] - 2
    np.testing.assert_allclose((gradient * fitted.alpha_)[interior], 0, atol=1e-5)


def test_maximize_log_evidence_finds_a_known_optimum():
    """f(λ) = log λ − λ/3 peaks at λ = 3."""
    (best,), value = maximize_log_evidence(lambda p: (np.log(p[0]) - p[0] / 3, np.array([1 / p[0] - 1 / 3])), 1)
    assert best == pytest.approx(3.0, rel=1e-7)
    assert value == pytest.approx(np.log(3) - 1, rel=1e-12)


def test_unknown_evidence_option_is_rejected(count_data):
    with pytest.raises(ValueError, match="alpha='evidense'"):
        MultinomialNB(alpha="evidense").fit(*count_data)
    with pytest.raises(ValueError, match="class_alpha='evidence-per-attribute'"):
        MultinomialNB(class_alpha="evidence-per-attribute").fit(*count_data)


def test_evidence_prior_builds_the_pymc_model_with_the_learned_concentrations(count_data):
    model = MultinomialNB(alpha="evidence", class_alpha="evidence").fit(*count_data)
    pymc_model = model.pymc_model("counts")  # the learned prior is proper, so the model builds
    concentration = pymc_model["feature_prob"].owner.inputs[-1].eval()
    np.testing.assert_allclose(concentration, model.alpha_, rtol=1e-12)
