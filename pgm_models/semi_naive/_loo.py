"""Exact leave-one-out of the semi-naive models (see ``pgm_models.model_selection.loo`` for the ELPD it returns).

A SPODE with super-parent a is a product of Dirichlet–categorical predictives,

    p(y, x | D) = (n(y, x_a) + α_J)/(N_a + K r_a α_J) · Π_{j≠a} (n(y, x_a, x_j) + α_j)/(n_j(y, x_a) + r_j α_j),

counted on the available cases (N_a rows with x_a observed; n_j(y, v) rows of class y with
x_a = v and x_j observed). Row i was counted in exactly the cells it fills, so removing it
downdates those counts by one: for the row's own class y_i every factor it fills becomes
(n − 1 + α)/(N − 1 + A); for another class k only the joint block's total changes (the row sat
in the same (class, x_a) block of K·r_a cells), (n(k, x_a) + α_J)/(N_a − 1 + K r_a α_J), and the
child factors are the full-data ones. A block left empty (possible only with α = 0) has the
uniform mean 1/S, as ``Dirichlet.mean``. Each of the two cases is a fixed table of (class,
parent cell, child cell) entries, so every row is scored against both by the prediction's own
one-hot product (``_parent_cell_scores``), and the row's own parent cell and class are read
off. A row whose x_a is missing was not counted by SPODE a: its leave-one-out predictive is the
full-data one. AODE averages these with its weights and frequency limit recomputed without the
row (``AODE._loo_block``); TAN, whose tree is learned from the data, learns it again
without each row (``TAN._full_and_loo_joint``). Everything else the fit fixed stays: attribute
domains and a learned ``alpha_`` (as ``pgm_models.model_selection.loo`` keeps any fitted prior).
"""

from __future__ import annotations

import numpy as np

from pgm_models.base import FLOATS_PER_BLOCK
from pgm_models.conjugate import Dirichlet, log_probabilities
from pgm_models.model_selection.loo import ExactLOO, own_column


def downdated_log_mean(concentration, total, size, removed):
    """Log (c − removed)/(A − 1): a posterior-mean cell after one draw left its block (the
    draw was in this cell when ``removed`` is 1, elsewhere in the block when 0); an emptied
    block (A − 1 = 0) is uniform, −log S.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.log(np.maximum(concentration - removed, 0.0)) - np.log(total - 1)
    return np.where(total - 1 > 0, value, -np.log(size))


class SemiNaiveLOO(ExactLOO):
    """Leave-one-out scores of the SPODEs whose parent rows the pair tensor holds."""

    def _loo_log_joint(self, codes, class_index, all_classes):
        full, left_out = self._full_and_loo_joint(codes, class_index)
        return (full, left_out) if all_classes else (own_column(full, class_index), own_column(left_out, class_index))

    def _full_and_loo_joint(self, codes, class_index):
        """(N, K) full-data and leave-one-out log p(y = k, x_i): the rows in blocks, as
        prediction scores them, so the per-row tables stay bounded.
        """
        size = max(256, FLOATS_PER_BLOCK // self._floats_per_row())
        blocks = [
            self._loo_block(codes[s : s + size], class_index[s : s + size]) for s in range(0, len(class_index), size)
        ]
        return tuple(np.concatenate(part) for part in zip(*blocks))

    def _loo_block(self, codes, class_index):
        """(full-data, leave-one-out) log p(y = k, x_i) of a block of rows (N, K) each."""
        return super()._loo_log_joint(codes, class_index, all_classes=True)

    def _spode_posteriors(self, pairs):
        """Posterior Dirichlet cells of the SPODE tables read off ``pairs`` for the P parent
        value cells it holds: (joint (c, A, S) each (K, P), child posterior Dirichlet (K, P, T),
        the parent cells (P,) among the T value cells).
        """
        layout, n_classes = self._layout, len(self.classes_)
        sizes = layout.sizes
        joint, values, parent_cell = self._spode_counts(pairs)
        parent_attribute = layout.attribute_of_value_cell[parent_cell]
        joint_alpha = self._per_value_cell(n_classes * sizes)[parent_cell]
        joint_size = n_classes * sizes[parent_attribute]
        observed = np.bincount(parent_attribute, joint.sum(axis=0), len(sizes))[parent_attribute]  # N_a
        joint_cells = (joint + joint_alpha, observed + joint_size * joint_alpha, joint_size)
        child = Dirichlet(np.broadcast_to(self._child_alpha(parent_cell), values.shape), sizes).posterior(values)
        return joint_cells, child, parent_cell

    def _loo_cell_scores(self, codes, class_index, pairs):
        """(N, K, P) log p(y = k, x_i | SPODE of parent cell p, D₋ᵢ), for rows counted in parent
        cell p of ``pairs`` (other columns are not leave-one-out scores and are not read).
        """
        (joint, joint_total, joint_size), child, parent_cell = self._spode_posteriors(pairs)
        layout = self._layout
        not_child = layout.attribute_of_value_cell[None, :] == layout.attribute_of_value_cell[parent_cell][:, None]
        child_total = np.broadcast_to(child.total(), child.concentration.shape)
        child_size = np.repeat(layout.sizes, layout.sizes)

        def scores(log_joint, log_child):
            return self._parent_cell_scores(
                self._value_index(codes), self._stack(log_joint, np.where(not_child, 0.0, log_child))
            )

        other = scores(downdated_log_mean(joint, joint_total, joint_size, 0), log_probabilities(child.mean()))
        own = scores(
            downdated_log_mean(joint, joint_total, joint_size, 1),
            downdated_log_mean(child.concentration, child_total, child_size, 1),
        )
        return np.where(np.arange(len(self.classes_))[None, :, None] == class_index[:, None, None], own, other)
