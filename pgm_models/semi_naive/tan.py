"""TAN: tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt 1997).

Structure: the Chow–Liu tree of the attributes under the class — the maximum spanning tree of
the complete graph weighted by the conditional mutual information

    I(X_i; X_j | C) = Σ_{k,u,v} P(k, u, v) log[P(u, v | k) / (P(u | k) P(v | k))]

(plug-in frequencies on the rows where both attributes are observed), directed away from
``root``. Every attribute's parents are the class and its tree parent (the root has the class
only).

Model: π ~ Dirichlet(class_alpha); θ_k ~ Dirichlet(alpha) for the root given the class;
φ_{j,k,u} ~ Dirichlet(alpha) for attribute j given class k and tree-parent value u. The
closed-form posterior is Dirichlet(alpha + counts) on the available cases (rows where the
attribute and its tree parent are observed), the same counts the PyMC models observe.
Prediction sums missing attributes out exactly (one upward sum-product pass over the tree); a row
with every value observed is the sum of the log entries it reads (one look-up per row).
``loo(X, y)`` is exact leave-one-out with the tree learned again without each row.
"""

from __future__ import annotations

import copy

import numpy as np

from pgm_models._utils.validation import is_number
from pgm_models.base import integer_counts
from pgm_models.conjugate import Dirichlet, log_probabilities
from pgm_models.conjugate.blocks import DirichletBlocks, class_block
from pgm_models.discrete.lookups import stacked, table_log_sums
from pgm_models.discrete.pairs import conditional_information, family_block
from pgm_models.model_selection.evidence import is_learned
from pgm_models.model_selection.loo import own_column
from pgm_models.semi_naive._base import SemiNaiveBayes
from pgm_models.semi_naive._loo import downdated_log_mean

# Rows with every value observed are scored by look-ups of the log tables (``discrete.lookups``: one
# compiled pass once numba is loaded, NumPy before), where the sum-product pass makes (N, K, r)
# messages for every attribute (BENCHMARKS.md, "Against the floor"); False: every row by the pass
COMPILED_SCORING = True


def conditional_mutual_information(pairs: np.ndarray, layout) -> np.ndarray:
    """(F, F) I(X_i; X_j | C) from the pair tensor (K, T', T') of ``layout``; 0 on the diagonal.
    Each pair's table is a view of the tensor (no copy of it).
    """
    n_attributes = len(layout.sizes)
    information = np.zeros((n_attributes, n_attributes))
    for i in range(n_attributes):
        for j in range(i + 1, n_attributes):
            table = pairs[:, layout.pair_cells(i), layout.pair_cells(j)]
            information[i, j] = information[j, i] = conditional_information(table[None])[0]
    return information


def maximum_spanning_tree(weights: np.ndarray, root: int) -> np.ndarray:
    """Prim's algorithm from ``root``: tree parent of every node (−1 for the root). ``weights``
    (F, F), or a batch (B, F, F) of graphs grown side by side: (B, F).
    """
    batch = np.asarray(weights, dtype=float).reshape((-1,) + np.shape(weights)[-2:])
    n_graphs, n_nodes = batch.shape[:2]
    graphs = np.arange(n_graphs)
    parent = np.full((n_graphs, n_nodes), -1)
    in_tree = np.zeros((n_graphs, n_nodes), dtype=bool)
    in_tree[:, root] = True
    best, best_from = batch[:, root].copy(), np.full((n_graphs, n_nodes), root)
    for _ in range(n_nodes - 1):
        node = np.argmax(np.where(in_tree, -np.inf, best), axis=1)
        parent[graphs, node], in_tree[graphs, node] = best_from[graphs, node], True
        reached = batch[graphs, node]
        better = ~in_tree & (reached > best)
        best, best_from = np.where(better, reached, best), np.where(better, node[:, None], best_from)
    return parent.reshape(np.shape(weights)[:-1])


class TAN(SemiNaiveBayes):
    r"""Tree-augmented naive Bayes with Dirichlet priors.

    Every attribute depends on the class and on at most one other attribute, its parent in the
    Chow–Liu tree of the attributes given the class (the maximum spanning tree of their
    conditional mutual information), directed away from ``root``. The tables are Dirichlet
    posteriors, and missing attributes are summed out exactly.

    Parameters
    ----------
    alpha : float, array-like of shape (n_features,), "evidence" or "evidence-per-attribute", default=1.0
        Dirichlet concentration of every cell (1: Laplace); "evidence" and
        "evidence-per-attribute" learn it by maximising the marginal likelihood (``alpha_``).
    class_alpha : float, array-like of shape (n_classes,) or "evidence", default=1.0
        Dirichlet concentration of the class probabilities (``class_alpha_`` when learned).
    root : int or str, default=0
        The tree's root attribute, by position or by column name.
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters predictions plug in ("predictive" equals "mean").
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
        The posterior Dirichlet concentration of the class probabilities, class_alpha + N_k.
    tree_parent_ : ndarray of shape (n_features,)
        The tree parent of each attribute (−1 for the root).
    mutual_information_ : ndarray of shape (n_features, n_features)
        The edge weights I(X_i; X_j | C).
    categories_ : list of ndarray
        The domain of each attribute.
    n_categories_ : ndarray of shape (n_features,)
        The domain sizes r_j.
    pair_count_ : ndarray of shape (n_classes, T', T')
        The pair-count tensor (T' = Σ_j (r_j + 1) value and missing cells), as in :class:`AODE`.
    n_features_in_ : int
        The number of attributes seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.
    alpha_ : float or ndarray of shape (n_features,)
        The learned ``alpha`` (only with ``alpha="evidence"`` or ``"evidence-per-attribute"``).
    class_alpha_ : float
        The learned ``class_alpha`` (only with ``class_alpha="evidence"``).

    See Also
    --------
    AODE : Averages one-parent models instead of choosing a structure.
    SPODE : One shared parent for every attribute.
    CategoricalNB : No parent attributes.

    Notes
    -----
    The structure is the maximum spanning tree of the complete graph on the attributes weighted by

    .. math::

        I(X_i; X_j \mid C) = \sum_{k,u,v} P(k, u, v) \log\frac{P(u, v \mid k)}{P(u \mid k) P(v \mid k)}

    (plug-in frequencies on the rows where both attributes are observed). The model is
    π ~ Dirichlet(class_alpha), θ_k ~ Dirichlet(alpha) for the root given class k, and
    φ_{j,k,u} ~ Dirichlet(alpha) for attribute j given class k and tree-parent value u. The
    posterior is Dirichlet(alpha + counts) on the available cases (rows where the attribute and its
    tree parent are observed). Prediction sums missing attributes out exactly, in one upward
    sum-product pass over the tree.

    References
    ----------
    .. [1] N. Friedman, D. Geiger and M. Goldszmidt, "Bayesian network classifiers",
       *Machine Learning* 29(2–3), 131–163, 1997.
    .. [2] C. K. Chow and C. N. Liu, "Approximating discrete probability distributions with
       dependence trees", *IEEE Transactions on Information Theory* 14(3), 462–467, 1968.

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import TAN
    >>> X = np.array([[0, 1, 0], [0, 0, 0], [1, 1, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 0])
    >>> model = TAN().fit(X, y)
    >>> model.tree_parent_
    array([-1,  0,  1])
    >>> model.predict_proba(np.array([[0, 1, 1], [1, 0, 0]])).round(3)
    array([[0.762, 0.238],
           [0.385, 0.615]])
    """

    # nutpie's diagonal mass matrix: the low-rank one costs more CPU than it gains here
    # (BENCHMARKS.md, "Mass matrices and tuning steps")
    _nutpie_low_rank = False

    def __init__(
        self,
        alpha=1.0,
        class_alpha=1.0,
        root=0,
        estimate="mean",
        n_categories=None,
        handle_unknown="missing",
        class_prior=None,
    ):
        self.alpha = alpha
        self.class_alpha = class_alpha
        self.root = root
        self.estimate = estimate
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown
        self.class_prior = class_prior

    def _check_hyperparameters(self):
        if is_learned(self.alpha):
            self._check_alpha_option()
        elif not (is_number(self.alpha) and np.isfinite(self.alpha) and self.alpha >= 0):
            raise ValueError(f"alpha must be a number ≥ 0, got {self.alpha!r}")
        super(SemiNaiveBayes, self)._check_hyperparameters()  # no estimator= to check: TAN has Laplace's only

    def _class_concentration(self, n_classes):
        self._check_hyperparameters()
        return super(SemiNaiveBayes, self)._class_concentration(n_classes)  # class_alpha, learned or fixed

    _tensor_copies = 3  # the counts, a batch's counts and their sum; scoring reads views

    def _count(self, codes, class_index, weight):
        super()._count(codes, class_index, weight)
        self.mutual_information_ = conditional_mutual_information(self.pair_count_, self._layout)
        self.tree_parent_ = maximum_spanning_tree(self.mutual_information_, self._root_index())

    def _root_index(self) -> int:
        return self._attribute_index("root")

    # ------------------------------------------------------------------ closed form
    def _conditional_counts(self, j):
        """Counts of attribute j given (class, tree parent): (K, r_p, r_j), or (K, r_j) for the root;
        a view of the pair tensor, never a copy of it.
        """
        parent = self.tree_parent_[j]
        return family_block(
            self.pair_count_, self._layout.pair_cells(j), self._layout.pair_cells(parent) if parent >= 0 else None
        )

    def _conditional_posterior(self, j):
        counts = self._conditional_counts(j)
        return Dirichlet(np.full(counts.shape, self._learned_alpha()[j])), counts

    # ------------------------------------------------------------------ empirical Bayes (semi_naive._evidence)
    def _evidence_cells(self):
        """Every attribute's table given (class, tree parent), flattened, blocks of r_j cells."""
        tables = [self._conditional_counts(j) for j in range(self.n_features_in_)]
        sizes = self.n_categories_
        return (
            np.concatenate([t.ravel() for t in tables]),
            np.concatenate([np.full(t.size // sizes[j], sizes[j]) for j, t in enumerate(tables)]),
            np.concatenate([np.full(t.size, j) for j, t in enumerate(tables)]),
        )

    def log_evidence(self) -> float:
        """The log marginal likelihood of the fitted counts, log p(D | alpha, class_alpha).

        The closed-form Dirichlet–multinomial evidence of the class block plus every attribute's
        tables given the class and its tree parent (the tree held fixed), the quantity the "evidence"
        options maximise.

        Returns
        -------
        float
            log p(D | alpha, class_alpha).

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import TAN
        >>> X = np.array([[0, 1, 0], [0, 0, 0], [1, 1, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 0])
        >>> fixed = TAN().fit(X, y)
        >>> learned = TAN(alpha="evidence", class_alpha="evidence").fit(X, y)
        >>> bool(learned.log_evidence() >= fixed.log_evidence())
        True
        """
        return super().log_evidence() + float(self._class_prior.log_evidence(self.class_count_).sum())

    def _dims(self, j):
        names = self._feature_names()
        if self.tree_parent_[j] < 0:
            return ("class", f"{names[j]}_value")
        return ("class", f"{names[self.tree_parent_[j]]}_value", f"{names[j]}_value")

    def _coords(self):
        coords = {"class": self.classes_}
        for j, name in enumerate(self._feature_names()):
            coords[f"{name}_value"] = np.asarray(self.categories_[j])
        return coords

    def _feature_posterior(self):
        names = self._feature_names()
        parameters = {}
        for j in range(self.n_features_in_):
            prior, counts = self._conditional_posterior(j)
            parameters[f"feature_prob_{names[j]}"] = (prior.posterior(counts), self._dims(j))
        return parameters

    # ------------------------------------------------------------------ prediction
    def _topological_order(self):
        order, frontier = [], [self._root_index()]
        while frontier:
            node = frontier.pop()
            order.append(node)
            frontier.extend(np.flatnonzero(self.tree_parent_ == node).tolist())
        return order

    def _feature_log_likelihood(self, codes, estimate):
        """Log p(observed x | y = k): a row with every value observed is the sum of the log entries
        it reads (``_compiled_scoring``), the others go through ``_sum_product``.
        """
        operands = self._once_per_call(("look-ups", estimate), estimate, lambda: self._lookup_operands(estimate))
        if operands is None:
            return self._sum_product(codes, estimate)
        sums, observed = table_log_sums(*operands, codes, len(self.classes_))
        scores = sums.T
        if not observed.all():
            scores[~observed] = self._sum_product(codes[~observed], estimate)
        return scores

    def _lookup_operands(self, estimate):
        """(the log tables ``stacked``, their starts, the attributes' sizes, their parents) of the
        look-ups, or None where ``_compiled_scoring`` says the sum-product pass scores every row.
        """
        if not self._compiled_scoring(estimate):
            return None
        parents = [[] if p < 0 else [int(p)] for p in self.tree_parent_]
        return (*self._log_tables(estimate), self.n_categories_, parents)

    def _log_tables(self, estimate):
        """Every attribute's log table given (class, tree parent) under the estimate, ``stacked``."""
        tables = []
        for j in range(self.n_features_in_):
            prior, counts = self._conditional_posterior(j)
            tables.append(log_probabilities(prior.estimate(counts, estimate)))
        return stacked(tables)

    def _compiled_scoring(self, estimate) -> bool:
        """Whether rows with every value observed are scored by look-ups of the log tables
        (``discrete.lookups``, compiled once numba is loaded, the same bits by NumPy before):
        ``COMPILED_SCORING`` is on, the estimate is the posterior mean and every α > 0 (every entry > 0,
        as the sum-product pass's messages).
        """
        return (
            COMPILED_SCORING
            and isinstance(estimate, str)
            and estimate in ("mean", "predictive")
            and bool(np.min(self._learned_alpha()) > 0)
        )

    def _sum_product(self, codes, estimate):
        """Log p(observed x | y = k): an upward sum-product pass, missing attributes summed out,
        each message rescaled (its log scale accumulated) so nothing underflows.
        """
        n_rows, n_classes = len(codes), len(self.classes_)
        log_scale = np.zeros((n_rows, n_classes))
        belief = {}  # λ_j(x_j): (N, K, r_j), evidence of j's subtree given x_j
        for j in reversed(self._topological_order()):
            prior, counts = self._conditional_posterior(j)
            table = prior.estimate(counts, estimate)
            size = self.n_categories_[j]
            local = belief.pop(j, np.ones((n_rows, n_classes, size)))
            observed = codes[:, j] >= 0
            indicator = np.ones((n_rows, size))
            indicator[observed] = np.eye(size)[codes[observed, j]]
            local = local * indicator[:, None, :]
            if self.tree_parent_[j] < 0:
                message = np.einsum("kv,nkv->nk", table, local)
                return log_scale + log_probabilities(message)
            message = np.einsum("kuv,nkv->nku", table, local)  # to the tree parent's values
            peak = message.max(axis=2, keepdims=True)
            peak = np.where(peak > 0, peak, 1.0)
            log_scale += log_probabilities(peak[..., 0])
            parent = self.tree_parent_[j]
            belief[parent] = belief.get(parent, np.ones_like(message)) * (message / peak)
        raise AssertionError("the tree has no root")

    # ------------------------------------------------------------------ exact leave-one-out
    def _full_and_loo_joint(self, codes, class_index):
        """Exact leave-one-out, the tree included: without row i the tree is learned again (the
        conditional mutual information of every pair with the row's count taken off its table,
        then the spanning tree, for all rows at once). Every row is then scored by the downdate
        below (``_loo_features``) under its own leave-one-out tree: the full-data
        tree for most rows, another for some (on vote, 196 of 435 rows: under the full-data tree
        their elpd_loo would be 49 nats too high), each distinct tree once for all its rows.
        """
        full, left_out = super()._full_and_loo_joint(codes, class_index)
        trees = maximum_spanning_tree(self._left_out_information(codes, class_index), self._root_index())
        moved = np.flatnonzero((trees != self.tree_parent_).any(axis=1))
        distinct, which = np.unique(trees[moved], axis=0, return_inverse=True)
        for t, tree in enumerate(distinct):
            rows = moved[which.ravel() == t]
            under_tree = copy.copy(self)
            under_tree.tree_parent_ = tree
            left_out[rows] = super(TAN, under_tree)._full_and_loo_joint(codes[rows], class_index[rows])[1]
        return full, left_out

    def _left_out_information(self, codes, class_index):
        """(N, F, F) the edge weights I(X_i; X_j | C) without each row: the row's count is taken
        off the pair's table where both its values are observed.
        """
        layout, rows = self._layout, np.arange(len(class_index))
        information = np.zeros((len(rows), self.n_features_in_, self.n_features_in_))
        for i in range(self.n_features_in_):
            for j in range(i + 1, self.n_features_in_):
                tables = np.repeat(
                    self.pair_count_[None, :, layout.pair_cells(i), layout.pair_cells(j)], len(rows), axis=0
                )
                both = (codes[:, i] >= 0) & (codes[:, j] >= 0)
                tables[rows[both], class_index[both], codes[both, i], codes[both, j]] -= 1
                information[:, i, j] = information[:, j, i] = conditional_information(tables)
        return information

    def _loo_features(self, codes, class_index, all_classes):
        """Leave-one-out under the full-data tree. Row i was counted in attribute j's table only
        where x_j and its tree parent are both observed, and there the table is read at that one
        entry in every term of the sum over the missing attributes, so the downdate multiplies
        the row's own-class likelihood by (n − 1 + α)/(N − 1 + A) ÷ (n + α)/(N + A) per such
        attribute.
        """
        full = self._feature_log_likelihood(codes, "predictive")
        features = full.copy()
        for j in range(self.n_features_in_):
            prior, counts = self._conditional_posterior(j)
            posterior = prior.posterior(counts)
            parent = self.tree_parent_[j]
            counted = (codes[:, j] >= 0) & ((codes[:, parent] >= 0) if parent >= 0 else True)
            rows = np.flatnonzero(counted)
            entry = (class_index[rows],) + ((codes[rows, parent],) if parent >= 0 else ()) + (codes[rows, j],)
            total = np.broadcast_to(posterior.total(), counts.shape)[entry]
            downdated = downdated_log_mean(posterior.concentration[entry], total, self.n_categories_[j], 1)
            features[rows, class_index[rows]] += downdated - log_probabilities(posterior.mean()[entry])
        return (full, features) if all_classes else (own_column(full, class_index), own_column(features, class_index))

    # ------------------------------------------------------------------ PyMC
    def _stacked_blocks(self):
        return ["class_prob", *(f"feature_prob_{name}" for name in self._feature_names())]

    def _priors(self):
        """π ~ Dirichlet(class_alpha) and φ_j ~ Dirichlet(alpha) given (class, tree parent) for each
        attribute, stacked by their numbers of values (``pgm_models.conjugate.blocks``).
        """
        names = self._feature_names()
        return DirichletBlocks(
            [
                class_block(self),
                *(
                    (
                        f"feature_prob_{names[j]}",
                        np.full(self._conditional_counts(j).shape, self._learned_alpha()[j]),
                        self._dims(j),
                    )
                    for j in range(self.n_features_in_)
                ),
            ]
        )

    def _check_proper_prior(self):
        super()._check_proper_prior()
        if np.min(self._learned_alpha()) <= 0:
            raise ValueError(f"alpha={self.alpha!r}: the PyMC model needs a proper prior (alpha > 0)")

    def _counts_model(self, model):
        """N_k ~ Multinomial(N, π); each attribute's counts given (class, tree parent) ~ Multinomial."""
        names = self._feature_names()
        counts = {
            f"feature_prob_{names[j]}": integer_counts(self._conditional_counts(j), "counts")
            for j in range(self.n_features_in_)
        }
        self._priors().observe({"class_prob": integer_counts(self.class_count_, "class counts"), **counts})

    def _rows_model(self, model, codes, class_index):
        """y_i ~ Categorical(π); x_ij ~ Categorical(φ_j[y_i, x_i,parent(j)]) where both are observed."""
        import pymc as pm

        prob = self._priors().prob
        names = self._feature_names()
        model.add_coord("row", np.arange(len(class_index)))
        y = pm.Categorical("y", p=prob["class_prob"], observed=class_index, dims="row")
        for j in range(self.n_features_in_):
            parent = self.tree_parent_[j]
            rows = np.flatnonzero((codes[:, j] >= 0) & ((codes[:, parent] >= 0) if parent >= 0 else True))
            model.add_coord(f"{names[j]}_row", rows)
            feature_prob = prob[f"feature_prob_{names[j]}"]
            p = feature_prob[y[rows]] if parent < 0 else feature_prob[y[rows], codes[rows, parent]]
            pm.Categorical(f"x_{names[j]}", p=p, observed=codes[rows, j], dims=f"{names[j]}_row")
