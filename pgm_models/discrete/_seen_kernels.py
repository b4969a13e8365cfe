"""An integer matrix's seen values per column, compiled (numba; ``pgm_models._utils.jit``).

One pass over the rows in their own order that marks each (column, value) seen: the NumPy path
(``attributes._seen_integers``) writes each slice's (column, value) keys and counts them, two passes
over a full-size key array; both give each column's values present, so the same domains. A large
input's row blocks run on threads (``pgm_models._utils.threads``), their tables joined by "or".
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils import threads
from pgm_models._utils.jit import compiled


def seen_table(X, low, width):
    """(F, width) booleans: whether column j holds the value low + v, for X's values in low .. low + width − 1."""

    def block(start, stop):
        present = np.zeros((X.shape[1], width), dtype=np.bool_)
        mark_seen(X[start:stop], low, present)
        return present

    return threads.add_over_row_blocks(block, len(X))  # booleans add as "or"


@compiled
def mark_seen(X, low, present):
    """Set present[j, x − low] for each value x of each column j of X."""
    n_rows, n_columns = X.shape
    for i in range(n_rows):
        for j in range(n_columns):
            present[j, X[i, j] - low] = True
