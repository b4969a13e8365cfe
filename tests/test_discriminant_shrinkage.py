"""LDA/QDA shrinkage and covariance_estimator: scikit-learn's lsqr/eigen LDA and eigen QDA to
1e-10, an explicit Ledoit–Wolf per class, partial_fit of the mergeable statistics, the NIW
posterior mean as a convex combination, and bad parameters."""

import numpy as np
import pytest
from sklearn.covariance import OAS, LedoitWolf, MinCovDet, ledoit_wolf
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis as SkQDA
from sklearn.preprocessing import StandardScaler

from pgm_models import LDA, QDA


@pytest.fixture(scope="module")
def data():
    """Few rows per class for 8 correlated features of different scales: shrinkage matters."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 60)
    X = rng.normal(size=(60, 8)) @ rng.normal(size=(8, 8)) * np.geomspace(0.1, 10, 8) + 3.0 * y[:, None]
    return X, y


SHRINKAGES = [None, "auto", 0.0, 0.35, 1.0]


@pytest.mark.parametrize("solver", ["lsqr", "eigen"])
@pytest.mark.parametrize("shrinkage", SHRINKAGES)
def test_lda_equals_scikit_learn(data, solver, shrinkage):
    X, y = data
    theirs = SkLDA(solver=solver, shrinkage=shrinkage).fit(X, y)
    ours = LDA(estimate="mle", shrinkage=shrinkage).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-10)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


@pytest.mark.parametrize("estimator", [OAS(), LedoitWolf(), MinCovDet(random_state=0)], ids=lambda e: type(e).__name__)
@pytest.mark.parametrize(
    "Ours, theirs", [(LDA, SkLDA(solver="lsqr")), (QDA, SkQDA(solver="eigen"))], ids=["LDA", "QDA"]
)
def test_covariance_estimator_equals_scikit_learn(data, estimator, Ours, theirs):
    X, y = data
    theirs = theirs.set_params(covariance_estimator=estimator).fit(X, y)
    ours = Ours(estimate="mle", covariance_estimator=estimator).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-10)


@pytest.mark.parametrize(
    "Ours, theirs", [(LDA, SkLDA(solver="lsqr")), (QDA, SkQDA(solver="eigen"))], ids=["LDA", "QDA"]
)
def test_oas_is_scikit_learns_oas_estimator(data, Ours, theirs):
    X, y = data
    theirs = theirs.set_params(covariance_estimator=OAS()).fit(X, y)
    np.testing.assert_allclose(
        Ours(estimate="mle", shrinkage="oas").fit(X, y).predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-10
    )


@pytest.mark.parametrize("shrinkage", SHRINKAGES)
def test_qda_equals_scikit_learns_eigen_solver(data, shrinkage):
    X, y = data
    theirs = SkQDA(solver="eigen", shrinkage=shrinkage).fit(X, y)
    ours = QDA(estimate="mle", shrinkage=shrinkage).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-10)


def test_qda_auto_is_ledoit_wolf_of_each_class_standardised(data):
    """The explicit computation: per class, Ledoit–Wolf on the standardised rows, rescaled; the
    Gaussian log densities under those covariances and the class frequencies."""
    from scipy.stats import multivariate_normal

    X, y = data
    covs = []
    for k in range(3):
        scaler = StandardScaler().fit(X[y == k])
        covs.append(scaler.scale_[:, None] * ledoit_wolf(scaler.transform(X[y == k]))[0] * scaler.scale_[None, :])
    joint = np.stack(
        [np.log(np.mean(y == k)) + multivariate_normal(X[y == k].mean(axis=0), covs[k]).logpdf(X) for k in range(3)],
        axis=1,
    )
    expected = np.exp(joint - joint.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    model = QDA(estimate="mle", shrinkage="auto").fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=0, atol=1e-10)
    np.testing.assert_allclose(model._plug_in_cov(), covs, rtol=1e-12)


@pytest.mark.parametrize("shrinkage", ["auto", "oas", 0.2])
def test_partial_fit_batches_equal_one_fit(data, shrinkage):
    X, y = data
    whole = QDA(estimate="mle", shrinkage=shrinkage).fit(X, y)
    batched = QDA(estimate="mle", shrinkage=shrinkage)
    for rows in np.array_split(np.random.default_rng(3).permutation(len(y)), 4):
        batched.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    np.testing.assert_allclose(batched._plug_in_cov(), whole._plug_in_cov(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(batched.predict_proba(X), whole.predict_proba(X), rtol=0, atol=1e-10)


def test_auto_with_whole_sample_weights_equals_repeated_rows(data):
    X, y = data
    weight = np.random.default_rng(4).integers(1, 4, len(y)).astype(float)
    weighted = LDA(estimate="mle", shrinkage="auto").fit(X, y, sample_weight=weight)
    repeated = LDA(estimate="mle", shrinkage="auto").fit(
        np.repeat(X, weight.astype(int), axis=0), np.repeat(y, weight.astype(int))
    )
    np.testing.assert_allclose(weighted._plug_in_cov(), repeated._plug_in_cov(), rtol=1e-10)


def test_shrinkage_moves_the_plug_in_covariance_towards_its_mean_eigenvalue(data):
    X, y = data
    plain = LDA(estimate="mle").fit(X, y)._plug_in_cov()
    full = LDA(estimate="mle", shrinkage=1.0).fit(X, y)._plug_in_cov()
    # s = 1: every class's covariance replaced by its μ_k I, pooled: a multiple of I with the same trace
    np.testing.assert_allclose(full, np.trace(plain) / 8 * np.eye(8), rtol=1e-12)


def test_the_niw_posterior_mean_is_a_convex_combination_of_prior_and_sample_covariance(data):
    X, y = data
    p, N, nu0 = 8, len(y), 14.0
    prior_cov = np.diag(np.arange(1.0, 9.0))
    model = LDA(prior_cov=prior_cov, cov_strength=nu0).fit(X, y)
    m0, kappa0 = X.mean(axis=0), 0.01
    spread = sum(
        kappa0 * n / (kappa0 + n) * np.outer(X[y == k].mean(axis=0) - m0, X[y == k].mean(axis=0) - m0)
        for k, n in enumerate(np.bincount(y))
    )
    w = (nu0 - p - 1) / (nu0 + N - p - 1)
    sample = LDA(estimate="mle").fit(X, y)._plug_in_cov()
    expected = w * prior_cov + (1 - w) * sample + spread / (nu0 + N - p - 1)
    np.testing.assert_allclose(model.analytic_posterior()["cov"].to_numpy(), expected, rtol=1e-10)


def test_posterior_estimates_keep_the_prior_when_scored_per_call(data):
    X, y = data
    shrunk = LDA(estimate="mle", shrinkage=0.5).fit(X, y)
    np.testing.assert_allclose(
        shrunk.predict_proba(X, estimate="mean"), LDA().fit(X, y).predict_proba(X), rtol=0, atol=1e-12
    )
    assert np.abs(shrunk.predict_proba(X) - LDA(estimate="mle").fit(X, y).predict_proba(X)).max() > 1e-3


@pytest.mark.parametrize(
    "params, message",
    [
        (
            {"estimate": "mle", "shrinkage": 1.5},
            r"shrinkage must be None, 'auto' \(Ledoit–Wolf\), 'oas' or a number in \[0, 1\], got 1.5",
        ),
        ({"estimate": "mle", "shrinkage": "ledoit"}, r"shrinkage must be None, 'auto'.*got 'ledoit'"),
        ({"estimate": "mle", "shrinkage": True}, r"shrinkage must be None.*got True"),
        (
            {"shrinkage": "auto"},
            r"shrinkage and covariance_estimator set the plug-in covariance of estimate='mle', not of estimate='mean'",
        ),
        (
            {"estimate": "mle", "shrinkage": 0.1, "covariance_estimator": OAS()},
            r"shrinkage=0.1 and covariance_estimator are both set",
        ),
        (
            {"estimate": "mle", "covariance_estimator": "oas"},
            r"covariance_estimator must be a scikit-learn covariance estimator",
        ),
    ],
)
def test_bad_parameters_are_refused(data, params, message):
    X, y = data
    with pytest.raises(ValueError, match=message):
        QDA(**params).fit(X, y)


def test_covariance_estimator_sees_each_class_once(data):
    X, y = data
    model = LDA(estimate="mle", covariance_estimator=OAS()).partial_fit(X[y == 0], y[y == 0], classes=[0, 1, 2])
    model.partial_fit(X[y != 0], y[y != 0])  # new classes: fine
    with pytest.raises(ValueError, match="class 1 already had rows from an earlier batch"):
        model.partial_fit(X[y == 1], y[y == 1])
    with pytest.raises(ValueError, match="covariance_estimator takes no sample_weight"):
        LDA(estimate="mle", covariance_estimator=OAS()).fit(X, y, sample_weight=np.full(len(y), 0.5))


def test_a_dask_fit_with_auto_refuses_to_score():
    dask = pytest.importorskip("dask")
    import dask.array as da

    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(80, 3)), rng.integers(0, 2, 80)
    with dask.config.set(scheduler="sync"):
        model = LDA(estimate="mle", shrinkage="auto").fit(
            da.from_array(X, chunks=(20, -1)), da.from_array(y, chunks=20)
        )
        with pytest.raises(
            ValueError, match=r"shrinkage='auto' needs statistics of the rows beyond \(n, mean, scatter\)"
        ):
            model.predict_proba(X)
        oas_fit = LDA(estimate="mle", shrinkage="oas").fit(
            da.from_array(X, chunks=(20, -1)), da.from_array(y, chunks=20)
        )
    np.testing.assert_allclose(
        oas_fit.predict_proba(X), LDA(estimate="mle", shrinkage="oas").fit(X, y).predict_proba(X), atol=1e-12
    )


@pytest.mark.parametrize("work_rows", [2048, 7])  # one chunk of rows per class; several, the last one short
@pytest.mark.parametrize("unit", [True, False])
def test_batch_moments_are_the_textbook_sums_over_chunks_of_rows(work_rows, unit, monkeypatch):
    """n_k, x̄_k, S_k, T_k = Σ w d_j² d_l and F_k = Σ w d_j² d_l² (d = x − x̄_k), which "auto" reads from
    one symmetric product over chunks of ``WORK_ROWS`` rows, against their sums written out."""
    from pgm_models.conjugate import normal
    from pgm_models.gaussian._shrinkage import batch_all_moments

    monkeypatch.setattr(normal, "WORK_ROWS", work_rows)
    rng = np.random.default_rng(6)
    X = rng.normal(size=(40, 3)) * [1.0, 10.0, 0.1] + 5.0
    y = np.r_[np.zeros(25, int), np.full(15, 2)]  # class 1 has no rows
    weight = np.ones(40) if unit else rng.random(40) * 2
    n, mean, scatter, third, fourth = batch_all_moments(X, y, weight, 3)
    np.testing.assert_allclose(n, [weight[:25].sum(), 0.0, weight[25:].sum()], rtol=1e-15)
    for k in (0, 2):
        w = weight[y == k]
        d = X[y == k] - np.average(X[y == k], axis=0, weights=w)
        np.testing.assert_allclose(mean[k], np.average(X[y == k], axis=0, weights=w), rtol=1e-14)
        np.testing.assert_allclose(scatter[k], np.einsum("i,ij,il->jl", w, d, d), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(third[k], np.einsum("i,ij,il->jl", w, d**2, d), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(fourth[k], np.einsum("i,ij,il->jl", w, d**2, d**2), rtol=1e-12, atol=1e-12)
    for moments in (mean, scatter, third, fourth):
        assert not moments[1].any()
