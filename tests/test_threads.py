"""Results do not depend on the number of BLAS threads (pgm_models._utils.threads)."""

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from pgm_models import LogisticRegression
from pgm_models._utils.threads import single_blas_thread


def _fit(n_threads, X, y):
    with threadpool_limits(limits=n_threads, user_api="blas"):
        model = LogisticRegression().fit(X, y)
    return model.coef_, model.intercept_, model.n_iter_


def test_logistic_regression_gives_the_same_coefficients_under_1_and_2_blas_threads():
    # 700 rows × 100 features × 3 classes: products large enough for OpenBLAS to use threads
    rng = np.random.default_rng(0)
    X = rng.normal(size=(700, 100))
    y = rng.integers(0, 3, 700)
    (coef_1, intercept_1, iterations_1), (coef_2, intercept_2, iterations_2) = _fit(1, X, y), _fit(2, X, y)
    np.testing.assert_allclose(coef_2, coef_1, rtol=0, atol=1e-10)
    np.testing.assert_allclose(intercept_2, intercept_1, rtol=0, atol=1e-10)
    assert iterations_1 == iterations_2


def test_single_blas_thread_limits_blas_inside_and_restores_it_after():
    def blas_threads():
        return {info["filepath"]: info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"}

    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        inside = single_blas_thread(blas_threads)()
        after = blas_threads()
    assert before and set(inside.values()) == {1}
    assert after == before and set(before.values()) == {2}


def test_gaussian_fit_and_scoring_run_on_one_blas_thread(monkeypatch):
    """LDA's (N × p)(p × K) scoring product took 8× as long at 1e4 rows on two OpenBLAS threads,
    QDA's whitening 4×, and both waited on each other under load (10-fold CV of LDA on iris: 5×
    its quiet time beside two busy processes): the moments, the Cholesky-based scores and the linear
    discriminants run on one thread."""
    from pgm_models import LDA, QDA, GaussianNB
    from pgm_models.gaussian import _base, discriminant

    seen = []

    def spy(module, name):
        original = getattr(module, name)
        monkeypatch.setattr(
            module,
            name,
            lambda *args, **kwargs: seen.append((name, _blas_thread_counts())) or original(*args, **kwargs),
        )

    spy(discriminant.scipy.linalg, "solve_triangular")
    spy(_base, "batch_moments")
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(300, 4)), rng.integers(0, 3, 300)
    with threadpool_limits(limits=2, user_api="blas"):
        for Model in (LDA, QDA, GaussianNB):
            model = Model().fit(X, y)
            model.predict_proba(X), model.predict_joint_log_proba(X)
    names = {name for name, _ in seen}
    assert names == {"solve_triangular", "batch_moments"}
    assert all(counts == {1} for _, counts in seen), seen


def _blas_thread_counts():
    return {info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"}
