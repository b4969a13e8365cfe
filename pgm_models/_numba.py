"""The package's compiled kernels' decorator (numba, a PyMC dependency through PyTensor).

Imported only by the kernel modules (``semi_naive._bitsets``, ``semi_naive._aode_kernel``,
``naive_bayes._kernels``), which the models import where they first need them: importing numba
and loading a cached kernel costs a process's first such call about 0.5 s, and a machine's first
call compiles the kernel (a few seconds) into numba's on-disk cache.
"""

from __future__ import annotations

import numba


def compiled(function):
    """``function`` compiled once and kept in numba's on-disk cache (beside its module, else in the
    user's cache folder); where neither can be written (numba refuses such a cache when the
    function is defined), compiled in each process instead."""
    try:
        return numba.njit(cache=True, nogil=True)(function)
    except RuntimeError:
        return numba.njit(nogil=True)(function)
