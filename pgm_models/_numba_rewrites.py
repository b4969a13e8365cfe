"""Graph rewrites that shorten numba's compilation of the zoo's NUTS functions (issue 12).

numba compiles every node of a PyTensor function as a function of its own (type inference,
lowering, LLVM) and then the whole graph as one module: tens of seconds per model, about the
same for a small node as for a large one (more where its numba code formats error messages:
``Alloc``'s broadcasting assignment, ``Join``/``Reshape``'s shape checks). The rewrites
here remove nodes that the models' graphs carry only for their bookkeeping; each gives the same
values on the models' support, which is all that nutpie evaluates (it samples the unconstrained
vector, which the transforms map into the support):

* ``drop_support_checks``: PyMC wraps a log density in parameter checks that turn it into -inf
  outside the support (``0 ≤ p ≤ 1, sum(p) = 1`` for a Multinomial's simplex, ``sigma > 0``);
  the free variables' transforms keep every such parameter inside, and the checks on the priors'
  constants fold away, so the checks only cost compilation (SPODE/vote: 18 of its 118 nodes of the
  log density and gradient, a tenth of numba's time). This is PyMC's own
  ``pm.Model(check_bounds=False)``, applied to the checks that would become -inf and not to those
  that raise.
* ``fold_constant_allocs``: an ``Alloc`` of a constant to a constant shape (the zeros the
  simplex transform's Jacobian joins to its log-sum-exp) becomes that constant, a contiguous
  array (PyTensor keeps such ``Alloc``s unfolded to save memory on big shapes; these are small).
* ``join_whole_rows``: in the "expand" function, which flattens and joins every named value,
  the stacked Dirichlet blocks' ``pm.Deterministic`` rows (θ_j = Θ_V[a:b] reshaped,
  ``_dirichlet_blocks``) are ``Θ_V[:b₁].ravel(), Θ_V[b₁:b₂].ravel(), ..., Θ_V[bₙ:].ravel()``: a run
  of consecutive rows of one array is that array's slice, raveled once (Θ_V is C-contiguous in
  its graph, so the values are in the same order), and a run over all its rows is Θ_V itself, with
  no row count in the graph: the expand functions of models whose groups differ only in their
  row counts are then one compiled function.
"""

from __future__ import annotations

import numpy as np


def numba_rewrites() -> list[tuple]:
    """(rewriter, position in PyTensor's rewrite sequence) pairs for ``Mode.register``: the checks
    go before "canonicalize" (position 1), which would turn them into switches to -inf; the
    others before elemwise fusion (49), on the specialised graph."""
    from pymc.logprob.utils import CheckParameterValue
    from pytensor.graph.rewriting.basic import GraphRewriter, in2out, node_rewriter

    @node_rewriter([CheckParameterValue])
    def drop_support_checks(fgraph, node):
        return [node.inputs[0]] if node.op.can_be_replaced_by_ninf else None

    class Rewrites(GraphRewriter):
        def apply(self, fgraph):
            fold_constant_allocs(fgraph)
            join_whole_rows(fgraph)

    return [(in2out(drop_support_checks), 0.5), (Rewrites(), 48.5)]


# folded Allocs up to this many elements: the constant is embedded in the machine code
_MAX_FOLDED = 10_000


def fold_constant_allocs(fgraph) -> None:
    """Replace each ``Alloc(constant, *constant shape)`` of at most ``_MAX_FOLDED`` elements
    that nothing overwrites in place by the constant array it computes."""
    from pytensor.graph.basic import Constant
    from pytensor.tensor.basic import Alloc, constant

    for node in list(fgraph.toposort()):
        if not (isinstance(node.op, Alloc) and all(isinstance(i, Constant) for i in node.inputs)):
            continue
        value, *shape = (np.asarray(i.data) for i in node.inputs)
        shape = tuple(int(s) for s in shape)
        if np.prod(shape) > _MAX_FOLDED or _destroyed(fgraph, node.outputs[0]):
            continue
        out = node.outputs[0]
        folded = constant(np.ascontiguousarray(np.broadcast_to(value, shape), dtype=out.dtype))
        fgraph.replace(out, folded, reason="fold_constant_allocs")


def _destroyed(fgraph, variable) -> bool:
    """Whether an in-place op of ``fgraph`` overwrites ``variable`` (a constant may not be)."""
    destroyers = getattr(fgraph, "destroyers", None)
    return bool(destroyers(variable)) if destroyers is not None else False


def join_whole_rows(fgraph) -> None:
    """In each ``Join`` along axis 0 of vectors, replace a run of ``X[r₀:r₁].ravel()``,
    ``X[r₁:r₂].ravel()``, ... (constant rows of one array X, a single row ``X[i]`` as ``X[i:i+1]``)
    by ``X[r₀:rₙ].ravel()``, by ``X.ravel()`` when the run goes from row 0 (or no start) to no stop."""
    from pytensor.graph.basic import Constant
    from pytensor.tensor.basic import Join

    for node in list(fgraph.toposort()):
        if not (isinstance(node.op, Join) and node.outputs[0].ndim == 1 and isinstance(node.inputs[0], Constant)
                and node in fgraph.apply_nodes):
            continue
        axis, *parts = node.inputs
        merged, run = [], None  # run: [X, start, stop]
        for part in parts:
            rows = _raveled_rows(part)
            if run is not None and rows is not None and rows[0] is run[0] and run[2] is not None and rows[1] == run[2]:
                run[2] = rows[2]
                continue
            if run is not None:
                merged.append(_rows(*run))
            run = list(rows) if rows is not None else None
            if run is None:
                merged.append(part)
        if run is not None:
            merged.append(_rows(*run))
        if len(merged) < len(parts):
            out = node.outputs[0]
            fgraph.replace(out, node.op(axis, *merged) if len(merged) > 1 else merged[0], reason="join_whole_rows")


def _raveled_rows(variable):
    """(X, start, stop) if ``variable`` is ``X[start:stop].ravel()`` (stop None: to the end) or
    ``X[i].ravel()`` (i, i + 1) with constant integers ≥ 0, ``X[...]`` itself where X is a matrix;
    else None."""
    from pytensor.graph.basic import Constant
    from pytensor.tensor.shape import Reshape
    from pytensor.tensor.subtensor import Subtensor, indices_from_subtensor

    node = variable.owner
    if node is not None and isinstance(node.op, Reshape) and node.outputs[0].ndim == 1:
        shape = node.inputs[1]
        if not (isinstance(shape, Constant) and np.array_equal(shape.data, [-1])):
            return None
        node = node.inputs[0].owner
    if node is None or not isinstance(node.op, Subtensor) or len(node.op.idx_list) != 1:
        return None
    (index,) = indices_from_subtensor(node.inputs[1:], node.op.idx_list)
    bounds = (index.start, index.stop, index.step) if isinstance(index, slice) else (index, None, None)
    if not all(bound is None or (isinstance(bound, Constant) and np.ndim(bound.data) == 0 and int(bound.data) >= 0)
               for bound in bounds) or bounds[2] is not None:
        return None
    start, stop = (None if bound is None else int(bound.data) for bound in bounds[:2])
    if not isinstance(index, slice):
        if start is None:
            return None
        stop = start + 1
    return node.inputs[0], start or 0, stop


def _rows(array, start: int, stop: int | None):
    """``array[start:stop].ravel()``, or ``array.ravel()`` when that is the whole array."""
    whole = start == 0 and (stop is None or array.type.shape[0] == stop)
    return (array if whole else array[start:stop]).ravel()
