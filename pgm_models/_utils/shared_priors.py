"""Fixed priors shared by every fit with the same layout, classes and hyperparameters.

The folds of a cross-validation fit one model again and again on data with the same attribute
domains and classes: their Dirichlet priors, which depend only on those and on fixed
hyperparameters, are the same numbers each time. Building one — the concentration array and its
checks — is a noticeable share of a small fold (BENCHMARKS.md, "Against a warm Weka, per CV
fold"), so each is made once per key and shared, read-only. A key must name everything the
prior depends on (the model type, the layout, the number of classes, the hyperparameters as
plain numbers); a learned hyperparameter, made afresh from each fit's counts, is never shared.
"""

from __future__ import annotations

PRIORS: dict = {}
PRIORS_KEPT = 64  # entries before the cache starts afresh
# hyperparameter bytes in a key above which a prior is made afresh: such a fit (a per-feature alpha
# of a text model) is no small fold, and a kept entry would hold its arrays alive
KEY_BYTES_KEPT = 1 << 16


def shared_prior(key: tuple, make, owner):
    """The prior ``make()`` of ``key``, made at the first call with that key; its concentration is
    read-only (a shared prior must not be changed in place). ``make`` must not hold a view of a
    caller's array (one changed in place later would change the prior of every fit with the
    key's old values). Only the package's own classes share: a subclass of ``owner``'s class
    outside it may make its prior from parameters of its own, which the key does not name.
    """
    if not type(owner).__module__.startswith("pgm_models."):
        return make()
    prior = PRIORS.get(key)  # a key found was kept, so its size was checked then
    if prior is None:
        if sum(len(part) for part in key if isinstance(part, bytes)) > KEY_BYTES_KEPT:
            return make()
        prior = make()
        prior.concentration.flags.writeable = False
        if len(PRIORS) >= PRIORS_KEPT:
            PRIORS.clear()
        PRIORS[key] = prior
    return prior
