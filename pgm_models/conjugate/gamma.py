"""Gamma–Poisson conjugacy: a Poisson rate λ with a Gamma(a, b) prior (shape a, rate b),
elementwise over broadcast arrays.

After n observations with total count s: λ | D ~ Gamma(a + s, b + n). Marginals: mean a/b,
sd √a/b, mode (a − 1)/b for a ≥ 1 (else 0, where the density is unbounded or flat), MLE s/n.
The posterior predictive of one count x is negative binomial,

    p(x | a, b) = Γ(x + a) / (Γ(a) x!) · (b/(b + 1))^a · (1/(b + 1))^x,

and a Poisson plug-in scores log p(x | λ) = x log λ − λ − log x!.
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from scipy.special import gammaln, xlogy

# The largest count a Poisson column takes: log x! ≈ x log x of larger counts passes 1.8e308 from
# about 1e306, and the classes' totals of counts up to 1e150 over up to 1e8 rows stay finite (the
# Gaussian columns' bound, MAX_ABS_VALUE, for the same reason)
MAX_COUNT = 1e150


class GammaPoisson:
    """Independent Gamma(a, b) posteriors of Poisson rates."""

    def __init__(self, a, b):
        self.a, self.b = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a, b)))

    def posterior(self, n, total) -> GammaPoisson:
        """The conjugate update by n observations summing to ``total``."""
        return GammaPoisson(self.a + total, self.b + n)

    def mean(self):
        """Posterior mean of every rate."""
        return self.a / self.b

    def sd(self):
        """Posterior standard deviation of every rate."""
        return np.sqrt(self.a) / self.b

    def mode(self):
        """Posterior mode of every rate."""
        return np.maximum(self.a - 1, 0.0) / self.b

    def excess_kurtosis(self):
        """Excess kurtosis of Gamma(a, b): 6/a (what check_posterior's sd test needs)."""
        return 6 / self.a

    def tail_index(self):
        """A Gamma has moments of every order: ∞ everywhere."""
        return np.full(self.a.shape, np.inf)

    def in_support(self, values, atol: float) -> np.ndarray:
        """Per draw (leading axis): every rate ≥ −atol."""
        values = np.asarray(values, dtype=float).reshape(len(values), -1)
        return (values >= -atol).all(axis=1)

    def marginal_distribution(self, index: tuple):
        """The Gamma marginal of the rate at ``index``."""
        return stats.gamma(self.a[index], scale=1 / self.b[index])

    def sample(self, size, random_state=None):
        """``size`` exact posterior draws of the rates."""
        rng = np.random.default_rng(random_state)
        return rng.gamma(self.a, 1 / self.b, size=(size,) + self.a.shape)

    def log_predictive_rows(self, X):
        """(N, K) Σ_j log NegativeBinomial(x_nj | a_kj, b_kj) of count rows X (N, F) under
        (K, F) posteriors; a NaN entry is missing and skipped.
        """
        log_success = np.log(self.b / (self.b + 1))
        log_failure = -np.log1p(self.b)
        missing = np.isnan(X)
        X = np.where(missing, 0.0, X)
        scores = np.empty((X.shape[0], self.a.shape[0]))
        for k in range(self.a.shape[0]):
            terms = (
                gammaln(X + self.a[k])
                - gammaln(self.a[k])
                - gammaln(X + 1)
                + self.a[k] * log_success[k]
                + X * log_failure[k]
            )
            terms[missing] = 0.0
            scores[:, k] = terms.sum(axis=1)
        return scores


def poisson_log_density_rows(X, rate):
    """(N, K) Σ_j log Poisson(x_nj | λ_kj) of count rows X (N, F) under (K, F) rates; a NaN
    entry is missing and skipped. A zero rate gives log p(0) = 0 and log p(x > 0) = −inf.
    """
    missing = np.isnan(X)
    X = np.where(missing, 0.0, X)
    log_factorial = gammaln(X + 1)
    scores = np.empty((X.shape[0], rate.shape[0]))
    for k in range(rate.shape[0]):
        terms = xlogy(X, rate[k]) - rate[k] - log_factorial
        terms[missing] = 0.0
        scores[:, k] = terms.sum(axis=1)
    return scores
