"""One BLAS thread for the package's small numeric kernels.

OpenBLAS splits even small products (a few hundred rows × a few hundred columns) over every core
it sees. On a machine busy with other work those threads wait on each other: 10-fold CV of
LogisticRegression on a 700-row dataset took 580 s with default threading and 12 s on one
thread. The split also changes the order of floating-point sums, so an optimiser's path
(iteration counts, the last digits of its result) depended on the thread count. Kernels
decorated with :func:`single_blas_thread` are too small to gain from threads: they run on one
BLAS thread whatever ``OPENBLAS_NUM_THREADS`` says, so their results do not depend on the core
count or the machine's load. Large products elsewhere keep the caller's setting.
"""

from __future__ import annotations

import functools


def single_blas_thread(function):
    """Run ``function`` with every loaded BLAS limited to one thread (restored afterwards;
    finding the loaded libraries costs about a millisecond per call)."""

    @functools.wraps(function)
    def limited(*args, **kwargs):
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return function(*args, **kwargs)

    return limited
