"""Empirical Bayes for SPODE, AODE and TAN: ``alpha="evidence"`` (and ``"evidence-per-attribute"``
for SPODE and TAN) by type-II maximum likelihood, with ``pgm_models.model_selection.evidence``'s optimiser and
analytic gradient.

Each model's evidence is a sum of Dirichlet–multinomial terms over its conditional tables, on
the available-case counts its posterior is made of (the counts the PyMC counts form observes):

* SPODE a:  log p(D | α) = log DirMult(n(y, x_a) | α_J) + Σ_{y, v} Σ_{j≠a} log DirMult(n(y, v, x_j) | α_j)
  — "evidence": one α for every cell (Laplace's layout, α_J = α_j = α); "evidence-per-attribute":
  one α_j per attribute, shared by its joint block as super-parent and its tables as child;
* AODE: "evidence" learns one α per SPODE, each maximising that SPODE's own evidence. AODE is an
  average of F separate generative models of the same data, each with its own parameters, so each
  has its own marginal likelihood; one α shared by all would maximise Π_a p(D | a, α), the
  product of F evidences of the same rows, which is the evidence of no model (it counts every row
  F times). The "bma" weights then use each SPODE's learned α (their evidences are on the complete
  rows, α is learned on the available cases the SPODE is fitted on). The naive Bayes fallback
  (rows with no eligible parent) learns its own α from naive Bayes' evidence (class and attribute
  counts), used for its class prior and attributes as Laplace's α is;
* TAN: the class block with ``class_alpha`` plus, per attribute, its table given (class, tree
  parent) — "evidence-per-attribute" gives each table its own α. The tree is learned first (it
  does not depend on α).

The learned values are ``alpha_`` (a number, or one per attribute / per SPODE) and, for AODE,
``fallback_alpha_``; they are re-learned from the counts after every batch, so neither row order
nor chunking changes them. The m-estimate (``estimator="m-estimate"``) has no learned option.
"""

from __future__ import annotations

import numpy as np

from pgm_models.conjugate import Dirichlet
from pgm_models.model_selection.evidence import (
    EVIDENCE,
    EVIDENCE_OPTIONS,
    EmpiricalBayes,
    check_option,
    dirichlet_evidence,
    is_learned,
    maximize_log_evidence,
)


class SemiNaiveEvidence(EmpiricalBayes):
    """Type-II ML of ``alpha``. A model lists its evidence's Dirichlet cells in
    ``_evidence_cells``: (counts, block sizes, the attribute whose per-attribute α each cell takes).
    """

    evidence_parameters = ("alpha",)
    _alpha_options = EVIDENCE_OPTIONS
    _evidence_per_parent = False  # AODE: "evidence" is one α per SPODE

    def _check_alpha_option(self):
        check_option(self.alpha, "alpha", self._alpha_options)

    def _learned_options(self, name: str) -> tuple:
        return self._alpha_options if name == "alpha" else (EVIDENCE,)

    def _learn_feature_prior(self, learned):
        per_attribute = self.alpha != EVIDENCE or self._evidence_per_parent
        counts, blocks, attribute = self._evidence_cells()
        learn, n_params = dirichlet_evidence(counts, blocks, attribute if per_attribute else np.zeros_like(attribute))
        alpha, _ = maximize_log_evidence(learn, n_params)
        self.alpha_ = np.broadcast_to(alpha, (self.n_features_in_,)).copy() if per_attribute else float(alpha[0])

    def _learned_alpha(self):
        """α per attribute (F,) under the learned or fixed ``alpha``."""
        return np.broadcast_to(self.alpha_ if is_learned(self.alpha) else self.alpha, (self.n_features_in_,)).astype(
            float
        )

    def log_evidence(self) -> float:
        """The log marginal likelihood of the fitted counts, log p(D | alpha).

        The closed-form Dirichlet–multinomial evidence of the SPODE tables (ordered rows: no
        multinomial coefficients), the sum ``alpha="evidence"`` maximises; for AODE, the sum of its
        SPODEs' evidences, each of which it maximises.

        Returns
        -------
        float
            log p(D | alpha).

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import SPODE
        >>> X = np.array([[0, 1, 0], [0, 0, 0], [1, 1, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 0])
        >>> fixed = SPODE(alpha=1.0).fit(X, y)
        >>> learned = SPODE(alpha="evidence").fit(X, y)
        >>> bool(learned.log_evidence() >= fixed.log_evidence())
        True
        """
        counts, blocks, attribute = self._evidence_cells()
        if getattr(self, "estimator", "laplace") == "m-estimate":  # m pseudo-rows spread over each block
            concentration = self.m / np.repeat(blocks, blocks).astype(float)
        else:
            concentration = self._learned_alpha()[attribute]
        return float(Dirichlet(concentration, blocks).log_evidence(counts).sum())

    def _evidence_cells(self):
        """The SPODE tables of the parent cells the pair tensor holds, flattened: the joint
        blocks (K·r_a cells each) then the child blocks (r_j cells each); a parent's own
        attribute as child has its counts zeroed, which adds exactly 0 to the evidence and to its
        gradient.
        """
        layout, n_classes = self._layout, len(self.classes_)
        joint, values, parent_cell = self._spode_counts(self.pair_count_)
        parent_attribute = layout.attribute_of_value_cell[parent_cell]
        child_attribute = layout.attribute_of_value_cell
        values = np.where(child_attribute[None, None, :] == parent_attribute[None, :, None], 0.0, values)
        held = np.unique(parent_attribute)
        joint_blocks = n_classes * layout.sizes[held]
        child_blocks = np.tile(layout.sizes, n_classes * len(parent_cell))
        owner = parent_attribute[:, None] if self._evidence_per_parent else child_attribute[None, :]
        attribute = np.concatenate(
            [
                np.repeat(parent_attribute, n_classes),
                np.broadcast_to(owner, values.shape[1:])[None].repeat(n_classes, axis=0).ravel(),
            ]
        )
        return (
            np.concatenate([joint.T.ravel(), values.ravel()]),
            np.concatenate([joint_blocks, child_blocks]),
            attribute,
        )
