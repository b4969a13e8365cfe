"""Dirichlet–categorical / Dirichlet–multinomial conjugacy, the one copy every model uses.

A :class:`Dirichlet` holds independent Dirichlet distributions laid end to end along the last
axis of its concentration array, in blocks of ``block_sizes`` (default: the whole last axis is
one block). That one layout covers every discrete parameter of the zoo:

* a class-probability vector: one block of K classes;
* categorical features with their own domains: one block of S_j values per feature;
* Beta–Bernoulli: a last axis of length 2 (absent, present) — the two-category case, not a copy;
* a multinomial vocabulary: one block of V words.

With prior concentration α and observed counts n in a block of S cells (N = Σ n, A = Σ α):

* posterior concentration  α + n
* posterior mean           (n + α) / (N + A)
* posterior mode (MAP)     (n + α − 1) / (N + A − S); cells with n + α ≤ 1 sit at 0 and the
                           others share the mass (the density is unbounded or flat there)
* MLE                      n / N
* log evidence of an ordered sequence with counts n (no multinomial coefficient)
      log Γ(A) − log Γ(A + N) + Σ_i [log Γ(α_i + n_i) − log Γ(α_i)]
  which is both the log marginal likelihood p(D) under the prior and, applied to the
  posterior, the Dirichlet–multinomial posterior predictive of a multi-count observation.

Conventions for empty blocks (all concentration zero: no prior mass and no data, possible with
α = 0): mean, mode and MLE are uniform 1/S — the limit of (n + α)/(N + Sα) as α → 0 — and the
log evidence is that same limit: log(1/S) for a sequence that repeats one category, −inf for
any other. Nothing returns NaN.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy import stats
from scipy.special import digamma, gammaln

from pgm_models._utils.validation import is_finite_nonnegative

ESTIMATES = ("mean", "map", "mle", "predictive")


class PosteriorDraw:
    """An ``estimate`` that is one random draw from the posterior rather than a summary of it.

    Pass it as ``estimate=`` to a prediction method: wherever the model reads a parameter it gets a
    fresh draw θ ~ p(θ | D) from that parameter's closed-form posterior. A model reads each
    parameter once per scoring pass and its parameters' posteriors are independent, so one call
    scores every row under one joint draw. :meth:`~pgm_models.CategoricalNB.predict_proba_draws`
    repeats it.

    Parameters
    ----------
    random_state : int or numpy Generator, default=None
        The seed of the draws.

    Attributes
    ----------
    rng : numpy.random.Generator
        The generator the draws come from.

    See Also
    --------
    pgm_models.CategoricalNB.predict_proba_draws : Many draws at once (every estimator has it).

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import CategoricalNB, PosteriorDraw
    >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 1])
    >>> model = CategoricalNB().fit(X, y)
    >>> draw = PosteriorDraw(0)
    >>> model.predict_proba(X[:2], estimate=draw).round(3)
    array([[0.314, 0.686],
           [0.665, 0.335]])
    >>> model.predict_proba(X[:2], estimate=draw).round(3)  # the next call, another draw
    array([[0.742, 0.258],
           [0.707, 0.293]])
    """

    def __init__(self, random_state=None):
        self.rng = np.random.default_rng(random_state)

    def __repr__(self) -> str:
        return "PosteriorDraw()"


def _block_starts(block_sizes: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(block_sizes)[:-1]))


def block_sum(values: np.ndarray, block_sizes: np.ndarray | None, starts: np.ndarray | None = None) -> np.ndarray:
    """Sum of each block along the last axis: shape (..., n_blocks). ``starts``: the blocks'
    first cells, if known (a Dirichlet keeps its own).
    """
    if block_sizes is None:
        return values.sum(axis=-1, keepdims=True)
    return np.add.reduceat(values, _block_starts(block_sizes) if starts is None else starts, axis=-1)


def _spread(per_block: np.ndarray, block_sizes: np.ndarray | None) -> np.ndarray:
    """Repeat a per-block value over the cells of its block (broadcastable to the cells)."""
    return per_block if block_sizes is None else np.repeat(per_block, block_sizes, axis=-1)


def normalize(
    weights: np.ndarray, block_sizes: np.ndarray | None = None, starts: np.ndarray | None = None
) -> np.ndarray:
    """Divide each block by its total; an all-zero block becomes uniform. This is the MLE n/N.
    ``starts``: as for ``block_sum``.
    """
    weights = np.asarray(weights, dtype=float)
    total = _spread(block_sum(weights, block_sizes, starts), block_sizes)
    if total.min(initial=1.0) > 0:  # no empty block (the usual case): one division, no masks
        return weights / total
    size = weights.shape[-1] if block_sizes is None else _spread(block_sizes, block_sizes)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, weights / total, 1.0 / size)


def log_probabilities(probabilities: np.ndarray) -> np.ndarray:
    """Elementwise log with log 0 = −inf and no warning. Without a zero there is no warning to
    silence: one reduction finds that, cheaper than NumPy's error-state context.
    """
    probabilities = np.asarray(probabilities)
    if probabilities.size and np.minimum.reduce(probabilities, axis=None) > 0:
        return np.log(probabilities)
    with np.errstate(divide="ignore"):
        return np.log(probabilities)


def log_sum_exp(values: np.ndarray, axis: int) -> np.ndarray:
    """Log Σ exp(values) along ``axis``; a slice that is all −inf gives −inf, not NaN.

    A short axis (the K classes of an (N, K) score) is walked slice by slice: NumPy reduces and
    broadcasts along a short last axis with a loop per row, much slower than the same
    arithmetic on whole (N,) slices. Slices that lie one after another in memory (the axis
    outermost) are reduced whole at any length: NumPy then adds them in the loop's order, with
    the same result, and a few whole-array operations cost less than a loop over the slices.
    """
    values = np.asarray(values)
    slices = (
        values if axis == 0 else np.moveaxis(values, axis, 0)
    )  # moveaxis only where needed: its fixed cost shows in a small AODE's average
    if len(slices) > 64 or slices.flags.c_contiguous:
        peak = np.max(slices, axis=0)
        peak = np.where(np.isfinite(peak), peak, 0.0)
        with np.errstate(divide="ignore"):
            return np.log(np.exp(slices - peak).sum(axis=0)) + peak
    peak = np.array(slices[0], dtype=float)
    for part in slices[1:]:
        np.maximum(peak, part, out=peak)
    peak[~np.isfinite(peak)] = 0.0
    total = np.zeros_like(peak)
    for part in slices:
        total += np.exp(part - peak)
    with np.errstate(divide="ignore"):
        return np.log(total) + peak


def _cell_log_ratio(concentration, counts):
    """Log Γ(α + n) − log Γ(α): 0 where n = 0, −inf where α = 0 < n (no mass there)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = gammaln(concentration + counts) - gammaln(concentration)
    return np.where(counts == 0, 0.0, np.where(concentration > 0, ratio, -np.inf))


def _entry_log_ratios(concentration, cells, counts):
    """(entries, K): log Γ(α_kc + n) − log Γ(α_kc) of every sparse entry (cell c, count n) under
    each row k of ``concentration`` (K, V), as ``_cell_log_ratio``. Word counts repeat, so with
    whole counts each distinct (cell, count) pair is computed once and looked up: log Γ costs
    far more than a lookup.
    """
    largest = int(counts.max(initial=0))
    n_keys = concentration.shape[1] * (largest + 1)
    whole = counts.astype(np.intp)
    if n_keys > 1 << 24 or not np.array_equal(whole, counts):
        return _cell_log_ratio(concentration[:, cells].T, counts[:, None])
    keys = cells * (largest + 1) + whole
    seen = np.zeros(n_keys, dtype=bool)
    seen[keys] = True
    distinct = np.flatnonzero(seen)
    table = _cell_log_ratio(
        concentration[:, distinct // (largest + 1)].T, (distinct % (largest + 1))[:, None].astype(float)
    )
    return table[(np.cumsum(seen) - 1)[keys]]


def _sequence_log_evidence(total_concentration, n_draws, n_distinct, block_size, cell_sum):
    """Log Γ(A) − log Γ(A + N) + Σ cells, with the empty-block limit (see module docstring).

    An empty block (A = 0) is the α → 0 limit of a symmetric prior: log(1/S) when its N > 0
    draws all fall in one category, −inf otherwise; no draws at all have probability 1.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        regular = gammaln(total_concentration) - gammaln(total_concentration + n_draws) + cell_sum
        empty = np.where(n_distinct == 1, -np.log(block_size), -np.inf)
    return np.where(n_draws == 0, 0.0, np.where(total_concentration > 0, regular, empty))


def _checked_concentration(concentration) -> np.ndarray:
    concentration = np.asarray(concentration, dtype=float)
    if not is_finite_nonnegative(concentration):
        raise ValueError("Dirichlet concentration must be finite and ≥ 0")
    return concentration


class Dirichlet:
    """Independent Dirichlet(concentration) distributions in blocks along the last axis.

    Parameters
    ----------
    concentration : array (..., T), every entry ≥ 0 and finite.
    block_sizes : sizes of consecutive blocks along the last axis (summing to T), or None for
        a single block spanning the whole axis.
    """

    def __init__(self, concentration, block_sizes=None):
        concentration = _checked_concentration(concentration)
        starts = None
        if block_sizes is not None:
            block_sizes = np.array(block_sizes, dtype=np.intp)  # its own: the block starts below are of these sizes
            if np.any(block_sizes < 1) or block_sizes.sum() != concentration.shape[-1]:
                raise ValueError(
                    f"block sizes {block_sizes.tolist()} do not tile a last axis of length {concentration.shape[-1]}"
                )
            block_sizes.flags.writeable = False
            starts = _block_starts(block_sizes)  # found once: each estimate of a small fit needs them
        self.concentration = concentration
        self.block_sizes, self._starts = block_sizes, starts

    def posterior(self, counts) -> Dirichlet:
        """The conjugate update: concentration α + n."""
        # the blocks are this prior's, already checked (a small fit builds several posteriors)
        concentration = self.concentration + np.asarray(counts, dtype=float)
        if (
            concentration.shape[-1:] != self.concentration.shape[-1:]
        ):  # counts broadcast the last axis: check the blocks again
            return Dirichlet(concentration, self.block_sizes)
        posterior = object.__new__(Dirichlet)
        posterior.concentration, posterior.block_sizes = _checked_concentration(concentration), self.block_sizes
        posterior._starts = self._starts
        return posterior

    def total(self) -> np.ndarray:
        """A = Σ α of each block, spread over the block's cells."""
        return _spread(block_sum(self.concentration, self.block_sizes, self._starts), self.block_sizes)

    def mean(self) -> np.ndarray:
        """α_i / A (with a posterior: (n + α)/(N + Σα))."""
        return normalize(self.concentration, self.block_sizes, self._starts)

    def var(self) -> np.ndarray:
        """Marginal variance m_i (1 − m_i) / (A + 1), m = mean."""
        mean = self.mean()
        return mean * (1.0 - mean) / (self.total() + 1.0)

    def marginal_distribution(self, index: tuple):
        """The exact marginal of cell ``index``: Beta(α_i, A − α_i), a frozen scipy distribution."""
        total = np.broadcast_to(self.total(), self.concentration.shape)[index]
        return stats.beta(self.concentration[index], total - self.concentration[index])

    def sd(self) -> np.ndarray:
        """Posterior standard deviation of every entry."""
        return np.sqrt(self.var())

    def excess_kurtosis(self) -> np.ndarray:
        """Excess kurtosis of each cell's Beta(a, b) marginal, a = α_i, b = A − α_i:
        6[(a − b)²(a + b + 1) − ab(a + b + 2)] / [ab(a + b + 2)(a + b + 3)]; 0 for a cell fixed
        at 0 or 1 (no spread, nothing to compare).
        """
        a = self.concentration
        b = np.broadcast_to(self.total(), a.shape) - a
        s = a + b
        with np.errstate(divide="ignore", invalid="ignore"):
            kurtosis = 6 * ((a - b) ** 2 * (s + 1) - a * b * (s + 2)) / (a * b * (s + 2) * (s + 3))
        return np.where((a > 0) & (b > 0), kurtosis, 0.0)

    def tail_index(self) -> np.ndarray:
        """Moments of every order are finite for a bounded cell: ∞ everywhere."""
        return np.full(self.concentration.shape, np.inf)

    def covariance_groups(self):
        """The cells that are jointly distributed, with their covariance: a list of
        (cells (G, S), covariance (G, S, S)), one entry per block size, where ``cells`` are flat
        indices into the C-order ravel of the concentration array and the covariance of a block
        is (diag(m) − m mᵀ)/(A + 1). Cells of different blocks are independent.
        """
        shape = self.concentration.shape
        flat = np.arange(self.concentration.size).reshape(shape)
        sizes = np.array([shape[-1]]) if self.block_sizes is None else self.block_sizes
        mean, total = self.mean(), np.broadcast_to(self.total(), shape)
        by_size = {}
        for start, size in zip(_block_starts(sizes), sizes):
            block = slice(start, start + size)
            m = mean[..., block].reshape(-1, size)
            covariance = (np.eye(size) * m[:, :, None] - m[:, :, None] * m[:, None, :]) / (
                total[..., start].reshape(-1, 1, 1) + 1
            )
            by_size.setdefault(int(size), []).append((flat[..., block].reshape(-1, size), covariance))
        return [tuple(np.concatenate(parts) for parts in zip(*groups)) for groups in by_size.values()]

    def in_support(self, values, atol: float) -> np.ndarray:
        """Per draw (leading axis of ``values``, shaped (S, ..., T)): every cell ≥ −atol and
        every block summing to 1 within atol.
        """
        values = np.asarray(values, dtype=float)
        sums = block_sum(values, self.block_sizes)
        axes = tuple(range(1, values.ndim))
        return (values >= -atol).all(axis=axes) & (np.abs(sums - 1) <= atol).all(axis=axes)

    def mode(self) -> np.ndarray:
        """(α_i − 1)/(A − S) with boundary handling.

        A cell with α_i ≤ 1 has a density that is unbounded (α_i < 1) or flat (α_i = 1) as
        θ_i → 0, so it sits at 0 and the cells with α_i > 1 share the mass in proportion to
        α_i − 1. A block with no cell above 1 has no unique mode; it returns the mean.
        """
        excess = np.maximum(self.concentration - 1.0, 0.0)
        has_mode = _spread(block_sum(excess, self.block_sizes), self.block_sizes) > 0
        return np.where(has_mode, normalize(excess, self.block_sizes), self.mean())

    def estimate(self, counts, which: str) -> np.ndarray:
        """Point estimate of the parameters after observing ``counts`` under this prior.

        ``which`` is "mean" (also "predictive": for one categorical draw the posterior predictive
        equals the posterior mean), "map" (posterior mode), "mle" (n/N, the prior ignored) or a
        :class:`PosteriorDraw` (one draw from the posterior).
        """
        if isinstance(which, PosteriorDraw):
            return self.posterior(counts).sample(1, which.rng)[0]
        if which == "mle":
            return normalize(counts, self.block_sizes)
        posterior = self.posterior(counts)
        if which == "map":
            return posterior.mode()
        if which in ("mean", "predictive"):
            return posterior.mean()
        raise ValueError(f"unknown estimate {which!r}; expected one of {ESTIMATES}")

    def sample(self, size: int, random_state=None) -> np.ndarray:
        """``size`` i.i.d. draws, shape (size, ..., T), by normalised Gamma(α_i, 1) variates."""
        rng = np.random.default_rng(random_state)
        gammas = rng.standard_gamma(self.concentration, size=(size,) + self.concentration.shape)
        return normalize(gammas, self.block_sizes)

    def log_evidence(self, counts) -> np.ndarray:
        """Log p(an ordered sequence with these counts), one value per block: (..., n_blocks).

        With the prior this is the log marginal likelihood; with a posterior it is the log
        posterior predictive (Dirichlet–multinomial) of further draws with these counts.
        """
        counts = np.broadcast_to(np.asarray(counts, dtype=float), self.concentration.shape)
        sizes = self.block_sizes
        return _sequence_log_evidence(
            block_sum(self.concentration, sizes),
            block_sum(counts, sizes),
            block_sum((counts > 0).astype(float), sizes),
            self.concentration.shape[-1] if sizes is None else sizes,
            block_sum(_cell_log_ratio(self.concentration, counts), sizes),
        )

    def log_evidence_gradient(self, counts) -> np.ndarray:
        """∂/∂α_i of Σ_blocks ``log_evidence(counts)``, one value per cell (..., T):

            ψ(α_i + n_i) − ψ(α_i) + ψ(A) − ψ(A + N)   (A, N the sums of the cell's block),

        the gradient type-II maximum likelihood climbs (every concentration > 0).
        """
        counts = np.broadcast_to(np.asarray(counts, dtype=float), self.concentration.shape)
        total = self.total()
        block_counts = _spread(block_sum(counts, self.block_sizes), self.block_sizes)
        return (
            digamma(self.concentration + counts)
            - digamma(self.concentration)
            + digamma(total)
            - digamma(total + block_counts)
        )

    def log_predictive_rows(self, X) -> np.ndarray:
        """Dirichlet–multinomial log evidence of every row of X under every Dirichlet.

        For a single-block Dirichlet with concentration (K, V) and count rows X (N, V), dense or
        scipy sparse, returns (N, K): log p(ordered sequence x_n | Dirichlet(α_k)). Only the
        nonzero counts are visited, so a sparse document–term matrix stays sparse.
        """
        if self.block_sizes is not None or self.concentration.ndim != 2:
            raise ValueError("log_predictive_rows needs a (K, V) single-block Dirichlet")
        X = sp.csr_array(X, dtype=float, copy=True)  # its own arrays: the next two rewrite them in place
        X.sum_duplicates()
        X.eliminate_zeros()
        n_rows, n_entries = X.shape[0], X.nnz
        # Σ over each row's nonzero words of log Γ(α_kv + x_nv) − log Γ(α_kv), as one sparse
        # product: (rows × entries indicator) @ (entries × classes).
        entry_terms = _entry_log_ratios(self.concentration, X.indices, X.data)
        row_of_entry = sp.csr_array((np.ones(n_entries), np.arange(n_entries), X.indptr), shape=(n_rows, n_entries))
        return _sequence_log_evidence(
            self.concentration.sum(axis=1)[None, :],
            X.sum(axis=1).reshape(-1, 1),
            np.diff(X.indptr).reshape(-1, 1),
            self.concentration.shape[1],
            row_of_entry @ entry_terms,
        )


class Beta:
    """Beta(a, b) as the two-category Dirichlet over (failure, success) — not a second copy.

    Every statistic is the Dirichlet's, read off at the success component.
    """

    def __init__(self, a, b):
        self.dirichlet = Dirichlet(np.stack(np.broadcast_arrays(b, a), axis=-1))

    def mean(self):
        """Posterior mean of every entry."""
        return self.dirichlet.mean()[..., 1]

    def sd(self):
        """Posterior standard deviation of every entry."""
        return self.dirichlet.sd()[..., 1]

    def mode(self):
        """Posterior mode of every entry."""
        return self.dirichlet.mode()[..., 1]

    def excess_kurtosis(self):
        """Excess kurtosis of every entry's Beta marginal."""
        return self.dirichlet.excess_kurtosis()[..., 1]

    def tail_index(self):
        """How many moments every entry's marginal has (all: it is bounded)."""
        return self.dirichlet.tail_index()[..., 1]

    def in_support(self, values, atol: float) -> np.ndarray:
        """Per draw (leading axis): every probability in [−atol, 1 + atol]."""
        values = np.asarray(values, dtype=float).reshape(len(values), -1)
        return ((values >= -atol) & (values <= 1 + atol)).all(axis=1)

    def sample(self, size, random_state=None):
        """``size`` exact posterior draws."""
        return self.dirichlet.sample(size, random_state)[..., 1]

    def marginal_distribution(self, index: tuple):
        """The Beta marginal of the entry at ``index``."""
        return self.dirichlet.marginal_distribution(tuple(index) + (1,))


def downdated_log_evidence(concentration, block_sizes, design, row_class) -> np.ndarray:
    """Log p(row n | Dirichlet(a_{c_n} − d_n)) for every row: leave-one-out by downdating.

    ``concentration`` (K, T) are posterior concentrations a_k that include every row's counts,
    ``design`` (N, T) holds row n's counts d_n in the same layout (scipy sparse or dense) and
    ``row_class`` (N,) the block row c_n each row was counted in. Removing row n leaves
    Dirichlet(a_{c_n} − d_n), under which the row's ordered-sequence evidence is, per block b,

        log Γ(A_b − L_b) − log Γ(A_b) + Σ_cells [log Γ(a_c) − log Γ(a_c − d_c)],   L_b = Σ_b d,

    summed over blocks (rows with one count per block: ``one_hot_log_predictive``). A row whose
    counts exceed the concentration it was supposedly counted in was not among the counted rows:
    that raises.
    """
    design = sp.csr_array(design, dtype=float)
    design.sum_duplicates()  # also sorts each row's columns, so a row's blocks are contiguous
    n_rows, n_cells = design.shape
    sizes = np.array([n_cells]) if block_sizes is None else np.asarray(block_sizes)
    total = block_sum(concentration, block_sizes)
    design.eliminate_zeros()
    rows = np.repeat(np.arange(n_rows), np.diff(design.indptr))
    if not len(rows):
        return np.zeros(n_rows)
    cells, counts = design.indices, design.data
    owner = np.asarray(row_class)[rows]
    downdated = concentration[owner, cells] - counts
    uncounted = downdated < -1e-9 * np.maximum(1.0, counts)
    downdated = np.maximum(downdated, 0.0)
    blocks = np.repeat(np.arange(len(sizes)), sizes)[cells]
    # (row, block) segments of the entry list: where the row or the block changes
    starts = np.concatenate(([0], np.flatnonzero(np.diff(rows) | np.diff(blocks)) + 1))
    block_draws = np.add.reduceat(counts, starts)
    segment = _sequence_log_evidence(
        np.maximum(total[owner[starts], blocks[starts]] - block_draws, 0.0),
        block_draws,
        np.diff(np.append(starts, len(rows))).astype(float),
        sizes[blocks[starts]],
        np.add.reduceat(_cell_log_ratio(downdated, counts), starts),
    )
    log_evidence = np.bincount(rows[starts], segment, minlength=n_rows)
    log_evidence[rows[uncounted]] = np.nan
    return _check_counted(log_evidence, row_class)


def one_hot_log_predictive(concentration, block_sizes, codes, row_class, all_classes=True):
    """Posterior predictive and leave-one-out predictive of rows with one count per block
    (categorical attributes), one vectorised pass over the rows.

    ``concentration`` (K, T) are posterior concentrations a_k that include every row's counts,
    in blocks of ``block_sizes``; ``codes`` (N, B) the position of row n's count in each block
    (−1: nothing observed in that block) and ``row_class`` (N,) the class it was counted in.
    With c the row's cell of block b and A_{k,b} the block's total,

        log p(x_n | k, D)     = Σ_b log a_{k,c} − log A_{k,b}
        log p(x_n | c_n, D₋ₙ) = Σ_b log(a_{c_n,c} − 1) − log(A_{c_n,b} − 1)

    (removing the row takes one count off its own cell and block, nothing off any other class);
    an empty block (A = 0, or A − 1 = 0 once the row is out) takes the uniform limit 1/S_b, as
    ``normalize`` does. Returns (full, left_out): ``full`` (N, K) over every class, or (N,) at
    ``row_class`` when not ``all_classes``, and ``left_out`` (N,). A row in a cell its class
    does not hold (a − 1 < 0) was not among the counted rows: that raises.
    """
    n_classes, n_cells = concentration.shape
    sizes = np.array([n_cells]) if block_sizes is None else np.asarray(block_sizes)
    total = np.repeat(block_sum(concentration, block_sizes), sizes, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        down = np.where(
            total - 1 > 0,
            np.log(np.maximum(concentration - 1, 0)) - np.log(total - 1),
            -np.log(np.repeat(sizes, sizes)),
        )
    down[concentration - 1 < -1e-9] = np.nan  # not a counted cell: caught below
    # each block gets a leading cell of log 1 = 0 where code −1 (unobserved) lands; the tables
    # are flat, (K, T + B) ravelled, so that every lookup is one ``take``
    starts = _block_starts(sizes)
    full_table = np.insert(log_probabilities(normalize(concentration, block_sizes)), starts, 0.0, axis=1).ravel()
    down_table = np.insert(down, starts, 0.0, axis=1).ravel()
    stride, shift = n_cells + len(sizes), starts + np.arange(len(sizes)) + 1
    codes, row_class = np.asarray(codes), np.asarray(row_class)
    n_rows = len(codes)
    # class-major: each class's column is contiguous for the per-class sums and normalising
    full = np.empty((n_classes, n_rows)).T if all_classes else np.empty(n_rows)
    left_out = np.empty(n_rows)
    # a block of rows at a time, blocks × rows so that the sum over blocks adds whole rows of
    # the lookups (a sum along a short last axis loops per row); the block's index arrays stay
    # in cache, where full-size ones cost more in page faults than the lookups
    step = max(1, (1 << 16) // max(1, len(sizes)))
    for start in range(0, n_rows, step):
        part = slice(start, start + step)
        cells = codes[part].T + shift[:, None]
        own = cells + row_class[part] * stride
        left_out[part] = down_table.take(own).sum(axis=0)
        if all_classes:
            for k in range(n_classes):
                full[part, k] = full_table[k * stride : (k + 1) * stride].take(cells).sum(axis=0)
        else:
            full[part] = full_table.take(own).sum(axis=0)
    return full, _check_counted(left_out, row_class)


def _check_counted(log_evidence, row_class):
    """A NaN marks a row with more counts than its class's posterior holds."""
    bad = np.isnan(log_evidence)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"row {row} (class index {np.asarray(row_class)[row]}) has counts the fitted model does not hold: "
            "leave-one-out needs the very rows the model was fitted on"
        )
    return log_evidence


def check_estimate(estimate):
    """One of ESTIMATES, or a PosteriorDraw (scoring under one posterior draw)."""
    if isinstance(estimate, PosteriorDraw):
        return estimate
    if estimate not in ESTIMATES:
        raise ValueError(f"estimate={estimate!r} is not one of {ESTIMATES}")
    return estimate
