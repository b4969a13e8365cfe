"""The weights of rows given no ``sample_weight``, and knowing them again cheaply.

A fit without sample_weight weighs every row 1, and several counting paths take a faster route for
unit weights (the bit-set pair counts, CategoricalNB's and the Gaussian moments' unweighted sums).
Comparing every weight with 1 to find that out each time it is asked is a cost a small fit pays
again and again (BENCHMARKS.md, "Against a warm Weka, per CV fold"), so such weights are one
shared read-only array of ones per length, known by identity.
"""

from __future__ import annotations

import numpy as np

# Shared up to this many rows; longer arrays are made afresh (one kept would hold its memory) and compared
UNIT_WEIGHTS_ROWS = 1 << 16
_UNIT_WEIGHTS: dict = {}  # rows → the shared ones
_UNIT_WEIGHTS_KEPT = 64  # lengths kept before the cache starts afresh


def unit_weights(n_rows: int) -> np.ndarray:
    """``n_rows`` ones (the weights of rows given no sample_weight), read-only: one array shared by
    every call with the same length up to ``UNIT_WEIGHTS_ROWS``, a new one above it.
    """
    ones = _UNIT_WEIGHTS.get(n_rows)
    if ones is None:
        ones = np.ones(n_rows)
        ones.flags.writeable = False
        if n_rows <= UNIT_WEIGHTS_ROWS:
            if len(_UNIT_WEIGHTS) >= _UNIT_WEIGHTS_KEPT:
                _UNIT_WEIGHTS.clear()
            _UNIT_WEIGHTS[n_rows] = ones
    return ones


def is_unit_weight(weight: np.ndarray) -> bool:
    """Whether every weight is 1 (every row counted once): ``unit_weights``' shared array by identity,
    any other array by value.
    """
    return weight is _UNIT_WEIGHTS.get(len(weight)) or bool((weight == 1).all())
