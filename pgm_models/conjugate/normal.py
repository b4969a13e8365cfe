"""Normal–Inverse-Gamma and Normal–Inverse-Wishart conjugacy, the one copy the Gaussian models use.

Sufficient statistics of weighted rows are (n, x̄, S): total weight, mean and centered scatter
S = Σ w (x − x̄)² (or the matrix Σ w (x − x̄)(x − x̄)ᵀ). They merge exactly across batches:

    n = n_a + n_b,  x̄ = (n_a x̄_a + n_b x̄_b)/n,  S = S_a + S_b + (n_a n_b / n)(x̄_b − x̄_a)(x̄_b − x̄_a)ᵀ.

Normal–Inverse-Gamma (univariate, elementwise over arrays): σ² ~ InvGamma(a, b), μ | σ² ~ N(m, σ²/κ).
Posterior after (n, x̄, S):

    κ' = κ + n,  m' = (κ m + n x̄)/κ',  a' = a + n/2,  b' = b + S/2 + κ n (x̄ − m)² / (2κ').

Marginals: σ² has mean b/(a−1), sd b/((a−1)√(a−2)); μ is Student-t(2a, m, b/(aκ)) with sd
√(b/(κ(a−1))). Joint mode of (μ, σ²): (m, b/(a + 3/2)). Predictive: Student-t(2a, m, b(κ+1)/(aκ)).

Normal–Inverse-Wishart with K means: Σ ~ IW(ν, Ψ), μ_k | Σ ~ N(m_k, Σ/κ_k). ``shared`` (LDA):
one Σ for every class, updated with the pooled scatter, ν' = ν + Σ_k n_k,
Ψ' = Ψ + Σ_k [S_k + κ_k n_k/(κ_k + n_k) (x̄_k − m_k)(x̄_k − m_k)ᵀ]; otherwise (QDA) one Σ_k per
class with ν'_k = ν_k + n_k and its own Ψ'_k. Marginals: E[Σ] = Ψ/(ν − p − 1), Var(Σ_ij) =
[(ν−p+1)ψ_ij² + (ν−p−1)ψ_ii ψ_jj] / [(ν−p)(ν−p−1)²(ν−p−3)]; μ_k is multivariate t(ν−p+1, m_k,
Ψ/(κ_k(ν−p+1))) with covariance Ψ/(κ_k(ν−p−1)). Joint mode: μ_k = m_k and
Σ = Ψ/(ν + p + 1 + J), J the number of means sharing Σ. Predictive of a new x in class k:
multivariate t(ν−p+1, m_k, Ψ(κ_k + 1)/(κ_k(ν−p+1))).
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from scipy.special import digamma, gammaln

from pgm_models._utils import jit
from pgm_models._utils.weights import is_unit_weight
from pgm_models.conjugate.dirichlet import PosteriorDraw


def merge_moments(n_a, mean_a, scatter_a, n_b, mean_b, scatter_b, full: bool):
    """Combine two sets of (n, mean, scatter) along the leading (class) axis; ``full`` scatter
    matrices (…, p, p) or per-feature scatters (…, p). n is (K,), or (K, p) per-feature counts
    (features with missing values) for per-feature scatters.
    """
    n = n_a + n_b
    with np.errstate(invalid="ignore", divide="ignore"):
        share_b = np.where(n > 0, n_b / n, 0.0)
    per_feature = (lambda v: v) if np.ndim(n) == np.ndim(mean_a) else (lambda v: v[:, None])
    delta = mean_b - mean_a
    mean = mean_a + per_feature(share_b) * delta
    weight = per_feature(n_a * share_b)
    if full:
        scatter = scatter_a + scatter_b + weight[:, :, None] * delta[:, :, None] * delta[:, None, :]
    else:
        scatter = scatter_a + scatter_b + weight * delta**2
    return n, mean, scatter


def batch_moments(
    X: np.ndarray, class_index: np.ndarray, weight: np.ndarray, n_classes: int, full: bool, may_miss: bool = True
):
    """(n_k, x̄_k, S_k) of one batch. With per-feature scatters (``_diagonal_moments``) a NaN entry is
    a missing value: n is then (K, p), each feature's own count (``may_miss=False``: X is known to have
    none, and is not searched for them). A full scatter gathers each class's
    rows once and centres them on their mean, so it costs one n_k × p product per class (a product
    over all rows with the other classes' weights 0 costs K times as much).
    """
    if not full:
        # a NaN makes the sum NaN, and a sum needs no (N × p) mask; a NaN sum without one (inf − inf
        # of huge values) only takes the missing values' path, exact for any rows
        if may_miss and np.isnan(np.add.reduce(X, axis=None)):
            return _batch_moments_with_missing(X, class_index, weight, n_classes)
        return _diagonal_moments(X, class_index, weight, n_classes)
    if _compiled(X):  # one pass for the sums, one for the scatters' lower triangles: no gathered or centred copy
        kernels = jit.kernels("pgm_models.conjugate._normal_kernels")
        return kernels.full_moments(np.asarray(X, dtype=float), class_index, np.asarray(weight, dtype=float), n_classes)
    p = X.shape[1]
    n = np.bincount(class_index, weight, n_classes)
    mean = np.zeros((n_classes, p))
    scatter = np.zeros((n_classes, p, p))
    unit = is_unit_weight(weight)
    for k in np.flatnonzero(n > 0):
        rows = class_index == k
        own, own_weight = X[rows], weight[rows]
        mean[k] = own_weight @ own / n[k]
        centered = own - mean[k]
        scatter[k] = (centered if unit else centered * own_weight[:, None]).T @ centered
    return n, mean, scatter


# From this many values on, the compiled moments and scores (``_normal_kernels``: one pass, no
# temporaries) save more than loading numba costs a process; below it they run once numba is loaded.
COMPILED_MIN_VALUES = 1 << 24


def _compiled(X) -> bool:
    """Whether X's diagonal moments and scores take the compiled loops: numba loaded, or a large X."""
    return isinstance(X, np.ndarray) and X.ndim == 2 and (jit.loaded() or X.size >= COMPILED_MIN_VALUES)


# Rows per chunk of the Gaussian models' work arrays (the per-feature moments, the scores of
# ``_rows_by_class``, QDA's whitening): arrays reused by every chunk and class stay in cache, where a
# fresh (N × p) temporary per class was faulted in page by page
WORK_ROWS = 2048


def _diagonal_moments(X: np.ndarray, class_index: np.ndarray, weight: np.ndarray, n_classes: int):
    """(n_k, x̄_k, per-feature S_k) of a batch with no missing value, in two passes over chunks of
    ``WORK_ROWS`` rows: the classes' weighted sums Wᵀ X, then their scatter Wᵀ (X − x̄_y)², W the
    chunk's rows' weights in their classes' columns (one product each for all classes). Gathering each
    class's rows and centring and squaring them made three (n_k × p) temporaries per class, each
    faulted in page by page: GaussianNB's fit at 10⁵ × 20 was 0.9 of scikit-learn's.
    """
    if _compiled(X):
        kernels = jit.kernels("pgm_models.conjugate._normal_kernels")
        return kernels.diagonal_moments(
            np.asarray(X, dtype=float), class_index, np.asarray(weight, dtype=float), n_classes
        )
    p, n_rows = X.shape[1], X.shape[0]
    n = np.bincount(class_index, weight, n_classes)
    sums, scatter = np.zeros((n_classes, p)), np.zeros((n_classes, p))
    rows = max(1, min(n_rows, WORK_ROWS))
    by_class, work = np.zeros((rows, n_classes)), np.empty((rows, p))
    chunks = [(start, min(start + rows, n_rows)) for start in range(0, n_rows, rows)]

    def class_weights(start, end):
        """The chunk's W, written into ``by_class`` (its last chunk's rows zeroed first)."""
        own = by_class[: end - start]
        own.fill(0.0)
        own[np.arange(end - start), class_index[start:end]] = weight[start:end]
        return own

    for start, end in chunks:
        sums += class_weights(start, end).T @ X[start:end]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n[:, None] > 0, sums / n[:, None], 0.0)
    for start, end in chunks:
        centred = np.take(mean, class_index[start:end], axis=0, out=work[: end - start])
        np.subtract(X[start:end], centred, out=centred)
        centred *= centred
        scatter += class_weights(start, end).T @ centred
    return n, mean, scatter


def _batch_moments_with_missing(X: np.ndarray, class_index: np.ndarray, weight: np.ndarray, n_classes: int):
    """Per-feature (n_kj, x̄_kj, S_kj) of a batch whose NaN entries are missing values."""
    weights = np.zeros((len(class_index), n_classes))
    weights[np.arange(len(class_index)), class_index] = weight
    present = (~np.isnan(X)).astype(float)
    X, n = np.where(present > 0, X, 0.0), weights.T @ present
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, (weights.T @ X) / n, 0.0)
    centered = (X - mean[class_index]) * present
    scatter = weights.T @ (centered**2)
    return n, mean, scatter


def _t_excess_kurtosis(df):
    """6/(ν − 4) of a Student-t with ν degrees of freedom; infinite for ν ≤ 4."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(df > 4, 6 / (df - 4), np.inf)


def _inverse_gamma_excess_kurtosis(a):
    """(30a − 66)/((a − 3)(a − 4)) of InvGamma(a, b); infinite for a ≤ 4."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(a > 4, (30 * a - 66) / ((a - 3) * (a - 4)), np.inf)


# From here log Γ and ψ differences take Stirling's series: two log Γ(a) cancel to ε·a·log a,
# which a strength near its 1e6 bound turns into noise that stalls the evidence search.
_STIRLING_FROM = 20.0


def _log_gamma_tail(x):
    """Stirling's series of log Γ(x) − [(x − ½) log x − x + ½ log 2π] to x⁻⁹ (error below 0.002 x⁻¹¹)."""
    inverse = 1 / x
    square = inverse * inverse
    return inverse * (1 / 12 - square * (1 / 360 - square * (1 / 1260 - square * (1 / 1680 - square / 1188))))


def _digamma_tail(x):
    """Asymptotic series of ψ(x) − log x to x⁻¹⁰ (error below 0.022 x⁻¹²)."""
    inverse = 1 / x
    square = inverse * inverse
    return -inverse / 2 - square * (
        1 / 12 - square * (1 / 120 - square * (1 / 252 - square * (1 / 240 - square / 132)))
    )


def log_gamma_ratio(a, h):
    """Return log Γ(a + h) − log Γ(a), elementwise, accurate to rounding of the result where a is large."""
    a, h = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(h, dtype=float))
    out = np.asarray(gammaln(a + h) - gammaln(a), dtype=float)
    big = a >= _STIRLING_FROM
    if np.any(big):
        x, d = a[big], h[big]
        out[big] = (x - 0.5) * np.log1p(d / x) + d * np.log(x + d) - d + (_log_gamma_tail(x + d) - _log_gamma_tail(x))
    return out


def digamma_difference(a, h):
    """ψ(a + h) − ψ(a), elementwise, accurate to rounding of the result where a is large."""
    a, h = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(h, dtype=float))
    out = np.asarray(digamma(a + h) - digamma(a), dtype=float)
    big = a >= _STIRLING_FROM
    if np.any(big):
        x, d = a[big], h[big]
        out[big] = np.log1p(d / x) + (_digamma_tail(x + d) - _digamma_tail(x))
    return out


class NormalInverseGamma:
    """Independent NIG(m, κ, a, b) distributions, elementwise over broadcast arrays."""

    def __init__(self, m, kappa, a, b):
        self.m, self.kappa, self.a, self.b = np.broadcast_arrays(
            *(np.asarray(v, dtype=float) for v in (m, kappa, a, b))
        )

    def posterior(self, n, mean, scatter) -> NormalInverseGamma:
        """The posterior after observing per-class counts ``n``, means and scatters."""
        kappa = self.kappa + n
        return NormalInverseGamma(
            (self.kappa * self.m + n * mean) / kappa, kappa, self.a + n / 2, self.b + self._b_growth(n, mean, scatter)
        )

    def _b_growth(self, n, mean, scatter):
        """The growth b' − b = S/2 + κ n (x̄ − m)²/(2κ'), computed as such (not as b' minus b)."""
        return scatter / 2 + self.kappa * n * (mean - self.m) ** 2 / (2 * (self.kappa + n))

    def mean(self):
        """Posterior means of every parameter, by name."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return {"mu": self.m, "var": np.where(self.a > 1, self.b / (self.a - 1), np.inf)}

    def sd(self):
        """Posterior standard deviations of every parameter, by name (NaN where undefined)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return {
                "mu": np.where(self.a > 1, np.sqrt(self.b / (self.kappa * (self.a - 1))), np.inf),
                "var": np.where(self.a > 2, self.b / ((self.a - 1) * np.sqrt(self.a - 2)), np.inf),
            }

    def mode(self):
        """Posterior modes of every parameter, by name."""
        return {"mu": self.m, "var": self.b / (self.a + 1.5)}

    def excess_kurtosis(self):
        """Of the marginals: Student-t(2a) for μ, InvGamma(a) for σ² (infinite where the fourth
        moment is).
        """
        return {"mu": _t_excess_kurtosis(2 * self.a), "var": _inverse_gamma_excess_kurtosis(self.a)}

    def tail_index(self):
        """Moments of order below it are finite: 2a for μ's Student-t(2a), a for σ² ~ InvGamma(a)."""
        return {"mu": 2 * self.a, "var": self.a}

    def in_support(self, values, name: str, atol: float) -> np.ndarray:
        """Per draw (leading axis): μ finite, σ² > 0."""
        values = np.asarray(values, dtype=float).reshape(len(values), -1)
        return np.isfinite(values).all(axis=1) & ((values > 0).all(axis=1) if name == "var" else True)

    def marginal_distribution(self, index: tuple, name: str):
        """Exact marginal of one element: μ ~ Student-t(2a, m, √(b/(aκ))), σ² ~ InvGamma(a, b)."""
        a, b, m, kappa = (v[index] for v in (self.a, self.b, self.m, self.kappa))
        return stats.t(df=2 * a, loc=m, scale=np.sqrt(b / (a * kappa))) if name == "mu" else stats.invgamma(a, scale=b)

    def sample(self, size, random_state=None):
        """``size`` exact posterior draws of every parameter, by name."""
        rng = np.random.default_rng(random_state)
        var = self.b / rng.gamma(self.a, size=(size,) + self.a.shape)
        return {"mu": self.m + np.sqrt(var / self.kappa) * rng.standard_normal(var.shape), "var": var}

    def log_predictive_rows(self, X):
        """(N, K) Σ_j log Student-t(2a, m, b(κ+1)/(aκ)) of the rows of X (N, F) under the
        (K, F) posteriors of K classes; a NaN entry is a missing value and is skipped.
        """
        df = 2 * self.a
        scale = np.sqrt(self.b * (self.kappa + 1) / (self.a * self.kappa))
        log_constant = gammaln((df + 1) / 2) - gammaln(df / 2) - 0.5 * np.log(df * np.pi) - np.log(scale)
        return _rows_by_class(
            X, self.m, scale, log_constant, (df + 1) / 2, lambda z, k: np.log1p(np.divide(z, df[k], out=z), out=z)
        )

    def log_predictive(self, x):
        """Log Student-t(2a, m, b(κ+1)/(aκ)) density of x, broadcast against the parameters."""
        scale = np.sqrt(self.b * (self.kappa + 1) / (self.a * self.kappa))
        return stats.t.logpdf(x, df=2 * self.a, loc=self.m, scale=scale)

    def log_evidence(self, n, mean, scatter):
        """Log p(x_1..x_n | m, κ, a, b) of ordered rows with moments (n, x̄, S), elementwise:
        −(n/2) log 2π + ½ log(κ/κ') + a log b − a' log b' + log Γ(a') − log Γ(a), the primes the
        posterior's (μ and σ² integrated out). 0 where n = 0. Evaluated as
        −(n/2) log 2π − ½ log1p(n/κ) − a log1p(Δ/b) − (n/2) log b' + [log Γ(a + n/2) − log Γ(a)]
        with Δ = b' − b, which keeps its accuracy for a and b far above n.
        """
        growth = self._b_growth(n, mean, scatter)
        half = np.asarray(n, dtype=float) / 2
        return (
            -half * np.log(2 * np.pi)
            - 0.5 * np.log1p(n / self.kappa)
            - self.a * np.log1p(growth / self.b)
            - half * np.log(self.b + growth)
            + log_gamma_ratio(self.a, half)
        )

    def log_evidence_gradient(self, n, mean, scatter) -> dict:
        """Elementwise ∂/∂κ, ∂/∂a, ∂/∂b of ``log_evidence``: ½(1/κ − 1/κ') − (a'/b') n²(x̄ − m)²/(2κ'²),
        log b − log b' + ψ(a') − ψ(a), and a/b − a'/b' (b' grows with κ by n²(x̄ − m)²/(2κ'²)),
        each in a form without cancellation (n/(2κκ'), −log1p(Δ/b) + ψ-difference, (aΔ − b n/2)/(b b')).
        """
        growth = self._b_growth(n, mean, scatter)
        kappa_post, a_post, b_post = self.kappa + n, self.a + n / 2, self.b + growth
        mean_growth = (n / kappa_post) ** 2 * (mean - self.m) ** 2 / 2
        return {
            "kappa": 0.5 * n / (self.kappa * kappa_post) - a_post / b_post * mean_growth,
            "a": -np.log1p(growth / self.b) + digamma_difference(self.a, n / 2),
            "b": (self.a * growth - self.b * n / 2) / (self.b * b_post),
        }

    def downdate(self, x) -> NormalInverseGamma:
        """The posterior without one observation x it includes (the inverse of a one-row update):
        κ⁻ = κ − 1, m⁻ = (κ m − x)/κ⁻, a⁻ = a − 1/2, b⁻ = b − κ (x − m)² / (2κ⁻). Broadcasts, so
        per-row arrays give every row's leave-one-out posterior at once.
        """
        kappa = self.kappa - 1
        return NormalInverseGamma(
            (self.kappa * self.m - x) / kappa,
            kappa,
            self.a - 0.5,
            self.b - self.kappa * (x - self.m) ** 2 / (2 * kappa),
        )


def normal_log_density_rows(X, mu, var):
    """(N, K) Σ_j log N(x_nj | μ_kj, σ²_kj) of the rows of X (N, F) under K classes' (K, F)
    parameters; a NaN entry is a missing value and is skipped.
    """
    log_constant = -0.5 * np.log(2 * np.pi * var)
    if _compiled(X) and np.ndim(var) == 2:
        # ½(x − μ)²/σ² as (x − μ)² · (½/σ²): a product per entry, no division (the NumPy path's form
        # differs from it by rounding, a few ulps of each score)
        kernels = jit.kernels("pgm_models.conjugate._normal_kernels")
        coef, loc = np.ascontiguousarray(0.5 / np.asarray(var, dtype=float)), np.asarray(mu, dtype=float)
        return kernels.normal_rows(np.asarray(X, dtype=float), np.ascontiguousarray(loc), coef, log_constant)
    scale, weight = np.sqrt(var), np.full(np.shape(var), 0.5)
    return _rows_by_class(X, mu, scale, log_constant, weight, lambda z, k: z)


def _rows_by_class(X, loc, scale, log_constant, weight, transform):
    """(N, K) Σ_j [log_constant_kj − weight_kj · transform(((x_nj − loc_kj)/scale_kj)²)] over the
    present entries, a chunk of ``WORK_ROWS`` rows and one class at a time into one work array,
    never (N, K, F); ``transform(z, k)`` may work in place.
    """
    scores = np.empty((X.shape[0], loc.shape[0]))
    rows = max(1, min(X.shape[0], WORK_ROWS))
    work = np.empty((rows, X.shape[1]))
    for start in range(0, X.shape[0], rows):
        chunk, out = X[start : start + rows], scores[start : start + rows]
        missing = np.isnan(chunk)
        present = None
        if missing.any():
            chunk, present = np.where(missing, 0.0, chunk), (~missing).astype(float)
        for k in range(loc.shape[0]):
            z = np.subtract(chunk, loc[k], out=work[: len(chunk)])
            z /= scale[k]
            z *= z
            z = transform(z, k)
            if present is None:
                out[:, k] = log_constant[k].sum() - z @ weight[k]
            else:
                z *= present
                out[:, k] = present @ log_constant[k] - z @ weight[k]
    return scores


def _t_log_density(X, df, loc, shape_matrix):
    """Log multivariate-t density of rows X (N, p) with one (df, loc (p,), shape (p, p))."""
    chol = np.linalg.cholesky(shape_matrix)
    solved = np.linalg.solve(chol, (X - loc).T)
    return _t_log_kernel((solved**2).sum(axis=0), 2 * np.log(np.diag(chol)).sum(), df, loc.shape[-1])


def _t_log_density_each(X, df, loc, shape_matrix):
    """Log multivariate-t density of each row X[n] (N, p) under its own (df (N,), loc (N, p),
    shape (N, p, p)): batched Cholesky factors and triangular solves.
    """
    chol = np.linalg.cholesky(shape_matrix)
    solved = np.linalg.solve(chol, (X - loc)[..., None])[..., 0]
    log_det = 2 * np.log(np.diagonal(chol, axis1=-2, axis2=-1)).sum(axis=-1)
    return _t_log_kernel((solved**2).sum(axis=-1), log_det, df, X.shape[-1])


def _multivariate_digamma(x, p: int):
    """ψ_p(x) = Σ_{i<p} ψ(x − i/2), the derivative of log Γ_p(x)."""
    return digamma(np.asarray(x)[..., None] - np.arange(p) / 2).sum(axis=-1)


def _t_log_kernel(mahalanobis, log_det, df, p):
    return (
        gammaln((df + p) / 2)
        - gammaln(df / 2)
        - p / 2 * np.log(df * np.pi)
        - log_det / 2
        - (df + p) / 2 * np.log1p(mahalanobis / df)
    )


class NormalInverseWishart:
    """Σ ~ IW(ν, Ψ) and μ_k | Σ ~ N(m_k, Σ/κ_k), k = 1..K; Σ shared by all K means when Ψ is
    (p, p) and ν a scalar, one Σ_k per mean when Ψ is (K, p, p) and ν is (K,).
    """

    def __init__(self, m, kappa, nu, psi):
        self.m = np.asarray(m, dtype=float)
        self.kappa = np.broadcast_to(np.asarray(kappa, dtype=float), self.m.shape[:1]).copy()
        self.psi = np.asarray(psi, dtype=float)
        self.shared = self.psi.ndim == 2
        self.nu = (
            np.asarray(nu, dtype=float)
            if self.shared
            else np.broadcast_to(np.asarray(nu, float), self.m.shape[:1]).copy()
        )

    @property
    def dim(self) -> int:
        """The dimension p of the mean vector."""
        return self.m.shape[-1]

    def posterior(self, n, mean, scatter) -> NormalInverseWishart:
        """The posterior after observing per-class counts ``n``, means and scatters."""
        kappa = self.kappa + n
        m = (self.kappa[:, None] * self.m + n[:, None] * mean) / kappa[:, None]
        rows = n.sum() if self.shared else n
        return NormalInverseWishart(m, kappa, self.nu + rows, self.psi + self._psi_growth(n, mean, scatter))

    def _psi_growth(self, n, mean, scatter):
        """Ψ' − Ψ = Σ_k [S_k + κ_k n_k/κ'_k (x̄_k − m_k)(x̄_k − m_k)ᵀ] (per Σ), computed as such."""
        deviation = mean - self.m
        spread = (self.kappa * n / (self.kappa + n))[:, None, None] * deviation[:, :, None] * deviation[:, None, :]
        return (scatter + spread).sum(axis=0) if self.shared else scatter + spread

    def _log_det_growth(self, growth):
        """log|Ψ'| − log|Ψ| = Σ log1p(λ), λ the eigenvalues of L⁻¹(Ψ' − Ψ)L⁻ᵀ (Ψ = LLᵀ): accurate
        where Ψ' − Ψ is small beside Ψ (a strong prior), as the difference of two log-determinants is not.
        """
        chol = np.linalg.cholesky(self.psi)
        half = np.linalg.solve(chol, growth)
        whitened = np.linalg.solve(chol, np.swapaxes(half, -1, -2))
        whitened = (whitened + np.swapaxes(whitened, -1, -2)) / 2
        return np.log1p(np.maximum(np.linalg.eigvalsh(whitened), -0.5)).sum(axis=-1)

    def _per_sigma(self, values):
        """ν (or another per-Σ scalar) shaped to broadcast against Ψ."""
        return values if self.shared else values[:, None, None]

    def mean(self):
        """Posterior means of every parameter, by name."""
        p = self.dim
        cov = self.psi / self._per_sigma(self.nu - p - 1)
        return {"mu": self.m, "cov": cov}

    def sd(self):
        """Posterior standard deviations of every parameter, by name (NaN where undefined)."""
        p = self.dim
        nu = self._per_sigma(self.nu)
        diagonal = np.diagonal(self.psi, axis1=-2, axis2=-1)  # (p,) shared, (K, p) per class
        outer = diagonal[..., :, None] * diagonal[..., None, :]
        cov_var = ((nu - p + 1) * self.psi**2 + (nu - p - 1) * outer) / ((nu - p) * (nu - p - 1) ** 2 * (nu - p - 3))
        nu_of_mean = np.reshape(self.nu, (-1, 1))  # (1, 1) shared, (K, 1) per class
        mu_var = diagonal / (self.kappa[:, None] * (nu_of_mean - p - 1))
        return {"mu": np.sqrt(mu_var), "cov": np.sqrt(cov_var)}

    def marginal_distribution(self, index: tuple, name: str):
        """Exact marginal of one element, or None where it has no standard form: μ_ki ~
        Student-t(ν − p + 1, m_ki, √(Ψ_ii / (κ_k (ν − p + 1)))) and a diagonal Σ_ii ~
        InvGamma((ν − p + 1)/2, Ψ_ii/2); an off-diagonal Σ_ij has none.
        """
        p = self.dim
        if name == "mu":
            k, i = index
            nu, psi = self._sigma(k)
            return stats.t(df=nu - p + 1, loc=self.m[k, i], scale=np.sqrt(psi[i, i] / (self.kappa[k] * (nu - p + 1))))
        *k, i, j = index  # k is empty for the shared Σ
        if i != j:
            return None
        nu, psi = self._sigma(*k)
        return stats.invgamma((nu - p + 1) / 2, scale=psi[i, i] / 2)

    def sample_entry(self, index: tuple, name: str, size, random_state=None) -> np.ndarray:
        """``size`` exact draws of an off-diagonal Σ_ij (``name`` "cov"; its marginal has no
        standard form) from its 2 × 2 principal block alone: a principal q × q block of IW(ν, Ψ) is
        IW(ν − p + q, Ψ of that block), so the cost does not grow with p.
        """
        *k, i, j = index
        nu, psi = self._sigma(*k)
        rng = np.random.default_rng(random_state)
        df = float(nu) - self.dim + 2
        # Bartlett: W = L A Aᵀ Lᵀ ~ Wishart(df, Ψ_b⁻¹) with L Lᵀ = Ψ_b⁻¹, and Σ_b = W⁻¹, whose
        # off-diagonal entry is −W_01 / det W (numpy throughout: scipy draws one matrix at a time)
        chol = np.linalg.cholesky(np.linalg.inv(psi[np.ix_([i, j], [i, j])]))
        a = np.zeros((size, 2, 2))
        a[:, 0, 0], a[:, 1, 1] = np.sqrt(rng.chisquare(df, size)), np.sqrt(rng.chisquare(df - 1, size))
        a[:, 1, 0] = rng.standard_normal(size)
        factor = chol @ a
        w = factor @ np.swapaxes(factor, 1, 2)
        return -w[:, 0, 1] / (w[:, 0, 0] * w[:, 1, 1] - w[:, 0, 1] ** 2)

    def excess_kurtosis(self):
        """Of the marginals: Student-t(ν − p + 1) for μ_ki, InvGamma((ν − p + 1)/2) for Σ_ii;
        NaN for an off-diagonal Σ_ij, whose marginal has no standard form.
        """
        p = self.dim
        df = np.reshape(self.nu, (-1, 1)) - p + 1  # (1, 1) shared, (K, 1) per class
        mu = np.broadcast_to(_t_excess_kurtosis(df), self.m.shape)
        diagonal = _inverse_gamma_excess_kurtosis(self._per_sigma(self.nu - p + 1) / 2)
        cov = np.where(np.eye(p, dtype=bool), diagonal, np.nan) * np.ones_like(self.psi)
        return {"mu": mu, "cov": cov}

    def tail_index(self):
        """Moments of order below it are finite: ν − p + 1 for μ_ki's Student-t, (ν − p + 1)/2
        for every entry of Σ (the diagonal's InvGamma; an off-diagonal |Σ_ij| ≤ (Σ_ii + Σ_jj)/2 has
        no heavier tail).
        """
        df = np.reshape(self.nu, (-1, 1)) - self.dim + 1
        return {
            "mu": np.broadcast_to(df, self.m.shape),
            "cov": self._per_sigma(self.nu - self.dim + 1) / 2 * np.ones_like(self.psi),
        }

    def covariance_groups(self, name: str):
        """(cells (G, S), covariance (G, S, S)) of the jointly distributed entries, flat indices
        into the C-order ravel of ``name``'s array: for "mu" one group per class,
        Cov(μ_k) = Ψ/(κ_k(ν − p − 1)) (means of different classes are uncorrelated); for "cov"
        one group of p² entries per Σ, Cov(Σ_ij, Σ_kl) = [2ψ_ij ψ_kl + (ν − p − 1)(ψ_ik ψ_jl +
        ψ_il ψ_jk)] / [(ν − p)(ν − p − 1)²(ν − p − 3)].
        """
        p, n_means = self.dim, len(self.m)
        nu = np.broadcast_to(self.nu, (1 if self.shared else n_means,))
        psi = self.psi.reshape(-1, p, p)
        if name == "mu":
            psi_of_mean = np.broadcast_to(psi, (n_means, p, p))
            nu_of_mean = np.broadcast_to(nu, (n_means,))
            covariance = psi_of_mean / (self.kappa * (nu_of_mean - p - 1))[:, None, None]
            return [(np.arange(n_means * p).reshape(n_means, p), covariance)]
        scale = ((nu - p) * (nu - p - 1) ** 2 * (nu - p - 3))[:, None, None, None, None]
        outer = np.einsum("gij,gkl->gijkl", psi, psi)
        crossed = np.einsum("gik,gjl->gijkl", psi, psi) + np.einsum("gil,gjk->gijkl", psi, psi)
        covariance = ((2 * outer + (nu - p - 1)[:, None, None, None, None] * crossed) / scale).reshape(-1, p * p, p * p)
        return [(np.arange(len(psi) * p * p).reshape(len(psi), p * p), covariance)]

    def in_support(self, values, name: str, atol: float) -> np.ndarray:
        """Per draw (leading axis): μ finite; every Σ symmetric (within atol of its scale) and
        positive definite.
        """
        values = np.asarray(values, dtype=float)
        if name == "mu":
            return np.isfinite(values).reshape(len(values), -1).all(axis=1)
        matrices = values.reshape(len(values), -1, self.dim, self.dim)
        if not np.isfinite(matrices).all():
            return np.isfinite(matrices).all(axis=(1, 2, 3))
        scale = np.abs(matrices).max(axis=(2, 3), keepdims=True)
        symmetric = (np.abs(matrices - np.swapaxes(matrices, -1, -2)) <= atol * scale).all(axis=(1, 2, 3))
        return symmetric & (np.linalg.eigvalsh(matrices).min(axis=-1) > 0).all(axis=1)

    def _sigma(self, k=None):
        """(ν, Ψ) of the Σ that mean k uses: the shared one, or its own."""
        return (self.nu, self.psi) if self.shared else (self.nu[k], self.psi[k])

    def mode(self):
        """Posterior modes of every parameter, by name."""
        means_per_sigma = len(self.m) if self.shared else 1
        return {"mu": self.m, "cov": self.psi / self._per_sigma(self.nu + self.dim + 1 + means_per_sigma)}

    def sample(self, size, random_state=None):
        """``size`` exact posterior draws of every parameter, by name."""
        rng = np.random.default_rng(random_state)
        if self.shared:
            cov = np.asarray(stats.invwishart(df=float(self.nu), scale=self.psi).rvs(size, random_state=rng)).reshape(
                size, self.dim, self.dim
            )
            cov_per_mean = cov[:, None]
        else:
            cov = np.stack(
                [
                    np.asarray(stats.invwishart(df=float(nu), scale=psi).rvs(size, random_state=rng)).reshape(
                        size, self.dim, self.dim
                    )
                    for nu, psi in zip(self.nu, self.psi)
                ],
                axis=1,
            )
            cov_per_mean = cov
        chol = np.linalg.cholesky(cov_per_mean / self.kappa[None, :, None, None])
        noise = rng.standard_normal((size,) + self.m.shape)
        mu = self.m + np.einsum("skij,skj->ski", chol, noise)
        return {"mu": mu, "cov": cov}

    def log_predictive(self, X):
        """(N, K) log multivariate-t predictive density of each row under each mean's posterior."""
        p = self.dim
        columns = []
        for k in range(len(self.m)):
            nu = self.nu if self.shared else self.nu[k]
            psi = self.psi if self.shared else self.psi[k]
            df = nu - p + 1
            columns.append(_t_log_density(X, df, self.m[k], psi * (self.kappa[k] + 1) / (self.kappa[k] * df)))
        return np.stack(columns, axis=1)

    def log_evidence(self, n, mean, scatter):
        """Log p(D | m, κ, ν, Ψ) of ordered rows with per-class moments (n_k, x̄_k, S_k), per Σ
        (a scalar when shared, (K,) otherwise), means and Σ integrated out:

            −(N p/2) log π + log Γ_p(ν'/2) − log Γ_p(ν/2) + (ν/2) log|Ψ| − (ν'/2) log|Ψ'|
            + (p/2) Σ_k log(κ_k/κ'_k),

        N, ν', Ψ' and the sum over k taken over the classes sharing that Σ (Murphy 2007, eq. 266,
        with one mean per class). Evaluated without the cancellation of large terms: the log Γ_p
        difference by ``log_gamma_ratio``, and (ν/2) log|Ψ| − (ν'/2) log|Ψ'| as
        −(ν/2)(log|Ψ'| − log|Ψ|) − (N/2) log|Ψ'|.
        """
        p = self.dim
        growth = self._psi_growth(n, mean, scatter)
        det_growth = self._log_det_growth(growth)
        mean_terms = -0.5 * p * np.log1p(n / self.kappa)
        rows, mean_terms = (n.sum(), mean_terms.sum()) if self.shared else (n, mean_terms)
        offsets = np.arange(p) / 2
        gamma_terms = log_gamma_ratio(np.asarray(self.nu / 2)[..., None] - offsets, np.asarray(rows / 2)[..., None])
        return (
            -0.5 * rows * p * np.log(np.pi)
            + gamma_terms.sum(axis=-1)
            - 0.5 * self.nu * det_growth
            - 0.5 * rows * np.linalg.slogdet(self.psi + growth)[1]
            + mean_terms
        )

    def log_evidence_gradient(self, n, mean, scatter) -> dict:
        """∂/∂κ_k (K,), ∂/∂ν and the symmetric-matrix gradient ∂/∂Ψ (shaped like ν and Ψ) of
        ``log_evidence``: (p/2)(1/κ_k − 1/κ'_k) − (ν'/2)(n_k/κ'_k)² (x̄_k − m_k)ᵀΨ'⁻¹(x̄_k − m_k);
        ½[ψ_p(ν'/2) − ψ_p(ν/2) + log|Ψ| − log|Ψ'|] with ψ_p(x) = Σ_{i<p} ψ(x − i/2);
        (ν/2)Ψ⁻¹ − (ν'/2)Ψ'⁻¹ = (ν/2)Ψ⁻¹(Ψ' − Ψ)Ψ'⁻¹ − (N/2)Ψ'⁻¹ (the form without cancellation).
        """
        p = self.dim
        growth = self._psi_growth(n, mean, scatter)
        rows = n.sum() if self.shared else n
        nu_post, psi_post = self.nu + rows, self.psi + growth
        inverse = np.linalg.inv(psi_post)
        deviation = mean - self.m
        per_mean = (lambda v: np.broadcast_to(v, (len(self.m),) + np.shape(v))) if self.shared else (lambda v: v)
        quadratic = np.einsum("ki,kij,kj->k", deviation, per_mean(inverse), deviation)
        offsets = np.arange(p) / 2
        digamma_terms = digamma_difference(
            np.asarray(self.nu / 2)[..., None] - offsets, np.asarray(rows / 2)[..., None]
        )
        prior_inverse = np.linalg.inv(self.psi)
        return {
            "kappa": 0.5 * p * n / (self.kappa * (self.kappa + n))
            - 0.5 * per_mean(nu_post) * (n / (self.kappa + n)) ** 2 * quadratic,
            "nu": 0.5 * (digamma_terms.sum(axis=-1) - self._log_det_growth(growth)),
            "psi": 0.5
            * (
                self._per_sigma(self.nu) * (prior_inverse @ growth @ inverse)
                - self._per_sigma(np.asarray(rows, dtype=float)) * inverse
            ),
        }

    def leave_one_out_log_predictive(self, X, row_class) -> np.ndarray:
        """(N, K) log predictive density of each row X[n] under each mean's posterior with row n
        itself removed (it was counted in mean ``row_class[n]``): the rank-one downdate
        κ⁻ = κ − 1, m⁻ = (κ m − x)/κ⁻, ν⁻ = ν − 1, Ψ⁻ = Ψ − κ/κ⁻ (x − m)(x − m)ᵀ of that mean's
        Σ. Other means keep (κ, m); with a shared Σ they see its downdated (ν⁻, Ψ⁻) too.
        """
        p, n_rows = self.dim, len(X)
        row_class = np.asarray(row_class)
        kappa = self.kappa[row_class]
        deviation = X - self.m[row_class]
        kappa_minus = kappa - 1
        loc_minus = (kappa[:, None] * self.m[row_class] - X) / kappa_minus[:, None]
        nu, psi = (self.nu, self.psi) if self.shared else (self.nu[row_class], self.psi[row_class])
        nu_minus = np.broadcast_to(nu - 1, (n_rows,))
        psi_minus = psi - (kappa / kappa_minus)[:, None, None] * deviation[:, :, None] * deviation[:, None, :]
        df = nu_minus - p + 1
        columns = []
        for k in range(len(self.m)):
            own = row_class == k
            kappa_k = np.where(own, kappa_minus, self.kappa[k])
            loc_k = np.where(own[:, None], loc_minus, self.m[k])
            if self.shared:
                nu_k, psi_k = df, psi_minus
            else:  # another class's Σ_k is untouched by row n
                nu_k = np.where(own, df, self.nu[k] - p + 1)
                psi_k = np.where(own[:, None, None], psi_minus, self.psi[k])
            scale = psi_k * ((kappa_k + 1) / (kappa_k * nu_k))[:, None, None]
            columns.append(_t_log_density_each(X, nu_k, loc_k, scale))
        return np.stack(columns, axis=1)


# Squared deviations of values up to 1e150 stay below 1e300, so sums of them over up to 1e8
# rows (scatter matrices, variances) are finite in float64 (max 1.8e308).
MAX_ABS_VALUE = 1e150


def overall_moments(X: np.ndarray, weight: np.ndarray):
    """Weighted mean and variance of each feature over all rows (a NaN entry, a missing value,
    is left out of its column), the variance floored so the prior stays proper.
    """
    if _compiled(X) and weight.sum() > 0 and not np.isnan(np.add.reduce(X, axis=None)):
        # one class holding every row: the compiled moments' two passes, no (N × p) products or squares
        # (the same numbers as np.average's to the rounding of their sums); a NaN sum without a NaN
        # (inf − inf) takes the masked path below, exact for any rows
        kernels = jit.kernels("pgm_models.conjugate._normal_kernels")
        n, mean, scatter = kernels.diagonal_moments(
            np.asarray(X, dtype=float), np.zeros(len(X), dtype=np.intp), np.asarray(weight, dtype=float), 1
        )
        return mean[0], floored_variance(scatter[0] / n[0])
    missing = np.isnan(X)
    if missing.any() or weight.sum() <= 0:
        weights = np.where(missing, 0.0, weight[:, None]) if weight.sum() > 0 else (~missing).astype(float)
        total = weights.sum(axis=0)
        X = np.where(missing, 0.0, X)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(total > 0, (weights * X).sum(axis=0) / total, 0.0)
            var = np.where(total > 0, (weights * (X - mean) ** 2).sum(axis=0) / total, 0.0)
    else:
        mean = np.average(X, axis=0, weights=weight)
        var = np.average((X - mean) ** 2, axis=0, weights=weight)
    return mean, floored_variance(var)


def pooled_moments(X: np.ndarray, weight: np.ndarray, n: np.ndarray, mean: np.ndarray, scatter: np.ndarray):
    """``overall_moments`` of a batch with no missing value, merged exactly from its classes'
    (n_k, x̄_k, S_k) (no pass over X, which is read only when every weight is 0).
    """
    if n.sum() <= 0:
        return overall_moments(X, weight)
    return class_pooled_moments(n, mean, scatter)


def class_pooled_moments(n: np.ndarray, mean: np.ndarray, scatter: np.ndarray):
    """The whole data's mean and floored variance per feature from its classes' (n_k, x̄_k, S_k):
    n x̄ = Σ_k n_k x̄_k, S = Σ_k S_k + Σ_k n_k (x̄_k − x̄)² (S_k a matrix: its diagonal).
    """
    total = n.sum()
    overall = n @ mean / total
    within = np.diagonal(scatter, axis1=1, axis2=2) if scatter.ndim == 3 else scatter
    return overall, floored_variance((within.sum(axis=0) + n @ (mean - overall) ** 2) / total)


def floored_variance(var: np.ndarray) -> np.ndarray:
    """The prior's variance guess: a zero variance floored at 1e-9 of the largest (or 1)."""
    floor = 1e-9 * var.max() if var.max() > 0 else 1.0
    return np.maximum(var, floor)


def rounding_scatter(n, location):
    """A scatter at the rounding level of a constant feature's: n deviations from a mean
    computed in float64, each off by a few √n ε |x̄|, sum to about 16 n² ε² x̄², which is no
    evidence of spread (a constant 0.1 over 15 rows leaves 2.9e-33, not 0).
    """
    n = np.maximum(n, 1.0)
    return 16 * n * (np.sqrt(n) * np.finfo(float).eps * np.abs(location)) ** 2


def numerically_singular(cov, n, location) -> bool:
    """Whether a p × p covariance estimated from n rows about means ``location`` (p,) has rank
    below p, decided with a tolerance (as ``np.linalg.matrix_rank``, on the correlation matrix so
    that the features' scales do not matter): a variance at the rounding level of a constant
    feature's (``rounding_scatter``), or a correlation eigenvalue ≤ max(n, p) p ε, which a
    scatter of fewer than p + 1 rows or of collinear features leaves above 0 by rounding alone.
    """
    variance = np.diagonal(cov)
    if not np.all(variance * max(n, 1.0) > rounding_scatter(n, location)):
        return True
    scale = 1 / np.sqrt(variance)
    eigenvalues = np.linalg.eigvalsh(cov * scale[:, None] * scale[None, :])
    p = len(variance)
    return not eigenvalues[0] > max(n, p) * p * np.finfo(float).eps


def plug_in_moments(estimate, posterior, n, mean, scatter, ddof, epsilon, classes, features):
    """(μ, σ²) of shape (K, F) under a plug-in estimate — "mle" (x̄, S/(n − ddof) + ε), "map",
    "mean" or a PosteriorDraw of the NIG ``posterior`` — from per-class (or per-class and
    feature) counts n and sample moments; raises naming the first class and feature whose
    variance is not positive and finite, and the settings that work there.
    """
    if estimate == "mle":
        n = np.broadcast_to(n - ddof, scatter.shape)
        # a scatter at rounding level is that of a constant feature: 0
        scatter = np.where(scatter > rounding_scatter(n, mean), scatter, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            mu, var = mean, np.where(n > 0, scatter / n, np.nan) + epsilon
    else:
        if isinstance(estimate, PosteriorDraw):
            point = {name: value[0] for name, value in posterior.sample(1, estimate.rng).items()}
        else:
            point = posterior.mode() if estimate == "map" else posterior.mean()
        mu, var = point["mu"], point["var"]
    bad = ~(var > 0) | ~np.isfinite(var)
    if bad.any():
        k, j = np.argwhere(bad)[0]
        rows = np.broadcast_to(n, scatter.shape)[k, j] + (ddof if estimate == "mle" else 0)
        raise ValueError(
            f"class {classes[k : k + 1].tolist()[0]!r}, feature {features[j : j + 1].tolist()[0]!r}: the {estimate} variance "
            f"{_why_undefined(estimate, var[k, j], rows, ddof, posterior.a[k, j])}"
        )
    return mu, var


def _why_undefined(estimate, value, n, ddof, a) -> str:
    """Why a plug-in variance is missing, zero or infinite, and the settings that work there."""
    if estimate == "mle" and not n - ddof > 0:
        return (
            f"is undefined (n = {n:g} rows, ddof = {ddof}); use estimate='mean', 'map' or 'predictive' "
            "(the prior keeps it positive)"
        )
    if estimate == "mle":
        return (
            f"is {value} (n = {n:g} rows; the feature is constant in this class); set var_smoothing > 0 "
            "(scikit-learn uses 1e-9) or use estimate='mean', 'map' or 'predictive'"
        )
    if estimate == "mean" and not a > 1:
        return (
            f"has no posterior mean (a' = {a:g} ≤ 1 with n = {n:g} rows: var_strength ≤ 2); use estimate='map' or "
            "'predictive', or var_strength > 2"
        )
    return f"is {value} (n = {n:g} rows); use estimate='predictive'"
