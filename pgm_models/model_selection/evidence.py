"""Empirical Bayes: choose prior concentrations by maximising the closed-form marginal likelihood.

Type-II maximum likelihood picks the hyperparameters λ that maximise the evidence

    log p(D | λ) = Σ_blocks log Γ(A) − log Γ(A + N) + Σ_cells [log Γ(α_c + n_c) − log Γ(α_c)]

of a Dirichlet–multinomial model (the sum of ``Dirichlet.log_evidence``; the multinomial
coefficients do not depend on λ), each cell concentration α_c being one of the free values λ_p.
Its gradient is ∂/∂α_c = ψ(α_c + n_c) − ψ(α_c) + ψ(A) − ψ(A + N) (``log_evidence_gradient``),
summed over the cells that share λ_p. One optimiser serves every such prior:
L-BFGS-B on log λ (so λ stays positive and the scale is natural), with the analytic gradient
λ_p ∂/∂λ_p, within [1e-6, 1e6]. The Gaussian priors' search then takes Newton steps on that
gradient (``polish_on_the_gradient``): their strengths far above the row count make flat
directions along which L-BFGS-B, judging by the function's value, stops anywhere within a wide
region, and a value whose evidence still rises at 1e6 stays exactly on that bound, the others
at their optimum given it.

Estimator options (a mixin; the estimator's ``alpha``/``class_alpha`` accept them):

* ``"evidence"`` — one shared concentration;
* ``"evidence-per-attribute"`` (``alpha`` only) — one per attribute (per word for
  MultinomialNB, per feature for BernoulliNB).

The learned values are ``alpha_`` and ``class_alpha_``. They are re-learned from the
sufficient statistics after every ``fit``/``partial_fit`` batch, so the optimum depends only on
the total counts: row order and chunking do not change it.

The Gaussian models (``GaussianEvidence``) learn their Normal–Inverse-Gamma / Normal–Inverse-
Wishart hyperparameters the same way, from the closed-form evidence of the conjugate classes
(``NormalInverseGamma.log_evidence``, ``NormalInverseWishart.log_evidence`` and their analytic
gradients): each of the parameters named in ``evidence_parameters`` set to ``"evidence"`` is
a free positive block of the one optimiser (``maximize_log_evidence_of``).
"""

from __future__ import annotations

import copy

import numpy as np
from scipy.optimize import minimize

from pgm_models._utils.threads import single_blas_thread
from pgm_models._utils.validation import check_concentration
from pgm_models.conjugate import Dirichlet

EVIDENCE = "evidence"
EVIDENCE_OPTIONS = (EVIDENCE, "evidence-per-attribute")
LOG_BOUNDS = (np.log(1e-6), np.log(1e6))


@single_blas_thread  # L-BFGS-B on a few parameters: BLAS threads only oversubscribe (much slower under load)
def maximize_log_evidence(log_evidence_and_gradient, n_params: int, start=None, polish: bool = False):
    """Maximise ``f(λ)`` over λ > 0 given ``log_evidence_and_gradient(λ) -> (f, ∂f/∂λ)``:
    L-BFGS-B on log λ from ``start`` (default 1), then, with ``polish``, Newton steps on the
    gradient (``polish_on_the_gradient``). Returns (λ̂, f(λ̂)).
    """
    x0 = np.zeros(n_params) if start is None else np.log(np.broadcast_to(np.asarray(start, float), (n_params,)))

    def negative(log_params):
        params = np.exp(log_params)
        value, gradient = log_evidence_and_gradient(params)
        return -value, -gradient * params  # chain rule: ∂f/∂log λ = λ ∂f/∂λ

    result = minimize(
        negative,
        x0,
        jac=True,
        method="L-BFGS-B",
        bounds=[LOG_BOUNDS] * n_params,
        options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 1000},
    )
    if not result.success and "ABNORMAL" not in str(result.message):
        raise RuntimeError(f"evidence maximisation did not converge: {result.message}")
    best = polish_on_the_gradient(lambda x: -negative(x)[1], result.x) if polish else result.x
    return np.exp(best), log_evidence_and_gradient(np.exp(best))[0]


POLISH_MAX_FREE = 256  # free values beyond which the dense Hessian costs more than the polish is worth
_POLISH_STEP = 1e-6  # forward-difference step in log λ: the gradient's rounding over it stays far below the curvature


def polish_on_the_gradient(gradient, x, max_steps: int = 20):
    """Newton's method on the log-space gradient from L-BFGS-B's stop ``x``: the values inside
    the bounds (and those on a bound whose gradient points inward) take Newton steps with a
    forward-difference Hessian of the analytic gradient; a value that a step takes past a bound
    stays on it. L-BFGS-B stops where the *function* stops improving, which along a flat
    direction (a strength far above the row count, the evidence then changing by a few ulps of
    its value) is anywhere in a wide region, so two fits of the same statistics (one ``fit``,
    or ``partial_fit`` batches whose moments differ in the last bits) stopped far apart; the
    gradient still resolves the optimum there. Returns ``x`` unchanged where the Hessian is not
    negative definite (not a maximum's neighbourhood) or more than ``POLISH_MAX_FREE`` values are
    free.
    """
    low, high = LOG_BOUNDS
    x = np.clip(np.asarray(x, float).copy(), low, high)
    decrement = np.inf
    for _ in range(max_steps):
        g = gradient(x)
        free = ((x > low) | (g > 0)) & ((x < high) | (g < 0))
        index = np.flatnonzero(free)
        if not 0 < len(index) <= POLISH_MAX_FREE:
            return x
        hessian = np.empty((len(index), len(index)))
        for column, i in enumerate(index):
            step = np.zeros_like(x)
            step[i] = _POLISH_STEP
            hessian[:, column] = (gradient(x + step)[index] - g[index]) / _POLISH_STEP
        hessian = (hessian + hessian.T) / 2
        try:
            chol = np.linalg.cholesky(-hessian)
        except np.linalg.LinAlgError:
            return x
        move = np.linalg.solve(chol.T, np.linalg.solve(chol, g[index]))  # (−H)⁻¹ g: the ascent step
        new_decrement = g[index] @ move
        if not new_decrement < decrement:  # no longer shrinking: the gradient's rounding is reached
            return x
        decrement = new_decrement
        x[index] = np.clip(x[index] + move, low, high)
        if decrement < 1e-28:
            return x
    return x


def maximize_log_evidence_of(log_evidence_and_gradient, values: dict, learned) -> dict:
    """``maximize_log_evidence`` over the blocks of ``values`` (a dict of positive numbers or
    arrays) named in ``learned``, the others held fixed, starting from ``values``;
    ``log_evidence_and_gradient(values) -> (f, {name: ∂f/∂values[name]})``. Returns the values
    at the optimum.
    """
    ends = np.cumsum([np.size(values[name]) for name in learned])

    def unpack(params):
        blocks = np.split(params, ends[:-1])
        return {**values, **{name: block.reshape(np.shape(values[name])) for name, block in zip(learned, blocks)}}

    def flat(params):
        value, gradient = log_evidence_and_gradient(unpack(params))
        return value, np.concatenate([np.ravel(gradient[name]) for name in learned])

    start = np.concatenate([np.ravel(values[name]) for name in learned]).astype(float)
    best, _ = maximize_log_evidence(flat, len(start), start, polish=True)
    return unpack(best)


def dirichlet_evidence(counts, block_sizes, cell_param: np.ndarray):
    """(log p(D | λ), ∂/∂λ) of Dirichlet blocks whose cell c has concentration λ[cell_param[c]]."""
    n_params = int(cell_param.max()) + 1

    def value_and_gradient(params):
        prior = Dirichlet(params[cell_param], block_sizes)
        cell_gradient = prior.log_evidence_gradient(counts)
        return prior.log_evidence(counts).sum(), np.bincount(cell_param.ravel(), cell_gradient.ravel(), n_params)

    return value_and_gradient, n_params


def is_learned(value) -> bool:
    """Whether a hyperparameter's value asks for it to be learned (a string: "evidence")."""
    return isinstance(value, str)


def check_option(value, name: str, options=EVIDENCE_OPTIONS, otherwise="a number ≥ 0"):
    """Refuse a value of hyperparameter ``name`` that is not one of ``options`` (the strings it takes), naming it."""
    if value not in options:
        raise ValueError(f"{name}={value!r}: a string must be one of {options} (or give {otherwise})")


class EmpiricalBayes:
    """Mixin for learned hyperparameters: ``class_alpha`` and the feature-prior parameters named
    in ``evidence_parameters``, when equal to an option above, are learned by type-II maximum
    likelihood after each batch is counted. The estimator reads its starting class concentration
    through ``_concentration_parameter``; the feature part is learned by
    ``_learn_feature_prior(learned)``, given the names set to an option.
    """

    evidence_parameters: tuple = ()

    def _learned_options(self, name: str) -> tuple:
        """The strings hyperparameter ``name`` takes."""
        return EVIDENCE_OPTIONS if name == "alpha" else (EVIDENCE,)

    def _check_hyperparameters(self):
        """``class_alpha`` and the ``evidence_parameters``, when strings, are among their options."""
        super()._check_hyperparameters()
        for name in ("class_alpha", *self.evidence_parameters):
            value = getattr(self, name, None)  # the semi-naive SPODE and AODE have no class_alpha
            if is_learned(value):
                check_option(value, name, self._learned_options(name))

    def _concentration_parameter(self, value, name, length, length_name):
        """The checked concentration, or a start of 1 (refined after counting) if it is learned."""
        if is_learned(value):
            check_option(value, name, self._learned_options(name))
            return np.ones(length) if value != EVIDENCE else np.asarray(1.0)
        return check_concentration(value, name, length, length_name)

    def _class_concentration(self, n_classes):
        return self._concentration_parameter(self.class_alpha, "class_alpha", n_classes, "class")

    def _partial_fit(self, X, labels, classes, sample_weight):
        super()._partial_fit(X, labels, classes, sample_weight)
        return self._learn_hyperparameters()

    def _learn_hyperparameters(self):
        """Maximise the evidence of the statistics counted so far over the learned parameters
        (after every batch; the dask engine calls it once its blocks' statistics are merged).
        """
        if is_learned(getattr(self, "class_alpha", None)):  # the semi-naive SPODE and AODE have none
            learn, n_params = dirichlet_evidence(self.class_count_, None, np.zeros(len(self.classes_), dtype=np.intp))
            (self.class_alpha_,), _ = maximize_log_evidence(learn, n_params)
            self._class_prior = Dirichlet(np.full(len(self.classes_), self.class_alpha_))
            self.class_concentration_ = self._class_prior.posterior(self.class_count_).concentration
        learned = [name for name in self.evidence_parameters if is_learned(getattr(self, name))]
        if learned:
            self._learn_feature_prior(learned)
        return self

    def _check_proper_prior(self):
        """A learned class_alpha is positive; a fixed one is checked as usual."""
        if not is_learned(self.class_alpha):
            super()._check_proper_prior()


class DirichletEvidence(EmpiricalBayes):
    """Type-II ML of ``alpha`` for the discrete naive Bayes models: their prior concentration is
    ``_prior_concentration(alpha)`` with alpha one number or one per attribute, so evaluating it
    at the attribute indices 0..F−1 tells which free value every cell takes.
    """

    evidence_parameters = ("alpha",)

    def _learn_feature_prior(self, learned):
        per_attribute = self.alpha != EVIDENCE
        cell_param = self._concentration_index(per_attribute)
        learn, n_params = dirichlet_evidence(self._feature_counts(), self._feature_blocks(), cell_param)
        alpha, _ = maximize_log_evidence(learn, n_params)
        self.alpha_ = alpha if per_attribute else float(alpha[0])
        self._set_feature_prior(alpha[cell_param])

    def _concentration_index(self, per_attribute: bool) -> np.ndarray:
        """Which free value (attribute index, or 0 when shared) each prior cell takes."""
        index = self._prior_concentration(np.arange(self.n_features_in_)).astype(np.intp)
        return index if per_attribute else np.zeros_like(index)

    def _set_feature_prior(self, concentration):
        """Replace the feature prior (cells in the layout of ``_prior_concentration``) and its posterior."""
        self._feature_prior = Dirichlet(concentration, self._feature_blocks())
        self.feature_concentration_ = self._feature_prior.posterior(self._feature_counts()).concentration

    def log_evidence(self) -> float:
        r"""The log marginal likelihood of the fitted data, log p(D | alpha, class_alpha).

        The closed-form evidence of the rows in their order (no multinomial coefficients): the
        Dirichlet–categorical class sequence plus every feature block's Dirichlet–multinomial term,

        .. math::

            \log p(D \mid \alpha) = \sum_\mathrm{blocks} \Big[\log\Gamma(A) - \log\Gamma(A + N)
            + \sum_\mathrm{cells} \log\Gamma(\alpha_c + n_c) - \log\Gamma(\alpha_c)\Big],

        the quantity ``alpha="evidence"`` and ``class_alpha="evidence"`` maximise.

        Returns
        -------
        float
            log p(D | alpha, class_alpha).

        See Also
        --------
        pgm_models.use_evidence_priors : Learn the priors that maximise it.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import BernoulliNB
        >>> X = np.array([[1], [1], [0]])
        >>> y = np.array([0, 0, 0])
        >>> model = BernoulliNB(alpha=1.0, class_alpha=1.0).fit(X, y)
        >>> round(model.log_evidence(), 4)  # the class term is 0; Beta(1, 1): 2! 1! / 4! = 1/12
        -2.4849
        """
        return float(
            self._class_prior.log_evidence(self.class_count_).sum()
            + self._feature_prior.log_evidence(self._feature_counts()).sum()
        )


class GaussianEvidence(EmpiricalBayes):
    """Type-II ML of the Gaussian models' prior (GaussianNB: NIG; LDA/QDA: NIW). The model keeps
    its free hyperparameters as a dict of positive values (``_prior_values``, set at the first
    batch with the data-scaled references they multiply) and says how they make the prior
    (``_prior_from``) and how the conjugate class's gradient maps onto them
    (``_prior_gradient``); the names set to "evidence" are re-learned from the total
    (n_k, x̄_k, S_k) after every batch, the model first re-deriving its data-scaled references
    and starting values from those totals (so the optimum does not depend on the chunking).
    The learned values are exposed as ``<name>_`` (``_learned_attributes``).
    """

    def _hyperparameter(self, name: str, start: float, minimum: float = 0.0) -> float:
        """The checked strength, or the optimiser's ``start`` when it is "evidence"."""
        value = getattr(self, name)
        if isinstance(value, str):
            check_option(value, name, (EVIDENCE,), f"a number > {minimum:g}")
            return start
        return self._check_strength(name, minimum)

    def _start_prior(self, values: dict):
        """Set the prior at its starting hyperparameters (the first batch), forgetting the values
        a previous fit learned.
        """
        for name in self.evidence_parameters:
            self.__dict__.pop(f"{name}_", None)
        self._prior_values = values
        self._prior = self._prior_from(values)

    def _learn_feature_prior(self, learned):
        moments = self._moments()

        def value_and_gradient(values):
            prior = self._prior_from(values)
            return prior.log_evidence(*moments).sum(), self._prior_gradient(
                values, prior.log_evidence_gradient(*moments)
            )

        self._prior_values = maximize_log_evidence_of(value_and_gradient, self._prior_values, learned)
        self._prior = self._prior_from(self._prior_values)
        for name, value in self._learned_attributes().items():
            if name in learned:
                setattr(self, f"{name}_", value)

    def log_evidence(self) -> float:
        """The log marginal likelihood of the fitted rows, log p(D | prior).

        The Dirichlet–categorical class sequence plus the features' closed-form Normal–Inverse-Gamma
        (GaussianNB) or Normal–Inverse-Wishart (LDA, QDA) marginal likelihood, of the rows in their
        order: the quantity the "evidence" options maximise.

        Returns
        -------
        float
            log p(D | class_alpha, m0, κ0, ν0, s0² or Ψ0).

        See Also
        --------
        pgm_models.use_evidence_priors : Learn the priors that maximise it.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import GaussianNB
        >>> X = np.array([[1.0], [1.2], [0.8], [3.0], [3.3], [2.9]])
        >>> y = np.array([0, 0, 0, 1, 1, 1])
        >>> fixed = GaussianNB().fit(X, y)
        >>> learned = GaussianNB(mean_strength="evidence", var_strength="evidence").fit(X, y)
        >>> bool(learned.log_evidence() >= fixed.log_evidence())
        True
        """
        return float(
            self._class_prior.log_evidence(self.class_count_).sum() + self._prior.log_evidence(*self._moments()).sum()
        )


def describe_prior(classifier) -> str:
    """The hyperparameters an estimator learned by maximum evidence, as one line.

    Parameters
    ----------
    classifier : fitted estimator
        A fitted model of the zoo.

    Returns
    -------
    str
        e.g. ``"alpha=0.93, class_alpha=10.1"`` (a learned vector as its range and size); "" when
        nothing was learned.

    See Also
    --------
    use_evidence_priors : Asks an estimator to learn them.

    Examples
    --------
    >>> from pgm_models import CategoricalNB, describe_prior, load_dataset, use_evidence_priors
    >>> X, y = load_dataset("vote")
    >>> model = CategoricalNB()
    >>> describe_prior(model.fit(X, y))
    ''
    >>> use_evidence_priors(model)
    True
    >>> describe_prior(model.fit(X, y))
    'alpha=0.934, class_alpha=10.1'
    """
    parts = []
    settings = classifier.get_params(deep=False)
    declared = getattr(classifier, "evidence_parameters", ())
    others = [name for name in settings if name not in declared and name != "class_alpha"]
    for name in [*declared, *others, "class_alpha"]:  # the feature prior's, any other learned one, the class prior's
        value = getattr(classifier, f"{name}_", None) if _is_evidence_option(settings.get(name)) else None
        if value is not None:
            value = np.atleast_1d(np.diagonal(value) if np.ndim(value) == 2 else value)  # a covariance: its variances
            parts.append(
                f"{name}={value[0]:.3g}"
                if value.size == 1
                else f"{name}={value.min():.3g}…{value.max():.3g} ({value.size})"
            )
    return ", ".join(parts)


def use_evidence_priors(classifier) -> bool:
    r"""Switch an estimator to priors learned by maximum marginal likelihood (empirical Bayes).

    Sets to "evidence" every parameter that the estimator, with its other settings as they are,
    accepts "evidence" for: ``alpha`` and ``class_alpha`` of the discrete models (not ``alpha``
    of AODEsr, WAODE and HNB under their default m-estimate, nor of A2DE), the prior strengths and
    scale of the Gaussian ones, MANB's ``arc_prior``; the others are left as they are. The
    estimator is asked through its hyperparameter check (``_check_hyperparameters``, which
    accepts "evidence" for such a parameter and refuses any other string). At each ``fit`` they
    are then chosen to maximise the closed-form log evidence log p(D | λ) (L-BFGS-B on log λ in
    [1e-6, 1e6] with the analytic gradient), re-learned from the total counts after every batch.

    Parameters
    ----------
    classifier : estimator
        A model of the zoo; it is changed in place.

    Returns
    -------
    bool
        True if the estimator learns some of its priors, False (and unchanged) if none.

    See Also
    --------
    describe_prior : The values learned.

    Notes
    -----
    For a Dirichlet–multinomial model the evidence is

    .. math::

        \log p(D \mid \lambda) = \sum_\mathrm{blocks} \Big[\log\Gamma(A) - \log\Gamma(A + N)
        + \sum_\mathrm{cells} \log\Gamma(\alpha_c + n_c) - \log\Gamma(\alpha_c)\Big],

    each cell concentration α_c being one of the free values λ; the Gaussian models use the
    closed-form Normal–Inverse-Gamma / Normal–Inverse-Wishart evidence.

    References
    ----------
    .. [1] K. P. Murphy, *Machine Learning: A Probabilistic Perspective*, MIT Press, 2012,
       section 5.6 (empirical Bayes).
    .. [2] T. Minka, "Estimating a Dirichlet distribution", technical report, 2000.

    Examples
    --------
    >>> from pgm_models import CategoricalNB, LogisticRegression, use_evidence_priors
    >>> model = CategoricalNB()
    >>> use_evidence_priors(model), model.alpha, model.class_alpha
    (True, 'evidence', 'evidence')
    >>> use_evidence_priors(LogisticRegression())
    False
    >>> from pgm_models import AODEsr, MANB
    >>> use_evidence_priors(AODEsr())  # the m-estimate's m is fixed; AODEsr(estimator="laplace") learns alpha
    False
    >>> model = MANB()
    >>> use_evidence_priors(model), model.arc_prior
    (True, 'evidence')
    """
    learnable = [name for name in classifier.get_params(deep=False) if _takes_evidence(classifier, name)]
    if learnable:
        classifier.set_params(**dict.fromkeys(learnable, EVIDENCE))
    return bool(learnable)


def _is_evidence_option(value) -> bool:
    return isinstance(value, str) and value in EVIDENCE_OPTIONS


def _takes_evidence(classifier, name: str) -> bool:
    """Whether the estimator's own hyperparameter check (``_check_hyperparameters``, the
    template's hook) accepts ``name="evidence"`` with its other settings as they are, and refuses
    another string there: a parameter the check does not look at is not one it learns.
    """
    check = getattr(classifier, "_check_hyperparameters", None)
    if check is None:  # not a model of the template
        return False

    def accepted(value) -> bool:
        trial = copy.copy(classifier)
        trial.set_params(**{name: value})
        try:
            trial._check_hyperparameters()
        except ValueError:
            return False
        return True

    return accepted(EVIDENCE) and not accepted("not-a-hyperparameter-option")
