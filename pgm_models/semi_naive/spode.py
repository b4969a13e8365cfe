"""SPODE: a super-parent one-dependence estimator, the building block of AODE.

Every attribute depends on the class and on one super-parent attribute a:

    (y, x_a) ~ Categorical(θ),  θ ~ Dirichlet(α_joint) over the K·r_a cells,
    x_j | y, x_a ~ Categorical(φ_{j, y, x_a}),  φ_{j, y, v} ~ Dirichlet(α_child) over r_j values.

The closed-form posterior is Dirichlet(α + counts) for θ and each φ, on the available cases
(rows with x_a observed for θ; rows with x_a and x_j observed for φ_j), with Weka's Laplace
(α = 1) or m-estimate (α_joint = m/(K r_a), α_child = m/r_j) priors as posterior means. At
prediction a missing child is skipped, and a missing super-parent is summed out exactly:
p(y, x) = Σ_v P(y, x_a = v) Π_j P(x_j | y, v). The exact posterior predictive equals the
posterior-mean plug-in (each parameter enters p(y, x | θ, φ) once).

Memory: a SPODE counts only its super-parent's rows of the pair tensor, K × r_a × T' (an AODE
needs K × T'²), and scores each row against every parent value in one product, which also sums
a missing super-parent out.

PyMC: the counts form observes the (class, parent) counts ~ Multinomial(N − missing_a, θ) and,
for each child j, the counts of its values ~ Multinomial(N(y, v) − missing, φ_{j,y,v}); the rows
form observes every row whose super-parent is known. ``loo(X, y)`` is exact leave-one-out
(``pgm_models.semi_naive._loo``).
"""

from __future__ import annotations

import numpy as np

from pgm_models.base import integer_counts
from pgm_models.conjugate import Dirichlet, log_probabilities, log_sum_exp
from pgm_models.conjugate.blocks import DirichletBlocks
from pgm_models.model_selection.evidence import is_learned
from pgm_models.semi_naive._base import SemiNaiveBayes


class SPODE(SemiNaiveBayes):
    r"""Super-parent one-dependence estimator: every attribute depends on the class and on one
    super-parent attribute.

    A SPODE relaxes naive Bayes by letting each attribute depend on one shared parent attribute
    besides the class; it is the building block of :class:`AODE` (``AODE().spode(a)`` is its
    member with parent a). The estimates are Weka's Laplace or m-estimate, which are Dirichlet
    posterior means.

    Parameters
    ----------
    parent : int or str, default=0
        The super-parent attribute, by position or by column name.
    alpha : float, array-like of shape (n_features,), "evidence" or "evidence-per-attribute", default=1.0
        The Laplace pseudo-count of every cell (``estimator="laplace"``; Weka: 1); "evidence"
        and "evidence-per-attribute" learn it by maximising the marginal likelihood (``alpha_``).
    estimator : {"laplace", "m-estimate"}, default="laplace"
        Weka's estimators: Laplace (α per cell) or the m-estimate (Weka's -M).
    m : float, default=1.0
        The m-estimate's weight in pseudo-rows (Weka's -W), spread evenly over the cells.
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters predictions plug in ("predictive" equals "mean": each parameter enters the
        likelihood once).
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
    pair_count_ : ndarray of shape (n_classes, r_a, T')
        The super-parent's rows of the pair-count tensor: C[k, u, t], the (weighted) rows of class
        k with x_a = u and the value or missing cell t of another attribute (T' = Σ_j (r_j + 1)).
    n_features_in_ : int
        The number of attributes seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.
    alpha_ : float or ndarray of shape (n_features,)
        The learned ``alpha`` (only with ``alpha="evidence"`` or ``"evidence-per-attribute"``).

    See Also
    --------
    AODE : The average of every attribute's SPODE.
    TAN : One parent per attribute, chosen by a maximum spanning tree.
    CategoricalNB : No parent attribute.

    Notes
    -----
    With super-parent a, values r_j of attribute j and classes k:

    .. math::

        (y, x_a) \sim \mathrm{Categorical}(\theta), \quad
        \theta \sim \mathrm{Dirichlet}(\alpha_\mathrm{joint}) \text{ over the } K r_a \text{ cells}, \\
        x_j \mid y, x_a \sim \mathrm{Categorical}(\phi_{j, y, x_a}), \quad
        \phi_{j, y, v} \sim \mathrm{Dirichlet}(\alpha_\mathrm{child}) \text{ over } r_j \text{ values}.

    The posterior is Dirichlet(α + counts) for θ and each φ, on the available cases (rows with
    x_a observed for θ; rows with x_a and x_j observed for φ_j). Laplace is α = 1 per cell; the
    m-estimate is α_joint = m/(K r_a) and α_child = m/r_j. At prediction a missing child is skipped
    and a missing super-parent is summed out exactly:
    p(y, x) = Σ_v P(y, x_a = v) Π_j P(x_j | y, v). The exact posterior predictive equals the
    posterior-mean plug-in.

    References
    ----------
    .. [1] G. I. Webb, J. R. Boughton and Z. Wang, "Not so naive Bayes: aggregating
       one-dependence estimators", *Machine Learning* 58(1), 5–24, 2005.
    .. [2] K. P. Murphy, *Machine Learning: A Probabilistic Perspective*, MIT Press, 2012,
       section 3.4 (the Dirichlet–multinomial model).

    Examples
    --------
    >>> import numpy as np
    >>> from pgm_models import SPODE
    >>> X = np.array([[0, 1, 0], [0, 0, 0], [1, 1, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]])
    >>> y = np.array([0, 0, 1, 1, 1, 0])
    >>> model = SPODE(parent=0).fit(X, y)
    >>> model.predict_proba(np.array([[0, 1, 1], [1, 0, 0]])).round(3)
    array([[0.793, 0.207],
           [0.439, 0.561]])
    >>> model.analytic_posterior("mean")["joint_prob"].values.round(3)
    array([0.4, 0.1, 0.1, 0.4])
    """

    def __init__(
        self,
        parent=0,
        alpha=1.0,
        estimator="laplace",
        m=1.0,
        estimate="mean",
        n_categories=None,
        handle_unknown="missing",
        class_prior=None,
    ):
        self.parent = parent
        self.alpha = alpha
        self.estimator = estimator
        self.m = m
        self.estimate = estimate
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown
        self.class_prior = class_prior

    _smaller_model = ""  # already the model with the smallest pair counts

    @classmethod
    def from_counts(cls, fitted, parent):
        """A SPODE sharing the counts of another fitted semi-naive model (e.g. an AODE): a view
        of its super-parent's rows of their pair tensor.
        """
        spode = cls(
            parent=parent,
            **{k: v for k, v in fitted.get_params().items() if k in cls._get_param_names() and k != "parent"},
        )
        for name in (
            "classes_",
            "n_features_in_",
            "feature_names_in_",
            "categories_",
            "n_categories_",
            "class_count_",
            "class_concentration_",
            "_layout",
            "_class_prior",
        ):
            if hasattr(fitted, name):
                setattr(spode, name, getattr(fitted, name))
        spode._counted_parent = spode._attribute_index("parent")
        if is_learned(spode.alpha):  # a SPODE's learned α, or an AODE's α of this SPODE
            if isinstance(fitted, SPODE):
                spode.alpha_ = fitted.alpha_
            else:
                spode.alpha = float(fitted.alpha_[spode._counted_parent])
        if isinstance(fitted, SPODE):
            fitted._parent_index()
            if fitted._counted_parent != spode._counted_parent:
                raise ValueError(
                    f"a SPODE fitted with super-parent {fitted.parent!r} has no counts for parent={parent!r}"
                )
            spode.pair_count_ = fitted.pair_count_
        else:
            spode.pair_count_ = fitted.pair_count_[:, spode._pair_rows()]
        return spode

    def _init_counts(self, codes, class_index, weight):
        self._counted_parent = self._attribute_index("parent")
        super()._init_counts(codes, class_index, weight)

    def _pair_rows(self):
        return self._layout.pair_cells(self._counted_parent)

    def _parent_index(self) -> int:
        parent = self._attribute_index("parent")
        if parent != self._counted_parent:
            raise ValueError(
                f"parent={self.parent!r} differs from the super-parent the counts were made for "
                f"({self._feature_names()[self._counted_parent]!r}): fit again"
            )
        return parent

    def _floats_per_row(self):
        """Per row: its one-hot value cells and every class's score for every parent value."""
        return (
            int(self.n_categories_.sum()) + 2 + 2 * len(self.classes_) * int(self.n_categories_[self._counted_parent])
        )

    # ------------------------------------------------------------------ scoring
    def _joint_log_likelihood(self, codes, estimate):
        """Log P(y = k, x_a = v) + Σ_j log P(x_j | k, v) for every parent value v in one product,
        then the row's own v, or the sum over v where x_a is missing (summed out exactly).
        """
        parent = self._parent_index()
        joint, _ = self._counts()
        n_classes, size = len(self.classes_), self.n_categories_[parent]
        log_joint = log_probabilities(Dirichlet(self._joint_concentration()).estimate(joint, estimate)).reshape(
            n_classes, size
        )
        log_joint = self._shifted_to_class_prior(log_joint, [size])
        values = self.pair_count_[:, :, self._layout.value_cells]  # (K, r_a, T)
        sizes = self._layout.sizes
        child_prior = Dirichlet(np.broadcast_to(self._child_alpha(range(size)), values.shape), sizes)
        log_child = log_probabilities(child_prior.estimate(values, estimate))
        log_child[:, :, self._layout.value_cell(parent)] = 0.0  # the parent is not its own child
        per_value = self._parent_cell_scores(self._value_index(codes), self._stack(log_joint, log_child))  # (N, K, r_a)
        value = codes[:, parent]
        scores = np.take_along_axis(per_value, np.maximum(value, 0)[:, None, None], axis=2)[:, :, 0]
        missing = value < 0
        if missing.any():
            scores[missing] = log_sum_exp(per_value[missing], axis=2)
        return scores

    def _loo_block(self, codes, class_index):
        """Exact leave-one-out (``pgm_models.semi_naive._loo``): the row's own parent value read
        off the downdated scores of every parent value; a row with x_a missing was not counted,
        so it keeps its full-data predictive (x_a summed out).
        """
        full = self._joint_log_likelihood(codes, "predictive")
        per_value = self._loo_cell_scores(codes, class_index, self.pair_count_)  # (N, K, r_a)
        value = codes[:, self._parent_index()]
        left_out = np.take_along_axis(per_value, np.maximum(value, 0)[:, None, None], axis=2)[:, :, 0]
        return full, np.where((value < 0)[:, None], full, left_out)

    # ------------------------------------------------------------------ posterior and PyMC
    def _children(self):
        """(index, name) of every attribute but the super-parent."""
        parent = self._parent_index()
        names = self._feature_names()
        return [(j, names[j]) for j in range(self.n_features_in_) if j != parent]

    def _joint_concentration(self):
        parent = self._parent_index()
        n_classes, size = len(self.classes_), self.n_categories_[parent]
        return np.full(n_classes * size, self._attribute_alpha(n_classes * self.n_categories_)[parent])

    def _child_concentration(self, j):
        parent = self._parent_index()
        shape = (len(self.classes_), self.n_categories_[parent], self.n_categories_[j])
        return np.full(shape, self._attribute_alpha(self.n_categories_)[j])

    def _counts(self):
        """(joint counts (K·r_a,), {child: counts (K, r_a, r_j)}) on the available cases, read
        off the super-parent's rows of the pair tensor (K, r_a, T').
        """
        parent = self._parent_index()
        own = self.pair_count_[:, :, self._layout.pair_cells(parent)]  # (K, r_a, r_a): N(y, v) on the diagonal
        joint = np.diagonal(own, axis1=1, axis2=2).ravel()
        return joint, {j: self.pair_count_[:, :, self._layout.pair_cells(j)] for j, _ in self._children()}

    def _coords(self):
        parent = self._parent_index()
        names = self._feature_names()
        coords = {"class": self.classes_}
        for j, name in enumerate(names):
            coords[f"{name}_value"] = np.asarray(self.categories_[j])
        pairs = [(k, v) for k in self.classes_.tolist() for v in self.categories_[parent].tolist()]
        coords["class_parent"] = [f"{k}, {v}" for k, v in pairs]
        if len(set(coords["class_parent"])) < len(
            pairs
        ):  # a label or value holding ", ": one label, two cells of joint_prob
            label = next(label for i, label in enumerate(coords["class_parent"]) if label in coords["class_parent"][:i])
            raise ValueError(
                f"joint_prob's cells are labelled 'class, {names[parent]} value', and {label!r} would label both "
                f"{[pair for pair, other in zip(pairs, coords['class_parent']) if other == label]}: "
                "rename the class labels or the values"
            )
        return coords

    def _parameters(self):
        parent = self._parent_index()
        parent_name = self._feature_names()[parent]
        joint, children = self._counts()
        parameters = {"joint_prob": (Dirichlet(self._joint_concentration()).posterior(joint), ("class_parent",))}
        for j, name in self._children():
            parameters[f"feature_prob_{name}"] = (
                Dirichlet(self._child_concentration(j)).posterior(children[j]),
                ("class", f"{parent_name}_value", f"{name}_value"),
            )
        return parameters

    def _stacked_blocks(self):
        return ["joint_prob", *(f"feature_prob_{name}" for _, name in self._children())]

    def _priors(self):
        self._check_proper_prior()
        parent = self._parent_index()
        parent_name = self._feature_names()[parent]
        # stacked by their numbers of values into few PyMC variables (pgm_models.conjugate.blocks)
        return DirichletBlocks(
            [
                ("joint_prob", self._joint_concentration(), ("class_parent",)),
                *(
                    (
                        f"feature_prob_{name}",
                        self._child_concentration(j),
                        ("class", f"{parent_name}_value", f"{name}_value"),
                    )
                    for j, name in self._children()
                ),
            ]
        )

    def _check_proper_prior(self):
        if np.min(self._per_cell(1)) <= 0:
            raise ValueError(
                f"the PyMC model needs a proper prior: {'alpha' if self.estimator == 'laplace' else 'm'} > 0"
            )

    def _counts_model(self, model):
        joint, children = self._counts()
        self._priors().observe(
            {
                "joint_prob": integer_counts(joint, "counts"),
                **{f"feature_prob_{name}": integer_counts(children[j], "counts") for j, name in self._children()},
            }
        )

    def _synthetic_variables(self, replicated):
        """The rows form's ``y_parent`` cells (class · r_a + x_a) split into ``y`` and ``x_<parent>``."""
        parent = self._parent_index()
        size = int(self.n_categories_[parent])
        cell = replicated["y_parent"]
        return replicated.drop_vars("y_parent").assign(
            {"y": cell // size, f"x_{self._feature_names()[parent]}": cell % size}
        )

    def _rows_model(self, model, codes, class_index):
        import pymc as pm

        prob = self._priors().prob
        parent = self._parent_index()
        known = np.flatnonzero(codes[:, parent] >= 0)
        model.add_coord("row", known)
        size = self.n_categories_[parent]
        cell = pm.Categorical(
            "y_parent", p=prob["joint_prob"], observed=class_index[known] * size + codes[known, parent], dims="row"
        )
        y, x_parent = cell // size, cell % size
        for j, name in self._children():
            rows = np.flatnonzero(codes[known, j] >= 0)
            model.add_coord(f"{name}_row", known[rows])
            pm.Categorical(
                f"x_{name}",
                p=prob[f"feature_prob_{name}"][y[rows], x_parent[rows]],
                observed=codes[known[rows], j],
                dims=f"{name}_row",
            )
