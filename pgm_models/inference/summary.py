"""Posterior summaries: one row per scalar parameter, labelled as ``az.summary`` labels them
(``feature_prob_outlook[yes, sunny]``).

``posterior_summary(model)`` gives, for a model with a closed form, the analytic posterior mean,
sd and mode of every parameter and a central credible interval read off exact i.i.d. draws
(``posterior_draws``); for an average of models (a model whose ``_components()`` lists them, as
AODE lists its SPODEs) the summaries of its components, one block each, with each component's
weight in the average; for Bayesian logistic regression (no closed form) the same
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
    from arviz.sel_utils import xarray_sel_iter

    labeller = BaseLabeller()
    first, *_ = datasets.values()
    # numpy arrays in the first dataset's dim order, indexed directly (an xarray selection per
    # scalar is slow, and a text model has hundreds of parameters)
    arrays = {name: [d[name].transpose(*first[name].dims).values for d in datasets.values()] for name in first.data_vars}
    rows = [
        (name, labeller.make_label_flat(name, sel, isel), *(float(a[tuple(isel.values())]) for a in arrays[name]))
        for name, sel, isel in xarray_sel_iter(first, combined=True)
    ]
    return pd.DataFrame(rows, columns=["variable", "parameter", *datasets])


def _interval_columns(posterior: xr.Dataset, prob: float) -> dict:
    low, high = (1 - prob) / 2, (1 + prob) / 2
    quantiles = posterior.quantile([low, high], dim=("chain", "draw"))
    return {f"q{low:.1%}": quantiles.sel(quantile=low, drop=True), f"q{high:.1%}": quantiles.sel(quantile=high, drop=True)}


def posterior_summary(model, prob: float = 0.94, n_draws: int = 2000, random_seed=0, max_rows: int | None = None) -> pd.DataFrame:
    """Mean, sd, mode and the central ``prob`` interval (from ``n_draws`` exact draws) of every
    parameter of a fitted model, or of its first ``max_rows`` parameters: only the variables
    shown are drawn. ``table.attrs["n_parameters"]``: how many there are in all."""
    from sklearn.utils.validation import check_is_fitted

    if not 0 < prob < 1:
        raise ValueError(f"prob must be in (0, 1), got {prob!r}")
    if not (isinstance(n_draws, (int, np.integer)) and n_draws >= 1):
        raise ValueError(f"n_draws must be a whole number ≥ 1 (the intervals are read off that many exact draws), got {n_draws!r}")
    if max_rows is not None and not (isinstance(max_rows, (int, np.integer)) and max_rows >= 0):
        raise ValueError(f"max_rows must be a whole number ≥ 0 or None (all), got {max_rows!r}")
    check_is_fitted(model, "classes_")
    components = model._components() if hasattr(model, "_components") else None  # an estimator outside the template has none
    if components is not None:
        return _mixture_summary(components, prob, n_draws, random_seed, max_rows)
    if getattr(model, "_closed_form", False):
        table = labelled_table(mean=model.analytic_posterior("mean"), sd=model.analytic_posterior("sd"),
                               mode=model.analytic_posterior("mode"))
        n_parameters = len(table)
        table = table.head(max_rows) if max_rows is not None else table
        shown = list(dict.fromkeys(table["variable"]))
        draws = model.posterior_draws(n_draws, random_seed=random_seed, chains=1, var_names=shown).posterior
        intervals = labelled_table(**_interval_columns(draws, prob)).drop(columns="variable").set_index("parameter")
        table = table.join(intervals, on="parameter")
    else:
        if not hasattr(model, "idata_"):
            raise ValueError(f"{type(model).__name__} has no closed form: call sample_posterior() before summarising its posterior")
        posterior = model.idata_.posterior
        table = labelled_table(
            mean=posterior.mean(("chain", "draw")), sd=posterior.std(("chain", "draw")), **_interval_columns(posterior, prob)
        )
        n_parameters = len(table)
        table = table.head(max_rows) if max_rows is not None else table
    table.attrs["n_parameters"] = n_parameters
    return table


def _mixture_summary(components, prob, n_draws, random_seed, max_rows) -> pd.DataFrame:
    """The summaries of an average of models (``_components()``: the column that names a
    component, then each component's name, weight and maker), one block per component, until
    ``max_rows``."""
    column, components = components
    tables, n_parameters = [], 0
    for name, weight, make in components:
        component = make()
        size = sum(v.size for v in component.analytic_posterior("mean").data_vars.values())
        left = None if max_rows is None else max(max_rows - sum(map(len, tables)), 0)
        if left != 0:
            summary = posterior_summary(component, prob, n_draws, random_seed, left)
            tables.append(summary.assign(**{column: name, "weight": weight}))
        n_parameters += size
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=[column, "weight", "variable", "parameter"])
    table = table[[column, "weight"] + [c for c in table.columns if c not in (column, "weight")]]
    table.attrs["n_parameters"] = n_parameters
    return table
