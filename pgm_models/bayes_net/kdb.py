"""KDB: Sahami's k-dependence Bayesian classifier, a Bayesian network whose structure is set by
mutual information.

Structure (Sahami 1996). Order the attributes by their mutual information with the class,
I(X_i; C), highest first (ties: the earlier attribute). Each attribute in turn takes as parents the
class and the min(k, number placed before it) attributes already placed with the highest
conditional mutual information I(X_i; X_j | C) (ties: the earlier-placed attribute). k = 0 is naive
Bayes, k = 1 a tree-like network. The information is computed from the weighted relative
frequencies of all the fitted rows (maximum likelihood, natural logarithms):

    I(X_i; C)       = Σ_{k,v} p̂(k, v) log p̂(k, v) / (p̂(k) p̂(v)),
    I(X_i; X_j | C) = Σ_{k,u,v} p̂(k, u, v) log p̂(k, u, v) p̂(k) / (p̂(k, u) p̂(k, v)).

Given the structure, the model is ``BayesNetClassifier``'s: Dirichlet(``prior_count``) tables
for every (class, parents) configuration, their closed-form posterior, the PyMC model and the
four estimates.

Sufficient statistic: with k ≤ 1 every table and information is a pair count, so the statistic is
the (class, cell, cell) pair tensor of ``pgm_models.discrete.pairs`` with a cell for "missing" per
attribute (``pair_count_``); the modes are read off its diagonal and the missing cells moved to them
(``imputed_pair_counts``). Batches and Dask blocks add their tensors, and the structure is set again
from the sum: one fit's model. With k ≥ 2 the tables need the joint of three or more attributes, and
the statistic is ``BayesNetClassifier``'s distinct rows; both statistics give the same fit (to the
last bit on whole-number weights). A fit keeps the statistic it began with.
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.validation import is_number
from pgm_models.bayes_net._base import imputed_pair_counts, zero_pair_counts
from pgm_models.bayes_net._search import check_table_sizes, family_score
from pgm_models.bayes_net.classifier import BayesNetClassifier
from pgm_models.discrete.pairs import PairLayout, conditional_information, family_block, pair_counts

# With at most one attribute parent (k ≤ 1) every table and information KDB reads is a pair count, so
# its statistic is the pair tensor (K·T'² cells whatever the rows), which batches and Dask blocks add.
# False: the distinct rows for every k (k ≥ 2's statistic), the plain path the tests compare with
PAIR_STATISTIC = True


class PairFamilies:
    """``FamilyCounter``'s tables and "bayes" scores of families with at most one attribute parent,
    read off the (K, T, T) pair counts of the value cells: (class, child) is the diagonal of the
    child's block, (class, parent, child) the block of the two.
    """

    def __init__(self, pairs, layout: PairLayout, prior_count: float):
        self.pairs, self.layout, self.prior_count = pairs, layout, prior_count
        self.sizes, self.n_classes = layout.sizes, pairs.shape[0]

    def _cells(self, j: int) -> slice:
        start = int(self.layout.value_starts[j])
        return slice(start, start + int(self.sizes[j]))

    def table(self, child: int, parents) -> np.ndarray:
        """(K, r_child) or (K, r_parent, r_child) weighted counts of the family."""
        parent = self._cells(parents[0]) if parents else None
        return family_block(self.pairs, self._cells(child), parent).copy()

    def tables(self, parents) -> list[np.ndarray]:
        """``table(j, parents[j])`` of every attribute j."""
        return [self.table(j, list(p)) for j, p in enumerate(parents)]

    def score(self, child: int, parents) -> float:
        """The family's "bayes" score (Cooper–Herskovits with ``prior_count`` per cell)."""
        counts = self.table(child, parents)
        return family_score(counts.reshape(-1, counts.shape[-1]), "bayes", self.prior_count, float(counts.sum()))


def kdb_structure(class_information, pair_information, k: int) -> list[list[int]]:
    """Sahami's parents of every attribute (indices besides the class), from I(X_i; C) and the
    symmetric matrix I(X_i; X_j | C).
    """
    order = sorted(range(len(class_information)), key=lambda i: (-class_information[i], i))
    parents, placed = [[] for _ in order], []
    for i in order:
        ranked = sorted(placed, key=lambda j: (-pair_information[i][j], placed.index(j)))
        parents[i] = ranked[: min(k, len(placed))]
        placed.append(i)
    return parents


class KDB(BayesNetClassifier):
    r"""Sahami's k-dependence Bayesian classifier with conjugate Dirichlet tables.

    KDB lets every attribute depend on the class and on up to k other attributes, chosen greedily
    by mutual information: attributes are placed in order of their information about the class,
    and each takes as parents the k already placed with which it shares most information given
    the class. k = 0 is naive Bayes, k = 1 a tree-like network; larger k trades variance for bias
    without a search over structures. Given the structure it is :class:`BayesNetClassifier`'s
    model, with the closed-form posterior, PyMC model and draws.

    Parameters
    ----------
    k : int, default=1
        The most attribute parents of an attribute besides the class (≥ 0; 0 is naive Bayes).
    prior_count : float, default=1.0
        Dirichlet concentration of every cell of every attribute table (> 0; 1 is Laplace
        smoothing).
    class_alpha : float, default=1.0
        Dirichlet concentration of the class probabilities (> 0).
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters predictions plug in: the posterior mean, the posterior mode, the
        maximum-likelihood estimate, or the exact posterior predictive (here equal to the mean).
    missing : {"mode", "error"}, default="mode"
        Replace a missing value by its attribute's mode in training and at prediction, or refuse
        it.
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
        Attribute j's parents besides the class (attribute indices), highest conditional mutual
        information first; at most k of them.
    class_information_ : ndarray of shape (n_features,)
        I(X_j; C), the mutual information of every attribute with the class (nats), which orders
        the attributes.
    conditional_information_ : ndarray of shape (n_features, n_features)
        I(X_i; X_j | C) of every pair of attributes (nats; symmetric, 0 on the diagonal), which
        ranks the candidate parents.
    family_counts_ : list of ndarray
        Attribute j's (weighted) counts n_{j,u,v}, of shape (n_classes, r_p1, ..., r_pm, r_j) for its
        parents p1..pm: one table per configuration u = (class, parents' values).
    structure_score_ : float
        The attributes' part of the structure's Bayesian (Cooper–Herskovits) score with
        ``prior_count`` per cell, Σ_j log ML(x_j | C, parents_j), on all the fitted rows.
    modes_ : ndarray of shape (n_features,)
        The code of each attribute's most frequent value in training, which replaces its missing
        values.
    pair_count_ : ndarray of shape (n_classes, T', T')
        The sufficient statistic with k ≤ 1: n_{k,s,t}, the (weighted) rows of class k with the
        value or missing cells s and t of two attributes (T' = Σ_j (r_j + 1), a cell for "missing"
        after each attribute's values); its diagonal holds the single counts. Absent with k ≥ 2.
    distinct_rows_ : ndarray of shape (n_distinct, 1 + n_features)
        The sufficient statistic with k ≥ 2: each distinct training row as (class index, attribute
        codes), −1 for a missing value, sorted.
    distinct_row_count_ : ndarray of shape (n_distinct,)
        The (weighted) number of training rows equal to each distinct row (with ``distinct_rows_``).
    n_features_in_ : int
        The number of attributes seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.

    See Also
    --------
    BayesNetClassifier : The structure found by a score-based search instead.
    TAN : One parent per attribute along a maximum spanning tree.
    AODE : Averages one-parent models instead of choosing parents.
    A2DE : Averages two-parent models.
    CategoricalNB : No attribute parents (``k=0``).

    Notes
    -----
    Order the attributes by I(X_i; C), highest first (ties: the earlier attribute). Each attribute
    in turn takes as parents the class and the min(k, number placed before it) attributes already
    placed with the highest I(X_i; X_j | C) (ties: the earlier-placed attribute). The information
    is computed from the weighted relative frequencies p̂ of all the fitted rows (natural logarithms):

    .. math::

        I(X_i; C) = \sum_{k,v} \hat p(k, v) \log \frac{\hat p(k, v)}{\hat p(k) \hat p(v)}, \qquad
        I(X_i; X_j \mid C) = \sum_{k,u,v} \hat p(k, u, v)
        \log \frac{\hat p(k, u, v) \hat p(k)}{\hat p(k, u) \hat p(k, v)}.

    Given the structure, θ_{j,u} ~ Dirichlet(prior_count) for every configuration
    u = (class, parents), whose posterior is Dirichlet(prior_count + n_{j,u,v}); ``loo`` is
    exact leave-one-out with the structure held fixed.

    With k ≤ 1 every table and both informations are read off the pair counts ``pair_count_``
    (a missing value kept in its own cell of ``pair_count_`` and moved to its attribute's mode when
    the tables are made): ``partial_fit`` batches and the blocks of a Dask collection add their pair counts,
    and the structure is set again from the sum, so they give one fit's model. With k ≥ 2 the
    statistic is the distinct rows (``distinct_rows_``, as :class:`BayesNetClassifier`): batches
    merge into them, and a Dask collection is refused. The pair tensor has K·T'² cells whatever
    the number of rows; one that cannot fit in memory is refused before counting, with its size.
    A fit keeps the statistic it began with: ``partial_fit`` after ``set_params(k=2)`` on pair
    counts is refused (fit again).

    References
    ----------
    .. [1] M. Sahami, "Learning limited dependence Bayesian classifiers", *Proceedings of KDD-96*,
       335–338, 1996.

    Examples
    --------
    >>> from pgm_models import KDB, load_dataset
    >>> X, y = load_dataset("weather.nominal")
    >>> model = KDB(k=1).fit(X, y)
    >>> model.class_information_.round(3)  # outlook, temperature, humidity, windy
    array([0.171, 0.02 , 0.105, 0.033])
    >>> [p.tolist() for p in model.parents_]
    [[], [0], [0], [0]]
    >>> model.predict_proba(X.iloc[:1]).round(3).tolist()
    [[0.92, 0.08]]
    >>> [p.tolist() for p in KDB(k=2).fit(X, y).parents_]
    [[], [0, 2], [0], [0, 2]]
    """

    def __init__(
        self,
        k=1,
        prior_count=1.0,
        class_alpha=1.0,
        estimate="mean",
        missing="mode",
        n_categories=None,
        handle_unknown="missing",
        class_prior=None,
    ):
        self.k = k
        self.prior_count = prior_count
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.missing = missing
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown
        self.class_prior = class_prior

    def _check_hyperparameters(self):
        if not (isinstance(self.k, (int, np.integer)) and not isinstance(self.k, bool) and self.k >= 0):
            raise ValueError(f"k must be a whole number ≥ 0 (attribute parents besides the class), got {self.k!r}")
        if not (is_number(self.prior_count) and np.isfinite(self.prior_count) and self.prior_count > 0):
            raise ValueError(f"prior_count must be a number > 0, got {self.prior_count!r}")

    def _max_parents(self) -> int:
        return int(self.k) + 1

    # ------------------------------------------------------------------ the statistic
    _declared_class_order = False  # the pair statistic counts in sorted class order: both statistics the same bits

    def _pair_statistic(self) -> bool:
        """Whether the statistic is the pair tensor, not the distinct rows: the one this fit keeps, else
        k ≤ 1 (``PAIR_STATISTIC`` on).
        """
        if hasattr(self, "pair_count_") or hasattr(self, "distinct_rows_"):
            return hasattr(self, "pair_count_")
        return PAIR_STATISTIC and int(self.k) <= 1

    def _init_counts(self, codes, class_index, weight):
        if not self._pair_statistic():
            return super()._init_counts(codes, class_index, weight)
        check_table_sizes(self.n_categories_, len(self.classes_), self._max_parents(), self._feature_names())
        self.pair_count_ = zero_pair_counts("KDB", self._layout(), len(self.classes_))

    def _statistics(self) -> dict:
        if not self._pair_statistic():
            return super()._statistics()
        return {"class_count_": self.class_count_, "pair_count_": self.pair_count_}

    def _count(self, codes, class_index, weight):
        """Add the batch's pair counts (missing values in their own cells), then the modes, structure and tables."""
        if not self._pair_statistic():
            return super()._count(codes, class_index, weight)
        if int(self.k) > 1:
            raise ValueError(
                f"k={self.k}: its tables need the distinct rows, but this fit kept the pair counts of k ≤ 1; "
                "fit again (fit, not partial_fit)"
            )
        self.pair_count_ = self.pair_count_ + pair_counts(
            self._layout(), codes, class_index, weight, len(self.classes_)
        )
        self._fit_structure()

    def _family_counter(self):
        if not self._pair_statistic():
            return super()._family_counter()
        self.modes_, imputed = imputed_pair_counts(self.pair_count_, self._layout())
        return PairFamilies(imputed, self._layout(), float(self.prior_count))

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add the batch's pair counts (k ≤ 1) or merge it into the distinct rows (k ≥ 2), then set the
        structure and tables again from all the rows so far.
        """
        return super().partial_fit(X, y, classes, sample_weight)

    def _blocks_refused(self) -> str | None:
        self._check_hyperparameters()  # a bad k is named as in memory, not taken for k ≥ 2
        if PAIR_STATISTIC and self.k <= 1:
            return None
        return (
            f"k={self.k} reads the distinct rows of all the data in memory: compute the dask collection first "
            "(k ≤ 1 counts pairs, which a dask fit adds block by block)"
        )

    # ------------------------------------------------------------------ structure
    def _search_structure(self, counter) -> list[list[int]]:
        n = len(counter.sizes)
        self.class_information_ = np.array(
            [conditional_information(counter.table(i, [])[None, None])[0] for i in range(n)]
        )
        self.conditional_information_ = np.zeros((n, n))
        for i in range(n):
            for j in range(i + 1, n):
                self.conditional_information_[i, j] = self.conditional_information_[j, i] = conditional_information(
                    counter.table(i, [j])[None]
                )[0]
        return kdb_structure(self.class_information_, self.conditional_information_, int(self.k))
