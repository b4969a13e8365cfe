"""Figures render to PNG and draw what they claim."""

import io

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from pgm_models import LDA, QDA  # noqa: E402
from pgm_models.plots import (  # noqa: E402
    decision_boundary,
    diagnostics,
    posterior_vs_closed_form,
    probability_intervals,
    reliability_diagram,
    sampler_health,
    verification_forest,
)
from pgm_models.verify import check_posterior  # noqa: E402


def png_bytes(figure) -> int:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return len(buffer.getvalue())


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
    assert png_bytes(figure) > 10_000


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
    figure = reliability_diagram(np.array([0, 1, 1, 0]), proba)
    curve = figure.axes[0].lines[1]
    np.testing.assert_allclose(curve.get_xdata(), [0.6, 0.7, 0.8, 0.9])
    np.testing.assert_allclose(curve.get_ydata(), [1.0, 0.0, 1.0, 1.0])


def test_decision_boundaries_of_lda_and_qda(iris_2d):
    X, y = iris_2d
    figure = decision_boundary({"LDA": LDA().fit(X, y), "QDA": QDA().fit(X, y)}, X, y, resolution=50)
    assert [ax.get_title() for ax in figure.axes] == ["LDA", "QDA"]
    assert png_bytes(figure) > 10_000
    with pytest.raises(ValueError, match="2-D data; X has 3 columns"):
        decision_boundary({}, np.zeros((3, 3)), [0, 1, 2])


def test_verification_forest_draws_both_intervals_and_marks_failures(fitted_models, training_data):
    model = fitted_models["CategoricalNB"]
    draws = model.posterior_draws(500, random_seed=0)
    figure = verification_forest(check_posterior(model, draws))
    ax = figure.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()][0] == "class_prob[yes]"
    assert {t.get_color() for t in ax.get_yticklabels()} == {"k"}  # all passed
    assert "passed" in ax.get_title()
    wrong = type(model)(alpha=3.0).fit(*training_data["CategoricalNB"])
    failed = verification_forest(check_posterior(wrong, draws))
    assert "C3" in {t.get_color() for t in failed.axes[0].get_yticklabels()} and "FAILED" in failed.axes[0].get_title()
    assert png_bytes(figure) > 10_000


def test_sampler_health_draws_ess_and_rhat_against_the_thresholds(fitted_models, nuts_samples):
    model, idata = fitted_models["CategoricalNB"], nuts_samples["CategoricalNB"]
    verification = check_posterior(model, idata)
    figure = sampler_health(idata, verification)
    energy, ess, rhat = figure.axes[:3]
    assert len(energy.collections) + len(energy.patches) > 0  # az.plot_energy drew the energy densities
    np.testing.assert_allclose(ess.lines[0].get_ydata(), verification.table["ess_bulk"])
    assert ess.lines[1].get_ydata()[0] == 400 and rhat.lines[1].get_ydata()[0] == 1.01
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
    with pytest.raises(ValueError, match="shape"):
        probability_intervals(draws[..., :1], np.array(["a", "b"]))
