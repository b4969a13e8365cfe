"""Bayesian logistic regression: the discriminative counterpart of the generative classifiers.

Model (binary, y ∈ {0, 1}):   w_j ~ N(0, prior_sd²),  b ~ N(0, intercept_prior_sd²) (flat if
None),  y_i | x_i ~ Bernoulli(σ(wᵀx_i + b)).  With K > 2 classes: one weight vector and
intercept per class, y_i ~ Categorical(softmax(W x_i + b)); with one class, P(y = it) = 1 and
the weights keep their prior. The classes are a Categorical y's declared categories (as for the
generative models), else the observed labels. Sparse X stays sparse (products only).

There is no conjugate prior, so no closed form: ``fit`` finds the MAP (L-BFGS with the analytic
gradient of the negative log posterior), which is the L2-penalised logistic fit of
scikit-learn's ``LogisticRegression(C=prior_sd²)`` with an unpenalised intercept when
``intercept_prior_sd=None``. ``sample_posterior`` runs NUTS on the PyMC model (its counts form:
each distinct row of X once, with the counts of its classes; there are no sufficient statistics
smaller than the distinct rows; written in whitened coordinates, ``_whitening``, in which the
posterior is close to isotropic) and keeps the draws in ``idata_``; then
``estimate="mean"`` plugs in the posterior-mean weights and ``estimate="predictive"`` averages
p(y | x, w) over the draws. ``estimate="mle"`` drops the prior (it diverges on separable data).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.optimize
import scipy.sparse as sp
import xarray as xr
from scipy.special import expit, log_expit, log_softmax, logsumexp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from pgm_models._utils.threads import single_blas_thread
from pgm_models._utils.validation import (
    as_array_like,
    check_class_prior,
    check_labels,
    check_n_draws,
    check_n_rows,
    check_numeric_matrix,
    check_sample_weight,
    is_number,
)
from pgm_models.base import BayesianClassifier
from pgm_models.conjugate.dirichlet import ESTIMATES, check_estimate
from pgm_models.discriminative._whitening import (
    WHITENED_DIMS,
    WHITENING_LIMIT,
    helmert,
    whitened_design,
    without_whitened,
)

# Parameters up to which PyMC's NUTS adapts a dense mass matrix for this model (sample_posterior)
DENSE_MASS_MATRIX_LIMIT = 200


class LogisticRegression(BayesianClassifier):
    r"""Logistic regression with Normal priors, fitted at its MAP and sampled with NUTS.

    The discriminative baseline of the zoo: it models p(y | x) only. There is no conjugate prior,
    so no closed form: ``fit`` finds the posterior mode (MAP) by L-BFGS, which is scikit-learn's
    L2-penalised ``LogisticRegression(C=prior_sd**2)``, and :meth:`sample_posterior` draws the full
    posterior with NUTS, after which ``estimate="mean"`` and ``"predictive"`` use the draws.

    Parameters
    ----------
    prior_sd : float > 0, default=1.0
        σ of the weights' N(0, σ²) prior (scikit-learn's C = σ²).
    intercept_prior_sd : float > 0 or None, default=10.0
        The sd of the intercepts' Normal prior, or None for a flat prior (which
        ``sample_posterior`` refuses with more than two classes: the posterior of the intercepts'
        common shift is then improper).
    estimate : {"map", "mle", "mean", "predictive"}, default="map"
        The weights predictions use: the MAP, the maximum likelihood (diverges on separable data),
        the posterior mean of the NUTS draws, or the posterior predictive averaged over them
        ("mean" and "predictive" need :meth:`sample_posterior` to have run).
    max_iter : int, default=10000
        The L-BFGS iteration limit; stopping at it warns with a ``ConvergenceWarning``.
    tol : float, default=1e-10
        The L-BFGS tolerance on the projected gradient.
    class_prior : array-like of shape (n_classes,), default=None
        A prevalence-shift correction (Saerens et al., 2002): p(y = k | x) ∝ p̂(y = k | x) ·
        class_prior_k / f_k, f the training rows' (weighted) class frequencies, under every
        estimate; ``set_class_prior`` changes it on a fitted model. None: no correction.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        The (weighted) number of training rows of each class.
    coef_ : ndarray of shape (1, n_features) for two classes, else (n_classes, n_features)
        The MAP weights.
    intercept_ : ndarray of shape (1,) for two classes, else (n_classes,)
        The MAP intercepts.
    n_iter_ : int
        The L-BFGS iterations of the MAP fit.
    n_features_in_ : int
        The number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.
    idata_ : arviz.InferenceData
        The NUTS draws, after :meth:`sample_posterior`.

    See Also
    --------
    LDA : The generative model whose plug-in rule is also linear.
    sklearn.linear_model.LogisticRegression : The same MAP as an L2-penalised fit.

    Notes
    -----
    For two classes, y ∈ {0, 1}:

    .. math::

        w_j \sim \mathcal N(0, \sigma^2), \quad b \sim \mathcal N(0, \sigma_b^2), \quad
        y_i \mid x_i \sim \mathrm{Bernoulli}(\mathrm{sigmoid}(w^\top x_i + b));

    with K > 2 classes one weight vector and intercept per class and
    y_i ~ Categorical(softmax(W x_i + b)). The MAP maximises
    Σ_i w_i log p(y_i | x_i) − ‖w‖²/(2σ²) − b²/(2σ_b²). ``"mean"`` plugs in the posterior mean of
    the draws, ``"predictive"`` averages p(y | x, w_s) over them. The PyMC model's counts form
    observes each distinct row of X once with the counts of its classes.

    References
    ----------
    .. [1] Li Hang, *Statistical Learning Methods* (2nd ed.), Tsinghua University Press, 2019,
       chapter 6 (logistic regression).
    .. [2] K. P. Murphy, *Machine Learning: A Probabilistic Perspective*, MIT Press, 2012,
       chapter 8 (logistic regression; section 8.4, Bayesian logistic regression).

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import LogisticRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> y = np.array([0, 0, 1, 0, 1, 1])
    >>> model = LogisticRegression(prior_sd=1.0).fit(X, y)
    >>> model.coef_.round(3), model.intercept_.round(3)
    (array([[0.753]]), array([-1.866]))
    >>> model.predict_proba(np.array([[2.5]])).round(3)
    array([[0.496, 0.504]])
    >>> model.sample_posterior(draws=500, random_seed=0)  # doctest: +SKIP
    >>> model.predict_proba(np.array([[2.5]]), estimate="predictive")  # doctest: +SKIP
    """

    _generative = False
    _closed_form = False

    def __init__(
        self, prior_sd=1.0, intercept_prior_sd=10.0, estimate="map", max_iter=10_000, tol=1e-10, class_prior=None
    ):
        self.prior_sd = prior_sd
        self.intercept_prior_sd = intercept_prior_sd
        self.estimate = estimate
        self.max_iter = max_iter
        self.tol = tol
        self.class_prior = class_prior

    @property
    def _estimates(self):
        """The estimates this fit defines (what ``score_estimates`` scores, NaN for the others):
        "mean" and "predictive" average over the NUTS draws, so only after ``sample_posterior``.
        """
        return ESTIMATES if hasattr(self, "idata_") else ("map", "mle")

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y, sample_weight=None):
        """Find the MAP weights (the training rows are kept for the PyMC model)."""
        check_estimate(self.estimate)
        labels = self._start_fit(y)
        X = as_array_like(X)
        check_n_rows(np.shape(X)[0], len(labels))
        if not (is_number(self.prior_sd) and self.prior_sd > 0):
            raise ValueError(f"prior_sd must be a number > 0, got {self.prior_sd!r}")
        if self.intercept_prior_sd is not None and not (
            is_number(self.intercept_prior_sd) and self.intercept_prior_sd > 0
        ):
            raise ValueError(f"intercept_prior_sd must be a number > 0 or None, got {self.intercept_prior_sd!r}")
        if isinstance(self.max_iter, bool) or not (isinstance(self.max_iter, numbers.Integral) and self.max_iter >= 1):
            raise ValueError(f"max_iter must be a whole number ≥ 1 (L-BFGS iterations), got {self.max_iter!r}")
        if not (is_number(self.tol) and np.isfinite(self.tol) and self.tol >= 0):
            raise ValueError(f"tol must be a finite number ≥ 0 (L-BFGS's gradient tolerance), got {self.tol!r}")
        self.classes_ = self._declared_classes(y, labels)
        check_class_prior(self.class_prior, len(self.classes_))
        X = self._encode(X, reset=True)
        # copies of the caller's arrays (validation may return them as they are): what the PyMC
        # model observes must not change when the caller reuses its buffers
        self._training = (
            X.copy(),
            self._class_index(labels),
            np.array(check_sample_weight(sample_weight, len(labels))),
        )
        self.class_count_ = np.bincount(self._training[1], self._training[2], len(self.classes_))
        (self.coef_, self.intercept_), self.n_iter_ = self._optimise(penalised=True)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _encode(self, X, reset, training=True):
        X = self._check_feature_names(X, reset)
        matrix = check_numeric_matrix(
            X, getattr(self, "feature_names_in_", None), nonnegative=False, what="LogisticRegression"
        )
        return matrix

    @property
    def _binary(self) -> bool:
        return len(self.classes_) == 2

    @property
    def _n_vectors(self) -> int:
        """One weight vector for two classes (as scikit-learn), one per class otherwise."""
        return 1 if self._binary else len(self.classes_)

    def _negative_log_posterior(self, theta, penalised):
        X, index, weight = self._training
        p, m = X.shape[1], self._n_vectors
        W, b = theta[: m * p].reshape(m, p), theta[m * p :]
        logits = np.asarray(X @ W.T) + b
        if self._binary:
            target = (index == 1).astype(float)
            nll = -(weight * (target * log_expit(logits[:, 0]) + (1 - target) * log_expit(-logits[:, 0]))).sum()
            residual = (weight * (expit(logits[:, 0]) - target))[:, None]
        else:
            log_prob = log_softmax(logits, axis=1)
            nll = -(weight * log_prob[np.arange(len(index)), index]).sum()
            onehot = np.zeros_like(logits)
            onehot[np.arange(len(index)), index] = 1
            residual = weight[:, None] * (np.exp(log_prob) - onehot)
        grad_W, grad_b = np.asarray(X.T @ residual).T, residual.sum(axis=0)
        if penalised:
            nll += (W**2).sum() / (2 * self.prior_sd**2)
            grad_W = grad_W + W / self.prior_sd**2
            if self.intercept_prior_sd is not None:
                nll += (b**2).sum() / (2 * self.intercept_prior_sd**2)
                grad_b = grad_b + b / self.intercept_prior_sd**2
        return nll, np.concatenate([grad_W.ravel(), grad_b])

    @single_blas_thread  # L-BFGS on a few hundred parameters: threads only oversubscribe
    def _optimise(self, penalised: bool):
        p, m = self._training[0].shape[1], self._n_vectors
        result = scipy.optimize.minimize(
            self._negative_log_posterior,
            np.zeros(m * (p + 1)),
            args=(penalised,),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": self.max_iter, "gtol": self.tol, "ftol": 0.0},
        )
        if result.nit >= self.max_iter:
            warnings.warn(
                f"L-BFGS stopped at max_iter={self.max_iter} before the {'MAP' if penalised else 'MLE'} converged "
                f"(gradient norm {np.abs(result.jac).max():.3g} > tol={self.tol:g}); increase max_iter",
                ConvergenceWarning,
                stacklevel=3,
            )
        return (result.x[: m * p].reshape(m, p), result.x[m * p :]), result.nit

    # ------------------------------------------------------------------ prediction
    def _log_proba(self, X, W, b):
        """Log p(y | x, W, b) for weights W (…, m, p) and intercepts b (…, m); leading axes are draws."""
        leading, (m, p) = W.shape[:-2], W.shape[-2:]
        flat = np.asarray(X @ W.reshape(-1, p).T)  # (N, draws·m), X dense or sparse
        logits = np.moveaxis(flat.reshape((len(flat),) + leading + (m,)), 0, -2) + b[..., None, :]
        if self._binary:
            return np.stack([log_expit(-logits[..., 0]), log_expit(logits[..., 0])], axis=-1)
        return log_softmax(logits, axis=-1)

    def _draws(self):
        if not hasattr(self, "idata_"):
            raise ValueError("estimate='mean'/'predictive' average over posterior draws: call sample_posterior() first")
        posterior = self.idata_.posterior
        W = posterior["weights"].values.reshape((-1, self._n_vectors, self.n_features_in_))
        b = posterior["intercept"].values.reshape((-1, self._n_vectors))
        return W, b

    def predict_log_proba(self, X, estimate=None):
        """Log P(y = k | x) under the chosen estimate."""
        check_is_fitted(self, "classes_")
        estimate = self._estimate(estimate)
        X = self._encode(as_array_like(X), reset=False)
        if estimate == "map":
            return self._prevalence_shifted(self._log_proba(X, self.coef_, self.intercept_))
        if estimate == "mle":
            return self._prevalence_shifted(self._log_proba(X, *self._optimise(penalised=False)[0]))
        W, b = self._draws()
        if estimate == "mean":
            return self._prevalence_shifted(self._log_proba(X, W.mean(axis=0), b.mean(axis=0)))
        return self._prevalence_shifted(logsumexp(self._log_proba(X, W, b), axis=0) - np.log(len(W)))

    def _prevalence_shifted(self, log_proba):
        """Log p(y | x) moved from the training rows' class frequencies f to ``class_prior``:
        + log class_prior_k − log f_k, renormalised (a class absent from training keeps its p̂).
        """
        prior = self._fixed_class_prior()
        if prior is None:
            return log_proba
        frequency = self.class_count_ / self.class_count_.sum()
        with np.errstate(divide="ignore"):
            shift = np.log(prior) - np.log(np.where(frequency > 0, frequency, 1.0))
        return log_softmax(log_proba + shift, axis=-1)

    def predict_proba_draws(self, X, n_draws=200, random_seed=None):
        """P(y = k | x_n, w_s) under ``n_draws`` of the NUTS draws (chosen at random without
        replacement; all of them if there are fewer), shape (S, N, K).
        """
        check_is_fitted(self, "classes_")
        n_draws = check_n_draws(n_draws, "n_draws")
        X = self._encode(as_array_like(X), reset=False)
        W, b = self._draws()
        chosen = np.random.default_rng(random_seed).permutation(len(W))[:n_draws]
        return np.exp(self._prevalence_shifted(self._log_proba(X, W[chosen], b[chosen])))

    # ------------------------------------------------------------------ PyMC
    def _coords(self):
        names = getattr(self, "feature_names_in_", None)
        features = np.asarray(names) if names is not None else np.arange(self.n_features_in_)
        vectors = self.classes_[1:] if self._binary else self.classes_
        return {"class": self.classes_, "vector": vectors, "feature": features}

    def pymc_model(self, form="rows", X=None, y=None):
        """The PyMC model (default: of the training rows). ``form="rows"`` observes every row y_i
        (Bernoulli or Categorical). ``form="counts"``, which ``sample_posterior`` samples, observes
        each distinct row x_u of X once with the (weighted) counts c_uk of its classes,
        ``class_count`` (distinct_row, class), whose log likelihood Σ_u Σ_k c_uk log p(k | x_u) is
        the rows form's Σ_i w_i log p(y_i | x_i) exactly (the rows in order: no multinomial
        coefficient), with log p(k | x) = t_k − log Σ_j exp(t_j), t = (0, t_1) for two classes.
        Its gradient costs the distinct rows (vote's 304 training rows: 247) and one softplus and
        one sigmoid each (PyMC's Bernoulli evaluates both of its branches for every row). Its
        coefficients are whitened (``_whitened_logits``: the free ``whitened_coef``, with
        ``weights`` and ``intercept`` as Deterministics) unless the distinct rows' dense design is
        past ``WHITENING_LIMIT`` (then they are ``_logits``' free variables, as in the rows form).
        """
        import pymc as pm

        check_is_fitted(self, "classes_")
        if form not in ("rows", "counts"):
            raise ValueError(f"form={form!r} is not one of ('rows', 'counts')")
        if X is None and y is None:
            X, index, weight = self._training
        else:
            labels = check_labels(y, self)
            X, index, weight = (
                self._encode(as_array_like(X), reset=False),
                self._class_index(labels),
                np.ones(len(labels)),
            )
        if form == "counts":
            first, distinct = _distinct_rows(X)
            counts = np.zeros((len(first), len(self.classes_)))
            np.add.at(counts, (distinct, index), weight)
            X, rows = X[first], {"distinct_row": first}
        else:
            rows = {"row": np.arange(len(index))}
        whitened = form == "counts" and _whitenable(X)
        if whitened:
            rows.update(
                zip(
                    WHITENED_DIMS,
                    (np.arange(self._n_vectors), np.arange(X.shape[1] + (self.intercept_prior_sd is not None))),
                )
            )
        with pm.Model(coords={**self._coords(), **rows}) as model:
            if whitened:
                logits = self._whitened_logits(X)
            else:
                logits = self._logits(X)
            if form == "counts":  # log p(k | x) = t_k − log Σ_j exp(t_j), with t = (0, t_1) for two classes
                if self._binary:
                    t = logits[:, 0][:, None]  # (distinct_row, 1), broadcastable against the two classes
                    class_logits, normaliser = t * np.array([0.0, 1.0]), pm.math.log1pexp(t)
                else:
                    class_logits, normaliser = logits, pm.math.logsumexp(logits, axis=1, keepdims=True)
                pm.CustomDist(
                    "class_count",
                    class_logits,
                    normaliser,
                    counts.sum(axis=1, keepdims=True),
                    logp=_counts_logp,
                    random=_counts_random,
                    observed=counts,
                    dims=("distinct_row", "class"),
                )
                return model
            if self._binary:
                likelihood, parameters, target = pm.Bernoulli, {"logit_p": logits[:, 0]}, (index == 1).astype(np.int64)
            else:
                likelihood, parameters, target = pm.Categorical, {"logit_p": logits}, index
            if np.all(weight == 1):
                likelihood("y", **parameters, observed=target, dims="row")
            else:  # a weighted likelihood is not a distribution of the data
                pm.Potential("weighted_log_likelihood", (weight * pm.logp(likelihood.dist(**parameters), target)).sum())
        return model

    def _logits(self, X):
        """The free ``weights`` (vector, feature) ~ N(0, prior_sd²) and ``intercept`` (vector) ~
        N(0, intercept_prior_sd²) (flat if None) of the current PyMC model, and the logits X Wᵀ + b.
        """
        import pymc as pm

        # float64 sds: PyTensor makes a Python float that float32 holds exactly (1.0, 10.0) a float32
        # constant, and its log σ in float32 moved the log density by ~3e-8
        weights = pm.Normal("weights", 0.0, np.float64(self.prior_sd), dims=("vector", "feature"))
        if self.intercept_prior_sd is None:
            intercept = pm.Flat("intercept", dims="vector")
        else:
            intercept = pm.Normal("intercept", 0.0, np.float64(self.intercept_prior_sd), dims="vector")
        if sp.issparse(X):  # a sparse product: the rows are not densified
            import pytensor.sparse

            return (
                pytensor.sparse.structured_dot(pytensor.sparse.as_sparse_variable(sp.csr_matrix(X)), weights.T)
                + intercept
            )
        return pm.math.dot(X, weights.T) + intercept

    def _whitened_logits(self, X):
        """``_logits``' prior in whitened coordinates (``_whitening``): the free
        ``whitened_coef`` z (whitened_vector, whitened_direction) ~ N(0, I), and θ_k = (w_k, b_k) =
        diag(s) V (H z)_k as the Deterministics ``weights`` and ``intercept``, with s the prior sds,
        [X, 1] diag(s) = U S Vᵀ and H the vectors' Helmert rotation: the same prior exactly
        (an isotropic Normal rotated, then scaled), so the log density differs from ``_logits``'
        by the constant m Σ log s. The logits are (U S) z_{k, :r}: the directions of S = 0 and,
        for a softmax over m > 1 vectors, H's common vector leave the product. A flat intercept
        stays flat as ``shifted_intercept`` b' = b + x̄ᵀw, the weights whitened on the centred
        X − x̄ (a shift of a flat variable: Jacobian 1), and b = b' − x̄ᵀw.
        """
        import pymc as pm
        import pytensor.tensor as pt

        X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
        p, m, flat = X.shape[1], self._n_vectors, self.intercept_prior_sd is None
        if flat:
            centre = X.mean(axis=0)
            design, scale = X - centre, np.full(p, float(self.prior_sd))
        else:
            design, scale = (
                np.hstack([X, np.ones((len(X), 1))]),
                np.r_[np.full(p, float(self.prior_sd)), self.intercept_prior_sd],
            )
        product, rotation = whitened_design(design, scale)
        across, rank = helmert(m), product.shape[1]
        whitened = pm.Normal("whitened_coef", 0.0, 1.0, dims=WHITENED_DIMS)
        coef = pt.dot(pt.dot(across, whitened), rotation.T) * scale
        weights = pm.Deterministic("weights", coef[:, :p], dims=("vector", "feature"))
        if flat:
            shifted = pm.Flat("shifted_intercept", dims="vector")
            pm.Deterministic("intercept", shifted - pt.dot(weights, centre), dims="vector")
        else:
            pm.Deterministic("intercept", coef[:, p], dims="vector")
        if self._binary or m == 1:
            logits = pt.dot(product, whitened[:, :rank].T)
        else:  # H's first column is constant: its vector shifts every class's logit alike, which the softmax ignores
            logits = pt.dot(pt.dot(product, whitened[1:, :rank].T), across[:, 1:].T)
        return logits + shifted if flat else logits

    def _sampling_model(self):
        return self.pymc_model("counts")

    def _without_auxiliary_draws(self, posterior):
        """The draws of the weights and intercept, without the whitened coordinates NUTS moves in."""
        return without_whitened(super()._without_auxiliary_draws(posterior))

    def sample_posterior(self, draws=1000, chains=4, random_seed=None, sampler=None, **pm_sample_kwargs):
        """NUTS draws of (weights, intercept), kept in ``idata_`` for the "mean" and "predictive" estimates.

        PyMC's NUTS adapts a dense mass matrix here (``init="jitter+adapt_full"``) when there are
        at most ``DENSE_MASS_MATRIX_LIMIT`` parameters: the weights of correlated features, and
        the multiclass model's class vectors, whose common shift only the priors hold, are
        strongly correlated in the posterior, and a diagonal mass matrix needs deep trees for them
        (BENCHMARKS.md, "Mass matrices and tuning steps"). Past the limit a d × d matrix per step costs more than it saves. An ``init`` given here is kept.
        """
        from pgm_models.inference.sampling import DEFAULT_SAMPLER

        check_is_fitted(self, "classes_")
        if self.intercept_prior_sd is None and self._n_vectors > 1:
            raise ValueError(
                f"intercept_prior_sd=None with {len(self.classes_)} classes has an improper posterior: the softmax "
                "ignores the intercepts' common shift, which a flat prior leaves flat; give intercept_prior_sd a "
                "value to sample (the MAP fit is unaffected)"
            )
        coords = self._coords()
        n_parameters = len(coords["vector"]) * (len(coords["feature"]) + 1)
        if (sampler or DEFAULT_SAMPLER) == "pymc" and n_parameters <= DENSE_MASS_MATRIX_LIMIT:
            pm_sample_kwargs.setdefault("init", "jitter+adapt_full")
        self.idata_ = super().sample_posterior(draws, chains, random_seed, sampler, **pm_sample_kwargs)
        return self.idata_

    # ------------------------------------------------------------------ the Bayesian workflow
    def _label_replicates(self, W, b, rng, group: str):
        """Labels of the training rows drawn from p(y | x, W_s, b_s) for each draw s (no
        ``class_prior``: the check is of the model), with the training labels as ``observed_data``.
        """
        import arviz as az

        from pgm_models.inference import workflow

        X, index, _ = self._training
        probabilities = np.exp(self._log_proba(X, W, b))  # (S, N, K)
        labels = workflow.sampled_labels(probabilities[None], rng)
        observed = workflow.training_data(self)
        observed["observed_data"] = (
            observed["observed_data"]
            .assign(y=("row", index), class_count=("class", np.bincount(index, minlength=len(self.classes_))))
            .assign_coords(row=np.arange(len(index)))
        )  # the rows' own class counts, unweighted like their replicates
        return az.InferenceData(**{group: workflow.label_predictive(self, labels)}, **observed)

    def sample_prior_predictive(self, n=500, random_seed=None):
        """``n`` draws of the weights and intercepts from their Normal priors and, for each, the
        labels of the training rows from p(y | x, w) (a discriminative model has no p(x): the rows
        are the training X), as ``prior`` and ``prior_predictive`` (``y``, ``class_count``) merged
        into ``idata_`` with the training labels as ``observed_data``; returns ``idata_``.
        """
        from pgm_models.inference import workflow

        check_is_fitted(self, "classes_")
        n = check_n_draws(n, "n")
        if self.intercept_prior_sd is None:
            raise ValueError(
                "intercept_prior_sd=None is a flat prior, which has no prior predictive: give intercept_prior_sd a value"
            )
        rng = np.random.default_rng(random_seed)
        m, p = self._n_vectors, self.n_features_in_
        W = rng.normal(0.0, float(self.prior_sd), (n, m, p))
        b = rng.normal(0.0, float(self.intercept_prior_sd), (n, m))
        coords = self._coords()
        prior = xr.Dataset(
            {
                "weights": (("chain", "draw", "vector", "feature"), W[None]),
                "intercept": (("chain", "draw", "vector"), b[None]),
            },
            coords={"chain": [0], "draw": np.arange(n), "vector": coords["vector"], "feature": coords["feature"]},
        )
        replicated = self._label_replicates(W, b, rng, "prior_predictive")
        replicated.add_groups(prior=prior)
        workflow.merge_groups(self, replicated)
        return self.idata_

    def sample_posterior_predictive(self, X=None, n=500, random_seed=None):
        """Labels from p(y | x, w_s) under every NUTS draw w_s (``sample_posterior`` first; ``n``
        is unused: a discriminative model has no closed form to draw from), for the rows X or,
        without X, the training rows (with their labels as ``observed_data``), merged into
        ``idata_`` as ``posterior_predictive`` (``y``, ``class_count``); returns ``idata_``.
        """
        from pgm_models.inference import workflow

        check_is_fitted(self, "classes_")
        check_n_draws(n, "n")
        if getattr(self, "idata_", None) is None or "posterior" not in self.idata_.groups():
            raise ValueError("sample_posterior_predictive reads the NUTS draws: call sample_posterior() first")
        rng = np.random.default_rng(random_seed)
        W, b = self._draws()
        if X is None:
            replicated = self._label_replicates(W, b, rng, "posterior_predictive")
        else:
            import arviz as az

            encoded = self._encode(as_array_like(X), reset=False)
            chains, draws = self.idata_.posterior.sizes["chain"], self.idata_.posterior.sizes["draw"]
            probabilities = np.exp(self._log_proba(encoded, W, b)).reshape(chains, draws, encoded.shape[0], -1)
            replicated = az.InferenceData(
                posterior_predictive=workflow.label_predictive(self, workflow.sampled_labels(probabilities, rng)),
                **workflow.training_data(self),
            )
        workflow.merge_groups(self, replicated)
        return self.idata_

    def find_map(self, **find_map_kwargs) -> xr.Dataset:
        """``pm.find_MAP`` of the PyMC model (a check on the optimiser used by ``fit``)."""
        import pymc as pm

        find_map_kwargs.setdefault("progressbar", False)
        point = pm.find_MAP(model=self.pymc_model("rows"), include_transformed=False, **find_map_kwargs)
        coords = self._coords()
        return xr.Dataset(
            {"weights": (("vector", "feature"), point["weights"]), "intercept": (("vector",), point["intercept"])},
            coords={"vector": coords["vector"], "feature": coords["feature"]},
        )


def _distinct_rows(X):
    """(the index of each distinct row's first occurrence, ascending; each row's distinct row) of
    a dense or sparse matrix.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)
        X.sum_duplicates()  # one stored entry per cell, indices sorted: equal rows are equal bytes
        X.eliminate_zeros()
        groups = {}
        distinct = np.array(
            [
                groups.setdefault((X.indices[a:b].tobytes(), X.data[a:b].tobytes()), len(groups))
                for a, b in zip(X.indptr[:-1], X.indptr[1:])
            ],
            dtype=np.intp,
        )
        return np.unique(distinct, return_index=True)[1], distinct
    _, first, inverse = np.unique(np.asarray(X), axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)  # the distinct rows in the order they first occur
    return first[order], np.argsort(order)[inverse.ravel()]


def _whitenable(X) -> bool:
    """Whether the counts form of the distinct rows X (n × p) is whitened: the SVD's dense design
    and rotation, n (p + 1) + (p + 1)² cells, within ``WHITENING_LIMIT``.
    """
    d = X.shape[1] + 1
    return X.shape[0] * d + d * d <= WHITENING_LIMIT


def _counts_logp(counts, class_logits, normaliser, totals):
    """c_k log p(k | x) = c_k (t_k − log Σ_j exp(t_j)), each (distinct row, class) cell."""
    return counts * (class_logits - normaliser)


def _counts_random(class_logits, normaliser, totals, rng=None, size=None):
    """Forward sampling of the counts form: each distinct row's classes ~ Multinomial(its rows,
    p(k | x)), the rows its (weighted) count rounded.
    """
    probabilities = np.exp(np.asarray(class_logits) - np.asarray(normaliser))
    probabilities = probabilities / probabilities.sum(axis=-1, keepdims=True)
    n = np.rint(np.asarray(totals)[..., 0]).astype(np.int64)
    if size is not None:
        probabilities = np.broadcast_to(probabilities, tuple(size))
        n = np.broadcast_to(n, tuple(size)[:-1])
    return rng.multinomial(n, probabilities).astype(float)
