"""Graph rewrites that shorten numba's compilation of the zoo's NUTS functions (issue 12).

numba compiles every node of a PyTensor function as a function of its own (type inference,
lowering, LLVM) and then the whole graph as one module (BENCHMARKS.md, "Compiling the
models for nutpie-numba"), a small node taking about as long as a large one (more where its numba
code formats error messages: ``Alloc``'s broadcasting assignment, ``Join``/``Reshape``'s shape
checks). The rewrites here remove nodes that the models' graphs carry only for their bookkeeping;
each gives the same values on the models' support, which is all that nutpie evaluates (it samples the unconstrained
vector, which the transforms map into the support):

* ``drop_support_checks``: PyMC wraps a log density in parameter checks that turn it into -inf
  outside the support (``0 ≤ p ≤ 1, sum(p) = 1`` for a Multinomial's simplex, ``sigma > 0``);
  the free variables' transforms keep every such parameter inside, and the checks on the priors'
  constants fold away, so the checks only cost compilation (BENCHMARKS.md, "Compiling the
  models for nutpie-numba"). This is PyMC's own ``pm.Model(check_bounds=False)``, applied to the checks
  that would become -inf and not to those that raise.
* ``fold_constant_allocs``: an ``Alloc`` of a constant to a constant shape (the zeros the
  simplex transform's Jacobian joins to its log-sum-exp) becomes that constant, a contiguous
  array (PyTensor keeps such ``Alloc``s unfolded to save memory on big shapes; these are small).
"""

from __future__ import annotations

import numpy as np


def numba_rewrites() -> list[tuple]:
    """(rewriter, position in PyTensor's rewrite sequence) pairs for ``Mode.register``: the checks
    go before "canonicalize" (position 1), which would turn them into switches to -inf; the
    Allocs before elemwise fusion (49), on the specialised graph.
    """
    from pymc.logprob.utils import CheckParameterValue
    from pytensor.graph.rewriting.basic import GraphRewriter, in2out, node_rewriter

    @node_rewriter([CheckParameterValue])
    def drop_support_checks(fgraph, node):
        return [node.inputs[0]] if node.op.can_be_replaced_by_ninf else None

    class FoldConstantAllocs(GraphRewriter):
        def apply(self, fgraph):
            fold_constant_allocs(fgraph)

    return [(in2out(drop_support_checks), 0.5), (FoldConstantAllocs(), 48.5)]


# folded Allocs up to this many elements: the constant is embedded in the machine code
_MAX_FOLDED = 10_000


def fold_constant_allocs(fgraph) -> None:
    """Replace each ``Alloc(constant, *constant shape)`` of at most ``_MAX_FOLDED`` elements
    that nothing overwrites in place by the constant array it computes.
    """
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
