"""Scoring by table look-ups: the log-probability tables of attributes that each depend on the class
and on parent attributes, stacked, and each row's sum of the entries it reads under every class
(one compiled pass, ``_lookup_kernel``), for the Bayesian network classifiers and TAN.
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils import jit


def stacked(tables) -> tuple[np.ndarray, np.ndarray]:
    """(every table's cells in one float array, C order, table after table; (J + 1,) each table's
    first cell and one past the last).
    """
    starts = np.zeros(len(tables) + 1, dtype=np.intp)
    np.cumsum([t.size for t in tables], out=starts[1:])
    return np.concatenate([np.ravel(t) for t in tables]).astype(float, copy=False), starts


def table_log_sums(
    log_tables, starts, sizes, parents, codes, n_classes: int, compiled: bool | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """((K, N) Σ_j log θ_j[k, x_{n,pa_j}, x_nj] of every row n under every class k, (N,) whether row n
    was summed: a row with a missing value (a code < 0) is not, and its sums are 0).

    ``log_tables``, ``starts``: the tables ``stacked``, table j of shape (K, r_p1, .., r_j) for its
    parents ``parents[j]`` in that order (an empty list: (K, r_j)); ``sizes`` (F,) the attributes'
    numbers of values; ``codes`` (N, F), −1 for a missing value, else 0 ≤ x_nj < r_j. The row's
    entries are added attribute by attribute from 0, by one compiled pass (``compiled`` None: once
    numba is loaded, as importing it costs more than a small input's NumPy pass), else by NumPy in the
    same order (the same bits, so a model predicts alike whatever the process imported).
    """
    if not (jit.loaded() if compiled is None else compiled):
        return _numpy_log_sums(log_tables, starts, np.asarray(sizes), parents, np.asarray(codes), n_classes)
    width = max([1, *(len(p) for p in parents)])
    padded = np.zeros((len(parents), width), dtype=np.intp)
    for j, p in enumerate(parents):
        padded[j, : len(p)] = p
    n_parents = np.array([len(p) for p in parents], dtype=np.intp)
    return jit.kernels("pgm_models.discrete._lookup_kernel").table_log_sums(
        log_tables,
        starts,
        np.asarray(sizes, dtype=np.intp),
        padded,
        n_parents,
        np.asarray(codes, dtype=np.intp),
        n_classes,
    )


def _numpy_log_sums(log_tables, starts, sizes, parents, codes, n_classes: int):
    """``table_log_sums`` by NumPy, the kernel's arithmetic: each entry's flat index built as the
    kernel builds it, the entries added to 0.0 attribute by attribute.
    """
    observed = (codes >= 0).all(axis=1)
    rows = codes[observed]
    partial = np.zeros((n_classes, len(rows)))
    for j, parent in enumerate(parents):
        index = np.arange(n_classes)[:, None]
        for p in parent:
            index = index * int(sizes[p]) + rows[:, p]
        partial += log_tables[starts[j] + index * int(sizes[j]) + rows[:, j]]
    sums = np.zeros((n_classes, len(codes)))
    sums[:, observed] = partial
    return sums, observed
