"""BayesNetClassifier: a discrete Bayesian network classifier whose structure is found by a
search under a decomposable score, as Weka 3.6's ``weka.classifiers.bayes.BayesNet``.

Model. The class C is a parent of every attribute; the search gives attribute j its other
parents pa_j (a DAG over the attributes). With parent configuration u = (k, x_pa_j):

    π ~ Dirichlet(class_alpha)                         y_i | π ~ Categorical(π)
    θ_{j,u} ~ Dirichlet(prior_count · 1_{r_j})          x_ij | y_i, x_i,pa_j ~ Categorical(θ_{j,u})

(Weka's SimpleEstimator is this posterior mean with α = 0.5 for every table, the class's too:
``BayesNetClassifier(prior_count=0.5, class_alpha=0.5)``.) The closed-form posterior is
Dirichlet(α + n_{j,u,v}) per table; the posterior predictive of a row is the product of the
posterior-mean entries it reads, normalised over the classes. The learned structure's evidence,
``log_evidence()``, is the sum of the tables' Dirichlet–multinomial marginal likelihoods (the
"bayes" score of the attributes plus the class block).

Missing values: replaced by the attribute's mode in training and at prediction (``missing="mode"``,
as Weka's ``BayesNet``, which applies ``ReplaceMissingValues`` before it learns), or refused.

Structure and batches: the sufficient statistic is the rows themselves, compressed into their
distinct (class, x_1..x_F) combinations with summed weights (missing values kept as such); every
batch merges into it, and the modes, the search (``pgm_models.bayes_net._search``) and the tables
are recomputed from it, so ``partial_fit`` in any chunks gives the one fit's structure, tables and
``loo`` exactly. ``loo`` is exact leave-one-out with the learned structure held fixed, and refuses
rows other than the fitted ones (their distinct rows differ). A Dask collection is refused: the
search needs the distinct rows in memory.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from pgm_models._utils import jit
from pgm_models._utils.frames import index_values
from pgm_models._utils.validation import is_number, sorted_classes
from pgm_models.base import integer_counts
from pgm_models.bayes_net._base import DiscreteNetwork, ModeImputation, first_modes
from pgm_models.bayes_net._search import (
    SCORES,
    SEARCHES,
    FamilyCounter,
    check_table_sizes,
    hill_climb,
    k2,
    structure_log_score,
    tan,
)
from pgm_models.conjugate import Dirichlet, log_probabilities
from pgm_models.conjugate.blocks import DirichletBlocks, class_block
from pgm_models.discrete.lookups import stacked, table_log_sums
from pgm_models.model_selection.loo import ExactLOO

# Posterior-mean predictions are made by two compiled calls (``_kernels``: the tables' means, then each row's
# sums) where some five NumPy calls a table took most of a small fold's predict_proba, once numba is loaded
# (``jit.loaded``). False: always the NumPy path.
COMPILED_PREDICTION = True


def distinct_rows(rows, radices):
    """(the distinct rows sorted, each row's index among them), as ``np.unique(rows, axis=0,
    return_inverse=True)``: rows of (class, codes ≥ −1) as one integer each, mixed radix with
    ``radices`` (K, r_1 + 1, ...), where they fit in 63 bits (sorting integers is many times
    faster than sorting rows as byte strings), and the same order: lexicographic, −1 first.
    """
    if math.prod(radices) >= 2**63:
        unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        return unique, inverse.ravel()
    shift = np.r_[0, np.ones(len(radices) - 1, dtype=np.intp)]  # a code −1 (missing) becomes digit 0
    keys = np.ravel_multi_index(tuple((rows + shift).T), radices)
    unique, inverse = np.unique(keys, return_inverse=True)
    return np.column_stack(np.unravel_index(unique, radices)).astype(np.intp) - shift, inverse.ravel()


def declared_rank(declared):
    """Each class of ``classes_`` (sorted) its position in the declared order — a Categorical
    dtype's categories or a ``classes=`` list — or None where that order is the sorted one or
    unknown. The search counts the classes in this order, so that its sums, and so its ties, are
    Weka's, which keeps the declared order (``_search``); repeated labels are left to the fit's
    own message.
    """
    if isinstance(declared, pd.CategoricalDtype):
        declared = index_values(declared.categories)
    elif declared is None or isinstance(declared, np.dtype):
        return None
    declared = np.asarray(declared)
    if declared.ndim != 1 or not pd.Index(declared).is_unique:
        return None
    rank = pd.Index(declared).get_indexer(sorted_classes(declared))
    return None if np.array_equal(rank, np.arange(len(rank))) else rank


class BayesNetClassifier(ExactLOO, ModeImputation, DiscreteNetwork):
    r"""Bayesian network classifier: structure search by a decomposable score, Dirichlet tables.

    The class is a parent of every attribute, and a search (K2, hill climbing or TAN) gives the
    attributes other parents among themselves, one network scored by a decomposable score such
    as the Bayesian (Cooper–Herskovits) marginal likelihood. Given the structure, every table has
    a Dirichlet prior and an exact conjugate posterior, with the closed-form posterior, PyMC
    model and draws of the other conjugate models. With Weka's settings it reproduces Weka 3.6's
    ``weka.classifiers.bayes.BayesNet``.

    Parameters
    ----------
    search : {"k2", "hill-climb", "tan"}, default="k2"
        K2 over the attributes' order, hill climbing over arc additions, deletions and reversals
        between attributes, or Weka's TAN (a tree over the attributes).
    score_type : {"bayes", "bdeu", "bic", "aic", "loglik"}, default="bayes"
        The decomposable structure score (Weka's -S; not ``score``, which is scikit-learn's
        accuracy method): "bayes" is Cooper–Herskovits with ``prior_count`` per cell, "bdeu" the
        equivalent sample size 1, "bic" Weka's MDL, "loglik" its ENTROPY.
    max_parents : int, default=2
        Most parents of an attribute, the class included (≥ 1; Weka's -P: 1 is naive Bayes, 2 a
        tree-like network). Ignored by "tan" (always 2).
    prior_count : float, default=0.5
        Dirichlet concentration α of every cell of every attribute table (> 0; Weka's
        SimpleEstimator α), and the "bayes" score's.
    class_alpha : float, default=0.5
        Dirichlet concentration of the class probabilities (> 0; Weka: the same α).
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters predictions plug in: the posterior mean, the posterior mode, the
        maximum-likelihood estimate, or the exact posterior predictive (here equal to the mean).
    missing : {"mode", "error"}, default="mode"
        Replace a missing value by its attribute's mode in training and at prediction (as Weka's
        ``BayesNet``) or refuse it.
    n_categories : int or array-like of shape (n_features,), default=None
        Domain size of integer-coded attributes (values 0..n−1), as in :class:`CategoricalNB`.
    handle_unknown : {"missing", "error"}, default="missing"
        A value outside an attribute's domain at prediction is treated as a missing value (with a
        warning), so ``missing`` decides: replaced by the mode, or refused; or it raises.
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
    parents_ : list of ndarray
        Attribute j's parents besides the class (attribute indices, in the order the search added
        them); an empty array for an attribute whose only parent is the class.
    family_counts_ : list of ndarray
        Attribute j's (weighted) counts n_{j,u,v}, of shape (n_classes, r_p1, ..., r_pm, r_j) for its
        parents p1..pm: one table per configuration u = (class, parents' values).
    structure_score_ : float
        The attributes' part of the found structure's score under ``score_type``,
        Σ_j score(x_j | C, parents_j), on all the fitted rows.
    modes_ : ndarray of shape (n_features,)
        The code of each attribute's most frequent value in training, which replaces its missing
        values.
    distinct_rows_ : ndarray of shape (n_distinct, 1 + n_features)
        The sufficient statistic the search reads: each distinct training row as (class index,
        attribute codes), −1 for a missing value, sorted.
    distinct_row_count_ : ndarray of shape (n_distinct,)
        The (weighted) number of training rows equal to each distinct row.
    n_features_in_ : int
        The number of attributes seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.

    See Also
    --------
    KDB : Sahami's k-dependence structure, set by mutual information.
    TAN : A Chow–Liu tree with conjugate tables.
    BMATAN : The exact average over every tree instead of one structure.
    MANB : The exact average over naive Bayes feature subsets.
    CategoricalNB : No attribute parents (``max_parents=1``).

    Notes
    -----
    With parents pa_j from the search and parent configuration u = (k, x_pa_j),

    .. math::

        \pi \sim \mathrm{Dirichlet}(\alpha_c \mathbf 1_K), \quad y_i \mid \pi \sim \mathrm{Categorical}(\pi),
        \quad \theta_{j,u} \sim \mathrm{Dirichlet}(\alpha \mathbf 1_{r_j}), \quad
        x_{ij} \mid y_i, x_{i,\mathrm{pa}_j} \sim \mathrm{Categorical}(\theta_{j,u}),

    whose posterior is Dirichlet(α + n_{j,u,v}) per table; the posterior predictive of a row is
    the product of the posterior-mean entries it reads, normalised over the classes. Weka's
    SimpleEstimator is this posterior mean with α = 0.5 for every table, the class's too. With
    ``search="k2", max_parents=2`` or ``search="tan"``, ``score_type="bayes"``,
    ``prior_count=0.5``, ``class_alpha=0.5`` it gives Weka 3.6's BayesNet class distributions
    (``-Q ...K2 -- -P 2 -S BAYES -E ...SimpleEstimator -- -A 0.5``).

    The search reads the distinct rows of every batch so far (``distinct_rows_``, with their
    counts): each ``partial_fit`` merges its batch into them and searches again, so batches give
    the structure, tables and ``loo`` of one fit on all of them, at the cost of a search per
    batch. ``loo`` is exact leave-one-out with the learned structure held fixed (the structure
    was learned on all rows, the left-out one included). A Dask collection is refused: the search
    needs the distinct rows in memory.

    References
    ----------
    .. [1] G. F. Cooper and E. Herskovits, "A Bayesian method for the induction of probabilistic
       networks from data", *Machine Learning* 9, 309–347, 1992.
    .. [2] D. Heckerman, D. Geiger and D. M. Chickering, "Learning Bayesian networks: the
       combination of knowledge and statistical data", *Machine Learning* 20, 197–243, 1995.
    .. [3] N. Friedman, D. Geiger and M. Goldszmidt, "Bayesian network classifiers", *Machine
       Learning* 29, 131–163, 1997.
    .. [4] R. R. Bouckaert, "Bayesian network classifiers in Weka", University of Waikato,
       working paper 14/2004, 2004.

    Examples
    --------
    >>> from pgm_models import BayesNetClassifier, load_dataset
    >>> X, y = load_dataset("weather.nominal")
    >>> model = BayesNetClassifier(search="k2", max_parents=2).fit(X, y)
    >>> [p.tolist() for p in model.parents_]  # temperature ← outlook, humidity ← temperature, ...
    [[], [0], [1], [0]]
    >>> model.family_counts_[1].shape  # class × outlook × temperature
    (2, 3, 3)
    >>> round(model.structure_score_, 3)
    -55.961
    >>> model.predict_proba(X.iloc[:1]).round(3).tolist()
    [[0.914, 0.086]]
    """

    _closed_form = True
    _pymc_model = True
    _nutpie_low_rank = False

    def __init__(
        self,
        search="k2",
        score_type="bayes",
        max_parents=2,
        prior_count=0.5,
        class_alpha=0.5,
        estimate="mean",
        missing="mode",
        n_categories=None,
        handle_unknown="missing",
        class_prior=None,
    ):
        self.search = search
        self.score_type = score_type
        self.max_parents = max_parents
        self.prior_count = prior_count
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.missing = missing
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown
        self.class_prior = class_prior

    def _check_hyperparameters(self):
        if self.search not in SEARCHES:
            raise ValueError(f"search={self.search!r} is not one of {SEARCHES}")
        if self.score_type not in SCORES:
            raise ValueError(f"score_type={self.score_type!r} is not one of {SCORES}")
        if not (
            isinstance(self.max_parents, (int, np.integer))
            and not isinstance(self.max_parents, bool)
            and self.max_parents >= 0
        ):
            raise ValueError(
                f"max_parents must be a whole number ≥ 0 (the class counts as one), got {self.max_parents!r}"
            )
        if self.max_parents < 1:
            raise ValueError(
                f"max_parents={self.max_parents}: the class is a parent of every attribute, so max_parents must be ≥ 1"
            )
        if not (is_number(self.prior_count) and np.isfinite(self.prior_count) and self.prior_count > 0):
            raise ValueError(f"prior_count must be a number > 0, got {self.prior_count!r}")

    def fit(self, X, y, sample_weight=None):
        """Search the structure on (X, y), then fit its tables' closed-form posterior."""
        self._class_rank = declared_rank(getattr(y, "dtype", None))
        return super().fit(X, y, sample_weight)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Merge the batch into the distinct rows so far, then search and fit again from all of them."""
        if not hasattr(self, "classes_"):
            self._class_rank = declared_rank(getattr(y, "dtype", None) if classes is None else classes)
        return super().partial_fit(X, y, classes, sample_weight)

    # the search counts the classes in their declared order, Weka's (``declared_rank``); a subclass that also
    # counts its own way in sorted order (KDB's pair statistic) keeps the sorted one, so its statistics agree
    _declared_class_order = True

    def _blocks_refused(self) -> str | None:
        return "it searches its structure over the distinct rows of all the data in memory: compute the dask collection first"

    # ------------------------------------------------------------------ structure and counts
    def _max_parents(self) -> int:
        """The most parents an attribute may get, the class included."""
        return 2 if self.search == "tan" else int(self.max_parents)

    def _search_structure(self, counter) -> list[list[int]]:
        """Each attribute's parents besides the class."""
        if self.search == "k2":
            return k2(counter, self._max_parents())
        if self.search == "tan":
            return tan(counter)
        return hill_climb(counter, self._max_parents())

    _counts_missing = True  # the modes are those of all batches: missing values are kept until the search

    def _init_counts(self, codes, class_index, weight):
        check_table_sizes(self.n_categories_, len(self.classes_), self._max_parents(), self._feature_names())
        self.distinct_rows_ = np.zeros((0, 1 + codes.shape[1]), dtype=np.intp)
        self.distinct_row_count_ = np.zeros(0)

    def _statistics(self) -> dict:
        return {
            "class_count_": self.class_count_,
            "distinct_rows_": self.distinct_rows_,
            "distinct_row_count_": self.distinct_row_count_,
        }

    def _count(self, codes, class_index, weight):
        """Merge the batch's rows into ``distinct_rows_``, then the modes, structure and tables from all of them."""
        kept = weight > 0  # a row without weight adds nothing, so chunkings that drop it compare equal
        rows = np.concatenate([self.distinct_rows_, np.column_stack([class_index, codes]).astype(np.intp)[kept]])
        self.distinct_rows_, inverse = distinct_rows(rows, (len(self.classes_), *(self.n_categories_ + 1).tolist()))
        self.distinct_row_count_ = np.bincount(
            inverse, np.concatenate([self.distinct_row_count_, weight[kept]]), len(self.distinct_rows_)
        )
        self._fit_structure()

    def _fit_structure(self):
        """Modes, search and family tables from the sufficient statistic."""
        counter = self._family_counter()
        parents = self._search_structure(counter)
        self.parents_ = [np.array(p, dtype=np.intp) for p in parents]
        self.structure_score_ = structure_log_score(counter, parents)
        self.family_counts_ = counter.tables(parents)

    def _family_counter(self) -> FamilyCounter:
        """Set ``modes_`` from the distinct rows and their counts, and count families over them with
        each missing value replaced by its mode.
        """
        class_index, codes = self.distinct_rows_[:, 0], self.distinct_rows_[:, 1:]
        weight = self.distinct_row_count_
        index = self._layout().value_index(codes)  # T where missing
        n_values = int(self.n_categories_.sum())
        self.modes_ = first_modes(
            np.bincount(index.ravel(), np.repeat(weight, codes.shape[1]), n_values + 1), self.n_categories_
        )
        return FamilyCounter(
            np.where(codes < 0, self.modes_[None, :], codes),
            class_index,
            weight,
            self.n_categories_,
            len(self.classes_),
            getattr(self, "score_type", "bayes"),
            float(self.prior_count),
            compress=False,  # distinct already, but where a mode replaced a missing value
            class_rank=getattr(self, "_class_rank", None) if self._declared_class_order else None,
        )

    def _imputed(self, codes):
        """Training codes with each missing value replaced by its attribute's mode."""
        codes = np.asarray(codes, dtype=np.intp)
        return np.where(codes < 0, self.modes_[None, :], codes)

    def _loo_rows(self, X, y):
        encoded, class_index = super()._loo_rows(X, y)
        return self._imputed(encoded), class_index

    def _prior(self, j):
        return Dirichlet(np.full(self.family_counts_[j].shape, float(self.prior_count)))

    def log_evidence(self) -> float:
        """The log marginal likelihood of the fitted counts given the learned structure, log p(D | S).

        The Dirichlet–multinomial evidence of the class counts plus that of every attribute's
        tables given the class and its parents (ordered rows: no multinomial coefficients), with
        the structure held fixed. Its attribute part is the "bayes" score of the structure on all
        the counts, so it compares structures (``search``, ``max_parents``) and ``prior_count``.

        Returns
        -------
        float
            log p(D | structure), in nats.

        Examples
        --------
        >>> from pgm_models import BayesNetClassifier, load_dataset
        >>> X, y = load_dataset("weather.nominal")
        >>> naive = BayesNetClassifier(max_parents=1).fit(X, y)  # naive Bayes
        >>> k2 = BayesNetClassifier(search="k2", max_parents=2).fit(X, y)
        >>> round(naive.log_evidence(), 3), round(k2.log_evidence(), 3)
        (-69.073, -66.65)
        """
        tables = sum(float(self._prior(j).log_evidence(c).sum()) for j, c in enumerate(self.family_counts_))
        return float(self._class_prior.log_evidence(self.class_count_).sum()) + tables

    # ------------------------------------------------------------------ prediction
    def _feature_log_likelihood(self, codes, estimate):
        codes = np.asarray(codes, dtype=np.intp)
        if self._compiled_prediction(estimate):
            return self._compiled_log_sums(codes).T
        log_tables, starts = stacked(
            [
                log_probabilities(self._prior(j).estimate(counts, estimate))
                for j, counts in enumerate(self.family_counts_)
            ]
        )
        # every row summed: the codes' missing values were replaced by the modes
        sums, _ = table_log_sums(
            log_tables, starts, self.n_categories_, self.parents_, codes, len(self.classes_), compiled=False
        )
        return sums.T

    def _compiled_prediction(self, estimate) -> bool:
        """Whether ``_kernels`` scores the rows: the flag is on, numba is loaded, the estimate is the posterior mean."""
        return COMPILED_PREDICTION and isinstance(estimate, str) and estimate in ("mean", "predictive") and jit.loaded()

    def _compiled_log_sums(self, codes):
        """(K, N) the NumPy path's sums by the kernels: every table's mean in one call, NumPy's log of
        them, each row's entries in another.
        """
        counts, starts = stacked(self.family_counts_)
        log_tables = jit.kernels("pgm_models.bayes_net._kernels").mean_tables(
            counts, starts, np.asarray(self.n_categories_, dtype=np.intp), float(self.prior_count)
        )
        np.log(log_tables, out=log_tables)  # every mean > 0 (α > 0): NumPy's log, as the NumPy path's tables
        sums, _ = table_log_sums(log_tables, starts, self.n_categories_, self.parents_, codes, len(self.classes_))
        return sums  # every row summed: the codes' missing values were replaced by the modes

    def _floats_per_row(self):
        return 4 * len(self.classes_)

    def _loo_own_class(self, codes, class_index):
        """Log p(x_i | y_i, D₋ᵢ): each table's entry at the row's own cell, (n − 1 + α)/(N_u − 1 + r α)."""
        codes = np.asarray(codes, dtype=np.intp)
        total = np.zeros(len(codes))
        for j, counts in enumerate(self.family_counts_):
            posterior = self._prior(j).posterior(counts)
            entry = (class_index, *(codes[:, p] for p in self.parents_[j]), codes[:, j])
            block = np.broadcast_to(posterior.total(), counts.shape)[entry]
            total += np.log(posterior.concentration[entry] - 1) - np.log(block - 1)
        return total

    # ------------------------------------------------------------------ posterior and PyMC
    def _dims(self, j):
        names = self._feature_names()
        return ("class", *(f"{names[p]}_value" for p in self.parents_[j]), f"{names[j]}_value")

    def _coords(self):
        coords = {"class": self.classes_}
        for name, categories in zip(self._feature_names(), self.categories_):
            coords[f"{name}_value"] = np.asarray(categories)
        return coords

    def _feature_posterior(self):
        names = self._feature_names()
        return {
            f"feature_prob_{names[j]}": (self._prior(j).posterior(c), self._dims(j))
            for j, c in enumerate(self.family_counts_)
        }

    def _stacked_blocks(self):
        return ["class_prob", *(f"feature_prob_{name}" for name in self._feature_names())]

    def _priors(self):
        names = self._feature_names()
        return DirichletBlocks(
            [
                class_block(self),
                *(
                    (f"feature_prob_{names[j]}", self._prior(j).concentration, self._dims(j))
                    for j in range(self.n_features_in_)
                ),
            ]
        )

    def _counts_model(self, model):
        """N_k ~ Multinomial(N, π); each attribute's counts given (class, parents) ~ Multinomial(θ_{j,u})."""
        names = self._feature_names()
        counts = {f"feature_prob_{names[j]}": integer_counts(c, "counts") for j, c in enumerate(self.family_counts_)}
        self._priors().observe({"class_prob": integer_counts(self.class_count_, "class counts"), **counts})

    def _rows_model(self, model, codes, class_index):
        """y_i ~ Categorical(π); x_ij ~ Categorical(θ_j[y_i, x_i,pa_j]) (missing values replaced by the modes)."""
        import pymc as pm

        prob = self._priors().prob
        names = self._feature_names()
        codes = self._imputed(codes)
        model.add_coord("row", np.arange(len(class_index)))
        y = pm.Categorical("y", p=prob["class_prob"], observed=class_index, dims="row")
        for j in range(self.n_features_in_):
            p = prob[f"feature_prob_{names[j]}"][(y, *(codes[:, q] for q in self.parents_[j]))]
            pm.Categorical(f"x_{names[j]}", p=p, observed=codes[:, j], dims="row")
