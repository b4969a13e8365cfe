"""Hierarchical discrete naive Bayes: a hyperprior on the Dirichlet concentration, sampled by NUTS.

Model (cells c of the discrete model's Dirichlet blocks b, classes k; λ shared, or one per
attribute with ``per_attribute=True``):

    λ ~ Gamma(shape, rate)  or  LogNormal(μ, σ)          (``hyperprior``, ``hyperprior_params``)
    θ_kb | λ ~ Dirichlet(λ · 1)                           for every class and block
    counts n_kb | θ_kb ~ Multinomial(N_kb, θ_kb)

written in counts form with θ integrated out: the block's counts follow the Dirichlet–
multinomial, so the PyMC model has only λ as a free variable and its cost does not grow with the
data,

    log p(n | λ) = Σ_kb log Γ(A_kb) − log Γ(A_kb + N_kb) + Σ_c [log Γ(α_c + n_c) − log Γ(α_c)]
    (α_c = λ of cell c, A_kb = Σ_b α_c; the ordered-sequence evidence, up to a constant).

There is no closed form for p(λ | D); NUTS samples it. Prediction integrates λ out, Rao–
Blackwellised: given λ the posterior predictive p(y, x | D, λ) is closed-form, so

    p(y = k, x | D) ≈ (1/S) Σ_s p(y = k, x | D, λ_s),   λ_s ~ p(λ | D),

averaged as joint probabilities (not as conditionals) and then normalised over k. The class
probabilities keep the wrapped model's class_alpha (a number or "evidence"). Verify the model
with ``pgm_models.inference.calibration.simulation_based_calibration`` using ``simulate`` and
``posterior_alpha`` (NUTS) or ``grid_posterior_alpha`` (exact, one shared λ).
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from pgm_models._utils.persistence import Persistent
from pgm_models.base import _dask_aware
from pgm_models.conjugate import log_sum_exp
from pgm_models.naive_bayes import CategoricalNB

HYPERPRIORS = ("gamma", "lognormal")


class HierarchicalNB(Persistent, ClassifierMixin, BaseEstimator):
    r"""A discrete naive Bayes model whose ``alpha`` has a hyperprior, integrated out by NUTS.

    Instead of fixing the Dirichlet concentration λ (``alpha``) of :class:`CategoricalNB`,
    :class:`BernoulliNB` or :class:`MultinomialNB`, or choosing it by maximum evidence, λ gets a
    hyperprior and ``fit`` samples p(λ | D) with NUTS on a counts-form model whose θ is integrated
    out; predictions average the closed-form predictive over the λ draws.

    Parameters
    ----------
    model : CategoricalNB, BernoulliNB or MultinomialNB, default=None
        The discrete naive Bayes template (None: ``CategoricalNB()``); its ``alpha`` is replaced.
    hyperprior : {"gamma", "lognormal"}, default="gamma"
        λ ~ Gamma(shape, rate) or log λ ~ N(μ, σ²).
    hyperprior_params : tuple of two floats, default=(1.0, 1.0)
        (shape, rate) of the Gamma or (μ, σ) of the log-normal.
    per_attribute : bool, default=False
        One λ per attribute (per feature, per word) instead of one shared λ.
    draws : int, default=1000
        NUTS draws per chain, passed to ``pm.sample``.
    tune : int, default=1000
        NUTS tuning steps per chain.
    chains : int, default=4
        NUTS chains.
    random_seed : int, default=None
        The seed of ``pm.sample``.
    prediction_draws : int, default=200
        At most this many λ draws (evenly spaced) enter the predictive average.
    class_prior : array-like of shape (n_classes,), default=None
        As for :class:`CategoricalNB`; given to the wrapped model (whose own is replaced).

    Attributes
    ----------
    model_ : CategoricalNB, BernoulliNB or MultinomialNB
        The wrapped model fitted to the data (its counts).
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_features_in_ : int
        The number of attributes seen in ``fit``.
    idata_ : arviz.InferenceData
        The NUTS samples of ``alpha`` (with each training row's ``log_likelihood`` after
        :meth:`add_log_likelihood`, for ``az.loo``).
    alpha_draws_ : ndarray of shape (n_draws, P)
        The λ draws, P = 1 or the number of attributes.

    See Also
    --------
    CategoricalNB : ``alpha="evidence"`` chooses λ by maximum marginal likelihood instead.
    simulation_based_calibration : Checks the NUTS posterior of λ.

    Notes
    -----
    For the cells c of the discrete model's Dirichlet blocks b and classes k:

    .. math::

        \lambda &\sim \mathrm{Gamma}(a, b) \ \text{or} \ \log\lambda \sim \mathcal N(\mu, \sigma^2), \\
        \theta_{kb} \mid \lambda &\sim \mathrm{Dirichlet}(\lambda \mathbf 1), \qquad
        n_{kb} \mid \theta_{kb} \sim \mathrm{Multinomial}(N_{kb}, \theta_{kb}).

    With θ integrated out each block's counts are Dirichlet–multinomial, so the PyMC model has
    only λ as a free variable and its cost does not grow with the data:

    .. math::

        \log p(n \mid \lambda) = \sum_{kb} \Big[\log\Gamma(A_{kb}) - \log\Gamma(A_{kb} + N_{kb})
        + \sum_{c \in b} \log\Gamma(\alpha_c + n_c) - \log\Gamma(\alpha_c)\Big]

    (α_c the λ of cell c, A_kb = Σ_{c∈b} α_c). There is no closed form for p(λ | D); given λ the
    posterior predictive is closed-form, so predictions are Rao–Blackwellised:
    p(y = k, x | D) ≈ (1/S) Σ_s p(y = k, x | D, λ_s), averaged as joint probabilities and then
    normalised over k. The class probabilities keep the wrapped model's ``class_alpha``.

    References
    ----------
    .. [1] A. Gelman et al., *Bayesian Data Analysis* (3rd ed.), CRC Press, 2013, chapter 5
       (hierarchical models).
    .. [2] K. P. Murphy, *Machine Learning: A Probabilistic Perspective*, MIT Press, 2012,
       section 5.5 (hierarchical Bayes) and 3.4 (the Dirichlet–multinomial model).
    .. [3] S. Talts, M. Betancourt, D. Simpson, A. Vehtari and A. Gelman, "Validating Bayesian
       inference algorithms with simulation-based calibration", arXiv:1804.06788, 2018.

    Examples
    --------
    ``fit`` runs NUTS; the counting step alone and the exact grid posterior of a shared λ do not:

    >>> import numpy as np
    >>> from pgm_models import HierarchicalNB
    >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 1])
    >>> model = HierarchicalNB().fit_counts(X, y)
    >>> [variable.name for variable in model.pymc_model().free_RVs]
    ['alpha']
    >>> posterior = model.grid_posterior_alpha()
    >>> draws = posterior(model.model_.feature_count_, 2000, np.random.default_rng(0))
    >>> draws.shape
    (2000, 1)
    >>> model.fit(X, y).predict_proba(X[:2]).round(2)  # doctest: +SKIP
    array([[0.7, 0.3],
           [0.8, 0.2]])
    """

    def __init__(
        self,
        model=None,
        hyperprior="gamma",
        hyperprior_params=(1.0, 1.0),
        per_attribute=False,
        draws=1000,
        tune=1000,
        chains=4,
        random_seed=None,
        prediction_draws=200,
        class_prior=None,
    ):
        self.model = model
        self.hyperprior = hyperprior
        self.hyperprior_params = hyperprior_params
        self.per_attribute = per_attribute
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.random_seed = random_seed
        self.prediction_draws = prediction_draws
        self.class_prior = class_prior

    _predicts_when_fitted = "alpha_draws_"  # fit_counts alone has classes_ but no λ to predict with

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        template = CategoricalNB() if self.model is None else self.model
        tags.input_tags = template.__sklearn_tags__().input_tags  # X goes to the wrapped model as it is
        return tags

    def fit(self, X, y, sample_weight=None):
        """Count (X, y) with the wrapped model, then sample λ | counts by NUTS."""
        import pymc as pm

        self.fit_counts(X, y, sample_weight)
        self.idata_ = pm.sample(
            draws=self.draws,
            tune=self.tune,
            chains=self.chains,
            random_seed=self.random_seed,
            model=self.pymc_model(),
            progressbar=False,
        )
        alpha = self.idata_.posterior["alpha"].values
        self.alpha_draws_ = alpha.reshape(-1, self._n_params())
        return self

    def fit_counts(self, X, y, sample_weight=None):
        """Only the counting step of ``fit`` (no sampling): what ``pymc_model``, ``simulate`` and
        the SBC samplers need.
        """
        self._check_hyperprior()
        template = CategoricalNB() if self.model is None else self.model
        if not hasattr(template, "_concentration_index"):
            raise ValueError(
                f"model={template!r}: HierarchicalNB needs a discrete naive Bayes model "
                "(CategoricalNB, BernoulliNB or MultinomialNB)"
            )
        self.model_ = clone(template).set_params(alpha=1.0, class_prior=self.class_prior).fit(X, y, sample_weight)
        self.classes_ = self.model_.classes_
        self.n_features_in_ = self.model_.n_features_in_
        self._simulation_model = None
        return self

    def __getstate__(self):
        """The state less ``posterior_alpha``'s compiled PyMC model and NUTS step: a cache (made
        again on the next call), and not picklable.
        """
        state = {name: value for name, value in super().__getstate__().items() if name != "_simulation_step"}
        if "_simulation_model" in state:
            state["_simulation_model"] = None  # as fit_counts leaves it
        return state

    # ------------------------------------------------------------------ the PyMC model
    def _n_params(self) -> int:
        return self.model_.n_features_in_ if self.per_attribute else 1

    def _layout(self):
        """(cell → free value index (K, T), block indicator (T, B), flat fitted counts (K, T))."""
        model = self.model_
        index = model._concentration_index(self.per_attribute)
        n_classes = len(model.classes_)
        counts = np.asarray(model._feature_counts(), dtype=float).reshape(n_classes, -1)
        sizes = model._loo_blocks()  # the blocks of the flattened (K, T) layout
        sizes = np.array([counts.shape[1]]) if sizes is None else np.asarray(sizes)
        indicator = np.repeat(np.eye(len(sizes)), sizes, axis=0)
        return index.reshape(n_classes, -1), indicator, counts

    def _check_hyperprior(self):
        if self.hyperprior not in HYPERPRIORS:
            raise ValueError(f"hyperprior={self.hyperprior!r} is not one of {HYPERPRIORS}")
        params = np.asarray(self.hyperprior_params, dtype=float)
        if (
            params.shape != (2,)
            or not np.all(np.isfinite(params))
            or (self.hyperprior == "gamma" and np.any(params <= 0))
            or params[1] <= 0
        ):
            raise ValueError(
                f"hyperprior_params={self.hyperprior_params!r}: expected two finite numbers, "
                "(shape > 0, rate > 0) for gamma or (μ, σ > 0) for lognormal"
            )

    def pymc_model(self, counts=None):
        """The counts-form PyMC model: λ ~ hyperprior; the fitted counts (or ``counts``, same
        layout) ~ Dirichlet–multinomial(λ) per class and block, as a Potential. The counts are a
        ``pm.Data`` named "feature_count", so ``pm.set_data`` swaps in simulated ones.
        """
        import pymc as pm
        import pytensor.tensor as pt

        check_is_fitted(self, "model_")
        index, indicator, fitted_counts = self._layout()
        coords = (
            {"attribute": self.model_._feature_names()}
            if self.per_attribute and hasattr(self.model_, "_feature_names")
            else {}
        )
        with pm.Model(coords=coords) as model:
            counts = pm.Data("feature_count", fitted_counts if counts is None else counts)
            first, second = self.hyperprior_params
            dims = ("attribute",) if coords else None
            shape = None if coords or not self.per_attribute else self._n_params()
            if self.hyperprior == "gamma":
                alpha = pm.Gamma("alpha", alpha=first, beta=second, dims=dims, shape=shape)
            else:
                alpha = pm.LogNormal("alpha", mu=first, sigma=second, dims=dims, shape=shape)
            cells = alpha[index] if self.per_attribute else alpha * np.ones(index.shape)
            block_concentration = pt.dot(cells, indicator)
            block_counts = pt.dot(counts, indicator)
            pm.Potential(
                "feature_evidence",
                (pt.gammaln(cells + counts) - pt.gammaln(cells)).sum()
                + (pt.gammaln(block_concentration) - pt.gammaln(block_concentration + block_counts)).sum(),
            )
        return model

    # ------------------------------------------------------------------ prediction
    def _at(self, alpha):
        """A copy of the fitted model with the feature prior at λ = ``alpha`` (its posterior
        updated in closed form).
        """
        model = copy.copy(self.model_)
        model.class_prior = self.class_prior  # set_class_prior may have changed it since the fit
        model._set_feature_prior(np.asarray(alpha, dtype=float)[model._concentration_index(self.per_attribute)])
        return model

    def set_class_prior(self, prior):
        """As ``BayesianClassifier.set_class_prior``: predictions use ``prior`` in place of the
        class-probability posterior (None restores it), without refitting. Returns self.
        """
        check_is_fitted(self, "model_")
        self.model_.set_class_prior(prior)
        self.class_prior = prior
        return self

    def _prediction_draws(self):
        draws = self.alpha_draws_
        keep = np.unique(np.linspace(0, len(draws) - 1, min(len(draws), self.prediction_draws)).round().astype(int))
        return draws[keep]

    @_dask_aware
    def predict_joint_log_proba(self, X):
        """Log p(y = k, x_n | D): the closed-form predictive given λ, averaged over λ's draws.
        A dask X is scored block by block (a dask array, as the other models return).
        """
        check_is_fitted(self, "alpha_draws_")
        joint = np.stack(
            [self._at(alpha).predict_joint_log_proba(X, estimate="predictive") for alpha in self._prediction_draws()]
        )
        return log_sum_exp(joint, axis=0) - np.log(len(joint))

    @_dask_aware
    def predict_log_proba(self, X):
        """Log P(y = k | x_n), averaged over the hyperparameter's posterior."""
        joint = self.predict_joint_log_proba(X)
        return joint - log_sum_exp(joint, axis=1)[:, None]

    @_dask_aware
    def predict_proba(self, X):
        """P(y = k | x_n), averaged over the hyperparameter's posterior."""
        return np.exp(self.predict_log_proba(X))

    @_dask_aware
    def predict(self, X):
        """The most probable class of each row."""
        check_is_fitted(self, "alpha_draws_")  # before classes_ is read
        return self.classes_[np.argmax(self.predict_joint_log_proba(X), axis=1)]

    def loo(self, X, y, conditional=True):
        """Leave-one-out cross-validation of the fitted rows with λ integrated out.

        Given λ the leave-one-out predictive p(y = k, x_i | D₋ᵢ, λ) is exact (the wrapped model's
        conjugate LOO at λ). Only λ's posterior must leave row i out: p(D | λ) = p(D₋ᵢ | λ)
        p(y_i, x_i | D₋ᵢ, λ), so p(λ | D₋ᵢ) ∝ p(λ | D) / p(y_i, x_i | D₋ᵢ, λ), reached from the draws
        λ_s ~ p(λ | D) by importance weights w_is ∝ 1 / p(y_i, x_i | D₋ᵢ, λ_s), Pareto-smoothed and
        normalised (``az.psislw``, relative efficiency from λ's ESS, as ``az.loo``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training rows, exactly those of the fit (each fitted with weight 1).
        y : array-like of shape (n_samples,)
            Their labels.
        conditional : bool, default=True
            Score log p(y_i | x_i, D₋ᵢ); False: the joint log p(y_i, x_i | D₋ᵢ).

        Returns
        -------
        arviz.ELPDData
            ``elpd_loo``, ``se``, ``p_loo``, the pointwise ``loo_i`` and ``pareto_k``, like
            ``az.loo(pointwise=True)``; ``warning`` is set where a ``pareto_k`` exceeds az.loo's threshold.

        Notes
        -----
        With the weights above::

            joint:        log p(y_i, x_i | D₋ᵢ) ≈ log Σ_s w_is p(y_i, x_i | D₋ᵢ, λ_s)
            conditional:  log p(y_i | x_i, D₋ᵢ) ≈ log Σ_s w_is p(y_i, x_i | D₋ᵢ, λ_s)
                                                 − log Σ_s w_is Σ_k p(k, x_i | D₋ᵢ, λ_s)

        The conditional is the ratio of the two λ-integrals, as ``predict_log_proba`` of the model
        fitted without row i would score it (x_i informs λ too). PSIS over λ alone is
        Rao–Blackwellised: the weights vary only as much as one row moves λ, so k is usually small.
        lppd (p_loo = lppd − elpd_loo) is the same score under p(λ | D), the draws unweighted.

        References
        ----------
        .. [1] A. Vehtari, D. Simpson, A. Gelman, Y. Yao and J. Gabry, "Pareto smoothed importance
           sampling", *Journal of Machine Learning Research* 25(72), 1–58, 2024.

        Examples
        --------
        ``fit`` runs NUTS, so this example is not run:

        >>> import numpy as np
        >>> from pgm_models import HierarchicalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = HierarchicalNB(random_seed=0).fit(X, y)  # doctest: +SKIP
        >>> result = model.loo(X, y)  # doctest: +SKIP
        >>> result.loo_i.shape, result.pareto_k.shape  # doctest: +SKIP
        ((6,), (6,))
        """
        import arviz as az

        check_is_fitted(self, "alpha_draws_")
        ess = az.ess(self.idata_, var_names=["alpha"], method="mean")["alpha"].values
        return self._loo_at_draws(X, y, self.alpha_draws_, conditional, float(np.mean(ess)) / len(self.alpha_draws_))

    def _loo_at_draws(self, X, y, draws, conditional, reff):
        """``loo`` over the λ ``draws`` (S, P) of p(λ | D), with PSIS relative efficiency ``reff``."""
        import arviz as az

        from pgm_models.model_selection.loo import elpd_data

        encoded, class_index = self.model_._loo_rows(X, y)
        rows = np.arange(len(class_index))
        # per draw: log p(y_i, x_i | ·, λ_s) and, for the conditional, log p(x_i | ·, λ_s), with
        # · = D (full) and D₋ᵢ (left out); each (S, N)
        full, left_out, full_x, left_out_x = [], [], [], []
        for alpha in draws:
            joint, left = self._at(alpha)._loo_log_joint(encoded, class_index, all_classes=conditional)
            if conditional:
                full_x.append(log_sum_exp(joint, axis=1))
                left_out_x.append(log_sum_exp(left, axis=1))
                joint, left = joint[rows, class_index], left[rows, class_index]
            full.append(joint)
            left_out.append(left)
        left_out = np.array(left_out).T  # (N, S): psislw's samples are the last axis
        log_weights, pareto_k = az.psislw(-left_out, reff)
        pointwise = log_sum_exp(log_weights + left_out, axis=1)
        lppd = log_sum_exp(np.array(full), axis=0) - np.log(len(draws))  # log of the mean over draws
        if conditional:
            pointwise -= log_sum_exp(log_weights + np.array(left_out_x).T, axis=1)
            lppd -= log_sum_exp(np.array(full_x), axis=0) - np.log(len(draws))
        return elpd_data(
            pointwise,
            lppd.sum(),
            n_samples=len(draws),
            pareto_k=np.asarray(pareto_k),
            good_k=min(1 - 1 / np.log10(len(draws)), 0.7),
        )

    def add_log_likelihood(self, X, y):
        """Add to ``idata_`` each training row's ``log_likelihood`` under every NUTS draw of λ, so
        that ``az.loo(model.idata_)`` runs; returns self.

        θ is integrated out, so the rows are not independent given λ alone: the pointwise term
        PSIS needs is the row's leave-one-out predictive given λ, log p(y_i, x_i | D₋ᵢ, λ_s) (the
        wrapped model's exact conjugate LOO at λ_s), as for a non-factorised model (Bürkner, Gabry
        & Vehtari 2021). Its importance ratios 1 / p(y_i, x_i | D₋ᵢ, λ_s) take p(λ | D) to
        p(λ | D₋ᵢ), so ``az.loo(model.idata_)`` estimates log p(y_i, x_i | D₋ᵢ) and its
        ``elpd_loo`` and ``pareto_k`` are those of ``loo(X, y, conditional=False)`` (the same draws
        and weights); its ``p_loo`` differs, as az.loo's lppd averages these left-out terms where
        ``loo``'s averages the full-data predictive. ``observed_data`` gets the rows' class
        indices ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training rows, exactly those of the fit (each fitted with weight 1).
        y : array-like of shape (n_samples,)
            Their labels.

        Returns
        -------
        self
            The model, its ``idata_`` with ``log_likelihood`` ``y`` (chain, draw, row).

        Raises
        ------
        ValueError
            If (X, y) are not the fitted rows (their sufficient statistics differ).

        Examples
        --------
        ``fit`` runs NUTS, so this example is not run:

        >>> import arviz as az
        >>> import numpy as np
        >>> from pgm_models import HierarchicalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = HierarchicalNB(random_seed=0).fit(X, y).add_log_likelihood(X, y)  # doctest: +SKIP
        >>> model.idata_.log_likelihood["y"].shape  # doctest: +SKIP
        (4, 1000, 6)
        >>> az.loo(model.idata_).elpd_loo == model.loo(X, y, conditional=False).elpd_loo  # doctest: +SKIP
        True
        """
        import arviz as az
        import xarray as xr

        from pgm_models.inference.workflow import merge_groups

        check_is_fitted(self, "alpha_draws_")
        posterior = self.idata_.posterior
        alpha = posterior["alpha"].transpose("chain", "draw", ...).values
        chains, draws = alpha.shape[:2]
        encoded, class_index = self.model_._loo_rows(X, y)
        left_out = np.stack(
            [
                self._at(value)._loo_log_joint(encoded, class_index, all_classes=False)[1]
                for value in alpha.reshape(chains * draws, -1)
            ]
        )
        rows = {"row": np.arange(len(class_index))}
        log_likelihood = xr.Dataset(
            {"y": (("chain", "draw", "row"), left_out.reshape(chains, draws, -1))},
            coords={"chain": posterior["chain"].values, "draw": posterior["draw"].values, **rows},
        )
        observed = xr.Dataset(
            {
                "feature_count": (("class", "cell"), self._layout()[2]),
                "y": ("row", class_index),
            },
            coords={"class": self.classes_, **rows},
        )
        merge_groups(self, az.InferenceData(log_likelihood=log_likelihood, observed_data=observed))
        return self

    # ------------------------------------------------------------------ simulation-based calibration
    def simulate(self, rng):
        """(λ, counts) drawn from the model with the fitted block totals N_kb held fixed:
        λ from the hyperprior, θ_kb ~ Dirichlet(λ), counts ~ Multinomial(N_kb, θ_kb).
        """
        first, second = self.hyperprior_params
        size = self._n_params()
        alpha = (
            rng.gamma(first, 1 / second, size)
            if self.hyperprior == "gamma"
            else np.exp(rng.normal(first, second, size))
        )
        return alpha, self._replicated_counts(alpha, rng, posterior=False)

    def _replicated_counts(self, alpha, rng, posterior: bool):
        """Counts ~ Multinomial(N_kb, θ_kb) with the fitted block totals N_kb, θ_kb ~ Dirichlet(λ),
        or its posterior Dirichlet(λ + fitted counts).
        """
        index, indicator, counts = self._layout()
        cells = np.asarray(alpha, dtype=float)[index] + (counts if posterior else 0.0)
        totals = np.rint(counts @ indicator).astype(np.int64)  # (K, B)
        simulated = np.zeros_like(counts)
        for b, column in enumerate(indicator.T):
            members = np.flatnonzero(column)
            theta = _dirichlet_rows(rng, cells[:, members])
            simulated[:, members] = np.stack([rng.multinomial(n, p) for n, p in zip(totals[:, b], theta)])
        return simulated

    # ------------------------------------------------------------------ the Bayesian workflow
    def _workflow_groups(self, **groups):
        """``groups`` and ``observed_data`` (the fitted ``feature_count``) merged into ``idata_``."""
        import arviz as az
        import xarray as xr

        from pgm_models.inference.workflow import merge_groups

        counts = self._layout()[2]
        observed = xr.Dataset({"feature_count": (("class", "cell"), counts)}, coords={"class": self.classes_})
        merge_groups(self, az.InferenceData(observed_data=observed, **groups))
        return self.idata_

    def _count_draws(self, alphas, rng, posterior: bool):
        """(``alpha`` (chain, draw, param), ``feature_count`` (chain, draw, class, cell)) of replicated counts."""
        import xarray as xr

        counts = np.stack([self._replicated_counts(alpha, rng, posterior) for alpha in alphas])
        coords = {"chain": [0], "draw": np.arange(len(alphas)), "class": self.classes_}
        return (
            xr.Dataset({"alpha": (("chain", "draw", "param"), np.asarray(alphas)[None])}, coords=coords),
            xr.Dataset({"feature_count": (("chain", "draw", "class", "cell"), counts[None])}, coords=coords),
        )

    def sample_prior_predictive(self, n=500, random_seed=None):
        """``n`` draws of λ from the hyperprior and, for each, the counts its model observes
        (``simulate``: θ ~ Dirichlet(λ), counts ~ Multinomial with the fitted block totals), as
        ``prior`` ``alpha`` and ``prior_predictive`` ``feature_count``, merged into ``idata_``
        with the fitted counts as ``observed_data``; returns ``idata_``.
        """
        from pgm_models._utils.validation import check_n_draws

        check_is_fitted(self, "model_")
        n = check_n_draws(n, "n")
        rng = np.random.default_rng(random_seed)
        alphas = [self.simulate(rng)[0] for _ in range(n)]
        prior, replicated = self._count_draws(alphas, rng, posterior=False)
        return self._workflow_groups(prior=prior, prior_predictive=replicated)

    def sample_posterior_predictive(self, X=None, n=500, random_seed=None):
        """Posterior predictive draws merged into ``idata_`` as ``posterior_predictive``; returns ``idata_``.

        Given rows X: ``n`` labels per row from the model's predictive ``predict_proba(X)`` (λ
        averaged over its draws; a fixed ``class_prior`` is not applied), as ``y`` and
        ``class_count``. Without X: ``n`` replicates of the counts the model observes, each from
        a λ drawn among ``alpha_draws_`` and θ from its posterior Dirichlet(λ + counts).
        """
        from pgm_models._utils.validation import check_n_draws
        from pgm_models.inference.workflow import label_predictive, sampled_labels

        check_is_fitted(self, "alpha_draws_")
        n = check_n_draws(n, "n")
        rng = np.random.default_rng(random_seed)
        if X is None:
            alphas = self.alpha_draws_[rng.integers(len(self.alpha_draws_), size=n)]
            return self._workflow_groups(posterior_predictive=self._count_draws(alphas, rng, posterior=True)[1])
        model = copy.copy(self)
        model.class_prior = None
        predictive = model.predict_proba(X)
        labels = sampled_labels(np.broadcast_to(predictive, (1, n, *predictive.shape)), rng)
        return self._workflow_groups(posterior_predictive=label_predictive(self, labels))

    def graph(self, form="counts"):
        """``pm.model_to_graphviz`` of :meth:`pymc_model` (λ's hyperprior and the counts it
        explains; its only form, "counts"): a ``graphviz.Digraph``; without Graphviz's ``dot``, a
        warning, and the DOT text is its ``.source``.
        """
        if form != "counts":
            raise ValueError(f"form={form!r}: HierarchicalNB's PyMC model has the counts form only")
        from pgm_models.inference.workflow import model_graph

        return model_graph(self.pymc_model())

    def posterior_alpha(self, counts, n_draws, rng):
        """``n_draws`` NUTS draws of λ given ``counts``, thinned evenly from all chains.

        For many simulated datasets one model and one compiled NUTS step are reused (the counts
        are swapped with ``pm.set_data``; each call tunes afresh for ``tune`` steps), which
        makes a replication several times cheaper than a fresh ``pm.sample``.
        """
        import pymc as pm

        if getattr(self, "_simulation_model", None) is None:
            self._simulation_model = self.pymc_model()
            with self._simulation_model:
                self._simulation_step = pm.NUTS()
        with self._simulation_model:
            pm.set_data({"feature_count": counts})
            idata = pm.sample(
                draws=self.draws,
                tune=self.tune,
                chains=self.chains,
                cores=1,
                step=self._simulation_step,
                progressbar=False,
                random_seed=int(rng.integers(2**31)),
                compute_convergence_checks=False,
            )
        draws = idata.posterior["alpha"].values.reshape(-1, self._n_params())
        return draws[np.linspace(0, len(draws) - 1, n_draws).round().astype(int)]

    def grid_posterior_alpha(self, n_grid=2000, span=(1e-4, 1e4)):
        """An exact sampler of a shared λ | counts: the PyMC model's own log density on a fine
        grid of log λ (its Jacobian included), drawn from by inverse CDF. Returns
        ``posterior(counts, n_draws, rng)`` for ``simulation_based_calibration``; the model is
        compiled once.
        """
        import pymc as pm

        if self.per_attribute:
            raise ValueError("grid_posterior_alpha needs one shared alpha (per_attribute=False)")
        model = self.pymc_model()
        logp = model.compile_logp()
        value_name = model.rvs_to_values[model["alpha"]].name
        grid = np.linspace(np.log(span[0]), np.log(span[1]), n_grid)

        def posterior(counts, n_draws, rng):
            with model:
                pm.set_data({"feature_count": counts})
            density = np.array([logp({value_name: g}) for g in grid])
            weights = np.exp(density - density.max())
            cdf = np.concatenate(([0.0], np.cumsum((weights[1:] + weights[:-1]) / 2)))
            draws = np.interp(rng.random(n_draws) * cdf[-1], cdf, grid)
            return np.exp(draws)[:, None]

        return posterior


def _dirichlet_rows(rng, concentration):
    """One Dirichlet draw per row of ``concentration`` (normalised Gammas)."""
    gammas = rng.standard_gamma(concentration)
    total = gammas.sum(axis=1, keepdims=True)
    # tiny concentrations can underflow every Gamma of a row: the Dirichlet's limit is a vertex
    vertex = np.eye(concentration.shape[1])[np.argmax(concentration * rng.random(concentration.shape), axis=1)]
    return np.where(total > 0, gammas / np.where(total > 0, total, 1.0), vertex)
