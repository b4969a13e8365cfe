"""Empirical Bayes for the Gaussian models (GaussianNB: Normal–Inverse-Gamma, LDA/QDA:
Normal–Inverse-Wishart): the closed-form log evidence equals the chain rule of posterior
predictive Student-t densities and a numeric integral, its gradient the finite differences;
"evidence" finds a true maximum, the brute-force grid's, independent of row order."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats
from sklearn.base import clone

from pgm_models import LDA, QDA, GaussianNB
from pgm_models.conjugate.normal import NormalInverseGamma, NormalInverseWishart, batch_moments
from pgm_models.datasets import load_dataset
from pgm_models.model_selection.evidence import describe_prior, use_evidence_priors

LEARN = {
    GaussianNB: ("mean_strength", "var_strength", "prior_var"),
    LDA: ("mean_strength", "cov_strength", "prior_cov"),
    QDA: ("mean_strength", "cov_strength", "prior_cov"),
}


@pytest.fixture(scope="module")
def iris():
    return load_dataset("iris")


def _evidence_model(cls, learned=None, **fixed):
    return cls(**{name: "evidence" for name in (LEARN[cls] if learned is None else learned)}, **fixed)


def _nig_chain_rule(x, m, kappa, a, b):
    """Σ_i log p(x_i | x_<i): Student-t(2a, m, √(b(κ+1)/(aκ))), then the one-row NIG update."""
    total = 0.0
    for value in x:
        total += stats.t.logpdf(value, df=2 * a, loc=m, scale=np.sqrt(b * (kappa + 1) / (a * kappa)))
        b += kappa * (value - m) ** 2 / (2 * (kappa + 1))
        m, kappa, a = (kappa * m + value) / (kappa + 1), kappa + 1, a + 0.5
    return total


def _niw_chain_rule(X, labels, m, kappa, nu, psi, shared):
    """Σ_i log p(x_i | earlier rows) under μ_k | Σ ~ N(m_k, Σ/κ_k), Σ ~ IW(ν, Ψ) (one Σ, or one per
    class): multivariate t(ν − p + 1, m_k, Ψ(κ_k + 1)/(κ_k(ν − p + 1))), then the one-row update."""
    p, n_classes = X.shape[1], m.shape[0]
    m, kappa = m.astype(float).copy(), np.full(n_classes, float(kappa))
    nu = np.full(n_classes, float(nu))
    psi = np.repeat(np.asarray(psi, float)[None], n_classes, axis=0)
    total = 0.0
    for x, k in zip(X, labels):
        s = 0 if shared else k  # with a shared Σ its (ν, Ψ) live in slot 0
        df = nu[s] - p + 1
        total += stats.multivariate_t.logpdf(x, loc=m[k], shape=psi[s] * (kappa[k] + 1) / (kappa[k] * df), df=df)
        psi[s] += kappa[k] / (kappa[k] + 1) * np.outer(x - m[k], x - m[k])
        m[k] = (kappa[k] * m[k] + x) / (kappa[k] + 1)
        kappa[k] += 1
        nu[s] += 1
    return total


def test_nig_log_evidence_is_the_chain_rule_and_the_integral():
    x = np.array([0.3, -1.2, 2.5, 0.9])
    m, kappa, a, b = 0.5, 0.7, 1.8, 1.3
    value = NormalInverseGamma(m, kappa, a, b).log_evidence(len(x), x.mean(), ((x - x.mean()) ** 2).sum())
    assert value == pytest.approx(_nig_chain_rule(x, m, kappa, a, b), rel=1e-12)
    # ∫∫ Π N(x_i | μ, σ²) N(μ | m, σ²/κ) InvGamma(σ² | a, b) dμ dσ² by quadrature, over
    # t = log σ² (the σ² tail is a power law; in t it decays exponentially within the bounds)
    rows = [float(v) for v in x]

    def integrand(mu, t):
        var = math.exp(t)
        log_likelihood = -sum((v - mu) ** 2 for v in rows) / (2 * var) - len(rows) / 2 * math.log(2 * math.pi * var)
        log_mean = -kappa * (mu - m) ** 2 / (2 * var) - 0.5 * math.log(2 * math.pi * var / kappa)
        log_var = a * math.log(b) - math.lgamma(a) - (a + 1) * t - b / var
        return math.exp(log_likelihood + log_mean + log_var + t)

    integral, _ = integrate.dblquad(integrand, -12, 14, -12, 12, epsabs=1e-13, epsrel=1e-10)
    assert value == pytest.approx(np.log(integral), abs=1e-7)


@pytest.mark.parametrize("shared", [True, False])
def test_niw_log_evidence_is_the_chain_rule_of_multivariate_t(shared):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(11, 3)) @ np.array([[1.0, 0.4, 0.0], [0.0, 1.0, 0.3], [0.0, 0.0, 2.0]]) + [1, 2, 3]
    labels = np.array([0, 1, 0, 0, 1, 1, 0, 1, 0, 1, 1])
    m, kappa, nu = np.array([[0.5, 1.5, 2.0], [1.0, 2.5, 3.5]]), 0.6, 3.4  # ν0 between p − 1 and p + 1
    psi = np.array([[1.5, 0.3, 0.1], [0.3, 0.8, -0.2], [0.1, -0.2, 2.2]])
    prior = (
        NormalInverseWishart(m, kappa, nu, psi)
        if shared
        else NormalInverseWishart(m, kappa, np.full(2, nu), np.broadcast_to(psi, (2, 3, 3)))
    )
    value = np.sum(prior.log_evidence(*batch_moments(X, labels, np.ones(len(X)), 2, full=True)))
    assert value == pytest.approx(_niw_chain_rule(X, labels, m, kappa, nu, psi, shared), rel=1e-11)


@pytest.mark.parametrize("cls", [GaussianNB, LDA, QDA])
def test_estimator_log_evidence_is_the_class_sequence_plus_the_chain_rule(cls):
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(9, 2)) * [1.0, 3.0], np.array([0, 1, 1, 0, 1, 0, 0, 1, 1])
    model = cls(mean_strength=0.8).fit(X, y)
    # class sequence under Dirichlet(1, 1): the Pólya urn gives 4! 5! / 10!
    class_part = np.log(np.prod(np.arange(1, 5)) * np.prod(np.arange(1, 6)) / np.prod(np.arange(2, 11)))
    prior = model._prior
    if cls is GaussianNB:
        features = sum(
            _nig_chain_rule(X[y == k, j], prior.m[k, j], prior.kappa[k, j], prior.a[k, j], prior.b[k, j])
            for k in range(2)
            for j in range(2)
        )
    else:
        psi = prior.psi if cls is LDA else prior.psi[0]
        nu = prior.nu if cls is LDA else prior.nu[0]
        features = _niw_chain_rule(X, y, prior.m, 0.8, nu, psi, shared=cls is LDA)
    assert model.log_evidence() == pytest.approx(class_part + features, rel=1e-12)


@pytest.mark.parametrize(
    "cls, learned",
    [
        (GaussianNB, None),
        (LDA, None),
        (QDA, None),
        (LDA, ("cov_strength",)),
        (QDA, ("cov_strength", "mean_strength")),  # ν0 − (p + 1) with a fixed prior_cov
        (QDA, ("prior_cov",)),
        (LDA, ("prior_cov",)),  # Ψ0 alone, ν0 fixed at p + 2
    ],
)
def test_gradient_of_the_learned_hyperparameters_matches_finite_differences(iris, cls, learned):
    X, y = iris
    model = _evidence_model(cls, learned, class_alpha=1.0).fit(X, y)
    moments = model._moments()
    rng = np.random.default_rng(3)
    values = {name: value * rng.uniform(0.5, 2.0, np.shape(value)) for name, value in model._prior_values.items()}

    def evidence(values):
        return model._prior_from(values).log_evidence(*moments).sum()

    prior = model._prior_from(values)
    gradient = model._prior_gradient(values, prior.log_evidence_gradient(*moments))
    for name in learned or LEARN[cls]:
        for index in np.ndindex(np.shape(values[name])):
            step = 1e-6 * np.asarray(values[name])[index]
            plus, minus = ({**values, name: np.asarray(values[name], float).copy()} for _ in range(2))
            plus[name][index] += step
            minus[name][index] -= step
            numeric = (evidence(plus) - evidence(minus)) / (2 * step)
            assert np.asarray(gradient[name])[index] == pytest.approx(numeric, rel=1e-5, abs=1e-6), (name, index)


def _moved(learned, name, factor):
    """The learned values as fixed parameters, one coordinate moved: a strength scaled (ν0 − (p − 1)
    for cov_strength, Ψ0 kept) or the second feature's prior variance scaled."""
    params = {n: getattr(learned, f"{n}_") for n in LEARN[type(learned)]}
    if name == "cov_strength":
        p = learned.n_features_in_
        nu = p - 1 + (params[name] - p + 1) * factor
        psi = learned._prior_psi(learned._prior_values)[1]
        return {**params, name: nu, "prior_cov": psi / (nu - p - 1) if nu > p + 1 else psi}
    value = np.asarray(params[name], float)
    if value.ndim == 0:
        return {**params, name: value * factor}
    second = np.where(np.arange(len(value)) == 1, factor, 1.0)
    return {**params, name: np.diag(np.diag(value) * second) if value.ndim == 2 else value * second}


@pytest.mark.parametrize("cls", [GaussianNB, LDA, QDA])
def test_evidence_is_a_stationary_maximum_and_a_fixed_fit_at_it_agrees(iris, cls):
    X, y = iris
    learned = _evidence_model(cls, class_alpha="evidence").fit(X, y)
    names = LEARN[cls]
    fixed = cls(class_alpha=learned.class_alpha_, **{name: getattr(learned, f"{name}_") for name in names}).fit(X, y)
    best = learned.log_evidence()
    assert fixed.log_evidence() == pytest.approx(best, rel=1e-12)
    np.testing.assert_allclose(fixed.predict_proba(X), learned.predict_proba(X), rtol=1e-9)
    # neighbours are lower, along every coordinate the optimiser moves
    for name in names:
        for factor in (0.97, 1.03, 0.7, 1.4):
            neighbour = cls(class_alpha=learned.class_alpha_, **_moved(learned, name, factor)).fit(X, y)
            assert neighbour.log_evidence() < best, (name, factor)
    # stationary: the learned values' log-space gradient vanishes (the optimiser's own scale)
    values = learned._prior_values
    gradient = learned._prior_gradient(values, learned._prior.log_evidence_gradient(*learned._moments()))
    for name in names:
        np.testing.assert_allclose(np.asarray(gradient[name]) * values[name], 0, atol=1e-4)


def test_evidence_matches_a_brute_force_grid(iris):
    """GaussianNB with κ0 and ν0 learned (s0² fixed at the overall variances): the optimum and a
    dense 2-D grid of the closed-form evidence agree to the grid's spacing."""
    X, y = iris
    model = _evidence_model(GaussianNB, ("mean_strength", "var_strength")).fit(X, y)
    kappa_grid, nu_grid = (
        np.exp(np.linspace(np.log(1e-3), np.log(10), 81)),
        np.exp(np.linspace(np.log(1e-2), np.log(100), 81)),
    )
    moments = model._moments()
    values = np.array(
        [
            [
                model._prior_from({**model._prior_values, "mean_strength": k, "var_strength": v})
                .log_evidence(*moments)
                .sum()
                for v in nu_grid
            ]
            for k in kappa_grid
        ]
    )
    i, j = np.unravel_index(values.argmax(), values.shape)
    best = model._prior.log_evidence(*moments).sum()
    assert values.max() <= best + 1e-9
    assert abs(np.log(kappa_grid[i] / model.mean_strength_)) <= np.log(kappa_grid[1] / kappa_grid[0])
    assert abs(np.log(nu_grid[j] / model.var_strength_)) <= np.log(nu_grid[1] / nu_grid[0])


def test_lda_cov_strength_alone_is_the_one_dimensional_optimum(iris):
    """ν0 alone, with E[Σ] fixed at the diagonal of overall variances: Ψ0 = (ν0 − p − 1) diag(v)."""
    X, y = iris
    model = LDA(cov_strength="evidence").fit(X, y)
    p = X.shape[1]
    excess = np.exp(np.linspace(np.log(1e-2), np.log(1e4), 4001))  # ν0 − (p + 1)
    moments = model._moments()
    values = np.array(
        [model._prior_from({**model._prior_values, "cov_strength": e}).log_evidence(*moments) for e in excess]
    )
    assert values.max() <= model._prior.log_evidence(*moments) + 1e-9
    assert abs(np.log(excess[values.argmax()] / (model.cov_strength_ - p - 1))) <= np.log(excess[1] / excess[0])
    np.testing.assert_allclose(
        model._prior.psi / (model.cov_strength_ - p - 1), np.diag(np.var(np.asarray(X), axis=0)), rtol=1e-12
    )  # E[Σ] stays the fixed guess
    assert not hasattr(model, "prior_cov_")  # only what was learned is exposed


@pytest.mark.parametrize("cls", [GaussianNB, LDA, QDA])
def test_evidence_ignores_row_order_and_chunking(iris, cls):
    X, y = iris
    X = np.asarray(X)
    # m0 fixed by prior_mean: otherwise it is the first batch's mean (the default prior's too)
    model = _evidence_model(cls, class_alpha="evidence", prior_mean=X.mean(axis=0))
    reference = clone(model).fit(X, y)
    order = np.random.default_rng(0).permutation(len(y))
    shuffled = clone(model).fit(X[order], np.asarray(y)[order])
    chunked = clone(model)
    for part in np.array_split(order, 3):
        chunked.partial_fit(X[part], np.asarray(y)[part], classes=reference.classes_)
    for other in (shuffled, chunked):
        for name in LEARN[cls] + ("class_alpha",):
            np.testing.assert_allclose(getattr(other, f"{name}_"), getattr(reference, f"{name}_"), rtol=1e-5)
        np.testing.assert_allclose(other.predict_proba(X), reference.predict_proba(X), rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize(
    "cls, params, message",
    [
        (GaussianNB, dict(mean_strength="evidense"), "mean_strength='evidense'"),
        (GaussianNB, dict(var_strength="evidence-per-attribute"), "var_strength='evidence-per-attribute'"),
        (GaussianNB, dict(prior_var="per-feature"), "prior_var='per-feature'"),
        (LDA, dict(cov_strength="evidnce"), "cov_strength='evidnce'.*a number > 3"),
        (QDA, dict(prior_cov="diagonal"), "prior_cov='diagonal'.*4×4 matrix"),
        (QDA, dict(mean_strength=-1.0), "mean_strength must be a number > 0"),
    ],
)
def test_bad_values_are_named(iris, cls, params, message):
    with pytest.raises(ValueError, match=message):
        cls(**params).fit(*iris)


def test_zoo_helpers_switch_the_gaussian_models_and_describe_their_prior(iris):
    X, y = iris
    for cls in (GaussianNB, LDA, QDA):
        model = cls()
        assert use_evidence_priors(model)
        assert {name: model.get_params()[name] for name in LEARN[cls] + ("class_alpha",)} == dict.fromkeys(
            LEARN[cls] + ("class_alpha",), "evidence"
        )
        text = describe_prior(model.fit(X, y))
        kappa = f"mean_strength={model.mean_strength_:.3g}"
        scale = "prior_var" if cls is GaussianNB else "prior_cov"
        assert text.startswith(kappa) and f"{scale}=" in text and "(4)" in text and "class_alpha=" in text


def test_evidence_cv_benchmark_writes_the_gaussian_table(tmp_path):
    from benchmarks import evidence_cv

    out = tmp_path / "bench.md"
    assert evidence_cv.main(["--family", "gaussian", "--datasets", "heights-weights", "vote", "--write", str(out)]) == 0
    text = out.read_text()
    assert "## Empirical-Bayes Gaussian priors vs the default prior" in text and "alpha = 1" not in text
    rows = [line for line in text.splitlines() if line.startswith("| heights-weights | 9 | 4 |")]
    assert [row.split(" | ")[3] for row in rows] == ["GaussianNB", "LDA", "QDA"]  # vote (nominal) has none
    assert all(row.count("±") == 4 for row in rows)


def test_a_refit_with_fixed_values_forgets_the_learned_ones(iris):
    model = GaussianNB(mean_strength="evidence").fit(*iris)
    assert model.mean_strength_ > 0.01
    model.set_params(mean_strength=0.01).fit(*iris)
    assert not hasattr(model, "mean_strength_")
    assert model.log_evidence() == pytest.approx(GaussianNB().fit(*iris).log_evidence(), rel=1e-13)


def test_the_pymc_model_takes_the_learned_prior(iris):
    """σ²_kj ~ InvGamma(ν0/2, ν0 s0²_j/2) at the learned ν0 and s0²."""
    model = _evidence_model(GaussianNB).fit(*iris)
    alpha, beta = (value.eval() for value in model.pymc_model("counts")["feature_var"].owner.inputs[-2:])
    np.testing.assert_allclose(alpha, np.full((3, 4), model.var_strength_ / 2), rtol=1e-12)
    np.testing.assert_allclose(beta, np.broadcast_to(model.var_strength_ * model.prior_var_ / 2, (3, 4)), rtol=1e-12)
