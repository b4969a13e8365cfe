"""The graph rewrites of the "nutpie-numba" backend's compile mode (pgm_models._numba_rewrites):
fewer nodes for numba to compile, the same values. Checked on PyTensor's Python linker (no numba
or C compilation): the rewrites act on the graph, whatever compiles it."""

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
from pytensor.compile.mode import Mode
from pytensor.graph.fg import FunctionGraph
from pytensor.tensor.basic import Alloc, Join

from pgm_models._numba_rewrites import fold_constant_allocs, join_whole_rows, numba_rewrites


def _evaluate(fgraph, *values):
    return pytensor.function(fgraph.inputs, fgraph.outputs, mode=Mode(linker="py", optimizer=None))(*values)


def _ops(fgraph, kind):
    return [node for node in fgraph.apply_nodes if isinstance(node.op, kind)]


def test_join_whole_rows_merges_runs_of_consecutive_rows_of_one_array():
    """The stacked Dirichlet blocks' rows Θ[j] as the expand function joins them, raveled (rows
    of a 3-d array) or not (rows of a matrix)."""
    x, v = pt.dvector("x"), pt.dvector("v")
    matrix, stacked = x.reshape((4, 3)), x.reshape((4, 3, 1))
    fgraph = FunctionGraph([x], [pt.concatenate([matrix[i] for i in range(4)])], clone=True)
    join_whole_rows(fgraph)
    assert not _ops(fgraph, Join)
    np.testing.assert_array_equal(_evaluate(fgraph, np.arange(12.0))[0], np.arange(12.0))
    parts = [v, stacked.ravel(), *(stacked[i].ravel() for i in range(4)),  # every row: stacked itself
             stacked[2].ravel(), stacked[3].ravel(),  # rows 2-3: stacked[2:4]
             stacked[3].ravel(), stacked[1].ravel(),  # out of order: kept as they are
             stacked[1:].ravel(), stacked[2:].ravel()]  # slices, not rows: kept
    fgraph = FunctionGraph([x, v], [pt.concatenate(parts)], clone=True)
    point = (np.arange(12.0), np.array([-1.0, -2.0]))
    (before,) = _evaluate(fgraph, *point)
    join_whole_rows(fgraph)
    (join,) = _ops(fgraph, Join)
    assert len(join.inputs) - 1 == 8  # v, stacked twice, stacked[2:4], stacked[3], stacked[1], the two slices
    np.testing.assert_array_equal(_evaluate(fgraph, *point)[0], before)
    np.testing.assert_array_equal(before, np.r_[-1, -2, np.arange(12), np.arange(12), np.arange(6, 12), 9, 10, 11, 3, 4, 5,
                                         np.arange(3, 12), np.arange(6, 12)])


def test_join_whole_rows_merges_consecutive_slices_into_the_whole_array():
    """The Dirichlet groups' blocks as Deterministics, Θ[:1], Θ[1:3], Θ[3:] raveled: one Θ.ravel(),
    with no row count left in the graph; a run that stops short keeps its slice."""
    from pytensor.graph.basic import Constant

    x = pt.dmatrix("x")
    fgraph = FunctionGraph([x], [pt.concatenate([x[:1].ravel(), x[1:3].ravel(), x[3:].ravel(), x[1:2].ravel(), x[2:3].ravel()])],
                           clone=True)
    point = np.arange(10.0).reshape(5, 2)
    (before,) = _evaluate(fgraph, point)
    join_whole_rows(fgraph)
    (join,) = _ops(fgraph, Join)
    whole, part = join.inputs[1:]
    assert whole.owner.inputs[0] is fgraph.inputs[0]  # x.ravel() itself
    assert sorted(int(c.data) for c in part.owner.inputs[0].owner.inputs if isinstance(c, Constant)) == [1, 3]  # x[1:3]
    np.testing.assert_array_equal(_evaluate(fgraph, point)[0], before)
    np.testing.assert_array_equal(before, np.r_[np.arange(10.0), 2, 3, 4, 5])


def test_fold_constant_allocs_folds_small_constant_broadcasts_only():
    x, n = pt.dmatrix("x"), pt.lscalar("n")
    small = pt.alloc(pt.constant(0.5), 3, 2)   # constant value and shape: folded
    sized = pt.alloc(pt.constant(1.0), n, 2)   # shape known only at run time: kept
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
    checks = [[node for node in f.maker.fgraph.apply_nodes if any(out.name and "sum(p) = 1" in out.name for out in node.outputs)]
              for f in functions]
    assert checks[0] and not checks[1]
    assert len(functions[1].maker.fgraph.apply_nodes) < len(functions[0].maker.fgraph.apply_nodes)
    rng = np.random.default_rng(0)
    for scale in (1.0, 30.0):
        point = scale * rng.normal(size=(2, 2))
        (lp0, g0), (lp1, g1) = (f(point) for f in functions)
        assert np.isfinite(lp0)
        np.testing.assert_allclose(lp1, lp0, rtol=1e-12)
        np.testing.assert_allclose(g1, g0, rtol=1e-12, atol=1e-12)
