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
Σ_k, N = n_k), with one shared κ0 and ν0 and, for "prior_cov", Ψ0 = diag(c_j v_j), v_j the
overall variance of feature j and c_j learned; m0 stays the overall mean. The constraint is
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
from sklearn.base import TransformerMixin
from sklearn.utils.validation import check_is_fitted

from pgm_models._utils.scores import add_per_class
from pgm_models._utils.threads import single_blas_thread
from pgm_models._utils.validation import as_array_like
from pgm_models.base import Marginal, integer_counts
from pgm_models.conjugate import log_probabilities
from pgm_models.conjugate import normal
from pgm_models.conjugate.normal import NormalInverseWishart
from pgm_models.model_selection.evidence import EVIDENCE, check_option
from pgm_models.gaussian._base import GaussianClassifier
from pgm_models.gaussian._precision_factor import (_transpose_times, bartlett_factor, normal_logp, normal_random,
                                                   posterior_frame_factor, whitened_normal_logp, wishart_data_term, wishart_logp,
                                                   wishart_random)

COV_DIMS_SHARED = ("feature_i", "feature_j")
# the free variables of the model NUTS samples (``_sampling_model``), left out of its draws
SAMPLING_COORDINATES = ("precision_log_diag", "precision_below", "class_mean_whitened")


def _selection(mask: np.ndarray):
    """The classes where ``mask`` holds, as a slice when that is all of them: a fancy index's
    gradient has no C code in PyTensor."""
    return slice(None) if mask.all() else np.flatnonzero(mask)


class _DiscriminantAnalysis(GaussianClassifier):
    _template = True
    full_scatter = True
    shared_covariance: bool
    evidence_parameters = ("mean_strength", "cov_strength", "prior_cov")

    def __init__(self, class_alpha=1.0, estimate="mean", prior_mean=None, mean_strength=0.01,
                 prior_cov=None, cov_strength=None, reg_param=0.0):
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.prior_mean = prior_mean
        self.mean_strength = mean_strength
        self.prior_cov = prior_cov
        self.cov_strength = cov_strength
        self.reg_param = reg_param

    def _set_prior(self, data_mean, data_var):
        self._check_reg_param()
        p, n_classes = len(data_mean), len(self.classes_)
        learn_scale = isinstance(self.prior_cov, str)
        if learn_scale:
            check_option(self.prior_cov, "prior_cov", (EVIDENCE,), f"a {p}×{p} matrix, or None")
            guess = data_var  # Ψ0 = diag(c_j v_j)
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
            offset, strength = 0, float(p + 2) if self.cov_strength is None else self._check_strength("cov_strength", minimum=p - 1)
        self._prior_reference = np.broadcast_to(self._prior_location(data_mean), (n_classes, p)), guess, offset
        self._start_prior({"mean_strength": self._hyperparameter("mean_strength", 0.01), "cov_strength": strength,
                           "prior_cov": np.ones(p)})

    def _prior_psi(self, values):
        """(ν0, Ψ0): Ψ0 = diag(c_j v_j) when the scale is learned, else (ν0 − p − 1) × prior_cov
        (prior_cov itself where ν0 ≤ p + 1)."""
        _, guess, offset = self._prior_reference
        p, nu = len(guess), offset + values["cov_strength"]
        if guess.ndim == 1:
            return nu, np.diag(values["prior_cov"] * guess)
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
        ∂/∂Ψ (M); ∂/∂c_j = M_jj v_j; a fixed prior_cov adds tr(M prior_cov) to ∂/∂ν0."""
        _, guess, _ = self._prior_reference
        matrix = gradient["psi"] if self.shared_covariance else gradient["psi"].sum(axis=0)
        nu, _ = self._prior_psi(values)
        d_nu = np.sum(gradient["nu"])
        if guess.ndim == 2 and nu > len(guess) + 1:
            d_nu += np.sum(matrix * guess)
        result = {"mean_strength": gradient["kappa"].sum(), "cov_strength": d_nu}
        if guess.ndim == 1:
            result["prior_cov"] = np.diagonal(matrix) * guess
        return result

    def _learned_attributes(self) -> dict:
        nu, psi = self._prior_psi(self._prior_values)
        p = len(psi)
        return {"mean_strength": float(self._prior_values["mean_strength"]), "cov_strength": float(nu),
                "prior_cov": psi / (nu - p - 1) if nu > p + 1 else psi}

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
            means, cov = self.feature_mean_, self._mle_cov()
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
        if isinstance(r, (bool, np.bool_)) or not (np.isscalar(r) and np.isreal(r) and 0 <= r <= 1):
            raise ValueError(f"reg_param must be a number in [0, 1] (the weight of I in (1 − r)Σ + rI), got {r!r}")
        return float(r)

    def _cholesky(self, cov, estimate):
        """Cholesky factors, one per covariance, with an error that names the singular one."""
        covs = cov[None] if cov.ndim == 2 else cov
        factors = []
        for k, matrix in enumerate(covs):
            try:
                factors.append(np.linalg.cholesky(matrix))
            except np.linalg.LinAlgError:
                which = "the pooled covariance" if cov.ndim == 2 else f"the covariance of class {self._class_label(k)!r}"
                rows = self.class_count_.sum() if cov.ndim == 2 else self.class_count_[k]
                raise ValueError(
                    f"{which} is singular under estimate={estimate!r} ({rows:g} rows for {matrix.shape[0]} features, "
                    "or a constant feature); use estimate='mean'/'map' (the prior keeps it positive definite) "
                    "or reg_param > 0"
                ) from None
        return np.stack(factors)

    @single_blas_thread  # (N × p)(p × p) products: two OpenBLAS threads took 2–9× as long (BENCHMARKS.md)
    def _feature_log_likelihood(self, X, estimate):
        if estimate == "predictive":
            return self.posterior_.log_predictive(X)
        means, cov = self._point(estimate)
        chol = self._cholesky(cov, estimate)
        p = means.shape[1]
        log_det = np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)  # ½ log|Σ_k|
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
            # per class, whiten the centred rows with L_k⁻¹ (a p × p triangular inverse, then one
            # row-major product: solving for the transposed rows copies them), a chunk of rows at a time;
            # LAPACK's inverse of a triangle comes in Fortran order, so its transpose is the row-major
            # right operand (scipy's solve_triangular checked its input for 30 µs a class)
            inverses = [scipy.linalg.lapack.dtrtri(factor, lower=1)[0].T for factor in chol]
            mahalanobis = np.empty((len(X), len(means)))
            rows = max(1, min(len(X), normal.WORK_ROWS))  # 10 000 × 20, 3 classes: the distances 3.0 → 1.1 ms
            mean_rows, centred, z, squared = np.empty((rows, p)), np.empty((rows, p)), np.empty((rows, p)), np.empty(rows)
            ones = np.ones(p)
            for k, inverse in enumerate(inverses):
                # the class mean written into every row once, so that centring a chunk is elementwise (a
                # (p,) row broadcast over it loops once per row: 2 048 × 20 took 18 µs, elementwise 8)
                mean_rows[:] = means[k]
                for start in range(0, len(X), rows):
                    chunk = X[start : start + rows]
                    n = len(chunk)
                    np.subtract(chunk, mean_rows[:n], out=centred[:n])
                    np.matmul(centred[:n], inverse, out=z[:n])
                    z[:n] *= z[:n]
                    np.matmul(z[:n], ones, out=squared[:n])  # the rows' sums of squares: one pass, einsum's took 1.5 times as long
                    mahalanobis[start : start + n, k] = squared[:n]
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
        return {"class_mean": (Marginal(joint, "mu"), ("class", "feature")), "cov": (Marginal(joint, "cov"), self._cov_dims())}

    def _check_proper_prior(self):
        super()._check_proper_prior()
        nu = np.atleast_1d(self._prior.nu)
        if np.any(nu <= self.n_features_in_ - 1):
            raise ValueError(f"cov_strength={self.cov_strength!r} must exceed p − 1 = {self.n_features_in_ - 1} for a proper prior")

    def _feature_priors(self):
        """(class means (K, p), Bartlett factor F of the precision(s): (p, p) for LDA, (K, p, p)
        for QDA) of the PyMC model; ``cov`` = (F Fᵀ)⁻¹ is a deterministic."""
        import pymc as pm
        import pytensor.tensor as pt

        prior = self._prior
        factor, log_root_det = bartlett_factor("precision", prior.nu, prior.psi)
        cov = pm.Deterministic("cov", pt.linalg.inv(pt.matmul(factor, factor.mT)), dims=self._cov_dims())
        means = pm.CustomDist("class_mean", prior.m, prior.kappa, factor, log_root_det, logp=normal_logp, random=normal_random,
                              support_point=lambda rv, size, mu, *_: pt.broadcast_to(mu, rv.shape),
                              signature="(p),(),(p,p),()->(p)", dims=("class", "feature"))
        return means, cov, (factor, log_root_det)

    def _counts_model(self, model):
        """N_k ~ Multinomial(N, π); x̄_k ~ N(μ_k, Σ_k/n_k); scatter ~ Wishart(n − 1, Σ) per class
        of two or more rows (QDA) or pooled Σ_k S_k ~ Wishart(N − K, Σ) (LDA). A scatter with no
        Wishart density (n − 1 < p, or a feature constant within a class) is observed through its
        likelihood kernel in Σ (``wishart_data_term``): the same posterior as the rows form's."""
        import pymc as pm

        self._class_model(model, observe_counts=True)
        means, cov, (factor, log_root_det) = self._feature_priors()
        n = integer_counts(self.class_count_, "class counts")
        seen = _selection(n >= 1)
        precision = (factor, log_root_det) if self.shared_covariance else (factor[seen], log_root_det[seen])
        pm.CustomDist("sample_mean", means[seen], n[seen].astype(float), *precision, logp=normal_logp, random=normal_random,
                      signature="(p),(),(p,p),()->(p)", observed=self.feature_mean_[seen])
        if self.shared_covariance:
            pooled, nu = self.feature_scatter_.sum(axis=0), float(n.sum() - np.count_nonzero(n))
            pm.CustomDist("pooled_scatter", nu, factor, log_root_det, wishart_data_term(pooled, nu),
                          logp=wishart_logp, random=wishart_random, signature="(),(p,p),(),()->(p,p)", observed=pooled)
        else:  # a class of one row has a scatter of 0 with ν = 0: nothing to observe
            several = _selection(n >= 2)
            scatter, nu = self.feature_scatter_[several], (n[several] - 1).astype(float)
            pm.CustomDist("scatter", nu, factor[several], log_root_det[several], wishart_data_term(scatter, nu),
                          logp=wishart_logp, random=wishart_random, signature="(),(p,p),(),()->(p,p)", observed=scatter)

    def _sampling_model(self):
        """The counts form with NUTS's coordinates in the closed-form posterior's frame: the
        precision's Bartlett factor relative to Ψ' (``posterior_frame_factor``) and the class means
        non-centred, μ_k = m'_k + F_k⁻ᵀ e_k / √κ'_k. Its log density is the counts form's (the
        same priors and observations, written through F) plus the Jacobian of e ↦ μ,
        −Σ_i log F_ii − (p/2) log κ'_k per class, so its posterior is the counts form's; the
        whitened residuals are Fᵀ(μ − a) = Fᵀ(m' − a) ± e/√κ', with no inverse in the gradient.
        Under the NIW posterior the free variables are independent, e standard normal: NUTS
        meets neither the funnel of μ given Σ nor the correlations of the prior's Bartlett
        coordinates, which on a few rows per class (heights-weights) gave divergent transitions."""
        import pymc as pm
        import pytensor.tensor as pt

        prior, posterior = self._prior, self.posterior_
        p = self.n_features_in_
        with pm.Model(coords=self._coords()) as model:
            self._class_model(model, observe_counts=True)
            factor, log_root_det, log_density = posterior_frame_factor("precision", prior.nu, prior.psi, posterior.nu, posterior.psi)
            pm.Deterministic("cov", pt.linalg.inv(pt.matmul(factor, factor.mT)), dims=self._cov_dims())
            whitened = pm.Flat("class_mean_whitened", dims=("class", "feature"))
            shift = whitened / np.sqrt(posterior.kappa)[:, None]  # Fᵀ(μ − m')
            if self.shared_covariance:
                factor, log_root_det = pt.broadcast_to(factor, (len(self.classes_), p, p)), pt.broadcast_to(log_root_det, (len(self.classes_),))
            pm.Deterministic("class_mean", posterior.m + _transpose_times(pt.linalg.inv(factor), shift), dims=("class", "feature"))
            log_density += (whitened_normal_logp(_transpose_times(factor, posterior.m - prior.m) + shift, prior.kappa, log_root_det)
                            - log_root_det - 0.5 * p * np.log(posterior.kappa)).sum()
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
                log_density += wishart_logp(scatter, nu, factor[several], log_root_det[several], wishart_data_term(scatter, nu)).sum()
            pm.Potential("log_density", log_density)
        return model

    def _without_auxiliary_draws(self, posterior):
        """The draws without ``_sampling_model``'s free coordinates (its Bartlett variables
        ``precision_c``/``precision_z`` stay, as the counts form's forward sampling reads them)."""
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


class LDA(TransformerMixin, _DiscriminantAnalysis):
    """Linear discriminant analysis: Gaussian classes sharing one covariance, NIW prior.

    Parameters: class_alpha, estimate, prior_mean (m0), mean_strength (κ0), prior_cov (prior
    mean of Σ; default diag of the overall variances), cov_strength (ν0; default p + 2),
    reg_param (point covariances shrunk to (1 − r)Σ + rI). class_alpha, mean_strength,
    cov_strength and prior_cov accept "evidence" (module docstring); the learned values are
    ``class_alpha_``, ``mean_strength_``, ``cov_strength_``, ``prior_cov_``.

    Besides prediction: ``coef_``/``intercept_`` of the plug-in linear rule, and Fisher's
    discriminant ``transform`` with ``within_class_scatter_``/``between_class_scatter_``.
    """

    shared_covariance = True

    @single_blas_thread  # the (N × p)(p × K) product: two OpenBLAS threads took 8× as long at 1e4 rows
    def _log_posterior_scores(self, X, estimate):
        """Under a plug-in estimate, the linear discriminants (x − c)ᵀ Σ⁻¹(μ_k − c) − ½‖L⁻¹(μ_k − c)‖²
        + log π_k, c the mean of the class means: log p(x, y = k) less −½‖L⁻¹(x − c)‖² and the
        normalising constant, the same for every class. One (N × p)(p × K) product instead of
        every row's whitening; ``predict_joint_log_proba`` keeps the exact density."""
        check_is_fitted(self, "classes_")
        estimate = self._estimate(estimate)
        if estimate not in ("mean", "map", "mle"):
            return super()._log_posterior_scores(X, estimate)
        X = self._encode(as_array_like(X), reset=False, training=False)
        means, cov = self._point(estimate)
        chol = self._cholesky(cov, estimate)[0]
        centre = means.mean(axis=0)
        whitened_means = scipy.linalg.solve_triangular(chol, (means - centre).T, lower=True)  # L⁻¹(μ_k − c), p × K
        coef = scipy.linalg.solve_triangular(chol, whitened_means, lower=True, trans="T")  # Σ⁻¹(μ_k − c)
        class_prob = self._class_prior.estimate(self.class_count_, estimate)
        offsets = log_probabilities(class_prob) - 0.5 * (whitened_means**2).sum(axis=0) - centre @ coef
        # xᵀθ_k − cᵀθ_k rather than (x − c)ᵀθ_k: no N × p temporary (whose fresh pages cost as much
        # as the product); the two differ by rounding of |x|·|θ_k|·ε, the order of the input's own
        # rounding at a location of 1e8 sds
        return add_per_class(X @ coef, offsets)

    def _linear_rule(self):
        estimate = self.estimate if self.estimate != "predictive" else None
        if estimate is None:
            raise ValueError("coef_/intercept_ describe a plug-in rule; estimate='predictive' (Student-t) is not linear")
        means, cov = self._point(estimate)
        class_prob = self._class_prior.estimate(self.class_count_, estimate)
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

    def transform(self, X):
        """Fisher's discriminant projection under the fitted model: (X − x̄) W, the columns of W
        the top min(K − 1, p) generalised eigenvectors of B w = λ Σ̂ w, with Σ̂ and the class
        means of the estimate in use ("mean" for "predictive") and B their weighted scatter
        about x̄, scaled so that Wᵀ Σ̂ W = I. With estimate="mle", Σ̂ = S_W / N and the
        directions are Fisher's, W ∝ S_W⁻¹(m_1 − m_2) for two classes; under a proper prior Σ̂
        is positive definite even where S_W is singular."""
        X = self._encode(as_array_like(X), reset=False, training=False)
        means, cov = self._point("mean" if self.estimate == "predictive" else self.estimate)
        overall = self.class_count_ @ means / self.class_count_.sum()
        deviation = means - overall
        between = (self.class_count_[:, None] * deviation).T @ deviation / self.class_count_.sum()
        values, vectors = scipy.linalg.eigh(between, cov)
        order = np.argsort(values)[::-1][: min(len(self.classes_) - 1, X.shape[1])]
        return (X - overall) @ vectors[:, order]


class QDA(_DiscriminantAnalysis):
    """Quadratic discriminant analysis: one covariance per class, independent NIW priors.
    Parameters as for :class:`LDA`."""

    shared_covariance = False
