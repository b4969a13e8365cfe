"""An integer matrix's seen values per column, compiled (numba; ``pgm_models._utils.jit``).

One pass over the rows in their own order that marks each (column, value) seen: the NumPy path
(``attributes._seen_integers``) writes each slice's (column, value) keys and counts them, two passes
over a full-size key array; both give each column's values present, so the same domains.
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.jit import compiled


@compiled
def seen_table(X, low, width):
    """(F, width) booleans: whether column j holds the value low + v, for X's values in low .. low + width − 1."""
    n_rows, n_columns = X.shape
    present = np.zeros((n_columns, width), dtype=np.bool_)
    for i in range(n_rows):
        for j in range(n_columns):
            present[j, X[i, j] - low] = True
    return present
