"""Figures render to PNG and draw what they claim."""

import io

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from pgm_models import LDA, QDA  # noqa: E402
from pgm_models.plots import decision_boundary, diagnostics, posterior_vs_closed_form, reliability_diagram  # noqa: E402


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
    figure = posterior_vs_closed_form(model, model.posterior_draws(300, random_seed=0), "feature_var")
    assert all(len(ax.lines) == 1 for ax in figure.axes if ax.get_visible())  # mean line; no Beta to draw
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
