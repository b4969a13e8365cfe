"""Figures shared by the notebooks and the CLI; every function returns a matplotlib Figure.

* :func:`posterior_vs_closed_form` — sampled marginals (histograms) of one parameter with the
  closed form drawn on them: the analytic mean, the exact marginal density and its central 95 %
  interval — Beta for a Dirichlet cell, Student-t for a Normal mean, Inverse-Gamma for a variance
  or a diagonal covariance entry (an off-diagonal covariance entry has no standard marginal:
  mean ± 2 sd only).
* :func:`verification_forest` — every parameter's sampled mean ± 2 sd beside the closed-form
  mean ± 2 sd, standardised by the closed form and paged over panels, from a
  :func:`pgm_models.inference.verify.check_posterior` table (failures marked).
* :func:`diagnostics` — ArviZ trace and rank plots.
* :func:`sampler_health` — NUTS energy plot, bulk ESS and R-hat of every parameter against the
  verification thresholds.
* :func:`reliability_diagram` — accuracy against top-label confidence in equal-width bins.

Legends sit outside the data (above the panels or under the axes); long parameter names are
wrapped, never clipped.
* :func:`decision_boundary` — predicted classes over a 2-D grid, one panel per model (e.g. LDA's
  linear against QDA's quadratic boundaries).
* :func:`probability_intervals` — for each test point, the posterior median and central
  credible interval of P(ŷ | x), ŷ its most probable class, from ``predict_proba_draws``.
"""

from __future__ import annotations

import re

import numpy as np


def _figure(n_panels: int, columns: int = 4, size: float = 3.0):
    import matplotlib.pyplot as plt

    columns = min(columns, n_panels)
    rows = int(np.ceil(n_panels / columns))
    figure, axes = plt.subplots(
        rows, columns, figsize=(size * columns, size * 0.8 * rows + 0.4), squeeze=False, layout="constrained"
    )
    for ax in axes.ravel()[n_panels:]:
        ax.set_visible(False)
    return figure, axes.ravel()[:n_panels]


def posterior_vs_closed_form(model, idata, var_name: str, max_panels: int = 12):
    """Histograms of a parameter's draws with its closed-form posterior drawn on them.

    One panel per scalar of ``var_name``: the draws' histogram, the analytic mean ± 2 sd, and the
    exact marginal density — Beta for a Dirichlet cell, Student-t for a Normal mean,
    Inverse-Gamma for a variance or a diagonal covariance entry (an off-diagonal covariance entry
    has no standard marginal: mean ± 2 sd only).

    Parameters
    ----------
    model : fitted estimator with a closed form
        The model whose posterior the draws should follow.
    idata : arviz.InferenceData
        Its draws (``sample_posterior``'s or ``posterior_draws``').
    var_name : str
        The parameter, e.g. "class_prob" or "feature_prob_outlook".
    max_panels : int, default=12
        At most this many scalars are drawn.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    See Also
    --------
    check_posterior : The test the picture illustrates.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import CategoricalNB
    >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 1])
    >>> model = CategoricalNB().fit(X, y)
    >>> idata = model.posterior_draws(n=500, chains=4, random_seed=0)  # exact draws; sample_posterior gives NUTS ones
    >>> from pgm_models import posterior_vs_closed_form
    >>> figure = posterior_vs_closed_form(model, idata, "class_prob")
    >>> len(figure.axes)
    2
    """
    from arviz.labels import BaseLabeller
    from arviz.sel_utils import xarray_var_iter

    closed_form, _ = model._parameters()[var_name]
    mean, sd = model.analytic_posterior("mean")[var_name], model.analytic_posterior("sd")[var_name]
    samples = idata.posterior[var_name]
    items = list(xarray_var_iter(samples.to_dataset(), combined=True, skip_dims={"chain", "draw"}))[:max_panels]
    figure, axes = _figure(len(items))
    labeller = BaseLabeller()
    for ax, (name, selection, index, values) in zip(axes, items):
        values = np.ravel(values)
        ax.hist(values, bins=40, density=True, color="0.75", label="samples")
        m, s = float(mean[index]), float(sd[index])
        ax.axvline(m, color="C1", label="closed-form mean")
        marginal = closed_form.marginal_distribution(tuple(index.values()))
        if marginal is not None:
            # the exact central 95 % interval: mean ± 2 sd would cross 0 for a probability near 0
            ax.axvspan(*marginal.ppf([0.025, 0.975]), color="C1", alpha=0.15, label="exact central 95 %")
            grid = np.linspace(values.min(), values.max(), 200)
            ax.plot(grid, marginal.pdf(grid), color="C0", label="exact marginal")
        else:
            ax.axvspan(m - 2 * s, m + 2 * s, color="C1", alpha=0.15, label="± 2 sd (no standard marginal)")
        ax.set_title(_wrap(labeller.make_label_flat(name, selection, index), 36), fontsize=8)
        ax.set_xlabel(var_name, fontsize=7)
        ax.set_ylabel("density", fontsize=7)
        ax.tick_params(labelsize=7)
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside upper center", ncols=len(labels), fontsize=7, frameon=False)
    return figure


def diagnostics(idata, var_names=None):
    """ArviZ trace plots of posterior draws: each parameter's density per chain and its rank bars.

    Parameters
    ----------
    idata : arviz.InferenceData
        The draws.
    var_names : list of str, default=None
        The parameters to plot; None: all.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    See Also
    --------
    sampler_health : Energy, ESS and R-hat.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import CategoricalNB
    >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 1])
    >>> model = CategoricalNB().fit(X, y)
    >>> idata = model.posterior_draws(n=500, chains=4, random_seed=0)  # exact draws; sample_posterior gives NUTS ones
    >>> from pgm_models import diagnostics
    >>> figure = diagnostics(idata, var_names=["class_prob"])
    >>> len(figure.axes)
    2
    """
    import arviz as az

    axes = az.plot_trace(idata, var_names=var_names, kind="rank_bars", compact=True)
    figure = np.ravel(axes)[0].figure
    figure.tight_layout()
    return figure


def _wrap(name: str, width: int = 40) -> str:
    """``name`` on lines of about ``width`` characters, broken only after "[", "_", "-" or ", "
    so that removing the newlines gives ``name`` back (a piece longer than ``width`` stays whole).
    """
    lines = [""]
    for piece in re.split(r"(?<=[\[_\-])|(?<=, )", name):
        if lines[-1] and len(lines[-1]) + len(piece) > width:
            lines.append("")
        lines[-1] += piece
    return "\n".join(lines)


def _legend_below(ax, **kwargs):
    """A legend under the axes (and its x label), outside the data."""
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=7, frameon=False, **kwargs)


def verification_forest(verification, per_panel: int = 45, columns: int = 3):
    """A forest plot of every parameter of a Verification, standardised by its closed form.

    On each row the closed-form mean ± 2 sd is 0 ± 2 and the sampled mean ± 2 sd is
    ((m_s − m) ± 2 s_s)/s, with m, s the closed-form mean and sd, so parameters on very different
    scales (probabilities beside covariances) are all visible; the right-hand labels carry m ± s.
    Each block (a variable such as ``feature_prob_outlook``) gets a bold heading over the rows of
    its entries; a parameter that failed the check is labelled in red.

    Parameters
    ----------
    verification : Verification
        The result of :func:`check_posterior`.
    per_panel : int, default=45
        About this many lines per panel.
    columns : int, default=3
        Panels per row.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    See Also
    --------
    check_posterior : Makes the Verification.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import CategoricalNB
    >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 1])
    >>> model = CategoricalNB().fit(X, y)
    >>> idata = model.posterior_draws(n=500, chains=4, random_seed=0)  # exact draws; sample_posterior gives NUTS ones
    >>> from pgm_models import check_posterior, verification_forest
    >>> figure = verification_forest(check_posterior(model, idata))
    >>> len(figure.axes)
    1
    """
    import matplotlib.pyplot as plt

    table = verification.table.reset_index(drop=True)
    scale = table["analytic_sd"].where(table["analytic_sd"] > 0, 1.0).to_numpy()
    offset = ((table["sampled_mean"] - table["analytic_mean"]) / scale).to_numpy()
    half_width = (2 * table["sampled_sd"] / scale).to_numpy()
    # Lines top to bottom: ("heading", text) for a block, ("row", table index) for a parameter.
    lines = []
    for variable in dict.fromkeys(table["variable"]):
        lines.append(("heading", variable))
        lines += [("row", i) for i in np.flatnonzero(table["variable"] == variable)]
    n_panels = int(np.ceil(len(lines) / per_panel))
    page_length = int(np.ceil(len(lines) / n_panels))
    pages = [lines[k : k + page_length] for k in range(0, len(lines), page_length)]
    for page, following in zip(pages, pages[1:]):
        if page[-1][0] == "heading":  # a heading goes with its first row
            following.insert(0, page.pop())
    for page in pages[1:]:  # a block cut by a page break is headed again
        if page[0][0] == "row":
            page.insert(0, ("heading", table.loc[page[0][1], "variable"] + " (continued)"))
    labels = [[_wrap(item if kind == "heading" else _entry(table.loc[item])) for kind, item in page] for page in pages]
    # a heading takes the room of its lines, a parameter's row at least one row (more when wrapped)
    heights = [
        np.array(
            [max(0.7 * (label.count("\n") + 1), float(kind == "row")) for (kind, _), label in zip(page, page_labels)]
        )
        for page, page_labels in zip(pages, labels)
    ]
    columns = min(columns, len(pages))
    n_rows = int(np.ceil(len(pages) / columns))
    longest = max(height.sum() for height in heights)
    figure, axes = plt.subplots(
        n_rows,
        columns,
        squeeze=False,
        layout="constrained",
        figsize=(5.4 * columns, (0.15 * longest + 0.9) * n_rows + 0.5),
    )
    for ax in axes.ravel()[len(pages) :]:
        ax.set_visible(False)
    limit = max(3.0, 1.05 * float(np.nanmax(np.abs(offset) + half_width, initial=0)))
    for ax, page, page_labels, height in zip(axes.ravel(), pages, labels, heights):
        position = longest - np.cumsum(height) + height / 2
        is_row = np.array([kind == "row" for kind, _ in page])
        index = np.array([item for kind, item in page if kind == "row"], dtype=int)
        ax.errorbar(
            offset[index],
            position[is_row] + 0.15,
            xerr=half_width[index],
            fmt="o",
            markersize=2.5,
            color="C0",
            label="NUTS mean ± 2 sd",
        )
        ax.errorbar(
            np.zeros(len(index)),
            position[is_row] - 0.15,
            xerr=2.0,
            fmt="s",
            markersize=2.5,
            color="C1",
            label="closed form mean ± 2 sd",
        )
        ax.set_yticks(position, page_labels, fontsize=6)
        for label, (kind, item) in zip(ax.get_yticklabels(), page):
            if kind == "heading":
                label.set(fontweight="bold", fontsize=6.5)
            else:
                label.set_color("k" if table.loc[item, "ok"] else "C3")
        right = ax.secondary_yaxis("right")
        right.set_yticks(
            position[is_row],
            [f"{m:.3g} ± {s:.2g}" for m, s in table.loc[index, ["analytic_mean", "analytic_sd"]].to_numpy()],
            fontsize=5.5,
            color="0.35",
        )
        ax.set(xlim=(-limit, limit), ylim=(-0.2, longest + 0.2))
        ax.set_xlabel("(θ − closed-form mean) / closed-form sd", fontsize=7)
        ax.tick_params(axis="x", labelsize=7)
        ax.tick_params(axis="y", length=0)
        ax.axvline(0, color="0.85", linewidth=0.8, zorder=0)
    handles, names = axes[0, 0].get_legend_handles_labels()
    figure.legend(handles, names, loc="outside lower center", ncols=2, fontsize=7, frameon=False)
    figure.suptitle(
        f"all {len(table)} parameters, max |z| = {verification.max_abs_z:.2f}: "
        f"{'passed' if verification.passed else 'FAILED'} (right: closed-form mean ± sd)",
        fontsize=9,
    )
    return figure


def _entry(row) -> str:
    """A parameter's label under its block's heading: its index ("democrat, y"), or its name
    when it is a scalar block.
    """
    index = row["parameter"][len(row["variable"]) :]
    return index[1:-1] if index.startswith("[") else row["parameter"]


def sampler_health(idata, verification):
    """The sampler's health: NUTS energy, and every parameter's bulk ESS and R-hat against the thresholds.

    Three panels: the energy plot (when ``idata`` has NUTS sampler statistics), each parameter's
    bulk effective sample size and its split R-hat, with the thresholds of ``verification`` drawn
    as lines. The legends sit under the panels.

    Parameters
    ----------
    idata : arviz.InferenceData
        The draws (``sample_posterior``'s for an energy plot).
    verification : Verification
        The check of the same draws (:func:`check_posterior` or :func:`check_sampler`).

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    See Also
    --------
    diagnostics : Trace and rank plots.

    References
    ----------
    .. [1] A. Vehtari, A. Gelman, D. Simpson, B. Carpenter and P.-C. Bürkner, "Rank-normalization,
       folding, and localization: an improved R-hat for assessing convergence of MCMC",
       *Bayesian Analysis* 16(2), 667–718, 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import CategoricalNB
    >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 1])
    >>> model = CategoricalNB().fit(X, y)
    >>> idata = model.posterior_draws(n=500, chains=4, random_seed=0)  # exact draws; sample_posterior gives NUTS ones
    >>> from pgm_models import check_posterior, sampler_health
    >>> figure = sampler_health(idata, check_posterior(model, idata))
    >>> len(figure.axes)
    3
    """
    import arviz as az
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 3, figsize=(11, 4.2), layout="constrained")
    if "sample_stats" in idata and "energy" in idata.sample_stats:
        az.plot_energy(idata, ax=axes[0], legend=False, textsize=8)
        axes[0].set_title("NUTS energy")
        _legend_below(axes[0], ncols=2)
    else:
        axes[0].text(0.5, 0.5, "no sampler energy\n(not NUTS draws)", ha="center", va="center")
    table, thresholds = verification.table, verification.thresholds
    position = np.arange(len(table))
    for ax, column, threshold, label in (
        (axes[1], "ess_bulk", thresholds["ess_min"], "bulk ESS"),
        (axes[2], "r_hat", table["r_hat_max"].to_numpy(), "R-hat"),
    ):
        ax.plot(position, table[column], "o", markersize=3, label=label)
        if np.ndim(threshold) and len(np.unique(threshold)) > 1:  # the calibrated R-hat: one threshold per parameter
            ax.plot(position, threshold, "_", color="C3", markersize=6, label="threshold (per parameter)")
        else:
            threshold = float(np.ravel(threshold)[0]) if np.ndim(threshold) else threshold
            ax.axhline(threshold, color="C3", linestyle="--", label=f"threshold {threshold:g}")
        ax.set(xlabel="parameter (table order)", ylabel=label, title=f"{label} per parameter")
        _legend_below(ax, ncols=2)
    return figure


def reliability_diagram(true_index, proba, n_bins: int = 10, min_bin_rows: int = 10, ax=None):
    """Reliability diagram: accuracy against top-label confidence in equal-width bins.

    Each bin of the largest predicted probability gets a point at its mean confidence and its
    fraction correct, beside the diagonal of perfect calibration, and a bar of its share of rows.
    Only bins holding at least ``min_bin_rows`` rows get a point (the standard error of a bin's
    accuracy is ≤ 0.5/√n: ≤ 0.16 at the default of 10); the shares show every bin.

    Parameters
    ----------
    true_index : array-like of shape (n_samples,)
        The position of each row's true class among the columns of ``proba``.
    proba : ndarray of shape (n_samples, n_classes)
        The predicted class probabilities.
    n_bins : int, default=10
        The number of bins of the confidence.
    min_bin_rows : int, default=10
        The fewest rows a bin needs for its point.
    ax : matplotlib Axes, default=None
        Where to draw; None: a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    See Also
    --------
    expected_calibration_error : The bins' weighted gap in one number.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import CategoricalNB, load_dataset, reliability_diagram
    >>> X, y = load_dataset("vote")
    >>> model = CategoricalNB().fit(X, y)
    >>> true_index = np.searchsorted(model.classes_, y)
    >>> figure = reliability_diagram(true_index, model.predict_proba(X))
    >>> len(figure.axes)
    1
    """
    import matplotlib.pyplot as plt

    confidence = proba.max(axis=1)
    correct = proba.argmax(axis=1) == np.asarray(true_index)
    bins = np.minimum((confidence * n_bins).astype(int), n_bins - 1)
    used, sizes = np.unique(bins, return_counts=True)
    shown = used[sizes >= min_bin_rows]
    figure = ax.figure if ax is not None else plt.figure(figsize=(4, 4.6), layout="constrained")
    ax = ax if ax is not None else figure.add_subplot()
    ax.plot([0, 1], [0, 1], color="0.6", linestyle="--", label="perfect calibration")
    ax.plot(
        [confidence[bins == b].mean() for b in shown],
        [correct[bins == b].mean() for b in shown],
        marker="o",
        label=f"model (bins of ≥ {min_bin_rows} rows)",
    )
    ax.bar((used + 0.5) / n_bins, sizes / len(bins), width=1 / n_bins, alpha=0.2, color="C0", label="share of rows")
    ax.set(xlabel="confidence", ylabel="accuracy", xlim=(0, 1), ylim=(0, 1))
    _legend_below(ax, ncols=2)
    return figure


def decision_boundary(models: dict, X, y, resolution: int = 200, estimate=None):
    """The predicted class over a grid around 2-D data, one panel per fitted model.

    The regions are coloured by the predicted class and the data drawn on top, e.g. to compare
    LDA's linear boundaries with QDA's quadratic ones.

    Parameters
    ----------
    models : dict
        {title: fitted estimator} of models fitted on two numeric features.
    X : array-like of shape (n_samples, 2)
        The data to draw (and to size the grid: its range plus 10 %).
    y : array-like of shape (n_samples,)
        Their labels.
    resolution : int, default=200
        Grid points per axis.
    estimate : {"mean", "map", "mle", "predictive"}, default=None
        The estimate the models predict with; None: each model's own.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    ValueError
        If X does not have two columns.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import LDA, QDA, decision_boundary
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (30, 2)), rng.normal(2, 0.5, (30, 2))])
    >>> y = np.repeat([0, 1], 30)
    >>> models = {"LDA": LDA().fit(X, y), "QDA": QDA().fit(X, y)}
    >>> figure = decision_boundary(models, X, y, resolution=50)
    >>> [ax.get_title() for ax in figure.axes]
    ['LDA', 'QDA']
    """
    names = [str(c) for c in X.columns] if hasattr(X, "columns") else ["x₁", "x₂"]
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if X.shape[1] != 2:
        raise ValueError(f"decision_boundary draws 2-D data; X has {X.shape[1]} columns")
    low, high = X.min(axis=0), X.max(axis=0)
    margin = 0.1 * (high - low)
    xx, yy = np.meshgrid(*(np.linspace(a - m, b + m, resolution) for a, b, m in zip(low, high, margin)))
    grid = np.column_stack([xx.ravel(), yy.ravel()])
    figure, axes = _figure(len(models), columns=len(models), size=4.0)
    for ax, (name, model) in zip(axes, models.items()):
        classes = list(model.classes_)
        predicted = model.predict(grid, estimate=estimate)
        ax.contourf(
            xx,
            yy,
            np.searchsorted(classes, predicted).reshape(xx.shape),
            alpha=0.3,
            levels=np.arange(len(classes) + 1) - 0.5,
        )
        ax.scatter(X[:, 0], X[:, 1], c=np.searchsorted(classes, y), s=10, edgecolor="k", linewidth=0.3)
        ax.set(title=name, xlabel=names[0], ylabel=names[1])
    return figure


def probability_intervals(proba_draws, classes, y_true=None, prob: float = 0.94, max_points: int = 60, ax=None):
    """Credible intervals of each test point's predicted-class probability.

    For each point, the posterior median and the central ``prob`` interval of P(ŷ | x), ŷ the class
    with the highest mean probability over the draws; the points are sorted by that mean, and with
    ``y_true`` a point is drawn in C0 when ŷ is right and in C3 when wrong.

    Parameters
    ----------
    proba_draws : ndarray of shape (n_draws, n_samples, n_classes)
        Draws of P(y | x, θ_s), from :meth:`~pgm_models.CategoricalNB.predict_proba_draws` (every estimator has it).
    classes : array-like of shape (n_classes,)
        The class labels of the last axis (the model's ``classes_``).
    y_true : array-like of shape (n_samples,), default=None
        The true labels, to colour right and wrong predictions.
    prob : float, default=0.94
        The probability of the central interval.
    max_points : int, default=60
        The first this many points are drawn (pass a subset to choose others).
    ax : matplotlib Axes, default=None
        Where to draw; None: a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    ValueError
        If ``proba_draws`` is not (draws, points, classes) with one column per class.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import CategoricalNB
    >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 1])
    >>> model = CategoricalNB().fit(X, y)
    >>> idata = model.posterior_draws(n=500, chains=4, random_seed=0)  # exact draws; sample_posterior gives NUTS ones
    >>> from pgm_models import probability_intervals
    >>> draws = model.predict_proba_draws(X, n_draws=200, random_seed=0)
    >>> figure = probability_intervals(draws, model.classes_, y_true=y)
    >>> len(figure.axes)
    1
    """
    import matplotlib.pyplot as plt

    draws = np.asarray(proba_draws)[:, :max_points]
    if draws.ndim != 3 or draws.shape[2] != len(classes):
        raise ValueError(
            f"proba_draws must have shape (draws, points, {len(classes)} classes), got {np.shape(proba_draws)}"
        )
    predicted = draws.mean(axis=0).argmax(axis=1)
    chosen = np.take_along_axis(draws, predicted[None, :, None], axis=2)[..., 0]  # (S, N)
    low, median, high = np.quantile(chosen, [(1 - prob) / 2, 0.5, (1 + prob) / 2], axis=0)
    order = np.argsort(chosen.mean(axis=0))
    position = np.arange(len(order))
    figure = (
        ax.figure
        if ax is not None
        else plt.figure(figsize=(max(4.0, 0.12 * len(order) + 2), 4.0), layout="constrained")
    )
    ax = ax if ax is not None else figure.add_subplot()
    if y_true is None:
        colors = np.full(len(order), "C0")
    else:
        correct = np.asarray(classes)[predicted] == np.asarray(y_true)[:max_points]
        colors = np.where(correct, "C0", "C3")
    for color, label in (("C0", "ŷ correct" if y_true is not None else "P(ŷ | x)"), ("C3", "ŷ wrong")):
        shown = colors[order] == color
        if shown.any():
            ax.errorbar(
                position[shown],
                median[order][shown],
                yerr=[median[order][shown] - low[order][shown], high[order][shown] - median[order][shown]],
                fmt="o",
                markersize=3,
                color=color,
                label=label,
            )
    ax.set(
        xlabel="test point (sorted by posterior mean)",
        ylabel=f"P(ŷ | x): median and {prob:.0%} interval",
        ylim=(0, 1.02),
    )
    _legend_below(ax, ncols=2)
    return figure
