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

PyMC: the counts form observes the (class, parent) counts ~ Multinomial(N − missing_a, θ) and,
for each child j, the counts of its values ~ Multinomial(N(y, v) − missing, φ_{j,y,v}); the rows
form observes every row whose super-parent is known.
"""

from __future__ import annotations

import numpy as np

from pgm_models.base import integer_counts
from pgm_models.conjugate import Dirichlet, log_sum_exp
from pgm_models.semi_naive._base import SemiNaiveBayes


class SPODE(SemiNaiveBayes):
    """One-dependence estimator with a single super-parent attribute.

    Parameters
    ----------
    parent : index or name of the super-parent attribute.
    alpha, estimator, m : the Dirichlet priors, as in :class:`AODE` (Weka's Laplace by default).
    estimate : {"mean", "map", "mle", "predictive"}.
    n_categories, handle_unknown : as for CategoricalNB.
    """

    def __init__(self, parent=0, alpha=1.0, estimator="laplace", m=1.0, estimate="mean", n_categories=None,
                 handle_unknown="missing"):
        self.parent = parent
        self.alpha = alpha
        self.estimator = estimator
        self.m = m
        self.estimate = estimate
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown

    @classmethod
    def from_counts(cls, fitted, parent):
        """A SPODE sharing the counts of another fitted semi-naive model (e.g. an AODE)."""
        spode = cls(parent=parent, **{k: v for k, v in fitted.get_params().items() if k in cls._get_param_names() and k != "parent"})
        for name in ("classes_", "n_features_in_", "feature_names_in_", "categories_", "n_categories_", "class_count_",
                     "class_concentration_", "pair_count_", "complete_pair_count_", "_layout", "_class_prior"):
            if hasattr(fitted, name):
                setattr(spode, name, getattr(fitted, name))
        spode._parent_index()
        return spode

    def _count(self, codes, class_index, weight):
        super()._count(codes, class_index, weight)
        self._parent_index()

    def _parent_index(self) -> int:
        return self._attribute_index("parent")

    # ------------------------------------------------------------------ scoring
    def _joint_log_likelihood(self, codes, estimate):
        parent = self._parent_index()
        missing = codes[:, parent] < 0
        tables = self._spode_tables(estimate)
        scores = self._spode_scores(codes, tables)[:, :, parent]
        if missing.any():
            # sum the unobserved super-parent out: one pass per value it can take
            per_value = []
            for value in range(self.n_categories_[parent]):
                filled = codes[missing].copy()
                filled[:, parent] = value
                per_value.append(self._spode_scores(filled, tables)[:, :, parent])
            scores[missing] = log_sum_exp(np.stack(per_value, axis=2), axis=2)
        return scores

    # ------------------------------------------------------------------ posterior and PyMC
    def _parent_cells(self):
        parent = self._parent_index()
        return parent, self._layout.value_cell(parent)

    def _children(self):
        """(index, name, slice of value cells) of every attribute but the super-parent."""
        parent = self._parent_index()
        names = self._feature_names()
        return [(j, names[j], self._layout.value_cell(j)) for j in range(self.n_features_in_) if j != parent]

    def _joint_concentration(self):
        parent, _ = self._parent_cells()
        n_classes, size = len(self.classes_), self.n_categories_[parent]
        return np.full(n_classes * size, float(self._per_cell(n_classes * size)))

    def _child_concentration(self, j):
        parent, _ = self._parent_cells()
        shape = (len(self.classes_), self.n_categories_[parent], self.n_categories_[j])
        return np.full(shape, float(self._per_cell(self.n_categories_[j])))

    def _counts(self):
        """(joint counts (K·r_a,), {child: counts (K, r_a, r_j)}) on the available cases."""
        parent, cells = self._parent_cells()
        values = self._value_counts(self.pair_count_, self._layout)
        joint = np.diagonal(values, axis1=1, axis2=2)[:, cells].ravel()
        return joint, {j: values[:, cells][:, :, child] for j, _, child in self._children()}

    def _coords(self):
        parent, _ = self._parent_cells()
        names = self._feature_names()
        coords = {"class": self.classes_}
        for j, name in enumerate(names):
            coords[f"{name}_value"] = np.asarray(self.categories_[j])
        coords["class_parent"] = [f"{k}, {v}" for k in self.classes_.tolist() for v in self.categories_[parent].tolist()]
        return coords

    def _parameters(self):
        parent, _ = self._parent_cells()
        parent_name = self._feature_names()[parent]
        joint, children = self._counts()
        parameters = {"joint_prob": (Dirichlet(self._joint_concentration()).posterior(joint), ("class_parent",))}
        for j, name, _ in self._children():
            parameters[f"feature_prob_{name}"] = (
                Dirichlet(self._child_concentration(j)).posterior(children[j]),
                ("class", f"{parent_name}_value", f"{name}_value"),
            )
        return parameters

    def _priors(self):
        import pymc as pm

        self._check_proper_prior()
        parent, _ = self._parent_cells()
        parent_name = self._feature_names()[parent]
        joint = pm.Dirichlet("joint_prob", a=self._joint_concentration(), dims="class_parent")
        children = {
            j: pm.Dirichlet(f"feature_prob_{name}", a=self._child_concentration(j), dims=("class", f"{parent_name}_value", f"{name}_value"))
            for j, name, _ in self._children()
        }
        return joint, children

    def _check_proper_prior(self):
        if self._per_cell(1) <= 0:
            raise ValueError(f"the PyMC model needs a proper prior: {'alpha' if self.estimator == 'laplace' else 'm'} > 0")

    def _counts_model(self, model):
        import pymc as pm

        joint_prob, feature_prob = self._priors()
        joint, children = self._counts()
        joint = integer_counts(joint, "counts")
        pm.Multinomial("joint_count", n=joint.sum(), p=joint_prob, observed=joint, dims="class_parent")
        parent, _ = self._parent_cells()
        parent_name = self._feature_names()[parent]
        for j, name, _ in self._children():
            counts = integer_counts(children[j], "counts")
            pm.Multinomial(f"feature_count_{name}", n=counts.sum(axis=2), p=feature_prob[j], observed=counts,
                           dims=("class", f"{parent_name}_value", f"{name}_value"))

    def _rows_model(self, model, codes, class_index):
        import pymc as pm

        joint_prob, feature_prob = self._priors()
        parent, _ = self._parent_cells()
        known = np.flatnonzero(codes[:, parent] >= 0)
        model.add_coord("row", known)
        size = self.n_categories_[parent]
        cell = pm.Categorical("y_parent", p=joint_prob, observed=class_index[known] * size + codes[known, parent], dims="row")
        y, x_parent = cell // size, cell % size
        for j, name, _ in self._children():
            rows = np.flatnonzero(codes[known, j] >= 0)
            model.add_coord(f"{name}_row", known[rows])
            pm.Categorical(f"x_{name}", p=feature_prob[j][y[rows], x_parent[rows]], observed=codes[known[rows], j], dims=f"{name}_row")
