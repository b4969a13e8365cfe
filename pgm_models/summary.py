"""Posterior summaries: one row per scalar parameter, labelled as ``az.summary`` labels them
(``feature_prob_outlook[yes, sunny]``).

``posterior_summary(model)`` gives, for a model with a closed form, the analytic posterior mean,
sd and mode of every parameter and a central credible interval read off exact i.i.d. draws
(``posterior_draws``); for AODE the summaries of its SPODEs, one block per super-parent, with
each SPODE's weight in the average (before a row's missing or rare parents drop out of it); for Bayesian logistic regression (no closed form) the same
columns from its NUTS draws (``sample_posterior`` first), with no mode.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr


def labelled_table(**datasets: xr.Dataset) -> pd.DataFrame:
    """Columns ``variable``, ``parameter`` and one per keyword, from datasets that share their
    variables and dims: one row per scalar."""
    from arviz.labels import BaseLabeller
    from arviz.sel_utils import xarray_var_iter

    labeller = BaseLabeller()
    first, *_ = datasets.values()
    rows = [
        (name, labeller.make_label_flat(name, sel, isel), *(float(d[name].isel(isel)) for d in datasets.values()))
        for name, sel, isel, _ in xarray_var_iter(first, combined=True)
    ]
    return pd.DataFrame(rows, columns=["variable", "parameter", *datasets])


def _interval_columns(posterior: xr.Dataset, prob: float) -> dict:
    low, high = (1 - prob) / 2, (1 + prob) / 2
    quantiles = posterior.quantile([low, high], dim=("chain", "draw"))
    return {f"q{low:.1%}": quantiles.sel(quantile=low, drop=True), f"q{high:.1%}": quantiles.sel(quantile=high, drop=True)}


def posterior_summary(model, prob: float = 0.94, n_draws: int = 2000, random_seed=0) -> pd.DataFrame:
    """Mean, sd, mode and the central ``prob`` interval of every parameter of a fitted model."""
    from sklearn.utils.validation import check_is_fitted

    from pgm_models.semi_naive import AODE

    if not 0 < prob < 1:
        raise ValueError(f"prob must be in (0, 1), got {prob!r}")
    check_is_fitted(model, "classes_")
    if isinstance(model, AODE):
        return _aode_summary(model, prob, n_draws, random_seed)
    if getattr(model, "_closed_form", False):
        draws = model.posterior_draws(n_draws // 2, random_seed=random_seed).posterior
        return labelled_table(
            mean=model.analytic_posterior("mean"), sd=model.analytic_posterior("sd"),
            mode=model.analytic_posterior("mode"), **_interval_columns(draws, prob),
        )
    if not hasattr(model, "idata_"):
        raise ValueError(f"{type(model).__name__} has no closed form: call sample_posterior() before summarising its posterior")
    posterior = model.idata_.posterior
    return labelled_table(
        mean=posterior.mean(("chain", "draw")), sd=posterior.std(("chain", "draw")), **_interval_columns(posterior, prob)
    )


def _aode_summary(model, prob, n_draws, random_seed) -> pd.DataFrame:
    log_weights = model._log_weights()
    weights = np.exp(log_weights - log_weights.max())
    weights /= weights.sum()
    names = model._feature_names()
    tables = [
        posterior_summary(model.spode(j), prob, n_draws, random_seed).assign(spode=names[j], weight=weights[j])
        for j in range(model.n_features_in_)
    ]
    table = pd.concat(tables, ignore_index=True)
    return table[["spode", "weight"] + [c for c in table.columns if c not in ("spode", "weight")]]
