"""The proof every model of the zoo must pass: NUTS samples of its PyMC model agree with its
closed-form posterior.

Three kinds of evidence, all judged together by :func:`check_posterior`:

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
2. **The joint.** The mean z-scores of each group of correlated parameters (a Dirichlet block,
   a class's mean vector, the entries of one covariance matrix) are combined with their exact
   correlation R into one chi-square, Q = Σ_groups zᵀR⁺z with Σ rank(R) degrees of freedom
   (Pearson's statistic for a Dirichlet). Many small shifts that no single |z| shows add up
   here: draws from Dirichlet(1.1) priors instead of Dirichlet(1) on vote.
3. **Per-draw support.** Every draw must be a valid parameter: each probability block sums to
   1 (within 1e4 machine epsilons of the draws' dtype), every variance is positive, every
   covariance matrix is symmetric positive definite. Draws whose marginals are right but whose
   joint is not (each parameter's draws shuffled independently) fail here.

Thresholds (all overridable): the marginal z-tests and the chi-square share ``family_error``
(1 %) equally: |z| ≤ z_max = Φ⁻¹(1 − family_error / (8P)) over the 2P z-scores of P
parameters (Bonferroni; ≈ 4.0 for 50 parameters), and the chi-square's p-value ≥
family_error / 2. The sampler's health: bulk ESS ≥ 400 for every parameter, no divergent
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
    "variable", "parameter", "analytic_mean", "sampled_mean", "mcse_mean", "z_mean",
    "analytic_sd", "sampled_sd", "mcse_sd", "z_sd", "r_hat", "r_hat_max", "ess_bulk", "ess_tail", "ok",
]


@dataclass
class Verification:
    """Outcome of :func:`check_posterior`: a tidy table (one row per scalar parameter), the
    verdict, why it failed, the thresholds used, and the joint checks (chi-square statistic,
    its degrees of freedom and p-value; draws outside the support, per variable)."""

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
        """Largest |z| over the parameters; NaN for a sampler-only check (no closed form)."""
        z = np.abs(self.table[["z_mean", "z_sd"]].to_numpy())
        return float("nan") if np.isnan(z).all() else float(np.nanmax(z))


def _z(difference, mcse):
    """difference / mcse; a parameter with no spread (mcse 0) is 0 when it matches exactly."""
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
    """Compare the posterior samples in ``idata`` with ``model``'s closed-form posterior: marginal
    means and sds, the joint chi-square of the means, and every draw's support (module docstring).
    ``rhat_max`` None: each parameter's R-hat threshold from :func:`rhat_thresholds` at
    ``rhat_level`` (default ``family_error``) shared by all of them; a number: that fixed bound."""
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
    kurtosis, tail = (np.concatenate([np.broadcast_to(getattr(posteriors[n], statistic)(), analytic_mean[n].shape).ravel() for n in names])
                      for statistic in ("excess_kurtosis", "tail_index"))
    with np.errstate(invalid="ignore", divide="ignore"):
        # entries with no standard marginal (off-diagonal covariances) use their draws' own
        kurtosis = np.where(np.isnan(kurtosis), (squared**2).mean(axis=(1, 2)) / squared.mean(axis=(1, 2)) ** 2 - 3, kurtosis)
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

    if z_max is None:
        z_max = float(norm.isf(family_error / (8 * len(table))))
    z_ok = ~(np.abs(table["z_mean"]) > z_max) & ~(np.abs(table["z_sd"]) > z_max)  # NaN: untestable
    reasons = [
        f"{row.parameter}: sampled mean {row.sampled_mean:.4g} vs analytic {row.analytic_mean:.4g} "
        f"(z = {row.z_mean:.1f}), sd {row.sampled_sd:.4g} vs {row.analytic_sd:.4g} "
        f"(z = {row.z_sd:.1f}); |z| must be ≤ {z_max:.2f}"
        for _, row in table[~z_ok].iterrows()
    ]
    joint_level = family_error / 2
    statistic, df = _joint_chi_square(posteriors, table)
    joint_p = float(chi2.sf(statistic, df)) if df else float("nan")
    if joint_p < joint_level:
        reasons.append(
            f"joint: the mean z-scores' chi-square is {statistic:.1f} on {df} degrees of freedom "
            f"(p = {joint_p:.2g} < {joint_level:.2g})"
        )
    outside = {name: int((~posteriors[name].in_support(_flat_draws(d), _support_atol(d))).sum()) for name, d in draws.items()}
    reasons += [f"{name}: {count} of {n_draws} draws outside the posterior's support" for name, count in outside.items() if count]
    thresholds = {"z_max": z_max, "joint_level": joint_level}
    result = _verdict(table, values, z_ok, reasons, idata, thresholds, rhat_max,
                      family_error if rhat_level is None else rhat_level, ess_min, max_divergences)
    result.joint_statistic, result.joint_df, result.joint_p, result.outside_support = statistic, df, joint_p, outside
    result.untested = int(table[["z_mean", "z_sd"]].isna().to_numpy().sum())
    return result


def _joint_chi_square(posteriors, table) -> tuple[float, int]:
    """Σ zᵀR⁺z over the groups of correlated parameters (R their exact correlation), and its
    degrees of freedom Σ rank(R); parameters outside any group count as groups of one. Entries
    with no spread or an infinite variance are left out."""
    statistic, df = 0.0, 0
    for name, posterior in posteriors.items():
        rows = table[table["variable"] == name]
        z, sd = rows["z_mean"].to_numpy(), rows["analytic_sd"].to_numpy()
        usable = (sd > 0) & np.isfinite(sd) & np.isfinite(z)
        groups = posterior.covariance_groups() if hasattr(posterior, "covariance_groups") else None
        grouped = np.zeros(len(rows), dtype=bool)
        for cells, covariance in groups or []:
            keep = usable[cells]
            sd_cells = np.where(keep, sd[cells], 1.0)
            # the unusable cells' rows and columns are zeroed, which removes them from R⁺ and the rank
            correlation = covariance * keep[:, :, None] * keep[:, None, :] / (sd_cells[:, :, None] * sd_cells[:, None, :])
            z_cells = np.where(keep, z[cells], 0.0)
            inverse = np.linalg.pinv(correlation, rcond=1e-10, hermitian=True)
            statistic += float(np.einsum("gi,gij,gj->", z_cells, inverse, z_cells))
            df += int(np.linalg.matrix_rank(correlation, tol=1e-8, hermitian=True).sum())
            grouped[cells.ravel()] = True
        single = usable & ~grouped
        statistic += float((z[single] ** 2).sum())
        df += int(single.sum())
    return statistic, df


def _flat_draws(values: np.ndarray) -> np.ndarray:
    """(chain, draw, ...) → (chain·draw, ...)."""
    return values.reshape((-1,) + values.shape[2:])


def _support_atol(values: np.ndarray) -> float:
    """How far a draw may stray from its support by rounding alone: 1e4 machine epsilons of its
    dtype (a float32 sampler's simplex sums are good to about 1e-7 per cell, float64's to 1e-16)."""
    return 1e4 * float(np.finfo(values.dtype if values.dtype.kind == "f" else float).eps)


def check_sampler(idata, var_names=None, *, rhat_max: float | None = None, rhat_level: float = 0.01, ess_min: float = 400,
                  max_divergences: int = 0) -> Verification:
    """The sampler-health half of :func:`check_posterior`, for a model with no closed form
    (e.g. Bayesian logistic regression): R-hat, bulk ESS and divergences; the z columns are NaN."""
    names = list(idata.posterior.data_vars) if var_names is None else list(var_names)
    posterior = idata.posterior[names]
    table = labelled_table(sampled_mean=posterior.mean(("chain", "draw")))
    values = _parameter_major(posterior[n].transpose("chain", "draw", ...).values for n in names)
    table = table.assign(**_sampled_statistics(values))
    table["mcse_mean"] = table["sampled_sd"] / np.sqrt(_ess(_split_chains(values)))
    for column in ("analytic_mean", "analytic_sd", "z_mean", "z_sd", "mcse_sd"):
        table[column] = np.nan
    return _verdict(table, values, pd.Series(True, index=table.index), [], idata, {}, rhat_max, rhat_level, ess_min, max_divergences)


def rhat_thresholds(values: np.ndarray, level: float = 0.01) -> np.ndarray:
    """Each parameter's R-hat threshold, calibrated so that all P parameters of correct draws
    ``values`` (parameter, chain, draw) pass together with probability about 1 − level: the bulk
    and the folded split R-hat (``_rhat_rank`` is their maximum) each within
    R̂² ≤ (n − 1)/n + m q / ((m − 1) ESS_within), q the χ²(m − 1) quantile of 1 − level/(2P), m
    and n the split chains and their length, ESS_within that statistic's ESS from its
    within-chain autocorrelations, capped at m n (module docstring). Returned as one bound on
    ``_rhat_rank`` per parameter: its R-hat divided by the larger of the two R-hats' ratios to
    their bounds (so R-hat ≤ bound exactly when both pass); ∞ for a constant parameter, NaN with
    fewer than 2 chains or 4 draws."""
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


def _verdict(table, values, z_ok, reasons, idata, thresholds, rhat_max, rhat_level, ess_min, max_divergences) -> Verification:
    """Add the sampler's health (R-hat, bulk ESS, divergences) to the z verdict."""
    divergences = int(idata.sample_stats["diverging"].sum()) if "sample_stats" in idata and "diverging" in idata.sample_stats else 0
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
    thresholds = {**thresholds, "rhat_max": rhat_max, "rhat_level": rhat_level if rhat_max is None else None, "ess_min": ess_min,
                  "max_divergences": max_divergences}
    return Verification(table[COLUMNS], not reasons, reasons, thresholds, divergences)


# ---------------------------------------------------------------------------------------------
# Sampler diagnostics of every parameter at once: ArviZ 0.23's rank-normalised split R-hat and
# bulk/tail/mean ESS (Vehtari et al. 2021), vectorised over parameters (ArviZ loops over them in
# Python, which made a check of a few hundred parameters take seconds). Arrays are
# (parameter, chain, draw); tests/test_verify.py checks them against ArviZ.

def _parameter_major(arrays) -> np.ndarray:
    """(chain, draw, ...) arrays → one float (parameter, chain, draw) array, parameters in the
    C order of each array, arrays one after another."""
    arrays = list(arrays)
    chains, draws = arrays[0].shape[:2]
    return np.moveaxis(np.concatenate([np.asarray(a, dtype=float).reshape(chains, draws, -1) for a in arrays], axis=-1), -1, 0)


def _sampled_statistics(values: np.ndarray) -> dict:
    """Sampled mean and sd, rank-normalised split R-hat, bulk and tail ESS of each parameter."""
    flat = values.reshape(len(values), -1)
    z_split = _z_scale(_split_chains(values))  # ranking is most of the cost: done once for R-hat and bulk ESS
    return {"sampled_mean": flat.mean(axis=1), "sampled_sd": flat.std(axis=1, ddof=1), "r_hat": _rhat_rank(values, z_split),
            "ess_bulk": _ess(z_split), "ess_tail": _ess_tail(values)}


def _split_chains(values: np.ndarray) -> np.ndarray:
    """Each chain's first and last halves as two chains (the middle draw of an odd count dropped)."""
    half = values.shape[2] // 2
    return np.concatenate([values[:, :, :half], values[:, :, values.shape[2] - half:]], axis=1)


def _z_scale(values: np.ndarray) -> np.ndarray:
    """Rank-normalise each parameter's draws: Φ⁻¹((rank − 3/8)/(n + 1/4)), average ranks for ties."""
    from scipy.special import ndtri  # Φ⁻¹ without norm.ppf's argument checks (3 × faster)
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
    ``_z_scale(_split_chains(values))`` when the caller has it already."""
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
    disagreement (what ``rhat_thresholds`` needs)."""
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
    """min of the ESS of the indicators draw ≤ 5 % and ≤ 95 % quantile (type-7 quantiles)."""
    flat = values.reshape(len(values), -1)
    quantiles = np.quantile(flat, [0.05, 0.95], axis=1)  # (2, parameters)
    return np.minimum(*(_ess(_split_chains((values <= q[:, None, None]).astype(float))) for q in quantiles))
