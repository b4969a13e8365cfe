"""Shrunk plug-in covariances of the discriminant analyses, from each class's statistics.

A class with n rows, scatter S about its mean (empirical covariance C = S/n) is shrunk towards
μI, μ = tr(C)/p, as (1 − s) C + s μ I with

- a fixed s in [0, 1];
- "oas" (Chen et al. 2010): s = min(1, (a + μ²) / ((n + 1)(a − μ²/p))), a the mean of C's squared
  entries (scikit-learn's ``OAS``), a function of (n, S) alone;
- "auto", Ledoit–Wolf on the standardised features as scikit-learn's
  ``LinearDiscriminantAnalysis(shrinkage="auto")``: with z = D^{-1/2}(x − x̄), D = diag(C),
  R = D^{-1/2} C D^{-1/2} and β₀ = Σ_i ‖z_i‖⁴/n,
  s = min(b, d)/d, b = (β₀ − ‖R‖²_F)/(p n), d = ‖R − μ_R I‖²_F / p, then rescaled by D^{1/2}.
  β₀ needs the class's fourth co-moments F_jl = Σ_i w_i d_ij² d_il² (d = x − x̄), which merge
  across batches together with the third co-moments T_jl = Σ_i w_i d_ij² d_il
  (``merge_higher_moments``).
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.weights import is_unit_weight
from pgm_models.conjugate import normal


def shrunk(cov: np.ndarray, s: float) -> np.ndarray:
    """(1 − s) C + s (tr C / p) I."""
    p = cov.shape[-1]
    return (1 - s) * cov + s * np.trace(cov) / p * np.eye(p)


def oas(cov: np.ndarray, n: float) -> np.ndarray:
    """The oracle approximating shrinkage of an empirical covariance of n rows."""
    p = cov.shape[-1]
    if p == 1:
        return cov.copy()
    mu = np.trace(cov) / p
    alpha = np.mean(cov**2)
    denominator = (n + 1) * (alpha - mu**2 / p)
    return shrunk(cov, 1.0 if denominator == 0 else min((alpha + mu**2) / denominator, 1.0))


def ledoit_wolf_standardised(scatter: np.ndarray, fourth: np.ndarray, n: float) -> np.ndarray:
    """Ledoit–Wolf on the standardised features, rescaled (module docstring)."""
    p = scatter.shape[-1]
    cov = scatter / n
    if p == 1:
        return cov.copy()
    variance = np.diagonal(cov)
    scale = np.sqrt(np.where(variance > 0, variance, 1.0))  # a constant feature keeps scale 1 (StandardScaler's rule)
    correlation = cov / np.outer(scale, scale)
    trace = np.trace(correlation)
    mu = trace / p
    beta_sum = np.sum(fourth / np.outer(scale**2, scale**2)) / n
    delta_sum = np.sum(correlation**2)
    beta = (beta_sum - delta_sum) / (p * n)
    delta = (delta_sum - 2 * mu * trace + p * mu**2) / p
    beta = min(beta, delta)
    s = 0.0 if beta == 0 else beta / delta
    return np.outer(scale, scale) * shrunk(correlation, s)


def batch_all_moments(X: np.ndarray, class_index: np.ndarray, weight: np.ndarray, n_classes: int):
    """(n, x̄, S, T, F) of one batch's classes: counts (K,), means (K, p), and the (K, p, p) scatters, third and
    fourth co-moments about the batch's class means.

    A class's rows are gathered once (its mean as ``batch_moments`` finds it), then, a chunk of
    ``normal.WORK_ROWS`` of them at a time, centred and squared side by side in one work array M = √w [d | d²]:
    Mᵀ M holds S, T and F as its blocks, one symmetric product (half the work of a general one) in
    place of a scatter, a third and a fourth product over (n_k × p) temporaries faulted in per class.
    """
    p = X.shape[1]
    n = np.bincount(class_index, weight, n_classes)
    mean = np.zeros((n_classes, p))
    scatter, third, fourth = (np.zeros((n_classes, p, p)) for _ in range(3))
    unit = is_unit_weight(weight)
    rows = max(1, min(len(X), normal.WORK_ROWS))
    work, product = np.empty((rows, 2 * p)), np.empty((2 * p, 2 * p))
    for k in np.flatnonzero(n > 0):
        own_rows = class_index == k
        own, own_weight = X[own_rows], weight[own_rows]
        mean[k] = own_weight @ own / n[k]
        moments = np.zeros((2 * p, 2 * p))
        for start in range(0, len(own), rows):
            chunk = work[: min(rows, len(own) - start)]
            centred, squares = chunk[:, :p], chunk[:, p:]
            np.subtract(own[start : start + len(chunk)], mean[k], out=centred)
            np.multiply(centred, centred, out=squares)
            if not unit:
                chunk *= np.sqrt(own_weight[start : start + len(chunk), None])
            np.matmul(chunk.T, chunk, out=product)  # Aᵀ A of one array: NumPy's symmetric product
            moments += product
        scatter[k], third[k], fourth[k] = moments[:p, :p], moments[p:, :p], moments[p:, p:]
    return n, mean, scatter, third, fourth


def shifted_higher_moments(n, scatter, third, fourth, shift):
    """The (K, p, p) third and fourth co-moments about mean + shift, from those about the mean:
    Σ (d + e)_j²(d + e)_l with Σ d = 0 gives T + s_j e_l + 2 e_j S_jl + n e_j² e_l (s = diag S),
    and likewise for the fourth.
    """
    diag = np.diagonal(scatter, axis1=1, axis2=2)  # (K, p)
    e, n = shift, n[:, None, None]
    e_j, e_l = e[:, :, None], e[:, None, :]
    s_j, s_l = diag[:, :, None], diag[:, None, :]
    new_third = third + s_j * e_l + 2 * e_j * scatter + n * e_j**2 * e_l
    new_fourth = (
        fourth
        + 2 * e_l * third
        + 2 * e_j * np.swapaxes(third, 1, 2)
        + e_l**2 * s_j
        + e_j**2 * s_l
        + 4 * e_j * e_l * scatter
        + n * e_j**2 * e_l**2
    )
    return new_third, new_fourth


def merge_higher_moments(a, b, merged_mean):
    """Third and fourth co-moments of two batches a, b — each (n, mean, scatter, third, fourth) —
    about their merged means.
    """
    third, fourth = 0.0, 0.0
    for n, mean, scatter, t, f in (a, b):
        shift = np.where(n[:, None] > 0, mean - merged_mean, 0.0)
        t, f = shifted_higher_moments(n, scatter, t, f, shift)
        third, fourth = third + t, fourth + f
    return third, fourth
