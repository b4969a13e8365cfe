"""BMATAN: exact Bayesian model averaging over all tree-augmented naive Bayes structures.

Model (Cerquides & López de Màntaras 2005, TBMATAN; Meilă & Jaakkola 2006). A TAN is an
undirected spanning tree E over the F attributes, each attribute also a child of the class C.
Decomposable prior over trees: P(E) = Π_{uv∈E} β_uv / τ(β), τ(β) = Σ_E Π_{uv∈E} β_uv (β = 1: uniform
over the F^{F−2} trees). Parameters: π ~ Dirichlet(class_alpha); for each class k and pair of
attributes the joint table θ_{k,uv} of (x_u, x_v) ~ Dirichlet(λ/(K r_u r_v)) per cell, whose
marginal θ_{k,v} ~ Dirichlet(λ/(K r_v)) per cell (BDeu with equivalent sample size λ = ``ess``:
the hyperparameters are consistent, so every directed TAN of E — x_root | C, x_v | C, x_u — has
the same prior and the same marginal likelihood, whichever root is chosen). The tree directed
from any root therefore scores

    p(D | E) = ML_C Π_{k,v} ML(n_{k,v}) Π_{uv∈E} R_uv,   R_uv = Π_k ML(n_{k,uv}) / (ML(n_{k,u}) ML(n_{k,v})),

ML the Dirichlet–multinomial marginal likelihood (``Dirichlet.log_evidence``), so the posterior
over trees is again decomposable, P(E | D) ∝ Π_{uv∈E} β_uv R_uv. With complete data a TAN's
posterior predictive is the product of posterior-mean tables, P(x_v | k, x_u) = P(x_u, x_v | k)/P(x_u | k),
so with h_uv(k, x) = P(x_u, x_v | k) / (P(x_u | k) P(x_v | k)) (posterior means)

    P(y = k, x | D) = Σ_E P(E | D) P(k, x | E, D)
                    = P(k | D) Π_v P(x_v | k, D) · τ(β ∘ R ∘ h(k, x)) / τ(β ∘ R),

a ratio of two determinants by the matrix-tree theorem (``pgm_models.bayes_net._trees``, which
states why the log determinants are computed stably). The posterior edge probabilities
P(uv ∈ E | D) follow from the same theorem (the inverse of the reduced Laplacian). The evidence
of the average is log p(D) = log ML_C + Σ_{k,v} log ML(n_{k,v}) + log τ(β ∘ R) − log τ(β).

Leave-one-out (``loo``) is exact and costs what a prediction costs. Without row i (class y) only
class y's tables change; each ML loses the row's own sequential factor, so
R_uv(D₋ᵢ) = R_uv / h⁻ⁱ_uv(y, x_i), h⁻ⁱ read off the downdated tables. Hence for the row's own class
τ(β∘R⁻ⁱ∘h⁻ⁱ(y, x_i)) = τ(β∘R) and p(y, x_i | D₋ᵢ) = P(y | D₋ᵢ) Π_v P(x_v | y, D₋ᵢ) τ(β∘R)/τ(β∘R⁻ⁱ), and for
another class k the full-data tables of k enter τ(β∘R⁻ⁱ∘h(k, x_i)) / τ(β∘R⁻ⁱ): K + 1 log
determinants per row. The modes that replace missing values stay those of the full fit.

Missing values: the factorisations above need complete data, so BMATAN replaces a missing value
by its attribute's mode (``missing="mode"``, Weka's ``BayesNet`` does the same) or refuses it
(``missing="error"``).
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.validation import is_number
from pgm_models.bayes_net._base import DiscreteNetwork, ModeImputation, imputed_pair_counts, zero_pair_counts
from pgm_models.bayes_net._trees import edge_probabilities, log_tree_sum
from pgm_models.conjugate import Dirichlet, log_probabilities
from pgm_models.discrete.pairs import pair_counts
from pgm_models.model_selection.loo import ExactLOO, own_column

ESTIMATES = ("mean", "predictive", "mle")


class BMATAN(ExactLOO, ModeImputation, DiscreteNetwork):
    r"""Tree-augmented naive Bayes averaged exactly over every spanning tree of the attributes.

    A tree-augmented naive Bayes (TAN) gives each attribute the class and at most one other
    attribute as parents, along an undirected spanning tree of the attributes. Rather than
    choosing one tree, BMATAN averages the predictions of all F^(F−2) trees, each weighted by its
    posterior probability; by the matrix-tree theorem the average is exact and costs a few
    determinants per row. ``edge_posterior_`` tells how probable each dependence between two
    attributes is.

    Parameters
    ----------
    ess : float, default=1.0
        Equivalent sample size λ of the attribute tables (BDeu, > 0): λ/(K r_u r_v) per cell of a
        pair's table given the class, λ/(K r_v) per cell of an attribute's.
    class_alpha : float, default=1.0
        Dirichlet concentration of the class probabilities (> 0).
    edge_prior : array-like of shape (n_features, n_features), default=None
        β of the decomposable tree prior P(E) ∝ Π_{uv∈E} β_uv: symmetric, > 0 off the diagonal;
        None: uniform over the trees.
    estimate : {"mean", "predictive", "mle"}, default="mean"
        The tables plugged into the average (the tree posterior is always exact): "mean" and
        "predictive" give the exact posterior predictive. "map" and a ``PosteriorDraw`` are refused
        at prediction: the mode of a pair's Dirichlet does not marginalise to its attributes'
        modes, so h_uv would not make each tree a distribution.
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
    pair_count_ : ndarray of shape (n_classes, T', T')
        n_{k,s,t}, the (weighted) rows of class k with the value or missing cells s and t of two
        attributes (T' = Σ_j (r_j + 1), a cell for "missing" after each attribute's values); its
        diagonal holds the single counts. The missing cells are kept here (so batches and Dask
        blocks add); the tables move them to the mode's cells.
    edge_posterior_ : ndarray of shape (n_features, n_features)
        P(uv ∈ E | D), the posterior probability of each tree edge: symmetric, 0 on the diagonal,
        each row summing to the attribute's expected degree and the whole to 2(F − 1).
    log_edge_weight_ : ndarray of shape (n_features, n_features)
        log β_uv R_uv, the edge weights of the decomposable tree posterior
        P(E | D) ∝ Π_{uv∈E} β_uv R_uv (−inf on the diagonal).
    modes_ : ndarray of shape (n_features,)
        The code of each attribute's most frequent value in training, which replaces its missing
        values.
    n_features_in_ : int
        The number of attributes seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.

    See Also
    --------
    TAN : The single maximum-likelihood tree (Chow–Liu).
    MANB : The exact average over naive Bayes feature subsets.
    BayesNetClassifier : One structure found by a search (``search="tan"``: Weka's TAN).
    AODE : Averages one-parent models with a shared super-parent.

    Notes
    -----
    The prior over trees is decomposable, P(E) = Π_{uv∈E} β_uv / τ(β), with τ(β) the sum over
    spanning trees of the product of their edge weights. The parameters are
    π ~ Dirichlet(class_alpha) and, for each class k and pair of attributes, the joint table
    θ_{k,uv} ~ Dirichlet(λ/(K r_u r_v)) per cell (BDeu: every directed TAN of a tree has the same
    prior and marginal likelihood, whichever root is chosen). With ML the Dirichlet–multinomial
    marginal likelihood,

    .. math::

        p(D \mid E) = ML_C \prod_{k,v} ML(n_{k,v}) \prod_{uv \in E} R_{uv}, \qquad
        R_{uv} = \prod_k \frac{ML(n_{k,uv})}{ML(n_{k,u}) ML(n_{k,v})},

    so the tree posterior is again decomposable, with weights β_uv R_uv. With
    h_uv(k, x) = P(x_u, x_v | k) / (P(x_u | k) P(x_v | k)) from the posterior means,

    .. math::

        P(y = k, x \mid D) = P(k \mid D) \prod_v P(x_v \mid k, D)
        \frac{\tau(\beta \circ R \circ h(k, x))}{\tau(\beta \circ R)},

    a ratio of two determinants by the matrix-tree theorem. Fitting counts the pairs (one pass,
    O(N F²)), reduces one F × F Laplacian (O(F³)) and, for the edge posteriors, one per edge of
    its contractions (O(F⁵) in all); a test row costs K log determinants, O(K F³), and its exact
    leave-one-out score (``loo``) K + 1. :meth:`plot_tree` draws ``edge_posterior_``.

    References
    ----------
    .. [1] J. Cerquides and R. López de Màntaras, "TAN classifiers based on decomposable
       distributions", *Machine Learning* 59, 323–354, 2005.
    .. [2] M. Meilă and T. Jaakkola, "Tractable Bayesian learning of tree belief networks",
       *Statistics and Computing* 16, 77–92, 2006.

    Examples
    --------
    >>> from pgm_models import BMATAN, load_dataset
    >>> X, y = load_dataset("weather.nominal")
    >>> model = BMATAN().fit(X, y)
    >>> model.edge_posterior_.round(2)  # outlook, temperature, humidity, windy
    array([[0.  , 0.05, 0.56, 0.83],
           [0.05, 0.  , 0.99, 0.07],
           [0.56, 0.99, 0.  , 0.51],
           [0.83, 0.07, 0.51, 0.  ]])
    >>> round(float(model.edge_posterior_.sum() / 2), 9)  # F − 1 edges in every tree
    3.0
    >>> model.predict_proba(X.iloc[:1]).round(3).tolist()
    [[0.942, 0.058]]
    """

    _estimates = ESTIMATES

    def __init__(
        self,
        ess=1.0,
        class_alpha=1.0,
        edge_prior=None,
        estimate="mean",
        missing="mode",
        n_categories=None,
        handle_unknown="missing",
        class_prior=None,
    ):
        self.ess = ess
        self.class_alpha = class_alpha
        self.edge_prior = edge_prior
        self.estimate = estimate
        self.missing = missing
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown
        self.class_prior = class_prior

    def _check_hyperparameters(self):
        if not (is_number(self.ess) and np.isfinite(self.ess) and self.ess > 0):
            raise ValueError(f"ess must be a number > 0, got {self.ess!r}")

    def _log_edge_prior(self):
        n = self.n_features_in_
        if self.edge_prior is None:
            return np.zeros((n, n))
        need = f"edge_prior must be a symmetric ({n}, {n}) array of finite numbers > 0 off the diagonal"
        try:
            prior = np.asarray(self.edge_prior, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{need}, got {self.edge_prior!r}") from None
        if prior.shape != (n, n):
            raise ValueError(f"{need}, got shape {prior.shape}")
        off = prior[~np.eye(n, dtype=bool)]
        if not np.all(np.isfinite(prior)) or np.any(off <= 0):
            raise ValueError(f"{need}, got off-diagonal entries from {off.min():g} to {off.max():g}")
        if not np.allclose(prior, prior.T):
            raise ValueError(f"{need}, got an asymmetric array (largest |P − Pᵀ| {np.abs(prior - prior.T).max():g})")
        return np.log(np.where(np.eye(n, dtype=bool), 1.0, prior))

    # ------------------------------------------------------------------ counts and the tree posterior
    _counts_missing = True

    def _init_counts(self, codes, class_index, weight):
        self._log_edge_prior()  # checked before counting
        self.pair_count_ = zero_pair_counts("BMATAN", self._layout(), len(self.classes_))

    def _count(self, codes, class_index, weight):
        layout = self._layout()
        self.pair_count_ = self.pair_count_ + pair_counts(layout, codes, class_index, weight, len(self.classes_))
        self.modes_, self._imputed = imputed_pair_counts(self.pair_count_, layout)
        log_prior = self._log_edge_prior()
        self.log_edge_weight_ = log_prior + self._log_ratios()
        np.fill_diagonal(self.log_edge_weight_, -np.inf)
        self._log_tree_sum = float(log_tree_sum(self.log_edge_weight_))
        self._log_prior_tree_sum = float(log_tree_sum(log_prior))
        self.edge_posterior_ = edge_probabilities(self.log_edge_weight_)

    def _attribute_counts(self):
        """(K, T) n_{k,v}: the pair tensor's diagonal."""
        return np.diagonal(self._imputed, axis1=1, axis2=2)

    def _attribute_prior(self):
        sizes, n_classes = self.n_categories_, len(self.classes_)
        return Dirichlet(
            np.broadcast_to(np.repeat(self.ess / (n_classes * sizes), sizes), (n_classes, int(sizes.sum()))), sizes
        )

    def _log_ratios(self):
        """(F, F) log R_uv = Σ_k log ML(n_{k,uv}) − log ML(n_{k,u}) − log ML(n_{k,v})."""
        sizes, n_classes = self.n_categories_, len(self.classes_)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        single = self._attribute_prior().log_evidence(self._attribute_counts()).sum(axis=0)  # (F,)
        ratios = np.zeros((len(sizes), len(sizes)))
        for u in range(len(sizes)):
            for v in range(u + 1, len(sizes)):
                block = self._imputed[:, starts[u] : starts[u] + sizes[u], starts[v] : starts[v] + sizes[v]].reshape(
                    n_classes, -1
                )
                pair = (
                    Dirichlet(np.full(block.shape, self.ess / (n_classes * sizes[u] * sizes[v])))
                    .log_evidence(block)
                    .sum()
                )
                ratios[u, v] = ratios[v, u] = pair - single[u] - single[v]
        return ratios

    def log_evidence(self) -> float:
        r"""The log marginal likelihood of the average over trees, log p(D | ess, class_alpha, β).

        The Dirichlet–multinomial evidence of the class counts and of every attribute given the
        class, times the tree terms summed over all spanning trees under the prior (ordered rows,
        missing values replaced by the modes):

        .. math::

            \log p(D) = \log ML_C + \sum_{k,v} \log ML(n_{k,v}) + \log \tau(\beta \circ R) - \log \tau(\beta),

        with R the edge ratios of the class Notes. It compares hyperparameters such as ``ess``.

        Returns
        -------
        float
            log p(D), in nats.

        Examples
        --------
        >>> from pgm_models import BMATAN, load_dataset
        >>> X, y = load_dataset("weather.nominal")
        >>> round(BMATAN(ess=1.0).fit(X, y).log_evidence(), 3)
        -81.199
        >>> round(BMATAN(ess=10.0).fit(X, y).log_evidence(), 3)
        -64.733
        """
        attributes = self._attribute_prior().log_evidence(self._attribute_counts()).sum()
        return float(
            self._class_prior.log_evidence(self.class_count_).sum()
            + attributes
            + self._log_tree_sum
            - self._log_prior_tree_sum
        )

    # ------------------------------------------------------------------ prediction
    def _tables(self, estimate):
        """(log P(x_v | k) (K, T), log h_uv(k, x_u, x_v) (K, T, T)) under the estimate."""
        self._no_draws(estimate, "BMATAN")
        if estimate not in ESTIMATES:
            raise ValueError(
                f"estimate={estimate!r} is not available for BMATAN; one of {ESTIMATES} (see the class docstring)"
            )
        sizes, n_classes = self.n_categories_, len(self.classes_)
        cells = np.repeat(sizes, sizes).astype(float)
        prior = 0.0 if estimate == "mle" else self.ess / n_classes  # the mass of each class's table
        total = (self.class_count_ + prior)[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            single = (self._attribute_counts() + prior / cells) / total
            pair = (self._imputed + prior / np.outer(cells, cells)) / total[:, :, None]
        empty = total[:, 0] == 0  # an unseen class under the MLE: uniform tables
        single[empty] = 1 / cells
        pair[empty] = 1 / np.outer(cells, cells)
        log_single, log_pair = log_probabilities(single), log_probabilities(pair)
        with np.errstate(invalid="ignore"):
            log_h = log_pair - log_single[:, :, None] - log_single[:, None, :]
        return log_single, np.where(np.isfinite(log_single[:, :, None] + log_single[:, None, :]), log_h, 0.0)

    def _floats_per_row(self):
        return 4 * len(self.classes_) * self.n_features_in_**2

    def _feature_log_likelihood(self, codes, estimate):
        """Σ_v log P(x_v | k) + log τ(β∘R∘h(k, x)) − log τ(β∘R), every row and class."""
        log_single, log_h = self._tables(estimate)
        index = self._layout().value_index(np.asarray(codes, dtype=np.intp))
        row_h = log_h[:, index[:, :, None], index[:, None, :]]  # (K, N, F, F)
        weights = self.log_edge_weight_ + row_h
        return self._row_sums(log_single, codes) + log_tree_sum(weights).T - self._log_tree_sum

    def _loo_features(self, codes, class_index, all_classes):
        """(log p(x_i | y = k, D), log p(x_i | y = k, D₋ᵢ)) of the average over trees (module docstring)."""
        codes = np.where(codes < 0, self.modes_[None, :], codes)
        full = self._feature_log_likelihood(codes, "predictive")
        log_single, log_h = self._tables("predictive")
        index = self._layout().value_index(np.asarray(codes, dtype=np.intp))
        sizes, n_classes = self.n_categories_, len(self.classes_)
        cells = np.repeat(sizes, sizes).astype(float)[index]  # (N, F) r_v of each attribute
        total = self.class_count_[class_index][:, None] - 1 + self.ess / n_classes
        counts = self._imputed[class_index[:, None, None], index[:, :, None], index[:, None, :]]  # (N, F, F) own class
        single = (np.diagonal(counts, axis1=1, axis2=2) - 1 + self.ess / (n_classes * cells)) / total
        pair = (counts - 1 + self.ess / (n_classes * cells[:, :, None] * cells[:, None, :])) / total[:, :, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            log_own = np.log(pair) - np.log(single)[:, :, None] - np.log(single)[:, None, :]
        log_weight = np.where(np.isfinite(log_own), self.log_edge_weight_ - log_own, self.log_edge_weight_)
        log_normaliser = log_tree_sum(log_weight)  # (N,) log τ(β∘R⁻ⁱ)
        rows = log_h[:, index[:, :, None], index[:, None, :]]  # (K, N, F, F) full-data h of every class
        left = (
            np.take_along_axis(log_single, index[None].repeat(n_classes, 0).reshape(n_classes, -1), axis=1)
            .reshape(n_classes, *index.shape)
            .sum(axis=2)
            .T
            + (log_tree_sum(log_weight[None] + rows) - log_normaliser).T
        )
        own = np.log(single).sum(axis=1) + self._log_tree_sum - log_normaliser
        left[np.arange(len(codes)), class_index] = own
        return (full, left) if all_classes else (own_column(full, class_index), own)

    # ------------------------------------------------------------------ the workflow of an average
    _averaged = True

    def _synthetic_rows(self, n_datasets, n_rows, rng, prior):
        """Per dataset a tree from the prior over spanning trees (``edge_prior``) or the posterior
        (``log_edge_weight_``), rooted at the first attribute, π and the tree's tables (the root's
        given the class, each other attribute's given the class and its parent) from their BDeu
        prior or posterior, then the rows (the imputed counts: missing values at their modes).
        """
        from pgm_models.bayes_net._trees import random_spanning_tree
        from pgm_models.inference.workflow import dirichlet_draws, sampled_labels

        sizes, n_classes = self.n_categories_, len(self.classes_)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        log_weight = self._log_edge_prior() if prior else self.log_edge_weight_
        pairs = np.zeros_like(self._imputed) if prior else self._imputed  # (K, T, T)
        class_concentration = self._class_prior.concentration + (0.0 if prior else self.class_count_)
        parents = np.zeros((n_datasets, len(sizes)), dtype=np.intp)
        labels = np.zeros((n_datasets, n_rows), dtype=np.intp)
        codes = np.zeros((n_datasets, n_rows, len(sizes)), dtype=np.intp)
        for d in range(n_datasets):
            parent = parents[d] = random_spanning_tree(log_weight, rng)
            class_prob = dirichlet_draws(rng, np.broadcast_to(class_concentration, (n_classes,)).copy())
            labels[d] = sampled_labels(np.broadcast_to(class_prob, (n_rows, n_classes)), rng)
            order, placed = [int(np.flatnonzero(parent < 0)[0])], set()
            while order:  # parents before children
                v = order.pop(0)
                placed.add(v)
                order += [int(c) for c in np.flatnonzero(parent == v) if c not in placed]
                own = slice(starts[v], starts[v] + sizes[v])
                if parent[v] < 0:
                    table = dirichlet_draws(
                        rng, np.diagonal(pairs, axis1=1, axis2=2)[:, own] + self.ess / (n_classes * sizes[v])
                    )
                    codes[d, :, v] = sampled_labels(table[labels[d]], rng)
                    continue
                u = parent[v]
                block = pairs[:, starts[u] : starts[u] + sizes[u], own] + self.ess / (n_classes * sizes[u] * sizes[v])
                table = dirichlet_draws(rng, block)  # (K, r_u, r_v)
                codes[d, :, v] = sampled_labels(table[labels[d], codes[d, :, u]], rng)
        return {"parent": (("attribute",), parents)}, labels, codes

    def _joint_draws_refused(self):
        return None  # a true model average: (tree, tables) have a joint posterior

    def _structure_draws(self, n_draws, rng):
        """Joint posterior draws: a spanning tree from the posterior over trees (exactly, by the
        matrix-tree theorem), rooted at the first attribute (``parent``, −1 for the root; BDeu
        gives every rooting the same posterior), π and the tree's tables from their conjugate
        posteriors on the imputed counts. ``feature_prob_<a>`` (class, parent_value, value) is
        P(x_a | y, x_parent); the root's is the same whatever the parent value, and a parent
        value beyond the parent's domain, never read, holds the uniform 1/r_a (not NaN, which
        would make az.loo's relative efficiency NaN).
        """
        from pgm_models.bayes_net._trees import random_spanning_trees
        from pgm_models.inference.workflow import dirichlet_draws

        sizes, n_classes, names = self.n_categories_, len(self.classes_), self._feature_names()
        starts = self._layout().value_starts
        parents = random_spanning_trees(self.log_edge_weight_, n_draws, rng)
        draws = {
            "parent": (("attribute",), parents),
            "class_prob": (
                ("class",),
                dirichlet_draws(rng, np.broadcast_to(self.class_concentration_, (n_draws, n_classes))),
            ),
        }
        width, single = int(sizes.max()), self._attribute_counts()
        for v, name in enumerate(names):
            own = slice(starts[v], starts[v] + sizes[v])
            table = np.full((n_draws, n_classes, width, sizes[v]), 1.0 / sizes[v])
            for u in np.unique(parents[:, v]):
                chosen = np.flatnonzero(parents[:, v] == u)
                if u < 0:
                    root = single[:, own] + self.ess / (n_classes * sizes[v])
                    table[chosen] = dirichlet_draws(rng, np.broadcast_to(root, (len(chosen), *root.shape)))[:, :, None]
                    continue
                block = self._imputed[:, starts[u] : starts[u] + sizes[u], own] + self.ess / (
                    n_classes * sizes[u] * sizes[v]
                )
                table[chosen, :, : sizes[u]] = dirichlet_draws(rng, np.broadcast_to(block, (len(chosen), *block.shape)))
            draws[f"feature_prob_{name}"] = (("class", "parent_value", f"{name}_value"), table)
        coords = {"class": self.classes_, "attribute": names, "parent_value": np.arange(width)}
        coords.update({f"{name}_value": np.asarray(c) for name, c in zip(names, self.categories_)})
        return draws, coords

    def _structure_log_likelihood(self, posterior, codes, class_index):
        """Log π_y + Σ_a log P(x_a | y, x_parent(a)) under each drawn tree and its tables, missing
        values replaced by the modes of the fit (as ``loo`` does).
        """
        from pgm_models.inference.workflow import draw_values

        names = self._feature_names()
        draws = draw_values(posterior, ["parent", "class_prob", *(f"feature_prob_{name}" for name in names)], "BMATAN")
        codes = np.where(codes < 0, self.modes_[None, :], codes)
        parent = draws["parent"].astype(np.intp)  # (chain, draw, F)
        total = np.log(draws["class_prob"][:, :, class_index])
        chain = np.arange(parent.shape[0])[:, None, None]
        draw = np.arange(parent.shape[1])[None, :, None]
        for v, name in enumerate(names):
            u = parent[:, :, v]
            parent_code = np.where(u[..., None] >= 0, codes.T[np.maximum(u, 0)], 0)  # (chain, draw, row)
            table = draws[f"feature_prob_{name}"]
            total += np.log(table[chain, draw, class_index, parent_code, codes[:, v]])
        return total

    def _structure_edges(self):
        """The class → every attribute, and every tree edge u — v with ``edge_posterior_``."""
        names = self._feature_names()
        edges = [("class", f"x_{name}", 1.0, False) for name in names]
        edges += [
            (f"x_{names[u]}", f"x_{names[v]}", float(self.edge_posterior_[u, v]), True)
            for u in range(len(names))
            for v in range(u + 1, len(names))
        ]
        return (
            "BMATAN: the average over the spanning trees of the attributes; an undirected edge is labelled with "
            "its posterior probability of being in the tree",
            edges,
        )

    # ------------------------------------------------------------------ plot
    def plot_tree(self, ax=None, threshold=0.05):
        """Draw the attributes on a circle and every edge whose posterior probability is at least
        ``threshold``, its width and label its probability; returns the matplotlib Figure.
        """
        import matplotlib.pyplot as plt

        from pgm_models._utils.validation import check_fitted

        check_fitted(self, "edge_posterior_")
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 6))
        names = self._feature_names()
        n = len(names)
        angle = 2 * np.pi * np.arange(n) / n
        x, y = np.cos(angle), np.sin(angle)
        for u in range(n):
            for v in range(u + 1, n):
                p = self.edge_posterior_[u, v]
                if p >= threshold:
                    ax.plot(
                        [x[u], x[v]],
                        [y[u], y[v]],
                        color="tab:blue",
                        linewidth=0.5 + 4 * p,
                        alpha=0.3 + 0.7 * p,
                        zorder=1,
                    )
                    ax.text(
                        (x[u] + x[v]) / 2,
                        (y[u] + y[v]) / 2,
                        f"{p:.2f}",
                        fontsize=8,
                        ha="center",
                        va="center",
                        bbox={"boxstyle": "round", "fc": "white", "ec": "none", "alpha": 0.8},
                    )
        ax.scatter(x, y, s=300, color="white", edgecolor="black", zorder=2)
        for name, px, py in zip(names, x, y):
            ax.text(1.15 * px, 1.15 * py, name, ha="center", va="center")
        ax.set_title(f"BMATAN: posterior edge probabilities (≥ {threshold:g})")
        ax.set_xlim(-1.4, 1.4)
        ax.set_ylim(-1.4, 1.4)
        ax.set_aspect("equal")
        ax.axis("off")
        return ax.figure
