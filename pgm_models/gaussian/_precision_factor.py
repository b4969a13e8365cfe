"""The Normal–Wishart pieces of the LDA/QDA PyMC models, written through a triangular factor of
the precision, so that NUTS's gradient holds no matrix inverse, Cholesky or determinant.

The precision Λ = Σ⁻¹ ~ Wishart(ν, Ψ⁻¹) (Σ ~ InvWishart(ν, Ψ)) is drawn by the Bartlett
decomposition Λ = F Fᵀ, F = L A lower triangular, L the Cholesky factor of Ψ⁻¹, A lower
triangular with A_ii = √c_i, c_i ~ χ²(ν − i) (i = 0..p−1), A_ij ~ N(0, 1) below the diagonal.
Every density the models need is then a sum of products with F:

    log N(x | μ, (sΛ)⁻¹)  = −(p/2) log 2π + (p/2) log s + Σ_i log F_ii − (s/2) ‖Fᵀ(x − μ)‖²
    log Wishart(S | ν, Λ⁻¹) = ((ν − p − 1)/2) log|S| − ½ tr(Fᵀ S F) + ν Σ_i log F_ii
                             − (ν p/2) log 2 − log Γ_p(ν/2)

(log|Λ| = 2 Σ_i log F_ii). As a function of Λ the scatter's term, (ν/2) log|Λ| − ½ tr(ΛS), is
the likelihood of the rows behind S whatever S is; the terms free of Λ (``wishart_data_term``)
exist only for a positive definite S and ν > p − 1. Elsewhere (a class with no more rows than
features, fewer pooled degrees of freedom than features, a feature constant within a class) S has
no Wishart density, and the model observes that likelihood kernel with those terms 0: the same
posterior, which the closed form computes from the same S. PyMC's ``MvNormal(tau=Λ)`` and ``Wishart(V=Λ⁻¹)`` instead invert
and factor Λ at every gradient, and PyTensor runs those small linear-algebra ops one Python
call at a time, which made QDA's gradient far slower than GaussianNB's.
(PyMC 5.28's ``pm.WishartBartlett`` is not used: it draws the diagonal from χ²(ν−2−i) instead
of χ²(ν−i); ``check_posterior`` rejects it.)
"""

from __future__ import annotations

import numpy as np


def bartlett_factor(name: str, nu, psi: np.ndarray):
    """(F, Σ_i log F_ii) with Λ = F Fᵀ ~ Wishart(ν, Ψ⁻¹), by the Bartlett decomposition;
    ``psi`` (…, p, p) and ``nu`` (…) give one factor per leading index, drawn as one
    ``{name}_c`` (…, p) of χ² and one ``{name}_z`` (…, p(p−1)/2) of standard normals.
    Σ_i log F_ii = Σ_i log L_ii + ½ Σ_i log c_i = ½ log|Λ|.
    """
    import pymc as pm
    import pytensor.tensor as pt

    psi = np.asarray(psi, dtype=float)
    batch, p = psi.shape[:-2], psi.shape[-1]
    lower = np.linalg.cholesky(np.linalg.inv(psi))
    c = pm.ChiSquared(f"{name}_c", nu=np.asarray(nu, dtype=float)[..., None] - np.arange(p), shape=batch + (p,))
    z = pm.Normal(f"{name}_z", 0.0, 1.0, shape=batch + (p * (p - 1) // 2,))
    # A row by row with slices: fancy-index assignment (set_subtensor at tril_indices) and a
    # product with a 0/1 placement matrix have no C code without a linked BLAS, and dominated the
    # gradient's time
    bartlett = np.eye(p) * pt.sqrt(c)[..., None, :]
    for i in range(1, p):  # z is A's strict lower triangle row by row: row i starts at i(i − 1)/2
        bartlett = pt.set_subtensor(bartlett[..., i, :i], z[..., i * (i - 1) // 2 : i * (i + 1) // 2])
    log_root_det = np.log(np.diagonal(lower, axis1=-2, axis2=-1)).sum(axis=-1) + 0.5 * pt.log(c).sum(axis=-1)
    return (lower[..., :, :, None] * bartlett[..., None, :, :]).sum(axis=-2), log_root_det  # L A, Σ_i log F_ii


def bartlett_coordinates(cov: np.ndarray, psi: np.ndarray):
    """The inverse of ``bartlett_factor``: the (c, z) (…, p) and (…, p(p−1)/2) whose factor F = L A
    has F Fᵀ = ``cov``⁻¹, for draws of ``cov`` (…, p, p) under the prior scale ``psi``: A = L⁻¹ chol(cov⁻¹),
    c its squared diagonal, z its strict lower triangle row by row.
    """
    lower = np.linalg.cholesky(np.linalg.inv(np.asarray(psi, dtype=float)))
    bartlett = np.linalg.solve(lower, np.linalg.cholesky(np.linalg.inv(cov)))
    rows, columns = np.tril_indices(cov.shape[-1], -1)  # row by row, as bartlett_factor lays z out
    return np.diagonal(bartlett, axis1=-2, axis2=-1) ** 2, bartlett[..., rows, columns]


def posterior_frame_factor(name: str, nu, psi, frame_nu, frame_psi):
    """(F, Σ_i log F_ii, log p(Λ)) for the prior Λ = F Fᵀ ~ Wishart(ν, Ψ⁻¹) of ``bartlett_factor``,
    with NUTS's free variables in the frame of the Wishart(ν', Ψ'⁻¹) of ``frame_nu``/``frame_psi``
    (the closed-form posterior): F = L' B, L' the Cholesky factor of Ψ'⁻¹, B lower triangular,
    ``{name}_log_diag`` = log B_ii − ½ log(ν' − i) and ``{name}_below`` its strict lower triangle row by row (flat
    variables; the log density is the caller's potential). The prior term is
    ``bartlett_factor``'s own density, χ²(ν − i) of c_i = A_ii² (with log c_i's Jacobian) and
    N(0, 1) of A's lower triangle, at A = L⁻¹ L' B (L of Ψ⁻¹): the map B ↦ A is linear and
    triangular, and (log B_ii, B_ij) ↦ (log c_i, A_ij) has a constant Jacobian, so the posterior is
    the same up to a constant. Where the posterior is Wishart(ν', Ψ'⁻¹), B is its Bartlett factor:
    B_ii² ~ χ²(ν' − i), B_ij ~ N(0, 1), independent, which a diagonal mass matrix fits whatever
    the data's scale and correlation (in ``bartlett_factor``'s frame the prior's, B's coordinates
    are correlated and scaled by L'⁻¹L). ``{name}_c`` and ``{name}_z`` are Deterministics, so the
    draws name ``bartlett_factor``'s variables.
    """
    import pymc as pm
    import pytensor.tensor as pt

    psi, frame_psi = np.asarray(psi, dtype=float), np.asarray(frame_psi, dtype=float)
    batch, p = frame_psi.shape[:-2], frame_psi.shape[-1]
    frame = np.linalg.cholesky(np.linalg.inv(frame_psi))
    to_prior = np.linalg.solve(np.linalg.cholesky(np.linalg.inv(psi)), frame)  # L⁻¹ L', lower triangular
    # log B_ii about ½ log E[B_ii²] = ½ log(ν' − i) (a shift: Jacobian 1), so NUTS starts at the bulk
    centre = np.broadcast_to(0.5 * np.log(np.asarray(frame_nu, dtype=float)[..., None] - np.arange(p)), batch + (p,))
    log_diag = pm.Flat(f"{name}_log_diag", shape=batch + (p,)) + centre
    below = pm.Flat(f"{name}_below", shape=batch + (p * (p - 1) // 2,))
    triangle = np.eye(p) * pt.exp(log_diag)[..., None, :]
    for i in range(1, p):  # slices, as in bartlett_factor
        triangle = pt.set_subtensor(triangle[..., i, :i], below[..., i * (i - 1) // 2 : i * (i + 1) // 2])
    bartlett = (to_prior[..., :, :, None] * triangle[..., None, :, :]).sum(axis=-2)
    log_c = 2 * (np.log(np.diagonal(to_prior, axis1=-2, axis2=-1)) + log_diag)
    z = pt.concatenate([bartlett[..., i, :i] for i in range(1, p)], axis=-1) if p > 1 else pt.zeros(batch + (0,))
    pm.Deterministic(f"{name}_c", pt.exp(log_c))
    pm.Deterministic(f"{name}_z", z)
    chi2 = pm.logp(pm.ChiSquared.dist(nu=np.asarray(nu, dtype=float)[..., None] - np.arange(p)), pt.exp(log_c))
    log_prior = (chi2 + log_c).sum() + pm.logp(pm.Normal.dist(0.0, 1.0), z).sum()
    log_root_det = np.log(np.diagonal(frame, axis1=-2, axis2=-1)).sum(axis=-1) + log_diag.sum(axis=-1)
    return (frame[..., :, :, None] * triangle[..., None, :, :]).sum(axis=-2), log_root_det, log_prior


def _transpose_times(factor, vector):
    """Fᵀ v over the leading axes, as products and a sum (no BLAS op: F is p × p, tiny)."""
    return (factor * vector[..., :, None]).sum(axis=-2)


def normal_logp(value, mu, scale, factor, log_root_det):
    """Log N(value | μ, (s F Fᵀ)⁻¹), F lower triangular with Σ_i log F_ii = ``log_root_det``."""
    return whitened_normal_logp(_transpose_times(factor, value - mu), scale, log_root_det)


def whitened_normal_logp(whitened, scale, log_root_det):
    """Log N(x | μ, (s F Fᵀ)⁻¹) of the point whose Fᵀ(x − μ) is ``whitened``."""
    import pytensor.tensor as pt

    p = whitened.shape[-1]
    return (
        -0.5 * p * np.log(2 * np.pi) + 0.5 * p * pt.log(scale) + log_root_det - 0.5 * scale * (whitened**2).sum(axis=-1)
    )


def normal_random(mu, scale, factor, log_root_det, rng=None, size=None):
    """Draws of N(μ, (s F Fᵀ)⁻¹): μ + F⁻ᵀ e / √s, e standard normal."""
    shape = (
        np.broadcast_shapes(np.shape(mu), np.shape(factor)[:-1], np.shape(scale) + (1,))
        if size is None
        else tuple(size) + np.shape(mu)[-1:]
    )
    noise = rng.standard_normal(shape)
    factor = np.broadcast_to(factor, shape[:-1] + factor.shape[-2:])
    solved = np.linalg.solve(factor.swapaxes(-1, -2), noise[..., None])[..., 0]
    return mu + solved / np.sqrt(np.asarray(scale))[..., None]


def wishart_data_term(scatter, nu) -> np.ndarray:
    """The terms of log Wishart(S | ν, Λ⁻¹) free of Λ, ((ν − p − 1)/2) log|S| − (νp/2) log 2 −
    log Γ_p(ν/2), where S (…, p, p) is positive definite and ν > p − 1; 0 elsewhere, where S has
    no Wishart density and ``wishart_logp`` is the rows' likelihood kernel in Λ. log|S| comes
    from NumPy's slogdet: PyTensor folds a constant's log-determinant as log(det(S)), whose det
    overflows at 30 features on a scale of 1e4.
    """
    from scipy.special import gammaln

    scatter, nu = np.asarray(scatter, dtype=float), np.asarray(nu, dtype=float)
    p = scatter.shape[-1]
    sign, log_det = np.linalg.slogdet(scatter)
    proper = (sign > 0) & (nu > p - 1)
    safe_nu = np.where(proper, nu, p)  # any ν > p − 1: the other entries are discarded
    multivariate_log_gamma = 0.25 * p * (p - 1) * np.log(np.pi) + gammaln(
        0.5 * (safe_nu[..., None] - np.arange(p))
    ).sum(axis=-1)
    term = (
        0.5 * (safe_nu - p - 1) * np.where(proper, log_det, 0.0)
        - 0.5 * safe_nu * p * np.log(2.0)
        - multivariate_log_gamma
    )
    return np.where(proper, term, 0.0)


def wishart_logp(value, nu, factor, log_root_det, data_term):
    """Log Wishart(value | ν, (F Fᵀ)⁻¹) of an observed scatter matrix, its terms free of the
    precision given as ``data_term`` (``wishart_data_term``): −½ tr(Fᵀ S F) + ν Σ_i log F_ii + data_term.
    """
    scatter_factor = (value[..., :, :, None] * factor[..., None, :, :]).sum(axis=-2)  # S F
    trace = (factor * scatter_factor).sum(axis=(-2, -1))  # tr(Fᵀ S F)
    return data_term - 0.5 * trace + nu * log_root_det


def wishart_random(nu, factor, log_root_det, data_term, rng=None, size=None):
    """Draws of Wishart(ν, Σ), Σ = (F Fᵀ)⁻¹ = G Gᵀ with G = F⁻ᵀ: G A Aᵀ Gᵀ, A the Bartlett factor
    of Wishart(ν, I) (A Aᵀ ~ Wishart(ν, I), and G W Gᵀ ~ Wishart(ν, G Gᵀ) for any G). A whole
    ν ≤ p − 1 (the scatter of ν + 1 rows in p > ν dimensions) draws the singular Wishart
    G Zᵀ Z Gᵀ, Z a ν × p standard normal matrix.
    """
    factor = np.asarray(factor, dtype=float)
    p = factor.shape[-1]
    shape = tuple(size) if size is not None else np.broadcast_shapes(np.shape(nu), factor.shape[:-2])
    nu, factor = np.broadcast_to(np.asarray(nu, dtype=float), shape), np.broadcast_to(factor, shape + (p, p))
    singular = nu <= p - 1
    if np.any(singular & (nu != np.round(nu))):
        raise ValueError(f"a Wishart with ν ≤ p − 1 = {p - 1} exists only for whole ν, got ν = {nu[singular].tolist()}")
    proper_nu = np.where(singular, p, nu)
    bartlett = np.zeros(shape + (p, p))
    bartlett[..., np.arange(p), np.arange(p)] = np.sqrt(rng.chisquare(proper_nu[..., None] - np.arange(p)))
    rows, columns = np.tril_indices(p, k=-1)
    bartlett[..., rows, columns] = rng.standard_normal(shape + (len(rows),))
    if singular.any():  # Aᵀ's rows: the first ν rows of a p × p standard normal Z (its other rows 0)
        normal = rng.standard_normal(shape + (p, p)) * (np.arange(p) < nu[..., None])[..., None]
        bartlett = np.where(singular[..., None, None], normal.swapaxes(-1, -2), bartlett)
    root = np.linalg.inv(factor).swapaxes(-1, -2) @ bartlett
    return root @ root.swapaxes(-1, -2)
