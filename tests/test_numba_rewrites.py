"""The graph rewrites of the "nutpie-numba" backend's compile mode (pgm_models.inference._numba_rewrites):
fewer nodes for numba to compile, the same values. Checked on PyTensor's Python linker (no numba
or C compilation): the rewrites act on the graph, whatever compiles it."""

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
from pytensor.compile.mode import Mode
from pytensor.graph.fg import FunctionGraph
from pytensor.tensor.basic import Alloc

from pgm_models.inference._numba_rewrites import fold_constant_allocs, numba_rewrites


def _evaluate(fgraph, *values):
    return pytensor.function(fgraph.inputs, fgraph.outputs, mode=Mode(linker="py", optimizer=None))(*values)


def _ops(fgraph, kind):
    return [node for node in fgraph.apply_nodes if isinstance(node.op, kind)]


def test_fold_constant_allocs_folds_small_constant_broadcasts_only():
    x, n = pt.dmatrix("x"), pt.lscalar("n")
    small = pt.alloc(pt.constant(0.5), 3, 2)  # constant value and shape: folded
    sized = pt.alloc(pt.constant(1.0), n, 2)  # shape known only at run time: kept
    big = pt.alloc(pt.constant(2.0), 200, 100)  # more elements than the limit: kept
    fgraph = FunctionGraph([x, n], [x + small, sized.sum() + big.sum()], clone=True)
    point = (np.arange(6.0).reshape(3, 2), 4)
    before = _evaluate(fgraph, *point)
    fold_constant_allocs(fgraph)
    assert len(_ops(fgraph, Alloc)) == 2
    for got, expected in zip(_evaluate(fgraph, *point), before):
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(before[0], np.arange(6.0).reshape(3, 2) + 0.5)
    assert before[1] == 4 * 2 + 2.0 * 200 * 100


def test_the_mode_drops_support_checks_and_keeps_the_log_density_and_gradient():
    """A Dirichlet–Multinomial model (the zoo's building block) compiled with the rewrites has no
    -inf switch of a parameter check left, fewer nodes, and the log density and gradient of
    PyMC's own compilation at points of the unconstrained space, far ones included."""
    with pm.Model() as model:
        p = pm.Dirichlet("p", a=np.array([[1.0, 2.0, 0.5], [3.0, 1.0, 1.0]]))
        pm.Multinomial("counts", n=np.array([7, 5]), p=p, observed=np.array([[3, 4, 0], [1, 1, 3]]))
    value = model.rvs_to_values[p]
    logp = model.logp()
    outputs = [logp, pt.grad(logp, value)]
    plain = Mode(linker="py", optimizer="fast_run")
    rewritten = plain.register(*numba_rewrites())
    with model:
        functions = [pm.pytensorf.compile([value], outputs, mode=mode) for mode in (plain, rewritten)]
    checks = [
        [
            node
            for node in f.maker.fgraph.apply_nodes
            if any(out.name and "sum(p) = 1" in out.name for out in node.outputs)
        ]
        for f in functions
    ]
    assert checks[0] and not checks[1]
    assert len(functions[1].maker.fgraph.apply_nodes) < len(functions[0].maker.fgraph.apply_nodes)
    rng = np.random.default_rng(0)
    for scale in (1.0, 30.0):
        point = scale * rng.normal(size=(2, 2))
        (lp0, g0), (lp1, g1) = (f(point) for f in functions)
        assert np.isfinite(lp0)
        np.testing.assert_allclose(lp1, lp0, rtol=1e-12)
        np.testing.assert_allclose(g1, g0, rtol=1e-12, atol=1e-12)
