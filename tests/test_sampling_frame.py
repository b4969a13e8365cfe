"""The models NUTS samples in the closed-form posterior's frame (LDA/QDA's ``_sampling_model``)
have the counts form's posterior: their log density is the counts form's at the mapped point plus
the log Jacobian of the map, up to one constant."""

import numpy as np
import pytest

from pgm_models import LDA, QDA

pytestmark = pytest.mark.filterwarnings("ignore")


def _lower(diagonal, below):
    p = len(diagonal)
    triangle = np.diag(diagonal)
    for i in range(1, p):  # row by row, as the models lay the strict lower triangle out
        triangle[i, :i] = below[i * (i - 1) // 2 : i * (i + 1) // 2]
    return triangle


def _to_counts_form(model, point):
    """The counts form's free variables (log c, z, μ) at the sampling model's (log B_ii, B_ij, e):
    F = L' B, A = L⁻¹F, c_i = A_ii², μ_k = m'_k + F_k⁻ᵀ e_k / √κ'_k (written with NumPy's solves,
    apart from the models' graphs)."""
    prior, posterior = model._prior, model.posterior_
    p, n_classes = model.n_features_in_, len(model.classes_)
    nu = np.reshape(posterior.nu, (-1, 1))
    log_diag = np.reshape(point["precision_log_diag"], (-1, p)) + 0.5 * np.log(nu - np.arange(p))
    below = np.reshape(point["precision_below"], (len(log_diag), -1))
    psis, prior_psis = np.reshape(posterior.psi, (-1, p, p)), np.reshape(prior.psi, (-1, p, p))
    log_c, z, factors = [], [], []
    for d, b, psi, prior_psi in zip(log_diag, below, psis, prior_psis):
        factor = np.linalg.cholesky(np.linalg.inv(psi)) @ _lower(np.exp(d), b)
        bartlett = np.linalg.solve(np.linalg.cholesky(np.linalg.inv(prior_psi)), factor)
        log_c.append(np.log(np.diag(bartlett) ** 2))
        z.append(bartlett[np.tril_indices(p, -1)[0], np.tril_indices(p, -1)[1]])
        factors.append(factor)
    factors = np.broadcast_to(np.array(factors), (n_classes, p, p))
    whitened = np.reshape(point["class_mean_whitened"], (n_classes, p))
    means = (
        posterior.m
        + np.array([np.linalg.solve(f.T, e) for f, e in zip(factors, whitened)]) / np.sqrt(posterior.kappa)[:, None]
    )
    shape = np.shape(point["precision_log_diag"])
    return {
        "class_prob_simplex__": point["class_prob_simplex__"],
        "precision_c_log__": np.reshape(log_c, shape),
        "precision_z": np.reshape(z, np.shape(point["precision_below"])),
        "class_mean": means,
    }


FREE = ("precision_log_diag", "precision_below", "class_mean_whitened")


def _flat(point):
    return np.concatenate([np.ravel(point[name]) for name in FREE])


def _unflat(vector, like):
    point, start = dict(like), 0
    for name in FREE:
        size = np.size(like[name])
        point[name] = vector[start : start + size].reshape(np.shape(like[name]))
        start += size
    return point


def _old_flat(point):
    return np.concatenate([np.ravel(point[name]) for name in ("precision_c_log__", "precision_z", "class_mean")])


@pytest.mark.parametrize(("Model", "rows"), [(LDA, 6), (QDA, 6), (QDA, 40)])
def test_sampling_model_is_the_counts_form_up_to_a_constant(Model, rows):
    rng = np.random.default_rng(rows)
    X = rng.normal(size=(rows, 3)) * [1.0, 30.0, 0.01] + [0.0, 170.0, 5.0]
    X[:, 1] += 10 * X[:, 0]  # correlated features on unequal scales
    y = np.arange(rows) % 2
    model = Model().fit(X, y)
    sampling, counts = model._sampling_model(), model.pymc_model("counts")
    sampling_logp, counts_logp = sampling.compile_logp(), counts.compile_logp()
    start = sampling.initial_point()
    differences = []
    for _ in range(5):
        point = {name: value + rng.normal(size=np.shape(value)) for name, value in start.items()}
        x = _flat(point)
        # the map's Jacobian by central differences (it is smooth; step 1e-6 gives ~1e-9 relative error)
        step = 1e-6
        columns = [
            (
                _old_flat(_to_counts_form(model, _unflat(x + step * unit, point)))
                - _old_flat(_to_counts_form(model, _unflat(x - step * unit, point)))
            )
            / (2 * step)
            for unit in np.eye(len(x))
        ]
        log_jacobian = np.linalg.slogdet(np.array(columns).T)[1]
        differences.append(sampling_logp(point) - counts_logp(_to_counts_form(model, point)) - log_jacobian)
    assert np.all(np.isfinite(differences))
    np.testing.assert_allclose(differences, differences[0], atol=1e-5)


@pytest.mark.parametrize("Model", [LDA, QDA])
def test_sampling_model_draws_name_the_counts_forms_variables(Model):
    """The Deterministics give the counts form's class_mean, cov and Bartlett variables at any
    point, so its forward sampling reads the draws."""
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(12, 2)) * [5.0, 0.1], np.arange(12) % 3
    model = Model().fit(X, y)
    sampling = model._sampling_model()
    point = {name: value + rng.normal(size=np.shape(value)) for name, value in sampling.initial_point().items()}
    outputs = sampling.replace_rvs_by_values(sampling.deterministics)
    function = sampling.compile_fn(outputs, inputs=sampling.value_vars, on_unused_input="ignore", point_fn=True)
    values = dict(zip([v.name for v in sampling.deterministics], function(point)))
    expected = _to_counts_form(model, point)
    np.testing.assert_allclose(values["class_mean"], expected["class_mean"], rtol=1e-9)
    np.testing.assert_allclose(np.log(values["precision_c"]), expected["precision_c_log__"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(values["precision_z"], expected["precision_z"], rtol=1e-9, atol=1e-12)


def _simplex_coordinates(theta):
    """PyMC's simplex transform of rows Θ (rows, V), in NumPy: log Θ_v − mean_u log Θ_u, v < V."""
    log_theta = np.log(theta)
    return (log_theta - log_theta.mean(axis=-1, keepdims=True))[:, :-1]


@pytest.mark.parametrize("name", ["CategoricalNB", "TAN"])
def test_dirichlet_groups_frame_is_the_counts_form_up_to_a_constant(name):
    """The nominal models' sampling model (each Dirichlet group in its posterior's stick-breaking
    frame; SPODE's and the Bayesian networks' are made of the same blocks) has the counts form's density: at random points x of the frame, its log density minus
    the counts form's at the same Θ (in PyMC's simplex coordinates z) minus log |det ∂z/∂x| (by
    central differences, apart from the frame's own Jacobian formula) is one constant."""
    from pgm_models import TAN, CategoricalNB
    from pgm_models.datasets import load_dataset

    X, y = load_dataset("weather.nominal")
    model = {"CategoricalNB": CategoricalNB, "TAN": TAN}[name]().fit(X, y)
    sampling, counts = model._sampling_model(), model.pymc_model("counts")
    groups = [rv.name for rv in sampling.free_RVs]
    assert all(sampling.rvs_to_values[sampling[g]].name == f"{g}_sticks__" for g in groups)
    assert sorted(rv.name for rv in counts.free_RVs) == sorted(groups)
    theta = sampling.compile_fn(
        sampling.replace_rvs_by_values([sampling[g] for g in groups]), inputs=sampling.value_vars, point_fn=False
    )
    sampling_logp, counts_logp = sampling.compile_logp(), counts.compile_logp()
    values = [sampling.rvs_to_values[sampling[g]] for g in groups]
    start = sampling.initial_point()
    shapes = [np.shape(start[v.name]) for v in values]
    sizes = np.cumsum([0] + [int(np.prod(s)) for s in shapes])

    def point_of(x):
        return {v.name: x[a:b].reshape(s) for v, a, b, s in zip(values, sizes[:-1], sizes[1:], shapes)}

    def to_counts(x):
        thetas = theta(**point_of(x))
        return {counts.rvs_to_values[counts[g]].name: _simplex_coordinates(t) for g, t in zip(groups, thetas)}

    def flat(point):
        return np.concatenate([np.ravel(point[counts.rvs_to_values[counts[g]].name]) for g in groups])

    rng = np.random.default_rng(7)
    differences = []
    for _ in range(4):
        x = rng.normal(size=sizes[-1]) * 1.5
        step = 1e-6
        columns = [
            (flat(to_counts(x + step * unit)) - flat(to_counts(x - step * unit))) / (2 * step)
            for unit in np.eye(len(x))
        ]
        log_jacobian = np.linalg.slogdet(np.array(columns).T)[1]
        differences.append(sampling_logp(point_of(x)) - counts_logp(to_counts(x)) - log_jacobian)
    assert np.all(np.isfinite(differences))
    np.testing.assert_allclose(differences, differences[0], atol=1e-5)


def test_the_frame_standardises_exact_posterior_draws():
    """Exact Dirichlet(a) draws of rows with small and large concentrations, mapped to the frame
    (the transform's forward map), are uncorrelated with mean 0 and sd 1 in every coordinate,
    and map back to themselves. 40,000 draws: each mean's standard error is 0.005, each sd's
    about 0.004–0.02 (the sticks' logits are skewed for small a), each correlation's 0.005;
    the bounds 0.04, 0.1 and 0.04 are 8, 5 and 8 standard errors (false-failure chance < 1e-5)."""
    import pytensor
    import pytensor.tensor as pt

    from pgm_models.conjugate.blocks import sticks_transform

    a = np.array([[150.0, 1.0, 20.0, 1.0, 3.0], [1.0, 1.0, 1.0, 1.0, 1.0], [0.5, 40.0, 2.0, 0.7, 9.0]])
    transform = sticks_transform(a)
    rng = np.random.default_rng(11)
    draws = np.stack([rng.dirichlet(row, size=40_000) for row in a], axis=1)  # (draw, rows, V)
    value = pt.matrix("theta")
    forward = pytensor.function([value], transform.forward(value))
    backward = pytensor.function([value], transform.backward(value))
    x = np.stack([forward(d) for d in draws])  # (draw, rows, V − 1)
    np.testing.assert_allclose(backward(x[0]), draws[0], rtol=1e-9)
    flat = x.reshape(len(x), -1)
    assert np.abs(flat.mean(axis=0)).max() < 0.04
    assert np.abs(flat.std(axis=0) - 1).max() < 0.1
    correlation = np.corrcoef(flat.T) - np.eye(flat.shape[1])
    assert np.abs(correlation).max() < 0.04
