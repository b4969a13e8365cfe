"""Comparing point estimates and models on held-out data.

``score_estimates`` scores each estimate (mle / map / mean / predictive) of a fitted model on a
test set, ``compare_estimates`` fits one model first, ``compare_models`` does it for several. The scores:

* accuracy — of the most probable class;
* log loss — −mean log P(y_true | x); +inf when a test label got probability 0 (possible with
  the MLE, which is the point of comparing it);
* Brier score — mean over rows of Σ_k (P(k | x) − 1{y = k})²;
* expected calibration error — the top-label confidence in ``n_bins`` equal-width bins,
  Σ_b (n_b / N) |accuracy_b − confidence_b|.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import clone

from pgm_models.conjugate import ESTIMATES


def _true_index(classes, y) -> np.ndarray:
    index = pd.Index(classes).get_indexer(np.asarray(y))
    if (index < 0).any():
        raise ValueError(f"y_test has labels {sorted(set(np.asarray(y)[index < 0].tolist()))} that the model never saw")
    return index


def log_loss(true_index: np.ndarray, proba: np.ndarray) -> float:
    """Mean negative log probability of the true classes."""
    with np.errstate(divide="ignore"):
        return float(-np.mean(np.log(proba[np.arange(len(true_index)), true_index])))


def brier_score(true_index: np.ndarray, proba: np.ndarray) -> float:
    """Mean squared distance between the probabilities and the one-hot true classes."""
    onehot = np.eye(proba.shape[1])[true_index]
    return float(np.mean(((proba - onehot) ** 2).sum(axis=1)))


def expected_calibration_error(true_index: np.ndarray, proba: np.ndarray, n_bins: int = 10) -> float:
    """Expected calibration error over ``n_bins`` equal-width bins of the top probability."""
    confidence = proba.max(axis=1)
    correct = proba.argmax(axis=1) == true_index
    bins = np.minimum((confidence * n_bins).astype(int), n_bins - 1)  # confidence 1 goes to the last bin
    error = 0.0
    for b in np.unique(bins):
        members = bins == b
        error += members.mean() * abs(correct[members].mean() - confidence[members].mean())
    return float(error)


def scores(true_index, proba, n_bins: int = 10) -> dict:
    """Log loss, Brier score, expected calibration error and accuracy of ``proba`` in one dict."""
    return {
        "accuracy": float(np.mean(proba.argmax(axis=1) == true_index)),
        "log_loss": log_loss(true_index, proba),
        "brier": brier_score(true_index, proba),
        "ece": expected_calibration_error(true_index, proba, n_bins),
    }


def score_estimates(fitted, X_test, y_test, estimates=ESTIMATES, n_bins: int = 10) -> pd.DataFrame:
    """Score each estimate of a fitted model on the test set: one row per estimate."""
    true_index = _true_index(fitted.classes_, y_test)
    rows = [{"estimate": e, **scores(true_index, fitted.predict_proba(X_test, estimate=e), n_bins)} for e in estimates]
    return pd.DataFrame(rows)


def compare_estimates(model, X_train, y_train, X_test, y_test, estimates=ESTIMATES, n_bins: int = 10) -> pd.DataFrame:
    """Fit a clone of ``model`` and score each estimate on the test set: one row per estimate."""
    return score_estimates(clone(model).fit(X_train, y_train), X_test, y_test, estimates, n_bins)


def compare_models(models: dict, X_train, y_train, X_test, y_test, estimates=ESTIMATES, n_bins: int = 10) -> pd.DataFrame:
    """``compare_estimates`` for every named model: one row per (model, estimate)."""
    tables = [compare_estimates(m, X_train, y_train, X_test, y_test, estimates, n_bins).assign(model=name) for name, m in models.items()]
    table = pd.concat(tables, ignore_index=True)
    return table[["model"] + [c for c in table.columns if c != "model"]]
