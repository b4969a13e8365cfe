"""AODE: averaged one-dependence estimators (Webb, Boughton & Wang 2005), as in Weka 3.6.

Each SPODE with super-parent a is the generative model p(y, x | a) = P(y, x_a) Π_{j≠a}
P(x_j | y, x_a) (see ``pgm_models.semi_naive.spode``). AODE predicts with the average over the
parents a whose value x_a is observed and occurs at least ``frequency_limit`` times in
training:

    p(y, x) ∝ Σ_a w_a P(y, x_a) Π_{j≠a} P(x_j | y, x_a) / Σ_a w_a,

in log space (logsumexp); with no qualifying parent it falls back to naive Bayes. A missing
value is skipped both as parent and as child. The estimates are Weka's (``estimator=
"laplace"``, the default, or ``"m-estimate"`` with weight m) and are Dirichlet posterior means
(see ``pgm_models.semi_naive._base``): ``AODE()`` reproduces ``weka.classifiers.bayes.AODE``
and ``AODE(estimator="m-estimate", m=W)`` reproduces its ``-M -W W``.

Weights: "uniform" (Weka; the default) w_a = 1; "bma" w_a = p(D | a), each SPODE's
closed-form marginal likelihood (ordered-sequence Dirichlet evidence of its joint and child
counts); "tempered" w_a = p(D | a)^τ (τ = ``temperature``: 0 is uniform, 1 is BMA). All
evidences are computed on the same rows — the training rows with no missing attribute — so
they are comparable.

``loo(X, y)`` is exact leave-one-out for every weighting (``pgm_models.semi_naive._loo``).

Speed: under the posterior mean with every concentration > 0 (the defaults, the m-estimate with
m > 0, a learned α) the rows are scored by compiled loops from the pair counts
(``pgm_models.semi_naive._aode_kernel``, numba): the log tables in one pass and, per row and
class, the F² looked-up terms and the average, where the NumPy path multiplies a one-hot design by
every parent cell's table after some thirty NumPy calls (``COMPILED_SCORING``, faster on
small folds: BENCHMARKS.md, "Compiled kernels for small folds"; the probabilities agree with
the NumPy path's to rounding in the last bits). Small
unit-weight data are counted by the compiled bit sets (``_pairs.COMPILED_SMALL_COUNTS``). Both
run once numba is loaded in the process (``pgm_models._utils.jit.loaded``: PyMC loads it, as does
``import numba``), so a lone fit never pays numba's import; a machine's first compiled call
compiles the kernels into numba's disk cache, once per machine (BENCHMARKS.md, "MDL + AODE on
diabetes").
"""

from __future__ import annotations

import functools
from contextlib import nullcontext

import numpy as np

from pgm_models._utils import jit
from pgm_models._utils.validation import is_number
from pgm_models.conjugate import Dirichlet, log_probabilities, log_sum_exp
from pgm_models.conjugate.dirichlet import one_hot_log_predictive
from pgm_models.model_selection.evidence import EVIDENCE, dirichlet_evidence, is_learned, maximize_log_evidence
from pgm_models.model_selection.loo import left_out_own_class
from pgm_models.semi_naive._base import SemiNaiveBayes

WEIGHTS = ("uniform", "bma", "tempered")
# Score with the compiled kernels of ``_aode_kernel`` (numba) where they apply (the posterior mean,
# every concentration > 0; faster on small folds: BENCHMARKS.md, "Compiled kernels for small
# folds"), once numba is loaded in the process (``jit.loaded``). False: always the NumPy path.
COMPILED_SCORING = True


class AODE(SemiNaiveBayes):
    r"""Averaged one-dependence estimators: the average of the SPODEs of every attribute.

    AODE predicts with the average of the :class:`SPODE` models whose super-parent value is
    observed and frequent enough, which relaxes naive Bayes's independence without searching for a
    structure. ``AODE()`` reproduces Weka 3.6's ``weka.classifiers.bayes.AODE`` and
    ``AODE(estimator="m-estimate", m=W)`` its ``-M -W W``. It is an average of models, so it has no
    posterior of its own: ``model.spode(a)`` is its member with parent a, with the closed-form
    posterior, PyMC model and draws.

    Parameters
    ----------
    alpha : float or "evidence", default=1.0
        The Laplace pseudo-count of every cell (Weka: 1); "evidence": one per SPODE, each its
        SPODE's marginal-likelihood maximum (``alpha_``; the naive Bayes fallback's is
        ``fallback_alpha_``).
    frequency_limit : int, default=1
        A parent value must occur this often in training for its SPODE to vote (Weka's -F).
    estimator : {"laplace", "m-estimate"}, default="laplace"
        Weka's estimators (Weka's -M for the m-estimate).
    m : float, default=1.0
        The m-estimate's weight in pseudo-rows (Weka's -W).
    weights : {"uniform", "bma", "tempered"}, default="uniform"
        The SPODEs' weights w_a: 1 (Weka), their marginal likelihood p(D | a) (Bayesian model
        averaging), or p(D | a)^τ. When every SPODE's evidence is 0 (alpha = 0 or m = 0, an
        improper prior) the weights are uniform.
    temperature : float, default=1.0
        τ of ``weights="tempered"`` (0 is uniform, 1 is BMA).
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters every SPODE plugs in ("predictive" equals "mean").
    n_categories : int or array-like of shape (n_features,), default=None
        Domain size of integer-coded attributes (values 0..n−1), as in :class:`CategoricalNB`.
    handle_unknown : {"missing", "error"}, default="missing"
        A value outside an attribute's domain at prediction is skipped like a missing value (with
        a warning) or raises.
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
        N_k, the (weighted) number of training rows of each class.
    class_concentration_ : ndarray of shape (n_classes,)
        The posterior Dirichlet concentration of the class probabilities.
    categories_ : list of ndarray
        The domain of each attribute.
    n_categories_ : ndarray of shape (n_features,)
        The domain sizes r_j.
    pair_count_ : ndarray of shape (n_classes, T', T')
        The pair-count tensor: C[k, s, t], the (weighted) rows of class k with the value or missing
        cells s and t of two attributes (T' = Σ_j (r_j + 1)); its diagonal holds the single counts.
    complete_pair_count_ : ndarray of shape (n_classes, T', T')
        The same on the rows with no missing value (only with ``weights`` "bma" or "tempered",
        whose evidences use it).
    n_features_in_ : int
        The number of attributes seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.
    alpha_ : ndarray of shape (n_features,)
        The learned α of each SPODE (only with ``alpha="evidence"``).
    fallback_alpha_ : float
        The learned α of the naive Bayes fallback (only with ``alpha="evidence"``).

    See Also
    --------
    SPODE : One member of the average.
    TAN : One learned parent per attribute.
    CategoricalNB : The fallback when no parent qualifies.

    Notes
    -----
    Each SPODE with super-parent a is p(y, x | a) = P(y, x_a) Π_{j≠a} P(x_j | y, x_a) with
    Dirichlet posterior-mean estimates (Laplace: α = 1 per cell; m-estimate: α_joint = m/(K r_a),
    α_child = m/r_j). AODE averages over the parents a whose value x_a is observed and occurs at
    least ``frequency_limit`` times in training:

    .. math::

        p(y, x) \propto \frac{\sum_a w_a P(y, x_a) \prod_{j \ne a} P(x_j \mid y, x_a)}{\sum_a w_a},

    in log space; with no qualifying parent it falls back to naive Bayes. A missing value is
    skipped both as parent and as child. For "bma" and "tempered" every SPODE's evidence p(D | a)
    (the ordered-sequence Dirichlet evidence of its joint and child counts) is computed on the same
    rows, those with no missing attribute, so the evidences are comparable.

    References
    ----------
    .. [1] G. I. Webb, J. R. Boughton and Z. Wang, "Not so naive Bayes: aggregating
       one-dependence estimators", *Machine Learning* 58(1), 5–24, 2005.
    .. [2] J. A. Hoeting, D. Madigan, A. E. Raftery and C. T. Volinsky, "Bayesian model averaging:
       a tutorial", *Statistical Science* 14(4), 382–417, 1999.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import AODE
    >>> X = np.array([[0, 1, 0], [0, 0, 0], [1, 1, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 0])
    >>> model = AODE().fit(X, y)
    >>> model.predict_proba(np.array([[0, 1, 1], [1, 0, 0]])).round(3)
    array([[0.697, 0.303],
           [0.513, 0.487]])
    >>> model.spode(0).predict_proba(np.array([[0, 1, 1]])).round(3)
    array([[0.793, 0.207]])
    """

    _closed_form = False  # an average of models: see spode(a) for each one's posterior
    _pymc_model = False
    _averaged = True
    # what _joint_draws_refused names: the members, and the leave-one-out to use instead
    _members = "SPODEs"
    _loo_route = (
        "its leave-one-out is exact: model.loo(X, y, conditional=False) (a member's own draws: "
        "model.spode(a).posterior_draws(store=True, X=X, y=y))"
    )

    def __init__(
        self,
        alpha=1.0,
        frequency_limit=1,
        estimator="laplace",
        m=1.0,
        weights="uniform",
        temperature=1.0,
        estimate="mean",
        n_categories=None,
        handle_unknown="missing",
        class_prior=None,
    ):
        self.alpha = alpha
        self.frequency_limit = frequency_limit
        self.estimator = estimator
        self.m = m
        self.weights = weights
        self.temperature = temperature
        self.estimate = estimate
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown
        self.class_prior = class_prior

    @property
    def _needs_complete_counts(self):
        return self.weights != "uniform"

    def spode_log_evidence(self):
        """Log p(D | a) of each SPODE (F,), on the rows with no missing attribute (kept by ``fit``
        when ``weights`` is "bma" or "tempered").
        """
        if not hasattr(self, "complete_pair_count_"):
            raise ValueError("spode_log_evidence needs the complete-row counts: fit with weights='bma' or 'tempered'")
        values = self._value_counts(self.complete_pair_count_, self._layout)
        diagonal = np.diagonal(values, axis1=1, axis2=2)
        joint = self._joint_prior().log_evidence(diagonal.T.ravel())  # one value per parent attribute
        children = self._child_prior().log_evidence(values)  # (K, T, F): class, parent cell, child
        attribute = self._layout.attribute_of_value_cell
        children = np.where(
            attribute[None, :, None] == np.arange(len(self._layout.sizes))[None, None, :], 0.0, children
        )
        per_parent_cell = children.sum(axis=(0, 2))  # (T,)
        return joint + np.bincount(attribute, per_parent_cell, len(self._layout.sizes))

    def _log_weights(self):
        if self.weights not in WEIGHTS:
            raise ValueError(f"weights={self.weights!r} is not one of {WEIGHTS}")
        if self.weights == "uniform":
            return np.zeros(len(self._layout.sizes))
        temperature = 1.0 if self.weights == "bma" else self.temperature
        if not (is_number(temperature) and np.isfinite(temperature) and temperature >= 0):
            raise ValueError(f"temperature must be a number ≥ 0, got {temperature!r}")
        return self._tempered(self.spode_log_evidence())

    def _tempered(self, log_evidence):
        """Log w_a = τ (log p(D | a) − max) for the SPODEs' log evidences (F,)."""
        temperature = 1.0 if self.weights == "bma" else self.temperature
        if temperature == 0 or np.isneginf(log_evidence).all():
            # τ = 0 is uniform by definition (0 · −inf is not); evidence 0 for every SPODE
            # (alpha = 0 or m = 0: an improper prior) ranks none above another: uniform too
            return np.zeros(len(log_evidence))
        return temperature * (log_evidence - log_evidence.max())

    def _check_frequency_limit(self):
        limit = self.frequency_limit
        if type(limit) in (int, float) and limit >= 0:  # a plain number (NaN fails): no NumPy call on it
            return
        if isinstance(limit, (bool, np.bool_)) or not (is_number(limit) and np.isreal(limit) and limit >= 0):
            raise ValueError(f"frequency_limit must be a number ≥ 0 (Weka -F), got {limit!r}")

    def _count(self, codes, class_index, weight):
        self._check_frequency_limit()
        super()._count(codes, class_index, weight)

    def _parent_codes(self, codes, removed):
        """The codes the SPODEs average over (each observed value a parent and a child): the rows'
        own (AODEsr removes generalisations; ``removed`` 1: each row left out of the counts).
        """
        return codes

    def _joint_log_likelihood(self, codes, estimate):
        self._check_frequency_limit()
        parent_codes = self._parent_codes(codes, 0)
        if self._compiled_scoring(estimate):
            kernels = jit.kernels("pgm_models.semi_naive._aode_kernel")
            layout, n_values = self._layout, len(self._layout.value_cells)
            joint_alpha = self._joint_prior().concentration.reshape(
                n_values, len(self.classes_)
            )  # (value cell, class), a view
            child_alpha = self._child_prior().concentration[0]  # (parent cell, child cell), the same for every class
            joint, child, frequency = kernels.aode_probabilities(
                self.pair_count_,
                layout.value_cells,
                layout.value_starts,
                layout.sizes,
                layout.attribute_of_value_cell,
                joint_alpha,
                child_alpha,
            )
            with np.errstate(
                divide="ignore"
            ):  # a probability of 0 (a class of weight 0) is log 0 = -inf, as NumPy's path scores it
                np.log(joint, out=joint), np.log(child, out=child)
            # every integer dtype widened to intp: one compiled signature
            averaged, fallback = kernels.aode_log_scores(
                joint,
                child,
                frequency,
                np.asarray(parent_codes, dtype=np.intp),
                layout.value_starts,
                float(self.frequency_limit),
                self._log_weights(),
            )
        else:
            cells = self._value_index(parent_codes)
            scores = self._spode_scores(cells, self._spode_operands(estimate))  # (N, K, F)
            averaged, fallback = self._average(scores, self._eligible(cells, 0), self._log_weights())
        if fallback.any():
            averaged[fallback] = self._log_naive_bayes(codes[fallback], estimate)
        return averaged

    def _compiled_scoring(self, estimate) -> bool:
        """Whether the rows are scored by the kernels of ``_aode_kernel``: ``COMPILED_SCORING`` is on, numba is loaded,
        the estimate (a name, not a PosteriorDraw) is the posterior mean and every concentration is
        > 0 (no zero probability, no empty block; the m-estimate's is m over a block's cells).
        """
        if not (COMPILED_SCORING and isinstance(estimate, str) and estimate in ("mean", "predictive") and jit.loaded()):
            return False
        if self.class_prior is not None:  # the kernel reads the joint tables' own class marginals
            return False
        per_cell = self._per_cell(1)  # a number, or a learned one per attribute
        return (
            per_cell > 0 if type(per_cell) in (float, int) else bool(np.min(per_cell) > 0)
        )  # np.min of a plain number is slow

    def _scoring_threads(self, estimate):
        if getattr(self, "_layout", None) is not None and self._compiled_scoring(estimate):
            return nullcontext()  # the kernel calls no BLAS (setting its threads is a cost for nothing)
        return super()._scoring_threads(estimate)

    def _eligible(self, cells, removed):
        """(N, F) whether each row's parent value (``cells``: the rows' ``_value_index``) occurs
        at least ``frequency_limit`` times in training, less ``removed`` (1: the row itself left
        out); a missing parent never does.
        """
        frequency = np.diagonal(self.pair_count_, axis1=1, axis2=2).sum(axis=0)[self._layout.value_cells]
        padded = np.append(frequency - removed, -np.inf)
        return padded[cells] >= self.frequency_limit

    @staticmethod
    def _average(scores, eligible, log_weights):
        """(log Σ_a w_a p(y, x | a) / Σ_a w_a over the eligible parents (N, K), rows with no
        eligible parent of positive weight (N,), whose average is left to the fallback).
        ``scores`` (N, K, F) is overwritten.
        """
        uniform = not np.any(log_weights)
        log_weights = np.where(eligible, log_weights, -np.inf)  # (N, F)
        fallback = ~np.isfinite(log_weights).any(axis=1)
        if uniform:  # log Σ_a 1 over the eligible parents: the log of their number, as log_sum_exp finds it
            with np.errstate(divide="ignore"):
                normaliser = np.log(eligible.sum(axis=1))
        else:
            normaliser = log_sum_exp(log_weights, axis=1)
        normaliser[fallback] = 0.0  # fallback rows are replaced
        scores += log_weights[:, None, :]  # in place: the callers' scores are temporaries
        # reduced over the parents in the memory order of _spode_scores' (F, K, N) layout
        return log_sum_exp(scores.transpose(2, 1, 0), axis=0).T - normaliser[:, None], fallback

    def _loo_block(self, codes, class_index):
        """Exact leave-one-out (``pgm_models.semi_naive._loo``): every SPODE's downdated
        predictive, averaged with what the weights and the frequency limit are without the row.

        * frequency limit: the row's parent value counts one less;
        * "bma"/"tempered": SPODE a's evidence without a complete row i is, by the chain rule,
          log p(D₋ᵢ | a) = log p(D | a) − log p(y_i, x_i | D₋ᵢ, a) on the complete-row counts (an
          incomplete row is not among them: its weights are the full-data ones);
        * the naive Bayes fallback (no eligible parent) is downdated as CategoricalNB's.
        """
        full = self._joint_log_likelihood(codes, "predictive")
        parent_codes = self._parent_codes(codes, 1)
        cells = self._value_index(parent_codes)
        observed = cells < len(self._layout.value_cells)
        own_cells = np.where(observed, cells, 0)[:, None, :]
        scores = np.take_along_axis(
            self._loo_cell_scores(parent_codes, class_index, self.pair_count_), own_cells, axis=2
        )
        scores[np.broadcast_to(~observed[:, None, :], scores.shape)] = -np.inf
        left_out, fallback = self._average(scores, self._eligible(cells, 1), self._loo_log_weights(codes, class_index))
        if fallback.any():
            class_log = log_probabilities(self._class_prior.estimate(self.class_count_, "predictive"))
            features = self._log_naive_bayes(codes[fallback], "predictive") - class_log
            own = self._loo_own_class(codes[fallback], class_index[fallback])
            left_out[fallback] = self._with_class_terms(
                *left_out_own_class(features, own, class_index[fallback]), class_index[fallback], all_classes=True
            )[1]
        return full, left_out

    def _loo_log_weights(self, codes, class_index):
        """(N, F) log w_a of every SPODE without each row."""
        cells = self._value_index(codes)
        observed = cells < len(self._layout.value_cells)
        log_weights = np.broadcast_to(self._log_weights(), observed.shape)
        if self.weights == "uniform":
            return log_weights
        log_evidence = np.broadcast_to(self.spode_log_evidence(), observed.shape).copy()
        complete = observed.all(axis=1)
        counted = self._loo_cell_scores(codes[complete], class_index[complete], self.complete_pair_count_)
        own_cells = cells[complete][:, None, :]
        own = np.take_along_axis(counted, own_cells, axis=2)[np.arange(complete.sum()), class_index[complete]]
        log_evidence[complete] -= own  # (complete rows, F)
        return np.array([self._tempered(e) for e in log_evidence])

    def _loo_own_class(self, codes, class_index):
        """The naive Bayes fallback's features of the row's own class, downdated by the row."""
        posterior = self._naive_bayes_prior().posterior(self._diagonal_counts())
        return one_hot_log_predictive(
            posterior.concentration, self._layout.sizes, codes, class_index, all_classes=False
        )[1]

    # ------------------------------------------------------------------ empirical Bayes (semi_naive._evidence)
    _alpha_options = (EVIDENCE,)
    _evidence_per_parent = True

    def _child_alpha(self, parent_cells):
        if not is_learned(self.alpha):
            return super()._child_alpha(parent_cells)
        parent_alpha = self.alpha_[self._layout.attribute_of_value_cell[parent_cells]]
        return np.broadcast_to(parent_alpha[:, None], (len(parent_alpha), len(self._layout.value_cells)))

    def _naive_bayes_alpha(self):
        return self.fallback_alpha_ if is_learned(self.alpha) else super()._naive_bayes_alpha()

    def _learn_feature_prior(self, learned):
        """One α per SPODE, then the naive Bayes fallback's own α (its class and attribute
        blocks), which is also the class prior's.
        """
        super()._learn_feature_prior(learned)
        sizes, n_classes = self._layout.sizes, len(self.classes_)
        counts = np.concatenate([self.class_count_, self._diagonal_counts().ravel()])
        learn, n_params = dirichlet_evidence(
            counts, np.concatenate([[n_classes], np.tile(sizes, n_classes)]), np.zeros(len(counts), np.intp)
        )
        (self.fallback_alpha_,), _ = maximize_log_evidence(learn, n_params)
        self._class_prior = Dirichlet(np.full(n_classes, self.fallback_alpha_))
        self.class_concentration_ = self._class_prior.posterior(self.class_count_).concentration

    def _components(self):
        """The SPODEs averaged, for ``posterior_summary``: each one's super-parent, weight in the
        average (before a row's missing or rare parents drop out of it) and the SPODE itself.
        """
        log_weights = self._log_weights()
        weights = np.exp(log_weights - log_weights.max())
        weights /= weights.sum()
        names = self._feature_names()
        return "spode", [(names[j], weights[j], functools.partial(self.spode, j)) for j in range(self.n_features_in_)]

    def _structure_weights(self, prior: bool) -> np.ndarray:
        """The members' weights in the average, normalised (F,): uniform under the prior."""
        if prior:
            return np.full(self.n_features_in_, 1.0 / self.n_features_in_)
        log_weights = self._log_weights()
        weights = np.exp(log_weights - log_weights.max())
        return weights / weights.sum()

    def _synthetic_rows(self, n_datasets, n_rows, rng, prior):
        """Per dataset a super-parent a by its weight, SPODE a's tables from their prior or
        posterior (``spode(a).posterior_draws``; the prior's are those of a SPODE with no counts),
        then the rows: (y, x_a) from the joint table, every child from its table given (y, x_a).
        Every parent counts, whatever ``frequency_limit``: the rows are those of the average's joint.
        """
        from pgm_models.inference.workflow import sampled_labels

        parent = rng.choice(self.n_features_in_, size=n_datasets, p=self._structure_weights(prior))
        labels = np.zeros((n_datasets, n_rows), dtype=np.intp)
        codes = np.zeros((n_datasets, n_rows, self.n_features_in_), dtype=np.intp)
        for a in np.unique(parent):
            member = self.spode(int(a))
            if prior:
                member.pair_count_ = np.zeros_like(member.pair_count_)
            datasets = np.flatnonzero(parent == a)
            tables = member.posterior_draws(len(datasets), random_seed=rng, chains=1).posterior
            size = int(self.n_categories_[a])
            joint = tables["joint_prob"].values[0]  # (datasets, class·r_a)
            cell = sampled_labels(np.broadcast_to(joint[:, None, :], (len(datasets), n_rows, joint.shape[1])), rng)
            y, x_parent = cell // size, cell % size
            labels[datasets], codes[datasets, :, a] = y, x_parent
            for j, name in member._children():
                table = tables[f"feature_prob_{name}"].values[0]  # (datasets, class, r_a, r_j)
                codes[datasets, :, j] = sampled_labels(table[np.arange(len(datasets))[:, None], y, x_parent], rng)
        return {"parent": ((), parent)}, labels, codes

    def _joint_draws_refused(self):
        """Why an average of SPODEs has no posterior draws for ``az.loo``: its weights (fixed, or
        renormalised over a row's eligible super-parents) are not a posterior over structures, so the
        members' posteriors together are no posterior whose likelihood is the averaged joint, and
        PSIS's importance ratios would be the wrong ones (docs/user_guide/workflow.md).
        """
        name = type(self).__name__
        return (
            f"{name} averages its {self._members} with weights renormalised over each row's eligible super-parents, "
            "not by one posterior over structures and their parameters: draws of the members' parameters with each row's log "
            "averaged joint are not a posterior and its likelihood, and PSIS-LOO of them is biased without a Pareto-k "
            f"warning, so {name} has no posterior_draws or add_log_likelihood for az.loo; {self._loo_route}"
        )

    def _structure_edges(self):
        """The class → every attribute, and super-parent a → every other attribute with a's weight."""
        weights, names = self._structure_weights(prior=False), self._feature_names()
        edges = [("class", f"x_{name}", 1.0, False) for name in names]
        edges += [
            (f"x_{names[a]}", f"x_{name}", float(weights[a]), False)
            for a in range(len(names))
            for j, name in enumerate(names)
            if j != a
        ]
        return (
            f"{type(self).__name__}: the average of {len(names)} SPODEs; a dashed edge a → j is SPODE a's "
            "dependence of j on its super-parent a, labelled with a's weight in the average",
            edges,
        )

    def spode(self, parent):
        """The fitted SPODE with super-parent ``parent`` (index or attribute name), sharing
        these counts: its closed-form posterior, PyMC model and verification.
        """
        from pgm_models.semi_naive.spode import SPODE

        return SPODE.from_counts(self, parent)
