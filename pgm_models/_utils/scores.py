"""Per-class and per-row terms applied in place to an (N, K) array of scores.

NumPy broadcasts a (K,) row, or an (N, 1) column, over (N, K) with one pass of its inner loop per
row along the short last axis; with many rows and few classes each class's column in turn is
faster (BENCHMARKS.md, "Against scikit-learn"), while a small batch (a CV fold's test rows) or many
classes is faster broadcast. Each entry gets the same single operation either way.
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils import jit, threads

# Column by column from this many rows, for at most PER_CLASS_COLUMNS classes
PER_CLASS_ROWS = 256
PER_CLASS_COLUMNS = 8


def _by_columns(scores: np.ndarray) -> bool:
    return scores.shape[0] >= PER_CLASS_ROWS and scores.shape[1] <= PER_CLASS_COLUMNS


def _check_shape(term: np.ndarray, shape: tuple, what: str) -> np.ndarray:
    """``term`` as an array of exactly ``shape``: the two paths would treat any other shape
    differently (a (1,) term broadcasts, but column by column reaches the first class only).
    """
    term = np.asarray(term)
    if term.shape != shape:
        raise ValueError(f"a {what} term must have shape {shape}, got {term.shape}")
    return term


def add_per_class(scores: np.ndarray, per_class: np.ndarray) -> np.ndarray:
    """``scores += per_class`` in place, ``scores`` (N, K) and ``per_class`` (K,); returns ``scores``."""
    per_class = _check_shape(per_class, scores.shape[1:], "per-class")
    if _by_columns(scores):
        for column, value in zip(scores.T, np.asarray(per_class, dtype=scores.dtype).tolist()):
            column += value
    else:
        scores += per_class
    return scores


def subtract_per_row(scores: np.ndarray, per_row: np.ndarray) -> np.ndarray:
    """``scores -= per_row[:, None]`` in place, ``scores`` (N, K) and ``per_row`` (N,); returns ``scores``."""
    per_row = _check_shape(per_row, scores.shape[:1], "per-row")
    if _by_columns(scores):
        for column in scores.T:
            column -= per_row
    else:
        scores -= per_row[:, None]
    return scores


def normalised_in_place(scores: np.ndarray, log: bool) -> np.ndarray | None:
    """Each row of (N, K) log scores made its posterior (``log``: its log posterior) in place by the
    compiled loop (one pass, no (N, K) temporary; a large input's row blocks on threads), which runs
    once numba is loaded, at every size, so a row's result does not depend on its batch; None where
    it does not run (the caller's NumPy path).
    """
    if not (jit.loaded() and isinstance(scores, np.ndarray) and scores.ndim == 2 and scores.dtype == np.float64):
        return None
    if not scores.flags.writeable:
        return None
    normalise_rows = jit.kernels("pgm_models._utils._row_kernels").normalise_rows
    threads.over_row_blocks(lambda start, stop: normalise_rows(scores[start:stop], log), len(scores))
    return scores
