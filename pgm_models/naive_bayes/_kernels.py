"""CategoricalNB's counting and scoring loops, compiled (numba; ``pgm_models._numba``).

Both do what the NumPy path does, in its order, so their numbers are its numbers to the bit: the
counts add each (class, cell)'s weights row by row, as one ``np.bincount`` of (class, cell) keys
does, and a row's score adds its attributes' log probabilities one after another from the first,
as the one-hot look-ups and the sparse product do (``pgm_models._one_hot``). What they save is the
NumPy calls around that arithmetic: on a small fold (vote: 391 rows to count, 44 to score) the
keys and the bincount cost about 25 µs, the look-ups about 15, where these loops take 2–3.
"""

from __future__ import annotations

import numpy as np

from pgm_models._numba import compiled


@compiled
def add_value_counts(codes, offsets, class_index, weight, counts):
    """Add ``weight[n]`` to ``counts[class_index[n], offsets[j] + codes[n, j]]`` for every row n and
    attribute j whose code is not −1 (missing): ``counts`` (K, T)."""
    for j in range(codes.shape[1]):  # attribute by attribute: the codes are stacked so (Fortran order)
        for n in range(codes.shape[0]):
            if codes[n, j] >= 0:
                counts[class_index[n], offsets[j] + codes[n, j]] += weight[n]


@compiled
def log_sums(log_table, codes, offsets):
    """Σ_j log_table[k, offsets[j] + codes[n, j]] for every row n and class k, a missing code (−1)
    adding nothing: (N, K)."""
    n_rows, n_features = codes.shape
    scores = np.zeros((n_rows, log_table.shape[0]))
    for n in range(n_rows):
        for k in range(log_table.shape[0]):
            score = 0.0
            for j in range(n_features):
                if codes[n, j] >= 0:
                    score += log_table[k, offsets[j] + codes[n, j]]
            scores[n, k] = score
    return scores
