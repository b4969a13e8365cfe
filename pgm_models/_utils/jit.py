"""The package's compiled kernels: their decorator (numba, a PyMC dependency through PyTensor) and
when the small-data paths use them.

The kernels (``semi_naive._bitsets``, ``semi_naive._aode_kernel``, ``naive_bayes._kernels``) save
little per fit, while importing numba costs a process far more and a machine's first call
compiles them. So the small-data paths use them only once
numba is loaded in the process (:func:`loaded`): PyMC loads it (any NUTS sampling, any PyMC model),
and so does ``import numba``, as a process that fits thousands of small models (a grid search,
an ensemble) may do. A lone fit never pays numba's import. Large data, whose kernels save more
than the import costs (the bit-set pair counts), load numba themselves.
"""

from __future__ import annotations

import importlib
import sys

import numpy as np


def loaded() -> bool:
    """Whether numba is already imported in this process (by PyMC, PyTensor or the user); a module
    blocked by ``sys.modules["numba"] = None`` is not.
    """
    return sys.modules.get("numba") is not None


def compiled(function):
    """``function`` compiled once and kept in numba's on-disk cache (beside its module, else in the
    user's cache folder); where neither can be written (numba refuses such a cache when the
    function is defined), compiled in each process instead.
    """
    import numba

    try:
        return numba.njit(cache=True, nogil=True)(function)
    except RuntimeError:
        return numba.njit(nogil=True)(function)


def kernel_codes(codes):
    """Integer codes as the kernels take them: int8 (a batch of Categoricals' codes being counted) as
    they are, any other integer dtype widened to intp, so that each kernel compiles for two dtypes.
    """
    return codes if codes.dtype == np.int8 else np.asarray(codes, dtype=np.intp)


def kernels(name: str):
    """The module of compiled kernels ``name``, imported at its first use (importing it loads numba) and
    then read from ``sys.modules`` (an import statement in the calling function costs more, on every call).
    A module another thread is still importing (compiling) is in ``sys.modules`` half made: the
    import system then waits for it.
    """
    module = sys.modules.get(name)
    if module is None or getattr(getattr(module, "__spec__", None), "_initializing", False):
        return importlib.import_module(name)
    return module
