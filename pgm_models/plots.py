"""Figures shared by the notebooks and the CLI; every function returns a matplotlib Figure.

* :func:`posterior_vs_closed_form` — sampled marginals (histograms) of one parameter with the
  closed form drawn on them: the analytic mean ± 2 sd, and the exact marginal density — Beta
  for a Dirichlet cell, Student-t for a Normal mean, Inverse-Gamma for a variance or a diagonal
  covariance entry (an off-diagonal covariance entry has no standard marginal: mean ± 2 sd only).
* :func:`verification_forest` — every parameter's sampled mean ± 2 sd beside the closed-form
  mean ± 2 sd, from a :func:`pgm_models.verify.check_posterior` table (failures marked).
* :func:`diagnostics` — ArviZ trace and rank plots.
* :func:`sampler_health` — NUTS energy plot, bulk ESS and R-hat of every parameter against the
  verification thresholds.
* :func:`reliability_diagram` — accuracy against top-label confidence in equal-width bins.
* :func:`decision_boundary` — predicted classes over a 2-D grid, one panel per model (e.g. LDA's
  linear against QDA's quadratic boundaries).
* :func:`probability_intervals` — for each test point, the posterior median and central
  credible interval of P(ŷ | x), ŷ its most probable class, from ``predict_proba_draws``.
"""

from __future__ import annotations

import numpy as np


def _figure(n_panels: int, columns: int = 4, size: float = 3.0):
    import matplotlib.pyplot as plt

    columns = min(columns, n_panels)
    rows = int(np.ceil(n_panels / columns))
    figure, axes = plt.subplots(rows, columns, figsize=(size * columns, size * 0.8 * rows), squeeze=False)
    for ax in axes.ravel()[n_panels:]:
        ax.set_visible(False)
    return figure, axes.ravel()[:n_panels]


def posterior_vs_closed_form(model, idata, var_name: str, max_panels: int = 12):
    """Histogram of each scalar of ``var_name`` in ``idata`` with the closed form marked."""
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
        ax.axvspan(m - 2 * s, m + 2 * s, color="C1", alpha=0.15, label="± 2 sd")
        marginal = closed_form.marginal_distribution(tuple(index.values()))
        if marginal is not None:
            grid = np.linspace(values.min(), values.max(), 200)
            ax.plot(grid, marginal.pdf(grid), color="C0", label="exact marginal")
        ax.set_title(labeller.make_label_flat(name, selection, index), fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0].legend(fontsize=6)
    figure.tight_layout()
    return figure


def diagnostics(idata, var_names=None):
    """ArviZ trace plot (densities and traces per chain) and rank bars."""
    import arviz as az

    axes = az.plot_trace(idata, var_names=var_names, kind="rank_bars", compact=True)
    figure = np.ravel(axes)[0].figure
    figure.tight_layout()
    return figure


def verification_forest(verification, max_parameters: int = 40):
    """Sampled (C0) and closed-form (C1) mean ± 2 sd of each parameter of a Verification; a
    parameter that failed is labelled in red."""
    import matplotlib.pyplot as plt

    table = verification.table.head(max_parameters)
    position = np.arange(len(table))[::-1]
    figure, ax = plt.subplots(figsize=(8.5, 0.22 * len(table) + 1.2))
    ax.errorbar(table["sampled_mean"], position + 0.15, xerr=2 * table["sampled_sd"], fmt="o", markersize=3, color="C0", label="NUTS mean ± 2 sd")
    ax.errorbar(table["analytic_mean"], position - 0.15, xerr=2 * table["analytic_sd"], fmt="s", markersize=3, color="C1", label="closed form mean ± 2 sd")
    ax.set_yticks(position, table["parameter"], fontsize=6)
    for label, ok in zip(ax.get_yticklabels(), table["ok"]):
        label.set_color("k" if ok else "C3")
    ax.set_title(f"max |z| = {verification.max_abs_z:.2f}: {'passed' if verification.passed else 'FAILED'}", fontsize=9)
    ax.legend(fontsize=7)
    figure.tight_layout()
    return figure


def sampler_health(idata, verification):
    """Energy plot (NUTS sample_stats), bulk ESS and R-hat per parameter with the thresholds of
    ``verification`` drawn as lines."""
    import arviz as az

    figure, axes = _figure(3, columns=3, size=3.6)
    if "sample_stats" in idata and "energy" in idata.sample_stats:
        az.plot_energy(idata, ax=axes[0], legend=True)
    else:
        axes[0].text(0.5, 0.5, "no sampler energy\n(not NUTS draws)", ha="center", va="center")
    table, thresholds = verification.table, verification.thresholds
    position = np.arange(len(table))
    for ax, column, threshold, label in ((axes[1], "ess_bulk", thresholds["ess_min"], "bulk ESS"),
                                          (axes[2], "r_hat", thresholds["rhat_max"], "R-hat")):
        ax.plot(position, table[column], "o", markersize=3)
        ax.axhline(threshold, color="C3", linestyle="--", label=f"threshold {threshold:g}")
        ax.set(xlabel="parameter", ylabel=label, title=f"{label} per parameter")
        ax.legend(fontsize=7)
    figure.tight_layout()
    return figure


def reliability_diagram(true_index, proba, n_bins: int = 10, ax=None):
    """Fraction correct against mean top-label confidence per bin, with the diagonal and the bins' sizes."""
    import matplotlib.pyplot as plt

    confidence = proba.max(axis=1)
    correct = proba.argmax(axis=1) == np.asarray(true_index)
    bins = np.minimum((confidence * n_bins).astype(int), n_bins - 1)
    used = np.unique(bins)
    figure = ax.figure if ax is not None else plt.figure(figsize=(4, 4))
    ax = ax if ax is not None else figure.add_subplot()
    ax.plot([0, 1], [0, 1], color="0.6", linestyle="--", label="perfect calibration")
    ax.plot([confidence[bins == b].mean() for b in used], [correct[bins == b].mean() for b in used], marker="o", label="model")
    ax.bar((used + 0.5) / n_bins, [np.mean(bins == b) for b in used], width=1 / n_bins, alpha=0.2, color="C0", label="share of rows")
    ax.set(xlabel="confidence", ylabel="accuracy", xlim=(0, 1), ylim=(0, 1))
    ax.legend(fontsize=7)
    return figure


def decision_boundary(models: dict, X, y, resolution: int = 200, estimate=None):
    """Predicted class over a grid around 2-D data X, one panel per fitted model, data on top."""
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
        ax.contourf(xx, yy, np.searchsorted(classes, predicted).reshape(xx.shape), alpha=0.3, levels=np.arange(len(classes) + 1) - 0.5)
        ax.scatter(X[:, 0], X[:, 1], c=np.searchsorted(classes, y), s=10, edgecolor="k", linewidth=0.3)
        ax.set_title(name)
    figure.tight_layout()
    return figure


def probability_intervals(proba_draws, classes, y_true=None, prob: float = 0.94, max_points: int = 60, ax=None):
    """Credible intervals of P(ŷ | x) per test point from draws (S, N, K) of P(y | x, θ_s).

    ŷ is the class with the highest mean probability over the draws. Points are sorted by that
    mean; with ``y_true`` a point is drawn in C0 when ŷ is right and C3 when wrong. The first
    ``max_points`` points are drawn (pass a subset to choose others)."""
    import matplotlib.pyplot as plt

    draws = np.asarray(proba_draws)[:, :max_points]
    if draws.ndim != 3 or draws.shape[2] != len(classes):
        raise ValueError(f"proba_draws must have shape (draws, points, {len(classes)} classes), got {np.shape(proba_draws)}")
    predicted = draws.mean(axis=0).argmax(axis=1)
    chosen = np.take_along_axis(draws, predicted[None, :, None], axis=2)[..., 0]  # (S, N)
    low, median, high = np.quantile(chosen, [(1 - prob) / 2, 0.5, (1 + prob) / 2], axis=0)
    order = np.argsort(chosen.mean(axis=0))
    position = np.arange(len(order))
    figure = ax.figure if ax is not None else plt.figure(figsize=(max(4.0, 0.12 * len(order) + 2), 3.5))
    ax = ax if ax is not None else figure.add_subplot()
    if y_true is None:
        colors = np.full(len(order), "C0")
    else:
        correct = np.asarray(classes)[predicted] == np.asarray(y_true)[:max_points]
        colors = np.where(correct, "C0", "C3")
    for color, label in (("C0", "ŷ correct" if y_true is not None else "P(ŷ | x)"), ("C3", "ŷ wrong")):
        shown = colors[order] == color
        if shown.any():
            ax.errorbar(position[shown], median[order][shown], yerr=[median[order][shown] - low[order][shown],
                        high[order][shown] - median[order][shown]], fmt="o", markersize=3, color=color, label=label)
    ax.set(xlabel="test point (sorted by posterior mean)", ylabel=f"P(ŷ | x): median and {prob:.0%} interval", ylim=(0, 1.02))
    ax.legend(fontsize=7)
    figure.tight_layout()
    return figure
