"""nutpie's Rust NUTS on a log density and gradient that PyTensor compiles with numba, cached on disk.

nutpie's own numba backend (``nutpie.compile_pymc_model(backend="numba")``) wraps PyTensor's numba
functions in ``numba.cfunc`` C callbacks (which nutpie's Rust code calls with no Python in between)
defined over closures and the model's data, which numba cannot cache: every process compiled them
again (BENCHMARKS.md, "Compiling the models for nutpie-numba"). Here the same C callbacks are written
as source registered with PyTensor's numba cache (``pytensor.link.numba.cache``), keyed by the
hash of the PyTensor function they call, so numba keeps them under ``pytensor.config.base_compiledir / "numba"`` beside the
functions themselves and a second process loads the whole model without compiling it.

The PyTensor functions are built as nutpie's numba backend builds them (``_functions``, after
nutpie's private ``_make_functions``; ``pyproject.toml`` pins nutpie < 0.17): the log density and
its gradient, and the "expand" function that maps the unconstrained point to the model's named
values (free variables in their constrained space and Deterministics), joined in one vector.

They are compiled from a copy of the model whose data are shared variables (``_data_as_shared``),
so the data are arguments of the compiled functions, not constants folded into them, and so are the
sizes: the functions take each free variable's unconstrained value rather than nutpie's flat
vector, with types of no fixed size, and the C callbacks cut the flat vector into them and read the
data's addresses and shapes from nutpie's ``user_data`` pointer (as nutpie's numba backend does for
shared data, there through closures numba cannot cache). One cached compilation serves every data
set of the model's structure, whatever its sizes.

A model made of Dirichlet groups alone (``pgm_models.conjugate.blocks.counts_groups``: the counts
form of CategoricalNB, SPODE and TAN) has a log density that is a sum over its groups of the same
terms (a Dirichlet prior, the simplex transform's Jacobian, a Multinomial of counts), so it is
compiled as a function of one group's arrays of no fixed sizes (``_group_functions``: its terms and
their gradient; its probabilities, under PyMC's simplex transform or the posterior frame's sticks that
``sample_posterior`` samples in) that C callbacks of one source per transform for all such models call once per
group; the expand callback gathers the named values (the groups' probabilities and the blocks'
Deterministics, rows of them) from the groups' probabilities by an index (``_groups_layout``).
numba compiles those functions and callbacks once per machine: a second nominal model, of any
groups, compiles nothing.

numba embeds a constant array in the machine code only if it is contiguous; a broadcast view (the
priors' ``np.broadcast_to``/``np.broadcast_arrays`` parameters, zero strides) becomes a pointer
into this process's memory, and numba then refuses to cache the whole function (PyTensor silences
its warning): GaussianNB and QDA compiled again in every process. The priors are data, passed
as contiguous copies, since ``_data_as_shared``; constants that remain (the model's structure, what
PyTensor's rewrites build) are made contiguous copies as the last graph rewrite.
"""

from __future__ import annotations

import contextlib
import functools
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from hashlib import sha256

import numpy as np
from nutpie import _lib
from nutpie.compile_pymc import CompiledPyMCModel, address_as_void_pointer

# nutpie's codes after the log density and gradient are written: 3 a gradient, 4 the density not finite
_LOGP_RETURN = """    if not np.all(np.isfinite(out)):
        return 3
    if not np.isfinite(logp[()]):
        return 4
    return 0
"""
# The C callbacks' bodies: nutpie's numba backend's (nutpie/compile_pymc.py), reading every size from
# ``user_data_`` (``meta``, see _user_data): the length of the flat vector, each free variable's
# slice of it and shape, and each data array's address and shape. The sources hold only ranks,
# dtypes and the number of arguments, so one source (and one cache entry) serves every model of the
# same structure, whatever its sizes.
_LOGP_SOURCE = (
    """
def nutpie_logp(dim, x_, out_, logp_, user_data_):
    meta = numba.carray(user_data_, ({n_meta},), np.int64)
    if dim != meta[0]:
        return -1
    x = numba.carray(x_, (dim,))
    out = numba.carray(out_, (dim,))
    logp = numba.carray(logp_, ())
{values}{data}    value, {gradients} = jit_fn({arguments})
    logp[()] = value
{store}"""
    + _LOGP_RETURN
)
_EXPAND_SOURCE = """
def nutpie_expand(dim, expanded, x_, out_, user_data_):
    meta = numba.carray(user_data_, ({n_meta},), np.int64)
    if dim != meta[0] or expanded != meta[1]:
        return -1
    x = numba.carray(x_, (dim,))
    out = numba.carray(out_, (expanded,))
{values}{data}    (values,) = jit_fn({arguments})
    out[...] = values
    return 0
"""
# The C callbacks of a Dirichlet-only counts model (``conjugate.blocks.counts_groups``): one source
# per transform of the groups (``_GROUP_EXTRA``), the same for every such model, so one compilation
# per machine. ``meta`` (``_groups_user_data``): [n_dim, n_expanded, len(meta), n_groups, n_source,
# address of the expand index], then per group [start in x, rows, V, addresses of α, N and n, and of
# the frame's centre and scale (the posterior frame's sticks)]. ``jit_fn`` is one of ``_group_functions``.
_GROUPS_LOGP_SOURCE = (
    """
def nutpie_logp(dim, x_, out_, logp_, user_data_):
    head = numba.carray(user_data_, (3,), np.int64)
    meta = numba.carray(user_data_, (head[2],), np.int64)
    if dim != meta[0]:
        return -1
    x = numba.carray(x_, (dim,))
    out = numba.carray(out_, (dim,))
    logp = numba.carray(logp_, ())
    total = 0.0
    for group in range(meta[3]):
        at = 6 + {stride} * group
        start, rows, values = meta[at], meta[at + 1], meta[at + 2]
        stop = start + rows * (values - 1)
        value, gradient = jit_fn(x[start:stop].reshape((rows, values - 1)),
                                 numba.carray(address_as_void_pointer(meta[at + 3]), (rows, values), np.float64),
                                 numba.carray(address_as_void_pointer(meta[at + 4]), (rows, values), np.int64),
                                 numba.carray(address_as_void_pointer(meta[at + 5]), (rows,), np.int64){extra})
        total += value[()]
        out[start:stop].reshape((rows, values - 1))[...] = gradient
    logp[()] = total
"""
    + _LOGP_RETURN
)
_GROUPS_EXPAND_SOURCE = """
def nutpie_expand(dim, expanded, x_, out_, user_data_):
    head = numba.carray(user_data_, (3,), np.int64)
    meta = numba.carray(user_data_, (head[2],), np.int64)
    if dim != meta[0] or expanded != meta[1]:
        return -1
    x = numba.carray(x_, (dim,))
    out = numba.carray(out_, (expanded,))
    source = np.empty(meta[4])
    source[:dim] = x
    filled = dim
    for group in range(meta[3]):
        at = 6 + {stride} * group
        start, rows, values = meta[at], meta[at + 1], meta[at + 2]
        (prob,) = jit_fn(x[start:start + rows * (values - 1)].reshape((rows, values - 1)){extra})
        source[filled:filled + rows * values].reshape((rows, values))[...] = prob
        filled += rows * values
    index = numba.carray(address_as_void_pointer(meta[5]), (expanded,), np.int64)
    for i in range(expanded):
        out[i] = source[index[i]]
    return 0
"""
# per transform: the group functions' arguments after the value, α, N and n (read from meta)
_GROUP_EXTRA = {
    "simplex": "",
    "sticks": "".join(
        f",\n{' ' * 33}numba.carray(address_as_void_pointer(meta[at + {i}]), (rows, values - 1), np.float64)"
        for i in (6, 7)
    ),
}
_GROUP_STRIDE = {"simplex": 6, "sticks": 8}


def _groups_source(template: str, kind: str, expand: bool = False) -> str:
    """A groups callback's source for groups of transform ``kind``: the expand function takes the
    frame's arrays only (not α, N, n).
    """
    extra = _GROUP_EXTRA[kind]
    if expand:
        extra = extra.replace(f"\n{' ' * 33}", " ")
    return template.replace("{stride}", str(_GROUP_STRIDE[kind])).replace("{extra}", extra)


_PROGRESS_TEMPLATE = "{{ total_finished_draws }} {{ total_draws }}"


# numba's optimisation level is one setting for the process: blocks that change it run one at a
# time, so that overlapping blocks (samplers in threads) cannot restore each other's level
_OPT_LOCK = threading.RLock()


@contextlib.contextmanager
def _numba_opt(level: int | None):
    """Numba's LLVM optimisation level for the compilations inside the block only."""
    if level is None:
        yield
        return
    import numba

    with _OPT_LOCK:
        saved = numba.config.OPT
        numba.config.OPT = level
        try:
            yield
        finally:
            numba.config.OPT = saved


def _contiguous_constants_mode():
    """PyTensor's NUMBA mode with a last rewrite that replaces every constant array that is
    neither C- nor F-contiguous by a contiguous copy (same type, same values).
    """
    from pytensor.compile.mode import get_mode
    from pytensor.graph.basic import Constant
    from pytensor.graph.rewriting.basic import GraphRewriter

    class ContiguousConstants(GraphRewriter):
        def apply(self, fgraph):
            for var in list(fgraph.variables):
                data = getattr(var, "data", None)
                if (
                    isinstance(var, Constant)
                    and isinstance(data, np.ndarray)
                    and not (data.flags.c_contiguous or data.flags.f_contiguous)
                ):
                    fgraph.replace(var, type(var)(var.type, np.ascontiguousarray(data)), reason="contiguous_constants")

    from pgm_models.inference._numba_rewrites import numba_rewrites

    return get_mode("NUMBA").register((ContiguousConstants(), 1000), *numba_rewrites())


def _jitable(function):
    """(PyTensor's compiled graph of ``function``, its key in PyTensor's numba cache or None where numba
    cannot cache it). The C callbacks call that graph itself, not the star-args wrapper that
    PyTensor's linker jits around it (numba would compile that wrapper too, for
    every function: BENCHMARKS.md, "Compiling the models for nutpie-numba").
    """
    from pytensor.link.numba.cache import CACHED_SRC_FUNCTIONS

    jit_fn = function.vm.jit_fn
    return jit_fn.py_func.__globals__["jitable_func"], CACHED_SRC_FUNCTIONS.get(jit_fn.py_func)


def _signatures() -> tuple:
    """Numba's signatures of nutpie's C callbacks: (log density + gradient, expand)."""
    from numba import types

    double = types.CPointer(types.double)
    return (
        types.int64(types.uint64, double, double, double, types.voidptr),
        types.int64(types.uint64, types.uint64, double, double, types.voidptr),
    )


def _cached_cfunc(source: str, name: str, signature, jitable):
    """``numba.cfunc`` of ``source`` calling ``jit_fn`` (``jitable``: it and its PyTensor key), cached
    under PyTensor's numba folder when ``jit_fn`` is itself cached there.
    """
    import numba
    from pytensor.link.numba.cache import compile_numba_function_src

    jit_fn, pytensor_key = jitable
    # __name__: numba's cache rebuilds a function's environment by importing its module
    environment = {
        "__name__": __name__,
        "numba": numba,
        "np": np,
        "jit_fn": jit_fn,
        "address_as_void_pointer": address_as_void_pointer,
    }
    # the source too: it holds the data's ranks and dtypes, which PyTensor's key of jit_fn may leave out
    key = None if pytensor_key is None else f"{name}_{sha256(source.encode()).hexdigest()}_{pytensor_key}"
    function = compile_numba_function_src(source, name, environment, cache_key=key)
    return numba.cfunc(signature, cache=key is not None)(function)


def _data_as_shared(model):
    """A copy of ``model`` (the same names, coords and dims) in which the constants that data set
    are shared variables of the same types holding the same values: every array but the random
    variables' sizes (observed values, prior parameters, counts), every argument of a distribution
    (a Multinomial's total, a Wishart's degrees of freedom) and every other floating-point number
    that is not a multiple of ½ (sums of log-gammas of empirical-Bayes priors).

    PyTensor's rewrites fold constants into the compiled graph (CategoricalNB's log-factorials of
    its counts became one number inside a fused loop), so numba's machine code and PyTensor's cache
    key held the data and every new data set compiled again. Shared variables stay inputs of the
    compiled function. What stays constant is the model's structure: the sizes, which the rewrites
    use, and numbers such as 0.5, 1 or 2 written in its formulas, on which they specialise (x ** 2
    becomes x * x). A data value among those only costs a compilation, never a wrong answer: PyTensor's
    cache key holds every constant.
    """
    import pytensor
    from pymc.distributions.distribution import SymbolicRandomVariable
    from pymc.model.fgraph import ModelObservedRV, fgraph_from_model, model_from_fgraph
    from pytensor.tensor import TensorConstant
    from pytensor.tensor.random.op import RandomVariable

    fgraph, _ = fgraph_from_model(model)
    sizes, arguments = set(), set()
    for node in fgraph.apply_nodes:
        if isinstance(node.op, RandomVariable | SymbolicRandomVariable):
            sizes.add(node.op.size_param(node))
            arguments.update(node.op.dist_params(node))
        elif isinstance(node.op, ModelObservedRV):
            arguments.add(node.inputs[1])

    def is_data(var) -> bool:
        if not isinstance(var, TensorConstant) or var in sizes:
            return False
        return (
            var.type.ndim > 0
            or var in arguments
            or (var.type.dtype.startswith("float") and not float(2 * var.data).is_integer())
        )

    fgraph.replace_all(
        [
            (var, pytensor.shared(np.array(var.data, order="C"), shape=var.type.shape))
            for var in fgraph.variables
            if is_data(var)
        ],
        import_missing=True,
        reason="data_as_shared",
    )
    return model_from_fgraph(fgraph, mutate_fgraph=True)


def _functions(model, mode, order: list[str]):
    """Nutpie's ``_make_functions`` (``join_expanded=True``), except that the log density + gradient
    and the expand function take each free variable's unconstrained value (not the flat vector) and
    the model's data (not shared variables) as arguments, of the values' own types: (logp function,
    expand function, their arguments (value variables, then data), the data's values, nutpie's
    shape_info (names, slices and shapes in the expanded vector: the free variables' values first,
    then the named values in the order of ``order``)). The flat vector's slices and the values'
    shapes are read by the C callbacks from ``user_data`` (``_user_data``).
    """
    import pytensor
    from nutpie.compile_pymc import _compute_shapes
    from pymc.pytensorf import compile as compile_pymc
    from pytensor.compile.sharedvalue import SharedVariable
    from pytensor.graph.traversal import graph_inputs

    shapes = _compute_shapes(model)
    value_vars = [model.rvs_to_values[rv] for rv in model.free_RVs]
    rewrites = ["canonicalize", "stabilize"] + ([] if model.check_bounds else ["local_remove_check_parameter"])
    logp = pytensor.graph.rewrite_graph(model.logp(), include=rewrites)
    gradients = pytensor.gradient.grad(logp, value_vars)
    names = [var.name for var in value_vars]
    # the named values in the order of ``order`` (the model's; its copy's may differ)
    remaining = sorted(
        (var for var in model.unobserved_value_vars if var.name not in names), key=lambda var: order.index(var.name)
    )
    expanded = pytensor.tensor.concatenate([var.ravel() for var in [*value_vars, *remaining]])
    data = [var for var in graph_inputs([logp, *gradients, expanded]) if isinstance(var, SharedVariable)]
    # of their own types: with unknown sizes PyTensor added broadcast checks whose form varied from
    # process to process (LDA, QDA), and with it the cache key (LDA compiled again in every process)
    arguments = [var.type(name=var.name) for var in [*value_vars, *data]]
    replace = dict(zip([*value_vars, *data], arguments))
    (logp, *gradients), expanded = (
        pytensor.clone_replace(outputs, replace=replace, rebuild_strict=False)
        for outputs in ([logp, *gradients], expanded)
    )
    with model:
        logp_fn = compile_pymc(arguments, [logp, *gradients], mode=mode, on_unused_input="ignore")
        expand_fn = compile_pymc(arguments, [expanded], mode=mode, on_unused_input="ignore")
    all_names = names + [var.name for var in remaining]
    all_shapes = [tuple(shapes[name]) for name in all_names]
    stops = np.cumsum([math.prod(shape) for shape in all_shapes]).tolist()
    all_slices = [slice(stop - math.prod(shape), stop) for stop, shape in zip(stops, all_shapes)]
    return (
        logp_fn,
        expand_fn,
        arguments,
        [np.array(var.get_value(borrow=True), order="C") for var in data],
        (all_names, all_slices, all_shapes),
    )


@functools.cache
def _group_functions(kind: str = "simplex"):
    """One group's terms of a Dirichlet-only counts model's log density, and its probabilities, as
    PyTensor NUMBA functions of arrays of no fixed sizes, the same for every group of every such
    model (one compilation per machine and transform ``kind``). Of the unconstrained value z
    (rows, V - 1), α (rows, V), N (rows, V), n (rows,):

        log p = Σ_r [log Dirichlet(Θ_r | α_r) + log |det ∂Θ_r/∂z_r| + log Multinomial(N_r | n_r, Θ_r)]
              = Σ_r [log Γ(Σ_v α_rv) - Σ_v log Γ(α_rv) + log Γ(n_r + 1) - Σ_v log Γ(N_rv + 1)
                     + Σ_v (α_rv + N_rv - 1) log Θ_rv + log |det ∂Θ_r/∂z_r|].

    "simplex": PyMC's simplex transform, Θ_r = softmax(z_r, -Σ_v z_rv), whose Jacobian is
    log V + Σ_v log Θ_rv (the additive log-ratio's, Π_v Θ_rv, after the linear map z ↦ z + Σ_v z_v
    of determinant V). "sticks": the posterior frame (``conjugate.blocks.posterior_frame``), two
    more arguments, its sticks' centre and scale (rows, V - 1), α and N in the frame's order of
    values, and Θ, log Θ and the Jacobian of ``conjugate.blocks.sticks_log_probabilities``. The
    first function gives (log p, ∂ log p / ∂z), the second Θ of z (in the frame's order). Written
    in this form rather than as PyMC's three terms, the log density has far fewer nodes for numba
    to compile.
    """
    import pytensor
    import pytensor.tensor as pt
    from pymc.pytensorf import compile as compile_pymc

    from pgm_models.conjugate.blocks import sticks_log_probabilities

    value, concentration = pt.matrix("value"), pt.matrix("concentration")
    counts, totals = pt.matrix("counts", dtype="int64"), pt.vector("totals", dtype="int64")
    frame = [pt.matrix("centre"), pt.matrix("scale")] if kind == "sticks" else []
    if kind == "sticks":
        log_prob, log_jacobian = sticks_log_probabilities(value, *frame)
    else:
        # PyMC's SimplexTransform.backward before its normalisation
        log_prob = pt.special.log_softmax(pt.concatenate([value, -value.sum(-1, keepdims=True)], axis=-1), axis=-1)
        log_jacobian = pt.log(concentration.shape[-1]) + log_prob.sum(-1)
    logp = (
        pt.gammaln(concentration.sum(-1))
        - pt.gammaln(concentration).sum(-1)
        + pt.gammaln(totals + 1)
        - pt.gammaln(counts + 1).sum(-1)
        + ((concentration + counts - 1) * log_prob).sum(-1)
        + log_jacobian
    ).sum()
    mode = _contiguous_constants_mode()
    return (
        compile_pymc(
            [value, concentration, counts, totals, *frame], [logp, pytensor.gradient.grad(logp, value)], mode=mode
        ),
        compile_pymc([value, *frame], [pt.exp(log_prob)], mode=mode),
    )


def _groups_layout(model, groups):
    """Nutpie's shape_info of a Dirichlet-only counts model (the groups' unconstrained values, then
    every other named value in the model's order) and the expand index: the named values as
    entries of the source vector [x, Θ_1.ravel(), Θ_2.ravel(), ...] that the expand callback fills
    (x: nutpie's flat vector, Θ_g: group g's constrained value); None unless every named value
    is such an index map (each entry one entry of the source, as the blocks' rows slices are).

    A named value is an index map when every operation between the groups and it selects or
    rearranges entries (``_picks_entries``); the index is then found by evaluating the named values
    with each Θ_g holding its entries' numbers k in the source (exact: no arithmetic touches them),
    and checked again with 2k + 1.
    """
    import pytensor

    names = [g.value for g in groups]
    remaining = [var.name for var in model.unobserved_value_vars if var.name not in names]
    outputs = [model[name] for name in remaining]
    if not _picks_entries([g.rv for g in groups], outputs):
        return None
    n_dim = sum(g.concentration.shape[0] * (g.concentration.shape[1] - 1) for g in groups)
    starts = np.cumsum([n_dim] + [g.concentration.size for g in groups]).tolist()
    # the source holds Θ_g's rows in the transform's order: value v of row r is entry inverse[r, v]
    numbers = [
        (start + g.concentration.shape[1] * np.arange(len(g.concentration))[:, None] + g.inverse).astype(float)
        for start, g in zip(starts, groups)
    ]
    found = [
        pytensor.function(
            [],
            pytensor.clone_replace(
                outputs, replace={g.rv: pytensor.tensor.constant(k * scale + shift) for g, k in zip(groups, numbers)}
            ),
            mode="FAST_COMPILE",
        )()
        for scale, shift in ((1, 0), (2, 1))
    ]
    if not all(
        np.array_equal(second, 2 * first + 1)
        and np.all((first >= 0) & (first < starts[-1]) & (first == np.round(first)))
        for first, second in zip(*found)
    ):
        return None
    shapes = [(g.concentration.shape[0], g.concentration.shape[1] - 1) for g in groups] + [
        np.shape(v) for v in found[0]
    ]
    stops = np.cumsum([math.prod(shape) for shape in shapes]).tolist()
    index = np.concatenate([np.arange(n_dim)] + [np.ravel(v) for v in found[0]]).astype(np.int64)
    return (
        (names + remaining, [slice(stop - math.prod(shape), stop) for stop, shape in zip(stops, shapes)], shapes),
        index,
        starts[-1],
    )


def _picks_entries(inputs: list, outputs: list) -> bool:
    """Whether every operation on a path from ``inputs`` to ``outputs`` only selects or rearranges
    entries (indexing, reshapes, transposes, joins), so that each output entry is one input entry:
    a rounding or an affine map of an entry can map the numbers an index is read from onto
    numbers again, so the structure is checked, not values.
    """
    from pytensor.compile.ops import DeepCopyOp, ViewOp
    from pytensor.graph.traversal import graph_inputs, io_toposort
    from pytensor.tensor.basic import Join
    from pytensor.tensor.elemwise import DimShuffle
    from pytensor.tensor.shape import Reshape, SpecifyShape
    from pytensor.tensor.subtensor import AdvancedSubtensor, AdvancedSubtensor1, Subtensor

    picks = (
        Subtensor,
        AdvancedSubtensor,
        AdvancedSubtensor1,
        Reshape,
        DimShuffle,
        Join,
        SpecifyShape,
        DeepCopyOp,
        ViewOp,
    )
    dependent = set(inputs)
    for node in io_toposort(list(graph_inputs(outputs)), outputs):
        if any(var in dependent for var in node.inputs):
            if not isinstance(node.op, picks):
                return False
            dependent.update(node.outputs)
    return True


def _groups_user_data(groups, n_dim: int, index: np.ndarray, n_source: int) -> np.ndarray:
    """``meta`` of the groups' C callbacks (_GROUPS_LOGP_SOURCE)."""
    stride = _GROUP_STRIDE[groups[0].kind]
    entries = [n_dim, len(index), 6 + stride * len(groups), len(groups), n_source, index.ctypes.data]
    start = 0
    for g in groups:
        rows, values = g.concentration.shape
        entries += [start, rows, values, g.concentration.ctypes.data, g.counts.ctypes.data, g.totals.ctypes.data]
        entries += [] if g.centre is None else [g.centre.ctypes.data, g.scale.ctypes.data]
        start += rows * (values - 1)
    return np.array(entries, dtype=np.int64)


def _user_data(n_dim: int, n_expanded: int, slices: list[slice], shapes: list[tuple], arrays: list[np.ndarray]):
    """What nutpie hands the C callbacks as ``user_data_``: one int64 vector of the flat vector's
    length, the expanded vector's, each free variable's start, stop and shape in the flat vector,
    and each data array's address and shape; and where each variable's and array's entry starts.
    """
    entries = [[n_dim, n_expanded]] + [[s.start, s.stop, *shape] for s, shape in zip(slices, shapes)]
    entries += [[array.ctypes.data, *array.shape] for array in arrays]
    starts = np.cumsum([0] + [len(entry) for entry in entries]).tolist()
    return np.array([number for entry in entries for number in entry], dtype=np.int64), starts[1:-1]


def _callback_source(
    template: str, arguments: list, arrays: list[np.ndarray], starts: list[int], n_meta: int, n_gradients: int = 0
) -> str:
    """``template`` with the lines that read the function's arguments from ``user_data_`` (``meta``):
    each free variable's value as its slice of ``x`` (and its gradient as that of ``out``) in its
    shape, each data array at its address as an array of its dtype and rank.
    """
    n_values = len(arguments) - len(arrays)
    values, data, store = [], [], []
    for i, (var, start) in enumerate(zip(arguments[:n_values], starts)):
        shape = "".join(f"meta[{start + 2 + axis}], " for axis in range(var.type.ndim))
        values.append(f"    v{i} = x[meta[{start}]:meta[{start + 1}]].reshape(({shape}))\n")
        store.append(f"    out[meta[{start}]:meta[{start + 1}]].reshape(({shape}))[...] = g{i}\n")
    for i, (array, start) in enumerate(zip(arrays, starts[n_values:])):
        shape = "".join(f"meta[{start + 1 + axis}], " for axis in range(array.ndim))
        dtype = "bool_" if array.dtype == bool else array.dtype.name
        data.append(f"    d{i} = numba.carray(address_as_void_pointer(meta[{start}]), ({shape}), np.{dtype})\n")
    return template.format(
        n_meta=n_meta,
        values="".join(values),
        data="".join(data),
        store="".join(store[:n_gradients]),
        gradients="".join(f"g{i}, " for i in range(n_gradients)),
        arguments=", ".join([f"v{i}" for i in range(n_values)] + [f"d{i}" for i in range(len(arrays))]),
    )


def compile_model(model, *, progress=None, numba_opt: int | None = None):
    """A nutpie model (``nutpie.compile_pymc.CompiledPyMCModel``) whose C callbacks are the
    PyTensor NUMBA-mode log density, gradient and expand function of ``model``, compiled or loaded
    from PyTensor's cache under numba's optimisation level ``numba_opt`` (default: numba's). The
    model's data (observed values, array-valued prior parameters, ``pm.Data``) are arguments of the
    compiled functions, not part of them, and so are the sizes of the free variables and the data:
    a model of the same structure on other data, of any sizes, loads the same compiled code
    (where its sizes are not constants of its graph: a random variable's size stays one). A
    Dirichlet-only counts model (``conjugate.blocks.counts_groups``: CategoricalNB, SPODE, TAN)
    is compiled as functions of one group's arrays (``_group_functions``) called per group, the
    same for all of them. ``progress(done, total)`` is told nutpie's count of
    draws done over all chains (tuning included) every 0.1 s while it samples.
    """
    from nutpie.compile_pymc import _prepare_dims_and_coords, _rv_dict_to_flat_array_wrapper, _wrap_with_lock
    from pymc.initial_point import make_initial_point_fn

    from pgm_models.conjugate.blocks import counts_groups

    # what nutpie.compile_pymc_model starts from: PyMC's support points, jittered
    initial_point_fn = _wrap_with_lock(
        make_initial_point_fn(model=model, jitter_rvs=set(model.free_RVs), return_transformed=True)
    )
    logp_signature, expand_signature = _signatures()
    with _numba_opt(numba_opt):
        groups = counts_groups(model)
        # one transform for all the groups: the callbacks' source is the transform's
        if groups is not None and len({g.kind for g in groups}) != 1:
            groups = None
        layout = None if groups is None else _groups_layout(model, groups)
        if layout is not None:
            shape_info, index, n_source = layout
            kind = groups[0].kind
            n_dim = sum(g.concentration.shape[0] * (g.concentration.shape[1] - 1) for g in groups)
            user_data = _groups_user_data(groups, n_dim, index, n_source)
            logp_pt, expand_pt = _group_functions(kind)
            logp_c = _cached_cfunc(
                _groups_source(_GROUPS_LOGP_SOURCE, kind), "nutpie_logp", logp_signature, _jitable(logp_pt)
            )
            expand_c = _cached_cfunc(
                _groups_source(_GROUPS_EXPAND_SOURCE, kind, expand=True),
                "nutpie_expand",
                expand_signature,
                _jitable(expand_pt),
            )
            data = (
                index,
                *(
                    array
                    for g in groups
                    for array in (g.concentration, g.counts, g.totals, g.centre, g.scale)
                    if array is not None
                ),
            )
        else:
            logp_pt, expand_pt, arguments, arrays, shape_info = _functions(
                _data_as_shared(model), _contiguous_constants_mode(), [var.name for var in model.unobserved_value_vars]
            )
            n_values = len(arguments) - len(arrays)
            slices, shapes = shape_info[1:]
            n_dim = slices[n_values - 1].stop if n_values else 0
            user_data, starts = _user_data(
                n_dim, slices[-1].stop if slices else 0, slices[:n_values], shapes[:n_values], arrays
            )
            logp_c = _cached_cfunc(
                _callback_source(_LOGP_SOURCE, arguments, arrays, starts, len(user_data), n_gradients=n_values),
                "nutpie_logp",
                logp_signature,
                _jitable(logp_pt),
            )
            expand_c = _cached_cfunc(
                _callback_source(_EXPAND_SOURCE, arguments, arrays, starts, len(user_data)),
                "nutpie_expand",
                expand_signature,
                _jitable(expand_pt),
            )
            data = tuple(arrays)
    names, slices, shapes = shape_info
    n_values = len(model.free_RVs)
    flat_initial_point = _rv_dict_to_flat_array_wrapper(
        initial_point_fn, names=names[:n_values], shapes=shapes[:n_values]
    )
    dims, coords = _prepare_dims_and_coords(model, shape_info)
    return _CompiledModel(
        _n_dim=n_dim,
        dims=dims,
        _coords=coords,
        _shapes={name: tuple(shape) for name, _, shape in zip(*shape_info)},
        compiled_logp_func=logp_c,
        compiled_expand_func=expand_c,
        initial_point_func=flat_initial_point,
        shared_data={},
        user_data=user_data,
        n_expanded=slices[-1].stop if slices else 0,
        shape_info=shape_info,
        logp_func=logp_pt,
        expand_func=expand_pt,
        progress=progress,
        data=data,
    )


def _nutpie_settings(low_rank: bool) -> list[str]:
    """The keyword arguments ``nutpie.sample`` takes besides the model: its own parameters and
    the settings of the mass matrix's kind, which it sets from its ``**kwargs``.
    """
    import inspect

    import nutpie

    own = [name for name, p in inspect.signature(nutpie.sample).parameters.items() if p.kind is not p.VAR_KEYWORD]
    settings = _lib.PyNutsSettings.LowRank() if low_rank else _lib.PyNutsSettings.Diag()
    return own + [name for name in dir(settings) if not name.startswith("_")]


@dataclass(frozen=True)
class _CompiledModel(CompiledPyMCModel):
    """nutpie's numba model, reporting progress to a callable instead of a progress bar."""

    progress: Callable[[int, int], None] | None = None
    # the arrays whose addresses user_data holds: alive as long as the model
    data: tuple[np.ndarray, ...] = ()

    def _make_sampler(self, settings, init_mean, cores, progress_type, store):
        if self.progress is not None:

            def report(formatted):
                self.progress(*map(int, formatted.split()))

            progress_type = _lib.ProgressType.template_callback(100, _PROGRESS_TEMPLATE, cores, report)
        return super()._make_sampler(settings, init_mean, cores, progress_type, store)


def sample(
    model,
    *,
    draws: int,
    tune: int,
    chains: int,
    cores: int | None,
    random_seed,
    progress=None,
    numba_opt: int | None = 1,
    **nutpie_kwargs,
):
    """NUTS draws of ``model`` by nutpie on the cached numba functions, as InferenceData with
    the model's names, coords and dims, its constant and observed data, and
    ``posterior.attrs["sampling_time"]`` (seconds of nutpie's sampling alone).
    """
    import nutpie
    import pymc as pm
    from pymc.backends.arviz import (
        coords_and_dims_for_inferencedata,
        dict_to_dataset,
        find_constants,
        find_observations,
    )

    # nutpie's mass matrix adapted as a diagonal plus a low-rank part from the draws' and gradients'
    # leading directions unless the caller asks for the diagonal alone (the model classes that
    # need no more do: ``BayesianClassifier._nutpie_low_rank``): on SPODE/vote the diagonal alone
    # left a low min bulk ESS, on LogisticRegression/iris a high R-hat (the class vectors' common
    # shift) (BENCHMARKS.md, "Mass matrices and
    # tuning steps")
    if tune < 1:  # nutpie 0.16 panics ("Poisond sampler state mutex") on a run without tuning
        raise ValueError(f"sampler='nutpie-numba' needs tune ≥ 1, got tune={tune}")
    if chains < 1 or draws < 1:
        raise ValueError(f"sampler='nutpie-numba' needs chains ≥ 1 and draws ≥ 1, got chains={chains}, draws={draws}")
    nutpie_kwargs.setdefault("low_rank_modified_mass_matrix", True)
    unknown = set(nutpie_kwargs) - set(_nutpie_settings(bool(nutpie_kwargs["low_rank_modified_mass_matrix"])))
    if unknown:
        raise TypeError(f"sampler='nutpie-numba': nutpie.sample has no setting {', '.join(map(repr, sorted(unknown)))}")
    compiled = compile_model(model, progress=progress, numba_opt=numba_opt)
    seed = None if random_seed is None else int(np.random.default_rng(random_seed).integers(2**31))
    # sampling_time as PyMC's: the chains' start and run, not the trace's conversion to InferenceData;
    # nutpie's blocking wait() does both, so its background sampler's inner wait is timed alone.
    # The tuning draws are not converted (save_warmup=False): pm.sample drops them too
    nutpie_kwargs.setdefault("save_warmup", False)
    start = time.perf_counter()
    background = nutpie.sample(
        compiled,
        draws=draws,
        tune=tune,
        chains=chains,
        seed=seed,
        progress_bar=False,
        blocking=False,
        **({"cores": cores} if cores is not None else {}),
        **nutpie_kwargs,
    )
    try:
        background._sampler.wait(None)
    except BaseException:
        background.cancel()
        raise
    sampling_time = time.perf_counter() - start
    idata = background.wait()
    idata.posterior.attrs["sampling_time"] = sampling_time
    if progress is not None:  # nutpie's last report may predate the last draw
        progress(chains * (tune + draws), chains * (tune + draws))
    idata.posterior.attrs["tuning_steps"] = tune
    # what pm.sample(nuts_sampler="nutpie") adds: nutpie has no access to the model's data
    coords, dims = coords_and_dims_for_inferencedata(model)
    idata.add_groups(
        {
            group: dict_to_dataset(find(model), library=pm, coords=coords, dims=dims, default_dims=[])
            for group, find in (("constant_data", find_constants), ("observed_data", find_observations))
        }
    )
    return idata
