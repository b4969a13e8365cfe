"""Simulation-based calibration (Talts, Betancourt, Simpson, Vehtari & Gelman 2018).

For a model with no closed form to compare against, check the *procedure* instead: draw
parameters θ̃ from the prior and data ỹ from the model given θ̃, draw L posterior draws
θ_1..θ_L given ỹ, and record the rank of θ̃ among them, r = #{l : θ_l < θ̃} ∈ {0, …, L}.
If the posterior draws come from the exact posterior of the same model that simulated the data,
each scalar parameter's rank is uniform on {0, …, L}; a wrong likelihood, a wrong prior or a
sampler that does not reach the posterior bends the histogram. Uniformity is tested per
parameter by Pearson's χ² on ``n_bins`` bins of equally many rank values, with a Bonferroni
correction over parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats


@dataclass
class SBCResult:
    """The outcome of :func:`simulation_based_calibration`: rank statistics and their uniformity tests.

    Attributes
    ----------
    ranks : ndarray of shape (n_replications, n_parameters)
        The rank of each replication's true value among its ``n_draws`` posterior draws
        (0..n_draws).
    names : list of str
        The scalar parameters' names, e.g. ``"alpha[0]"``.
    n_draws : int
        The posterior draws per replication, L.
    n_bins : int
        The histogram bins of the uniformity test.
    p_values : ndarray of shape (n_parameters,)
        Each parameter's Pearson chi-square p-value of uniform ranks.

    Methods
    -------
    passed(alpha=0.01)
        Whether no parameter rejects uniformity at family-wise level ``alpha`` (Bonferroni).
    plot(axes=None)
        One rank histogram per parameter, with the 99 % band of a uniform histogram's counts.

    See Also
    --------
    simulation_based_calibration : Makes one.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import simulation_based_calibration
    >>> def simulate(rng):  # θ ~ Beta(2, 2), 20 coin flips
    ...     theta = rng.beta(2, 2)
    ...     return theta, rng.binomial(20, theta)
    >>> def posterior(heads, n_draws, rng):  # the exact Beta posterior
    ...     return rng.beta(2 + heads, 2 + 20 - heads, n_draws)
    >>> result = simulation_based_calibration(simulate, posterior, n_replications=200, random_seed=0)
    >>> result.ranks.shape, result.names
    ((200, 1), ['theta'])
    >>> result.passed()
    True
    >>> axes = result.plot()
    """

    ranks: np.ndarray
    names: list
    n_draws: int
    n_bins: int

    @property
    def p_values(self) -> np.ndarray:
        """The chi-square p-value of each parameter's rank histogram (uniform under a correct posterior)."""
        bins = np.minimum(self.ranks * self.n_bins // (self.n_draws + 1), self.n_bins - 1)
        observed = np.stack([np.bincount(column, minlength=self.n_bins) for column in bins.T])
        return stats.chisquare(observed, axis=1).pvalue

    def passed(self, alpha: float = 0.01) -> bool:
        """No parameter's ranks reject uniformity at family-wise level ``alpha`` (Bonferroni)."""
        return bool(np.all(self.p_values > alpha / len(self.names)))

    def plot(self, axes=None):
        """One rank histogram per parameter with the 99 % band of a uniform histogram's counts."""
        import matplotlib.pyplot as plt

        if axes is None:
            _, axes = plt.subplots(1, len(self.names), figsize=(3 * len(self.names), 2.5), squeeze=False)
            axes = axes[0]
        n = len(self.ranks)
        low, high = stats.binom.ppf([0.005, 0.995], n, 1 / self.n_bins)
        for ax, name, column in zip(axes, self.names, self.ranks.T):
            ax.axhspan(low, high, color="0.85")
            ax.hist(column, bins=np.linspace(0, self.n_draws + 1, self.n_bins + 1), color="C0", edgecolor="white")
            ax.set_title(str(name), fontsize=9)
            ax.set_xlabel("rank")
        return axes


def simulation_based_calibration(
    simulate, posterior, n_replications=200, n_draws=99, n_bins=20, random_seed=None
) -> SBCResult:
    """Simulation-based calibration of a posterior sampler: the rank statistics of simulated datasets.

    For a model with no closed form to compare against, check the *procedure*: draw parameters θ̃
    from the prior and data from the model given θ̃, draw L posterior draws θ_1..θ_L given the data,
    and record the rank r = #{l : θ_l < θ̃} ∈ {0, …, L}. If the posterior draws come from the exact
    posterior of the model that simulated the data, each scalar parameter's rank is uniform on
    {0, …, L}; a wrong likelihood, a wrong prior or a sampler that does not reach the posterior
    bends the histogram.

    Parameters
    ----------
    simulate : callable
        ``simulate(rng) -> (truth, data)``: parameters drawn from the prior, as a 1-D array (or a
        scalar) or a dict of arrays (flattened into named scalars), and data drawn given them.
    posterior : callable
        ``posterior(data, n_draws, rng) -> draws``: ``n_draws`` roughly independent posterior draws
        (thin MCMC output) in the layout of ``truth`` with a leading draw axis.
    n_replications : int, default=200
        The number of simulated datasets.
    n_draws : int, default=99
        L, the posterior draws per dataset.
    n_bins : int, default=20
        The bins of the uniformity test.
    random_seed : int or numpy Generator, default=None
        The seed of the generator passed to ``simulate`` and ``posterior``.

    Returns
    -------
    SBCResult
        The ranks and each parameter's uniformity p-value.

    Raises
    ------
    ValueError
        If ``posterior`` returns another number of draws than ``n_draws``.

    See Also
    --------
    SBCResult : The result, its test and its plot.
    HierarchicalNB : ``simulate``, ``posterior_alpha`` and ``grid_posterior_alpha`` fit this function.
    check_posterior : The check of a model that has a closed form.

    Notes
    -----
    Uniformity is tested per parameter by Pearson's χ² on ``n_bins`` bins of equally many rank
    values, with a Bonferroni correction over the parameters (:meth:`SBCResult.passed`).

    References
    ----------
    .. [1] S. Talts, M. Betancourt, D. Simpson, A. Vehtari and A. Gelman, "Validating Bayesian
       inference algorithms with simulation-based calibration", arXiv:1804.06788, 2018.

    Examples
    --------
    A Beta–binomial model, whose exact posterior passes and whose too-narrow one does not:

    >>> import numpy as np
    >>> from pgm_models import simulation_based_calibration
    >>> def simulate(rng):  # θ ~ Beta(2, 2), 20 coin flips
    ...     theta = rng.beta(2, 2)
    ...     return theta, rng.binomial(20, theta)
    >>> def posterior(heads, n_draws, rng):
    ...     return rng.beta(2 + heads, 2 + 20 - heads, n_draws)
    >>> def overconfident(heads, n_draws, rng):  # as if there were 10 times the data
    ...     return rng.beta(20 + 10 * heads, 20 + 10 * (20 - heads), n_draws)
    >>> simulation_based_calibration(simulate, posterior, random_seed=0).passed()
    True
    >>> simulation_based_calibration(simulate, overconfident, random_seed=0).passed()
    False
    """
    rng = np.random.default_rng(random_seed)
    ranks, names = [], None
    for _ in range(n_replications):
        truth, data = simulate(rng)
        draws = posterior(data, n_draws, rng)
        truth_flat, names = _flatten(truth)
        draws_flat, _ = _flatten(draws, leading=1)
        if draws_flat.shape[0] != n_draws:
            raise ValueError(f"posterior returned {draws_flat.shape[0]} draws; expected n_draws={n_draws}")
        ranks.append((draws_flat < truth_flat).sum(axis=0))
    return SBCResult(np.array(ranks), names, n_draws, n_bins)


def _flatten(values, leading: int = 0):
    """A dict of arrays (or one array) as columns of scalars, with names like "alpha[2]"."""
    if not isinstance(values, dict):
        values = {"theta": values}
    columns, names = [], []
    for name, value in values.items():
        value = np.asarray(value, dtype=float)
        shape = value.shape[leading:]
        columns.append(value.reshape(value.shape[:leading] + (-1,)))
        names += [f"{name}[{','.join(map(str, index))}]" for index in np.ndindex(*shape)] if shape else [name]
    return np.concatenate(columns, axis=-1), names
