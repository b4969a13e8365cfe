"""scikit-learn's parameter names of an estimator class, read once per class.

``BaseEstimator.get_params`` — which ``clone``, every Pipeline step and every grid-search
candidate call — finds the names by ``inspect.signature`` of ``__init__`` on each call, a
noticeable share of a small fold's Pipeline (BENCHMARKS.md, "Against a warm Weka, per CV fold").
A class's ``__init__`` does not change (a replaced one is read again), so its names are found once.
"""

from __future__ import annotations

import functools

from sklearn.base import BaseEstimator


class ParamNamesOnce:
    """Mixin (before ``BaseEstimator``): ``_get_param_names`` found once per class."""

    @classmethod
    def _get_param_names(cls):
        return list(_param_names(cls, cls.__init__))  # the caller's own list, as scikit-learn's


@functools.cache
def _param_names(cls, init) -> tuple:
    """The names of ``cls``'s ``__init__`` parameters; keyed by ``init`` too, so that an
    ``__init__`` replaced after a first call is read again.
    """
    return tuple(BaseEstimator._get_param_names.__func__(cls))
