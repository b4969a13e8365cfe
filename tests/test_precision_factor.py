"""The Normal and Wishart densities of the LDA/QDA PyMC models, written through the Bartlett
factor F of the precision (Λ = F Fᵀ), against scipy's densities and draws."""

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import pytest
import scipy.stats

from pgm_models import LDA, QDA
from pgm_models.gaussian._precision_factor import (
    bartlett_factor,
    normal_logp,
    normal_random,
    wishart_data_term,
    wishart_logp,
    wishart_random,
)
from tests.conftest import logp_at_random_points

pytestmark = pytest.mark.filterwarnings("ignore")


def random_factor(rng, p, batch=()):
    factor = np.tril(rng.normal(size=batch + (p, p)))
    idx = np.arange(p)
    factor[..., idx, idx] = rng.uniform(0.5, 2.0, size=batch + (p,))
    return factor, np.log(np.diagonal(factor, axis1=-2, axis2=-1)).sum(axis=-1)


def test_normal_logp_is_the_multivariate_normal_with_precision_s_f_ft():
    rng = np.random.default_rng(0)
    factor, log_root_det = random_factor(rng, 3, (2,))
    value, mu, scale = rng.normal(size=(2, 3)), rng.normal(size=(2, 3)), np.array([0.7, 12.0])
    got = normal_logp(
        pt.as_tensor(value), mu, pt.as_tensor(scale), pt.as_tensor(factor), pt.as_tensor(log_root_det)
    ).eval()
    expected = [
        scipy.stats.multivariate_normal(mu[k], np.linalg.inv(scale[k] * factor[k] @ factor[k].T)).logpdf(value[k])
        for k in range(2)
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_wishart_logp_is_scipys_wishart_with_scale_the_inverse_precision():
    rng = np.random.default_rng(1)
    factor, log_root_det = random_factor(rng, 4, (3,))
    nu = np.array([5.0, 9.5, 40.0])
    root = rng.normal(size=(3, 4, 6))
    scatter = root @ root.transpose(0, 2, 1)
    data_term = wishart_data_term(scatter, nu)
    got = wishart_logp(
        pt.as_tensor(scatter),
        pt.as_tensor(nu),
        pt.as_tensor(factor),
        pt.as_tensor(log_root_det),
        pt.as_tensor(data_term),
    ).eval()
    expected = [
        scipy.stats.wishart(df=nu[k], scale=np.linalg.inv(factor[k] @ factor[k].T)).logpdf(scatter[k]) for k in range(3)
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_bartlett_factor_is_l_times_a_and_its_log_diagonal_is_half_log_det_precision():
    rng = np.random.default_rng(2)
    psi = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])
    with pm.Model() as model:
        factor, log_root_det = bartlett_factor("precision", 7.0, psi)
    c, z = rng.uniform(1, 5, size=3), rng.normal(size=3)
    replaced = pytensor.graph.replace.graph_replace(
        [factor, log_root_det], {model["precision_c"]: pt.as_tensor(c), model["precision_z"]: pt.as_tensor(z)}
    )
    got_factor, got_log = (x.eval() for x in replaced)
    bartlett = np.diag(np.sqrt(c))
    bartlett[np.tril_indices(3, -1)] = z  # row by row: (1,0), (2,0), (2,1)
    expected = np.linalg.cholesky(np.linalg.inv(psi)) @ bartlett
    np.testing.assert_allclose(got_factor, expected, rtol=1e-12)
    np.testing.assert_allclose(got_log, 0.5 * np.linalg.slogdet(expected @ expected.T)[1], rtol=1e-12)


def test_draws_have_the_distributions_moments():
    # 200,000 draws: each checked mean or covariance entry is off by more than 6 of its standard
    # errors with chance below 1e-8 (near-Gaussian sums of 200,000 terms); 24 checks.
    rng = np.random.default_rng()
    factor, log_root_det = random_factor(np.random.default_rng(3), 2)
    cov = np.linalg.inv(3.0 * factor @ factor.T)
    draws = normal_random(np.array([1.0, -2.0]), 3.0, factor, log_root_det, rng=rng, size=(200_000,))
    error = np.sqrt(np.outer(np.diag(cov), np.diag(cov)) + cov**2) / np.sqrt(
        len(draws)
    )  # sd of each sample covariance entry
    np.testing.assert_array_less(np.abs(draws.mean(axis=0) - [1.0, -2.0]), 6 * np.sqrt(np.diag(cov) / len(draws)))
    np.testing.assert_array_less(np.abs(np.cov(draws.T) - cov), 6 * error)
    scatter = wishart_random(6.0, factor, log_root_det, 0.0, rng=rng, size=(200_000,))
    sigma = np.linalg.inv(factor @ factor.T)
    variance = 6.0 * (sigma**2 + np.outer(np.diag(sigma), np.diag(sigma)))  # Var S_ij = ν(σ_ij² + σ_ii σ_jj)
    np.testing.assert_array_less(np.abs(scatter.mean(axis=0) - 6.0 * sigma), 6 * np.sqrt(variance / len(scatter)))


@pytest.mark.parametrize("Model", [LDA, QDA])
def test_counts_model_is_generative_and_its_gradient_has_no_linear_algebra_op(Model, iris_2d):
    X, y = iris_2d
    model = Model().fit(X, y).pymc_model("counts")
    prior = pm.sample_prior_predictive(draws=5, model=model, random_seed=1)
    assert prior.prior["class_mean"].shape == (1, 5, 3, 2)
    assert prior.prior_predictive["sample_mean"].shape == (1, 5, 3, 2)
    assert np.all(np.linalg.eigvalsh(prior.prior["cov"].to_numpy()) > 0)
    # the gradient NUTS evaluates: only elementwise, reduction and slicing ops (no inverse,
    # Cholesky, determinant or solve, which PyTensor runs as Python calls)
    function = model.logp_dlogp_function(ravel_inputs=True)
    ops = {
        type(getattr(node.op, "core_op", node.op)).__module__
        for node in function._pytensor_function.maker.fgraph.apply_nodes
    }
    assert not any("linalg" in module for module in ops), ops


@pytest.mark.parametrize("Model", [LDA, QDA])
@pytest.mark.parametrize("scale", [1e4, 1e-5])
def test_scatter_log_determinant_does_not_overflow(Model, scale):
    # 30 features on a scale of 1e4: det(S) ≈ (500 · 1e8)^30 overflows float64; its logarithm does not
    X = np.random.default_rng(0).normal(size=(500, 30)) * scale
    logps = Model().fit(X, np.arange(500) % 2).pymc_model("counts").point_logps()
    assert all(np.isfinite(value) for value in logps.values()), logps


def test_the_wishart_data_term_is_zero_where_the_scatter_has_no_density():
    rng = np.random.default_rng(4)
    root = rng.normal(size=(3, 5))
    proper, rank_two = root @ root.T, root[:, :2] @ root[:, :2].T
    p = 3
    # by hand: ((ν − p − 1)/2) log|S| − (νp/2) log 2 − (p(p − 1)/4) log π − Σ_i log Γ((ν − i)/2)
    by_hand = (
        0.5 * (4.0 - p - 1) * np.linalg.slogdet(proper)[1]
        - 0.5 * 4.0 * p * np.log(2)
        - 1.5 * np.log(np.pi)
        - sum(scipy.special.gammaln((4.0 - i) / 2) for i in range(p))
    )
    np.testing.assert_allclose(wishart_data_term(proper, 4.0), by_hand, rtol=1e-12)
    # singular S (rank 2 in 3 dimensions), ν ≤ p − 1, and a stack mixing the cases
    assert wishart_data_term(rank_two, 4.0) == 0.0 and wishart_data_term(proper, 2.0) == 0.0
    np.testing.assert_allclose(
        wishart_data_term(np.stack([proper, rank_two]), np.array([4.0, 1.0])), [by_hand, 0.0], rtol=1e-12
    )


def test_singular_wishart_draws_have_rank_nu_and_mean_nu_sigma():
    # 200,000 draws: each mean entry off by more than 6 standard errors with chance below 1e-8; 9 checks
    factor, log_root_det = random_factor(np.random.default_rng(5), 3)
    sigma = np.linalg.inv(factor @ factor.T)
    draws = wishart_random(2.0, factor, log_root_det, 0.0, rng=np.random.default_rng(), size=(200_000,))
    assert (np.linalg.matrix_rank(draws[:100]) == 2).all()
    variance = 2.0 * (
        sigma**2 + np.outer(np.diag(sigma), np.diag(sigma))
    )  # Var W_ij = ν(σ_ij² + σ_ii σ_jj) holds for ν < p too
    np.testing.assert_array_less(np.abs(draws.mean(axis=0) - 2.0 * sigma), 6 * np.sqrt(variance / len(draws)))
    with pytest.raises(ValueError, match="whole ν"):
        wishart_random(1.5, factor, log_root_det, 0.0, rng=np.random.default_rng(0), size=(2,))


def _small_class_data():
    """Three classes in 4 features: 12 rows, 3 rows (n − 1 = 2 < p), and 6 rows whose last feature is constant."""
    rng = np.random.default_rng(6)
    X = rng.normal(size=(21, 4))
    X[15:, 3] = 0.25
    return X, np.repeat([0, 1, 2], [12, 3, 6])


@pytest.mark.parametrize("Model", [LDA, QDA])
def test_counts_form_observes_every_scatter_and_agrees_with_the_rows_form(Model):
    """A class with no more rows than features, and one with a feature constant within it: their
    scatter has no Wishart density, and the counts form observes its likelihood kernel. Its log
    density differs from the rows form's by one constant at every point (the old model left such a
    QDA class's scatter out, or gave −inf), so NUTS on it targets the rows' posterior."""
    X, y = _small_class_data()
    model = Model().fit(X, y)
    counts = logp_at_random_points(model.pymc_model("counts"))
    difference = counts - logp_at_random_points(model.pymc_model("rows", X, y))
    assert np.all(np.isfinite(counts))
    np.testing.assert_allclose(difference, difference[0], atol=1e-8)


def test_lda_with_fewer_pooled_degrees_of_freedom_than_features_has_a_finite_density():
    X, y = _small_class_data()
    model = LDA().fit(X[[0, 1, 12, 13, 14]], y[[0, 1, 12, 13, 14]])  # N − K = 3 < p = 4
    difference = logp_at_random_points(model.pymc_model("counts")) - logp_at_random_points(
        model.pymc_model("rows", X[[0, 1, 12, 13, 14]], y[[0, 1, 12, 13, 14]])
    )
    assert np.all(np.isfinite(difference))
    np.testing.assert_allclose(difference, difference[0], atol=1e-8)
