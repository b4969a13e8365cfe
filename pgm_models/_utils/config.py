"""The package's global settings: how many threads a large fit or prediction may use.

As in scikit-learn, :func:`set_config` changes a setting for the process (each thread starts from
it), :func:`config_context` for a ``with`` block in the calling thread, and :func:`get_config`
reads the settings in force.
"""

from __future__ import annotations

import contextlib
import operator
import threading

import numpy as np

_global = {"n_jobs": None}
_local = threading.local()
_UNCHANGED = object()  # the default of set_config and config_context: None is a setting of its own


def _check_n_jobs(n_jobs):
    if n_jobs is None:
        return None
    try:
        if isinstance(n_jobs, (bool, np.bool_)):
            raise TypeError
        value = operator.index(n_jobs)
    except TypeError:
        raise TypeError(f"n_jobs must be None, -1 or a positive integer, got {n_jobs!r}") from None
    if value == 0 or value < -1:
        raise ValueError(f"n_jobs must be None, -1 or a positive integer, got {n_jobs!r}")
    return value


def get_config() -> dict:
    """The settings in force in the calling thread.

    Returns
    -------
    dict
        ``{"n_jobs": ...}``: see :func:`set_config`.

    Examples
    --------
    >>> import pgm_models
    >>> pgm_models.get_config()["n_jobs"] is None
    True
    """
    return dict(getattr(_local, "config", _global))


def set_config(n_jobs=_UNCHANGED) -> None:
    """Set the package's settings for the whole process.

    Parameters
    ----------
    n_jobs : None, -1 or int ≥ 1, optional
        Left as it is when not given. Threads a fit or a prediction on a large input (at least
        ``THREAD_MIN_ROWS`` rows, ``pgm_models._utils.threads``) splits its counting and scoring
        over (which parts run on threads: the docs, "Scaling out"). ``None``: every core this
        process may run on, but no more than the loaded BLAS libraries are allowed
        (``OPENBLAS_NUM_THREADS=1`` or ``threadpoolctl.threadpool_limits(1)`` keep it on one
        thread); ``-1``: every core; ``k``: ``k`` threads. Smaller inputs always run on one
        thread. The results do not depend on it: rows are split into the same blocks whatever
        the thread count, integer counts are exact, and sums of floats are merged block by block
        in a fixed order.

    Examples
    --------
    >>> import pgm_models
    >>> pgm_models.set_config(n_jobs=1)
    >>> pgm_models.get_config()["n_jobs"]
    1
    >>> pgm_models.set_config(n_jobs=None)
    """
    if n_jobs is not _UNCHANGED:
        _global["n_jobs"] = _check_n_jobs(n_jobs)


@contextlib.contextmanager
def config_context(n_jobs=_UNCHANGED):
    """Settings for a ``with`` block in the calling thread; the settings before it return when the
    block ends.

    Parameters
    ----------
    n_jobs : None, -1 or int ≥ 1, optional
        Threads a large fit or prediction may use, as in :func:`set_config`; left as it is when not given.

    Returns
    -------
    contextlib.AbstractContextManager
        The ``with`` block's context; it yields nothing.

    Examples
    --------
    >>> import numpy as np
    >>> import pgm_models
    >>> X = np.random.default_rng(0).integers(0, 3, size=(200_000, 4))
    >>> y = X[:, 0] % 2
    >>> with pgm_models.config_context(n_jobs=1):
    ...     one = pgm_models.CategoricalNB().fit(X, y).predict_proba(X[:5])
    >>> two = pgm_models.CategoricalNB().fit(X, y).predict_proba(X[:5])
    >>> bool((one == two).all())
    True
    """
    previous = getattr(_local, "config", None)
    settings = dict(previous if previous is not None else _global)
    if n_jobs is not _UNCHANGED:
        settings["n_jobs"] = _check_n_jobs(n_jobs)
    _local.config = settings
    try:
        yield
    finally:
        if previous is None:
            del _local.config
        else:
            _local.config = previous
