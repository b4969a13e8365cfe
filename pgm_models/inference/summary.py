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
    """A table of every parameter's posterior: mean, sd, mode and a central credible interval.

    For a model with a closed form, the analytic posterior mean, sd and mode and a central
    interval read off exact i.i.d. draws (:meth:`~pgm_models.base.BayesianClassifier.posterior_draws`);
    for an average of models (AODE) the summaries of its components, one block each, with each
    component's weight; for Bayesian logistic regression (no closed form) the same columns from its
    NUTS draws, with no mode. Parameters are labelled as ``az.summary`` labels them
    (``feature_prob_outlook[yes, sunny]``).

    Parameters
    ----------
    model : fitted estimator
        A fitted model of the zoo (LogisticRegression after ``sample_posterior``).
    prob : float in (0, 1), default=0.94
        The probability of the central credible interval (ArviZ's default).
    n_draws : int, default=2000
        The exact draws the interval is read off.
    random_seed : int, default=0
        The seed of the draws.
    max_rows : int, default=None
        Only the first ``max_rows`` parameters (only their variables are drawn); None: all.

    Returns
    -------
    pandas.DataFrame
        One row per scalar parameter: ``variable``, ``parameter``, ``mean``, ``sd``, ``mode`` and the
        interval's quantiles (``q3.0%``, ``q97.0%`` for ``prob=0.94``); AODE's have a ``parent`` and a
        ``weight`` column first. ``table.attrs["n_parameters"]`` is how many parameters there are
        in all.

    Raises
    ------
    ValueError
        If ``prob``, ``n_draws`` or ``max_rows`` is out of range, or a model without a closed form
        has no draws yet.

    See Also
    --------
    pgm_models.base.BayesianClassifier.analytic_posterior : The closed-form statistics as xarray.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import CategoricalNB, posterior_summary
    >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 1])
    >>> model = CategoricalNB().fit(X, y)
    >>> table = posterior_summary(model, max_rows=3)
    >>> table[["parameter", "mean", "sd", "mode"]].round(3)
                   parameter   mean     sd   mode
    0          class_prob[0]  0.375  0.161  0.333
    1          class_prob[1]  0.625  0.161  0.667
    2  feature_prob_x0[0, 0]  0.600  0.200  1.000
    >>> table.attrs["n_parameters"]
    12
    """
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
