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
import threading

_blas = {"controller": None, "modules": 0}


def _blas_controller():
    """The loaded BLAS libraries' controller, found again only after new imports: a BLAS arrives
    with an extension module's import, and finding the libraries costs far more than limiting
    them.
    """
    if _blas["controller"] is None or _blas["modules"] != len(sys.modules):
        from threadpoolctl import ThreadpoolController

        _blas["controller"] = ThreadpoolController().select(user_api="blas")
        _blas["modules"] = len(sys.modules)
    return _blas["controller"]


# Sections open in any thread, and the BLAS settings from before the first of them: overlapping
# sections (concurrent predictions) restore the settings once, when the last one closes; each
# section restoring what it found would leave the one thread of another's section behind.
_sections = {"open": 0, "before": None}
_sections_lock = threading.Lock()


@contextlib.contextmanager
def one_blas_thread():
    """Context in which every loaded BLAS runs on one thread (restored when the last section open
    in any thread closes). Each library is set directly: threadpoolctl's ``limit`` also reads
    every library's full info, which is slower.
    """
    with _sections_lock:
        libraries = _blas_controller().lib_controllers
        if _sections["open"] == 0:
            _sections["before"] = [(library, library.num_threads) for library in libraries]
        _sections["open"] += 1
        for library in libraries:
            library.set_num_threads(1)
    try:
        yield
    finally:
        with _sections_lock:
            _sections["open"] -= 1
            if _sections["open"] == 0:
                for library, n_threads in _sections["before"]:
                    library.set_num_threads(n_threads)
                _sections["before"] = None


def single_blas_thread(function):
    """Run ``function`` under ``one_blas_thread``."""

    @functools.wraps(function)
    def limited(*args, **kwargs):
        with one_blas_thread():
            return function(*args, **kwargs)

    return limited
