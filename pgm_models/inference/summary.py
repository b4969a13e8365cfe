"""Posterior summaries: one row per scalar parameter, labelled as ``az.summary`` labels them
(``feature_prob_outlook[yes, sunny]``).

``posterior_summary(model)`` gives, for a model with a closed form, the analytic posterior mean,
sd and mode of every parameter and a central credible interval, its exact marginal's quantiles
(read off exact draws of that one entry where the marginal has no standard form); for an
average of models (a model whose ``_components()`` lists them, as AODE lists its SPODEs) the summaries of its components, one block each, with each component's
weight in the average; for Bayesian logistic regression (no closed form) the same
columns from its NUTS draws (``sample_posterior`` first), with no mode.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr


def _shown_entries(shapes: dict, max_rows: int | None):
    """(name, index arrays) of the first ``max_rows`` scalars of variables of these ``shapes``
    (all with None), variable by variable in C order: the cost is the rows shown. A scalar variable
    is indexed as an array of one entry (``_entries`` reads it so).
    """
    left = max_rows
    for name, shape in shapes.items():
        if left == 0:
            return
        shape = shape or (1,)
        size = int(np.prod(shape))
        take = size if left is None else min(size, left)
        yield name, np.unravel_index(np.arange(take), shape)
        left = None if left is None else left - take


def _entries(values, index) -> np.ndarray:
    """The entries ``index`` of an array (a scalar as an array of one entry), as floats."""
    values = np.asarray(values, dtype=float)
    return (values.reshape(1) if values.ndim == 0 else values)[index]


def _labels(name: str, coords: list, index) -> list[str]:
    """``name[coord, coord]`` of each entry, as arviz's BaseLabeller writes them, from the
    coordinate values of the variable's dims.
    """
    if not coords:
        return [name]
    values = [np.asarray(c)[i] for c, i in zip(coords, index)]
    return [f"{name}[{', '.join(str(v[row]) for v in values)}]" for row in range(len(index[0]))]


def _table(blocks: list, columns) -> pd.DataFrame:
    return pd.concat(blocks, ignore_index=True) if blocks else pd.DataFrame(columns=["variable", "parameter", *columns])


def labelled_table(max_rows: int | None = None, **datasets: xr.Dataset) -> pd.DataFrame:
    """Columns ``variable``, ``parameter`` and one per keyword, from datasets that share their
    variables and dims: one row per scalar, or for the first ``max_rows`` scalars only (each
    dataset is read in the first one's dim order, by name).
    """
    first, *_ = datasets.values()
    blocks = []
    for name, index in _shown_entries({name: v.shape for name, v in first.data_vars.items()}, max_rows):
        dims = first[name].dims
        values = {key: _entries(d[name].transpose(*dims).values, index) for key, d in datasets.items()}
        labels = _labels(name, [first[dim].values for dim in dims], index)
        blocks.append(pd.DataFrame({"variable": name, "parameter": labels, **values}))
    return _table(blocks, datasets)


def _interval_columns(posterior: xr.Dataset, prob: float) -> dict:
    low, high = (1 - prob) / 2, (1 + prob) / 2
    quantiles = posterior.quantile([low, high], dim=("chain", "draw"))
    return {
        f"q{low:.1%}": quantiles.sel(quantile=low, drop=True),
        f"q{high:.1%}": quantiles.sel(quantile=high, drop=True),
    }


def _closed_form_table(model, max_rows, prob: float, n_draws: int, random_seed) -> tuple[pd.DataFrame, int]:
    """The summary of the first ``max_rows`` parameters of a closed-form model and how many there
    are, read off the posteriors of the variables shown (no xarray dataset of every one): each shown
    entry's central ``prob`` interval is its exact marginal's quantiles, or, where the marginal
    has no standard form (an off-diagonal covariance), the quantiles of ``n_draws`` exact draws
    of that entry alone.
    """
    low, high = (1 - prob) / 2, (1 + prob) / 2
    parameters, coords = model._parameters(), model._coords()
    shapes = {name: tuple(len(coords[dim]) for dim in dims) for name, (_, dims) in parameters.items()}
    rng = np.random.default_rng(random_seed)
    blocks = []
    for name, index in _shown_entries(shapes, max_rows):
        posterior, dims = parameters[name]
        statistics = {s: _entries(getattr(posterior, s)(), index) for s in ("mean", "sd", "mode")}
        bounds = []
        for entry in zip(*(map(int, i) for i in index)):
            entry = entry if shapes[name] else ()  # a scalar parameter's one entry
            marginal = posterior.marginal_distribution(entry)
            draws = posterior.sample_entry(entry, n_draws, rng) if marginal is None else None
            bounds.append(marginal.ppf([low, high]) if marginal is not None else np.quantile(draws, [low, high]))
        bounds = np.reshape(bounds, (-1, 2))
        blocks.append(
            pd.DataFrame(
                {
                    "variable": name,
                    "parameter": _labels(name, [coords[dim] for dim in dims], index),
                    **statistics,
                    f"q{low:.1%}": bounds[:, 0],
                    f"q{high:.1%}": bounds[:, 1],
                }
            )
        )
    columns = ["mean", "sd", "mode", f"q{low:.1%}", f"q{high:.1%}"]
    return _table(blocks, columns), sum(int(np.prod(shape)) for shape in shapes.values())


def posterior_summary(
    model, prob: float = 0.94, n_draws: int = 2000, random_seed=0, max_rows: int | None = None
) -> pd.DataFrame:
    """A table of every parameter's posterior: mean, sd, mode and a central credible interval.

    For a model with a closed form, the analytic posterior mean, sd and mode and the exact central
    interval of each marginal (its quantiles; an entry whose marginal has no standard form, an
    off-diagonal covariance, reads it off ``n_draws`` exact draws of that entry alone); only the
    rows shown are computed;
    for an average of SPODEs (AODE, AODEsr, WAODE) the summaries of its components, one block each,
    with each component's weight (A2DE, MANB and BMATAN, with no per-parameter posterior to list,
    raise, saying what they offer instead: MANB's and BMATAN's ``posterior_draws``); for Bayesian logistic regression (no closed form) the same columns from its
    NUTS draws, with no mode. Parameters are labelled as ``az.summary`` labels them
    (``feature_prob_outlook[yes, sunny]``).

    Parameters
    ----------
    model : fitted estimator
        A fitted model of the zoo (LogisticRegression after ``sample_posterior``).
    prob : float in (0, 1), default=0.94
        The probability of the central credible interval (ArviZ's default).
    n_draws : int, default=2000
        The exact draws an off-diagonal covariance's interval is read off.
    random_seed : int, default=0
        The seed of the draws.
    max_rows : int, default=None
        Only the first ``max_rows`` parameters (only they are computed); None: all.

    Returns
    -------
    pandas.DataFrame
        One row per scalar parameter: ``variable``, ``parameter``, ``mean``, ``sd``, ``mode`` and the
        interval's quantiles (``q3.0%``, ``q97.0%`` for ``prob=0.94``); AODE's have a ``spode`` (its
        super-parent) and a ``weight`` column first. ``table.attrs["n_parameters"]`` is how many parameters there are
        in all.

    Raises
    ------
    ValueError
        If ``prob``, ``n_draws`` or ``max_rows`` is out of range, or a model without a closed form
        has no draws yet.

    See Also
    --------
    pgm_models.CategoricalNB.analytic_posterior : The closed-form statistics as xarray (every closed-form estimator has it).

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
        raise ValueError(
            f"n_draws must be a whole number ≥ 1 (the intervals of an entry with no standard marginal are read off "
            f"that many exact draws), got {n_draws!r}"
        )
    if max_rows is not None and not (isinstance(max_rows, (int, np.integer)) and max_rows >= 0):
        raise ValueError(f"max_rows must be a whole number ≥ 0 or None (all), got {max_rows!r}")
    check_is_fitted(model, "classes_")
    components = (
        model._components() if hasattr(model, "_components") else None
    )  # an estimator outside the template has none
    if components is not None:
        return _mixture_summary(components, prob, n_draws, random_seed, max_rows)
    if getattr(model, "_closed_form", False):
        table, n_parameters = _closed_form_table(model, max_rows, prob, n_draws, random_seed)
    else:
        if not hasattr(model, "idata_"):
            raise ValueError(_no_draws(model))
        posterior = model.idata_.posterior
        shapes = {name: v.shape[2:] for name, v in posterior.data_vars.items()}
        posterior = posterior[[name for name, _ in _shown_entries(shapes, max_rows)]]  # the variables shown
        # a structure's indicator draws (MANB's arcs) as 0/1: their mean is the arc's posterior probability
        posterior = posterior.map(lambda v: v.astype(float) if v.dtype == bool else v)
        table = labelled_table(
            max_rows,
            mean=posterior.mean(("chain", "draw")),
            sd=posterior.std(("chain", "draw")),
            **_interval_columns(posterior, prob),
        )
        n_parameters = sum(int(np.prod(shape)) for shape in shapes.values())
    table.attrs["n_parameters"] = n_parameters
    return table


def _no_draws(model) -> str:
    """Why a model without a closed form cannot be summarised yet, and what it offers instead:
    NUTS (``sample_posterior``), or for an average of models (no PyMC model of its own) its exact
    joint draws where it has them (``_joint_draws_refused``: None), else its averaged structure.
    """
    name = type(model).__name__
    if not getattr(model, "_averaged", False):
        return f"{name} has no closed form: call sample_posterior() before summarising its posterior"
    if model._joint_draws_refused() is None:
        return (
            f"{name} is an average over structures, with no per-parameter posterior to list and no "
            "sample_posterior (no PyMC model of its own): az.summary(model.posterior_draws()) summarises exact "
            "joint draws of a structure and its tables"
        )
    return (
        f"{name} averages its members with fixed weights, not by a posterior over them: it has no posterior "
        "to summarise, neither sample_posterior (no PyMC model of its own) nor posterior_draws; graph() shows its "
        "averaged structure and sample_posterior_predictive(X) draws labels from its predictive"
    )


def _mixture_summary(components, prob, n_draws, random_seed, max_rows) -> pd.DataFrame:
    """The summaries of an average of models (``_components()``: the column that names a
    component, then each component's name, weight and maker), one block per component, until
    ``max_rows``.
    """
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
    table = (
        pd.concat(tables, ignore_index=True)
        if tables
        else pd.DataFrame(columns=[column, "weight", "variable", "parameter"])
    )
    table = table[[column, "weight"] + [c for c in table.columns if c not in (column, "weight")]]
    table.attrs["n_parameters"] = n_parameters
    return table
