"""Whitened coordinates for a linear predictor under an independent Normal prior (Stan's "QR
reparameterisation", written with the SVD).

A Normal prior θ ~ N(0, diag(s²)) on the coefficients of the design A (logits = A θ) is the same
distribution as θ = diag(s) V z with z ~ N(0, I) for any orthogonal V (an isotropic Normal is
invariant under rotations). Taking V from the SVD A diag(s) = U S Vᵀ makes the logits
A θ = (U S) z: the coordinates of z whose singular value is 0 (one-hot blocks that sum to the
intercept column, duplicated or constant features) leave the likelihood and keep their N(0, 1)
prior exactly, and the rest are scaled by the data. The posterior of z is then close to
isotropic, where the posterior of θ has ridges only the prior holds; NUTS needs a diagonal mass
matrix and short trajectories there. The map is linear, so the log density changes by the constant
log |det diag(s) V| = Σ log s only.

Several coefficient vectors with the same isotropic prior (one per class) are rotated across the
vectors too, by an orthogonal matrix whose first column is constant (``helmert``): the vectors'
common shift, which a softmax ignores, becomes its own coordinate.
"""

from __future__ import annotations

import numpy as np

# Dense cells of the SVD, n·d of the design (distinct rows × coefficients per vector) + d² of V, up
# to which the counts form is whitened: the SVD costs n·d·min(n, d) ≤ 3·10⁹ flops and U S
# and V hold at most 16 MB; a larger (typically sparse, text) design keeps its sparse product
WHITENING_LIMIT = 2_000_000
# The whitened coordinates' dims (coefficient vector, direction), and the free variables of
# LogisticRegression's whitened counts form that are not its named coefficients (a flat
# intercept's shift b' = b + x̄ᵀw with them): no other model has variables of these names
WHITENED_DIMS = ("whitened_vector", "whitened_direction")
WHITENED_VARIABLES = ("whitened_coef", "shifted_intercept")


def without_whitened(posterior):
    """``posterior`` (an xarray Dataset) without the draws of ``WHITENED_VARIABLES`` and the coords
    of ``WHITENED_DIMS`` (the coefficients they map to stay).
    """
    whitened = [name for name in WHITENED_VARIABLES if name in posterior.data_vars]
    return posterior.drop_vars(whitened + [dim for dim in WHITENED_DIMS if whitened and dim in posterior.coords])


def whitened_design(design: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(U_r S_r, V) for design · diag(scale) = U S Vᵀ: the n × r product that maps the whitened
    coordinates with a nonzero singular value to the logits (r, the rank, by NumPy's
    ``matrix_rank`` tolerance, S₁ · max(n, d) · ε), and V (d × d, orthogonal), whose first r
    columns are those coordinates' directions. The SVD is the thin one (U is n × min(n, d), not
    n × n); with fewer rows than coefficients V is completed by an orthonormal basis of the
    rest, directions no row sees.
    """
    import scipy.linalg

    scaled = np.asarray(design, dtype=float) * scale
    left, singular, right = np.linalg.svd(scaled, full_matrices=False)
    tolerance = (singular[0] if len(singular) else 0.0) * max(scaled.shape) * np.finfo(float).eps
    rank = int(np.sum(singular > tolerance))
    rotation = right.T if len(right) == scaled.shape[1] else np.column_stack([right.T, scipy.linalg.null_space(right)])
    return left[:, :rank] * singular[:rank], rotation


def helmert(k: int) -> np.ndarray:
    """An orthogonal k × k matrix whose first column is 1/√k (the common direction) and whose
    column j ≥ 1 contrasts entry j with the mean of the entries before it (Helmert's contrasts).
    """
    basis = np.zeros((k, k))
    basis[:, 0] = 1 / np.sqrt(k)
    for j in range(1, k):
        basis[:j, j] = 1.0
        basis[j, j] = -j
        basis[:, j] /= np.sqrt(j * (j + 1))
    return basis
