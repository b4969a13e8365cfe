"""GaussianNB, LDA and QDA: textbook numbers, scikit-learn agreement, the PyMC forms."""

from fractions import Fraction as F

import numpy as np
import pytest
import sklearn.discriminant_analysis as sda
import sklearn.naive_bayes as skl
from conftest import logp_at_random_points
from scipy import stats
from sklearn.datasets import load_wine

from pgm_models import LDA, QDA, GaussianNB
from pgm_models.datasets import load_dataset


@pytest.fixture(scope="module")
def iris():
    X, y = load_dataset("iris")
    return X.to_numpy(), y.to_numpy()


def test_heights_weights_table_with_n_minus_1():
    X, y = load_dataset("heights-weights")
    model = GaussianNB(estimate="mle", ddof=1).fit(X, y)
    mu, var = model._point("mle")
    men, women = list(model.classes_).index("man"), list(model.classes_).index("woman")
    np.testing.assert_allclose(mu[men], [174, 78.25])
    np.testing.assert_allclose(var[men], [float(F(194, 3)), 142.25])  # 64.67
    np.testing.assert_allclose(mu[women], [161.6, 55.6])
    np.testing.assert_allclose(var[women], [7.3, 14.3])
    # ddof=0 (the MLE proper) divides by n instead
    np.testing.assert_allclose(GaussianNB(estimate="mle").fit(X, y)._point("mle")[1][men], [194 / 4, 142.25 * 3 / 4])


def test_gaussian_nb_mle_limit_matches_scikit_learn_on_iris(iris):
    X, y = iris
    ours = GaussianNB(class_alpha=0, estimate="mle").fit(X, y)
    theirs = skl.GaussianNB(var_smoothing=0).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-8)


@pytest.mark.parametrize(
    "Ours, Theirs",
    [(LDA, lambda: sda.LinearDiscriminantAnalysis(solver="lsqr")), (QDA, sda.QuadraticDiscriminantAnalysis)],
)
@pytest.mark.parametrize("dataset", ["iris", "wine"])
def test_discriminant_mle_limit_matches_scikit_learn(Ours, Theirs, dataset, iris):
    X, y = iris if dataset == "iris" else load_wine(return_X_y=True)
    ours, theirs = Ours(class_alpha=0, estimate="mle").fit(X, y), Theirs().fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-9)


@pytest.mark.parametrize("estimate", ["mle", "mean"])
def test_qda_joint_log_density_is_each_class_normal_over_chunks_of_rows(estimate, monkeypatch):
    """QDA whitens the rows a chunk at a time into reused work arrays: 5 003 rows in chunks of 2 048
    (the last one short) score as scipy's multivariate normal of each class's point estimate plus
    the log class probability, row for row."""
    from pgm_models.conjugate import normal

    rng = np.random.default_rng(11)
    y = rng.integers(0, 3, 5003)
    X = rng.normal(size=(5003, 4)) @ rng.normal(size=(4, 4)) + 3.0 * y[:, None] + 1e3
    model = QDA(estimate=estimate).fit(X, y)
    means, covs = model._point(estimate)
    class_log = np.log(model._class_prior.estimate(model.class_count_, estimate))
    expected = np.column_stack(
        [stats.multivariate_normal(means[k], covs[k]).logpdf(X) + class_log[k] for k in range(3)]
    )
    assert normal.WORK_ROWS == 2048
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-11)
    monkeypatch.setattr(normal, "WORK_ROWS", 1)  # a chunk of one row: the same numbers
    np.testing.assert_allclose(model.predict_joint_log_proba(X[:7]), expected[:7], rtol=1e-11)


def test_lda_mle_is_the_textbook_formula(iris):
    X, y = iris
    model = LDA(class_alpha=0, estimate="mle").fit(X, y)
    means, cov = model._point("mle")
    fitted_means = np.stack([X[y == c].mean(axis=0) for c in model.classes_])
    np.testing.assert_allclose(means, fitted_means)
    residual = X - fitted_means[np.searchsorted(model.classes_, y)]
    np.testing.assert_allclose(cov, residual.T @ residual / len(X))  # Σ = (1/m) Σ (x − μ_y)(x − μ_y)ᵀ
    phi = model._class_prior.estimate(model.class_count_, "mle")
    np.testing.assert_allclose(phi, [1 / 3] * 3)


@pytest.mark.parametrize("estimate", ["mean", "map", "mle"])
def test_binary_lda_is_logistic_in_x(estimate, iris):
    X, y = iris
    keep = y != "Iris-setosa"
    model = LDA(estimate=estimate).fit(X[keep], y[keep])
    theta, theta0 = model.coef_[0], model.intercept_[0]
    means, cov = model._point(estimate)
    np.testing.assert_allclose(theta, np.linalg.solve(cov, means[1] - means[0]))
    logistic = 1 / (1 + np.exp(-(X[keep] @ theta + theta0)))
    np.testing.assert_allclose(model.predict_proba(X[keep])[:, 1], logistic, atol=1e-12)
    with pytest.raises(ValueError, match="not linear"):
        LDA(estimate="predictive").fit(X[keep], y[keep]).coef_  # noqa: B018  (reading it raises)


def test_fisher_discriminant_on_the_textbook_exercise():
    c1 = np.array([(1, 2), (1, 2), (2, 3), (3, 3), (4, 5)], dtype=float)
    c2 = np.array([(1, 0), (2, 1), (3, 1), (3, 2), (5, 3), (6, 5)], dtype=float)
    X, y = np.vstack([c1, c2]), np.array([1] * 5 + [2] * 6)
    model = LDA(estimate="mle").fit(X, y)
    # m1 = (11/5, 3), m2 = (10/3, 2); S_W by hand
    m1, m2 = np.array([11 / 5, 3.0]), np.array([10 / 3, 2.0])
    # C1 deviations (−1.2, −1) ×2, (−0.2, 0), (0.8, 0), (1.8, 2); C2 deviations (−7/3, −2),
    # (−4/3, −1), (−1/3, −1), (−1/3, 0), (5/3, 1), (8/3, 3)
    s1 = sum(np.outer(x - m1, x - m1) for x in c1)
    s2 = sum(np.outer(x - m2, x - m2) for x in c2)
    np.testing.assert_allclose(s1, [[6.8, 6.0], [6.0, 6.0]])
    np.testing.assert_allclose(s2, [[52 / 3, 16.0], [16.0, 16.0]])
    np.testing.assert_allclose(model.within_class_scatter_, s1 + s2)
    overall = X.mean(axis=0)
    s_b = 5 * np.outer(m1 - overall, m1 - overall) + 6 * np.outer(m2 - overall, m2 - overall)
    np.testing.assert_allclose(model.between_class_scatter_, s_b)
    # with two classes S_B ∝ (m1 − m2)(m1 − m2)ᵀ, and w ∝ S_W⁻¹ (m1 − m2)
    direction = np.linalg.solve(s1 + s2, m1 - m2)
    projected = model.transform(X)
    assert projected.shape == (11, 1)
    w = np.linalg.lstsq(X - overall, projected[:, 0], rcond=None)[0]
    assert abs(np.dot(w, direction)) / (np.linalg.norm(w) * np.linalg.norm(direction)) == pytest.approx(1.0)
    # the projection separates the classes
    assert (
        projected[y == 1, 0].max() < projected[y == 2, 0].min()
        or projected[y == 1, 0].min() > projected[y == 2, 0].max()
    )


def test_singular_covariance_in_the_mle_limit_is_named_and_the_prior_fixes_it():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 4))
    y = np.array(["a"] * 9 + ["b"] * 3)  # class b: 3 rows for 4 features
    with pytest.raises(
        ValueError, match=r"covariance of class 'b' is singular under estimate='mle' \(3 rows for 4 features.*reg_param"
    ):
        QDA(estimate="mle").fit(X, y).predict(X)
    for estimate in ("mean", "map", "predictive"):
        assert np.isfinite(QDA(estimate=estimate).fit(X, y).predict_log_proba(X)).all()
    assert np.isfinite(QDA(estimate="mle", reg_param=0.1).fit(X, y).predict_log_proba(X)).all()
    constant = X.copy()
    constant[:, 2] = 1.0
    with pytest.raises(ValueError, match="pooled covariance is singular"):
        LDA(estimate="mle").fit(constant, y).predict(constant)
    with pytest.raises(ValueError, match=r"class 'a', feature 2: the mle variance is 0.0 \(n = 9 rows"):
        GaussianNB(estimate="mle").fit(constant, y).predict(constant)


def test_posterior_covariance_is_positive_definite_with_a_proper_prior():
    X = np.random.default_rng(1).normal(size=(5, 4))
    model = QDA().fit(X, [0, 0, 1, 1, 1])
    for statistic in ("mean", "mode"):
        assert np.linalg.eigvalsh(model.analytic_posterior(statistic)["cov"].values).min() > 0


@pytest.mark.parametrize("Model", [GaussianNB, LDA, QDA])
def test_predictive_is_student_t_and_differs_from_the_plug_in(Model, iris):
    X, y = iris
    model = Model().fit(X[::5], y[::5])  # few rows: the predictive's heavier tails matter
    predictive = model.predict_joint_log_proba(X, estimate="predictive")
    plug_in = model.predict_joint_log_proba(X, estimate="mean")
    assert np.abs(predictive - plug_in).max() > 0.1
    far = X[:1] + 10  # far from every class: the t tails put more mass there than the Normal
    assert (
        model.predict_joint_log_proba(far, estimate="predictive") > model.predict_joint_log_proba(far, estimate="mean")
    ).all()


def test_gaussian_nb_predictive_matches_scipy_t_per_feature(iris):
    X, y = iris
    model = GaussianNB().fit(X, y)
    post = model.posterior_
    k, x = 1, X[60]
    scale = np.sqrt(post.b[k] * (post.kappa[k] + 1) / (post.a[k] * post.kappa[k]))
    expected = stats.t.logpdf(x, df=2 * post.a[k], loc=post.m[k], scale=scale).sum()
    class_prob = model._class_prior.estimate(model.class_count_, "mean")[k]
    assert model.predict_joint_log_proba(X[60:61], estimate="predictive")[0, k] == pytest.approx(
        np.log(class_prob) + expected
    )


@pytest.mark.parametrize("Model", [GaussianNB, LDA, QDA])
def test_partial_fit_over_chunks_equals_one_fit(Model, iris):
    X, y = iris
    prior = dict(prior_mean=5.0)  # data-scaled defaults are fixed by the first batch; pin them
    whole = Model(**prior, **({"prior_var": 1.0} if Model is GaussianNB else {"prior_cov": np.eye(4)})).fit(X, y)
    chunked = Model(**whole.get_params())
    order = np.random.default_rng(0).permutation(len(y))
    for rows in np.array_split(order, 4):
        chunked.partial_fit(X[rows], y[rows], classes=np.unique(y))
    np.testing.assert_allclose(chunked.feature_mean_, whole.feature_mean_)
    np.testing.assert_allclose(chunked.feature_scatter_, whole.feature_scatter_, atol=1e-10)
    np.testing.assert_allclose(chunked.predict_proba(X), whole.predict_proba(X), atol=1e-12)


@pytest.mark.parametrize("Model", [GaussianNB, LDA, QDA])
def test_counts_and_rows_forms_have_the_same_posterior(Model, iris_2d):
    X, y = iris_2d
    model = Model().fit(X[::3], y[::3])
    difference = logp_at_random_points(model.pymc_model("counts")) - logp_at_random_points(
        model.pymc_model("rows", X[::3], y[::3])
    )
    np.testing.assert_allclose(difference, difference[0], atol=1e-8)
    assert abs(difference[0]) > 1


def test_gaussian_nb_find_map_is_the_closed_form_mode(iris_2d):
    X, y = iris_2d
    model = GaussianNB(mean_strength=1.0).fit(X, y)
    found, mode = model.find_map(), model.analytic_posterior("mode")
    for name in mode.data_vars:
        np.testing.assert_allclose(found[name], mode[name], rtol=1e-4)


@pytest.mark.parametrize("Model", [LDA, QDA])
def test_exact_draws_are_joint_and_positive_definite(Model, iris_2d):
    X, y = iris_2d
    idata = Model().fit(X, y).posterior_draws(200, random_seed=0)
    cov = idata.posterior["cov"].values
    assert np.linalg.eigvalsh(cov).min() > 0
    assert idata.posterior["class_mean"].dims == ("chain", "draw", "class", "feature")


def test_bad_gaussian_input_is_named():
    X = np.array([[1.0, 2.0], [np.nan, 1.0], [0.5, 0.5]])
    with pytest.raises(ValueError, match="NaN or inf value: nan in column 0"):
        GaussianNB().fit(X, [0, 1, 1])
    with pytest.raises(ValueError, match="mean_strength must be a number > 0"):
        LDA(mean_strength=0).fit(np.eye(3), [0, 1, 1])
    with pytest.raises(ValueError, match="prior_cov must be a symmetric positive definite 3×3 matrix"):
        QDA(prior_cov=-np.eye(3)).fit(np.eye(3), [0, 1, 1])
