"""The stick-breaking frame of a Dirichlet posterior (``blocks.posterior_frame``): a PyMC transform
whose coordinates are the standardised logits of the stick-breaking fractions, the values taken in
decreasing order of the posterior concentrations. Imported when a model is built (PyMC, SciPy).
"""

from __future__ import annotations

import numpy as np
import pytensor.tensor as pt
from pymc.logprob.transforms import Transform
from scipy.special import digamma, polygamma


def frame(concentration) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(order, centre, scale) of rows of posterior concentrations a (rows, V): ``order[r]`` the
    values by decreasing a_r (ties by position), and of stick k (rows, V − 1) the exact mean and sd
    of logit β_k ~ logit Beta(a_(k), b_k), b_k = Σ_{j>k} a_(j): ψ(a_(k)) − ψ(b_k) and
    √(ψ'(a_(k)) + ψ'(b_k)).
    """
    a = np.asarray(concentration, dtype=float)
    order = np.argsort(-a, axis=-1, kind="stable")
    ordered = np.take_along_axis(a, order, axis=-1)
    rest = np.cumsum(ordered[:, ::-1], axis=-1)[:, ::-1][:, 1:]
    ordered = ordered[:, :-1]
    return order, digamma(ordered) - digamma(rest), np.sqrt(polygamma(1, ordered) + polygamma(1, rest))


def log_probabilities(value, centre, scale):
    """(log Θ in the frame's order (rows, V), log |det ∂(Θ_(1), …, Θ_(V−1))/∂value| per row) at the
    frame's coordinates ``value`` (rows, V − 1): logit β_k = centre_k + scale_k value_k,
    Θ_(k) = β_k Π_{j<k} (1 − β_j), Θ_(V) = Π_j (1 − β_j). The map value ↦ Θ_(1..V−1) is triangular,
    its Jacobian Π_k scale_k β_k (1 − β_k) Π_{j<k} (1 − β_j) = Π_k scale_k β_k (1 − β_k)^(V−k)
    (k = 1 … V − 1); on the simplex, V − 1 coordinates of Θ in any order carry the same Lebesgue
    measure (the linear map between two such charts has determinant ±1).
    """
    logits = centre + scale * value
    log_beta, log_rest = -pt.softplus(-logits), -pt.softplus(logits)  # log β, log(1 − β)
    before = pt.cumsum(log_rest, axis=-1) - log_rest  # Σ_{j<k} log(1 − β_j)
    log_theta = pt.concatenate([log_beta + before, log_rest.sum(axis=-1, keepdims=True)], axis=-1)
    powers = pt.arange(value.shape[-1], 0, -1).astype(value.dtype)  # V − k for k = 1 … V − 1
    log_jacobian = (pt.log(scale) + log_beta + powers * log_rest).sum(axis=-1)
    return log_theta, log_jacobian


class PosteriorSticks(Transform):
    """The frame of Dirichlet(a) rows (a: rows × V posterior concentrations) as a PyMC transform:
    a value of (rows, V − 1) standardised stick logits; under Dirichlet(a) its entries are
    independent, each of mean 0 and variance 1.
    """

    name = "sticks"

    def __init__(self, concentration):
        self.order, self.centre, self.scale = frame(concentration)
        self.inverse = np.argsort(self.order, axis=-1)
        self._rows = np.arange(len(self.order))[:, None]

    def backward(self, value, *inputs):
        log_theta, _ = log_probabilities(value, self.centre, self.scale)
        return pt.exp(log_theta[self._rows, self.inverse])

    def forward(self, value, *inputs):
        ordered = pt.as_tensor(value)[self._rows, self.order]
        rest = pt.cumsum(ordered[:, ::-1], axis=-1)[:, ::-1]  # Σ_{j≥k} Θ_(j)
        return (pt.log(ordered[:, :-1]) - pt.log(rest[:, 1:]) - self.centre) / self.scale

    def log_jac_det(self, value, *inputs):
        return log_probabilities(value, self.centre, self.scale)[1]
