"""MANB: exact Bayesian model averaging over the naive Bayes feature subsets.

Model (Dash & Cooper 2002; Wei, Visweswaran & Cooper 2011). A structure S ⊆ {1..F} says which
attributes have the arc C → X_j; an attribute outside S is independent of the class but still
modelled, so every structure scores the same data. Independently for each attribute,
P(j ∈ S) = π (``arc_prior``). Given S, with Dirichlet(α) tables (α per cell, ``alpha``):

    x_j | y, S ~ Categorical(θ_{j,y}),  θ_{j,k} ~ Dirichlet(α 1_{r_j})      (j ∈ S)
    x_j | S    ~ Categorical(θ_j),      θ_j   ~ Dirichlet(α 1_{r_j})        (j ∉ S)

The marginal likelihood factorises over attributes, p(D | S) = ML_C Π_{j∈S} W_j Π_{j∉S} V_j with
W_j = Π_k DirMult(n_{kj·} | α) (column j given the class) and V_j = DirMult(n_{·j·} | α)
(column j alone), so the structure posterior is a product of independent arcs,

    p_j = P(j ∈ S | D) = π W_j / (π W_j + (1 − π) V_j),

and the model average of the predictive, Σ_S P(S | D) P(y | D) Π_j P(x_j | pa_S(j), D), factorises
the same way (each term of the sum over the 2^F subsets picks one of two factors per attribute):

    P(y, x | D) = P(y | D) Π_j [p_j P(x_j | y, D) + (1 − p_j) P(x_j | D)],

with P(y | D) = (N_y + class_alpha)/(N + K class_alpha), P(x_j = v | y, D) = (n_{yjv} + α)/(n_{yj} + r_j α)
and P(x_j = v | D) = (n_{·jv} + α)/(n_{·j} + r_j α). The evidence of the average is
log p(D) = log ML_C + Σ_j log(π W_j + (1 − π) V_j). Missing values: available cases (W_j and V_j
on the rows where x_j is observed, the same rows for both, so they compare), summed out at
prediction (a factor 1).

Leave-one-out (``loo``) is exact: without row i each W_j and V_j loses the row's own
Dirichlet–categorical factor, W_j(D₋ᵢ) = W_j / P(x_ij | y_i, D₋ᵢ) and V_j(D₋ᵢ) = V_j / P(x_ij | D₋ᵢ), which
gives p_j(D₋ᵢ), and the tables are downdated as in ``pgm_models.model_selection.loo``: O(F) per row.
A learned ``arc_prior_`` stays that of the full fit (as a learned α does in the package's LOO).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from pgm_models._utils.validation import is_number
from pgm_models.bayes_net._base import DiscreteNetwork
from pgm_models.conjugate import Dirichlet, PosteriorDraw, log_probabilities
from pgm_models.model_selection.evidence import (
    EVIDENCE,
    check_option,
    is_learned,
    maximize_log_evidence,
)
from pgm_models.model_selection.loo import ExactLOO, own_column


def arc_evidence(log_with, log_without):
    """(f(λ), f'(λ)) of the arc prior's odds λ = π/(1 − π):
    f = Σ_j log(π W_j + (1 − π) V_j) = Σ_j log(λ W_j + V_j) − F log(1 + λ).
    """

    def value_and_gradient(odds):
        odds = float(odds[0])
        value = np.logaddexp(np.log(odds) + log_with, log_without).sum() - len(log_with) * np.log1p(odds)
        with np.errstate(over="ignore"):
            gradient = (1.0 / (odds + np.exp(log_without - log_with))).sum() - len(log_with) / (1 + odds)
        return value, np.array([gradient])

    return value_and_gradient


class MANB(ExactLOO, DiscreteNetwork):
    r"""Model-averaged naive Bayes: the exact average over all 2^F subsets of class → attribute arcs.

    Each attribute either depends on the class (the arc C → X_j) or not; rather than selecting
    the attributes, MANB averages the naive Bayes models of all 2^F subsets, each weighted by its
    posterior probability. The average factorises over the attributes, so it is exact and costs
    what one naive Bayes costs; ``arc_posterior_`` tells how probable each attribute's dependence
    on the class is.

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet concentration of every cell of an attribute's table, with or without the class
        as its parent (> 0; α = 1 is the K2 prior of Cooper & Herskovits).
    class_alpha : float, default=1.0
        Dirichlet concentration of the class probabilities (> 0).
    arc_prior : float or "evidence", default=0.5
        Prior probability π in (0, 1) of each arc C → X_j, independently; "evidence" learns it by
        maximising the marginal likelihood of the average (type-II maximum likelihood,
        ``arc_prior_``).
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The tables plugged into the average (the arc posteriors are always exact); "mean" and
        "predictive" give the exact model-averaged posterior predictive.
    n_categories : int or array-like of shape (n_features,), default=None
        Domain size of integer-coded attributes (values 0..n−1), as in :class:`CategoricalNB`.
    handle_unknown : {"missing", "error"}, default="missing"
        A value outside an attribute's domain at prediction is skipped like a missing value (with
        a warning) or raises.
    class_prior : array-like of shape (n_classes,), default=None
        A prevalence-shift correction: predictions use these class probabilities (in the order of
        ``classes_``) in place of the class-probability posterior, under every estimate;
        ``set_class_prior`` changes them on a fitted model without refitting. None: the posterior.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        N_k, the (weighted) number of training rows of each class.
    class_concentration_ : ndarray of shape (n_classes,)
        The posterior Dirichlet concentration of the class probabilities, class_alpha + N_k.
    categories_ : list of ndarray
        The domain of each attribute.
    n_categories_ : ndarray of shape (n_features,)
        The domain sizes r_j.
    feature_count_ : ndarray of shape (n_classes, T)
        n_kjv, the (weighted) count of value v of attribute j among the rows of class k, the
        attributes' blocks of r_j values side by side (T = Σ_j r_j); its column sums are the
        counts of the models without the arc.
    arc_posterior_ : ndarray of shape (n_features,)
        p_j = P(C → X_j | D), the posterior probability that attribute j depends on the class.
    arc_prior_ : float
        The prior arc probability π used: ``arc_prior``, or the learned one with
        ``arc_prior="evidence"``.
    n_features_in_ : int
        The number of attributes seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.

    See Also
    --------
    CategoricalNB : The single model with every arc (MANB's limit as π → 1).
    BMATAN : The exact average over tree-augmented naive Bayes structures.
    BayesNetClassifier : One structure found by a search instead of an average.

    Notes
    -----
    A structure S ⊆ {1..F} says which attributes have the arc C → X_j; an attribute outside S is
    still modelled, independent of the class, so every structure scores the same data. Given S,
    with Dirichlet(α) tables, x_j | y ~ Categorical(θ_{j,y}) for j ∈ S and x_j ~ Categorical(θ_j)
    for j ∉ S. The marginal likelihood factorises over the attributes: with W_j the
    Dirichlet–multinomial evidence of column j given the class and V_j that of column j alone,

    .. math::

        p_j = P(j \in S \mid D) = \frac{\pi W_j}{\pi W_j + (1 - \pi) V_j},

    and the model average of the posterior predictive factorises the same way,

    .. math::

        P(y, x \mid D) = P(y \mid D) \prod_j \bigl[p_j P(x_j \mid y, D) + (1 - p_j) P(x_j \mid D)\bigr],

    with the Dirichlet posterior means ``P(y | D) = (N_y + class_alpha)/(N + K class_alpha)``,
    ``P(x_j = v | y, D) = (n_yjv + α)/(n_yj + r_j α)`` and
    ``P(x_j = v | D) = (n_·jv + α)/(n_·j + r_j α)`` (the counts of all the classes together).
    Missing values: W_j and V_j are computed on the rows observing x_j, and a missing value adds
    a factor 1 at prediction. Fitting costs one pass over the rows plus O(K T) for the arcs; a
    test row costs O(K F), and so does its exact leave-one-out score (``loo``). ``partial_fit``
    adds counts: the arc posteriors and a learned ``arc_prior_`` are recomputed from the totals.

    References
    ----------
    .. [1] D. Dash and G. F. Cooper, "Exact model averaging with naive Bayesian classifiers",
       *Proceedings of ICML 2002*, 2002.
    .. [2] W. Wei, S. Visweswaran and G. F. Cooper, "The application of naive Bayes model
       averaging to predict Alzheimer's disease from genome-wide data", *Journal of the American
       Medical Informatics Association* 18(4), 370–375, 2011.

    Examples
    --------
    >>> from pgm_models import MANB, load_dataset
    >>> X, y = load_dataset("weather.nominal")
    >>> model = MANB(arc_prior=0.5).fit(X, y)
    >>> model.arc_posterior_.round(2).tolist()  # outlook, temperature, humidity, windy
    [0.68, 0.37, 0.67, 0.47]
    >>> model.predict_proba(X.iloc[:1]).round(3).tolist()
    [[0.595, 0.405]]
    """

    def __init__(
        self,
        alpha=1.0,
        class_alpha=1.0,
        arc_prior=0.5,
        estimate="mean",
        n_categories=None,
        handle_unknown="missing",
        class_prior=None,
    ):
        self.alpha = alpha
        self.class_alpha = class_alpha
        self.arc_prior = arc_prior
        self.estimate = estimate
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown
        self.class_prior = class_prior

    def _check_hyperparameters(self):
        if is_learned(self.arc_prior):
            check_option(self.arc_prior, "arc_prior", (EVIDENCE,), "a number in (0, 1)")
        elif not (is_number(self.arc_prior) and 0 < self.arc_prior < 1):
            raise ValueError(f"arc_prior must be a number in (0, 1) or 'evidence', got {self.arc_prior!r}")
        if not (is_number(self.alpha) and np.isfinite(self.alpha) and self.alpha > 0):
            raise ValueError(f"alpha must be a number > 0, got {self.alpha!r}")

    # ------------------------------------------------------------------ counts and arcs
    def _init_counts(self, codes, class_index, weight):
        self.feature_count_ = np.zeros((len(self.classes_), int(self.n_categories_.sum())))

    def _count(self, codes, class_index, weight):
        self.feature_count_ = self.feature_count_ + self._batch_value_counts(codes, class_index, weight)
        log_with, log_without = self._arc_log_evidence()
        if is_learned(self.arc_prior):
            (odds,), _ = maximize_log_evidence(arc_evidence(log_with, log_without), 1)
            self.arc_prior_ = float(odds / (1 + odds))
        else:
            self.arc_prior_ = float(self.arc_prior)
        self.arc_posterior_ = expit(np.log(self.arc_prior_) - np.log1p(-self.arc_prior_) + log_with - log_without)

    _averaged = True

    def _synthetic_rows(self, n_datasets, n_rows, rng, prior):
        """Per dataset the arcs (each present with ``arc_prior_``, or its posterior
        ``arc_posterior_``), π and the tables of the drawn structure from their prior or posterior
        (an attribute with its arc given the class, one without it alone), then the rows.
        """
        from pgm_models.inference.workflow import dirichlet_draws, sampled_labels

        arcs = rng.random((n_datasets, self.n_features_in_)) < (self.arc_prior_ if prior else self.arc_posterior_)
        counts = np.zeros_like(self.feature_count_) if prior else self.feature_count_
        class_concentration = self._class_prior.concentration + (0.0 if prior else self.class_count_)
        n_classes = len(self.classes_)
        class_prob = dirichlet_draws(rng, np.broadcast_to(class_concentration, (n_datasets, n_classes)))
        labels = sampled_labels(np.broadcast_to(class_prob[:, None, :], (n_datasets, n_rows, n_classes)), rng)
        codes = np.zeros((n_datasets, n_rows, self.n_features_in_), dtype=np.intp)
        starts = np.concatenate(([0], np.cumsum(self.n_categories_)[:-1]))
        datasets = np.arange(n_datasets)[:, None]
        for j, (start, size) in enumerate(zip(starts, self.n_categories_)):
            block = counts[:, start : start + size] + float(self.alpha)  # (K, r_j)
            given_class = dirichlet_draws(rng, np.broadcast_to(block, (n_datasets, *block.shape)))
            alone = dirichlet_draws(
                rng, np.broadcast_to(block.sum(axis=0) - (n_classes - 1) * float(self.alpha), (n_datasets, size))
            )
            probabilities = np.where(
                arcs[:, j, None, None], given_class[datasets, labels], alone[:, None, :]
            )  # (datasets, rows, r_j)
            codes[:, :, j] = sampled_labels(probabilities, rng)
        return {"arc": (("attribute",), arcs)}, labels, codes

    def _joint_draws_refused(self):
        return None  # a true model average: (arcs, tables) have a joint posterior

    def _structure_draws(self, n_draws, rng):
        """Joint posterior draws: the arcs, each present with ``arc_posterior_`` independently (the
        structure posterior factorises), π and every attribute's two tables from their conjugate
        posteriors, ``feature_prob_<a>`` given the class (used where the arc is drawn) and
        ``marginal_prob_<a>`` alone (used where it is not): the table the drawn structure does
        not use is drawn too, and enters no likelihood.
        """
        from pgm_models.inference.workflow import dirichlet_draws

        names, n_classes, alpha = self._feature_names(), len(self.classes_), float(self.alpha)
        draws = {
            "arc": (("attribute",), rng.random((n_draws, self.n_features_in_)) < self.arc_posterior_),
            "class_prob": (
                ("class",),
                dirichlet_draws(rng, np.broadcast_to(self.class_concentration_, (n_draws, n_classes))),
            ),
        }
        for name, start, size in zip(names, self._layout().value_starts, self.n_categories_):
            block = self.feature_count_[:, start : start + size] + alpha  # (K, r_j)
            draws[f"feature_prob_{name}"] = (
                ("class", f"{name}_value"),
                dirichlet_draws(rng, np.broadcast_to(block, (n_draws, *block.shape))),
            )
            margin = self.feature_count_[:, start : start + size].sum(axis=0) + alpha
            draws[f"marginal_prob_{name}"] = (
                (f"{name}_value",),
                dirichlet_draws(rng, np.broadcast_to(margin, (n_draws, size))),
            )
        coords = {"class": self.classes_, "attribute": names}
        coords.update({f"{name}_value": np.asarray(c) for name, c in zip(names, self.categories_)})
        return draws, coords

    def _structure_log_likelihood(self, posterior, codes, class_index):
        """Log π_y + Σ_j log θ_j[x_j], θ_j the table given the class where the draw has the arc,
        else the attribute's own; a missing value adds 0 (summed out), as in ``loo``.
        """
        from pgm_models.inference.workflow import draw_values

        names = self._feature_names()
        tables = [f"{kind}_{name}" for name in names for kind in ("feature_prob", "marginal_prob")]
        draws = draw_values(posterior, ["arc", "class_prob", *tables], "MANB")
        total = np.log(draws["class_prob"][:, :, class_index])
        arc = draws["arc"].astype(bool)
        for j, name in enumerate(names):
            rows = np.flatnonzero(codes[:, j] >= 0)
            given = draws[f"feature_prob_{name}"][:, :, class_index[rows], codes[rows, j]]
            alone = draws[f"marginal_prob_{name}"][:, :, codes[rows, j]]
            total[:, :, rows] += np.log(np.where(arc[:, :, j, None], given, alone))
        return total

    def _structure_edges(self):
        """The arcs class → x_j, each labelled with its posterior probability ``arc_posterior_``."""
        return (
            "MANB: the average over the naive Bayes arc sets; an arc class → x_j is labelled with its posterior "
            "probability (an attribute without its arc is modelled alone)",
            [("class", f"x_{name}", float(p), False) for name, p in zip(self._feature_names(), self.arc_posterior_)],
        )

    def _with_prior(self):
        return Dirichlet(np.full(self.feature_count_.shape, float(self.alpha)), self.n_categories_)

    def _without_prior(self):
        return Dirichlet(np.full(self.feature_count_.shape[1], float(self.alpha)), self.n_categories_)

    def _arc_log_evidence(self):
        """(log W_j, log V_j): each attribute's column given the class, and alone, (F,) each."""
        return (
            self._with_prior().log_evidence(self.feature_count_).sum(axis=0),
            self._without_prior().log_evidence(self.feature_count_.sum(axis=0)),
        )

    def log_evidence(self) -> float:
        r"""The log marginal likelihood of the model average, log p(D | alpha, class_alpha, π).

        The Dirichlet–multinomial evidence of the class counts plus, for every attribute, the
        evidence of its column averaged over the arc's presence (ordered rows: no multinomial
        coefficients), the quantity ``arc_prior="evidence"`` maximises:

        .. math::

            \log p(D) = \log ML_C + \sum_j \log\bigl(\pi W_j + (1 - \pi) V_j\bigr),

        with W_j and V_j the evidences of column j given the class and alone (see the class
        Notes) and π the fitted ``arc_prior_``.

        Returns
        -------
        float
            log p(D), in nats.

        Examples
        --------
        >>> from pgm_models import MANB, load_dataset
        >>> X, y = load_dataset("weather.nominal")
        >>> fixed = MANB(arc_prior=0.5).fit(X, y)
        >>> round(fixed.log_evidence(), 3)
        -65.584
        >>> learned = MANB(arc_prior="evidence").fit(X, y)  # here every arc: naive Bayes
        >>> round(learned.arc_prior_, 3), round(learned.log_evidence(), 3)
        (1.0, -65.358)
        """
        log_with, log_without = self._arc_log_evidence()
        prior = self.arc_prior_
        arcs = np.logaddexp(np.log(prior) + log_with, np.log1p(-prior) + log_without).sum()
        return float(self._class_prior.log_evidence(self.class_count_).sum() + arcs)

    # ------------------------------------------------------------------ prediction
    def _feature_log_likelihood(self, codes, estimate):
        """Σ_j log[p_j P(x_j | y) + (1 − p_j) P(x_j)]; under a PosteriorDraw, one joint draw of the
        arcs (each present with p_j) and of the tables of the drawn structure.
        """
        with_class = self._with_prior().estimate(self.feature_count_, estimate)
        alone = self._without_prior().estimate(self.feature_count_.sum(axis=0), estimate)
        arc = np.repeat(self.arc_posterior_, self.n_categories_)
        if isinstance(estimate, PosteriorDraw):
            arc = np.repeat(estimate.rng.random(self.n_features_in_) < self.arc_posterior_, self.n_categories_).astype(
                float
            )
        return self._row_sums(log_probabilities(arc * with_class + (1 - arc) * alone[None, :]), codes)

    def _loo_features(self, codes, class_index, all_classes):
        """(log p(x_i | y = k, D), log p(x_i | y = k, D₋ᵢ)) of the average, arcs included (module docstring)."""
        full = self._feature_log_likelihood(codes, "predictive")
        left = np.zeros_like(full)
        alpha, counts = float(self.alpha), self.feature_count_
        log_with, log_without = self._arc_log_evidence()
        prior_odds = np.log(self.arc_prior_) - np.log1p(-self.arc_prior_)
        index = self._layout().value_index(np.asarray(codes, dtype=np.intp))
        starts = self._layout().value_starts
        own = np.arange(len(self.classes_))[None, :] == class_index[:, None]  # (N, K): the row's class
        for j, size in enumerate(self.n_categories_):
            rows = np.flatnonzero(index[:, j] < counts.shape[1])
            cell, block = index[rows, j], slice(starts[j], starts[j] + size)
            removed = own[rows].astype(float)
            with_cell = counts[:, cell].T - removed + alpha  # (rows, K)
            with_total = counts[:, block].sum(axis=1)[None, :] - removed + size * alpha
            margin = counts.sum(axis=0)
            alone = (margin[cell] - 1 + alpha) / (margin[block].sum() - 1 + size * alpha)  # (rows,)
            own_with = own_column(with_cell / with_total, class_index[rows])
            arc = expit(prior_odds + log_with[j] - np.log(own_with) - log_without[j] + np.log(alone))
            left[rows] += np.log(arc[:, None] * with_cell / with_total + (1 - arc[:, None]) * alone[:, None])
        return (full, left) if all_classes else (own_column(full, class_index), own_column(left, class_index))
