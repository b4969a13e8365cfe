"""What the Bayesian network classifiers share: categorical attributes, their value counts given
the class, lookups of log tables by a row's values, and Weka's replacement of missing values.

Counts live in the value cells of ``pgm_models.discrete.pairs.PairLayout`` (T = Σ_j r_j cells,
attribute j's block of r_j cells after those of the attributes before it).
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.validation import check_concentration, column_name
from pgm_models.base import BayesianClassifier
from pgm_models.conjugate import PosteriorDraw
from pgm_models.discrete.attributes import CategoricalAttributes
from pgm_models.discrete.pairs import PairLayout, check_pair_memory

MISSING = ("mode", "error")


class DiscreteNetwork(CategoricalAttributes, BayesianClassifier):
    """Template of a classifier over categorical attributes whose structure is learned or
    averaged. A model averaged over structures has no single parameter posterior (no closed-form
    draws, no PyMC model): the subclass that fixes a structure switches them on.
    """

    _template = True
    _closed_form = False
    _pymc_model = False

    def _check_hyperparameters(self):
        """Validate the subclass's own hyperparameters (called at the start of every fit)."""

    def _class_concentration(self, n_classes):
        self._check_hyperparameters()
        return check_concentration(self.class_alpha, "class_alpha", n_classes, "class")

    def _layout(self) -> PairLayout:
        return PairLayout.of_sizes(tuple(self.n_categories_.tolist()))

    def _batch_value_counts(self, codes, class_index, weight) -> np.ndarray:
        """(K, T) Σ_n w_n 1{y_n = k, x_nj = v} over the rows where x_j is observed."""
        layout, n_classes = self._layout(), len(self.classes_)
        n_values = int(layout.sizes.sum())
        index = layout.value_index(np.asarray(codes, dtype=np.intp))  # T where missing
        keys = class_index[:, None] * (n_values + 1) + index
        counts = np.bincount(keys.ravel(), np.repeat(weight, index.shape[1]), n_classes * (n_values + 1))
        return counts.reshape(n_classes, n_values + 1)[:, :n_values]

    def _row_sums(self, log_table, codes) -> np.ndarray:
        """(N, K) Σ_j log_table[k, cell of x_nj]; a missing x_nj adds 0 (it is summed out)."""
        padded = np.concatenate([log_table, np.zeros((len(log_table), 1))], axis=1)
        index = self._layout().value_index(np.asarray(codes, dtype=np.intp))
        return padded[:, index].sum(axis=2).T

    @staticmethod
    def _no_draws(estimate, name):
        if isinstance(estimate, PosteriorDraw):
            raise TypeError(f"{name} averages over structures: a PosteriorDraw estimate is not available")


def first_modes(value_counts, sizes) -> np.ndarray:
    """(F,) the code of each attribute's most frequent value (the first on a tie, as Weka's
    ``Utils.maxIndex``) from its (T,) value counts.
    """
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    return np.array([int(np.argmax(value_counts[a : a + r])) for a, r in zip(starts, sizes)], dtype=np.intp)


# float64 copies of the pair tensor a fit holds at once: the counts, a batch's, their sum, the imputed counts
_PAIR_COPIES = 4


def zero_pair_counts(model: str, layout: PairLayout, n_classes: int) -> np.ndarray:
    """The (K, T', T') zero pair tensor a fit adds its batches to, refused by name with its size
    (``check_pair_memory``) when it cannot fit in memory.
    """
    shape = (n_classes, layout.n_cells, layout.n_cells)
    check_pair_memory(
        model,
        layout,
        shape,
        _PAIR_COPIES,
        "use fewer attributes or values (merge rare values, discretise into fewer bins)",
    )
    return np.zeros(shape)


def imputed_pair_counts(pair_count, layout: PairLayout) -> tuple[np.ndarray, np.ndarray]:
    """(modes, (K, T, T) pair counts of the value cells with each missing value replaced by its
    attribute's mode) from the (K, T', T') ``pair_count`` whose missing cells hold the missing values:
    a row's (missing, value), (value, missing) and (missing, missing) cells move to the mode's, the
    modes (``first_modes``) read off the diagonal.
    """
    value, missing = layout.value_cells, layout.missing_cells
    modes = first_modes(np.diagonal(pair_count, axis1=1, axis2=2).sum(axis=0)[value], layout.sizes)
    mode = layout.value_starts + modes  # one cell per attribute: no index repeats in the additions
    imputed = pair_count[:, value[:, None], value]
    imputed[:, mode, :] += pair_count[:, missing[:, None], value]
    imputed[:, :, mode] += pair_count[:, value[:, None], missing]
    imputed[:, mode[:, None], mode] += pair_count[:, missing[:, None], missing]
    return modes, imputed


class ModeImputation:
    """``missing="mode"``: a missing value becomes its attribute's most frequent value in the
    training data (weighted counts, the first such value on a tie), in training and at prediction,
    as Weka's ``ReplaceMissingValues`` filter inside ``BayesNet``; ``"error"`` refuses missing
    values. The modes are ``modes_`` (codes). A model whose counts keep a cell for "missing"
    (``_counts_missing``) counts the rows as they are and folds that cell into the mode's once the
    counts are known (so the modes are those of all batches); otherwise the first batch's modes
    replace the missing values before counting. With ``missing="error"``, a value outside its domain
    at prediction that ``handle_unknown="missing"`` would make missing is refused by its column and value.
    """

    _counts_missing = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.missing == "mode"
        return tags

    def _encode(self, X, reset, training):
        if self.missing not in MISSING:
            raise ValueError(f"missing={self.missing!r} is not one of {MISSING}")
        codes = super()._encode(X, reset, training)
        absent = codes < 0
        if absent.any() and self.missing == "error":
            j = int(np.flatnonzero(absent.any(axis=0))[0])
            raise ValueError(
                f"{column_name(getattr(self, 'feature_names_in_', None), j)} has missing values; "
                f"{type(self).__name__}(missing='error') refuses them (missing='mode' replaces them by the mode)"
            )
        if training and self._counts_missing:
            return codes
        if reset:
            weight = getattr(self, "_fit_weight", np.ones(len(codes)))
            index = self._layout().value_index(np.asarray(codes, dtype=np.intp))
            n_values = int(self.n_categories_.sum())
            self.modes_ = first_modes(
                np.bincount(index.ravel(), np.repeat(weight, codes.shape[1]), n_values + 1), self.n_categories_
            )
        return np.where(absent, self.modes_[None, :], codes) if absent.any() else codes

    def _missing_refusal(self) -> str | None:
        if self.missing != "error":
            return None
        # named as the unseen value it is, not as a missing value the row does not have
        return (
            "handle_unknown decides what an unseen value does: handle_unknown='missing' makes it missing, which "
            f"{type(self).__name__}(missing='error') refuses (missing='mode' replaces it by the mode)"
        )
