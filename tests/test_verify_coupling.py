"""check_posterior tests the joint of the means and their (co)variances (mean_spread_coupling):
draws with the right marginals but each mean drawn apart from its own (co)variance (the mean
draws shuffled) used to pass it. Q = Σ_k κ_k (μ_k − m_k)ᵀ Σ_k⁻¹ (μ_k − m_k) is exactly χ² on D
degrees of freedom under the closed-form posterior."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from pgm_models import LDA, QDA, GaussianNB, check_posterior
from pgm_models.inference.verify import mean_spread_coupling

# 8 rows a class: the means' spread depends on Σ enough that E[Q]/D = a/(a − 1) = 1.22 (GaussianNB,
# a = 5.5) or ν/(ν − p − 1) = 1.12 (LDA, ν = 28): with 4000 exact draws the shuffled draws' z is
# about 24 and 13, against a threshold of Φ⁻¹(1 − 1e-4/6) = 4.2 (family_error 1e-4)
FAMILY_ERROR = 1e-4
MEANS = {GaussianNB: ("feature_mean", "feature_var"), LDA: ("class_mean", "cov"), QDA: ("class_mean", "cov")}


@pytest.fixture(scope="module")
def small_iris(iris_2d):
    X, y = iris_2d
    pick = np.r_[0:8, 50:58, 100:108]
    return X[pick], y[pick]


def _shuffled_means(idata, name, seed):
    """The mean draws permuted across all draws: every marginal unchanged, the joint broken."""
    shuffled = idata.copy()
    values = shuffled.posterior[name].values
    flat = values.reshape((-1,) + values.shape[2:])
    shuffled.posterior[name].values[...] = flat[np.random.default_rng(seed).permutation(len(flat))].reshape(
        values.shape
    )
    return shuffled


@pytest.mark.parametrize("model_class", [GaussianNB, LDA, QDA], ids=lambda c: c.__name__)
def test_shuffled_means_fail_and_exact_draws_pass(small_iris, model_class):
    """Exact draws fail with chance at most FAMILY_ERROR (1e-4) over all tests of check_posterior;
    the shuffled draws pass the coupling test with chance below 1e-9 (z ≈ 13 to 24 against 4.2):
    seeds fixed, so the outcome is reproducible."""
    model = model_class().fit(*small_iris)
    idata = model.posterior_draws(1000, random_seed=1, chains=4)
    exact = check_posterior(model, idata, family_error=FAMILY_ERROR)
    assert exact.passed, exact.reasons
    assert exact.coupling_df == 6 and abs(exact.coupling_z) < exact.thresholds["coupling_z_max"]
    assert exact.thresholds["coupling_z_max"] == pytest.approx(norm.isf(FAMILY_ERROR / 6))
    shuffled = check_posterior(model, _shuffled_means(idata, MEANS[model_class][0], seed=2), family_error=FAMILY_ERROR)
    assert not shuffled.passed
    assert shuffled.coupling_z > 8
    # the marginal and chi-square tests cannot see a shuffle: only the coupling fails
    assert [r for r in shuffled.reasons if not r.startswith("joint of means and (co)variances")] == []


def test_q_is_chi_square_on_d_degrees_of_freedom(small_iris):
    """Exact draws of GaussianNB's and LDA's posteriors: mean Q = D and Var Q = 2D within their
    Monte Carlo errors (i.i.d. draws; 6 sd of the estimates: a false failure below 1e-8)."""
    for model_class in (GaussianNB, LDA):
        model = model_class().fit(*small_iris)
        idata = model.posterior_draws(20_000, random_seed=3, chains=1)
        posteriors = {name: p for name, (p, _) in model._parameters().items()}
        draws = {name: idata.posterior[name].values for name in posteriors}
        mean_name, spread_name = MEANS[model_class]
        joint = posteriors[mean_name].joint
        deviation = draws[mean_name][0] - joint.m
        if model_class is GaussianNB:
            q = (joint.kappa * deviation**2 / draws[spread_name][0]).sum(axis=(1, 2))
        else:
            q = np.einsum("k,ski,sij,skj->s", joint.kappa, deviation, np.linalg.inv(draws[spread_name][0]), deviation)
        assert abs(q.mean() - 6) < 6 * np.sqrt(12 / q.size)
        assert abs(q.var() - 12) < 6 * np.sqrt(
            (48 * 6 + 2 * 144) / q.size
        )  # Var of a χ²_6 sample variance: (μ4 − σ⁴)/n
        z, df = mean_spread_coupling(posteriors, {name: v for name, v in draws.items()})
        assert df == 6 and z == pytest.approx((q.mean() - 6) / np.sqrt(12 / q.size), rel=0.05)
