"""KDB: Sahami's k-dependence Bayesian classifier, a Bayesian network whose structure is set by
mutual information.

Structure (Sahami 1996). Order the attributes by their mutual information with the class,
I(X_i; C), highest first (ties: the earlier attribute). Each attribute in turn takes as parents the
class and the min(k, number placed before it) attributes already placed with the highest
conditional mutual information I(X_i; X_j | C) (ties: the earlier-placed attribute). k = 0 is naive
Bayes, k = 1 a tree-like network. The information is computed from the weighted relative
frequencies of the first batch (maximum likelihood, natural logarithms):

    I(X_i; C)       = Σ_{k,v} p̂(k, v) log p̂(k, v) / (p̂(k) p̂(v)),
    I(X_i; X_j | C) = Σ_{k,u,v} p̂(k, u, v) log p̂(k, u, v) p̂(k) / (p̂(k, u) p̂(k, v)).

Given the structure, the model is ``BayesNetClassifier``'s: Dirichlet(``prior_count``) tables
for every (class, parents) configuration, their closed-form posterior, the PyMC model and the
four estimates; ``partial_fit`` keeps the first batch's structure.
"""

from __future__ import annotations

import numpy as np

from pgm_models.bayes_net.classifier import BayesNetClassifier


def mutual_information(table: np.ndarray) -> float:
    """I(A; B) of a (…, a, b) count table's last two axes, summed over the leading axes as a
    conditioning variable: Σ p̂(c, a, b) log p̂(c, a, b) p̂(c) / (p̂(c, a) p̂(c, b))."""
    total = table.sum()
    if total <= 0:
        return 0.0
    joint = table / total
    given = joint.sum(axis=(-2, -1), keepdims=True)
    left, right = joint.sum(axis=-1, keepdims=True), joint.sum(axis=-2, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(joint > 0, joint * np.log(joint * given / (left * right)), 0.0)
    return float(terms.sum())


def kdb_structure(class_information, conditional_information, k: int) -> list[list[int]]:
    """Sahami's parents of every attribute (indices besides the class), from I(X_i; C) and the
    symmetric matrix I(X_i; X_j | C)."""
    order = sorted(range(len(class_information)), key=lambda i: (-class_information[i], i))
    parents, placed = [[] for _ in order], []
    for i in order:
        ranked = sorted(placed, key=lambda j: (-conditional_information[i][j], placed.index(j)))
        parents[i] = ranked[: min(k, len(placed))]
        placed.append(i)
    return parents


class KDB(BayesNetClassifier):
    """Sahami's k-dependence Bayesian classifier with conjugate Dirichlet tables.

    Parameters
    ----------
    k : int ≥ 0, default 1
        The most attribute parents of an attribute (besides the class): 0 is naive Bayes.
    prior_count : float > 0, default 1.0
        Dirichlet concentration of every cell of every attribute table (1 is Laplace smoothing).
    class_alpha : float > 0, default 1.0
        Dirichlet concentration of the class probabilities.
    estimate : {"mean", "map", "mle", "predictive"}, default "mean"
    missing : {"mode", "error"}, default "mode"
        Missing values replaced by the attribute's mode in training and prediction, or refused.
    n_categories, handle_unknown : as for CategoricalNB.
    class_prior : array-like of shape (n_classes,), default=None
        A prevalence-shift correction: predictions use these class probabilities (in the order of
        ``classes_``) in place of the class-probability posterior, under every estimate;
        ``set_class_prior`` changes them on a fitted model without refitting. None: the posterior.

    Attributes
    ----------
    parents_ : list of arrays
        Attribute j's parents besides the class, highest conditional mutual information first.
    class_information_ : array (F,)
        I(X_j; C) of every attribute, which orders them.
    conditional_information_ : array (F, F)
        I(X_i; X_j | C) of every pair (0 on the diagonal).
    family_counts_, classes_, class_count_, categories_, n_categories_, modes_
        As for BayesNetClassifier.

    Notes
    -----
    The structure procedure and the information measures are in the module docstring
    (``pgm_models.bayes_net.kdb``); given the structure, θ_{j,u} ~ Dirichlet(prior_count) for every
    configuration u = (class, parents), whose posterior is Dirichlet(prior_count + n_{j,u,v}).

    References
    ----------
    M. Sahami (1996). Learning limited dependence Bayesian classifiers. In Proceedings of KDD-96,
    335–338.

    Examples
    --------
    >>> from pgm_models import KDB, load_dataset
    >>> X, y = load_dataset("weather.nominal")
    >>> model = KDB(k=1).fit(X, y)
    >>> [p.tolist() for p in model.parents_]
    [[], [0], [0], [0]]
    >>> model.predict_proba(X.iloc[:1]).round(3).tolist()
    [[0.92, 0.08]]
    """

    def __init__(self, k=1, prior_count=1.0, class_alpha=1.0, estimate="mean", missing="mode", n_categories=None,
                 handle_unknown="missing", class_prior=None):
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
        if not (np.isscalar(self.prior_count) and np.isfinite(self.prior_count) and self.prior_count > 0):
            raise ValueError(f"prior_count must be a number > 0, got {self.prior_count!r}")

    def _max_parents(self) -> int:
        return int(self.k) + 1

    def _search_structure(self, counter) -> list[list[int]]:
        n = len(counter.sizes)
        self.class_information_ = np.array([mutual_information(counter.table(i, [])[None]) for i in range(n)])
        self.conditional_information_ = np.zeros((n, n))
        for i in range(n):
            for j in range(i + 1, n):
                self.conditional_information_[i, j] = self.conditional_information_[j, i] = mutual_information(counter.table(i, [j]))
        return kdb_structure(self.class_information_, self.conditional_information_, int(self.k))
