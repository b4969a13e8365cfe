"""Bayesian logistic regression: MAP = scikit-learn's L2 fit, the predictive, the PyMC model."""

import numpy as np
import pytest
import sklearn.linear_model as slm

from pgm_models import LogisticRegression
from pgm_models.datasets import load_dataset


@pytest.fixture(scope="module")
def iris():
    X, y = load_dataset("iris")
    return X.to_numpy(), y.to_numpy()


@pytest.fixture(scope="module")
def binary(iris):
    X, y = iris
    return X[50:, 2:], y[50:]  # versicolor vs virginica on the petal features: overlapping classes


def _penalised_objective(coef, intercept, X, y_index, prior_sd):
    """scikit-learn's L2 logistic objective (÷ C) and its gradient norm, written out here: Σ_n −log
    p(y_n | x_n) + ‖W‖²/(2σ²), one sigmoid for a (1, p) coef, a softmax over classes otherwise."""
    from scipy.special import expit, log_softmax, softmax

    if len(coef) == 1:
        z = X @ coef[0] + intercept[0]
        target = (y_index == 1).astype(float)
        loss = np.sum(np.logaddexp(0, z) - target * z)
        residual = (expit(z) - target)[:, None]
    else:
        scores = X @ coef.T + intercept
        target = np.eye(coef.shape[0])[y_index]
        loss = -np.sum(log_softmax(scores, axis=1) * target)
        residual = softmax(scores, axis=1) - target
    gradient = np.concatenate([(residual.T @ X + coef / prior_sd**2).ravel(), residual.sum(axis=0)])
    return loss + np.sum(coef**2) / (2 * prior_sd**2), float(np.linalg.norm(gradient))


@pytest.mark.parametrize("classes", ["binary", "multiclass"])
@pytest.mark.parametrize("prior_sd", [1.0, 0.3])
def test_map_is_scikit_learns_l2_fit(classes, prior_sd, iris):
    """Compared at the optimum, not where either optimiser stopped (which depends on the machine):
    our MAP's gradient of scikit-learn's objective is 1e-6 of its gradient at zero (observed 1e-8
    relative), and our objective is no worse than scikit-learn's own fit's. scikit-learn stops
    at gradients up to ~1e-4 (its tol is on a scaled objective), which moves its coefficients and
    probabilities by ~1e-6; the 1e-4 tolerances leave that a 50-fold margin."""
    X, y = iris
    keep = y != "Iris-setosa" if classes == "binary" else np.ones(len(y), bool)
    X, y = X[keep], y[keep]
    ours = LogisticRegression(prior_sd=prior_sd, intercept_prior_sd=None).fit(X, y)
    theirs = slm.LogisticRegression(C=prior_sd**2, tol=1e-12, max_iter=100_000).fit(X, y)
    y_index = np.searchsorted(theirs.classes_, y)
    _, start_gradient = _penalised_objective(
        np.zeros_like(ours.coef_), np.zeros_like(ours.intercept_), X, y_index, prior_sd
    )
    our_objective, our_gradient = _penalised_objective(ours.coef_, ours.intercept_, X, y_index, prior_sd)
    their_objective, their_gradient = _penalised_objective(theirs.coef_, theirs.intercept_, X, y_index, prior_sd)
    assert our_gradient < 1e-6 * start_gradient
    assert our_objective <= their_objective + 1e-12 * their_objective
    assert their_gradient < 1e-3  # scikit-learn converged too, so the comparison below means something
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-4)
    # the softmax's unpenalised intercepts are defined up to a common shift: compared centred
    centred = [b - b.mean() if len(b) > 1 else b for b in (ours.intercept_, theirs.intercept_)]
    np.testing.assert_allclose(*centred, atol=1e-4)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-4)


def test_find_map_agrees_with_the_fitted_map(binary):
    X, y = binary
    model = LogisticRegression(prior_sd=2.0).fit(X, y)
    found = model.find_map()
    np.testing.assert_allclose(found["weights"].values, model.coef_, atol=1e-6)
    np.testing.assert_allclose(found["intercept"].values, model.intercept_, atol=1e-6)


def test_integer_sample_weight_equals_duplicated_rows(binary):
    X, y = binary
    weight = np.arange(len(y)) % 3
    weighted = LogisticRegression().fit(X, y, sample_weight=weight)
    repeated = LogisticRegression().fit(np.repeat(X, weight, axis=0), np.repeat(y, weight))
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, atol=1e-7)


@pytest.fixture(scope="module")
def sampled(binary):
    X, y = binary
    model = LogisticRegression(prior_sd=2.0).fit(X, y)
    model.sample_posterior(draws=500, chains=2, cores=1, random_seed=5, progressbar=False)
    return model, X


@pytest.mark.nuts
def test_predictive_averages_the_likelihood_over_the_draws(sampled):
    model, X = sampled
    W = model.idata_.posterior["weights"].values.reshape(-1, 2)
    b = model.idata_.posterior["intercept"].values.reshape(-1)
    manual = (1 / (1 + np.exp(-(X @ W.T + b)))).mean(axis=1)
    np.testing.assert_allclose(model.predict_proba(X, estimate="predictive")[:, 1], manual, rtol=1e-10)
    # the logistic is concave where it exceeds 1/2, so averaging over draws is less confident
    mean_plug_in = model.predict_proba(X, estimate="mean")[:, 1]
    confident = mean_plug_in > 0.6
    assert confident.any()
    assert np.all(manual[confident] <= mean_plug_in[confident] + 1e-12)
    np.testing.assert_allclose(
        model.predict_proba(X, estimate="mean")[:, 1], 1 / (1 + np.exp(-(X @ W.mean(axis=0) + b.mean())))
    )


def test_mean_and_predictive_need_the_posterior_draws(binary):
    X, y = binary
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="call sample_posterior"):
        model.predict_proba(X, estimate="predictive")


def test_discriminative_model_has_no_partial_fit_or_joint(binary):
    X, y = binary
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="form='sufficient' is not one of"):
        model.pymc_model("sufficient")
    assert not hasattr(model, "partial_fit")
    assert not hasattr(model, "predict_joint_log_proba")
    assert not hasattr(model, "analytic_posterior")
    assert {"weights", "intercept", "y"} <= set(model.pymc_model().named_vars)


def test_mle_drops_the_prior(binary):
    X, y = binary
    strong = LogisticRegression(prior_sd=0.01).fit(X, y)
    shrunk, free = strong.predict_proba(X), strong.predict_proba(X, estimate="mle")
    assert np.abs(shrunk - 0.5).max() < 0.2  # the strong prior pulls towards 1/2
    np.testing.assert_allclose(
        free, LogisticRegression(prior_sd=1e6, intercept_prior_sd=None).fit(X, y).predict_proba(X), atol=1e-4
    )


@pytest.mark.parametrize(
    "params, message",
    [
        ({"prior_sd": 0}, "prior_sd must be a number > 0"),
        ({"intercept_prior_sd": -1}, "intercept_prior_sd must be"),
        ({"estimate": "median"}, "estimate='median'"),
    ],
)
def test_bad_parameters_are_named(params, message, binary):
    with pytest.raises(ValueError, match=message):
        LogisticRegression(**params).fit(*binary)


def test_pymcs_nuts_adapts_a_dense_mass_matrix_up_to_the_limit(binary, monkeypatch):
    """init="jitter+adapt_full" for PyMC's sampler when vectors × (features + 1) ≤ the limit; no
    init for another backend, past the limit, or when the caller gives one."""
    import arviz as az

    from pgm_models.discriminative import logistic_regression
    from pgm_models.inference import sampling

    calls = []
    drawn = az.from_dict(posterior={"weights": np.zeros((1, 10, 1, 2))})
    monkeypatch.setattr(sampling, "sample", lambda model, **kwargs: calls.append(kwargs) or drawn)
    X, y = binary
    model = LogisticRegression().fit(X, y)  # 1 vector × (2 features + 1) = 3 parameters
    model.sample_posterior(draws=10, sampler="pymc")
    model.sample_posterior(draws=10, sampler="pymc", init="adapt_diag")
    model.sample_posterior(draws=10, sampler="nutpie-numba")
    model.sample_posterior(draws=10)  # the default backend, nutpie's, adapts its own mass matrix
    monkeypatch.setattr(logistic_regression, "DENSE_MASS_MATRIX_LIMIT", 2)
    model.sample_posterior(draws=10, sampler="pymc")
    assert [call.get("init") for call in calls] == ["jitter+adapt_full", "adapt_diag", None, None, None]
    assert [call["sampler"] for call in calls] == ["pymc", "pymc", "nutpie-numba", sampling.DEFAULT_SAMPLER, "pymc"]
    assert model.idata_.posterior.identical(drawn.posterior)  # kept, with the training class counts
    np.testing.assert_array_equal(model.idata_.observed_data["class_count"].values, model.class_count_)


@pytest.mark.parametrize(
    "classes, intercept_prior_sd, sparse, weighted, whitened",
    [
        (1, 10.0, False, False, True),
        (1, None, True, True, True),
        (2, 10.0, True, False, True),
        (2, None, False, True, True),
        (3, 10.0, False, True, True),
        (3, None, True, False, True),
        (2, 10.0, True, True, False),
        (3, None, False, False, False),
    ],
)
def test_counts_form_has_the_rows_forms_log_density(
    iris, classes, sparse, weighted, intercept_prior_sd, whitened, monkeypatch
):
    """The counts form (distinct rows once, with their class counts) has the rows form's log
    density: unwhitened (past ``WHITENING_LIMIT``) the same function of the same variables, with the
    same gradient (to 1e-10); whitened, the rows form's density at the weights and intercept the
    whitened coordinates map to, plus the constant log |det diag(s) V| = m Σ log s of a linear map
    (to 1e-10), and the gradient Jᵀ ∇θ of the map's matrix J (read off the map at unit vectors;
    J diag(s)⁻¹ is orthogonal with a proper intercept prior). The rounded petal features, with a collinear third column, repeat rows, some of two
    classes; the counts are checked against a count by hand."""
    import scipy.sparse as sp

    from pgm_models.discriminative import logistic_regression

    if not whitened:
        monkeypatch.setattr(logistic_regression, "WHITENING_LIMIT", 0)
    X, y = iris
    keep = {1: y == "Iris-setosa", 2: y != "Iris-setosa", 3: slice(None)}[classes]
    X, y = np.round(X[keep, 2:]), y[keep]
    X = np.hstack([X, 2 * X[:, :1]])
    weight = np.random.default_rng(0).uniform(0.5, 2, len(y)) if weighted else None
    model = LogisticRegression(intercept_prior_sd=intercept_prior_sd).fit(
        sp.csr_matrix(X) if sparse else X, y, sample_weight=weight
    )
    rows, counts = model.pymc_model("rows"), model.pymc_model("counts")
    assert ("whitened_coef" in counts.named_vars) is whitened
    distinct = counts.coords["distinct_row"]
    assert len(distinct) == len(np.unique(X, axis=0)) < len(y) / 4
    expected = np.array(
        [
            [np.sum((weight if weighted else 1) * np.all(X == X[u], axis=1) * (y == k)) for k in model.classes_]
            for u in distinct
        ]
    )
    np.testing.assert_allclose(counts.rvs_to_values[counts["class_count"]].data, expected, rtol=1e-12)
    assert (expected > 0).sum(axis=1).max() == (1 if classes == 1 else 2)  # distinct rows of two classes
    coefficients = counts.compile_fn(
        counts.replace_rvs_by_values([counts["weights"], counts["intercept"]]), on_unused_input="ignore"
    )
    logp, dlogp = (rows.compile_logp(), counts.compile_logp()), (rows.compile_dlogp(), counts.compile_dlogp())
    scales = [1.0] * X.shape[1] + ([] if intercept_prior_sd is None else [intercept_prior_sd])
    jacobian = model._n_vectors * np.sum(np.log(scales)) if whitened else 0.0
    start = counts.initial_point()
    sizes = [np.size(value) for value in start.values()]

    def unflatten(vector):
        parts = np.split(vector, np.cumsum(sizes)[:-1])
        return {name: part.reshape(np.shape(value)) for (name, value), part in zip(start.items(), parts)}

    def theta(point):
        return np.concatenate([np.ravel(part) for part in coefficients(point)])

    J = np.column_stack([theta(unflatten(unit)) for unit in np.eye(sum(sizes))])  # linear: θ(0) = 0
    if whitened and intercept_prior_sd is not None:
        sds = np.r_[np.full(model._n_vectors * X.shape[1], 1.0), np.full(model._n_vectors, intercept_prior_sd)]
        np.testing.assert_allclose((J / sds[:, None]).T @ (J / sds[:, None]), np.eye(len(J)), atol=1e-12)
    rng = np.random.default_rng(1)
    for _ in range(3):
        point = unflatten(rng.normal(size=sum(sizes)))
        weights, intercept = coefficients(point)
        original = {"weights": weights, "intercept": intercept}
        assert abs(logp[1](point) - logp[0](original) - jacobian) < 1e-10
        np.testing.assert_allclose(dlogp[1](point), J.T @ dlogp[0](original), atol=1e-10)


def test_distinct_rows_in_order_of_first_occurrence():
    import scipy.sparse as sp

    from pgm_models.discriminative.logistic_regression import _distinct_rows

    X = np.array([[1.0, 0], [0, 2], [1, 0], [0, 0], [0, 2], [0, 0]])
    for matrix in (X, sp.csr_matrix(X), sp.csc_matrix(X)):
        first, distinct = _distinct_rows(matrix)
        np.testing.assert_array_equal(first, [0, 1, 3])
        np.testing.assert_array_equal(distinct, [0, 1, 0, 2, 1, 2])
    # a sparse matrix that stores one cell in two entries (1 + 1) and one stored zero: the same rows
    stored = sp.csr_matrix((np.array([1.0, 1.0, 2.0, 0.0]), np.array([0, 0, 0, 1]), np.array([0, 2, 4])), shape=(2, 2))
    np.testing.assert_array_equal(_distinct_rows(stored)[1], [0, 0])


@pytest.mark.nuts
def test_default_sampler_on_the_whitened_form_matches_quadrature(binary):
    """The default sampler's draws of the whitened counts form against the exact posterior by
    quadrature. One petal feature x and a collinear copy 2x (a null direction of the design,
    which the whitened form leaves out of the likelihood): the likelihood depends on
    u = w₁ + 2w₂ ~ N(0, 5) and b ~ N(0, 10²) only, so p(u, b | data) is a 2-D integral (a
    400 × 400 grid over ±9 Laplace sds), and w | u ~ N(c u / 5, I − c cᵀ / 5), c = (1, 2), gives
    E w = c E u / 5, Var w_j = 1 − c_j² / 5 + c_j² Var u / 25.
    False-failure chance per run below 1e-5: |z| ≤ 5 for the 3 means (two-sided 5.7e-7 each) of a
    near-Gaussian posterior, z = (mean − exact) / (exact sd / √bulk ESS); 4 chains × 1000 draws
    gave bulk ESS 3000–4500 and R-hat ≤ 1.003, far from check_sampler's 400 and 1.01."""
    from scipy.special import log_expit

    from pgm_models.inference.verify import check_sampler

    X, y = binary
    x = X[:, 0]
    model = LogisticRegression().fit(np.column_stack([x, 2 * x]), y)
    target = (y == model.classes_[1]).astype(float)
    map_u, map_b = model.coef_[0] @ [1, 2], model.intercept_[0]
    u, b = np.meshgrid(
        np.linspace(map_u - 9 * 1.5, map_u + 9 * 1.5, 400),
        np.linspace(map_b - 9 * 8, map_b + 9 * 8, 400),
        indexing="ij",
    )
    t = u[..., None] * x + b[..., None]
    log_post = (target * log_expit(t) + (1 - target) * log_expit(-t)).sum(axis=-1) - u**2 / 10 - b**2 / 200
    weight = np.exp(log_post - log_post.max())
    weight /= weight.sum()
    assert weight[[0, -1], :].sum() + weight[:, [0, -1]].sum() < 1e-12  # the grid holds the posterior
    mean_u, mean_b = (weight * u).sum(), (weight * b).sum()
    var_u, var_b = (weight * (u - mean_u) ** 2).sum(), (weight * (b - mean_b) ** 2).sum()
    c = np.array([1.0, 2.0])
    exact_mean, exact_sd = np.r_[c * mean_u / 5, mean_b], np.sqrt(np.r_[1 - c**2 / 5 + c**2 * var_u / 25, var_b])

    idata = model.sample_posterior(draws=1000, chains=4, random_seed=20261123)
    assert check_sampler(idata, ["weights", "intercept"]).passed
    assert set(idata.posterior.data_vars) == {"weights", "intercept"}  # not the whitened coordinates
    assert not {"whitened_vector", "whitened_direction"} & set(idata.posterior.coords)
    import arviz as az

    draws = np.column_stack(
        [idata.posterior["weights"].values.reshape(-1, 2), idata.posterior["intercept"].values.reshape(-1)]
    )
    ess = np.r_[
        az.ess(idata, var_names=["weights"])["weights"].values.ravel(),
        az.ess(idata, var_names=["intercept"])["intercept"].values,
    ]
    z = (draws.mean(axis=0) - exact_mean) / (exact_sd / np.sqrt(np.minimum(ess, len(draws))))
    assert np.all(np.abs(z) <= 5), z
    np.testing.assert_allclose(draws.std(axis=0), exact_sd, rtol=0.1)  # a 10 % error is ≥ 7 of its sds (√(2 ESS) ≥ 77)


def test_the_draws_keep_the_coefficients_not_their_whitened_coordinates(binary):
    """The estimator's auxiliary-draws hook, as the sampler applies it, drops the whitened counts
    form's own free variables (a flat intercept's shift too) and their dims, and keeps every
    other variable and coord."""
    import xarray as xr

    from pgm_models.inference.sampling import _model_variables_only

    X, y = binary
    estimator = LogisticRegression(intercept_prior_sd=None).fit(X, y)
    model = estimator.pymc_model("counts")
    assert {"whitened_coef", "shifted_intercept"} <= set(model.named_vars)
    draws = {
        name: np.zeros((1, 2) + tuple(len(model.coords[dim]) for dim in model.named_vars_to_dims[name]))
        for name in ("whitened_coef", "shifted_intercept", "weights", "intercept")
    }
    posterior = xr.Dataset(
        {name: (("chain", "draw") + model.named_vars_to_dims[name], value) for name, value in draws.items()},
        coords={dim: list(model.coords[dim]) for dim in ("vector", "feature", "whitened_vector", "whitened_direction")},
    )
    import arviz as az

    kept = _model_variables_only(
        az.InferenceData(posterior=posterior), keep_tuning=False, auxiliary=estimator._without_auxiliary_draws
    ).posterior
    assert set(kept.data_vars) == {"weights", "intercept"}
    assert set(kept.coords) == {"vector", "feature"}


def test_helmert_is_orthogonal_with_a_constant_first_column_and_the_design_factorises():
    from pgm_models.discriminative._whitening import helmert, whitened_design

    for k in (1, 2, 3, 7):
        H = helmert(k)
        np.testing.assert_allclose(H.T @ H, np.eye(k), atol=1e-15)
        np.testing.assert_allclose(H[:, 0], np.full(k, 1 / np.sqrt(k)))
    np.testing.assert_allclose(helmert(3)[:, 1], [1 / np.sqrt(2), -1 / np.sqrt(2), 0])  # entry 1 against entry 0
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (30, 3)).astype(float)
    design, scale = (
        np.column_stack([X, 1 - X[:, 0], np.ones(30)]),
        np.array([1.0, 1.0, 1.0, 1.0, 10.0]),
    )  # column 3 + column 0 = column 4
    product, V = whitened_design(design, scale)
    assert product.shape == (30, 4)  # rank 4 of 5: the null direction left out
    np.testing.assert_allclose(V.T @ V, np.eye(5), atol=1e-14)
    np.testing.assert_allclose(product @ V[:, :4].T, design * scale, atol=1e-12)
    wide = rng.normal(size=(3, 6))  # fewer rows than coefficients: V completed by the rows' null space
    product, V = whitened_design(wide, np.ones(6))
    assert product.shape == (3, 3)
    np.testing.assert_allclose(V.T @ V, np.eye(6), atol=1e-14)
    np.testing.assert_allclose(product @ V[:, :3].T, wide, atol=1e-12)
    tall = rng.integers(0, 2, (100_000, 2)).astype(float)  # a full U would be 100 000² (80 GB)
    product, V = whitened_design(tall, np.ones(2))
    assert product.shape == (100_000, 2) and V.shape == (2, 2)


def test_flat_intercepts_of_several_classes_are_not_sampled(iris):
    """Their common shift, which the softmax ignores, has a flat posterior: a clear error, not drifting chains."""
    X, y = iris
    model = LogisticRegression(intercept_prior_sd=None).fit(X, y)
    with pytest.raises(ValueError, match="intercept_prior_sd=None with 3 classes has an improper posterior"):
        model.sample_posterior(draws=10)
    assert model.predict(X[:1]).tolist() == [y[0]]  # the MAP fit is unaffected


def test_score_estimates_scores_nan_where_the_draws_are_missing(binary):
    """An unsampled fit defines "map" and "mle" only: score_estimates and compare_estimates score
    "mean" and "predictive" NaN (as their docstrings say for an undefined estimate; they raised
    "call sample_posterior() first"), and the others from predict_proba."""
    import pandas as pd

    from pgm_models import compare_estimates, score_estimates

    X, y = binary
    model = LogisticRegression().fit(X, y)
    table = score_estimates(model, X, y).set_index("estimate")
    assert table.loc[["mean", "predictive"]].isna().all(axis=None)
    true_index = np.searchsorted(model.classes_, y)
    for estimate in ("map", "mle"):
        proba = model.predict_proba(X, estimate=estimate)
        assert table.loc[estimate, "log_loss"] == pytest.approx(-np.mean(np.log(proba[np.arange(len(y)), true_index])))
        assert table.loc[estimate, "accuracy"] == np.mean(proba.argmax(axis=1) == true_index)
    assert table.loc["map", "log_loss"] != table.loc["mle", "log_loss"]
    pd.testing.assert_frame_equal(compare_estimates(LogisticRegression(), X, y, X, y), table.reset_index())


@pytest.mark.nuts
def test_score_estimates_scores_the_draws_once_sampled(sampled, binary):
    from pgm_models import score_estimates

    model, X = sampled
    y = binary[1]
    table = score_estimates(model, X, y).set_index("estimate")
    assert not table.isna().any(axis=None)
    true_index = np.searchsorted(model.classes_, y)
    for estimate in ("mean", "predictive"):
        proba = model.predict_proba(X, estimate=estimate)
        assert table.loc[estimate, "log_loss"] == pytest.approx(-np.mean(np.log(proba[np.arange(len(y)), true_index])))
