"""The Dirichlet conjugate core against hand-derived fractions, scipy, and brute force."""

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.special import gammaln

from pgm_models.conjugate import Beta, Dirichlet, block_sum, log_probabilities, normalize

PRIOR = np.array([1.0, 1.0, 1.0])
COUNTS = np.array([3.0, 0.0, 1.0])


def test_posterior_mean_mode_and_mle_are_the_textbook_fractions():
    posterior = Dirichlet(PRIOR).posterior(COUNTS)
    assert posterior.concentration.tolist() == [4, 1, 2]
    # (n + α)/(N + Σα) = (3+1)/(4+3), (0+1)/7, (1+1)/7
    np.testing.assert_allclose(posterior.mean(), [4 / 7, 1 / 7, 2 / 7])
    # (n + α − 1)/(N + Σα − K) with α = 1 is n/N
    np.testing.assert_allclose(posterior.mode(), [3 / 4, 0, 1 / 4])
    np.testing.assert_allclose(Dirichlet(PRIOR).estimate(COUNTS, "mle"), [3 / 4, 0, 1 / 4])
    np.testing.assert_allclose(Dirichlet(2 * PRIOR).estimate(COUNTS, "map"), [4 / 7, 1 / 7, 2 / 7])


def test_mode_on_the_boundary_puts_cells_with_concentration_at_most_one_at_zero():
    # α = 0.5: cells (3.5, 0.5, 1.5); the naive formula would give a negative 2nd cell.
    mode = Dirichlet(np.full(3, 0.5)).posterior(COUNTS).mode()
    np.testing.assert_allclose(mode, [2.5 / 3.0, 0.0, 0.5 / 3.0])
    assert np.all(mode >= 0)
    # No cell above 1: no unique mode, the mean is returned.
    np.testing.assert_allclose(Dirichlet([0.5, 0.7]).mode(), [0.5 / 1.2, 0.7 / 1.2])
    # Interior mode agrees with scipy's Beta mode formula through the 2-category case.
    a, b = 3.5, 2.25
    assert Beta(a, b).mode() == pytest.approx((a - 1) / (a + b - 2))


def test_marginal_moments_match_scipy_dirichlet_and_beta():
    alpha = np.array([2.0, 3.5, 0.5])
    distribution = stats.dirichlet(alpha)
    d = Dirichlet(alpha)
    np.testing.assert_allclose(d.mean(), distribution.mean())
    np.testing.assert_allclose(d.var(), distribution.var())
    beta = stats.beta(4.0, 2.5)
    assert Beta(4.0, 2.5).mean() == pytest.approx(beta.mean())
    assert Beta(4.0, 2.5).sd() == pytest.approx(beta.std())


def test_blocks_behave_as_independent_dirichlets():
    sizes = [2, 3]
    concentration = np.array([[1.0, 2.0, 3.0, 1.0, 0.5], [4.0, 1.0, 1.0, 1.0, 1.0]])
    joint = Dirichlet(concentration, sizes)
    left, right = Dirichlet(concentration[:, :2]), Dirichlet(concentration[:, 2:])
    for statistic in ("mean", "var", "mode"):
        expected = np.hstack([getattr(left, statistic)(), getattr(right, statistic)()])
        np.testing.assert_allclose(getattr(joint, statistic)(), expected)
    counts = np.array([[1, 0, 2, 0, 1], [0, 3, 1, 1, 0]])
    evidence = joint.log_evidence(counts)
    np.testing.assert_allclose(evidence[:, 0], left.log_evidence(counts[:, :2])[:, 0])
    np.testing.assert_allclose(evidence[:, 1], right.log_evidence(counts[:, 2:])[:, 0])
    np.testing.assert_allclose(block_sum(concentration, np.array(sizes)), [[3, 4.5], [5, 3]])


def polya_urn_log_probability(alpha, sequence):
    """Brute force: draw the sequence one by one from the sequential posterior predictive."""
    alpha = [Fraction(a) for a in alpha]
    probability = Fraction(1)
    for value in sequence:
        probability *= alpha[value] / sum(alpha)
        alpha[value] += 1
    return float(np.log(float(probability)))


def test_log_evidence_is_the_ordered_sequence_probability():
    alpha = [1, 2, 1]
    sequence = [0, 1, 1, 2, 1, 0]
    counts = np.bincount(sequence, minlength=3)
    assert Dirichlet(alpha).log_evidence(counts)[0] == pytest.approx(polya_urn_log_probability(alpha, sequence))
    # scipy's Dirichlet-multinomial counts unordered outcomes: it adds the multinomial coefficient.
    coefficient = gammaln(counts.sum() + 1) - gammaln(counts + 1).sum()
    scipy_value = stats.dirichlet_multinomial.logpmf(counts, np.array(alpha, float), counts.sum())
    assert Dirichlet(alpha).log_evidence(counts)[0] == pytest.approx(scipy_value - coefficient)


def test_sparse_row_predictive_equals_dense_log_evidence():
    concentration = np.array([[1.5, 0.5, 2.0, 1.0], [0.2, 3.0, 1.0, 4.0]])
    X = np.array([[2, 0, 1, 0], [0, 0, 0, 0], [0, 3, 0, 1], [1, 1, 1, 1]], dtype=float)
    expected = np.array([[Dirichlet(concentration[k]).log_evidence(x)[0] for k in range(2)] for x in X])
    d = Dirichlet(concentration)
    np.testing.assert_allclose(d.log_predictive_rows(X), expected)
    np.testing.assert_allclose(d.log_predictive_rows(sp.csr_matrix(X)), expected)


def test_zero_concentration_gives_minus_infinity_never_nan():
    d = Dirichlet([2.0, 0.0, 1.0])
    assert d.log_evidence([1, 1, 0])[0] == -np.inf
    assert d.log_evidence([1, 0, 1])[0] == pytest.approx(np.log(2 / 3 * 1 / 4))
    assert np.isneginf(log_probabilities(d.mean())[1])
    empty = Dirichlet([0.0, 0.0, 0.0])
    np.testing.assert_allclose(empty.mean(), 1 / 3)  # the α → 0 limit of (0 + α)/(0 + 3α)
    assert empty.log_evidence([2, 0, 0])[0] == pytest.approx(-np.log(3))
    assert empty.log_evidence([1, 1, 0])[0] == -np.inf
    assert empty.log_evidence([0, 0, 0])[0] == 0.0
    rows = Dirichlet(np.array([[0.0, 0.0], [1.0, 0.0]])).log_predictive_rows(np.array([[1.0, 1.0], [0, 2]]))
    assert not np.isnan(rows).any()
    np.testing.assert_allclose(rows, [[-np.inf, -np.inf], [-np.log(2), -np.inf]])


def test_samples_have_the_analytic_moments():
    d = Dirichlet(np.array([[3.0, 1.0, 2.0], [0.5, 0.5, 4.0]]))
    draws = d.sample(40000, random_state=0)
    assert draws.shape == (40000, 2, 3)
    np.testing.assert_allclose(draws.sum(axis=-1), 1.0)
    standard_error = d.sd() / np.sqrt(40000)
    assert np.all(np.abs(draws.mean(axis=0) - d.mean()) < 5 * standard_error)
    np.testing.assert_allclose(draws.std(axis=0), d.sd(), rtol=0.03)
    np.testing.assert_array_equal(d.sample(5, random_state=1), d.sample(5, random_state=1))


def test_normalize_is_the_mle_and_makes_empty_blocks_uniform():
    np.testing.assert_allclose(normalize([2.0, 6.0, 0.0, 0.0], np.array([2, 2])), [0.25, 0.75, 0.5, 0.5])


@pytest.mark.parametrize(
    "concentration, sizes, message",
    [([1.0, -0.5], None, "≥ 0"), ([1.0, np.nan], None, "finite"), ([1.0, 1.0, 1.0], [2, 2], "do not tile")],
)
def test_invalid_dirichlet_is_rejected(concentration, sizes, message):
    with pytest.raises(ValueError, match=message):
        Dirichlet(concentration, sizes)


def test_unknown_estimate_is_rejected():
    with pytest.raises(ValueError, match="unknown estimate 'median'"):
        Dirichlet(PRIOR).estimate(COUNTS, "median")


@pytest.mark.parametrize(
    "name", ["CategoricalNB", "BernoulliNB", "MultinomialNB", "GaussianNB", "LDA", "QDA", "SPODE", "TAN"]
)
def test_exact_marginals_have_the_closed_form_mean_and_sd(name, fitted_models):
    """Every parameter's marginal_distribution (Beta, Student-t, Inverse-Gamma) has the analytic
    posterior's mean and sd; only off-diagonal covariance entries have none."""
    model = fitted_models[name]
    means, sds = model.analytic_posterior("mean"), model.analytic_posterior("sd")
    missing = 0
    for variable, (posterior, _) in model._parameters().items():
        for index in np.ndindex(means[variable].shape):
            marginal = posterior.marginal_distribution(index)
            if marginal is None:
                missing += 1
                assert variable == "cov" and index[-1] != index[-2]
                continue
            assert marginal.mean() == pytest.approx(float(means[variable].values[index]), rel=1e-9)
            assert marginal.std() == pytest.approx(float(sds[variable].values[index]), rel=1e-9)
    assert missing == {"LDA": 2, "QDA": 6}.get(name, 0)  # 2 features: one off-diagonal pair per Σ


@pytest.mark.parametrize("bad", [-0.5, np.nan, np.inf])
def test_a_concentration_that_is_negative_or_not_finite_is_refused_by_prior_and_posterior(bad):
    """The prior's check and the posterior's (which keeps the prior's checked blocks): α + n with
    a negative, NaN or infinite cell names the problem; the boundary α = 0 is allowed."""
    with pytest.raises(ValueError, match="finite and ≥ 0"):
        Dirichlet([1.0, bad, 2.0], block_sizes=[1, 2])
    prior = Dirichlet([1.0, 0.0, 2.0], block_sizes=[1, 2])
    with pytest.raises(ValueError, match="finite and ≥ 0"):
        prior.posterior([0.0, bad, 0.0])
    posterior = prior.posterior([3.0, 0.0, 1.0])
    np.testing.assert_array_equal(posterior.concentration, [4.0, 0.0, 3.0])
    np.testing.assert_array_equal(posterior.block_sizes, [1, 2])
    np.testing.assert_array_equal(posterior.mean(), [1.0, 0.0, 1.0])


def test_a_posterior_whose_counts_widen_the_last_axis_checks_the_blocks_again():
    with pytest.raises(ValueError, match=r"block sizes \[1\] do not tile a last axis of length 3"):
        Dirichlet([1.0], block_sizes=[1]).posterior([2.0, 3.0, 5.0])
    np.testing.assert_allclose(
        Dirichlet([1.0]).posterior([2.0, 3.0, 5.0]).mean(), [3 / 13, 4 / 13, 6 / 13]
    )  # one block: fine
