"""Threads: one BLAS thread for the package's small numeric kernels, and large inputs' rows split
over several threads.

OpenBLAS splits even small products (a few hundred rows × a few hundred columns) over every core
it sees. On a machine busy with other work those threads wait on each other, so a small kernel
runs far slower than on one thread (BENCHMARKS.md, "CV under load").
The split also changes the order of floating-point sums, so an optimiser's path
(iteration counts, the last digits of its result) depended on the thread count. Kernels
decorated with :func:`single_blas_thread` are too small to gain from threads: they run on one
BLAS thread whatever ``OPENBLAS_NUM_THREADS`` says, so their results do not depend on the core
count or the machine's load. Large products elsewhere keep the caller's setting.

A large input (``THREAD_MIN_ROWS`` rows or more) is cut into blocks of ``BLOCK_ROWS`` rows, and the
compiled kernels (which release the GIL) run on the blocks in up to :func:`n_threads` threads
(:func:`over_row_blocks`). The blocks are the same whatever the thread count, a row's scores are
its own, integer counts are exact and sums of floats are merged block by block in block order
(:func:`add_over_row_blocks`), so the results are bit for bit the same at one thread and at several.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import contextvars
import functools
import os
import sys
import threading

import numpy as np

from pgm_models._utils.config import get_config

# Inputs from this many rows on are cut into blocks of BLOCK_ROWS rows that threads share: below it a
# thread's start and the blocks' merge cost more than a second core saves
THREAD_MIN_ROWS = 1 << 17
BLOCK_ROWS = 1 << 15

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


def _set_blas_threads(library, n_threads: int) -> None:
    """Set ``library``'s thread limit from any thread: threadpoolctl (3.8 on) ignores an OpenBLAS
    (pthreads) limit set by any thread but the first that set one, which would leave a section in a
    pool's or a user's thread on every core, or the settings it restores unrestored.
    """
    getattr(library, "_real_set_num_threads", library.set_num_threads)(n_threads)


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
            _set_blas_threads(library, 1)
    try:
        yield
    finally:
        with _sections_lock:
            _sections["open"] = max(0, _sections["open"] - 1)  # a fork may have closed it already
            if _sections["open"] == 0 and _sections["before"] is not None:
                for library, n_threads in _sections["before"]:
                    _set_blas_threads(library, n_threads)
                _sections["before"] = None


def single_blas_thread(function):
    """Run ``function`` under ``one_blas_thread``."""

    @functools.wraps(function)
    def limited(*args, **kwargs):
        with one_blas_thread():
            return function(*args, **kwargs)

    return limited


def _user_blas_threads() -> int:
    """The loaded BLAS libraries' thread limit as the user set it (``OPENBLAS_NUM_THREADS``,
    ``threadpoolctl``): the settings from before this module's own one-thread sections where any is open.
    """
    with _sections_lock:
        before = _sections["before"]
        if before is not None:
            return max((n for _, n in before), default=1)
        return max((library.num_threads for library in _blas_controller().lib_controllers), default=1)


def n_threads() -> int:
    """Threads a large input's blocks may use: ``n_jobs`` of the package's settings
    (:func:`pgm_models.set_config`); by default every core this process may run on, within the
    BLAS libraries' limit.
    """
    n_jobs = get_config()["n_jobs"]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if n_jobs is None:
        return max(1, min(cores, _user_blas_threads()))
    return cores if n_jobs == -1 else n_jobs


def row_spans(n_rows: int) -> list[tuple[int, int]]:
    """The (start, stop) blocks ``n_rows`` rows are cut into: one below ``THREAD_MIN_ROWS``, else
    blocks of ``BLOCK_ROWS``; they depend on ``n_rows`` only.
    """
    if n_rows < THREAD_MIN_ROWS:
        return [(0, n_rows)]
    return [(start, min(start + BLOCK_ROWS, n_rows)) for start in range(0, n_rows, BLOCK_ROWS)]


_pools: dict[int, concurrent.futures.ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()
_worker = threading.local()  # set in the pools' threads: a block's own blocks run there in turn


def _pool(workers: int) -> concurrent.futures.ThreadPoolExecutor:
    with _pools_lock:
        if workers not in _pools:
            _pools[workers] = concurrent.futures.ThreadPoolExecutor(
                workers, thread_name_prefix="pgm_models", initializer=lambda: setattr(_worker, "active", True)
            )
        return _pools[workers]


def _forget_pools_in_child() -> None:
    """A forked child has none of its parent's pool threads: its pools (and their lock) start afresh,
    else its first blocks would wait for threads that do not exist; a one-BLAS-thread section open in
    another of the parent's threads is closed (its settings restored), as no thread will close it.
    """
    global _pools_lock, _sections_lock
    _pools.clear()
    _pools_lock = threading.Lock()
    _sections_lock = threading.Lock()
    if _sections["before"] is not None:
        for library, n_threads in _sections["before"]:
            _set_blas_threads(library, n_threads)
    _sections.update(open=0, before=None)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools_in_child)


def _spans_and_workers(n_rows: int, block_rows: int | None) -> tuple[list[tuple[int, int]], int]:
    """The blocks (``row_spans``, or of ``block_rows`` rows) and the threads they may share."""
    if block_rows is None:
        spans = row_spans(n_rows)
    else:
        spans = [(start, min(start + block_rows, n_rows)) for start in range(0, n_rows, block_rows)]
    # a block's own blocks stay on its thread: waiting on the pool from inside it could wait for ever
    nested = getattr(_worker, "active", False)
    workers = min(len(spans), n_threads()) if len(spans) > 1 and n_rows >= THREAD_MIN_ROWS and not nested else 1
    return spans, workers


def _in_block_order(function, n_rows: int, block_rows: int | None = None):
    """``function(start, stop)`` of each block (``row_spans(n_rows)``, or of ``block_rows`` rows), yielded
    in block order; from ``THREAD_MIN_ROWS`` rows the blocks run on up to :func:`n_threads` threads, a
    block queued behind each running one (no thread waits for the next, and only those blocks' results
    are held before they are yielded), each in a copy of the caller's context: its context variables (a
    prediction call's cached operands, NumPy's error state) hold in the blocks as on the calling thread.
    """
    spans, workers = _spans_and_workers(n_rows, block_rows)
    if workers == 1:
        for start, stop in spans:
            yield function(start, stop)
        return
    pool, waiting = _pool(workers), iter(spans)
    in_flight = collections.deque()

    def submit():
        span = next(waiting, None)
        if span is not None:
            in_flight.append(pool.submit(contextvars.copy_context().run, function, *span))

    try:
        for _ in range(2 * workers):
            submit()
        while in_flight:
            yield in_flight.popleft().result()  # the caller takes it before the next block is queued
            submit()
    finally:
        for future in in_flight:  # after a block's error: the later ones not started are dropped
            future.cancel()


def over_row_blocks(function, n_rows: int, block_rows: int | None = None) -> list:
    """``[function(start, stop) for (start, stop) in row_spans(n_rows)]`` (or in blocks of
    ``block_rows`` rows, a caller's own bound), the blocks shared by up to :func:`n_threads` threads
    from ``THREAD_MIN_ROWS`` rows on (``function`` should spend its time in compiled code that
    releases the GIL); the results in block order.
    """
    return list(_in_block_order(function, n_rows, block_rows))


def _added(total, part):
    """``total + part`` (element by element for tuples); ``part`` itself where there is no total yet."""
    if total is None:
        return part
    return tuple(a + b for a, b in zip(total, part)) if isinstance(total, tuple) else total + part


def add_over_row_blocks(function, n_rows: int):
    """The sum of ``function(start, stop)`` (an array, or a tuple of arrays or numbers) over
    ``row_spans(n_rows)``, added in block order, each block's part added to the total as soon as the
    blocks before it are: a few blocks' parts held at once (those in flight on the threads), not one
    per block of the input, and the same sum at any thread count.
    """
    total = None
    # a loop, not functools.reduce, whose argument tuple keeps the last part and total while the next is awaited
    for part in _in_block_order(function, n_rows):
        total = _added(total, part)
    return total


def rows_times(X, B):
    """``X @ B``; for a dense 2-D ``X`` of ``THREAD_MIN_ROWS`` rows or more, each row block's product
    into its rows of the result, the blocks on threads (the BLAS setting of the caller for each).
    """
    if not (isinstance(X, np.ndarray) and X.ndim == 2) or len(X) < THREAD_MIN_ROWS:
        return X @ B
    out = np.empty((len(X), B.shape[1]), dtype=np.result_type(X, B))
    over_row_blocks(lambda start, stop: np.matmul(X[start:stop], B, out=out[start:stop]), len(X))
    return out
