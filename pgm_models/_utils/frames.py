"""Reading a DataFrame's columns without building a Series per column.

A small fit or prediction reads every column of its frame once; pandas' public access (a Series
per column) or even its column iterator (a block look-up per column) costs more there than the
arithmetic, so the columns are read off the frame's blocks directly (BENCHMARKS.md, "Against a
warm Weka, per CV fold").
"""

from __future__ import annotations

import operator
import weakref

import numpy as np
import pandas as pd


def column_arrays(frame: pd.DataFrame) -> list:
    """The columns' own arrays, in column order (extension arrays such as a Categorical stay
    themselves, NumPy columns are 1-D views): read-only use only (no copy-on-write).

    Read block by block through pandas' column-to-block map: a one-dimensional block (an
    extension array: every column of a frame of Categoricals) is the column, a two-dimensional
    one holds the column at its row (pandas' column iterator does the same per column
    through its methods, which is slower).
    """
    manager = frame._mgr
    values = list(map(_VALUES, manager.blocks))
    if (
        values and max(map(_NDIM, values)) == 1
    ):  # one column to a block (a frame of Categoricals): the blocks in column order
        return list(map(values.__getitem__, manager.blknos.tolist()))
    return [
        values[b] if values[b].ndim == 1 else values[b][at]
        for b, at in zip(manager.blknos.tolist(), manager.blklocs.tolist())
    ]


# a Categorical's codes are its backing array, ``_ndarray``, a C-level attribute (pandas' ``_codes`` property
# returns it through a Python call, one per column)
_VALUES, _NDIM, _CODES = operator.attrgetter("values"), operator.attrgetter("ndim"), operator.attrgetter("_ndarray")


def categorical_codes(column: pd.Categorical):
    """A Categorical's integer codes, not copied (its ``codes`` property makes a read-only view
    of them on every call): the caller must not write into them.
    """
    return column._ndarray


def categorical_codes_of(columns: list) -> list:
    """``categorical_codes`` of each Categorical of a list (one C-level map, not a Python call per column)."""
    return list(map(_CODES, columns))


_INDEX_VALUES: dict = {}  # id(Index) → (weak reference to it, its values)
_INDEX_VALUES_KEPT = 1024  # entries before the cache starts afresh


def index_values(index: pd.Index) -> np.ndarray:
    """An Index's values as a read-only NumPy array (strings as objects), converted once per
    Index object: pandas' string arrays convert afresh each time, and the categories of a
    Categorical (y's classes, an attribute's domain) and a frame's column names are the same
    Index objects in every fold sliced from one frame. An Index is immutable; the entry is found
    by the object's identity, checked through a weak reference (an id can be reused), and is
    dropped when the Index is collected.
    """
    entry = _INDEX_VALUES.get(id(index))
    if entry is not None and entry[0]() is index:
        return entry[1]
    values = np.asarray(index).view()
    values.flags.writeable = False
    if len(_INDEX_VALUES) >= _INDEX_VALUES_KEPT:
        _INDEX_VALUES.clear()
    # the entry leaves with its Index (a wide frame's names are not kept after the frame)
    key = id(index)
    _INDEX_VALUES[key] = (weakref.ref(index, lambda _, key=key: _INDEX_VALUES.pop(key, None)), values)
    return values
