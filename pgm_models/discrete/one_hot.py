"""Scoring a few rows that are one-hot in blocks (categorical attributes) by looking their cells up.

A row with (at most) one value cell per attribute scores class k as Σ_j log θ[k, cell_j]: one
look-up per attribute. A one-hot design's sparse product does the same sums, but setting the
design up (scipy's checks of its index arrays) is a large share of a small fold's predict_proba
(BENCHMARKS.md, "Against a warm Weka, per CV fold"); on many rows the product's tight loop is
the faster (``LOOKUP_VALUES``). The look-ups add each row's terms in the product's order
(attribute by attribute, from 0, the first added to 0), so the scores are the product's to the
last bit.
"""

from __future__ import annotations

import numpy as np

# Up to this many looked-up numbers (rows × attributes × classes) a model scores one-hot rows by
# look-ups; above it by the sparse design's product (the look-ups' temporary grows with the
# classes, the product's not; BENCHMARKS.md, "Against a warm Weka, per CV fold")
LOOKUP_VALUES = 1 << 14


def one_hot_log_sums(log_table: np.ndarray, codes: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Σ_j log_table[k, offsets[j] + codes[n, j]] for every row n and class k: (N, K); a missing
    code (−1) adds nothing (a cell of log 1 = 0 past the table's end). ``log_table`` (K, T) may
    hold −inf (a zero probability), which a row then scores: sums of look-ups have no 0 · (−inf).
    One ``take`` of each (attribute, row)'s K entries of the table laid out cell by cell, summed
    over the attributes.
    """
    n_classes, n_cells = log_table.shape
    by_cell = np.zeros((n_cells + 1, n_classes))
    by_cell[:n_cells] = log_table.T
    block = codes.T  # (F, N): attribute by attribute
    cells = block + offsets[:, None]
    if block.min(initial=0) < 0:
        np.copyto(cells, n_cells, where=block < 0)
    terms = by_cell.take(cells, axis=0)  # (F, N, K)
    if terms[0].size == 1:  # one row, one class: NumPy would sum the contiguous F terms pairwise
        return np.add.accumulate(terms, axis=0)[-1]
    return terms.sum(axis=0)  # strided over the attributes: added one attribute after another
