"""Which NUTS implementation samples a PyMC model: PyMC's own, or one of the external samplers
PyMC drives through ``pm.sample(nuts_sampler=...)``.

    "nutpie-numba"  the default: nutpie's Rust NUTS (chains in threads) calling the log density
                and gradient that PyTensor compiles with numba and caches on disk
                (``pgm_models.inference._nutpie_numba``), the model's data passed as arguments: the first
                run of a model structure compiles (BENCHMARKS.md, "Compiling the
                models for nutpie-numba"), later runs in any process, on any data of the same shapes,
                load it without compiling
    "pymc"      PyMC's NUTS on PyTensor's C backend, chains in parallel processes
    "nutpie"    nutpie (Rust NUTS, chains in threads; the log density and its gradient compiled by
                JAX: PyTensor's numba backend, nutpie's default, compiles again in every process)
    "numpyro"   NumPyro's NUTS on the model's JAX graph, chains vectorised
    "blackjax"  BlackJAX's NUTS on the model's JAX graph, chains vectorised

All five return ``arviz.InferenceData`` with the model's variable names, coords and dims (each once:
not the stacked Dirichlet groups of ``pgm_models.conjugate.blocks``, whose blocks are there by their
own names) and ``sample_stats.diverging`` (what :func:`pgm_models.inference.verify.check_posterior` reads). "nutpie-numba"
and "pymc" are always installed; the others are optional (``pip install -e ".[samplers]"``:
numpyro, blackjax < 1.3 and jax, which the "nutpie" backend needs too). BENCHMARKS.md measures
each on every model of the zoo: compile seconds, sampling seconds and min bulk ESS per second.

``progress(done, total)`` is told the iterations done (tuning included, over all chains) as
they happen where the backend reports them (PyMC's sampler after every iteration, "nutpie-numba"
at most every 0.1 s); the JAX samplers run the whole chain in one compiled call and report only
its end.
"""

from __future__ import annotations

import importlib.util
import os

SAMPLERS = ("pymc", "nutpie-numba", "nutpie", "numpyro", "blackjax")
# nutpie on cached numba code: more min bulk ESS per second than PyMC's NUTS on every zoo model, and
# faster per sample_posterior call on new data of a known structure (BENCHMARKS.md, "NUTS
# backends")
DEFAULT_SAMPLER = "nutpie-numba"
# tuning steps per chain where a backend's default is not pm.sample's 1000: nutpie's own default, 300.
# nutpie adapts its step size and mass matrix from the draws' and gradients' spread and settles in
# fewer steps than PyMC: with 300 (and with 200) every zoo model of vote and iris passed
# check_posterior over 6 seeds each, with min bulk ESS and max R-hat as after 1000 (BENCHMARKS.md, "Mass
# matrices and tuning steps"); 300 rather than the 200 measured fastest keeps nutpie's
# margin for models and data sets not measured here
DEFAULT_TUNE = {"nutpie-numba": 300}
_PACKAGES = {
    "pymc": ("pymc",),
    "nutpie-numba": ("nutpie",),
    "nutpie": ("nutpie", "jax"),
    "numpyro": ("numpyro", "jax"),
    "blackjax": ("blackjax", "jax"),
}


class SamplerNotInstalled(ImportError, ValueError):
    """A known NUTS backend whose package is missing (a ValueError too, so that the command
    line reports it in one line like any bad argument).
    """


def check_sampler_name(sampler: str) -> str:
    """``sampler`` if it is a known and installed NUTS backend; a ValueError naming the valid
    ones, or :class:`SamplerNotInstalled` saying what to install.
    """
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler={sampler!r} is not one of {', '.join(map(repr, SAMPLERS))}")
    missing = _missing_packages(sampler)
    if missing:
        raise SamplerNotInstalled(
            f"sampler={sampler!r} needs the {' and '.join(map(repr, missing))} package(s), which are not "
            f"installed (pip install {' '.join(missing)})"
        )
    return sampler


def _missing_packages(sampler: str) -> list[str]:
    return [package for package in _PACKAGES[sampler] if importlib.util.find_spec(package) is None]


def available_samplers() -> list[str]:
    """The NUTS backends that can run here: those whose package is installed.

    The backends are "pymc" (PyMC's own NUTS), "nutpie-numba" (the default: nutpie on
    numba-compiled code), "nutpie", "numpyro" and "blackjax"; ``sample_posterior(sampler=...)``
    takes any of them.

    Returns
    -------
    list of str
        The installed backends, in the order above.

    See Also
    --------
    pgm_models.CategoricalNB.sample_posterior : Runs one (every estimator with a PyMC model has it).

    Examples
    --------
    >>> from pgm_models import available_samplers
    >>> "pymc" in available_samplers()
    True
    """
    return [s for s in SAMPLERS if not _missing_packages(s)]


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def _default_cores(chains: int | None) -> int:
    """Chain processes for PyMC: one per usable CPU up to ``chains``, and 1 inside a daemonic
    process (a multiprocessing pool's worker), which may not start processes of its own.
    """
    import multiprocessing

    if multiprocessing.current_process().daemon:
        return 1
    return usable_cores() if chains is None else min(chains, usable_cores())


def sample(
    model,
    *,
    sampler: str = DEFAULT_SAMPLER,
    draws: int = 1000,
    tune: int | None = None,
    chains: int = 4,
    cores: int | None = None,
    random_seed=None,
    progress=None,
    auxiliary=None,
    **pm_sample_kwargs,
):
    """NUTS draws of ``model`` (a ``pm.Model``) with the chosen backend, as InferenceData.

    ``tune`` defaults to the backend's :data:`DEFAULT_TUNE` (1000, ``pm.sample``'s, but for "nutpie-numba").
    ``cores`` caps the chains run at once (default: as many as this process may use, up to
    ``chains``, one inside a daemonic process; PyMC's own default assumes half the CPUs are
    hyper-threads and ran the four chains one after another on a 2-core machine); the JAX samplers vectorise the chains in one process
    instead. ``auxiliary`` removes the model's auxiliary variables from a draws' Dataset (the
    estimator's ``_without_auxiliary_draws``; default: the stacked Dirichlet groups).
    """
    import pymc as pm

    check_sampler_name(sampler)
    if tune is None:
        tune = DEFAULT_TUNE.get(sampler, 1000)
    pm_sample_kwargs.setdefault("progressbar", False)
    if sampler == "pymc":
        if progress is not None:
            total, done = chains * (tune + draws), [0]

            def callback(trace, draw):
                done[0] += 1
                progress(done[0], total)

            pm_sample_kwargs["callback"] = callback
        pm_sample_kwargs["cores"] = _default_cores(chains) if cores is None else cores
    elif sampler == "nutpie-numba":
        from pgm_models.inference import _nutpie_numba

        nutpie_kwargs = dict(pm_sample_kwargs.pop("nuts_sampler_kwargs", {}))
        if "target_accept" in pm_sample_kwargs:
            if "target_accept" in nutpie_kwargs:
                raise TypeError("target_accept given twice: as an argument and in nuts_sampler_kwargs")
            nutpie_kwargs["target_accept"] = pm_sample_kwargs.pop("target_accept")
        # nutpie computes no convergence checks and shows no bar of its own (``progress`` gets its counts)
        unused = set(pm_sample_kwargs) - {"progressbar", "compute_convergence_checks"}
        if unused:
            raise TypeError(
                f"sampler='nutpie-numba' does not take pm.sample's {', '.join(sorted(unused))} "
                "(nutpie's own settings go in nuts_sampler_kwargs)"
            )
        if chains is None:  # pm.sample's meaning: as many as the cores, at least 2
            chains = max(2, usable_cores() if cores is None else cores)
        return _model_variables_only(
            _nutpie_numba.sample(
                model,
                draws=draws,
                tune=tune,
                chains=chains,
                cores=cores,
                random_seed=random_seed,
                progress=progress,
                **nutpie_kwargs,
            ),
            keep_tuning=False,
            auxiliary=auxiliary,
        )
    else:
        if sampler == "nutpie":
            defaults = {"backend": "jax", "gradient_backend": "jax", **({"cores": cores} if cores is not None else {})}
        else:  # "parallel" chains need one XLA device per chain; a CPU is one device unless configured
            defaults = {"chain_method": "vectorized"}
        pm_sample_kwargs["nuts_sampler"] = sampler
        pm_sample_kwargs["nuts_sampler_kwargs"] = {**defaults, **pm_sample_kwargs.get("nuts_sampler_kwargs", {})}
    idata = pm.sample(draws=draws, tune=tune, chains=chains, random_seed=random_seed, model=model, **pm_sample_kwargs)
    if progress is not None and sampler != "pymc":  # PyMC's callback has reported the last iteration
        progress(chains * (tune + draws), chains * (tune + draws))
    # PyMC's own sampler returns tuning draws only when asked (discard_tuned_samples=False)
    return _model_variables_only(idata, keep_tuning=sampler == "pymc", auxiliary=auxiliary)


def _model_variables_only(idata, keep_tuning: bool, auxiliary=None):
    """``idata`` with the model's named variables, each once: not their unconstrained "…__" forms
    (nutpie keeps them; ``check_sampler`` would judge them too), nor the stacked Dirichlet groups
    (``pgm_models.conjugate.blocks``: their blocks are there by name, and ``az.summary`` would
    list every probability twice), nor what ``auxiliary`` removes (an estimator's own auxiliary
    variables); the tuning draws only if ``keep_tuning`` (as PyMC's own NUTS, when asked to).
    """
    from pgm_models.conjugate.blocks import without_groups

    auxiliary = auxiliary or without_groups

    for group in ("warmup_posterior", "warmup_sample_stats"):
        if group in idata.groups() and not keep_tuning:
            del idata[group]
    for group in ("posterior", "warmup_posterior"):
        if group in idata.groups():
            draws = auxiliary(idata[group])
            setattr(idata, group, draws.drop_vars([name for name in draws.data_vars if name.endswith("__")]))
    return idata
