"""Gaussian discriminant analysis with conjugate Normal–Inverse-Wishart priors: LDA and QDA.

Model, for classes k = 1..K and p features:

    π ~ Dirichlet(class_alpha),   y_i ~ Categorical(π),   x_i | y_i = k ~ N(μ_k, Σ_k),
    μ_k | Σ_k ~ N(m0, Σ_k/κ0),    Σ_k ~ InvWishart(ν0, Ψ0),

with one shared Σ_k = Σ (LDA: the classes' scatter is pooled) or one Σ_k per class (QDA).
The closed-form posterior is NIW (``pgm_models.conjugate.normal``). Plug-in estimates:
"mean" (m'_k, Ψ'/(ν' − p − 1)), "map" the joint mode (m'_k, Ψ'/(ν' + p + 1 + J)), "mle"
the textbook formulas μ_k = x̄_k, Σ = (1/N) Σ_i (x_i − μ_{y_i})(x_i − μ_{y_i})ᵀ (LDA) or
S_k/n_k (QDA); "predictive" is the exact multivariate Student-t predictive.

Defaults (weakly informative, scaled to the data at the first fit): m0 = overall mean of each
feature, κ0 = ``mean_strength`` = 0.01 pseudo-rows, Ψ0 = diag(overall variances) and
ν0 = ``cov_strength`` = p + 2, so that the prior mean of Σ is that diagonal matrix.

Empirical Bayes: ``mean_strength``, ``cov_strength`` and ``prior_cov`` each accept "evidence"
(``class_alpha`` too): those set so maximise the log marginal likelihood, per Σ,

    log p(D | κ0, ν0, Ψ0) = −(N p/2) log π + log Γ_p(ν'/2) − log Γ_p(ν0/2) + (ν0/2) log|Ψ0|
                            − (ν'/2) log|Ψ'| + (p/2) Σ_k log(κ0/κ'_k)

(``NormalInverseWishart.log_evidence``; LDA: one Σ, N all rows; QDA: a sum over the classes'
Σ_k, N = n_k), with one shared κ0 and ν0 and, for "prior_cov", Ψ0 = ν0 diag(c_j v_j), v_j the
overall variance of feature j and c_j learned (Σ concentrates on diag(c_j v_j) as ν0 grows, so a
ν0 that runs to its bound leaves c_j inside); m0 stays the overall mean. The constraint is
ν0 > p − 1 (learned as ν0 − (p − 1) > 0) when Ψ0 is learned too, and ν0 > p + 1 when only ν0 is
(with Ψ0 = (ν0 − p − 1) × the fixed prior_cov, whose mean must exist). Fitted as
``mean_strength_``, ``cov_strength_`` (ν0) and ``prior_cov_`` (Ψ0/(ν0 − p − 1), or Ψ0 where
ν0 ≤ p + 1: what ``prior_cov`` takes to give the same prior).

In the PyMC model the precision Λ = Σ⁻¹ ~ Wishart(ν0, Ψ0⁻¹) — the same prior as
Σ ~ InvWishart(ν0, Ψ0) — is Λ = F Fᵀ with F the Bartlett factor, and the class means, sample
means and scatter matrices have their densities written through F
(``pgm_models.gaussian._precision_factor``: no inverse or Cholesky in NUTS's gradient);
``cov`` = Λ⁻¹ is a deterministic, so NUTS samples of ``cov`` check the closed form.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.linalg.blas import dtrmm
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from pgm_models._utils import threads
from pgm_models._utils.scores import add_per_class
from pgm_models._utils.threads import rows_times, single_blas_thread
from pgm_models._utils.validation import as_array_like, check_n_draws, is_number
from pgm_models.base import Marginal, integer_counts
from pgm_models.conjugate import log_probabilities, normal
from pgm_models.conjugate.normal import NormalInverseWishart, numerically_singular
from pgm_models.gaussian._base import GaussianClassifier
from pgm_models.gaussian._precision_factor import (
    _transpose_times,
    bartlett_coordinates,
    bartlett_factor,
    normal_logp,
    normal_random,
    posterior_frame_factor,
    whitened_normal_logp,
    wishart_data_term,
    wishart_logp,
    wishart_random,
)
from pgm_models.gaussian._shrinkage import (
    batch_all_moments,
    ledoit_wolf_standardised,
    merge_higher_moments,
    oas,
    shrunk,
)
from pgm_models.model_selection.evidence import EVIDENCE, check_option

COV_DIMS_SHARED = ("feature_i", "feature_j")
# the free variables of the model NUTS samples (``_sampling_model``), left out of its draws
SAMPLING_COORDINATES = ("precision_log_diag", "precision_below", "class_mean_whitened")


def _selection(mask: np.ndarray):
    """The classes where ``mask`` holds, as a slice when that is all of them: a fancy index's
    gradient has no C code in PyTensor.
    """
    return slice(None) if mask.all() else np.flatnonzero(mask)


class _DiscriminantAnalysis(GaussianClassifier):
    _template = True
    full_scatter = True
    shared_covariance: bool
    evidence_parameters = ("mean_strength", "cov_strength", "prior_cov")

    def __init__(
        self,
        class_alpha=1.0,
        estimate="mean",
        prior_mean=None,
        mean_strength=0.01,
        prior_cov=None,
        cov_strength=None,
        reg_param=0.0,
        shrinkage=None,
        covariance_estimator=None,
        class_prior=None,
    ):
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.prior_mean = prior_mean
        self.mean_strength = mean_strength
        self.prior_cov = prior_cov
        self.cov_strength = cov_strength
        self.reg_param = reg_param
        self.shrinkage = shrinkage
        self.covariance_estimator = covariance_estimator
        self.class_prior = class_prior

    def _blocks_refused(self):
        if self.covariance_estimator is None:
            return None
        return (
            f"covariance_estimator={self.covariance_estimator!r} is fitted to all rows of a class at once, and Dask "
            "fits from the merged statistics of blocks of rows: use shrinkage (a number or 'oas', which Dask merges "
            "exactly), or compute the collection first"
        )

    def _set_prior(self, data_mean, data_var):
        self._check_reg_param()
        p, n_classes = len(data_mean), len(self.classes_)
        learn_scale = isinstance(self.prior_cov, str)
        if learn_scale:
            check_option(self.prior_cov, "prior_cov", (EVIDENCE,), f"a {p}×{p} matrix, or None")
            guess = data_var  # Ψ0 = ν0 diag(c_j v_j)
        else:
            guess = np.diag(data_var) if self.prior_cov is None else np.asarray(self.prior_cov, dtype=float)
            if guess.shape != (p, p) or not np.allclose(guess, guess.T) or np.linalg.eigvalsh(guess).min() <= 0:
                raise ValueError(f"prior_cov must be a symmetric positive definite {p}×{p} matrix")
        if isinstance(self.cov_strength, str):
            # ν0 = offset + a positive free value: ν0 > p − 1 for a proper prior, > p + 1 where the
            # fixed prior_cov is E[Σ] = Ψ0/(ν0 − p − 1)
            offset = p - 1 if learn_scale else p + 1
            strength = self._hyperparameter("cov_strength", p + 2 - offset, minimum=p - 1)
        else:
            offset, strength = (
                0,
                float(p + 2) if self.cov_strength is None else self._check_strength("cov_strength", minimum=p - 1),
            )
        self._prior_reference = np.broadcast_to(self._prior_location(data_mean), (n_classes, p)), guess, offset
        self._start_prior(
            {
                "mean_strength": self._hyperparameter("mean_strength", 0.01),
                "cov_strength": strength,
                "prior_cov": np.ones(p),
            }
        )

    def _prior_psi(self, values):
        """(ν0, Ψ0): Ψ0 = ν0 diag(c_j v_j) when the scale is learned (Σ concentrates on diag(c_j v_j)
        as ν0 grows, so c and ν0 are not one ridge running to the bounds together), else
        (ν0 − p − 1) × prior_cov (prior_cov itself where ν0 ≤ p + 1).
        """
        _, guess, offset = self._prior_reference
        p, nu = len(guess), offset + values["cov_strength"]
        if guess.ndim == 1:
            return nu, np.diag(nu * values["prior_cov"] * guess)
        return nu, guess * (nu - p - 1) if nu > p + 1 else guess

    def _prior_from(self, values) -> NormalInverseWishart:
        location, kappa = self._prior_reference[0], values["mean_strength"]
        nu, psi = self._prior_psi(values)
        if self.shared_covariance:
            return NormalInverseWishart(location, kappa, nu, psi)
        n_classes, p = location.shape
        return NormalInverseWishart(location, kappa, np.full(n_classes, nu), np.broadcast_to(psi, (n_classes, p, p)))

    def _prior_gradient(self, values, gradient) -> dict:
        """NIW (κ_k, ν, Ψ) gradients → (κ0, ν0 − offset, c): Ψ0 shared by every Σ sums their
        ∂/∂Ψ (M); ∂/∂c_j = ν0 M_jj v_j, and Ψ0 = ν0 diag(c v) adds Σ_j M_jj c_j v_j to ∂/∂ν0; a fixed
        prior_cov adds tr(M prior_cov) there instead.
        """
        _, guess, _ = self._prior_reference
        matrix = gradient["psi"] if self.shared_covariance else gradient["psi"].sum(axis=0)
        nu, _ = self._prior_psi(values)
        d_nu = np.sum(gradient["nu"])
        if guess.ndim == 2 and nu > len(guess) + 1:
            d_nu += np.sum(matrix * guess)
        result = {"mean_strength": gradient["kappa"].sum(), "cov_strength": d_nu}
        if guess.ndim == 1:
            result["cov_strength"] += np.sum(np.diagonal(matrix) * values["prior_cov"] * guess)
            result["prior_cov"] = np.diagonal(matrix) * nu * guess
        return result

    def _learned_attributes(self) -> dict:
        nu, psi = self._prior_psi(self._prior_values)
        p = len(psi)
        return {
            "mean_strength": float(self._prior_values["mean_strength"]),
            "cov_strength": float(nu),
            "prior_cov": psi / (nu - p - 1) if nu > p + 1 else psi,
        }

    # ------------------------------------------------------------------ shrunk plug-in covariances
    def _shrinkage_kind(self):
        """None, a float s, "oas", "auto" or "estimator", checked."""
        shrinkage, estimator = self.shrinkage, self.covariance_estimator
        if estimator is not None:
            if shrinkage is not None:
                raise ValueError(f"shrinkage={shrinkage!r} and covariance_estimator are both set: give one of them")
            if not hasattr(estimator, "fit"):
                raise ValueError(
                    f"covariance_estimator must be a scikit-learn covariance estimator (with fit and covariance_), "
                    f"got {estimator!r}"
                )
            kind = "estimator"
        elif shrinkage is None or (isinstance(shrinkage, str) and shrinkage in ("auto", "oas")):
            kind = shrinkage
        elif isinstance(shrinkage, (bool, np.bool_)) or not (
            is_number(shrinkage) and np.isreal(shrinkage) and 0 <= shrinkage <= 1
        ):
            raise ValueError(
                f"shrinkage must be None, 'auto' (Ledoit–Wolf), 'oas' or a number in [0, 1], got {shrinkage!r}"
            )
        else:
            kind = float(shrinkage)
        if kind is not None and self.estimate != "mle":
            raise ValueError(
                f"shrinkage and covariance_estimator set the plug-in covariance of estimate='mle', not of "
                f"estimate={self.estimate!r}, whose Normal–Inverse-Wishart prior already shrinks it "
                "(prior_cov, cov_strength): use estimate='mle'"
            )
        return kind

    def _init_counts(self, X, class_index, weight):
        super()._init_counts(X, class_index, weight)
        kind = self._shrinkage_kind()
        n_classes, p = len(self.classes_), X.shape[1]
        # the rows' statistics beyond (n, x̄, S) that "auto" and covariance_estimator need, and the
        # weight they cover (the Dask engine merges only n, x̄ and S: a mismatch is caught where they are used)
        self._row_count = np.zeros(n_classes)
        if kind == "auto":
            self._higher_moments = np.zeros((n_classes, p, p)), np.zeros((n_classes, p, p))
        elif kind == "estimator":
            self._estimated_cov = np.full((n_classes, p, p), np.nan)

    @single_blas_thread  # the moments' products gain nothing from a second thread here, and lose under load
    def _count(self, X, class_index, weight):
        kind = self._shrinkage_kind()
        if kind not in ("auto", "estimator") or not len(class_index):
            return super()._count(X, class_index, weight)
        batch_count = np.bincount(class_index, weight, len(self.classes_))
        if kind == "estimator":
            self._fit_covariance_estimator(X, class_index, weight, batch_count)
            self._row_count = self._row_count + batch_count
            return super()._count(X, class_index, weight)
        before = (self._row_count, self.feature_mean_, self.feature_scatter_, *self._higher_moments)
        n, mean, scatter, third, fourth = batch_all_moments(X, class_index, weight, len(self.classes_))
        batch = (n, mean, scatter)
        self._add_batch(X, weight, batch)
        self._higher_moments = merge_higher_moments(before, (*batch, third, fourth), self.feature_mean_)
        self._row_count = self._row_count + batch_count

    def _fit_covariance_estimator(self, X, class_index, weight, batch_count):
        """covariance_estimator fitted to each class's rows: it sees them only once, all together."""
        again = np.flatnonzero((self._row_count > 0) & (batch_count > 0))
        if len(again):
            raise ValueError(
                f"covariance_estimator is fitted to all rows of a class at once; class {self._class_label(again[0])!r} "
                "already had rows from an earlier batch: fit it in one call (or use shrinkage, which merges batches)"
            )
        if not np.all((weight == 0) | (weight == 1)):
            raise ValueError(
                "covariance_estimator takes no sample_weight: give weights of 0 or 1 only (or use shrinkage)"
            )
        p = X.shape[1]
        for k in np.flatnonzero(batch_count > 0):
            estimator = clone(self.covariance_estimator).fit(X[(class_index == k) & (weight == 1)])
            cov = getattr(estimator, "covariance_", None)
            if cov is None or np.shape(cov) != (p, p):
                raise ValueError(
                    f"covariance_estimator {type(estimator).__name__} gave no {p}×{p} covariance_ after fit"
                )
            self._estimated_cov[k] = cov

    def _plug_in_cov(self):
        """The estimate="mle" covariance: S/N (LDA) or S_k/n_k (QDA), or each class's shrunk
        covariance (LDA: their average weighted by n_k/N, as scikit-learn's).
        """
        kind = self._shrinkage_kind()
        if kind is None:
            return self._mle_cov()
        n = self.class_count_
        if kind in ("auto", "estimator") and not np.array_equal(getattr(self, "_row_count", None), n):
            raise ValueError(
                f"{'shrinkage=' + repr(kind) if kind == 'auto' else 'covariance_estimator'} needs statistics of the "
                "rows beyond (n, mean, scatter), which this fit does not hold for all its rows (a Dask fit merges "
                "only those three): fit in memory, or use shrinkage='oas' or a number"
            )
        covs = np.full(self.feature_scatter_.shape, np.nan)
        for k in np.flatnonzero(n > 0):
            scatter = self.feature_scatter_[k]
            if kind == "estimator":
                covs[k] = self._estimated_cov[k]
            elif kind == "auto":
                covs[k] = ledoit_wolf_standardised(scatter, self._higher_moments[1][k], n[k])
            elif kind == "oas":
                covs[k] = oas(scatter / n[k], n[k])
            else:
                covs[k] = shrunk(scatter / n[k], kind)
        if self.shared_covariance:
            seen = n > 0
            return np.tensordot(n[seen] / n.sum(), covs[seen], axes=1)
        return covs

    def _moments(self):
        """(n_k, x̄_k, S_k) of every class, as the NIW posterior takes them."""
        return self.class_count_, self.feature_mean_, self.feature_scatter_

    @property
    def posterior_(self) -> NormalInverseWishart:
        return self._prior.posterior(*self._moments())

    # ------------------------------------------------------------------ point estimates
    def _mle_cov(self):
        if self.shared_covariance:
            return self.feature_scatter_.sum(axis=0) / self.class_count_.sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.feature_scatter_ / self.class_count_[:, None, None]

    def _point(self, estimate):
        """(means (K, p), covariance (p, p) shared or (K, p, p)) under a plug-in estimate."""
        if estimate == "mle":
            means, cov = self.feature_mean_, self._plug_in_cov()
        else:
            point = self._posterior_point(estimate)
            means, cov = point["mu"], point["cov"]
        reg_param = self._check_reg_param()
        if reg_param:
            cov = (1 - reg_param) * cov + reg_param * np.eye(cov.shape[-1])
        return means, cov

    def _check_reg_param(self) -> float:
        """The shrinkage weight r ∈ [0, 1] of (1 − r)Σ + rI (outside it the matrix need not be a covariance)."""
        r = self.reg_param
        if isinstance(r, (bool, np.bool_)) or not (is_number(r) and np.isreal(r) and 0 <= r <= 1):
            raise ValueError(f"reg_param must be a number in [0, 1] (the weight of I in (1 − r)Σ + rI), got {r!r}")
        return float(r)

    def _cholesky(self, cov, estimate, means):
        """Cholesky factors, one per covariance, with an error that names a singular one: under
        "mle" a covariance whose rank, decided with a tolerance, is below p (rounding leaves the
        scatter of fewer than p + 1 rows, or of a constant feature, just positive definite).
        """
        covs = cov[None] if cov.ndim == 2 else cov
        rows = self.class_count_[None].sum(axis=1) if cov.ndim == 2 else self.class_count_
        # the largest |mean| of each feature over the classes a covariance is about: its rounding scale
        locations = np.abs(means).max(axis=0)[None] if cov.ndim == 2 else np.abs(means)
        factors = []
        for k, matrix in enumerate(covs):
            which = "the pooled covariance" if cov.ndim == 2 else f"the covariance of class {self._class_label(k)!r}"
            if estimate == "mle" and not rows[k] > 0:
                raise ValueError(
                    f"{which} is undefined under estimate='mle' (the class has no rows, or only rows of "
                    "weight 0); use estimate='mean', 'map' or 'predictive' (the prior defines it)"
                )
            try:
                if estimate == "mle" and numerically_singular(matrix, rows[k], locations[k]):
                    raise np.linalg.LinAlgError
                factors.append(np.linalg.cholesky(matrix))
            except np.linalg.LinAlgError:
                raise ValueError(
                    f"{which} is singular under estimate={estimate!r} ({rows[k]:g} rows for {matrix.shape[0]} features, "
                    "a constant feature, or collinear features); use estimate='mean'/'map' (the prior keeps it positive "
                    "definite) or reg_param > 0"
                ) from None
        return np.stack(factors)

    @single_blas_thread  # (N × p)(p × p) products: slower on two OpenBLAS threads (BENCHMARKS.md, "Against scikit-learn")
    def _feature_log_likelihood(self, X, estimate):
        if estimate == "predictive":
            return self.posterior_.log_predictive(X)
        means, cov = self._point(estimate)
        chol = self._cholesky(cov, estimate, means)
        p = means.shape[1]
        # ½ log|Σ_k|, one per class (a shared Σ's one value repeated)
        log_det = np.broadcast_to(np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1), len(means))
        if len(chol) == 1:
            # shared Σ = L Lᵀ: whiten once with L⁻¹ (p × p), then for every class
            # ‖L⁻¹(x − μ_k)‖² = ‖z‖² − 2 zᵀ w_k + ‖w_k‖², z = L⁻¹(x − c), w_k = L⁻¹(μ_k − c);
            # centring on c, the mean of the class means, keeps the three terms as small as
            # the distances themselves (uncentred, a location of 1e8 cancels every digit)
            centre = means.mean(axis=0)
            whitening = scipy.linalg.solve_triangular(chol[0], np.eye(p), lower=True)
            z, w = (X - centre) @ whitening.T, (means - centre) @ whitening.T
            mahalanobis = (z**2).sum(axis=1)[:, None] - 2 * z @ w.T + (w**2).sum(axis=1)[None, :]
        else:
            # per class, whiten the centred rows with L_k⁻¹ (a p × p triangular inverse), a chunk of rows at a
            # time: BLAS's triangular product (dtrmm) on the chunk in place, half the work of a full product
            # (solving for the rows costs more; scipy's solve_triangular also checks its input per class).
            # LAPACK's inverse comes in Fortran order, and a row-major chunk's transpose is the Fortran-order
            # right operand dtrmm overwrites.
            # A large input's row blocks run on threads, each with its own work arrays.
            inverses = [scipy.linalg.lapack.dtrtri(factor, lower=1)[0] for factor in chol]
            mahalanobis = np.empty((len(X), len(means)))
            ones = np.ones(p)

            def block(first, stop):
                rows = max(
                    1, min(stop - first, normal.WORK_ROWS)
                )  # work arrays reused by every chunk (BENCHMARKS.md, "Against scikit-learn")
                mean_rows, centred, squared = np.empty((rows, p)), np.empty((rows, p)), np.empty(rows)
                for k, inverse in enumerate(inverses):
                    # the class mean written into every row once, so that centring a chunk is elementwise (a
                    # (p,) row broadcast over it loops once per row, slower than elementwise)
                    mean_rows[:] = means[k]
                    for start in range(first, stop, rows):
                        chunk = X[start : min(start + rows, stop)]
                        n = len(chunk)
                        np.subtract(chunk, mean_rows[:n], out=centred[:n])
                        z = dtrmm(1.0, inverse, centred[:n].T, lower=1, overwrite_b=1).T  # rows of L_k⁻¹(x − μ_k)
                        z *= z
                        np.matmul(z, ones, out=squared[:n])  # the rows' sums of squares: one pass, faster than einsum's
                        mahalanobis[start : start + n, k] = squared[:n]

            threads.over_row_blocks(block, len(X))
        mahalanobis *= -0.5  # in place: each new (N, K) array costs its page faults
        return add_per_class(mahalanobis, -(log_det + 0.5 * p * np.log(2 * np.pi)))

    # ------------------------------------------------------------------ posterior and PyMC
    def _cov_dims(self):
        return COV_DIMS_SHARED if self.shared_covariance else ("class",) + COV_DIMS_SHARED

    def _coords(self):
        features = self._feature_names_or_index()
        return {"class": self.classes_, "feature": features, "feature_i": features, "feature_j": features}

    def _feature_posterior(self):
        joint = self.posterior_
        return {
            "class_mean": (Marginal(joint, "mu"), ("class", "feature")),
            "cov": (Marginal(joint, "cov"), self._cov_dims()),
        }

    def pymc_trace(self, idata):
        """``idata`` for PyMC's forward sampling and log likelihood: a copy whose posterior holds too
        the PyMC model's free variables, the Bartlett coordinates ``precision_c`` and ``precision_z``
        of each draw of ``cov`` (``bartlett_coordinates``); without them PyMC would draw Σ from the prior.
        """
        posterior = idata.posterior
        if "cov" not in posterior or "precision_c" in posterior:
            return idata
        c, z = bartlett_coordinates(
            posterior["cov"].transpose("chain", "draw", *self._cov_dims()).values, self._prior.psi
        )
        batch = self._cov_dims()[:-2]
        trace = idata.copy()
        trace.posterior = posterior.assign(
            precision_c=(("chain", "draw", *batch, "precision_c_dim"), c),
            precision_z=(("chain", "draw", *batch, "precision_z_dim"), z),
        )
        return trace

    def _check_proper_prior(self):
        super()._check_proper_prior()
        nu = np.atleast_1d(self._prior.nu)
        if np.any(nu <= self.n_features_in_ - 1):
            raise ValueError(
                f"cov_strength={self.cov_strength!r} must exceed p − 1 = {self.n_features_in_ - 1} for a proper prior"
            )

    def _feature_priors(self):
        """(class means (K, p), Bartlett factor F of the precision(s): (p, p) for LDA, (K, p, p)
        for QDA) of the PyMC model; ``cov`` = (F Fᵀ)⁻¹ is a deterministic.
        """
        import pymc as pm
        import pytensor.tensor as pt

        prior = self._prior
        factor, log_root_det = bartlett_factor("precision", prior.nu, prior.psi)
        cov = pm.Deterministic("cov", pt.linalg.inv(pt.matmul(factor, factor.mT)), dims=self._cov_dims())
        means = pm.CustomDist(
            "class_mean",
            prior.m,
            prior.kappa,
            factor,
            log_root_det,
            logp=normal_logp,
            random=normal_random,
            support_point=lambda rv, size, mu, *_: pt.broadcast_to(mu, rv.shape),
            signature="(p),(),(p,p),()->(p)",
            dims=("class", "feature"),
        )
        return means, cov, (factor, log_root_det)

    def _counts_model(self, model):
        """N_k ~ Multinomial(N, π); x̄_k ~ N(μ_k, Σ_k/n_k); scatter ~ Wishart(n − 1, Σ) per class
        of two or more rows (QDA) or pooled Σ_k S_k ~ Wishart(N − K, Σ) (LDA). A scatter with no
        Wishart density (n − 1 < p, or a feature constant within a class) is observed through its
        likelihood kernel in Σ (``wishart_data_term``): the same posterior as the rows form's.
        """
        import pymc as pm

        self._class_model(model, observe_counts=True)
        means, cov, (factor, log_root_det) = self._feature_priors()
        n = integer_counts(self.class_count_, "class counts")
        seen = _selection(n >= 1)
        precision = (factor, log_root_det) if self.shared_covariance else (factor[seen], log_root_det[seen])
        pm.CustomDist(
            "sample_mean",
            means[seen],
            n[seen].astype(float),
            *precision,
            logp=normal_logp,
            random=normal_random,
            signature="(p),(),(p,p),()->(p)",
            observed=self.feature_mean_[seen],
        )
        if self.shared_covariance:
            pooled, nu = self.feature_scatter_.sum(axis=0), float(n.sum() - np.count_nonzero(n))
            pm.CustomDist(
                "pooled_scatter",
                nu,
                factor,
                log_root_det,
                wishart_data_term(pooled, nu),
                logp=wishart_logp,
                random=wishart_random,
                signature="(),(p,p),(),()->(p,p)",
                observed=pooled,
            )
        else:  # a class of one row has a scatter of 0 with ν = 0: nothing to observe
            several = _selection(n >= 2)
            scatter, nu = self.feature_scatter_[several], (n[several] - 1).astype(float)
            pm.CustomDist(
                "scatter",
                nu,
                factor[several],
                log_root_det[several],
                wishart_data_term(scatter, nu),
                logp=wishart_logp,
                random=wishart_random,
                signature="(),(p,p),(),()->(p,p)",
                observed=scatter,
            )

    def _sampling_model(self):
        """The counts form with NUTS's coordinates in the closed-form posterior's frame: the
        precision's Bartlett factor relative to Ψ' (``posterior_frame_factor``) and the class means
        non-centred, μ_k = m'_k + F_k⁻ᵀ e_k / √κ'_k. Its log density is the counts form's (the
        same priors and observations, written through F) plus the Jacobian of e ↦ μ,
        −Σ_i log F_ii − (p/2) log κ'_k per class, so its posterior is the counts form's; the
        whitened residuals are Fᵀ(μ − a) = Fᵀ(m' − a) ± e/√κ', with no inverse in the gradient.
        Under the NIW posterior the free variables are independent, e standard normal: NUTS
        meets neither the funnel of μ given Σ nor the correlations of the prior's Bartlett
        coordinates, which on a few rows per class (heights-weights) gave divergent transitions.
        """
        import pymc as pm
        import pytensor.tensor as pt

        prior, posterior = self._prior, self.posterior_
        p = self.n_features_in_
        with pm.Model(coords=self._coords()) as model:
            self._class_model(model, observe_counts=True)
            factor, log_root_det, log_density = posterior_frame_factor(
                "precision", prior.nu, prior.psi, posterior.nu, posterior.psi
            )
            pm.Deterministic("cov", pt.linalg.inv(pt.matmul(factor, factor.mT)), dims=self._cov_dims())
            whitened = pm.Flat("class_mean_whitened", dims=("class", "feature"))
            shift = whitened / np.sqrt(posterior.kappa)[:, None]  # Fᵀ(μ − m')
            if self.shared_covariance:
                factor, log_root_det = (
                    pt.broadcast_to(factor, (len(self.classes_), p, p)),
                    pt.broadcast_to(log_root_det, (len(self.classes_),)),
                )
            pm.Deterministic(
                "class_mean", posterior.m + _transpose_times(pt.linalg.inv(factor), shift), dims=("class", "feature")
            )
            log_density += (
                whitened_normal_logp(_transpose_times(factor, posterior.m - prior.m) + shift, prior.kappa, log_root_det)
                - log_root_det
                - 0.5 * p * np.log(posterior.kappa)
            ).sum()
            n = integer_counts(self.class_count_, "class counts")
            seen = _selection(n >= 1)
            residual = _transpose_times(factor[seen], self.feature_mean_[seen] - posterior.m[seen]) - shift[seen]
            log_density += whitened_normal_logp(residual, n[seen].astype(float), log_root_det[seen]).sum()
            if self.shared_covariance:
                pooled, nu = self.feature_scatter_.sum(axis=0), float(n.sum() - np.count_nonzero(n))
                log_density += wishart_logp(pooled, nu, factor[0], log_root_det[0], wishart_data_term(pooled, nu))
            else:
                several = _selection(n >= 2)
                scatter, nu = self.feature_scatter_[several], (n[several] - 1).astype(float)
                log_density += wishart_logp(
                    scatter, nu, factor[several], log_root_det[several], wishart_data_term(scatter, nu)
                ).sum()
            pm.Potential("log_density", log_density)
        return model

    def _without_auxiliary_draws(self, posterior):
        """The draws without ``_sampling_model``'s free coordinates (its Bartlett variables
        ``precision_c``/``precision_z`` stay, as the counts form's forward sampling reads them).
        """
        posterior = super()._without_auxiliary_draws(posterior)
        names = [name for name in SAMPLING_COORDINATES if name in posterior.data_vars]
        dims = {dim for name in names for dim in posterior[name].dims[2:]} - {"class", "feature"}
        return posterior.drop_vars(names + [dim for dim in dims if dim in posterior.coords])

    def _rows_model(self, model, X, class_index):
        """y_i ~ Categorical(π); x_i ~ N(μ_{y_i}, Σ_{y_i})."""
        import pymc as pm
        import pytensor.tensor as pt

        class_prob = self._class_model(model, observe_counts=False)
        means, cov, (factor, _) = self._feature_priors()
        model.add_coord("row", np.arange(len(class_index)))
        y = pm.Categorical("y", p=class_prob, observed=class_index, dims="row")
        if self.shared_covariance:
            pm.MvNormal("x", mu=means[y], tau=pt.matmul(factor, factor.T), observed=X, dims=("row", "feature"))
        else:
            pm.MvNormal("x", mu=means[y], cov=cov[y], observed=X, dims=("row", "feature"))


class LDA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, _DiscriminantAnalysis):
    r"""Linear discriminant analysis: Gaussian classes sharing one covariance matrix, with a
    Normal–Inverse-Wishart prior.

    Each class is a multivariate Normal with its own mean and a covariance Σ shared by all
    classes (the classes' scatter is pooled), so the plug-in decision boundaries are linear. The
    conjugate prior is weakly informative and scaled to the data by default. Besides prediction,
    ``transform`` is Fisher's discriminant projection and ``coef_``/``intercept_`` the linear rule.

    Parameters
    ----------
    class_alpha : float, array-like of shape (n_classes,) or "evidence", default=1.0
        Dirichlet concentration of the class probabilities (≥ 0); "evidence" learns it.
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters predictions plug in (see Notes); each prediction method also takes it per call.
    prior_mean : array-like of shape (n_features,), default=None
        m0, the prior mean of the class means; None: the overall mean of each feature.
    mean_strength : float > 0 or "evidence", default=0.01
        κ0, the prior mean's weight in rows.
    prior_cov : array-like of shape (n_features, n_features) or "evidence", default=None
        The prior mean of Σ; None: the diagonal of the overall variances; "evidence": a learned
        diagonal.
    cov_strength : float or "evidence", default=None
        ν0, the prior covariance's weight in rows (> p − 1); None: p + 2, so that the prior mean
        of Σ exists and is ``prior_cov``.
    reg_param : float in [0, 1], default=0.0
        Plug-in covariances are shrunk to (1 − r)Σ + rI.
    shrinkage : None, "auto", "oas" or float in [0, 1], default=None
        The plug-in covariance of ``estimate="mle"`` shrunk towards μI (μ its mean eigenvalue):
        each class's empirical covariance C_k = S_k/n_k becomes (1 − s) C_k + s μ_k I with s the
        number given, Ledoit–Wolf's on the standardised features ("auto", as scikit-learn's
        ``LinearDiscriminantAnalysis(shrinkage="auto")``) or the oracle approximating shrinkage
        ("oas"); LDA pools them as Σ_k (n_k/N) C_k, QDA keeps one per class. Needs
        ``estimate="mle"``: the posterior estimates keep the Normal–Inverse-Wishart prior, itself
        a shrinkage (Notes). "auto" keeps each class's third and fourth co-moments too (merged
        across ``partial_fit`` batches; a Dask fit does not merge them, and scoring it raises).
    covariance_estimator : scikit-learn covariance estimator or None, default=None
        Instead of ``shrinkage``: a clone fitted to each class's rows gives its ``covariance_``.
        It sees each class's rows once, all together: a class cannot get rows in a second
        ``partial_fit`` batch, sample_weight must be 0 or 1, and no Dask.
    n_components : int or None, default=None
        d, the number of discriminant directions ``transform`` keeps: 1 ≤ d ≤ min(K − 1, p)
        (None: min(K − 1, p)).
    class_prior : array-like of shape (n_classes,), default=None
        A prevalence-shift correction: predictions use these class probabilities (in the order of
        ``classes_``) in place of the class-probability posterior, under every estimate;
        ``set_class_prior`` changes them on a fitted model without refitting. None: the posterior.
        ``loo`` ignores it. The pooled covariance keeps its n_k/N weights (scikit-learn's ``priors``
        reweight it too, so the two differ unless the prior is n_k/N).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        n_k, the (weighted) number of training rows of each class.
    class_concentration_ : ndarray of shape (n_classes,)
        The posterior Dirichlet concentration of the class probabilities, class_alpha + n_k.
    feature_mean_ : ndarray of shape (n_classes, n_features)
        x̄_k, each class's mean vector.
    feature_scatter_ : ndarray of shape (n_classes, n_features, n_features)
        S_k = Σ_{i in k} (x_i − x̄_k)(x_i − x̄_k)ᵀ, each class's scatter matrix.
    within_class_scatter_ : ndarray of shape (n_features, n_features)
        S_W = Σ_k S_k.
    between_class_scatter_ : ndarray of shape (n_features, n_features)
        S_B = Σ_k n_k (x̄_k − x̄)(x̄_k − x̄)ᵀ, x̄ the overall mean.
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        θ_k = Σ⁻¹ μ_k of the plug-in linear rule for the estimate in use (two classes:
        θ = Σ⁻¹(μ_1 − μ_0)).
    intercept_ : ndarray of shape (n_classes,), or (1,) for two classes
        θ_k0 = −½ μ_kᵀ Σ⁻¹ μ_k + log π_k (two classes: the difference, so that
        P(y = 1 | x) = σ(θᵀx + θ_0)).
    scalings_ : ndarray of shape (n_features, n_components)
        Fisher's discriminant directions W, scaled so that the projected classes have identity
        within-class covariance; with ``estimate="mle"`` scikit-learn's ``solver="svd"`` ones up to sign.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        The share λ_j / Σ_i λ_i of the between-class variance along each direction.
    posterior_ : NormalInverseWishart
        The closed-form posterior of the class means and the covariance.
    n_features_in_ : int
        The number of features p seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.
    mean_strength_, cov_strength_, prior_cov_, class_alpha_ : float or ndarray
        The values learned where "evidence" was asked for.

    See Also
    --------
    QDA : One covariance matrix per class.
    GaussianNB : Independent features.
    LogisticRegression : The discriminative counterpart of a linear rule.

    Notes
    -----
    The generative model, for classes k = 1..K and p features:

    .. math::

        \pi \sim \mathrm{Dirichlet}(\alpha_c), \quad
        \Sigma \sim \mathrm{InvWishart}(\nu_0, \Psi_0), \quad
        \mu_k \mid \Sigma \sim \mathcal N(m_0, \Sigma/\kappa_0), \quad
        x_i \mid y_i = k \sim \mathcal N(\mu_k, \Sigma).

    The posterior is Normal–Inverse-Wishart: κ'_k = κ0 + n_k, m'_k = (κ0 m0 + n_k x̄_k)/κ'_k,
    ν' = ν0 + N, Ψ' = Ψ0 + Σ_k [S_k + κ0 n_k/κ'_k (x̄_k − m0)(x̄_k − m0)ᵀ]. The estimates are
    ``"mean"``: (m'_k, Ψ'/(ν' − p − 1)); ``"map"``, the joint mode: (m'_k, Ψ'/(ν' + p + 1 + K));
    ``"mle"``: (x̄_k, S_W/N); and ``"predictive"`` is the exact multivariate Student-t posterior
    predictive. By default m0 is the overall mean, κ0 = 0.01, Ψ0 the diagonal of the overall
    variances and ν0 = p + 2, so the prior mean of Σ is that diagonal. "evidence" maximises the
    closed-form NIW marginal likelihood (:meth:`log_evidence`).

    Projection: the directions are the top d generalised eigenvectors of B w = λ Σ̂ w, B the
    class means' scatter about their n_k/N-weighted mean x̄, scaled to wᵀ Σ̂ w = 1, so that
    ``transform(X)`` = (X − x̄) W; ``posterior_scalings`` gives one projection per exact NIW draw.

    Shrinkage: the NIW posterior mean of Σ is
    E[Σ | D] = (Ψ0 + S + B)/(ν0 + n − p − 1) = w Ψ0/(ν0 − p − 1) + (1 − w) S/n + B/(ν0 + n − p − 1),
    w = (ν0 − p − 1)/(ν0 + n − p − 1): a convex combination of the prior mean of Σ and the sample
    covariance. Ledoit–Wolf and OAS take the same form with the target μI and a weight estimated
    from the data; here the target is the prior's and the weight is set by ``cov_strength``
    (worth ν0 − p − 1 rows), or chosen by maximising the marginal likelihood
    (``cov_strength="evidence"``).

    References
    ----------
    .. [1] K. P. Murphy, *Machine Learning: A Probabilistic Perspective*, MIT Press, 2012,
       sections 4.2 (Gaussian discriminant analysis) and 4.6.3 (the Normal–Inverse-Wishart posterior).
    .. [2] R. A. Fisher, "The use of multiple measurements in taxonomic problems", *Annals of
       Eugenics* 7(2), 179–188, 1936.
    .. [3] O. Ledoit and M. Wolf, "A well-conditioned estimator for large-dimensional covariance
       matrices", *Journal of Multivariate Analysis* 88(2), 365–411, 2004.
    .. [4] Y. Chen, A. Wiesel, Y. C. Eldar and A. O. Hero, "Shrinkage algorithms for MMSE covariance
       estimation", *IEEE Transactions on Signal Processing* 58(10), 5016–5029, 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import LDA
    >>> X = np.array([[1.0, 2.1], [1.2, 1.9], [0.8, 2.0], [3.0, 0.9], [3.3, 1.1], [2.9, 1.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> model = LDA().fit(X, y)
    >>> model.predict_proba(np.array([[2.0, 1.5]])).round(3)
    array([[0.592, 0.408]])
    >>> model.transform(X[:2]).round(3)
    array([[3.749],
           [2.738]])
    >>> np.diag(model.analytic_posterior("mean")["cov"].values).round(3)
    array([0.183, 0.043])
    """

    shared_covariance = True

    def __init__(
        self,
        class_alpha=1.0,
        estimate="mean",
        prior_mean=None,
        mean_strength=0.01,
        prior_cov=None,
        cov_strength=None,
        reg_param=0.0,
        shrinkage=None,
        covariance_estimator=None,
        n_components=None,
        class_prior=None,
    ):
        super().__init__(
            class_alpha=class_alpha,
            estimate=estimate,
            prior_mean=prior_mean,
            mean_strength=mean_strength,
            prior_cov=prior_cov,
            cov_strength=cov_strength,
            reg_param=reg_param,
            shrinkage=shrinkage,
            covariance_estimator=covariance_estimator,
            class_prior=class_prior,
        )
        self.n_components = n_components

    @single_blas_thread  # the (N × p)(p × K) product: slower on two OpenBLAS threads (BENCHMARKS.md, "Against scikit-learn")
    def _log_posterior_scores(self, X, estimate):
        """Under a plug-in estimate, the linear discriminants (x − c)ᵀ Σ⁻¹(μ_k − c) − ½‖L⁻¹(μ_k − c)‖²
        + log π_k, c the mean of the class means: log p(x, y = k) less −½‖L⁻¹(x − c)‖² and the
        normalising constant, the same for every class. One (N × p)(p × K) product instead of
        every row's whitening; ``predict_joint_log_proba`` keeps the exact density.
        """
        check_is_fitted(self, "classes_")
        estimate = self._estimate(estimate)
        if estimate not in ("mean", "map", "mle"):
            return super()._log_posterior_scores(X, estimate)
        X = self._encode(as_array_like(X), reset=False, training=False)
        means, cov = self._point(estimate)
        chol = self._cholesky(cov, estimate, means)[0]
        centre = means.mean(axis=0)
        whitened_means = scipy.linalg.solve_triangular(chol, (means - centre).T, lower=True)  # L⁻¹(μ_k − c), p × K
        coef = scipy.linalg.solve_triangular(chol, whitened_means, lower=True, trans="T")  # Σ⁻¹(μ_k − c)
        class_prob = self._class_probabilities(estimate)
        offsets = log_probabilities(class_prob) - 0.5 * (whitened_means**2).sum(axis=0) - centre @ coef
        # xᵀθ_k − cᵀθ_k rather than (x − c)ᵀθ_k: no N × p temporary (whose fresh pages cost as much
        # as the product); the two differ by rounding of |x|·|θ_k|·ε, the order of the input's own
        # rounding at a location of 1e8 sds
        return add_per_class(rows_times(X, coef), offsets)

    def _linear_rule(self):
        estimate = self.estimate if self.estimate != "predictive" else None
        if estimate is None:
            raise ValueError(
                "coef_/intercept_ describe a plug-in rule; estimate='predictive' (Student-t) is not linear"
            )
        means, cov = self._point(estimate)
        class_prob = self._class_probabilities(estimate)
        weights = np.linalg.solve(cov, means.T).T  # Σ⁻¹ μ_k
        with np.errstate(divide="ignore"):
            offsets = -0.5 * np.einsum("kp,kp->k", means, weights) + np.log(class_prob)
        if len(self.classes_) == 2:
            return weights[1:] - weights[:1], offsets[1:] - offsets[:1]
        return weights, offsets

    @property
    def coef_(self):
        """θ_k = Σ⁻¹ μ_k (binary: θ = Σ⁻¹(μ_1 − μ_0), one row), for the estimate in use."""
        return self._linear_rule()[0]

    @property
    def intercept_(self):
        """θ_k0 = −½ μ_kᵀ Σ⁻¹ μ_k + log π_k (binary: the difference, so P(y=1|x) = σ(θᵀx + θ_0))."""
        return self._linear_rule()[1]

    @property
    def within_class_scatter_(self):
        """S_W = Σ_k Σ_{i in k} (x_i − x̄_k)(x_i − x̄_k)ᵀ."""
        return self.feature_scatter_.sum(axis=0)

    @property
    def between_class_scatter_(self):
        """S_B = Σ_k n_k (x̄_k − x̄)(x̄_k − x̄)ᵀ, x̄ the overall mean."""
        overall = self.class_count_ @ self.feature_mean_ / self.class_count_.sum()
        deviation = self.feature_mean_ - overall
        return (self.class_count_[:, None] * deviation).T @ deviation

    def _init_counts(self, X, class_index, weight):
        self._n_components()  # checked with the classes known, before any counting
        super()._init_counts(X, class_index, weight)

    def _n_components(self) -> int:
        """d: ``n_components``, or min(K − 1, p), checked to be at most that."""
        limit = min(len(self.classes_) - 1, self.n_features_in_)
        if self.n_components is None:
            return limit
        n = self.n_components
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or not 1 <= n <= limit:
            raise ValueError(
                f"n_components must be an integer from 1 to min(K − 1, p) = {limit} "
                f"({len(self.classes_)} classes, {self.n_features_in_} features), got {n!r}"
            )
        return int(n)

    def _projection(self, means, cov):
        """(x̄, eigenvalues, eigenvectors) of B w = λ Σ w, B = Σ_k (n_k/N)(μ_k − x̄)(μ_k − x̄)ᵀ,
        x̄ = Σ_k (n_k/N) μ_k, the eigenvectors scaled to wᵀ Σ w = 1, the largest λ first.
        """
        weights = self.class_count_ / self.class_count_.sum()
        overall = weights @ means
        deviation = means - overall
        values, vectors = scipy.linalg.eigh((weights[:, None] * deviation).T @ deviation, cov)
        order = np.argsort(values)[::-1]
        return overall, values[order], vectors[:, order]

    def _plug_in_projection(self):
        check_is_fitted(self, "classes_")
        return self._projection(*self._point("mean" if self.estimate == "predictive" else self.estimate))

    @property
    def scalings_(self):
        """(p, d) W: the discriminant directions, columns scaled to wᵀ Σ̂ w = 1."""
        return self._plug_in_projection()[2][:, : self._n_components()]

    @property
    def explained_variance_ratio_(self):
        """(d,) each direction's share λ_j / Σ_i λ_i of the between-class variance (in units of Σ̂)."""
        _, values, _ = self._plug_in_projection()
        return (values / values.sum())[: self._n_components()]

    @property
    def _n_features_out(self):
        check_is_fitted(self, "classes_")
        return self._n_components()

    def transform(self, X):
        """Fisher's discriminant projection under the fitted model: (X − x̄) W, W =
        ``scalings_`` (the top d generalised eigenvectors of B w = λ Σ̂ w, with Σ̂ and the class
        means of the estimate in use, "mean" for "predictive", and B their weighted scatter about
        x̄), so the classes' common covariance becomes I. With estimate="mle", Σ̂ = S_W / N and
        the directions are Fisher's, W ∝ S_W⁻¹(m_1 − m_2) for two classes; under a proper prior
        Σ̂ is positive definite even where S_W is singular.
        """
        X = self._encode(as_array_like(X), reset=False, training=False)
        overall, _, vectors = self._plug_in_projection()
        return (X - overall) @ vectors[:, : self._n_components()]

    def posterior_scalings(self, n_draws=200, random_seed=None):
        """(n_draws, p, d) the discriminant directions ``scalings_`` under exact posterior draws
        (μ_1..μ_K, Σ) of the Normal–Inverse-Wishart posterior: draw s projects by
        (x − x̄_s) W_s. Each column's sign is chosen so that it points the way of the plug-in
        direction (wᵀ Σ̂ w_s ≥ 0), which eigenvectors leave free: their mean and spread then
        show how well the data determine each direction.
        """
        check_is_fitted(self, "classes_")
        n_draws = check_n_draws(n_draws, "n_draws")
        d = self._n_components()
        _, cov = self._point("mean" if self.estimate == "predictive" else self.estimate)
        reference = self.scalings_
        draws = self.posterior_.sample(n_draws, np.random.default_rng(random_seed))
        result = np.empty((n_draws, self.n_features_in_, d))
        for s in range(n_draws):
            vectors = self._projection(draws["mu"][s], draws["cov"][s])[2][:, :d]
            signs = np.where(np.einsum("pd,pq,qd->d", reference, cov, vectors) < 0, -1.0, 1.0)
            result[s] = vectors * signs
        return result


class QDA(_DiscriminantAnalysis):
    r"""Quadratic discriminant analysis: one covariance matrix per class, with independent
    Normal–Inverse-Wishart priors.

    Each class is a multivariate Normal with its own mean and covariance, so the plug-in decision
    boundaries are quadratic. The parameters are those of :class:`LDA`.

    Parameters
    ----------
    class_alpha : float, array-like of shape (n_classes,) or "evidence", default=1.0
        Dirichlet concentration of the class probabilities (≥ 0); "evidence" learns it.
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters predictions plug in (see Notes); each prediction method also takes it per call.
    prior_mean : array-like of shape (n_features,), default=None
        m0, the prior mean of the class means; None: the overall mean of each feature.
    mean_strength : float > 0 or "evidence", default=0.01
        κ0, the prior mean's weight in rows.
    prior_cov : array-like of shape (n_features, n_features) or "evidence", default=None
        The prior mean of each Σ_k; None: the diagonal of the overall variances; "evidence": a
        learned diagonal.
    cov_strength : float or "evidence", default=None
        ν0, the prior covariance's weight in rows (> p − 1); None: p + 2.
    reg_param : float in [0, 1], default=0.0
        Plug-in covariances are shrunk to (1 − r)Σ_k + rI.
    shrinkage : None, "auto", "oas" or float in [0, 1], default=None
        The plug-in covariance of ``estimate="mle"`` shrunk towards μI (μ its mean eigenvalue):
        each class's empirical covariance C_k = S_k/n_k becomes (1 − s) C_k + s μ_k I with s the
        number given, Ledoit–Wolf's on the standardised features ("auto", as scikit-learn's
        ``LinearDiscriminantAnalysis(shrinkage="auto")``) or the oracle approximating shrinkage
        ("oas"); LDA pools them as Σ_k (n_k/N) C_k, QDA keeps one per class. Needs
        ``estimate="mle"``: the posterior estimates keep the Normal–Inverse-Wishart prior, itself
        a shrinkage (Notes). "auto" keeps each class's third and fourth co-moments too (merged
        across ``partial_fit`` batches; a Dask fit does not merge them, and scoring it raises).
    covariance_estimator : scikit-learn covariance estimator or None, default=None
        Instead of ``shrinkage``: a clone fitted to each class's rows gives its ``covariance_``.
        It sees each class's rows once, all together: a class cannot get rows in a second
        ``partial_fit`` batch, sample_weight must be 0 or 1, and no Dask.
    class_prior : array-like of shape (n_classes,), default=None
        A prevalence-shift correction: predictions use these class probabilities (in the order of
        ``classes_``) in place of the class-probability posterior, under every estimate;
        ``set_class_prior`` changes them on a fitted model without refitting. None: the posterior.
        ``loo`` ignores it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        n_k, the (weighted) number of training rows of each class.
    class_concentration_ : ndarray of shape (n_classes,)
        The posterior Dirichlet concentration of the class probabilities, class_alpha + n_k.
    feature_mean_ : ndarray of shape (n_classes, n_features)
        x̄_k, each class's mean vector.
    feature_scatter_ : ndarray of shape (n_classes, n_features, n_features)
        S_k = Σ_{i in k} (x_i − x̄_k)(x_i − x̄_k)ᵀ, each class's scatter matrix.
    posterior_ : NormalInverseWishart
        The closed-form posterior of every class's mean and covariance.
    n_features_in_ : int
        The number of features p seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.
    mean_strength_, cov_strength_, prior_cov_, class_alpha_ : float or ndarray
        The values learned where "evidence" was asked for.

    See Also
    --------
    LDA : One covariance matrix shared by the classes.
    GaussianNB : Independent features.

    Notes
    -----
    The generative model, for classes k = 1..K and p features:

    .. math::

        \pi \sim \mathrm{Dirichlet}(\alpha_c), \quad
        \Sigma_k \sim \mathrm{InvWishart}(\nu_0, \Psi_0), \quad
        \mu_k \mid \Sigma_k \sim \mathcal N(m_0, \Sigma_k/\kappa_0), \quad
        x_i \mid y_i = k \sim \mathcal N(\mu_k, \Sigma_k).

    Each class's posterior is Normal–Inverse-Wishart: κ'_k = κ0 + n_k,
    m'_k = (κ0 m0 + n_k x̄_k)/κ'_k, ν'_k = ν0 + n_k,
    Ψ'_k = Ψ0 + S_k + κ0 n_k/κ'_k (x̄_k − m0)(x̄_k − m0)ᵀ. The estimates are ``"mean"``:
    (m'_k, Ψ'_k/(ν'_k − p − 1)); ``"map"``, the joint mode: (m'_k, Ψ'_k/(ν'_k + p + 2));
    ``"mle"``: (x̄_k, S_k/n_k); and ``"predictive"`` is the exact multivariate Student-t posterior
    predictive. Defaults and "evidence" as for :class:`LDA`.

    Shrinkage: the NIW posterior mean of Σ is
    E[Σ | D] = (Ψ0 + S + B)/(ν0 + n − p − 1) = w Ψ0/(ν0 − p − 1) + (1 − w) S/n + B/(ν0 + n − p − 1),
    w = (ν0 − p − 1)/(ν0 + n − p − 1): a convex combination of the prior mean of Σ and the sample
    covariance. Ledoit–Wolf and OAS take the same form with the target μI and a weight estimated
    from the data; here the target is the prior's and the weight is set by ``cov_strength``
    (worth ν0 − p − 1 rows), or chosen by maximising the marginal likelihood
    (``cov_strength="evidence"``).

    References
    ----------
    .. [1] K. P. Murphy, *Machine Learning: A Probabilistic Perspective*, MIT Press, 2012,
       sections 4.2 (Gaussian discriminant analysis) and 4.6.3 (the Normal–Inverse-Wishart posterior).
    .. [2] O. Ledoit and M. Wolf, "A well-conditioned estimator for large-dimensional covariance
       matrices", *Journal of Multivariate Analysis* 88(2), 365–411, 2004.
    .. [3] Y. Chen, A. Wiesel, Y. C. Eldar and A. O. Hero, "Shrinkage algorithms for MMSE covariance
       estimation", *IEEE Transactions on Signal Processing* 58(10), 5016–5029, 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import QDA
    >>> X = np.array([[1.0, 2.1], [1.2, 1.9], [0.8, 2.0], [3.0, 0.9], [3.3, 1.4], [2.5, 1.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> model = QDA().fit(X, y)
    >>> model.predict_proba(np.array([[2.0, 1.5]])).round(3)
    array([[0.332, 0.668]])
    >>> model.analytic_posterior("mean")["cov"].sizes
    Frozen({'class': 2, 'feature_i': 2, 'feature_j': 2})
    """

    shared_covariance = False
