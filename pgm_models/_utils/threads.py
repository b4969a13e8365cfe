"""One BLAS thread for the package's small numeric kernels.

OpenBLAS splits even small products (a few hundred rows × a few hundred columns) over every core
it sees. On a machine busy with other work those threads wait on each other, so a small kernel
runs far slower than on one thread (BENCHMARKS.md, "CV under load").
The split also changes the order of floating-point sums, so an optimiser's path
(iteration counts, the last digits of its result) depended on the thread count. Kernels
decorated with :func:`single_blas_thread` are too small to gain from threads: they run on one
BLAS thread whatever ``OPENBLAS_NUM_THREADS`` says, so their results do not depend on the core
count or the machine's load. Large products elsewhere keep the caller's setting.
"""

from __future__ import annotations

import contextlib
import functools
import sys

_blas = {"controller": None, "modules": 0}


def _blas_controller():
    """The loaded BLAS libraries' controller, found again only after new imports: a BLAS arrives
    with an extension module's import, and finding the libraries costs far more than limiting
    them."""
    if _blas["controller"] is None or _blas["modules"] != len(sys.modules):
        from threadpoolctl import ThreadpoolController

        _blas["controller"] = ThreadpoolController().select(user_api="blas")
        _blas["modules"] = len(sys.modules)
    return _blas["controller"]


@contextlib.contextmanager
def one_blas_thread():
    """Context in which every loaded BLAS runs on one thread (restored on leaving it). Each
    library is set directly: threadpoolctl's ``limit`` also reads every library's full info,
    which is slower."""
    libraries = _blas_controller().lib_controllers
    before = [library.num_threads for library in libraries]
    for library in libraries:
        library.set_num_threads(1)
    try:
        yield
    finally:
        for library, n_threads in zip(libraries, before):
            library.set_num_threads(n_threads)


def single_blas_thread(function):
    """Run ``function`` under ``one_blas_thread``."""

    @functools.wraps(function)
    def limited(*args, **kwargs):
        with one_blas_thread():
            return function(*args, **kwargs)

    return limited
