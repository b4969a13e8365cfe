"""Fixed priors shared by every fit with the same layout, classes and hyperparameters.

The folds of a cross-validation fit one model again and again on data with the same attribute
domains and classes: their Dirichlet priors, which depend only on those and on fixed
hyperparameters, are the same numbers each time. Building one — the concentration array and its
checks — cost several µs per prior, a tenth of a small fold, so each is made once per key and
shared, read-only. A key must name everything the prior depends on (the model type, the layout,
the number of classes, the hyperparameters as plain numbers); a learned hyperparameter, made
afresh from each fit's counts, is never shared.
"""

from __future__ import annotations

PRIORS: dict = {}
PRIORS_KEPT = 64  # entries before the cache starts afresh


def shared_prior(key: tuple, make):
    """The prior ``make()`` of ``key``, made at the first call with that key; its concentration is
    read-only (a shared prior must not be changed in place)."""
    prior = PRIORS.get(key)
    if prior is None:
        prior = make()
        prior.concentration.flags.writeable = False
        if len(PRIORS) >= PRIORS_KEPT:
            PRIORS.clear()
        PRIORS[key] = prior
    return prior
