"""Scoring rows that are one-hot in blocks (categorical attributes) by looking their cells up.

A row with (at most) one value cell per attribute scores class k as Σ_j log θ[k, cell_j]: one
look-up per attribute. A one-hot design's product does the same sums, but building the sparse
design (scipy's checks of its index arrays) cost half of a small fold's predict_proba, and the
look-ups add each row's terms in the same order (attribute by attribute, from 0), so the scores
are the product's to the last bit.
"""

from __future__ import annotations

import numpy as np

# rows looked up per step: a step's (F, rows) cell indices stay within 512 KiB, in cache
CELLS_PER_STEP = 1 << 16


def class_log_sums(flat_table: np.ndarray, stride: int, cells: np.ndarray, out: np.ndarray) -> None:
    """``out[n, k] = Σ_f flat_table[k · stride + cells[f, n]]`` for the rows of ``cells`` (F, N):
    class k's table is the k-th ``stride`` entries of ``flat_table``. The attributes' terms are
    added in their order f = 0, 1, … (a sum over the first axis of the look-ups adds whole rows
    of them, one after another); ``out`` (N, K) is best laid out class by class."""
    for k in range(out.shape[1]):
        out[:, k] = flat_table[k * stride : (k + 1) * stride].take(cells).sum(axis=0)


def one_hot_log_sums(log_table: np.ndarray, codes: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Σ_j log_table[k, offsets[j] + codes[n, j]] for every row n and class k: (N, K), laid out
    class by class; a missing code (−1) adds nothing (a cell of log 1 = 0 past the table's end).
    ``log_table`` (K, T) may hold −inf (a zero probability), which a row then scores: sums of
    look-ups have no 0 · (−inf). A step of rows at a time, so the cell indices stay in cache."""
    n_classes, n_cells = log_table.shape
    padded = np.zeros((n_classes, n_cells + 1))
    padded[:, :n_cells] = log_table
    flat = padded.ravel()
    scores = np.empty((n_classes, len(codes))).T
    step = max(1, CELLS_PER_STEP // max(1, codes.shape[1]))
    for start in range(0, len(codes), step):
        block = codes[start : start + step].T  # (F, rows): attribute by attribute
        cells = block + offsets[:, None]
        np.copyto(cells, n_cells, where=block < 0)
        class_log_sums(flat, n_cells + 1, cells, scores[start : start + step])
    return scores
