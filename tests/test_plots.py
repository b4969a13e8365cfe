"""Figures render to PNG and draw what they claim."""

import io

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from pgm_models import LDA, QDA, SPODE  # noqa: E402
from pgm_models.app.plots import (  # noqa: E402
    decision_boundary,
    diagnostics,
    posterior_vs_closed_form,
    probability_intervals,
    reliability_diagram,
    sampler_health,
    verification_forest,
)
from pgm_models.datasets import load_dataset  # noqa: E402
from pgm_models.inference.verify import Verification, check_posterior  # noqa: E402


def png_bytes(figure) -> int:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return len(buffer.getvalue())


def assert_legends_outside_the_data(figure):
    """No legend of the figure overlaps the plotting area of any of its visible axes."""
    figure.canvas.draw()
    legends = list(figure.legends) + [ax.get_legend() for ax in figure.axes if ax.get_legend() is not None]
    assert legends
    for legend in legends:
        box = legend.get_window_extent()
        for ax in figure.axes:
            if ax.get_visible():
                assert not box.overlaps(ax.get_window_extent()), (legend, ax)


def test_posterior_vs_closed_form_draws_the_beta_marginals(fitted_models):
    model = fitted_models["CategoricalNB"]
    draws = model.posterior_draws(500, random_seed=0)
    figure = posterior_vs_closed_form(model, draws, "feature_prob_outlook")
    axes = [ax for ax in figure.axes if ax.get_visible()]
    assert len(axes) == 6  # 2 classes × 3 outlook values
    assert "feature_prob_outlook[yes, sunny]" in [ax.get_title() for ax in axes]
    assert all(len(ax.lines) == 2 for ax in axes)  # the mean line and the Beta density
    beta = axes[0].lines[1].get_ydata()
    assert np.all(np.isfinite(beta)) and beta.max() > 0
    # the band is the Beta's exact central 95 % interval (inside [0, 1]), not mean ± 2 sd
    for ax, index in zip(axes, np.ndindex(2, 3)):
        (band,) = [patch for patch in ax.patches if patch.get_label() == "exact central 95 %"]
        x = band.get_patch_transform().transform(band.get_path().vertices)[:, 0]
        marginal = model._parameters()["feature_prob_outlook"][0].marginal_distribution(index)
        np.testing.assert_allclose([x.min(), x.max()], marginal.ppf([0.025, 0.975]), rtol=1e-12)
        assert 0 < x.min() and x.max() < 1
        assert ax.get_xlabel() == "feature_prob_outlook" and ax.get_ylabel() == "density"
    assert png_bytes(figure) > 10_000
    assert_legends_outside_the_data(figure)


def test_posterior_vs_closed_form_marks_gaussian_parameters(fitted_models):
    model = fitted_models["GaussianNB"]
    draws = model.posterior_draws(300, random_seed=0)
    for variable in ("feature_mean", "feature_var"):
        figure = posterior_vs_closed_form(model, draws, variable)
        axes = [ax for ax in figure.axes if ax.get_visible()]
        assert all(len(ax.lines) == 2 for ax in axes)  # the mean line and the exact marginal density
        density = axes[0].lines[1]
        peak = density.get_xdata()[np.argmax(density.get_ydata())]
        mean = float(model.analytic_posterior("mean")[variable].values[0, 0])
        sd = float(model.analytic_posterior("sd")[variable].values[0, 0])
        assert abs(peak - mean) < 0.5 * sd  # Student-t peaks at its mean; the Inverse-Gamma mode is near it
    assert png_bytes(figure) > 10_000


def test_diagnostics_and_reliability_diagram(fitted_models):
    model = fitted_models["CategoricalNB"]
    figure = diagnostics(model.posterior_draws(200, random_seed=1), var_names=["class_prob"])
    assert png_bytes(figure) > 5_000
    proba = np.array([[0.9, 0.1], [0.4, 0.6], [0.2, 0.8], [0.3, 0.7]])
    figure = reliability_diagram(np.array([0, 1, 1, 0]), proba, min_bin_rows=1)
    curve = figure.axes[0].lines[1]
    np.testing.assert_allclose(curve.get_xdata(), [0.6, 0.7, 0.8, 0.9])
    np.testing.assert_allclose(curve.get_ydata(), [1.0, 0.0, 1.0, 1.0])
    assert_legends_outside_the_data(figure)


def test_reliability_diagram_plots_only_bins_with_enough_rows():
    # 12 rows at confidence 0.95 (9 right), 3 rows at 0.65 (all wrong): only the first bin is a point
    proba = np.array([[0.95, 0.05]] * 12 + [[0.35, 0.65]] * 3)
    true_index = np.array([0] * 9 + [1] * 3 + [0] * 3)
    figure = reliability_diagram(true_index, proba)
    curve = figure.axes[0].lines[1]
    np.testing.assert_allclose(curve.get_xdata(), [0.95])
    np.testing.assert_allclose(curve.get_ydata(), [0.75])
    np.testing.assert_allclose(
        [bar.get_height() for bar in figure.axes[0].patches], [3 / 15, 12 / 15]
    )  # every bin's share


def test_decision_boundaries_of_lda_and_qda(iris_2d):
    X, y = iris_2d
    figure = decision_boundary({"LDA": LDA().fit(X, y), "QDA": QDA().fit(X, y)}, X, y, resolution=50)
    assert [ax.get_title() for ax in figure.axes] == ["LDA", "QDA"]
    names = [str(c) for c in X.columns] if hasattr(X, "columns") else ["x₁", "x₂"]
    assert all([ax.get_xlabel(), ax.get_ylabel()] == names for ax in figure.axes)
    assert png_bytes(figure) > 10_000
    with pytest.raises(ValueError, match="2-D data; X has 3 columns"):
        decision_boundary({}, np.zeros((3, 3)), [0, 1, 2])


def _forest_panels(figure):
    return [ax for ax in figure.axes if ax.get_visible() and ax.containers]


def _forest_names(panels) -> list[str]:
    """The parameter names a forest shows: each bold heading (its block) joined with the entries under it."""
    names = []
    for ax in panels:
        heading = None
        for label in ax.get_yticklabels():
            text = label.get_text().replace("\n", "")
            if label.get_fontweight() == "bold":
                heading = text.removesuffix(" (continued)")
            else:
                names.append(f"{heading}[{text}]" if text != heading else text)
    return names


def assert_labels_unclipped_and_apart(figure, panels):
    figure.canvas.draw()
    page = figure.bbox
    for ax in panels:
        boxes = sorted((label.get_window_extent() for label in ax.get_yticklabels()), key=lambda box: box.y0)
        assert all(box.x0 >= page.x0 and box.x1 <= page.x1 and box.y0 >= page.y0 and box.y1 <= page.y1 for box in boxes)
        assert all(lower.y1 <= upper.y0 + 0.5 for lower, upper in zip(boxes, boxes[1:]))


def test_verification_forest_shows_every_parameter_standardised_grouped_and_unclipped():
    X, y = load_dataset("vote")
    model = SPODE(parent="physician-fee-freeze").fit(X, y)
    verification = check_posterior(model, model.posterior_draws(500, random_seed=0))
    table = verification.table
    figure = verification_forest(verification)
    panels = _forest_panels(figure)
    assert len(panels) == 4 and len(table) == 124  # paged: 124 parameters + 17 headings = 141 lines, ≤ 45 a panel
    # every parameter, in order, named by its block's heading and its entry's label
    assert _forest_names(panels) == table["parameter"].tolist()
    sampled, closed = [ax.containers[0] for ax in panels], [ax.containers[1] for ax in panels]
    # standardised by the closed form: it is 0 ± 2, the sampled mean ± 2 sd is ((m_s − m) ± 2 s_s) / s
    x = np.concatenate([c.lines[0].get_xdata() for c in sampled])
    np.testing.assert_allclose(x, (table["sampled_mean"] - table["analytic_mean"]) / table["analytic_sd"])
    half = np.concatenate([np.diff(np.array(c.lines[2][0].get_segments())[:, :, 0], axis=1)[:, 0] / 2 for c in sampled])
    np.testing.assert_allclose(half, 2 * table["sampled_sd"] / table["analytic_sd"])
    assert all(np.all(c.lines[0].get_xdata() == 0) for c in closed)
    # nothing clipped or overlapping: every label inside the figure, labels of a panel apart
    assert_labels_unclipped_and_apart(figure, panels)
    assert "all 124 parameters" in figure.get_suptitle()
    assert (
        "passed" if verification.passed else "FAILED"
    ) in figure.get_suptitle()  # the verdict of these draws, whichever
    assert_legends_outside_the_data(figure)


def test_verification_forest_wraps_long_names_and_shows_intervals_on_any_scale():
    names = [
        "cov[a-very-long-attribute-name-from-a-csv-file, another-very-long-attribute-name-from-it]",
        "cov[x, x]",
        "class_prob[yes]",
        "intercept",
    ]
    table = pd.DataFrame(
        {
            "variable": ["cov", "cov", "class_prob", "intercept"],
            "parameter": names,
            "analytic_mean": [2e6, 5e5, 0.6, -1.0],
            "sampled_mean": [2.01e6, 5e5, 0.6, -1.0],
            "analytic_sd": [1e5, 3e4, 0.01, 2.0],
            "sampled_sd": [1e5, 3e4, 0.01, 2.0],
            "z_mean": 0.0,
            "z_sd": 0.0,
            "ok": True,
        }
    )
    figure = verification_forest(Verification(table, passed=True))
    (ax,) = _forest_panels(figure)
    assert _forest_names([ax]) == names
    assert max(label.get_text().count("\n") for label in ax.get_yticklabels()) >= 1  # the long entry is wrapped
    assert_labels_unclipped_and_apart(figure, [ax])
    # on a standardised axis every ± 2 sd bar spans 4 units, whatever the parameter's scale
    widths = np.diff(np.array(ax.containers[0].lines[2][0].get_segments())[:, :, 0], axis=1)[:, 0]
    np.testing.assert_allclose(widths, 4.0)
    np.testing.assert_allclose(ax.containers[0].lines[0].get_xdata(), [0.1, 0, 0, 0])


def test_verification_forest_marks_failures(fitted_models, training_data):
    model = fitted_models["CategoricalNB"]
    draws = model.posterior_draws(500, random_seed=0)
    wrong = type(model)(alpha=3.0).fit(*training_data["CategoricalNB"])
    verification = check_posterior(wrong, draws)
    figure = verification_forest(verification)
    (ax,) = _forest_panels(figure)
    colors = {label.get_text(): label.get_color() for label in ax.get_yticklabels() if label.get_fontweight() != "bold"}
    failed = {name.split("[")[1].rstrip("]") for name in verification.table.loc[~verification.table["ok"], "parameter"]}
    assert failed and {text for text, color in colors.items() if color == "C3"} == failed
    assert "FAILED" in figure.get_suptitle()
    assert png_bytes(figure) > 10_000


def test_sampler_health_draws_ess_and_rhat_against_the_thresholds(fitted_models, nuts_samples):
    model, idata = fitted_models["CategoricalNB"], nuts_samples["CategoricalNB"]
    verification = check_posterior(model, idata)
    figure = sampler_health(idata, verification)
    energy, ess, rhat = figure.axes[:3]
    assert len(energy.collections) + len(energy.patches) > 0  # az.plot_energy drew the energy densities
    np.testing.assert_allclose(ess.lines[0].get_ydata(), verification.table["ess_bulk"])
    assert ess.lines[1].get_ydata()[0] == 400
    np.testing.assert_allclose(
        rhat.lines[1].get_ydata(), verification.table["r_hat_max"]
    )  # calibrated: one per parameter
    assert_legends_outside_the_data(figure)
    no_energy = sampler_health(model.posterior_draws(500, random_seed=0), verification)
    assert "no sampler energy" in no_energy.axes[0].texts[0].get_text()


def test_probability_intervals_are_quantiles_of_the_top_class():
    rng = np.random.default_rng(0)
    p = rng.beta([[8, 2, 5]], [[2, 8, 5]], size=(400, 3))  # 3 points, P(class 1 | x) draws
    draws = np.stack([1 - p, p], axis=2)
    figure = probability_intervals(draws, np.array(["a", "b"]), y_true=["a", "a", "b"], prob=0.8)
    ax = figure.axes[0]
    medians = np.concatenate([container.lines[0].get_ydata() for container in ax.containers])
    top = np.where(p.mean(axis=0) > 0.5, p, 1 - p)  # the most probable class's probability
    np.testing.assert_allclose(np.sort(medians), np.sort(np.median(top, axis=0)))
    # point 0 predicts "b" (wrong), point 1 "a" (right), point 2 whichever its mean favours
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert "ŷ wrong" in labels and "ŷ correct" in labels
    assert_legends_outside_the_data(figure)
    with pytest.raises(ValueError, match="shape"):
        probability_intervals(draws[..., :1], np.array(["a", "b"]))
