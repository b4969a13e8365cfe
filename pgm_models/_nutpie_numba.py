"""nutpie's Rust NUTS on a log density and gradient that PyTensor compiles with numba and caches on disk.

nutpie's own numba backend (``nutpie.compile_pymc_model(backend="numba")``) wraps PyTensor's numba
function in a ``numba.cfunc`` over the model's data, which numba compiles again, and LLVM optimises
again, in every process: tens of seconds per model on every run. Here nutpie calls the function
through Python instead (``nutpie.compiled_pyfunc.from_pyfunc``, one call per gradient, ~25 µs on
the zoo's models): PyTensor's numba linker keeps what it compiles under
``pytensor.config.base_compiledir / "numba"``, so a second process loads the model's machine code
in a fraction of a second.

The functions come from nutpie's ``_make_functions`` (private; ``pyproject.toml`` pins nutpie
< 0.17), which its JAX backend uses the same way: the log density and its gradient in the flat
unconstrained vector, and the "expand" function that maps that vector to the model's named values
(free variables in their constrained space and Deterministics).

numba embeds a constant array in the machine code only if it is contiguous; a broadcast view (the
priors' ``np.broadcast_to``/``np.broadcast_arrays`` parameters, zero strides) becomes a pointer
into this process's memory, and numba then refuses to cache the whole function (PyTensor silences
its warning): GaussianNB and QDA compiled 4–10 s again in every process. Those constants are made
contiguous copies as the last graph rewrite.
"""

from __future__ import annotations

import contextlib
import threading
import time

import numpy as np


@contextlib.contextmanager
def _numba_opt(level: int | None):
    """numba's LLVM optimisation level for the compilations inside the block only."""
    if level is None:
        yield
        return
    import numba

    saved = numba.config.OPT
    numba.config.OPT = level
    try:
        yield
    finally:
        numba.config.OPT = saved


def _contiguous_constants_mode():
    """PyTensor's NUMBA mode with a last rewrite that replaces every constant array that is
    neither C- nor F-contiguous by a contiguous copy (same type, same values)."""
    from pytensor.compile.mode import get_mode
    from pytensor.graph.basic import Constant
    from pytensor.graph.rewriting.basic import GraphRewriter

    class ContiguousConstants(GraphRewriter):
        def apply(self, fgraph):
            for var in list(fgraph.variables):
                data = getattr(var, "data", None)
                if (isinstance(var, Constant) and isinstance(data, np.ndarray)
                        and not (data.flags.c_contiguous or data.flags.f_contiguous)):
                    fgraph.replace(var, type(var)(var.type, np.ascontiguousarray(data)), reason="contiguous_constants")

    return get_mode("NUMBA").register((ContiguousConstants(), 1000))


def compile_model(model, *, progress=None, total_draws=None, numba_opt: int | None = None):
    """A nutpie model (``nutpie.compiled_pyfunc.PyFuncModel``) whose log density, gradient and
    expand function are PyTensor NUMBA-mode functions of ``model`` (a ``pm.Model``).

    nutpie stores one draw per expand call (tuning included), so ``progress(done, total_draws)``
    is told every expand call done, at most every 0.1 s and at the last one."""
    from nutpie.compile_pymc import _make_functions, _prepare_dims_and_coords, _wrap_with_lock
    from nutpie.compiled_pyfunc import from_pyfunc
    from pymc.initial_point import make_initial_point_fn

    # what nutpie.compile_pymc_model starts from: PyMC's support points, jittered
    initial_point_fn = _wrap_with_lock(make_initial_point_fn(model=model, jitter_rvs=set(model.free_RVs),
                                                             return_transformed=True))
    with _numba_opt(numba_opt):
        n_dim, _, logp_pt, expand_pt, flat_initial_point, shape_info = _make_functions(
            model, mode=_contiguous_constants_mode(), compute_grad=True, join_expanded=False, pymc_initial_point_fn=initial_point_fn)
        names, _, shapes = shape_info
        logp_jit, expand_jit = logp_pt.vm.jit_fn, expand_pt.vm.jit_fn
        # numba compiles (or loads from PyTensor's cache) at the first call, so here, under the
        # optimisation level asked for, not inside the sampler's threads
        start = flat_initial_point(0)
        logp_shared = tuple(var.get_value(borrow=True) for var in logp_pt.get_shared())
        expand_shared = tuple(var.get_value(borrow=True) for var in expand_pt.get_shared())
        logp_jit(start, *logp_shared)
        expand_jit(start, *expand_shared)

    def make_logp_fn():
        def logp(x):
            value, gradient = logp_jit(x, *logp_shared)
            return float(value), gradient

        return logp

    counter = _ProgressCounter(progress, total_draws)
    dtypes = [np.dtype("float64")] * len(names)

    def make_expand_fn(seed1, seed2, chain):
        def expand(x):
            values = expand_jit(x, *expand_shared)
            counter.tick()
            return {name: np.asarray(value, dtype="float64", order="C").reshape(shape)  # nutpie copies C order only
                    for name, value, shape in zip(names, values, shapes, strict=True)}

        return expand

    dims, coords = _prepare_dims_and_coords(model, shape_info)
    return from_pyfunc(ndim=n_dim, make_logp_fn=make_logp_fn, make_expand_fn=make_expand_fn,
                       make_initial_point_fn=flat_initial_point, expanded_dtypes=dtypes, expanded_shapes=shapes,
                       expanded_names=names, dims=dims, coords=coords)


class _ProgressCounter:
    """Counts draws over nutpie's chain threads and reports them at most every 0.1 s."""

    def __init__(self, progress, total):
        self.progress, self.total, self.done, self.reported = progress, total, 0, 0.0
        self.lock = threading.Lock()

    def tick(self):
        if self.progress is None:
            return
        with self.lock:
            self.done += 1
            now = time.monotonic()
            if self.done < self.total and now - self.reported < 0.1:
                return
            self.reported = now
            self.progress(min(self.done, self.total), self.total)


def sample(model, *, draws: int, tune: int, chains: int, cores: int | None, random_seed, progress=None,
           numba_opt: int | None = 1, **nutpie_kwargs):
    """NUTS draws of ``model`` by nutpie on the cached numba functions, as InferenceData with
    the model's names, coords and dims, its constant and observed data, and
    ``posterior.attrs["sampling_time"]`` (seconds of nutpie's sampling alone)."""
    import nutpie
    import pymc as pm
    from pymc.backends.arviz import coords_and_dims_for_inferencedata, dict_to_dataset, find_constants, find_observations

    # nutpie's mass matrix adapted as a diagonal plus a low-rank part from the draws' and gradients'
    # leading directions: on SPODE/vote the diagonal alone left a min bulk ESS of ~840 of 4000 draws,
    # on LogisticRegression/iris R-hat 1.013 (the class vectors' common shift); the low-rank
    # matrix gave 4394 and 5502 at 7 leapfrog steps per draw (BENCHMARKS.md)
    nutpie_kwargs.setdefault("low_rank_modified_mass_matrix", True)
    compiled = compile_model(model, progress=progress, total_draws=chains * (tune + draws), numba_opt=numba_opt)
    seed = None if random_seed is None else int(np.random.default_rng(random_seed).integers(2**31))
    start = time.perf_counter()
    idata = nutpie.sample(compiled, draws=draws, tune=tune, chains=chains, seed=seed, progress_bar=False,
                          **({"cores": cores} if cores is not None else {}), **nutpie_kwargs)
    idata.posterior.attrs["sampling_time"] = time.perf_counter() - start
    idata.posterior.attrs["tuning_steps"] = tune
    # what pm.sample(nuts_sampler="nutpie") adds: nutpie has no access to the model's data
    coords, dims = coords_and_dims_for_inferencedata(model)
    idata.add_groups({group: dict_to_dataset(find(model), library=pm, coords=coords, dims=dims, default_dims=[])
                      for group, find in (("constant_data", find_constants), ("observed_data", find_observations))})
    return idata
