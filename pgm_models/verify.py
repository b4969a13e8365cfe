"""The proof every model of the zoo must pass: NUTS samples of its PyMC model agree with its
closed-form posterior.

For every scalar parameter θ the sampled mean and sd are compared with the analytic ones in
units of their Monte Carlo standard errors,

    z_mean = (mean_sampled − mean_analytic) / MCSE(mean),   z_sd = (sd_sampled − sd_analytic) / MCSE(sd),

and the sampler's own health is checked. Thresholds (all overridable):

* |z| ≤ z_max for every z. By default z_max is Bonferroni-corrected so that a correct model
  fails with probability about ``family_error`` = 1 % over all 2P z-scores of P parameters:
  z_max = Φ⁻¹(1 − family_error / (4P)) (≈ 3.9 for 50 parameters).
* split R-hat ≤ 1.01 (Vehtari et al. 2021) and bulk ESS ≥ 400 for every parameter;
* no divergent transitions (when the InferenceData has sampler statistics).

The MCSE of a sampled sd assumes the marginal has a finite fourth moment. A σ² posterior
InvGamma(a, b) has one only for a > 4 (about 8 rows per class under GaussianNB's default
prior), and a Student-t mean only above 4 degrees of freedom; with fewer rows the sd
comparison can fail for a correct model, so verify on data with enough rows per class.

:func:`check_sampler` is the health half alone, for a model with no closed form (Bayesian
logistic regression).

Works for any model with ``analytic_posterior("mean" | "sd")`` returning an ``xarray.Dataset``
whose variables are named and dimensioned like the PyMC model's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import norm

from pgm_models.summary import labelled_table

COLUMNS = [
    "variable", "parameter", "analytic_mean", "sampled_mean", "mcse_mean", "z_mean",
    "analytic_sd", "sampled_sd", "mcse_sd", "z_sd", "r_hat", "ess_bulk", "ess_tail", "ok",
]


@dataclass
class Verification:
    """Outcome of :func:`check_posterior`: a tidy table (one row per scalar parameter), the
    verdict, why it failed, and the thresholds used."""

    table: pd.DataFrame
    passed: bool
    reasons: list[str] = field(default_factory=list)
    thresholds: dict = field(default_factory=dict)
    divergences: int = 0

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        verdict = "PASSED" if self.passed else "FAILED: " + "; ".join(self.reasons[:5])
        return (
            f"Verification({len(self.table)} parameters, max |z| = {self.max_abs_z:.2f}, "
            f"max R-hat = {self.table['r_hat'].max():.4f}, min ESS = {self.table['ess_bulk'].min():.0f}, "
            f"divergences = {self.divergences}: {verdict})"
        )

    @property
    def max_abs_z(self) -> float:
        """Largest |z| over the parameters; NaN for a sampler-only check (no closed form)."""
        z = np.abs(self.table[["z_mean", "z_sd"]].to_numpy())
        return float("nan") if np.isnan(z).all() else float(np.nanmax(z))


def _z(sampled, analytic, mcse):
    difference = sampled - analytic
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(mcse > 0, difference / mcse, np.where(difference == 0, 0.0, np.inf))


def check_posterior(
    model,
    idata,
    *,
    z_max: float | None = None,
    family_error: float = 0.01,
    rhat_max: float = 1.01,
    ess_min: float = 400,
    max_divergences: int = 0,
) -> Verification:
    """Compare the posterior samples in ``idata`` with ``model``'s closed-form posterior."""
    analytic = labelled_table(analytic_mean=model.analytic_posterior("mean"), analytic_sd=model.analytic_posterior("sd"))
    names = list(dict.fromkeys(analytic["variable"]))
    missing = [n for n in names if n not in idata.posterior]
    if missing:
        raise ValueError(f"idata.posterior lacks the model's parameters {missing}")
    table = analytic.join(_sampled_table(idata, names), on="parameter", validate="one_to_one")
    table["z_mean"] = _z(table["sampled_mean"], table["analytic_mean"], table["mcse_mean"])
    table["z_sd"] = _z(table["sampled_sd"], table["analytic_sd"], table["mcse_sd"])

    if z_max is None:
        z_max = float(norm.isf(family_error / (4 * len(table))))
    z_ok = (np.abs(table["z_mean"]) <= z_max) & (np.abs(table["z_sd"]) <= z_max)
    reasons = [
        f"{row.parameter}: sampled mean {row.sampled_mean:.4g} vs analytic {row.analytic_mean:.4g} "
        f"(z = {row.z_mean:.1f}), sd {row.sampled_sd:.4g} vs {row.analytic_sd:.4g} "
        f"(z = {row.z_sd:.1f}); |z| must be ≤ {z_max:.2f}"
        for _, row in table[~z_ok].iterrows()
    ]
    return _verdict(table, z_ok, reasons, idata, {"z_max": z_max}, rhat_max, ess_min, max_divergences)


def check_sampler(idata, var_names=None, *, rhat_max: float = 1.01, ess_min: float = 400, max_divergences: int = 0) -> Verification:
    """The sampler-health half of :func:`check_posterior`, for a model with no closed form
    (e.g. Bayesian logistic regression): R-hat, bulk ESS and divergences; the z columns are NaN."""
    names = list(idata.posterior.data_vars) if var_names is None else list(var_names)
    table = _sampled_table(idata, names).reset_index(names="parameter")
    table["variable"] = [p.split("[")[0] for p in table["parameter"]]
    for column in ("analytic_mean", "analytic_sd", "z_mean", "z_sd"):
        table[column] = np.nan
    return _verdict(table, pd.Series(True, index=table.index), [], idata, {}, rhat_max, ess_min, max_divergences)


def _sampled_table(idata, names) -> pd.DataFrame:
    import arviz as az

    return az.summary(idata, var_names=names, kind="all", round_to="none").rename(
        columns={"mean": "sampled_mean", "sd": "sampled_sd"}
    )


def _verdict(table, z_ok, reasons, idata, thresholds, rhat_max, ess_min, max_divergences) -> Verification:
    """Add the sampler's health (R-hat, bulk ESS, divergences) to the z verdict."""
    divergences = int(idata.sample_stats["diverging"].sum()) if "sample_stats" in idata and "diverging" in idata.sample_stats else 0
    rhat_ok = table["r_hat"] <= rhat_max  # NaN fails
    ess_ok = table["ess_bulk"] >= ess_min
    table["ok"] = z_ok & rhat_ok & ess_ok
    reasons = list(reasons)
    for _, row in table[~rhat_ok].iterrows():
        reasons.append(f"{row.parameter}: R-hat {row.r_hat:.4f} > {rhat_max}")
    for _, row in table[~ess_ok].iterrows():
        reasons.append(f"{row.parameter}: bulk ESS {row.ess_bulk:.0f} < {ess_min}")
    if divergences > max_divergences:
        reasons.append(f"{divergences} divergent transitions (at most {max_divergences} allowed)")
    thresholds = {**thresholds, "rhat_max": rhat_max, "ess_min": ess_min, "max_divergences": max_divergences}
    return Verification(table[COLUMNS], not reasons, reasons, thresholds, divergences)
