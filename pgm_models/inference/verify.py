"""The proof every model of the zoo must pass: NUTS samples of its PyMC model agree with its
closed-form posterior.

Four kinds of evidence, all judged together by :func:`check_posterior`:

1. **Marginal moments.** For every scalar parameter θ with closed-form mean m, sd σ and excess
   kurtosis κ (exact, from the conjugate posterior's marginal),

       z_mean = (θ̄ − m) / (σ / √ESS(θ)),
       z_sd   = (mean (θ − m)² − σ²) / (σ² √((κ + 2) / ESS((θ − m)²))),

   (each ESS capped at the number of draws N: an overestimate would only raise false alarms),
   so both standard errors use the analytic moments and only the effective sample sizes come
   from the draws. (ArviZ's ``mcse_sd`` estimates the fourth moment from the draws too; that
   ratio of two noisy estimates has heavier tails than the normal a threshold assumes, and gave
   2 % false alarms at a nominal 1 %.) An entry whose marginal has no standard form (an
   off-diagonal covariance) uses its draws' own kurtosis. A z is only as normal as the draws'
   tails allow: z_mean needs the marginal's 4th moment finite and z_sd its 8th (a Gaussian
   model's variances on fewer than about 8 and 16 rows per class have heavier tails); where
   they are not, the z is NaN and that comparison is not made (``Verification.untested`` counts them).
   A cell with a Beta(a, b) marginal (of a Dirichlet block) is compared on its probability
   integral transform p = F(θ) − 1/2 instead: uniform whatever the skew, E p = 0, E p² = 1/12,
   Var p² = 1/180 exactly, and bounded. A skewed cell's raw moments hang on a few upper-tail
   draws, which NUTS visits in clusters, so their ESS overstates the tail's sampling.
2. **The joint.** The mean z-scores of each group of correlated parameters (a class's mean
   vector, the entries of one covariance matrix) are combined with their exact correlation R
   into one chi-square, Q = Σ_groups zᵀR⁺z with Σ rank(R) degrees of freedom. A Dirichlet block
   of S cells enters by its S − 1 stick-breaking fractions, independent Beta variables under the
   closed form: the sum of their probability integral transforms' squared mean z. Many small
   shifts that no single |z| shows add up here: draws from Dirichlet(1.1) priors instead of
   Dirichlet(1) on vote.
3. **Means with their (co)variances.** A Normal–Inverse-Gamma/-Wishart posterior has
   μ_k | Σ_k ~ N(m_k, Σ_k/κ_k), so every draw's Q = Σ_k κ_k (μ_k − m_k)ᵀ Σ_k⁻¹ (μ_k − m_k) is
   exactly χ²_D (D mean entries) and independent of Σ; z = (mean Q − D)/√(2D/ESS(Q))
   (:func:`mean_spread_coupling`). Draws with the right marginals but μ not drawn with its own Σ
   (the mean draws shuffled against the (co)variance draws) have E[Q]/D = E[Σ]E[Σ⁻¹] > 1: a/(a − 1)
   for a variance of shape a, ν/(ν − p − 1) for a covariance. Its power against such shuffled
   draws (4 chains × 1000 exact draws, ``family_error`` 1 %, this test alone): on iris's two
   sepal features, 50 rows a class (where the means barely depend on Σ: E[Q]/D = 1.04 and
   1.02), GaussianNB 88 % (177 of 200 shuffles) and LDA 18 % (37 of 200); on 8 rows a class
   100 % for both (100 of 100, z ≈ 24 and 13). Exact draws failed it 2 times in 600 (nominal:
   a third of ``family_error``, 0.33 %).
4. **Per-draw support.** Every draw must be a valid parameter: each probability block sums to
   1 (within 1e4 machine epsilons of the draws' dtype), every variance is positive, every
   covariance matrix is symmetric positive definite. Draws whose marginals are right but whose
   joint is not (each parameter's draws shuffled independently) fail here.

Thresholds (all overridable): the marginal z-tests, the chi-square and the means' coupling with
their (co)variances share ``family_error`` (1 %) equally: |z| ≤ z_max = Φ⁻¹(1 − family_error /
(12P)) over the 2P z-scores of P parameters (Bonferroni; ≈ 4.1 for 50 parameters), the
chi-square's p-value ≥ family_error / 3, and the coupling's |z| ≤ Φ⁻¹(1 − family_error / 6). The sampler's health: bulk ESS ≥ 400 for every parameter, no divergent
transitions (when the InferenceData has sampler statistics), and split R-hat below a threshold
calibrated for the number of parameters P (:func:`rhat_thresholds`), or below a fixed
``rhat_max`` where one is given. The measured false-alarm rates of these thresholds are in
docs/false_alarm.md.
**Why a calibrated R-hat.** A fixed R-hat ≤ 1.01 (Vehtari et al. 2021) is a bound for one
parameter; its false-alarm rate over P parameters grows with P and falls with the ESS: TAN on
breast-cancer (about 1,900 parameters) exceeded 1.01 on correct draws. Under correct mixing, m
split chains of n draws whose parameter has integrated autocorrelation time τ have chain means
of variance σ²τ/n, so (m − 1) s²_means / (σ²τ/n) ~ χ²(m − 1) (approximately normal means, the
rank-normalised draws), and R̂² = (n − 1)/n + s²_means / W (W the within-chain variance ≈ σ²),
which gives

    R̂² ≤ (n − 1)/n + m q / ((m − 1) ESS),   q = the χ²(m − 1) quantile of 1 − level/(2P),

with ESS = m n / τ the parameter's ESS from its within-chain autocorrelations alone (the
rank-normalised draws' for the bulk R-hat, the folded draws' for the folded one: 2P tests,
Bonferroni). Vats & Knudson (2021) relate R-hat to the ESS the same way, R̂² ≈ 1 + m/ESS. The
ESS is not ArviZ's, whose variance includes the spread between chains: a chain stuck or shifted
would lower that ESS and loosen its own threshold; the within-chain one does not see it. The ESS
is capped at the m n draws (an overestimate would only raise false alarms).

:func:`check_sampler` is the health half alone, for a model with no closed form (Bayesian
logistic regression).

Works for any fitted model of the zoo with a closed form: ``analytic_posterior`` gives the
means and sds named and dimensioned like the PyMC model's variables, and the model's conjugate
posteriors give the kurtosis, the correlations and the support.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import chi2, norm

from pgm_models.inference.calibration import SBCResult, simulation_based_calibration  # noqa: F401  (models with no closed form)
from pgm_models.inference.summary import labelled_table

COLUMNS = [
    "variable",
    "parameter",
    "analytic_mean",
    "sampled_mean",
    "mcse_mean",
    "z_mean",
    "analytic_sd",
    "sampled_sd",
    "mcse_sd",
    "z_sd",
    "r_hat",
    "r_hat_max",
    "ess_bulk",
    "ess_tail",
    "ok",
]


@dataclass
class Verification:
    """The outcome of :func:`check_posterior` or :func:`check_sampler`.

    A tidy table with one row per scalar parameter, the verdict, the reasons it failed, the
    thresholds used, and the joint checks. It is truthy when the check passed, and its ``repr``
    is a one-line summary.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per scalar parameter: ``variable``, ``parameter``, ``analytic_mean``,
        ``sampled_mean``, ``mcse_mean``, ``z_mean``, ``analytic_sd``, ``sampled_sd``, ``mcse_sd``,
        ``z_sd``, ``r_hat``, ``r_hat_max`` (its threshold), ``ess_bulk``, ``ess_tail`` and ``ok``.
    passed : bool
        Whether every check passed.
    reasons : list of str
        Why it failed, one line per failed check (empty when it passed).
    thresholds : dict
        The thresholds used (``z_max``, ``joint_level``, ``coupling_z_max``, ``rhat_max``,
        ``rhat_level``, ``ess_min``, ``max_divergences``).
    divergences : int
        The number of divergent transitions in the draws.
    joint_statistic : float
        The chi-square statistic of the mean z-scores of the correlated groups.
    joint_df : int
        Its degrees of freedom (0: no joint check).
    joint_p : float
        Its p-value.
    outside_support : dict
        {variable: number of draws outside the posterior's support}.
    untested : int
        The z-scores not computed because the marginal's tails are too heavy for a normal z.
    coupling_z : float
        The z-score of the draws' mean of Q = Σ_k κ_k (μ_k − m_k)ᵀ Σ_k⁻¹ (μ_k − m_k) against its
        degrees of freedom (0 for a model without Normal means).
    coupling_df : int
        Those degrees of freedom, the number of mean entries (0: no coupling test).
    max_abs_z : float
        The largest ``|z|`` over the parameters (NaN for a sampler-only check).

    See Also
    --------
    check_posterior, check_sampler : Make one.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import CategoricalNB, check_posterior
    >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 1])
    >>> model = CategoricalNB().fit(X, y)
    >>> verification = check_posterior(model, model.posterior_draws(n=1000, chains=4, random_seed=0))
    >>> bool(verification), verification.reasons
    (True, [])
    >>> verification.table[["parameter", "analytic_mean", "ok"]].head(2)  # doctest: +NORMALIZE_WHITESPACE
           parameter  analytic_mean    ok
    0  class_prob[0]          0.375  True
    1  class_prob[1]          0.625  True
    """

    table: pd.DataFrame
    passed: bool
    reasons: list[str] = field(default_factory=list)
    thresholds: dict = field(default_factory=dict)
    divergences: int = 0
    joint_statistic: float = float("nan")
    joint_df: int = 0
    joint_p: float = float("nan")
    outside_support: dict = field(default_factory=dict)
    untested: int = 0  # z-scores not computed: the marginal's tails are too heavy for a normal z
    coupling_z: float = 0.0  # the test of the means' and (co)variances' joint (mean_spread_coupling)
    coupling_df: int = 0

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        verdict = "PASSED" if self.passed else "FAILED: " + "; ".join(self.reasons[:5])
        joint = f", joint p = {self.joint_p:.3g}" if self.joint_df else ""
        return (
            f"Verification({len(self.table)} parameters, max |z| = {self.max_abs_z:.2f}{joint}, "
            f"max R-hat = {self.table['r_hat'].max():.4f}, min ESS = {self.table['ess_bulk'].min():.0f}, "
            f"divergences = {self.divergences}: {verdict})"
        )

    @property
    def max_abs_z(self) -> float:
        """Largest ``|z|`` over the parameters; NaN for a sampler-only check (no closed form)."""
        z = np.abs(self.table[["z_mean", "z_sd"]].to_numpy())
        return float("nan") if np.isnan(z).all() else float(np.nanmax(z))


def _z(difference, mcse):
    """Difference / mcse; a parameter with no spread (mcse 0) is 0 when it matches exactly."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(mcse > 0, difference / mcse, np.where(difference == 0, 0.0, np.inf))


def check_posterior(
    model,
    idata,
    *,
    z_max: float | None = None,
    family_error: float = 0.01,
    rhat_max: float | None = None,
    rhat_level: float | None = None,
    ess_min: float = 400,
    max_divergences: int = 0,
) -> Verification:
    r"""Check that posterior draws agree with a model's closed-form posterior.

    The proof every model of the zoo must pass: the NUTS draws of its PyMC model
    (:meth:`~pgm_models.CategoricalNB.sample_posterior`) against its conjugate posterior.
    Four kinds of evidence are judged together — each parameter's mean and second moment as
    z-scores, the mean z-scores of each correlated group as one chi-square, the pairing of the
    Normal means with their own (co)variances, and every draw's support — together with the
    sampler's health (R-hat, bulk ESS, divergences).

    Parameters
    ----------
    model : fitted estimator with a closed form
        Any fitted model of the zoo that has ``analytic_posterior``.
    idata : arviz.InferenceData
        Draws of the model's parameters, named as in ``analytic_posterior``
        (``sample_posterior``'s or ``posterior_draws``').
    z_max : float, default=None
        The largest ``|z|`` allowed; None: the Bonferroni bound Φ⁻¹(1 − family_error / (12P)) over the
        2P z-scores of P parameters (≈ 4.1 for 50 parameters).
    family_error : float, default=0.01
        The false-alarm rate shared in thirds by the z-tests, the chi-square and the test of the
        means' coupling with their (co)variances.
    rhat_max : float, default=None
        The largest split R-hat allowed; None: each parameter's threshold from
        ``pgm_models.inference.verify.rhat_thresholds``, calibrated for the number of parameters and their effective sample
        sizes at ``rhat_level``.
    rhat_level : float, default=None
        The false-alarm rate the R-hat thresholds share over all parameters; None: ``family_error``.
    ess_min : float, default=400
        The smallest bulk effective sample size allowed.
    max_divergences : int, default=0
        The most divergent transitions allowed.

    Returns
    -------
    Verification
        The table, the verdict and the reasons.

    Raises
    ------
    ValueError
        If ``idata`` lacks one of the model's parameters.

    See Also
    --------
    check_sampler : The sampler-health half alone, for a model with no closed form.
    pgm_models.verification_forest : Plots the z-scores.

    Notes
    -----
    For a scalar parameter θ with closed-form mean m, sd σ and excess kurtosis κ,

    .. math::

        z_\mathrm{mean} = \frac{\bar\theta - m}{\sigma / \sqrt{\mathrm{ESS}(\theta)}}, \qquad
        z_\mathrm{sd} = \frac{\overline{(\theta - m)^2} - \sigma^2}
        {\sigma^2 \sqrt{(\kappa + 2) / \mathrm{ESS}((\theta - m)^2)}},

    so both standard errors use the exact moments and only the effective sample sizes come from
    the draws. A z needs light enough tails: z_mean is computed where the marginal's 4th moment is
    finite, z_sd where its 8th is (else NaN, counted in ``Verification.untested``). A cell of a
    Dirichlet block (a Beta marginal) is compared on its probability integral transform
    p = F(θ) − 1/2 instead, uniform under the closed form whatever the skew. The mean z-scores of
    each correlated group (a class's mean vector, a covariance matrix) are combined with their
    exact correlation R into Q = Σ zᵀR⁺z, chi-square with Σ rank(R) degrees of freedom; a
    Dirichlet block enters by its stick-breaking fractions, independent Betas under the closed
    form. The chi-square must have p ≥ family_error/3, and the Normal means' coupling with their
    own (co)variances ``|z|`` ≤ Φ⁻¹(1 − family_error/6). Every draw must lie in the support
    (probability blocks sum to 1, variances positive, covariances positive definite). The split
    R-hat thresholds are calibrated for the number of parameters from within-chain effective
    sample sizes (the module docstring says why); the bulk ESS is ArviZ's rank-normalised one.

    References
    ----------
    .. [1] A. Vehtari, A. Gelman, D. Simpson, B. Carpenter and P.-C. Bürkner, "Rank-normalization,
       folding, and localization: an improved R-hat for assessing convergence of MCMC",
       *Bayesian Analysis* 16(2), 667–718, 2021.
    .. [2] K. P. Murphy, *Machine Learning: A Probabilistic Perspective*, MIT Press, 2012,
       chapter 3 (the conjugate posteriors the draws are compared with).

    Examples
    --------
    Exact draws from the closed form pass; draws from another model's posterior do not:

    >>> import numpy as np
    >>> from pgm_models import CategoricalNB, check_posterior
    >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 1])
    >>> model = CategoricalNB().fit(X, y)
    >>> check_posterior(model, model.posterior_draws(n=1000, chains=4, random_seed=0)).passed
    True
    >>> other = CategoricalNB(alpha=5.0).fit(X, y)
    >>> result = check_posterior(model, other.posterior_draws(n=1000, chains=4, random_seed=0))
    >>> result.passed
    False
    """
    analytic_mean, analytic_sd = model.analytic_posterior("mean"), model.analytic_posterior("sd")
    names = list(analytic_mean.data_vars)
    missing = [n for n in names if n not in idata.posterior]
    if missing:
        raise ValueError(f"idata.posterior lacks the model's parameters {missing}")
    posteriors = {name: posterior for name, (posterior, _) in model._parameters().items()}
    draws = {n: idata.posterior[n].transpose("chain", "draw", *analytic_mean[n].dims).values for n in names}
    table = labelled_table(analytic_mean=analytic_mean)
    table["analytic_sd"] = np.concatenate([analytic_sd[n].values.ravel() for n in names])
    values = _parameter_major(draws.values())
    table = table.assign(**_sampled_statistics(values))

    mean, sd = table["analytic_mean"].to_numpy(), table["analytic_sd"].to_numpy()
    squared = (values - mean[:, None, None]) ** 2
    kurtosis, tail = (
        np.concatenate(
            [np.broadcast_to(getattr(posteriors[n], statistic)(), analytic_mean[n].shape).ravel() for n in names]
        )
        for statistic in ("excess_kurtosis", "tail_index")
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        # entries with no standard marginal (off-diagonal covariances) use their draws' own
        kurtosis = np.where(
            np.isnan(kurtosis), (squared**2).mean(axis=(1, 2)) / squared.mean(axis=(1, 2)) ** 2 - 3, kurtosis
        )
        # an ESS above the number of draws (antithetic chains, or an i.i.d. sample's estimate
        # by chance) is capped: an overestimate would shrink the MCSE and raise false alarms
        n_draws = values.shape[1] * values.shape[2]
        table["mcse_mean"] = sd / np.sqrt(np.minimum(_ess(_split_chains(values)), n_draws))
        mcse_second_moment = sd**2 * np.sqrt((kurtosis + 2) / np.minimum(_ess(_split_chains(squared)), n_draws))
        table["mcse_sd"] = mcse_second_moment / (2 * sd)  # on the sd scale, by the delta method
        z_sd = _z(squared.mean(axis=(1, 2)) - sd**2, mcse_second_moment)
    # a normal z needs light enough tails: finite 4th moments for a mean, 8th for a second moment
    table["z_mean"] = np.where(tail > 4, _z(table["sampled_mean"] - mean, table["mcse_mean"]), np.nan)
    table["z_sd"] = np.where(tail > 8, z_sd, np.nan)
    beta = _beta_marginals(posteriors, analytic_mean, names)
    on_pit = np.zeros(len(table), dtype=bool)
    if beta is not None:
        rows, a, b = beta
        pit_mean, pit_second = _pit_z(values[rows], a, b, n_draws)
        z_mean_all, z_sd_all = table["z_mean"].to_numpy().copy(), table["z_sd"].to_numpy().copy()
        z_mean_all[rows], z_sd_all[rows] = pit_mean, pit_second
        table["z_mean"], table["z_sd"] = z_mean_all, z_sd_all
        on_pit[rows] = True

    if z_max is None:  # a third of family_error over the 2P two-sided z-scores
        z_max = float(norm.isf(family_error / (12 * len(table))))
    z_ok = ~(np.abs(table["z_mean"]) > z_max) & ~(np.abs(table["z_sd"]) > z_max)  # NaN: untestable
    reasons = [
        f"{row.parameter}: sampled mean {row.sampled_mean:.4g} vs analytic {row.analytic_mean:.4g} "
        f"(z = {row.z_mean:.1f}), sd {row.sampled_sd:.4g} vs {row.analytic_sd:.4g} "
        f"(z = {row.z_sd:.1f}); |z| must be ≤ {z_max:.2f}"
        + (" (z of the Beta CDF of the draws, uniform under the closed form)" if pit else "")
        for (_, row), pit in zip(table[~z_ok].iterrows(), on_pit[~z_ok.to_numpy()])
    ]
    joint_level = family_error / 3
    statistic, df = _joint_chi_square(posteriors, table, values, n_draws)
    joint_p = float(chi2.sf(statistic, df)) if df else float("nan")
    if joint_p < joint_level:
        reasons.append(
            f"joint: the mean z-scores' chi-square is {statistic:.1f} on {df} degrees of freedom "
            f"(p = {joint_p:.2g} < {joint_level:.2g})"
        )
    outside = {
        name: int((~posteriors[name].in_support(_flat_draws(d), _support_atol(d))).sum()) for name, d in draws.items()
    }
    reasons += [
        f"{name}: {count} of {n_draws} draws outside the posterior's support"
        for name, count in outside.items()
        if count
    ]
    coupling_z, coupling_df = mean_spread_coupling(posteriors, draws)
    coupling_max = float(norm.isf(family_error / 6))  # the last third, two-sided
    if abs(coupling_z) > coupling_max:
        reasons.append(
            f"joint of means and (co)variances: the draws' mean of Σ κ(μ − m)ᵀΣ⁻¹(μ − m), exactly χ² on {coupling_df} degrees "
            f"of freedom, is off by z = {coupling_z:.1f}; |z| must be ≤ {coupling_max:.2f}"
        )
    thresholds = {"z_max": z_max, "joint_level": joint_level, "coupling_z_max": coupling_max}
    result = _verdict(
        table,
        values,
        z_ok,
        reasons,
        idata,
        thresholds,
        rhat_max,
        family_error if rhat_level is None else rhat_level,
        ess_min,
        max_divergences,
    )
    result.joint_statistic, result.joint_df, result.joint_p, result.outside_support = statistic, df, joint_p, outside
    result.coupling_z, result.coupling_df = coupling_z, coupling_df
    result.untested = int(table[["z_mean", "z_sd"]].isna().to_numpy().sum())
    return result


def _beta_marginals(posteriors, analytic_mean, names):
    """(rows of the table, a, b) of the entries whose exact marginal is a Beta(a, b) (the cells of
    a Dirichlet block), or None when there are none.
    """
    rows, a, b, start = [], [], [], 0
    for name in names:
        shape = analytic_mean[name].shape
        for offset, entry in enumerate(np.ndindex(*shape)):
            marginal = posteriors[name].marginal_distribution(entry)
            if marginal is not None and getattr(marginal.dist, "name", "") == "beta" and np.all(marginal.args[1] > 0):
                rows.append(start + offset)
                a.append(float(marginal.args[0]))
                b.append(float(marginal.args[1]))
        start += int(np.prod(shape))
    return (np.array(rows), np.array(a), np.array(b)) if rows else None


def _pit_z(values, a, b, n_draws):
    """(z of the mean, z of the second moment) of the probability integral transform
    p = F(θ) − 1/2 of draws ``values`` (parameter, chain, draw) of Beta(a, b) marginals: under
    the closed form p is uniform on (−1/2, 1/2), E p = 0, E p² = 1/12, Var p² = 1/180, exactly,
    whatever the marginal's skew; p is bounded, so the normal z needs no tail condition. The
    raw moments of a skewed cell (Beta(0.5, 145): skewness 2.8) are carried by a few draws in
    its upper tail, which NUTS visits in clusters: their z on the zoo's BayesNet-K2 draws of
    breast-cancer seed 9 was 5.8 while the cell's PIT z was 2.6.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        p = _pit(values, a[:, None, None], b[:, None, None])
        squared = p**2
        z_mean = _z(p.mean(axis=(1, 2)), np.sqrt(1 / 12 / np.minimum(_ess(_split_chains(p)), n_draws)))
        z_second = _z(
            squared.mean(axis=(1, 2)) - 1 / 12, np.sqrt(1 / 180 / np.minimum(_ess(_split_chains(squared)), n_draws))
        )
    return z_mean, z_second


def _pit(values, a, b):
    """F(θ) − 1/2 for the Beta(a, b) CDF F, draws clipped to [0, 1] (a simplex draw's rounding)."""
    from scipy.special import betainc

    return betainc(a, b, np.clip(values, 0.0, 1.0)) - 0.5


def _stick_chi_square(concentration, draws, n_draws) -> tuple[float, int]:
    """(Σ z², the number of z) for Dirichlet blocks: each block's draws (G, S, chain, draw) as
    stick-breaking fractions β_k = θ_(k) / Σ_{j≥k} θ_(j), values by decreasing concentration a
    (the remainders stay large), which are independent Beta(a_(k), Σ_{j>k} a_(j)) under the
    closed form; z is the mean z of each fraction's probability integral transform. Independent
    uniforms need no correlation matrix, and their z does not hang on a skewed cell's few tail
    draws, as the raw means' z does.
    """
    order = np.argsort(-concentration, axis=1, kind="stable")
    a = np.take_along_axis(concentration, order, axis=1)
    theta = np.take_along_axis(draws, order[:, :, None, None], axis=1)
    rest = np.cumsum(a[:, ::-1], axis=1)[:, ::-1][:, 1:]  # Σ_{j>k} a_(j)
    remainder = np.cumsum(theta[:, ::-1], axis=1)[:, ::-1][:, :-1]  # Σ_{j≥k} θ_(j)
    keep = (a[:, :-1] > 0) & (rest > 0)  # a fraction fixed at 0 or 1 has nothing to compare
    if not keep.any():
        return 0.0, 0
    with np.errstate(invalid="ignore", divide="ignore"):
        fractions = theta[:, :-1][keep] / remainder[keep]
        p = _pit(fractions, a[:, :-1][keep][:, None, None], rest[keep][:, None, None])
        z = p.mean(axis=(1, 2)) / np.sqrt(1 / 12 / np.minimum(_ess(_split_chains(p)), n_draws))
    z = z[np.isfinite(z)]
    return float((z**2).sum()), len(z)


def _joint_chi_square(posteriors, table, values, n_draws) -> tuple[float, int]:
    """Σ zᵀR⁺z over the groups of correlated parameters (R their exact correlation), and its
    degrees of freedom Σ rank(R); parameters outside any group count as groups of one. A
    Dirichlet block counts by its stick-breaking fractions (``_stick_chi_square``). Entries
    with no spread or an infinite variance are left out. ``values``: the draws (parameter,
    chain, draw) in the table's row order.
    """
    from pgm_models.conjugate.dirichlet import Dirichlet

    statistic, df = 0.0, 0
    variables = table["variable"].to_numpy()
    for name, posterior in posteriors.items():
        positions = np.flatnonzero(variables == name)
        rows = table.iloc[positions]
        z, sd = rows["z_mean"].to_numpy(), rows["analytic_sd"].to_numpy()
        usable = (sd > 0) & np.isfinite(sd) & np.isfinite(z)
        groups = posterior.covariance_groups() if hasattr(posterior, "covariance_groups") else None
        grouped = np.zeros(len(rows), dtype=bool)
        if isinstance(posterior, Dirichlet):
            for cells, _ in groups:
                block_statistic, block_df = _stick_chi_square(
                    posterior.concentration.ravel()[cells], values[positions[cells]], n_draws
                )
                statistic, df = statistic + block_statistic, df + block_df
                grouped[cells.ravel()] = True
            groups = None
        for cells, covariance in groups or []:
            keep = usable[cells]
            sd_cells = np.where(keep, sd[cells], 1.0)
            # the unusable cells' rows and columns are zeroed, which removes them from R⁺ and the rank
            correlation = (
                covariance * keep[:, :, None] * keep[:, None, :] / (sd_cells[:, :, None] * sd_cells[:, None, :])
            )
            z_cells = np.where(keep, z[cells], 0.0)
            inverse = np.linalg.pinv(correlation, rcond=1e-10, hermitian=True)
            statistic += float(np.einsum("gi,gij,gj->", z_cells, inverse, z_cells))
            df += int(np.linalg.matrix_rank(correlation, tol=1e-8, hermitian=True).sum())
            grouped[cells.ravel()] = True
        single = usable & ~grouped
        statistic += float((z[single] ** 2).sum())
        df += int(single.sum())
    return statistic, df


def mean_spread_coupling(posteriors, draws) -> tuple[float, int]:
    """(z, D): the test of the joint of the means and their (co)variances. Under a
    Normal–Inverse-Gamma or –Wishart posterior μ_k | Σ_k ~ N(m_k, Σ_k/κ_k), so every draw's

        Q = Σ_k κ_k (μ_k − m_k)ᵀ Σ_k⁻¹ (μ_k − m_k)  ~  χ²_D exactly

    (D the number of mean entries; σ²_kj for Σ_k with per-feature variances), whatever Σ's
    own distribution: Q is independent of Σ, so it is χ² only if each μ draw goes with its own
    Σ draw. z = (mean Q − D) / √(2D / ESS(Q)), ESS capped at the number of draws; (0.0, 0)
    when the model has no such pair of parameters.
    """
    from pgm_models.conjugate.normal import NormalInverseGamma, NormalInverseWishart

    joints = {}
    for name, posterior in posteriors.items():
        joint = getattr(posterior, "joint", None)
        if isinstance(joint, (NormalInverseGamma, NormalInverseWishart)):
            joints.setdefault(id(joint), (joint, {}))[1][posterior.name] = name
    total, df = 0.0, 0
    for joint, names in joints.values():
        spread = "var" if isinstance(joint, NormalInverseGamma) else "cov"
        if "mu" not in names or spread not in names:
            continue
        deviation = draws[names["mu"]] - joint.m  # (chain, draw, K, p)
        if spread == "var":
            total = total + (joint.kappa * deviation**2 / draws[names["var"]]).sum(axis=(2, 3))
        else:
            cov = draws[names["cov"]]
            cov = np.broadcast_to(cov[:, :, None] if joint.shared else cov, deviation.shape + deviation.shape[-1:])
            solved = np.linalg.solve(cov, deviation[..., None])[..., 0]
            total = total + (joint.kappa * (deviation * solved).sum(axis=-1)).sum(axis=-1)
        df += deviation[0, 0].size
    if not df:
        return 0.0, 0
    n_draws = total.size
    ess = min(float(_ess(_split_chains(total[None]))[0]), n_draws)
    return float((total.mean() - df) / np.sqrt(2 * df / ess)), df


def _flat_draws(values: np.ndarray) -> np.ndarray:
    """(chain, draw, ...) → (chain·draw, ...)."""
    return values.reshape((-1,) + values.shape[2:])


def _support_atol(values: np.ndarray) -> float:
    """How far a draw may stray from its support by rounding alone: 1e4 machine epsilons of its
    dtype (a float32 sampler's simplex sums are good to about 1e-7 per cell, float64's to 1e-16).
    """
    return 1e4 * float(np.finfo(values.dtype if values.dtype.kind == "f" else float).eps)


def check_sampler(
    idata,
    var_names=None,
    *,
    rhat_max: float | None = None,
    rhat_level: float = 0.01,
    ess_min: float = 400,
    max_divergences: int = 0,
) -> Verification:
    """Check the health of MCMC draws: R-hat, bulk ESS and divergences.

    The sampler-health half of :func:`check_posterior`, for a model with no closed form (Bayesian
    logistic regression): every parameter's split R-hat and bulk effective sample size, and the
    number of divergent transitions when ``idata`` has sampler statistics. The z columns of the
    table are NaN.

    Parameters
    ----------
    idata : arviz.InferenceData
        The draws.
    var_names : list of str, default=None
        The variables to check; None: all of ``idata.posterior``.
    rhat_max : float, default=None
        The largest split R-hat allowed; None: each parameter's threshold from
        ``pgm_models.inference.verify.rhat_thresholds``, calibrated for the number of parameters at ``rhat_level``.
    rhat_level : float, default=0.01
        The false-alarm rate the R-hat thresholds share over all parameters.
    ess_min : float, default=400
        The smallest bulk effective sample size allowed.
    max_divergences : int, default=0
        The most divergent transitions allowed.

    Returns
    -------
    Verification
        The table, the verdict and the reasons.

    See Also
    --------
    check_posterior : Also compares the draws with a closed form.

    References
    ----------
    .. [1] A. Vehtari, A. Gelman, D. Simpson, B. Carpenter and P.-C. Bürkner, "Rank-normalization,
       folding, and localization: an improved R-hat for assessing convergence of MCMC",
       *Bayesian Analysis* 16(2), 667–718, 2021.

    Examples
    --------
    >>> import numpy as np
    >>> import arviz as az
    >>> from pgm_models import check_sampler
    >>> rng = np.random.default_rng(0)
    >>> mixing = az.from_dict(posterior={"w": rng.normal(size=(4, 1000))})
    >>> check_sampler(mixing).passed
    True
    >>> stuck = az.from_dict(posterior={"w": rng.normal(size=(4, 1000)) + np.arange(4)[:, None]})
    >>> result = check_sampler(stuck)
    >>> result.passed, result.reasons[0][:12]
    (False, 'w: R-hat 1.5')
    """
    names = list(idata.posterior.data_vars) if var_names is None else list(var_names)
    posterior = idata.posterior[names]
    table = labelled_table(sampled_mean=posterior.mean(("chain", "draw")))
    values = _parameter_major(posterior[n].transpose("chain", "draw", ...).values for n in names)
    table = table.assign(**_sampled_statistics(values))
    table["mcse_mean"] = table["sampled_sd"] / np.sqrt(_ess(_split_chains(values)))
    for column in ("analytic_mean", "analytic_sd", "z_mean", "z_sd", "mcse_sd"):
        table[column] = np.nan
    return _verdict(
        table, values, pd.Series(True, index=table.index), [], idata, {}, rhat_max, rhat_level, ess_min, max_divergences
    )


def rhat_thresholds(values: np.ndarray, level: float = 0.01) -> np.ndarray:
    """Each parameter's R-hat threshold, calibrated so that all P parameters of correct draws
    ``values`` (parameter, chain, draw) pass together with probability about 1 − level: the bulk
    and the folded split R-hat (``_rhat_rank`` is their maximum) each within
    R̂² ≤ (n − 1)/n + m q / ((m − 1) ESS_within), q the χ²(m − 1) quantile of 1 − level/(2P), m
    and n the split chains and their length, ESS_within that statistic's ESS from its
    within-chain autocorrelations, capped at m n (module docstring). Returned as one bound on
    ``_rhat_rank`` per parameter: its R-hat divided by the larger of the two R-hats' ratios to
    their bounds (so R-hat ≤ bound exactly when both pass); ∞ for a constant parameter, NaN with
    fewer than 2 chains or 4 draws.
    """
    from scipy.stats import chi2 as chi_square

    if values.shape[1] < 2 or values.shape[2] < 4:
        return np.full(len(values), np.nan)
    split = _split_chains(values)
    m, n = split.shape[1], split.shape[2]
    folded = np.abs(split - np.median(split.reshape(len(split), -1), axis=1)[:, None, None])
    q = chi_square.isf(level / (2 * len(values)), m - 1)
    rhats, ratios = [], []
    with np.errstate(invalid="ignore", divide="ignore"):
        for draws in (_z_scale(split), _z_scale(folded)):
            ess = np.minimum(_ess(draws, within=True), m * n)
            rhats.append(_rhat(draws))
            ratios.append(rhats[-1] / np.sqrt((n - 1) / n + m * q / ((m - 1) * ess)))
        bound = np.maximum(*rhats) / np.fmax(*ratios)
    return np.where(np.ptp(values.reshape(len(values), -1), axis=1) == 0, np.inf, bound)


def _verdict(
    table, values, z_ok, reasons, idata, thresholds, rhat_max, rhat_level, ess_min, max_divergences
) -> Verification:
    """Add the sampler's health (R-hat, bulk ESS, divergences) to the z verdict."""
    divergences = (
        int(idata.sample_stats["diverging"].sum())
        if "sample_stats" in idata and "diverging" in idata.sample_stats
        else 0
    )
    table["r_hat_max"] = rhat_thresholds(values, rhat_level) if rhat_max is None else float(rhat_max)
    rhat_ok = table["r_hat"] <= table["r_hat_max"]  # NaN fails
    described = f"calibrated at level {rhat_level:g} over {len(table)} parameters" if rhat_max is None else "fixed"
    ess_ok = table["ess_bulk"] >= ess_min
    table["ok"] = z_ok & rhat_ok & ess_ok
    reasons = list(reasons)
    for _, row in table[~rhat_ok].iterrows():
        reasons.append(f"{row.parameter}: R-hat {row.r_hat:.4f} > {row.r_hat_max:.4f} ({described})")
    for _, row in table[~ess_ok].iterrows():
        reasons.append(f"{row.parameter}: bulk ESS {row.ess_bulk:.0f} < {ess_min}")
    if divergences > max_divergences:
        reasons.append(f"{divergences} divergent transitions (at most {max_divergences} allowed)")
    # rhat_max None: each parameter's threshold is the table's r_hat_max
    thresholds = {
        **thresholds,
        "rhat_max": rhat_max,
        "rhat_level": rhat_level if rhat_max is None else None,
        "ess_min": ess_min,
        "max_divergences": max_divergences,
    }
    return Verification(table[COLUMNS], not reasons, reasons, thresholds, divergences)


# ---------------------------------------------------------------------------------------------
# Sampler diagnostics of every parameter at once: ArviZ 0.23's rank-normalised split R-hat and
# bulk/tail/mean ESS (Vehtari et al. 2021), vectorised over parameters (ArviZ loops over them in
# Python, slow for a check of a few hundred parameters). Arrays are
# (parameter, chain, draw); tests/test_verify.py checks them against ArviZ.


def _parameter_major(arrays) -> np.ndarray:
    """(chain, draw, ...) arrays → one float (parameter, chain, draw) array, parameters in the
    C order of each array, arrays one after another.
    """
    arrays = list(arrays)
    chains, draws = arrays[0].shape[:2]
    return np.moveaxis(
        np.concatenate([np.asarray(a, dtype=float).reshape(chains, draws, -1) for a in arrays], axis=-1), -1, 0
    )


def _sampled_statistics(values: np.ndarray) -> dict:
    """Sampled mean and sd, rank-normalised split R-hat, bulk and tail ESS of each parameter."""
    flat = values.reshape(len(values), -1)
    z_split = _z_scale(_split_chains(values))  # ranking is most of the cost: done once for R-hat and bulk ESS
    return {
        "sampled_mean": flat.mean(axis=1),
        "sampled_sd": flat.std(axis=1, ddof=1),
        "r_hat": _rhat_rank(values, z_split),
        "ess_bulk": _ess(z_split),
        "ess_tail": _ess_tail(values),
    }


def _split_chains(values: np.ndarray) -> np.ndarray:
    """Each chain's first and last halves as two chains (the middle draw of an odd count dropped)."""
    half = values.shape[2] // 2
    return np.concatenate([values[:, :, :half], values[:, :, values.shape[2] - half :]], axis=1)


def _z_scale(values: np.ndarray) -> np.ndarray:
    """Rank-normalise each parameter's draws: Φ⁻¹((rank − 3/8)/(n + 1/4)), average ranks for ties."""
    from scipy.special import ndtri  # Φ⁻¹ without norm.ppf's argument checks
    from scipy.stats import rankdata

    flat = values.reshape(len(values), -1)
    ranks = rankdata(flat, method="average", axis=1)
    return ndtri((ranks - 3 / 8) / (flat.shape[1] + 1 / 4)).reshape(values.shape)


def _rhat(values: np.ndarray) -> np.ndarray:
    n = values.shape[2]
    between = n * values.mean(axis=2).var(axis=1, ddof=1)
    within = values.var(axis=2, ddof=1).mean(axis=1)
    return np.sqrt((between / within + n - 1) / n)


def _rhat_rank(values: np.ndarray, z_split: np.ndarray | None = None) -> np.ndarray:
    """max(split R-hat of the rank-normalised draws, of the rank-normalised |draw − median|).
    A parameter whose draws are all identical (the probability of an attribute's only value,
    fixed at 1) has R-hat 1, where ArviZ gives NaN: its chains agree exactly. ``z_split``:
    ``_z_scale(_split_chains(values))`` when the caller has it already.
    """
    if values.shape[1] < 2 or values.shape[2] < 4:
        return np.full(len(values), np.nan)
    split = _split_chains(values)
    folded = np.abs(split - np.median(split.reshape(len(split), -1), axis=1)[:, None, None])
    with np.errstate(invalid="ignore", divide="ignore"):
        rhat = np.maximum(_rhat(_z_scale(split) if z_split is None else z_split), _rhat(_z_scale(folded)))
    return np.where(np.ptp(values.reshape(len(values), -1), axis=1) == 0, 1.0, rhat)


def _ess(values: np.ndarray, within: bool = False) -> np.ndarray:
    """Effective sample size of each parameter's (chain, draw) array, by Geyer's initial monotone
    sequence on the chains' FFT autocovariances (ArviZ's ``_ess``); ``within``: the
    autocorrelations relative to the within-chain variance alone, blind to the chains'
    disagreement (what ``rhat_thresholds`` needs).
    """
    from scipy.fft import irfft, next_fast_len, rfft

    n_params, n_chains, n = values.shape
    if n < 3:
        return np.full(n_params, np.nan)
    centred = values - values.mean(axis=2, keepdims=True)
    length = next_fast_len(2 * n)
    spectrum = rfft(centred, n=length, axis=2)
    acov = irfft(spectrum * np.conjugate(spectrum), n=length, axis=2)[:, :, :n] / n
    mean_var = acov[:, :, 0].mean(axis=1) * n / (n - 1)
    var_plus = mean_var * (n - 1) / n
    if n_chains > 1 and not within:
        var_plus = var_plus + values.mean(axis=2).var(axis=1, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = 1 - (mean_var[:, None] - acov.mean(axis=1)) / var_plus[:, None]
    rho[:, 0] = 1.0
    # pair sums s_k = ρ_2k + ρ_2k+1; the sequence runs to the first pair K with s_K ≤ 0 (or the
    # last pair ArviZ computes), its earlier pairs made monotone (running minimum)
    n_pairs = (n - 1) // 2
    pairs = rho[:, : 2 * n_pairs].reshape(n_params, n_pairs, 2)
    sums = pairs.sum(axis=2)
    nonpositive = sums <= 0
    last = np.where(nonpositive.any(axis=1), nonpositive.argmax(axis=1), n_pairs - 1)
    monotone = np.minimum.accumulate(sums, axis=1)
    before_last = np.arange(n_pairs)[None, :] < last[:, None]
    even = pairs[np.arange(n_params), last, 0]
    kept = (even > 0) | (sums[np.arange(n_params), last] >= 0)
    tail = np.where(last == 0, 1.0, np.where(kept, even, 0.0))
    tau = -1 + 2 * np.where(before_last, monotone, 0.0).sum(axis=1) + tail
    total = n_chains * n
    tau = np.maximum(tau, 1 / np.log10(total))
    ess = total / tau
    constant = np.ptp(values.reshape(n_params, -1), axis=1) < np.finfo(float).resolution
    ess = np.where(constant, total, ess)
    return np.where(np.isnan(values).any(axis=(1, 2)) | np.isnan(rho).any(axis=1) & ~constant, np.nan, ess)


def _ess_tail(values: np.ndarray) -> np.ndarray:
    """Min of the ESS of the indicators draw ≤ 5 % and ≤ 95 % quantile (type-7 quantiles)."""
    flat = values.reshape(len(values), -1)
    quantiles = np.quantile(flat, [0.05, 0.95], axis=1)  # (2, parameters)
    return np.minimum(*(_ess(_split_chains((values <= q[:, None, None]).astype(float))) for q in quantiles))
