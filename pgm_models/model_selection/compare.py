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
    """Log loss: the mean negative log probability of the true classes.

    −(1/N) Σ_n log P(y_n | x_n); +inf when a true class got probability 0 (possible with the
    MLE).

    Parameters
    ----------
    true_index : ndarray of shape (n_samples,)
        The position of each row's true class among the columns of ``proba`` (for a fitted model,
        among ``classes_``).
    proba : ndarray of shape (n_samples, n_classes)
        The predicted class probabilities.

    Returns
    -------
    float
        The log loss (natural logarithm).

    See Also
    --------
    brier_score, expected_calibration_error : The other scores.
    score_estimates : All scores of each estimate of a model.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import log_loss
    >>> proba = np.array([[0.8, 0.2], [0.4, 0.6]])
    >>> round(log_loss(np.array([0, 1]), proba), 4)  # −(log 0.8 + log 0.6) / 2
    0.367
    """
    with np.errstate(divide="ignore"):
        return float(-np.mean(np.log(proba[np.arange(len(true_index)), true_index])))


def brier_score(true_index: np.ndarray, proba: np.ndarray) -> float:
    """Brier score: the mean squared distance between the probabilities and the one-hot true classes.

    (1/N) Σ_n Σ_k (P(k | x_n) − 1{y_n = k})², between 0 (certain and right) and 2.

    Parameters
    ----------
    true_index : ndarray of shape (n_samples,)
        The position of each row's true class among the columns of ``proba``.
    proba : ndarray of shape (n_samples, n_classes)
        The predicted class probabilities.

    Returns
    -------
    float
        The Brier score.

    See Also
    --------
    log_loss, expected_calibration_error : The other scores.

    References
    ----------
    .. [1] G. W. Brier, "Verification of forecasts expressed in terms of probability",
       *Monthly Weather Review* 78(1), 1–3, 1950.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import brier_score
    >>> proba = np.array([[0.8, 0.2], [0.4, 0.6]])
    >>> round(brier_score(np.array([0, 1]), proba), 4)  # (0.04 + 0.04 + 0.16 + 0.16) / 2
    0.2
    """
    onehot = np.eye(proba.shape[1])[true_index]
    return float(np.mean(((proba - onehot) ** 2).sum(axis=1)))


def expected_calibration_error(true_index: np.ndarray, proba: np.ndarray, n_bins: int = 10) -> float:
    """Expected calibration error of the top-label confidence.

    The rows are put in ``n_bins`` equal-width bins of their largest probability (the confidence);
    the error is ``Σ_b (n_b / N) |accuracy_b − confidence_b|``, 0 for a calibrated classifier.

    Parameters
    ----------
    true_index : ndarray of shape (n_samples,)
        The position of each row's true class among the columns of ``proba``.
    proba : ndarray of shape (n_samples, n_classes)
        The predicted class probabilities.
    n_bins : int, default=10
        The number of bins of the confidence in [0, 1].

    Returns
    -------
    float
        The expected calibration error.

    See Also
    --------
    pgm_models.reliability_diagram : Plots the bins.

    References
    ----------
    .. [1] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of modern neural
       networks", *ICML* 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import expected_calibration_error
    >>> proba = np.array([[0.9, 0.1], [0.9, 0.1], [0.3, 0.7], [0.3, 0.7]])
    >>> true_index = np.array([0, 1, 1, 1])  # confidence 0.9, accuracy 0.5; confidence 0.7, accuracy 1
    >>> round(expected_calibration_error(true_index, proba), 4)  # (0.4 + 0.3) / 2
    0.35
    """
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
    """Score each point estimate of a fitted model on a test set.

    For each ``estimate`` ("mle", "map", "mean", "predictive") the model's test probabilities are
    scored by accuracy (of the most probable class), log loss, Brier score and expected
    calibration error.

    Parameters
    ----------
    fitted : fitted estimator
        A fitted model of the zoo.
    X_test : array-like of shape (n_samples, n_features)
        The test rows.
    y_test : array-like of shape (n_samples,)
        Their labels, all among the model's ``classes_``.
    estimates : sequence of str, default=("mle", "map", "mean", "predictive")
        The estimates to score.
    n_bins : int, default=10
        The bins of the expected calibration error.

    Returns
    -------
    pandas.DataFrame
        One row per estimate: ``estimate``, ``accuracy``, ``log_loss``, ``brier``, ``ece``; NaN for an
        estimate the model does not define (its ``_estimates``: BMATAN has no "map", and a
        LogisticRegression has "mean" and "predictive" only once ``sample_posterior`` has drawn).

    Raises
    ------
    ValueError
        If ``y_test`` has a label the model never saw, or a defined estimate cannot be computed on
        this fit (QDA's "mle" where a class's training rows leave its covariance singular).

    See Also
    --------
    compare_estimates : Fits the model first.
    compare_models : Several models.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import CategoricalNB, score_estimates
    >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 1])
    >>> model = CategoricalNB().fit(X, y)
    >>> X_test, y_test = np.array([[0, 0], [2, 0], [1, 1]]), np.array([1, 0, 1])
    >>> score_estimates(model, X_test, y_test, estimates=("mean", "map")).round(3)
      estimate  accuracy  log_loss  brier    ece
    0     mean     0.333     0.991  0.768  0.556
    1      map     0.333       inf  1.333  0.667
    """
    true_index = _true_index(fitted.classes_, y_test)
    available = getattr(fitted, "_estimates", ESTIMATES)
    unscored = dict.fromkeys(("accuracy", "log_loss", "brier", "ece"), float("nan"))
    rows = [
        {
            "estimate": e,
            **(scores(true_index, fitted.predict_proba(X_test, estimate=e), n_bins) if e in available else unscored),
        }
        for e in estimates
    ]
    return pd.DataFrame(rows)


def compare_estimates(model, X_train, y_train, X_test, y_test, estimates=ESTIMATES, n_bins: int = 10) -> pd.DataFrame:
    """Fit a model and score each of its point estimates on a test set.

    A clone of ``model`` is fitted on the training rows (the model itself is left unfitted), then
    scored as by :func:`score_estimates`.

    Parameters
    ----------
    model : estimator
        A model of the zoo (its parameters are kept, its fit is not).
    X_train : array-like of shape (n_train, n_features)
        The training rows.
    y_train : array-like of shape (n_train,)
        Their labels.
    X_test : array-like of shape (n_test, n_features)
        The test rows.
    y_test : array-like of shape (n_test,)
        Their labels.
    estimates : sequence of str, default=("mle", "map", "mean", "predictive")
        The estimates to score.
    n_bins : int, default=10
        The bins of the expected calibration error.

    Returns
    -------
    pandas.DataFrame
        One row per estimate: ``estimate``, ``accuracy``, ``log_loss``, ``brier``, ``ece``; NaN for an
        estimate the fitted clone does not define, as in :func:`score_estimates` (a LogisticRegression's
        "mean" and "predictive": the clone is fitted, not sampled).

    See Also
    --------
    score_estimates : Scores a fitted model.
    compare_models : Several models.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import CategoricalNB, compare_estimates
    >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 1])
    >>> table = compare_estimates(CategoricalNB(), X[::2], y[::2], X, y, estimates=("mean", "mle"))
    >>> table[["estimate", "accuracy"]]
      estimate  accuracy
    0     mean       1.0
    1      mle       1.0
    """
    return score_estimates(clone(model).fit(X_train, y_train), X_test, y_test, estimates, n_bins)


def compare_models(
    models: dict, X_train, y_train, X_test, y_test, estimates=ESTIMATES, n_bins: int = 10
) -> pd.DataFrame:
    """Fit several models and score each of their point estimates on a test set.

    :func:`compare_estimates` for every named model, in one table.

    Parameters
    ----------
    models : dict
        {name: estimator} of the models to compare.
    X_train : array-like of shape (n_train, n_features)
        The training rows.
    y_train : array-like of shape (n_train,)
        Their labels.
    X_test : array-like of shape (n_test, n_features)
        The test rows.
    y_test : array-like of shape (n_test,)
        Their labels.
    estimates : sequence of str, default=("mle", "map", "mean", "predictive")
        The estimates to score.
    n_bins : int, default=10
        The bins of the expected calibration error.

    Returns
    -------
    pandas.DataFrame
        One row per (model, estimate): ``model``, ``estimate``, ``accuracy``, ``log_loss``,
        ``brier``, ``ece``.

    See Also
    --------
    compare_loo : Compares models by exact leave-one-out on the training rows instead.

    Examples
    --------
    >>> from pgm_models import AODE, CategoricalNB, compare_models, load_dataset
    >>> X, y = load_dataset("weather.nominal")
    >>> table = compare_models({"nb": CategoricalNB(), "aode": AODE()}, X, y, X, y, estimates=("mean",))
    >>> table[["model", "estimate", "accuracy"]].round(3)
      model estimate  accuracy
    0    nb     mean     0.929
    1  aode     mean     1.000
    """
    tables = [
        compare_estimates(m, X_train, y_train, X_test, y_test, estimates, n_bins).assign(model=name)
        for name, m in models.items()
    ]
    table = pd.concat(tables, ignore_index=True)
    return table[["model"] + [c for c in table.columns if c != "model"]]
