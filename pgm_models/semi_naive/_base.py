"""What SPODE, AODE and TAN share: categorical attributes, the pair-count tensor, and the
Dirichlet estimates of "class and parent" and "child given class and parent".

Each estimate is a conjugate Dirichlet posterior mean (or mode, or MLE) read off the tensor C
(``pgm_models.discrete.pairs``), on the available cases:

    P(y, x_a)        ~ Dirichlet(α_joint) over the K·r_a cells, counts C[y, x_a, x_a]
                       (rows with x_a observed: total N − missing_a);
    P(x_j | y, x_a)  ~ Dirichlet(α_child) over r_j values, counts C[y, x_a, x_j]
                       (total N(y, x_a) − N(y, x_a, x_j missing)).

Weka's estimators are such posterior means: Laplace is α = 1 per cell; the m-estimate is
α_joint = m/(K r_a) and α_child = m/r_j per cell (m pseudo-rows spread evenly).
"""

from __future__ import annotations

import contextvars
import math
from contextlib import nullcontext

import numpy as np
import scipy.sparse as sp

from pgm_models._utils.shared_priors import shared_prior
from pgm_models._utils.threads import one_blas_thread
from pgm_models._utils.validation import is_number
from pgm_models.base import BayesianClassifier
from pgm_models.conjugate import Dirichlet, PosteriorDraw, log_probabilities
from pgm_models.discrete.attributes import CategoricalAttributes
from pgm_models.discrete.pairs import PairLayout, check_pair_memory, counted_by_bit_sets, one_hot, pair_counts
from pgm_models.model_selection.evidence import is_learned
from pgm_models.semi_naive._evidence import SemiNaiveEvidence
from pgm_models.semi_naive._loo import SemiNaiveLOO

ESTIMATORS = ("laplace", "m-estimate")
# Above this many value cells per attribute (T/F), rows are scored by a sparse one-hot product
SPARSE_DESIGN_RATIO = 8
# Up to this many cells (T'), every product of counting and scoring is one block of rows times
# at most T' × K·T': BLAS threads gain little on it and, under load, wait on each other, and
# their spinning slows even the encoding around them
SINGLE_THREAD_CELLS = 512
# (the model, its {estimate: SPODE operands}) of the prediction call in progress in this thread:
# kept out of the model, so that concurrent predictions on one model share nothing they write
_OPERANDS_OF_CALL = contextvars.ContextVar("operands_of_call", default=(None, None))


def _added(counts, batch):
    """``counts + batch``, or the first batch (``counts`` None: ``_init_counts`` made no tensor) as a
    contiguous array of its own (the bit sets' counts of a SPODE are a view of some of their rows).
    """
    return np.ascontiguousarray(batch) if counts is None else counts + batch


class SemiNaiveBayes(SemiNaiveEvidence, SemiNaiveLOO, CategoricalAttributes, BayesianClassifier):
    """Template for models whose attributes depend on the class and on parent attributes."""

    _template = True

    # ------------------------------------------------------------------ counts
    _needs_complete_counts = False  # the counts of rows with no missing value (for evidences)
    # float64 copies of the pair tensor that fitting and scoring hold at once: the counts (and,
    # when kept, the complete-row counts), then the value-cell tables scoring reads off them
    # (counts, concentrations, block totals, estimate, log): 7 bounds the peak that
    # benchmarks/large_data.py measures for AODE
    _tensor_copies = 7
    _smaller_model = ", or a SPODE, which needs only its super-parent's rows"  # named when the tensor cannot fit

    def _pair_rows(self) -> slice:
        """The cells whose rows of the pair tensor the model needs (AODE and TAN: all)."""
        return slice(None)

    def _init_counts(self, codes, class_index, weight):
        self._layout = PairLayout.of_sizes(tuple(self.n_categories_.tolist()))
        rows = self._pair_rows()
        shape = (len(self.classes_), len(range(self._layout.n_cells)[rows]), self._layout.n_cells)
        copies = self._tensor_copies + self._needs_complete_counts
        check_pair_memory(
            type(self).__name__,
            self._layout,
            shape,
            copies,
            "use fewer attributes or values (merge rare values, discretise into fewer bins)" + self._smaller_model,
        )
        # no zero tensors (a fit starts without counts, ``_start_fit``): ``_count`` keeps the first batch's
        # counts as they are, rather than zeroing a tensor and adding them to it

    def _blas_threads(self):
        """Context of the products: one BLAS thread up to ``SINGLE_THREAD_CELLS`` cells, else the
        caller's setting (unfitted: no products; the call raises NotFittedError).
        """
        layout = getattr(self, "_layout", None)
        return one_blas_thread() if layout is not None and layout.n_cells <= SINGLE_THREAD_CELLS else nullcontext()

    def _count(self, codes, class_index, weight):
        n_classes, rows = len(self.classes_), self._pair_rows()
        bit_sets = counted_by_bit_sets(self._layout, len(codes), n_classes, weight)
        # the compiled bit sets call no BLAS (setting its threads is a cost for nothing)
        with nullcontext() if bit_sets else self._blas_threads():
            self.pair_count_ = _added(
                getattr(self, "pair_count_", None),
                pair_counts(self._layout, codes, class_index, weight, n_classes, rows, bit_sets),
            )
            if self._needs_complete_counts:
                complete = (codes >= 0).all(axis=1)
                self.complete_pair_count_ = _added(
                    getattr(self, "complete_pair_count_", None),
                    pair_counts(
                        self._layout, codes[complete], class_index[complete], weight[complete], n_classes, rows
                    ),
                )

    def _attribute_index(self, parameter: str) -> int:
        """The attribute a parameter (``parent``, ``root``) names, by index or column name,
        with an error that names a bad one.
        """
        value = getattr(self, parameter)
        names = getattr(self, "feature_names_in_", None)
        if isinstance(value, str):
            if names is None or value not in list(names):
                raise ValueError(
                    f"{parameter}={value!r} is not an attribute name; attributes are {None if names is None else list(names)}"
                )
            return list(names).index(value)
        if not (isinstance(value, (int, np.integer)) and 0 <= value < self.n_features_in_):
            raise ValueError(
                f"{parameter}={value!r} is out of range: there are {self.n_features_in_} attributes (0..{self.n_features_in_ - 1})"
            )
        return int(value)

    def _floats_per_row(self):
        """Per row: its one-hot value cells, every class's sums over the T parent cells, and its
        F SPODE scores.
        """
        n_values = int(self.n_categories_.sum())
        return n_values + 2 + len(self.classes_) * (n_values + self.n_features_in_)

    @staticmethod
    def _value_counts(pairs, layout):
        """Counts between value cells only: (K, T, T). Two takes (indexing by two broadcast index
        arrays is slower); the first one's (K, T, T') is freed on return, before the
        tables that scoring makes of these counts.
        """
        cells = layout.value_cells
        return pairs.take(cells, axis=1).take(cells, axis=2)

    def _spode_counts(self, pairs):
        """The counts of the SPODEs whose parent rows ``pairs`` (K, rows, T') holds: (joint
        N(y = k, x_a = parent cell) (K, P), child counts (K, P, T), the P parent cells among the T
        value cells).
        """
        layout = self._layout
        cells = np.arange(layout.n_cells)[self._pair_rows()]
        is_value = ~np.isin(cells, layout.missing_cells)
        parent_cell = np.searchsorted(layout.value_cells, cells[is_value])
        values = pairs[:, np.flatnonzero(is_value)][:, :, layout.value_cells]
        return values[:, np.arange(len(parent_cell)), parent_cell], values, parent_cell

    def _diagonal_counts(self):
        """N(y = k, value cell t): (K, T), the diagonal of the pair tensor."""
        return np.diagonal(self.pair_count_, axis1=1, axis2=2)[:, self._layout.value_cells]

    # ------------------------------------------------------------------ priors
    def _check_estimator(self):
        if self.estimator not in ESTIMATORS:
            raise ValueError(f"estimator={self.estimator!r} is not one of {ESTIMATORS}")
        if is_learned(self.alpha):
            self._check_alpha_option()
            if self.estimator != "laplace":
                raise ValueError(
                    f"alpha={self.alpha!r} is learned for estimator='laplace' only (the m-estimate's m is fixed)"
                )
        for name in ("m",) if is_learned(self.alpha) else ("alpha", "m"):
            value = getattr(self, name)
            if type(value) in (float, int) and 0 <= value < math.inf:  # a plain number (NaN fails): no NumPy call on it
                continue
            if not (is_number(value) and np.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be a number ≥ 0, got {value!r}")

    def _per_cell(self, n_cells):
        """Dirichlet concentration of each cell of a block of ``n_cells`` cells: Laplace's
        ``alpha`` (learned: ``alpha_``, a number or one per attribute), or the m-estimate's ``m``
        pseudo-rows spread evenly, m / n_cells.
        """
        if self.estimator == "m-estimate":
            return self.m / np.asarray(n_cells, dtype=float)
        return self.alpha_ if is_learned(self.alpha) else self.alpha

    def _attribute_alpha(self, block_cells) -> np.ndarray:
        """``_per_cell`` of each attribute's block (``block_cells`` cells, one count per
        attribute): (F,).
        """
        return np.broadcast_to(self._per_cell(block_cells), self._layout.sizes.shape)

    def _per_value_cell(self, block_cells) -> np.ndarray:
        """``_attribute_alpha`` repeated over each attribute's value cells: (T,)."""
        return np.repeat(self._attribute_alpha(block_cells), self._layout.sizes)

    def _check_hyperparameters(self):
        self._check_estimator()  # a learned alpha only under Laplace's estimator
        super()._check_hyperparameters()

    def _class_concentration(self, n_classes):
        self._check_hyperparameters()
        if is_learned(self.alpha):
            return np.ones(n_classes)  # a start; the learned prior replaces it after counting
        return np.full(n_classes, float(self._per_cell(n_classes)))

    def _shared_prior(self, name: str, make):
        """The prior ``make()`` of these fitted attributes, shared by every fit with the same layout,
        classes and hyperparameters; a learned ``alpha_`` (re-learned from each fit's counts) is
        made afresh. Its concentration is read-only.
        """
        if is_learned(self.alpha):
            return make()
        # building the two priors is a noticeable share of a small fold's predict_proba
        # (BENCHMARKS.md, "Against a warm Weka, per CV fold")
        return shared_prior(
            (name, type(self), self._layout, len(self.classes_), self.estimator, float(self.alpha), float(self.m)),
            make,
            self,
        )

    def _joint_prior(self):
        """Dirichlet over (class, parent value) for every attribute as parent, laid out as
        (T, K) value-cell-major so each attribute's K·r_a cells form one block.
        """
        sizes, n_classes = self._layout.sizes, len(self.classes_)

        def make():
            per_cell = self._per_value_cell(n_classes * sizes)
            return Dirichlet(
                np.broadcast_to(per_cell[:, None], (int(sizes.sum()), n_classes)).ravel(), sizes * n_classes
            )

        return self._shared_prior("joint", make)

    def _child_alpha(self, parent_cells) -> np.ndarray:
        """Concentration of every child value cell (T) in the tables of the given parent value
        cells: (P, T).
        """
        per_child = self._per_value_cell(self._layout.sizes)
        return np.broadcast_to(per_child, (len(parent_cells), len(per_child)))

    def _child_prior(self):
        """Dirichlet over each child's r_j values for every (class, parent cell): (K, T, T)."""
        sizes, n_classes = self._layout.sizes, len(self.classes_)

        def make():  # the sizes' sum only when made: a shared prior is looked up at every prediction
            n_values = int(sizes.sum())
            return Dirichlet(
                np.broadcast_to(self._child_alpha(np.arange(n_values)), (n_classes, n_values, n_values)), sizes
            )

        return self._shared_prior("child", make)

    # ------------------------------------------------------------------ estimates
    def _log_joint(self, estimate):
        """Log P(y = k, x_a = cell) for every value cell: (K, T)."""
        diagonal = self._diagonal_counts()
        flat = self._joint_prior().estimate(diagonal.T.ravel(), estimate)
        return self._shifted_to_class_prior(
            log_probabilities(flat.reshape(diagonal.shape[1], -1).T), self._layout.sizes
        )

    def _shifted_to_class_prior(self, log_joint, sizes):
        """Log P(y = k, x_a = v) (K, T), each attribute's block of ``sizes`` cells a joint table,
        with its class marginal Σ_v P(k, v) replaced by ``class_prior`` (P(x_a | y) kept); unchanged
        without one.
        """
        prior = self._fixed_class_prior()
        if prior is None:
            return log_joint
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        with np.errstate(divide="ignore"):
            marginal = np.log(np.add.reduceat(np.exp(log_joint), starts, axis=1))
            shift = np.where(
                np.isfinite(marginal), np.log(prior)[:, None] - marginal, -np.inf
            )  # a class with no mass keeps none
        return log_joint + np.repeat(shift, sizes, axis=1)

    def _log_child(self, estimate):
        """Log P(x_j = child cell | y = k, x_a = parent cell): (K, T, T), 0 where the child is
        the parent's own attribute (a parent is not its own child).
        """
        values = self._value_counts(self.pair_count_, self._layout)
        log_child = log_probabilities(self._child_prior().estimate(values, estimate))
        self._layout.clear_same_attribute(log_child)  # the estimate is this call's own array
        return log_child

    def _log_naive_bayes(self, codes, estimate):
        """Naive Bayes (y → every x_j) on the diagonal counts: Weka's fallback. (N, K)."""
        log_feature = log_probabilities(self._naive_bayes_prior().estimate(self._diagonal_counts(), estimate))
        log_class = log_probabilities(self._class_probabilities(estimate))
        cells = self._value_index(codes)
        padded = np.concatenate([log_feature, np.zeros((len(log_class), 1))], axis=1)
        return log_class[None, :] + padded[:, cells].sum(axis=2).T

    def _naive_bayes_prior(self):
        """The fallback naive Bayes' Dirichlet over each attribute's values given the class: (K, T)."""
        sizes = self._layout.sizes
        return Dirichlet(np.broadcast_to(self._naive_bayes_alpha(), (len(self.classes_), int(sizes.sum()))), sizes)

    def _naive_bayes_alpha(self):
        return self._per_value_cell(self._layout.sizes)

    def _value_index(self, codes):
        """(N, F) position of each observed value among the T value cells; T (a zero pad) if missing."""
        return self._layout.value_index(codes)

    def predict_joint_log_proba(self, X, estimate=None):
        """Log p(x_n, y = k | estimate), shape (N, K); the rows are scored in blocks that share
        one reading of the SPODE tables (reading them, K·T² entries, costs more than a block).
        """
        token = _OPERANDS_OF_CALL.set((self, {}))
        try:
            with self._scoring_threads(self._estimate(estimate)):
                return super().predict_joint_log_proba(X, estimate)
        finally:
            _OPERANDS_OF_CALL.reset(token)

    def _scoring_threads(self, estimate):
        """Context of the scoring under ``estimate``: ``_blas_threads``."""
        return self._blas_threads()

    def _spode_tables(self, estimate):
        """(log joint, log child) tables of every SPODE under the estimate."""
        return self._log_joint(estimate), self._log_child(estimate)

    def _spode_operands(self, estimate):
        """``_stack`` of the ``_spode_tables``, made once per prediction call (a PosteriorDraw,
        whose rows form one block, draws each parameter once).
        """
        return self._once_per_call(estimate, estimate, lambda: self._stack(*self._spode_tables(estimate)))

    def _once_per_call(self, key, estimate, make):
        """``make()``, made once per prediction call under ``key`` and shared by its blocks of rows
        (made anew outside a call, or for a PosteriorDraw, whose rows form one block).
        """
        model, cache = _OPERANDS_OF_CALL.get()
        if model is not self or isinstance(estimate, PosteriorDraw):
            return make()
        if key not in cache:
            cache[key] = make()
        return cache[key]

    @staticmethod
    def _stack(log_joint, log_child):
        """The right operand [L; J] of ``_parent_cell_products`` from the log joint (K, P) and log
        child (K, P, T) tables of P parent cells: L[t, (k, s)] the log probability of child cell
        t under class k and parent cell s, J the log joint as one more row; returned as (its
        finite part, where it is −inf or None, K, P).
        """
        n_classes, n_parent_cells = log_joint.shape
        n_values = log_child.shape[2]
        # laid out (class, parent cell, child cell) in memory, seen as (child cell, (class, parent
        # cell)): the log child table copied as it is, no transposed copy, and the scoring
        # product reads [L; J]ᵀ as a C-ordered (K·P, T + 1) operand
        by_parent = np.empty((n_classes, n_parent_cells, n_values + 1))
        by_parent[:, :, :n_values] = log_child
        by_parent[:, :, n_values] = log_joint
        stacked = by_parent.reshape(n_classes * n_parent_cells, n_values + 1).T
        if math.isfinite(stacked.sum()):  # one reduction: the entries are finite or −inf
            return stacked, None, n_classes, n_parent_cells
        impossible = np.isneginf(stacked)  # zero probabilities (MLE, MAP): 0 · (−inf) would be NaN
        return np.where(impossible, 0.0, stacked), impossible.astype(float), n_classes, n_parent_cells

    def _spode_scores(self, cells, operands):
        """Log P(y = k, x | parent a) for every row, class and attribute a as parent, from the
        ``_spode_operands``: (N, K, F); −inf where x_a is missing. ``cells`` the rows'
        ``_value_index``; each row's own parent cells gathered from ``_parent_cell_scores``, laid
        out parent by parent and class by class (an (F, K, N) array seen as (N, K, F)): averaging
        over the parents then reduces whole contiguous slices, and no operation runs along the
        short class axis (NumPy loops once per row over a short last axis).
        """
        n_values = operands[0].shape[0] - 1
        per_parent_cell = self._parent_cell_scores(cells, operands)  # a view of rows or of columns of one array
        n_rows, n_classes, n_parent_cells = per_parent_cell.shape
        row_step, class_step, cell_step = (stride // per_parent_cell.itemsize for stride in per_parent_cell.strides)
        # one take at flat positions in memory order (take_along_axis's broadcast index arrays
        # cost much more); every value cell is a parent cell (P = T), so a missing parent
        # (cell T) reads the next class's entry or, for the last class, one past its end, which
        # "clip" keeps inside; both are overwritten below
        row_position = cells.T * cell_step + np.arange(n_rows) * row_step  # (F, N)
        position = row_position[:, None, :] + (np.arange(n_classes) * class_step)[None, :, None]  # (F, K, N)
        scores = np.ravel(per_parent_cell, order="K").take(position, mode="clip")
        np.copyto(scores, -np.inf, where=(cells >= n_values).T[:, None, :])
        return scores.transpose(2, 1, 0)

    def _parent_cell_scores(self, cells, operands):
        """Log P(y = k, x_a = s) + Σ_j log P(x_j | k, s) for every row, class and each of the P
        parent cells s of the ``_stack``ed tables: (N, K, P), a view of ``_parent_cell_products``;
        ``cells`` the rows' ``_value_index``.
        """
        return self._parent_cell_products(cells, operands).reshape(len(cells), operands[2], operands[3])

    def _parent_cell_products(self, cells, operands):
        """``_parent_cell_scores`` as an (N, K·P) array: entry (k, s) of row n is [D 1] · [L; J],
        D the rows' one-hot value cells (a missing value has no cell, so it is skipped as child)
        — one product for all classes and parent cells: dense (BLAS) when a row's F ones fill a
        fair share of its T cells, computed as its transpose [L; J]ᵀ · [D 1]ᵀ (OpenBLAS ran the
        product as (N, K·P) slower) and returned as a view by
        columns; sparse when the attributes have many values (the dense product would spend T/F
        multiplications by 0 for each useful one). A zero probability (log −inf) is counted by a
        second product over where they are, since 0 · (−inf) is NaN in the first.
        """
        finite, impossible, n_classes, n_parent_cells = operands
        n_values = finite.shape[0] - 1  # the cell of a missing value
        if n_values > SPARSE_DESIGN_RATIO * cells.shape[1]:
            observed = cells < n_values  # a missing child has no entry: it adds nothing
            rows = np.concatenate([np.repeat(np.arange(len(cells)), observed.sum(axis=1)), np.arange(len(cells))])
            columns = np.concatenate([cells[observed], np.full(len(cells), n_values)])  # value cells, the constant 1
            with_constant = sp.csr_array((np.ones(len(rows)), (rows, columns)), shape=(len(cells), n_values + 1))
            products = np.asarray(with_constant @ finite)
            if impossible is not None:
                products[np.asarray(with_constant @ impossible) > 0] = -np.inf
            return products
        # a missing value's cell is the constant's column, which holds 1 anyway: it adds nothing
        with_constant = one_hot(cells, n_values + 1)
        with_constant[:, n_values] = 1.0
        products = finite.T @ with_constant.T
        if impossible is not None:
            products[impossible.T @ with_constant.T > 0] = -np.inf
        return products.T
