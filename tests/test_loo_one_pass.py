"""Round 3 of leave-one-out: the one-pass LOO of one-hot rows (missing values, empty blocks),
the short-axis log_sum_exp, integer X as its own codes, and HierarchicalNB's LOO with λ
integrated out, against 1-D quadrature of the exact leave-one-out posterior of λ."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import gammaln
from sklearn.base import clone
from test_loo import _brute_force

from pgm_models import BernoulliNB, CategoricalNB
from pgm_models.conjugate import log_sum_exp
from pgm_models.conjugate.dirichlet import downdated_log_evidence, one_hot_log_predictive
from pgm_models.naive_bayes.hierarchical import HierarchicalNB


@pytest.fixture(scope="module")
def nominal_with_gaps():
    """12 rows, 3 attributes (3, 2 and 4 values, one declared value never seen), 3 classes,
    missing values in every attribute; class "s" has two rows, one missing attribute a."""
    X = pd.DataFrame(
        {
            "a": pd.Categorical(
                ["r", "g", "b", "r", None, "g", "b", "b", "r", "g", None, "r"], categories=["r", "g", "b"]
            ),
            "b": pd.Categorical(["u", "v", "u", None, "v", "v", "u", "u", "v", None, "u", "v"], categories=["u", "v"]),
            "c": pd.Categorical(
                ["w", "x", None, "y", "w", "x", "x", "y", None, "w", "x", "w"], categories=["w", "x", "y", "z"]
            ),
        }
    )
    y = np.array(["p", "q", "p", "q", "p", "q", "p", "q", "p", "q", "s", "s"])
    return X, y


@pytest.mark.parametrize("alpha", [0.6, 0.0])
@pytest.mark.parametrize("conditional", [True, False])
def test_one_pass_loo_with_missing_values_equals_refits(nominal_with_gaps, alpha, conditional):
    """Missing values are skipped in both the fit and the leave-one-out; with alpha = 0 a value
    seen once in its class gets probability 0 once its row is out (−inf), and leaving out row 11
    empties class "s"'s block of attribute a (row 10 misses it): the uniform limit 1/S_j, as a
    refit gives."""
    X, y = nominal_with_gaps
    model = CategoricalNB(alpha=alpha, class_alpha=1.3)
    result = clone(model).fit(X, y).loo(X, y, conditional=conditional)
    expected = _brute_force(model, X, y, conditional)
    assert np.isfinite(expected).all() == (alpha > 0)  # the alpha = 0 case does reach log 0
    np.testing.assert_allclose(result.loo_i.values, expected, rtol=0, atol=1e-10)


def test_one_hot_pass_equals_the_general_dirichlet_downdate(nominal_with_gaps):
    """The one-hot pass and the general Dirichlet–multinomial downdate of the same one-hot
    design (no shared code) agree; the full-data column is the posterior-mean plug-in."""
    X, y = nominal_with_gaps
    model = CategoricalNB(alpha=0.6).fit(X, y)
    codes, class_index = model._loo_rows(X, y)
    concentration = model.feature_concentration_
    full, left_out = one_hot_log_predictive(concentration, model.n_categories_, codes, class_index)
    general = downdated_log_evidence(concentration, model.n_categories_, model._design(codes), class_index)
    np.testing.assert_allclose(left_out, general, rtol=0, atol=1e-12)
    np.testing.assert_allclose(full, model._feature_log_likelihood(codes, "predictive"), rtol=0, atol=1e-12)
    own, own_left = one_hot_log_predictive(concentration, model.n_categories_, codes, class_index, all_classes=False)
    np.testing.assert_array_equal(own, full[np.arange(len(y)), class_index])
    np.testing.assert_array_equal(own_left, left_out)


def test_one_hot_pass_rejects_a_row_that_was_not_counted(nominal_with_gaps):
    X, y = nominal_with_gaps
    model = CategoricalNB(alpha=0.5).fit(X, y)
    with pytest.raises(ValueError, match="do not give the fitted feature_count_"):
        model.loo(X, np.roll(y, 1))  # same class counts, rows under other classes


@pytest.mark.parametrize("conditional", [True, False])
def test_bernoulli_one_pass_loo_of_sparse_rows_equals_refits(binary_data, conditional):
    import scipy.sparse as sp

    X, y = binary_data
    model = BernoulliNB(alpha=0.4, binarize=None)
    result = clone(model).fit(sp.csr_array(X), y).loo(sp.csr_array(X), y, conditional=conditional)
    np.testing.assert_allclose(result.loo_i.values, _brute_force(model, X, y, conditional), rtol=0, atol=1e-10)


def test_log_sum_exp_short_and_long_axes_agree():
    """The slice-by-slice path (short axis) and the vectorised one (long axis) give the same
    numbers, −inf for an all −inf slice, +inf for a +inf entry."""
    rng = np.random.default_rng(3)
    values = rng.normal(scale=30, size=(200, 5))
    values[0] = -np.inf
    values[1, 2] = np.inf
    short = log_sum_exp(values, axis=1)
    long = log_sum_exp(values.T, axis=0)  # the same slices, 5 of them
    reference = np.log(np.exp(values - 100).sum(axis=1)) + 100  # no value above 100 but +inf
    np.testing.assert_allclose(short[2:], reference[2:], rtol=1e-13)
    np.testing.assert_array_equal(short, long)
    assert short[0] == -np.inf and short[1] == np.inf
    wide = rng.normal(size=(3, 500))  # 500 > 64: the vectorised path
    np.testing.assert_allclose(log_sum_exp(wide, axis=1), np.log(np.exp(wide).sum(axis=1)), rtol=1e-13)


def test_integer_matrix_inside_its_domains_is_its_own_read_only_codes():
    X = np.array([[0, 2], [1, 0], [1, 1]])
    model = CategoricalNB(n_categories=[2, 3]).fit(X, [0, 1, 1])
    codes = model._encode(X, reset=False, training=False)
    np.testing.assert_array_equal(codes, X)
    assert not codes.flags.writeable and np.shares_memory(codes, X)
    with pytest.warns(UserWarning, match="outside its domain"):
        outside = model._encode(np.array([[0, 3], [2, 0]]), reset=False, training=False)
    np.testing.assert_array_equal(outside, [[0, -1], [-1, 0]])


# ---------------------------------------------------------------- HierarchicalNB, λ integrated out


def _log_evidence(counts, sizes, lam):
    """log p(feature counts | λ) for every λ of the grid: Σ_kj log Γ(S_j λ) − log Γ(S_j λ + N_kj)
    + Σ_s log Γ(λ + n_kjs) − log Γ(λ), counts a list of (K, S_j) arrays (written out here, not
    the package's Dirichlet)."""
    lam = lam[:, None, None]
    total = 0.0
    for n, size in zip(counts, sizes):
        total = (
            total
            + (gammaln(size * lam) - gammaln(size * lam + n.sum(axis=1)[None, :, None])).sum(axis=(1, 2))
            + (gammaln(lam + n[None]) - gammaln(lam)).sum(axis=(1, 2))
        )
    return total


def test_hierarchical_loo_matches_quadrature_of_the_leave_one_out_posterior():
    """One shared λ ~ Gamma(2, 2); 40 rows (10 patterns × 4), 2 attributes of 3 values, 2
    classes. The exact answer by quadrature on a fine grid of log λ: p(λ | D₋ᵢ) ∝ prior(λ)
    p(D₋ᵢ | λ) (the closed-form Dirichlet–multinomial evidence of the counts without row i), and

        p(y_i, x_i | D₋ᵢ) = ∫ p(y_i, x_i | D₋ᵢ, λ) p(λ | D₋ᵢ) dλ,   p(x_i | D₋ᵢ) = Σ_k of the same,

    with p(k, x_i | D₋ᵢ, λ) = (N_k − δ + 1)/(N − 1 + 2) · p(D₋ᵢ + x_i as class k | λ)/p(D₋ᵢ | λ).

    The routine gets S = 2000 draws of λ ~ p(λ | D) by inverse CDF on the same grid at the
    quantiles (s + ½)/S: the check is deterministic (no false-failure chance) and its error is
    set by the number of draws. Both scores are ratios of averages over the draws of
    g = w = 1/p(y_i, x_i | D₋ᵢ, λ) (the importance weight) and g = w · p(x_i | D₋ᵢ, λ); such an
    equal-weight average at the centred quantiles is within V(g)/(2S) of its integral (Koksma's
    inequality: their star discrepancy is 1/(2S); V the total variation, measured over the
    draws). The tolerance is 3× the larger relative bound per row (two averages per score, and
    log(1 + e) ≤ 1.5 e for these small e): between 1e-4 and 1e-3. Pareto smoothing moves only
    the M = ⌈3√S⌉ largest weights, to a fit of that same tail (every k̂ < 0.7 here); the errors
    measured, ≤ 2e-5, show it well inside the margin. Plugging λ's posterior mean in instead of
    integrating λ out misses by up to 0.025."""
    pattern_X = np.array([[0, 1], [0, 0], [1, 1], [2, 2], [0, 1], [1, 2], [2, 2], [2, 0], [0, 0], [1, 2]])
    pattern_y = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    X, y = np.tile(pattern_X, (4, 1)), np.tile(pattern_y, 4)
    n_rows, sizes = len(y), [3, 3]
    hierarchical = HierarchicalNB(CategoricalNB(n_categories=sizes), hyperprior_params=(2.0, 2.0)).fit_counts(X, y)

    def counts_of(rows):
        return [
            np.stack([np.bincount(X[rows][y[rows] == k, j], minlength=s) for k in (0, 1)]) for j, s in enumerate(sizes)
        ]

    log_grid = np.linspace(np.log(1e-4), np.log(1e3), 40001)
    lam = np.exp(log_grid)
    log_prior = stats.gamma(2.0, scale=0.5).logpdf(lam) + log_grid  # density in log λ

    def normalised(log_density):
        weights = np.exp(log_density - log_density.max())
        return weights / np.trapezoid(weights, log_grid)

    posterior = normalised(log_prior + _log_evidence(counts_of(np.arange(n_rows)), sizes, lam))
    cdf = np.concatenate(([0.0], np.cumsum((posterior[1:] + posterior[:-1]) / 2 * np.diff(log_grid))))
    n_draws = 2000
    log_draws = np.interp((np.arange(n_draws) + 0.5) / n_draws * cdf[-1], cdf, log_grid)

    exact_joint, exact_conditional, tolerance = [], [], []
    for i in range(len(pattern_y)):  # the other rows repeat these ten
        rest = np.flatnonzero(np.arange(n_rows) != i)
        counts = counts_of(rest)
        evidence = _log_evidence(counts, sizes, lam)
        joint_k = []
        for k in (0, 1):
            with_row = [c.copy() for c in counts]
            for j in range(2):
                with_row[j][k, X[i, j]] += 1
            class_term = np.log((np.sum(y[rest] == k) + 1) / (n_rows - 1 + 2))
            joint_k.append(class_term + _log_evidence(with_row, sizes, lam) - evidence)
        left_out_posterior = normalised(log_prior + evidence)
        p_k = [np.trapezoid(np.exp(j) * left_out_posterior, log_grid) for j in joint_k]
        exact_joint.append(np.log(p_k[y[i]]))
        exact_conditional.append(np.log(p_k[y[i]] / sum(p_k)))
        weight = np.exp(-np.interp(log_draws, log_grid, joint_k[y[i]]))
        marginal = np.exp(np.logaddexp(*(np.interp(log_draws, log_grid, j) for j in joint_k)))
        tolerance.append(3 * max(_average_error_bound(weight), _average_error_bound(weight * marginal)))

    tolerance = np.tile(tolerance, 4)
    draws = np.exp(log_draws)[:, None]
    joint = hierarchical._loo_at_draws(X, y, draws, conditional=False, reff=1.0)
    conditional = hierarchical._loo_at_draws(X, y, draws, conditional=True, reff=1.0)
    assert tolerance.max() < 2e-3  # tight enough for the check to tell λ integrated out from λ plugged in (below)
    assert np.all(np.abs(joint.loo_i.values - np.tile(exact_joint, 4)) <= tolerance)
    assert np.all(np.abs(conditional.loo_i.values - np.tile(exact_conditional, 4)) <= tolerance)
    for result in (joint, conditional):
        assert result.n_samples == n_draws and result.pareto_k.shape == (n_rows,)
        assert np.all(result.pareto_k.values < 0.7)
    # λ integrated out is not λ fixed at its posterior mean: the check tells them apart
    plug_in = CategoricalNB(alpha=draws.mean(), n_categories=sizes).fit(X, y).loo(X, y).loo_i.values
    assert np.max(np.abs(plug_in[:10] - exact_conditional)) > 10 * tolerance.max()


def _average_error_bound(g):
    """Koksma's bound on the relative error of the equal-weight average of g over the centred
    quantile draws: V/(2S) / min g, V the variation of g over the draws."""
    return np.abs(np.diff(g)).sum() / (2 * len(g)) / g.min()


@pytest.mark.parametrize("scale", [1.0, 0.5])  # whole counts (each distinct pair computed once), then fractional ones
def test_dirichlet_multinomial_rows_equal_the_gamma_function_formula(scale):
    """log p(x_n | Dirichlet(α_k)) = log Γ(A_k) − log Γ(A_k + N_n) + Σ_v log Γ(α_kv + x_nv) − log Γ(α_kv),
    written out densely, against the sparse scoring that looks repeated (word, count) pairs up."""
    from pgm_models.conjugate import Dirichlet

    rng = np.random.default_rng(5)
    concentration = rng.gamma(2.0, 1.0, size=(3, 7))
    X = rng.poisson(1.5, size=(40, 7)) * scale
    expected = (
        gammaln(concentration.sum(axis=1))[None, :]
        - gammaln(concentration.sum(axis=1)[None, :] + X.sum(axis=1)[:, None])
        + (gammaln(concentration[None] + X[:, None]) - gammaln(concentration[None])).sum(axis=2)
    )
    np.testing.assert_allclose(Dirichlet(concentration).log_predictive_rows(X), expected, rtol=1e-12, atol=1e-12)
