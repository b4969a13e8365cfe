"""Compiled one-pass loops over a whole input or a whole (N, K) score array (numba; ``jit.compiled``).

Each replaces several NumPy passes, each of which reads the full array (and some write a full-size
temporary) for a few operations per entry. They do the same arithmetic per entry as the NumPy
paths they stand for (``scores.normalised``, ``validation.check_numeric_matrix``), which take them
once numba is loaded (``jit.loaded``), at every size.
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.jit import compiled


@compiled
def normalise_rows(scores, log):
    """In place, each row of (N, K) log scores becomes its posterior (``log``: its log posterior):
    s − max, exp, over the row's sum; a row −inf everywhere becomes uniform, a +inf or NaN maximum
    is taken as 0 (as the NumPy path does).
    """
    n_rows, n_classes = scores.shape
    for i in range(n_rows):
        row = scores[i]
        peak = row[0]
        for k in range(1, n_classes):  # np.maximum's rule: a NaN anywhere makes the maximum NaN
            if row[k] > peak or row[k] != row[k]:
                peak = row[k]
        if peak == -np.inf:
            row[:] = 0.0
            peak = 0.0
        elif not np.isfinite(peak):
            peak = 0.0
        total = 0.0
        if log:
            for k in range(n_classes):
                row[k] -= peak
                total += np.exp(row[k])
            log_total = np.log(total)
            for k in range(n_classes):
                row[k] -= log_total
        else:
            for k in range(n_classes):
                row[k] = np.exp(row[k] - peak)
                total += row[k]
            for k in range(n_classes):
                row[k] /= total


@compiled
def value_counts(values, limit):
    """(entries not within ±``limit`` (NaN and ±inf among them), negative entries, entries neither 0 nor 1)
    of a 2-D array, in one pass of comparisons counted as integers (which, unlike a float minimum, the
    compiler may add in any order).
    """
    outside, negative, non_binary = 0, 0, 0
    n_rows, n_columns = values.shape
    for i in range(n_rows):
        for j in range(n_columns):
            x = values[i, j]
            outside += not (abs(x) <= limit)
            negative += x < 0.0
            non_binary += (x != 0.0) & (x != 1.0)
    return outside, negative, non_binary
