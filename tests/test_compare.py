"""compare_estimates / compare_models and their scores, against hand computations."""

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss
from sklearn.model_selection import train_test_split

from pgm_models import AODE, CategoricalNB
from pgm_models.datasets import load_dataset
from pgm_models.model_selection.compare import (
    brier_score,
    compare_estimates,
    compare_models,
    expected_calibration_error,
    log_loss,
    score_estimates,
)

TRUE = np.array([0, 1, 1, 0])
PROBA = np.array([[0.9, 0.1], [0.4, 0.6], [0.2, 0.8], [0.3, 0.7]])


def test_scores_by_hand():
    assert log_loss(TRUE, PROBA) == pytest.approx(-np.mean(np.log([0.9, 0.6, 0.8, 0.3])))
    # Brier: Σ_k (p_k − 1{y=k})², e.g. row 0: 0.1² + 0.1²
    assert brier_score(TRUE, PROBA) == pytest.approx(np.mean([0.02, 0.32, 0.08, 0.98]))
    assert brier_score(TRUE, PROBA) == pytest.approx(2 * brier_score_loss(TRUE, PROBA[:, 1]))  # two classes
    # ECE with 10 bins: confidences 0.9 (right), 0.6 (right), 0.8 (right), 0.7 (wrong), one per bin
    assert expected_calibration_error(TRUE, PROBA) == pytest.approx(np.mean([0.1, 0.4, 0.2, 0.7]))
    assert log_loss(np.array([0]), np.array([[0.0, 1.0]])) == np.inf


def test_compare_estimates_and_models_on_vote():
    X, y = load_dataset("vote")
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    table = compare_estimates(CategoricalNB(), X_train, y_train, X_test, y_test)
    assert list(table["estimate"]) == ["mean", "map", "mle", "predictive"]
    assert (table["accuracy"] > 0.85).all()
    mean, mle = table.set_index("estimate").loc["mean"], table.set_index("estimate").loc["mle"]
    assert mean["log_loss"] < mle["log_loss"]  # zero counts hurt the MLE's log loss
    both = compare_models({"nb": CategoricalNB(), "aode": AODE()}, X_train, y_train, X_test, y_test, estimates=["mean"])
    assert list(both.columns[:2]) == ["model", "estimate"] and list(both["model"]) == ["nb", "aode"]


def test_score_estimates_scores_a_fitted_model_without_refitting():
    X, y = load_dataset("weather.nominal")
    fitted = CategoricalNB().fit(X.iloc[:10], y.iloc[:10])
    table = score_estimates(fitted, X.iloc[10:], y.iloc[10:], estimates=["map", "mean"]).set_index("estimate")
    proba = fitted.predict_proba(X.iloc[10:], estimate="mean")
    true_index = [list(fitted.classes_).index(label) for label in y.iloc[10:]]
    assert table.loc["mean", "log_loss"] == pytest.approx(-np.mean(np.log(proba[np.arange(4), true_index])))
    assert list(table.index) == ["map", "mean"]
    np.testing.assert_allclose(
        table.to_numpy(),
        compare_estimates(
            CategoricalNB(), X.iloc[:10], y.iloc[:10], X.iloc[10:], y.iloc[10:], estimates=["map", "mean"]
        )
        .set_index("estimate")
        .to_numpy(),
    )


def test_unseen_test_label_is_named():
    X, y = load_dataset("weather.nominal")
    with pytest.raises(ValueError, match=r"labels \['maybe'\]"):
        compare_estimates(CategoricalNB(), X, y, X.iloc[:1], np.array(["maybe"]))
