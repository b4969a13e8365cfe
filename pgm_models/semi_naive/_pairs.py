"""Pairwise sufficient statistics of categorical attributes, shared by SPODE, AODE and TAN.

Each attribute j has r_j value cells and one more cell for "missing", laid side by side
(T' = Σ_j (r_j + 1) cells). A row is one-hot in each attribute's block, so its design row
has exactly F ones, and for each class k the K × T' × T' tensor

    C[k, s, t] = Σ_i w_i 1{y_i = k} D[i, s] D[i, t]

holds every count the semi-naive models need, built by one one-hot product per class:
C[k, s, s] is N(y=k, cell s) (so the diagonal gives naive Bayes' counts), C[k, s, t] is
N(y=k, s, t), and the missing cells give the available-case denominators Weka uses.
Memory: K·T'² floats for AODE and TAN, which use every pair (vote: 2 × 48², a 50k × 30 set
with 4 values each: 2 × 150²); a SPODE counts only the rows s of its super-parent's r_a value
cells, K·r_a·T' floats. A tensor that cannot fit in the memory available is refused before
it is allocated, with its size (``check_memory``).
"""

from __future__ import annotations

import os

import numpy as np


class PairLayout:
    """Cell indices of attributes with ``sizes`` r_j values plus a missing cell each."""

    def __init__(self, sizes):
        self.sizes = np.asarray(sizes, dtype=np.intp)
        self.starts = np.concatenate(([0], np.cumsum(self.sizes + 1)[:-1]))
        self.n_cells = int((self.sizes + 1).sum())
        self.missing_cells = self.starts + self.sizes
        self.value_cells = np.concatenate([s + np.arange(r) for s, r in zip(self.starts, self.sizes)])
        self.attribute_of_value_cell = np.repeat(np.arange(len(self.sizes)), self.sizes)

    def cells(self, codes: np.ndarray) -> np.ndarray:
        """(N, F) cell of each attribute of each row; a missing value (−1) goes to its missing cell."""
        return np.where(codes >= 0, codes + self.starts, self.missing_cells)

    def value_cell(self, attribute: int) -> slice:
        """Positions of an attribute's value cells among ``value_cells``."""
        start = int(self.sizes[:attribute].sum())
        return slice(start, start + int(self.sizes[attribute]))

    def pair_cells(self, attribute: int) -> slice:
        """An attribute's value cells among all T' cells (a slice: indexing with it is a view)."""
        start = int(self.starts[attribute])
        return slice(start, start + int(self.sizes[attribute]))


def available_memory() -> int:
    """Bytes of memory a new allocation can use: Linux's MemAvailable, else the physical memory."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def check_memory(n_floats: int, what: str, remedy: str) -> None:
    """Refuse, before allocating it, a float64 working set that cannot fit in memory."""
    needed, available = 8 * n_floats, available_memory()
    if needed > available:
        raise ValueError(
            f"{what} needs {needed / 2**30:.3g} GiB of memory, more than the {available / 2**30:.3g} GiB available; {remedy}"
        )


def one_hot(cells: np.ndarray, n_columns: int, dtype=np.float64) -> np.ndarray:
    """(N, n_columns) rows with a 1 in each of their ``cells`` (N, F), written by flat index."""
    design = np.zeros((len(cells), n_columns), dtype=dtype)
    np.put(design, (np.arange(len(cells)) * n_columns)[:, None] + cells, 1.0)
    return design


# One-hot rows are encoded a block at a time, 1 MB (float32) or 2 MB per block: the blocks reuse
# one buffer that stays in cache, where one large design faults in fresh pages.
FLOATS_PER_BLOCK = 250_000
_FLOAT32_EXACT = 2**24  # float32 holds every whole number up to 2^24 exactly


def pair_counts(layout: PairLayout, codes, class_index, weight, n_classes: int, pair_rows=slice(None)) -> np.ndarray:
    """The K × T' × T' tensor C of one batch: per class, Dᵀ diag(w) D with a dense one-hot D
    (a BLAS product), one block of rows and one class at a time. ``pair_rows`` (a slice of the T'
    cells) keeps only those rows s of C[k, s, t]: K × |rows| × T'.

    The entries are sums of weights and exact: when the weights are whole numbers whose block
    total stays under 2^24 the product runs in float32 (twice BLAS's float64 speed, every
    partial sum a whole number float32 holds), otherwise in float64."""
    counts = np.zeros((n_classes, len(range(layout.n_cells)[pair_rows]), layout.n_cells))
    rows_per_block = max(1, FLOATS_PER_BLOCK // layout.n_cells)
    cells = layout.cells(codes)
    for k in range(n_classes):
        members = np.flatnonzero(class_index == k)
        for start in range(0, len(members), rows_per_block):
            rows = members[start : start + rows_per_block]
            block_weight = weight[rows]
            whole = np.array_equal(block_weight, np.round(block_weight)) and block_weight.sum() < _FLOAT32_EXACT
            design = one_hot(cells[rows], layout.n_cells, np.float32 if whole else np.float64)
            # unit weights: Dᵀ D of one buffer, which BLAS computes as a symmetric product (syrk)
            weighted = design if (block_weight == 1).all() else design * block_weight.astype(design.dtype)[:, None]
            counts[k] += design[:, pair_rows].T @ weighted
    return counts
