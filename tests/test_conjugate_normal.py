"""Normal–Inverse-Gamma and Normal–Inverse-Wishart conjugacy against scipy and brute force."""

import math

import numpy as np
import pytest
from scipy import stats

from pgm_models.conjugate.normal import (
    NormalInverseGamma,
    NormalInverseWishart,
    batch_moments,
    digamma_difference,
    log_gamma_ratio,
    merge_moments,
)


def test_nig_update_by_hand():
    # prior m=0, κ=1, a=2, b=1; data 1, 2, 3: n=3, x̄=2, S=2
    posterior = NormalInverseGamma(0, 1, 2, 1).posterior(3, 2.0, 2.0)
    assert (posterior.kappa, posterior.m, posterior.a) == (4, 1.5, 3.5)
    assert posterior.b == pytest.approx(1 + 1 + 1 * 3 * 4 / (2 * 4))  # b + S/2 + κn(x̄−m)²/(2κ')
    assert posterior.mean()["var"] == pytest.approx(posterior.b / 2.5)
    assert posterior.mode()["var"] == pytest.approx(posterior.b / 5.0)


def test_nig_marginals_match_scipy_invgamma_and_t():
    nig = NormalInverseGamma(1.0, 2.0, 5.0, 3.0)
    invgamma = stats.invgamma(5.0, scale=3.0)
    assert nig.mean()["var"] == pytest.approx(invgamma.mean())
    assert nig.sd()["var"] == pytest.approx(invgamma.std())
    t = stats.t(df=10.0, loc=1.0, scale=np.sqrt(3.0 / (5.0 * 2.0)))
    assert nig.sd()["mu"] == pytest.approx(t.std())
    x = np.array([-1.0, 0.5, 3.0])
    predictive = stats.t(df=10.0, loc=1.0, scale=np.sqrt(3.0 * 3.0 / (5.0 * 2.0)))
    np.testing.assert_allclose(nig.log_predictive(x), predictive.logpdf(x))


def test_nig_predictive_is_the_integral_of_the_likelihood_over_the_posterior():
    nig = NormalInverseGamma(0.5, 1.5, 4.0, 2.0)
    draws = nig.sample(400_000, random_state=0)
    x = 1.3
    monte_carlo = np.mean(stats.norm.pdf(x, draws["mu"], np.sqrt(draws["var"])))
    assert np.exp(nig.log_predictive(x)) == pytest.approx(monte_carlo, rel=0.01)


@pytest.mark.parametrize("shared", [True, False])
def test_niw_moments_match_scipy_and_samples(shared):
    psi = np.array([[2.0, 0.5], [0.5, 1.0]])
    niw = NormalInverseWishart(
        np.zeros((3, 2)), [1.0, 2.0, 3.0], 9.0 if shared else [9.0, 9.0, 9.0], psi if shared else np.stack([psi] * 3)
    )
    reference = stats.invwishart(df=9, scale=psi)
    cov_mean, cov_sd = niw.mean()["cov"], niw.sd()["cov"]
    np.testing.assert_allclose(cov_mean if shared else cov_mean[1], reference.mean())
    np.testing.assert_allclose((cov_sd if shared else cov_sd[1]) ** 2, reference.var())
    draws = niw.sample(20_000, random_state=1)
    assert draws["mu"].shape == (20_000, 3, 2)
    np.testing.assert_allclose(draws["mu"].std(axis=0), niw.sd()["mu"], rtol=0.05)
    np.testing.assert_allclose(draws["cov"].mean(axis=0), cov_mean, rtol=0.05, atol=0.005)


def test_niw_predictive_is_multivariate_t():
    psi = np.array([[2.0, 0.3], [0.3, 1.0]])
    niw = NormalInverseWishart(np.array([[0.0, 1.0]]), 2.0, 7.0, psi)
    X = np.array([[0.1, 0.2], [2.0, -1.0]])
    df = 7.0 - 2 + 1
    expected = stats.multivariate_t(loc=[0.0, 1.0], shape=psi * 3.0 / (2.0 * df), df=df).logpdf(X)
    np.testing.assert_allclose(niw.log_predictive(X)[:, 0], expected)


def test_niw_pooled_update_equals_per_class_scatter_summed():
    rng = np.random.default_rng(2)
    X, c = rng.normal(size=(60, 2)), rng.integers(0, 3, 60)
    n, mean, scatter = batch_moments(X, c, np.ones(60), 3, full=True)
    prior = NormalInverseWishart(np.zeros((3, 2)), 0.5, 5.0, np.eye(2))
    posterior = prior.posterior(n, mean, scatter)
    assert posterior.nu == 65.0
    spread = sum(0.5 * n[k] / (0.5 + n[k]) * np.outer(mean[k], mean[k]) for k in range(3))
    np.testing.assert_allclose(posterior.psi, np.eye(2) + scatter.sum(axis=0) + spread)


def test_moments_merge_exactly_across_batches():
    rng = np.random.default_rng(3)
    X, c, w = rng.normal(size=(100, 3)), rng.integers(0, 2, 100), rng.random(100)
    for full in (True, False):
        whole = batch_moments(X, c, w, 2, full)
        merged = merge_moments(
            *batch_moments(X[:30], c[:30], w[:30], 2, full), *batch_moments(X[30:], c[30:], w[30:], 2, full), full=full
        )
        for a, b in zip(whole, merged):
            np.testing.assert_allclose(a, b, atol=1e-12)
    weighted = X[c == 0] * 1.0
    np.testing.assert_allclose(
        batch_moments(X, c, np.ones(100), 2, True)[2][0], np.cov(weighted.T, ddof=0) * len(weighted)
    )


@pytest.mark.parametrize("weights", ["unit", "fractional"])
def test_per_feature_moments_over_chunks_are_the_weighted_formulas(weights, monkeypatch):
    """The per-feature moments read chunks of rows (``WORK_ROWS``): 5 003 rows in three chunks
    (the last short), at a location of 1e6, give each class's Σw, Σw x / Σw and Σw (x − x̄)², a class
    with no row 0 throughout; a chunk of one row gives the same."""
    from pgm_models.conjugate import normal

    rng = np.random.default_rng(16)
    X, c = rng.normal(size=(5003, 3)) + 1e6, rng.choice([0, 2], 5003)  # class 1 has no row
    w = np.ones(5003) if weights == "unit" else rng.random(5003) * 3
    expected_n = np.array([w[c == k].sum() for k in range(3)])
    expected_mean = np.array(
        [w[c == k] @ X[c == k] / expected_n[k] if expected_n[k] else np.zeros(3) for k in range(3)]
    )
    expected_scatter = np.array([w[c == k] @ (X[c == k] - expected_mean[k]) ** 2 for k in range(3)])
    assert normal.WORK_ROWS == 2048
    for rows in (2048, 1):
        monkeypatch.setattr(normal, "WORK_ROWS", rows)
        n, mean, scatter = batch_moments(X, c, w, 3, full=False)
        np.testing.assert_allclose(n, expected_n, rtol=1e-12)
        np.testing.assert_allclose(mean, expected_mean, rtol=1e-14)
        np.testing.assert_allclose(scatter, expected_scatter, rtol=1e-9)
        assert n[1] == 0 and not mean[1].any() and not scatter[1].any()


@pytest.mark.parametrize("a", [0.75, 50.5, 99.99, 100.0, 150.5, 1e4 + 0.5, 1e6 + 0.25, 1e9 + 0.5])
@pytest.mark.parametrize("h", [1, 7, 60])
def test_log_gamma_ratio_and_digamma_difference_are_the_exact_sums(a, h):
    """For integer h, log Γ(a + h) − log Γ(a) = Σ_{i<h} log(a + i) and ψ(a + h) − ψ(a) = Σ_{i<h} 1/(a + i)
    (Γ(x + 1) = x Γ(x)), summed exactly by fsum. Two log Γ of a ≈ 1e6 differ by ε·a·log a ≈ 3e-9 in
    float64; the Stirling form stays at the rounding of the result."""
    exact_log = math.fsum(math.log(a + i) for i in range(h))
    exact_psi = math.fsum(1 / (a + i) for i in range(h))
    assert float(log_gamma_ratio(a, h)) == pytest.approx(exact_log, rel=1e-14, abs=1e-14)
    assert float(digamma_difference(a, h)) == pytest.approx(exact_psi, rel=1e-12)
