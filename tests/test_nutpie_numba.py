"""The "nutpie-numba" backend: nutpie's NUTS on PyTensor's numba functions, which PyTensor caches
on disk so that another process loads them instead of compiling (pgm_models.inference._nutpie_numba)."""

import os
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.filterwarnings("ignore")

# Two Normal means whose prior mean is a broadcast view (zero strides), as the priors of the
# Gaussian models are (numba could not cache a function holding one as a constant; as data it is
# passed as a contiguous copy). argv[1] shifts the observed values and the prior mean: another data set of the same
# shapes. Prints the number of unconstrained parameters, how many functions numba compiled (a load
# from the cache is no compilation), how many of the two C callbacks came from the cache, and the
# largest |z| of the sampled posterior means against the conjugate posterior N((m + y) / 2, 1/2),
# the standard error from each mean's bulk ESS.
_TINY_MODEL = """
import sys
import arviz as az, numpy as np, nutpie, pymc as pm
from numba.core import event
from pgm_models.inference import _nutpie_numba
shift = float(sys.argv[1])
prior_mean = np.broadcast_to([1.0, 2.0 - shift], (3, 2))
observed = np.array([[0.5, 1.0], [1.5, 0.0], [-1.0, 2.0]]) + shift
with pm.Model(coords={"group": ["a", "b", "c"], "feature": ["x", "z"]}) as model:
    mu = pm.Normal("mu", prior_mean, 1.0, dims=("group", "feature"))
    pm.Normal("y", mu, 1.0, observed=observed, dims=("group", "feature"))
with event.install_recorder("numba:compile") as recorder:
    compiled = _nutpie_numba.compile_model(model)
idata = nutpie.sample(compiled, draws=1000, tune=500, chains=4, seed=1, progress_bar=False)
means, ess = idata.posterior["mu"].mean(("chain", "draw")), az.ess(idata, var_names=["mu"])["mu"]
z = (means - (prior_mean + observed) / 2) / np.sqrt(0.5 / ess)
print(compiled.n_dim, len(recorder.buffer), compiled.compiled_logp_func.cache_hits + compiled.compiled_expand_func.cache_hits,
      float(abs(z).max()))
"""


def _compile_and_sample_in_a_new_process(base_compiledir, shift: float) -> tuple[int, int, float]:
    environment = {**os.environ, "PYTENSOR_FLAGS": f"base_compiledir={base_compiledir}"}
    result = subprocess.run(
        [sys.executable, "-c", _TINY_MODEL, str(shift)],
        env=environment,
        capture_output=True,
        text=True,
        cwd=os.path.dirname(os.path.dirname(__file__)),
    )
    assert result.returncode == 0, result.stderr
    n_dim, compiles, callbacks_loaded, max_z = result.stdout.split()
    assert int(n_dim) == 6
    return int(compiles), int(callbacks_loaded), float(max_z)


def test_a_second_process_on_other_data_loads_the_compiled_model_and_samples_its_own_posterior(tmp_path):
    """The first process compiles (numba's compile events) and leaves the functions under
    base_compiledir/numba; a second one, on other observed values and another prior mean of the
    same shapes, compiles nothing: the log density, its gradient, the expand function and nutpie's
    two C callbacks all come from the cache, the broadcast prior mean included; and each samples
    its own data's posterior (a cache serving the first data would put the second run's means
    1.5 posterior sds, ~100 standard errors, off). False-failure chance: |z| > 5 has probability
    5.7e-7 per mean, < 1e-5 for the 12 means of the two runs."""
    compiles, callbacks_loaded, max_z = _compile_and_sample_in_a_new_process(tmp_path, 0.0)
    assert compiles > 0 and callbacks_loaded == 0 and max_z < 5
    assert any(path.suffix == ".nbc" for path in (tmp_path / "numba").iterdir())  # numba's compiled objects
    compiles, callbacks_loaded, max_z = _compile_and_sample_in_a_new_process(tmp_path, 3.0)
    assert (compiles, callbacks_loaded) == (0, 2) and max_z < 5


@pytest.mark.parametrize("name", ["CategoricalNB", "LDA"])
def test_the_data_become_shared_variables_of_a_model_with_the_same_density_and_names(fitted_models, name):
    """``_data_as_shared``: the copy has the original's log density at random points, its
    variables, coords and dims, and no constant left that data set (CategoricalNB: counts,
    totals, Dirichlet concentrations; LDA: scatter, degrees of freedom, empirical-Bayes prior)."""
    from pymc.model.fgraph import fgraph_from_model
    from pytensor.compile import SharedVariable
    from pytensor.tensor import TensorConstant, TensorType

    from pgm_models.inference._nutpie_numba import _data_as_shared

    model = fitted_models[name].pymc_model("counts")
    copy = _data_as_shared(model)
    assert copy.named_vars.keys() == model.named_vars.keys()
    assert {k: tuple(v) for k, v in copy.named_vars_to_dims.items()} == {
        k: tuple(v) for k, v in model.named_vars_to_dims.items()
    }
    assert copy.coords == model.coords
    rng = np.random.default_rng(0)
    points = [{k: v + rng.normal(size=v.shape) for k, v in model.initial_point().items()} for _ in range(3)]
    logps = [m.compile_logp(mode="FAST_COMPILE") for m in (model, copy)]
    np.testing.assert_allclose([logps[1](p) for p in points], [logps[0](p) for p in points], rtol=1e-12)
    fgraph, _ = fgraph_from_model(copy)
    assert sum(isinstance(v, SharedVariable) and isinstance(v.type, TensorType) for v in fgraph.variables) >= 3
    sizes = {node.op.size_param(node) for node in fgraph.apply_nodes if hasattr(node.op, "size_param")}
    left = [
        v
        for v in fgraph.variables
        if isinstance(v, TensorConstant) and v not in sizes and (v.type.ndim > 0 or not float(2 * v.data).is_integer())
    ]
    assert left == []


@pytest.mark.nuts
def test_progress_counts_every_draw_of_every_chain_and_ends_at_the_total(fitted_models):
    reports = []
    idata = fitted_models["BernoulliNB"].sample_posterior(
        draws=30,
        tune=20,
        chains=2,
        sampler="nutpie-numba",
        random_seed=1,
        progress=lambda done, total: reports.append((done, total)),
    )
    assert reports[-1] == (100, 100)  # 2 chains × (20 tuning + 30 draws), one expand call each
    done = [d for d, _ in reports]
    assert done == sorted(done) and {t for _, t in reports} == {100}
    assert idata.posterior.sizes["chain"] == 2 and idata.posterior.sizes["draw"] == 30
    assert idata.posterior.attrs["sampling_time"] > 0


@pytest.mark.parametrize(
    "name, low_rank",
    [("CategoricalNB", False), ("TAN", False), ("GaussianNB", False), ("SPODE", True), ("BernoulliNB", True)],
)
def test_each_class_gets_the_mass_matrix_it_declares_and_the_backends_tuning_steps(fitted_models, name, low_rank):
    from pgm_models.inference.sampling import DEFAULT_TUNE

    # nutpie stores the adapted mass matrix when asked: eigenvalues for the low-rank one, the
    # inverse diagonal for the diagonal one
    idata = fitted_models[name].sample_posterior(
        draws=5, chains=1, sampler="nutpie-numba", random_seed=1, nuts_sampler_kwargs={"store_mass_matrix": True}
    )
    stats = set(idata.sample_stats.data_vars)
    assert ("mass_matrix_eigvals" in stats, "mass_matrix_inv" in stats) == (low_rank, not low_rank)
    assert idata.posterior.attrs["tuning_steps"] == DEFAULT_TUNE["nutpie-numba"] < 1000


def test_a_mass_matrix_given_in_nuts_sampler_kwargs_wins_over_the_class(fitted_models):
    idata = fitted_models["CategoricalNB"].sample_posterior(
        draws=5,
        tune=5,
        chains=1,
        sampler="nutpie-numba",
        random_seed=1,
        nuts_sampler_kwargs={"store_mass_matrix": True, "low_rank_modified_mass_matrix": True},
    )
    assert "mass_matrix_eigvals" in idata.sample_stats


@pytest.mark.nuts
def test_the_same_seed_gives_the_same_draws_and_another_seed_others(fitted_models):
    model = fitted_models["BernoulliNB"]
    draws = [
        model.sample_posterior(draws=20, tune=20, chains=2, sampler="nutpie-numba", random_seed=seed)
        .posterior["class_prob"]
        .values
        for seed in (5, 5, 6)
    ]
    np.testing.assert_array_equal(draws[0], draws[1])
    assert not np.array_equal(draws[0], draws[2])


def test_the_optimisation_level_is_set_for_the_block_only():
    import numba

    from pgm_models.inference._nutpie_numba import _numba_opt

    before = numba.config.OPT
    with _numba_opt(0):
        assert numba.config.OPT == 0
    assert numba.config.OPT == before


def test_overlapping_blocks_in_threads_restore_the_level_they_found():
    import threading

    import numba

    from pgm_models.inference._nutpie_numba import _numba_opt

    before, first_inside, second_done = numba.config.OPT, threading.Event(), threading.Event()

    def first():
        with _numba_opt(1):
            first_inside.set()
            second_done.wait(0.5)  # the second block must wait for this one, not overlap it

    def second():
        first_inside.wait()
        with _numba_opt(2):
            pass
        second_done.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert numba.config.OPT == before


def test_pm_sample_arguments_it_cannot_honour_are_named(fitted_models):
    with pytest.raises(TypeError, match=r"sampler='nutpie-numba' does not take pm.sample's init, step"):
        fitted_models["BernoulliNB"].sample_posterior(sampler="nutpie-numba", init="adapt_diag", step=None)


@pytest.mark.parametrize(
    "arguments, error, message",
    [
        ({"nuts_sampler_kwargs": {"foo": 1}}, TypeError, r"nutpie.sample has no setting 'foo'"),
        (
            {"target_accept": 0.6, "nuts_sampler_kwargs": {"target_accept": 0.95}},
            TypeError,
            r"target_accept given twice",
        ),
        ({"chains": 0}, ValueError, r"needs chains ≥ 1 and draws ≥ 1, got chains=0, draws=1000"),
        ({"draws": 0}, ValueError, r"needs chains ≥ 1 and draws ≥ 1, got chains=4, draws=0"),
    ],
)
def test_bad_settings_are_named_before_anything_compiles(fitted_models, arguments, error, message):
    with pytest.raises(error, match=message):
        fitted_models["BernoulliNB"].sample_posterior(sampler="nutpie-numba", **arguments)


def test_a_run_without_tuning_is_refused_before_nutpie_panics(fitted_models):
    with pytest.raises(ValueError, match=r"sampler='nutpie-numba' needs tune ≥ 1, got tune=0"):
        fitted_models["BernoulliNB"].sample_posterior(draws=40, tune=0, sampler="nutpie-numba")


def test_another_row_count_loads_the_compiled_model_and_gives_its_own_density():
    """Observed rows with no "row" dim (as LogisticRegression's rows form, whose size does not enter
    its density): 5 rows, then 8 with the compiled model in the cache, which loads without compiling,
    and the log density and gradient through nutpie's C callback are PyMC's own for each data set."""
    import ctypes

    import pymc as pm
    from numba.core import event

    from pgm_models.inference._nutpie_numba import compile_model

    pointer = ctypes.POINTER(ctypes.c_double)
    for n_rows in (5, 8):
        rows = np.random.default_rng(n_rows).normal(size=(n_rows, 2))
        with pm.Model() as model:
            pm.Normal("mu", 0.0, 1.0, shape=2)
            pm.Normal("x", model["mu"], 1.0, observed=rows)
        with event.install_recorder("numba:compile") as recorder:
            compiled = compile_model(model)
        point, gradient, logp = np.array([0.3, -0.2]), np.zeros(2), np.zeros(())
        status = compiled.compiled_logp_func.ctypes(
            2,
            point.ctypes.data_as(pointer),
            gradient.ctypes.data_as(pointer),
            logp.ctypes.data_as(pointer),
            compiled.user_data.ctypes.data,
        )
        assert status == 0
        # log N(mu; 0, 1) + Σ log N(x_i; mu, 1): the gradient is -mu + Σ (x_i - mu)
        np.testing.assert_allclose(logp, model.compile_logp(mode="FAST_COMPILE")({"mu": point}), rtol=1e-12)
        np.testing.assert_allclose(gradient, -point + (rows - point).sum(axis=0), rtol=1e-12)
    assert len(recorder.buffer) == 0


def _call(compiled, x):
    """nutpie's two C callbacks at the flat unconstrained point ``x``: (log density, gradient, expanded)."""
    import ctypes

    pointer = ctypes.POINTER(ctypes.c_double)
    gradient, logp, expanded = np.zeros(compiled.n_dim), np.zeros(()), np.zeros(compiled.n_expanded)
    assert (
        compiled.compiled_logp_func.ctypes(
            compiled.n_dim,
            x.ctypes.data_as(pointer),
            gradient.ctypes.data_as(pointer),
            logp.ctypes.data_as(pointer),
            compiled.user_data.ctypes.data,
        )
        == 0
    )
    assert (
        compiled.compiled_expand_func.ctypes(
            compiled.n_dim,
            compiled.n_expanded,
            x.ctypes.data_as(pointer),
            expanded.ctypes.data_as(pointer),
            compiled.user_data.ctypes.data,
        )
        == 0
    )
    return float(logp), gradient, expanded


@pytest.mark.parametrize(
    ("name", "form"), [("CategoricalNB", "counts"), ("SPODE", "counts"), ("TAN", "counts"), ("TAN", "sampling")]
)
def test_the_callbacks_give_pymcs_log_density_gradient_and_values(fitted_models, name, form):
    """At random unconstrained points, the C callbacks (sizes read from user_data) give the log
    density and gradient of PyMC's own C-backend functions of the model to 1e-12, and the expand
    callback every free variable and Deterministic (the stacked Dirichlet groups' blocks) in
    nutpie's layout: in PyMC's simplex coordinates (the counts form) and in the posterior's
    stick-breaking frame (the model sample_posterior samples, values in the frame's order)."""
    from pgm_models.inference._nutpie_numba import compile_model

    estimator = fitted_models[name]
    model = estimator.pymc_model("counts") if form == "counts" else estimator._sampling_model()
    compiled = compile_model(model)
    names, slices, shapes = compiled.shape_info
    value_names = [var.name for var in model.value_vars]
    # the flat vector's layout is the compiled copy's order of the free variables
    logp, dlogp = (
        model.compile_logp(),
        model.compile_dlogp(vars=[rv for n in names for rv in model.free_RVs if model.rvs_to_values[rv].name == n]),
    )
    values = model.compile_fn(model.unobserved_value_vars, inputs=model.value_vars)
    rng = np.random.default_rng(5)
    for _ in range(3):
        x = rng.normal(size=compiled.n_dim)
        point = {n: x[s].reshape(shape) for n, s, shape in zip(names, slices, shapes) if n in value_names}
        value, gradient, expanded = _call(compiled, x)
        np.testing.assert_allclose(value, logp(point), rtol=1e-12)
        np.testing.assert_allclose(gradient, dlogp(point), rtol=1e-12, atol=1e-12 * np.abs(gradient).max())
        reference = dict(zip([var.name for var in model.unobserved_value_vars], values(point)))
        for n, s, shape in zip(names, slices, shapes):
            np.testing.assert_allclose(expanded[s].reshape(shape), reference[n], rtol=1e-12, atol=1e-15)


# Compiles (or loads) argv[1:] in turn, CategoricalNB on vote, the others on weather (other groups,
# other row counts and numbers of values), and prints how many functions numba compiled per model.
_NOMINAL_COMPILES = """
import sys
from numba.core import event
from pgm_models import SPODE, TAN, CategoricalNB
from pgm_models.inference import _nutpie_numba
from pgm_models.datasets import load_dataset
for name in sys.argv[1:]:
    estimator = {"CategoricalNB": CategoricalNB(), "SPODE": SPODE(parent="outlook"), "TAN": TAN()}[name]
    model = estimator.fit(*load_dataset("vote" if name == "CategoricalNB" else "weather.nominal")).pymc_model("counts")
    with event.install_recorder("numba:compile") as recorder:
        _nutpie_numba.compile_model(model)
    print(len(recorder.buffer))
"""


def test_nominal_models_load_the_group_function_another_nominal_model_compiled():
    """CategoricalNB on vote (one group of 2 values) compiled in one process (or loaded, if the
    suite compiled the group function already); SPODE and TAN on weather (groups of 2, 3 and 6
    values, other row counts) in a second process on the same compile folder compile nothing:
    every Dirichlet-only model is the one compiled group function and the same two C callbacks."""
    import pytensor

    environment = {**os.environ, "PYTENSOR_FLAGS": f"base_compiledir={pytensor.config.base_compiledir}"}
    compiles = []
    for names in (["CategoricalNB"], ["SPODE", "TAN"]):
        result = subprocess.run(
            [sys.executable, "-c", _NOMINAL_COMPILES, *names],
            env=environment,
            capture_output=True,
            text=True,
            cwd=os.path.dirname(os.path.dirname(__file__)),
        )
        assert result.returncode == 0, result.stderr[-2000:]
        compiles.append([int(n) for n in result.stdout.split()[-len(names) :]])
    assert compiles[1] == [0, 0], compiles


def test_only_models_of_dirichlet_groups_alone_take_the_group_path(fitted_models, training_data):
    """counts_groups finds the groups of the nominal models' counts form (their α, counts and totals
    as the model holds them) and nothing in a model with another kind of variable (LDA, the rows
    form's Categorical observations); a Deterministic that is not a choice of the groups' entries
    (2Θ) leaves no expand index, so such a model keeps the general path."""
    import pymc as pm

    from pgm_models.conjugate.blocks import counts_groups
    from pgm_models.inference._nutpie_numba import _groups_layout

    model = fitted_models["SPODE"].pymc_model("counts")
    groups = counts_groups(model)
    assert [g.value for g in groups] == [model.rvs_to_values[rv].name for rv in model.free_RVs]
    for g in groups:
        name = g.rv.name.replace("prob", "count")
        np.testing.assert_array_equal(g.counts, model.rvs_to_values[model[name]].data)
        np.testing.assert_array_equal(g.totals, g.counts.sum(axis=1))
        assert g.concentration.shape == g.counts.shape and np.all(g.concentration > 0)
    # the posterior's frame: the same groups, α and N in each row's order of decreasing α + N
    framed = {f.rv.name: f for f in counts_groups(fitted_models["SPODE"]._sampling_model())}
    assert sorted(framed) == sorted(g.rv.name for g in groups)
    for g in groups:
        f = framed[g.rv.name]
        assert (f.kind, f.value) == ("sticks", g.value.replace("simplex", "sticks"))
        np.testing.assert_array_equal(np.take_along_axis(f.counts, f.inverse, axis=1), g.counts)
        np.testing.assert_array_equal(np.take_along_axis(f.concentration, f.inverse, axis=1), g.concentration)
        assert np.all(np.diff(f.concentration + f.counts, axis=1) <= 0)
    assert counts_groups(fitted_models["LDA"].pymc_model("counts")) is None
    assert counts_groups(fitted_models["CategoricalNB"].pymc_model("rows", *training_data["CategoricalNB"])) is None
    with pm.Model() as model:
        prob = pm.Dirichlet("prob", a=np.ones((2, 3)))
        pm.Multinomial("count", n=np.array([4, 2]), p=prob, observed=np.array([[1, 2, 1], [0, 0, 2]]))
        pm.Deterministic("first", prob[0])
    (group,) = counts_groups(model)
    names, slices, shapes = _groups_layout(model, [group])[0]
    assert names == ["prob_simplex__", "prob", "first"] and shapes == [(2, 2), (2, 3), (3,)]
    # values that are not entries of the groups, even where they map entry numbers onto entry
    # numbers (review: a rounding, an affine map of one entry)
    for make in (
        lambda: 2 * prob,
        lambda: 2 * prob[0, 0] + 1,
        lambda: pm.math.round(prob),
        lambda: pm.math.maximum(prob, 1e-9),
    ):
        with pm.Model() as model:
            prob = pm.Dirichlet("prob", a=np.ones((2, 3)))
            pm.Multinomial("count", n=np.array([4, 2]), p=prob, observed=np.array([[1, 2, 1], [0, 0, 2]]))
            pm.Deterministic("other", make())
        (group,) = counts_groups(model)
        assert _groups_layout(model, [group]) is None
    # entries picked, reversed, joined, reshaped and transposed: an index map, read exactly
    with pm.Model() as model:
        prob = pm.Dirichlet("prob", a=np.ones((2, 3)))
        pm.Multinomial("count", n=np.array([4, 2]), p=prob, observed=np.array([[1, 2, 1], [0, 0, 2]]))
        pm.Deterministic("rows", pm.math.concatenate([prob[1], prob[0, ::-1]]).reshape((2, 3)).T)
    (group,) = counts_groups(model)
    (names, slices, shapes), index, n_source = _groups_layout(model, [group])
    source = np.r_[np.zeros(4), np.arange(1.0, 7.0) / 21]  # x (4 entries), then Θ
    theta = source[4:].reshape(2, 3)
    np.testing.assert_array_equal(
        source[index][slices[2]].reshape(shapes[2]), np.r_[theta[1], theta[0, ::-1]].reshape(2, 3).T
    )
    # counts that do not sum to n: PyMC's density is -inf there, the closed-form terms would not be
    with pm.Model() as model:
        prob = pm.Dirichlet("prob", a=np.ones((2, 3)))
        pm.Multinomial("count", n=np.array([4, 2]), p=prob, observed=np.array([[1, 2, 0], [0, 0, 2]]))
    assert counts_groups(model) is None


_LDA_COMPILES = """
from numba.core import event
from pgm_models import LDA
from pgm_models.inference import _nutpie_numba
from pgm_models.datasets import load_dataset
X, y = load_dataset("iris")
model = LDA().fit(X, y).pymc_model("counts")
with event.install_recorder("numba:compile") as recorder:
    _nutpie_numba.compile_model(model)
print(len(recorder.buffer))
"""


def test_a_gaussian_model_compiled_in_one_process_is_loaded_by_the_next():
    """LDA on iris compiled in one process (or loaded, if the suite compiled it already) is loaded
    by a second process on the same compile folder: numba compiles nothing. With unknown sizes PyTensor
    added broadcast checks whose form varied between processes, and the cache key with it, so LDA
    compiled again in every process (the iris zoo's warm run took 39 s instead of 17)."""
    import pytensor

    environment = {**os.environ, "PYTENSOR_FLAGS": f"base_compiledir={pytensor.config.base_compiledir}"}
    compiles = []
    for _ in range(2):
        result = subprocess.run(
            [sys.executable, "-c", _LDA_COMPILES],
            env=environment,
            capture_output=True,
            text=True,
            cwd=os.path.dirname(os.path.dirname(__file__)),
        )
        assert result.returncode == 0, result.stderr[-2000:]
        compiles.append(int(result.stdout.split()[-1]))
    assert compiles[1] == 0, compiles
