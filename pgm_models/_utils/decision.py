"""The Bayes decision rule, shared by every classifier of the zoo.

With posterior class probabilities P(c_j | x) and a K×K loss matrix λ, where λ[i, j] is the
loss of deciding c_i when the truth is c_j, the Bayes decision minimises the expected loss

    R(c_i | x) = Σ_j λ[i, j] P(c_j | x).

The 0-1 loss (λ = 1 − I) gives the maximum-posterior class.
"""

from __future__ import annotations

import numpy as np


def check_loss(loss, n_classes: int) -> np.ndarray:
    """Validate a loss matrix: K×K, finite, no negative entry."""
    loss = np.asarray(loss, dtype=float)
    if loss.shape != (n_classes, n_classes):
        raise ValueError(
            f"loss matrix has shape {loss.shape}; expected ({n_classes}, {n_classes}), "
            "one row per decision and one column per true class, in the order of classes_"
        )
    if not np.all(np.isfinite(loss)):
        raise ValueError("loss matrix has a NaN or infinite entry")
    if np.any(loss < 0):
        i, j = np.argwhere(loss < 0)[0]
        raise ValueError(f"loss matrix entry [{i}, {j}] = {loss[i, j]} is negative; losses must be ≥ 0")
    return loss


def expected_loss(proba: np.ndarray, loss) -> np.ndarray:
    """R(c_i | x_n) for every row n and decision i: proba (N, K) @ λᵀ."""
    proba = np.asarray(proba, dtype=float)
    return proba @ check_loss(loss, proba.shape[1]).T


def bayes_decision(proba: np.ndarray, loss=None) -> np.ndarray:
    """Index of the decision with the least expected loss for each row (0-1 loss by default)."""
    proba = np.asarray(proba, dtype=float)
    if loss is None:
        return np.argmax(proba, axis=1)
    return np.argmin(expected_loss(proba, loss), axis=1)
