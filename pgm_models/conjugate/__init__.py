"""Closed-form conjugate posteriors shared by every model of the zoo."""

from pgm_models.conjugate.dirichlet import (
    ESTIMATES,
    Beta,
    Dirichlet,
    PosteriorDraw,
    block_sum,
    log_probabilities,
    log_sum_exp,
    normalize,
)

__all__ = [
    "ESTIMATES",
    "Beta",
    "Dirichlet",
    "PosteriorDraw",
    "block_sum",
    "log_probabilities",
    "log_sum_exp",
    "normalize",
]
