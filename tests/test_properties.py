"""Property tests (hypothesis) across the zoo, and extreme inputs that must never give NaN."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pgm_models import AODE, LDA, QDA, SPODE, TAN, BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _data(kind: str, seed: int, n_rows: int, n_features: int):
    """A small dataset of the kind each model takes, with both classes present."""
    rng = np.random.default_rng(seed)
    y = np.resize([0, 1, 2], n_rows)
    rng.shuffle(y)
    if kind == "categorical":
        X = rng.integers(0, 3, size=(n_rows, n_features)).astype(float)
        X[rng.random(X.shape) < 0.1] = np.nan  # missing values too
        return pd.DataFrame(X).astype("category"), y
    if kind == "binary":
        return (rng.random((n_rows, n_features)) < 0.4).astype(float), y
    if kind == "counts":
        return rng.poisson(2.0, size=(n_rows, n_features)).astype(float), y
    return rng.normal(size=(n_rows, n_features)) + y[:, None], y


MODELS = [
    (CategoricalNB, "categorical"),
    (SPODE, "categorical"),
    (AODE, "categorical"),
    (TAN, "categorical"),
    (BernoulliNB, "binary"),
    (MultinomialNB, "counts"),
    (GaussianNB, "gaussian"),
    (LDA, "gaussian"),
    (QDA, "gaussian"),
]
PINNED_PRIOR = {
    GaussianNB: {"prior_mean": 0.0, "prior_var": 1.0},
    LDA: {"prior_mean": 0.0, "prior_cov": None},
    QDA: {"prior_mean": 0.0, "prior_cov": None},
}


def _model(Model, n_features):
    params = dict(PINNED_PRIOR.get(Model, {}))
    if params.get("prior_cov", 0) is None:
        params["prior_cov"] = np.eye(n_features)  # data-scaled defaults depend on the first batch
    return Model(**params)


datasets = st.tuples(st.integers(0, 10_000), st.integers(9, 40), st.integers(1, 4))


@pytest.mark.parametrize("Model, kind", MODELS, ids=[m.__name__ for m, _ in MODELS])
@SETTINGS
@given(datasets)
def test_probabilities_are_distributions(Model, kind, dataset):
    seed, n_rows, n_features = dataset
    X, y = _data(kind, seed, n_rows, n_features)
    for estimate in ("mean", "map", "predictive"):
        proba = _model(Model, n_features).fit(X, y).predict_proba(X, estimate=estimate)
        assert np.all((proba >= 0) & (proba <= 1))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("Model, kind", MODELS, ids=[m.__name__ for m, _ in MODELS])
@SETTINGS
@given(datasets)
def test_row_order_weights_and_chunks_do_not_change_the_model(Model, kind, dataset):
    seed, n_rows, n_features = dataset
    X, y = _data(kind, seed, n_rows, n_features)
    take = (lambda rows: X.iloc[rows]) if isinstance(X, pd.DataFrame) else (lambda rows: X[rows])
    reference = _model(Model, n_features).fit(X, y).predict_proba(X)
    order = np.random.default_rng(seed).permutation(n_rows)
    np.testing.assert_allclose(
        _model(Model, n_features).fit(take(order), y[order]).predict_proba(X), reference, atol=1e-10
    )
    weight = np.random.default_rng(seed + 1).integers(0, 3, n_rows)
    weight[[np.flatnonzero(y == k)[0] for k in range(3)]] = 1  # every class keeps a row
    repeated = np.repeat(np.arange(n_rows), weight)
    np.testing.assert_allclose(
        _model(Model, n_features).fit(X, y, sample_weight=weight).predict_proba(X),
        _model(Model, n_features).fit(take(repeated), y[repeated]).predict_proba(X),
        atol=1e-10,
    )
    chunked = _model(Model, n_features)
    for rows in np.array_split(np.arange(n_rows), 3):
        chunked.partial_fit(take(rows), y[rows], classes=[0, 1, 2])
    if kind == "categorical":  # observed domains are fixed by the first chunk: declare them
        return
    np.testing.assert_allclose(chunked.predict_proba(X), reference, atol=1e-10)


# ---------------------------------------------------------------------- extreme inputs
def _never_nan(log_proba):
    assert not np.isnan(log_proba).any()
    assert np.all(np.isfinite(log_proba) | np.isneginf(log_proba))


def test_multinomial_with_100k_features_and_counts_of_a_billion():
    rng = np.random.default_rng(0)
    X = sp.random(20, 100_000, density=1e-3, random_state=1, format="csr") * 1e9
    y = rng.integers(0, 2, 20)
    for estimate in ("mean", "mle", "predictive"):
        _never_nan(MultinomialNB(alpha=1e-10).fit(X, y).predict_log_proba(X, estimate=estimate))


@pytest.mark.parametrize("alpha", [1e-10, 0.0])
def test_tiny_and_zero_alpha(alpha):
    X, y = _data("categorical", 3, 30, 4)
    for Model in (CategoricalNB, SPODE, AODE, TAN):
        _never_nan(Model(alpha=alpha).fit(X, y).predict_log_proba(X))
    Xb, yb = _data("binary", 3, 30, 5)
    _never_nan(BernoulliNB(alpha=alpha, binarize=None).fit(Xb, yb).predict_log_proba(Xb))


@pytest.mark.parametrize("scale", [1e-10, 1e10])
@pytest.mark.parametrize("Model", [GaussianNB, LDA, QDA])
def test_gaussian_models_on_extreme_scales(Model, scale):
    X, y = _data("gaussian", 5, 60, 3)
    X = X * scale
    model = Model().fit(X, y)
    for estimate in ("mean", "map", "mle", "predictive"):
        log_proba = model.predict_log_proba(X, estimate=estimate)
        _never_nan(log_proba)
    assert (model.predict(X) == y).mean() > 0.5  # the scale does not break the fit


@pytest.mark.parametrize("Model", [GaussianNB, LDA, QDA])
@SETTINGS
@given(st.integers(0, 10_000), st.floats(-1e8, 1e8), st.integers(-10, 10))
def test_gaussian_predictions_are_invariant_under_translation_and_rescaling(Model, seed, shift, log_scale):
    """The default priors are scaled to the data, so moving the data by up to 1e8 sds and scaling
    it by 1e±10 changes nothing but rounding: the input itself is rounded to ~1e-8 sd at a shift
    of 1e8, which moves a probability by ~1e-7 (an LDA scoring ‖z‖² − 2zᵀw + ‖w‖² uncentred
    changed them by up to 0.98)."""
    X, y = _data("gaussian", seed, 60, 3)
    moved = (X + shift) * 10.0**log_scale
    for estimate in ("mean", "map", "mle", "predictive"):
        np.testing.assert_allclose(
            Model(estimate=estimate).fit(moved, y).predict_proba(moved),
            Model(estimate=estimate).fit(X, y).predict_proba(X),
            atol=1e-6,
        )
