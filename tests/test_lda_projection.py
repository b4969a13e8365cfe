"""LDA as a projection: scalings_, explained_variance_ratio_, transform and n_components equal to
scikit-learn's LinearDiscriminantAnalysis (svd and eigen solvers) up to each component's sign;
get_feature_names_out; the directions under exact posterior draws."""

import numpy as np
import pandas as pd
import pytest
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA

from pgm_models import LDA
from pgm_models.datasets import load_dataset


def aligned(ours, theirs):
    """``ours`` with each column's sign flipped to agree with ``theirs``'s."""
    signs = np.sign(np.sum(ours * theirs, axis=0))
    assert np.all(signs != 0)
    return ours * signs


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 4, 400)
    X = rng.normal(size=(400, 5)) @ rng.normal(size=(5, 5)) + rng.normal(size=(4, 5))[y] * 2
    return X, y


@pytest.mark.parametrize("n_components", [None, 1, 2])
@pytest.mark.parametrize("source", ["iris", "synthetic"])
def test_projection_equals_scikit_learn_up_to_sign(data, source, n_components):
    if source == "iris":
        X, y = (part.to_numpy() for part in load_dataset("iris"))
    else:
        X, y = data
    d = n_components or min(len(np.unique(y)) - 1, X.shape[1])
    ours = LDA(estimate="mle", n_components=n_components).fit(X, y)
    svd = SkLDA(solver="svd", n_components=n_components).fit(X, y)
    eigen = SkLDA(solver="eigen", n_components=n_components).fit(X, y)
    assert ours.scalings_.shape == (X.shape[1], d)
    np.testing.assert_allclose(
        aligned(ours.scalings_, svd.scalings_[:, :d]), svd.scalings_[:, :d], rtol=1e-8, atol=1e-10
    )
    np.testing.assert_allclose(
        aligned(ours.scalings_, eigen.scalings_[:, :d]), eigen.scalings_[:, :d], rtol=1e-8, atol=1e-10
    )
    for theirs in (svd, eigen):
        np.testing.assert_allclose(
            ours.explained_variance_ratio_, theirs.explained_variance_ratio_, rtol=1e-8, atol=1e-12
        )
    projected = ours.transform(X)
    assert projected.shape == (len(X), d)
    np.testing.assert_allclose(aligned(projected, svd.transform(X)), svd.transform(X), rtol=1e-8, atol=1e-8)
    # scikit-learn's eigen solver does not centre: its transform is ours plus the constant x̄ W
    centred = eigen.transform(X) - eigen.transform(svd.xbar_[None, :])
    np.testing.assert_allclose(aligned(projected, centred), centred, rtol=1e-8, atol=1e-8)


def test_directions_whiten_the_covariance_of_the_estimate_in_use(data):
    X, y = data
    for estimate in ("mle", "mean", "map"):
        model = LDA(estimate=estimate).fit(X, y)
        _, cov = model._point(estimate)
        np.testing.assert_allclose(model.scalings_.T @ cov @ model.scalings_, np.eye(3), atol=1e-10)


def test_feature_names_out_and_pandas_output(data):
    X, y = data
    model = LDA(n_components=2).fit(X, y)
    np.testing.assert_array_equal(model.get_feature_names_out(), ["lda0", "lda1"])
    frame = (
        LDA(n_components=2)
        .set_output(transform="pandas")
        .fit(pd.DataFrame(X, columns=list("abcde")), y)
        .transform(pd.DataFrame(X, columns=list("abcde")))
    )
    assert list(frame.columns) == ["lda0", "lda1"]
    np.testing.assert_allclose(frame.to_numpy(), model.transform(X), rtol=1e-12)


@pytest.mark.parametrize("n_components", [0, 4, 2.0, True])
def test_n_components_out_of_range_is_refused(data, n_components):
    X, y = data
    with pytest.raises(
        ValueError, match=r"n_components must be an integer from 1 to min\(K − 1, p\) = 3 \(4 classes, 5 features\)"
    ):
        LDA(n_components=n_components).fit(X, y)


def _draws_about_the_plug_in(n_per_class, seed):
    """(cosine of the draws' mean direction with the plug-in's, mean angle of a draw from it) of
    the first discriminant direction, on data with n_per_class rows of each of 3 classes."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], n_per_class)
    X = (
        rng.normal(size=(len(y), 3)) @ np.array([[1.0, 0.3, 0.0], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])
        + np.array([[0.0, 0.0, 0.0], [1.0, 0.5, 0.0], [0.0, 1.5, 1.0]])[y]
    )
    model = LDA().fit(X, y)
    draws = model.posterior_scalings(n_draws=400, random_seed=seed)
    assert draws.shape == (400, 3, 2)
    plug_in = model.scalings_[:, 0] / np.linalg.norm(model.scalings_[:, 0])
    unit = draws[:, :, 0] / np.linalg.norm(draws[:, :, 0], axis=1, keepdims=True)
    mean = unit.mean(axis=0)
    return mean @ plug_in / np.linalg.norm(mean), np.degrees(np.arccos(np.clip(unit @ plug_in, -1, 1))).mean()


def test_posterior_directions_concentrate_on_the_plug_in_as_rows_grow():
    """The posterior sd of a direction falls as 1/√n: 100 times the rows, a tenth of the spread.
    The bounds leave a factor of 2.5 either way against the draws' own noise (400 draws: the mean
    angle's relative sd is about 4 %), so a false failure needs a many-sd excursion."""
    (cos_small, spread_small), (cos_large, spread_large) = (
        _draws_about_the_plug_in(30, 0),
        _draws_about_the_plug_in(3000, 1),
    )
    assert spread_large < spread_small / 4
    assert 1 - cos_large < (1 - cos_small) / 4 or 1 - cos_large < 1e-6
    assert cos_large > 0.9999


def test_posterior_scalings_are_reproducible_and_signed_like_the_plug_in(data):
    X, y = data
    model = LDA().fit(X, y)
    first, again = model.posterior_scalings(20, random_seed=5), model.posterior_scalings(20, random_seed=5)
    np.testing.assert_array_equal(first, again)
    _, cov = model._point("mean")
    assert np.all(np.einsum("pd,pq,sqd->sd", model.scalings_, cov, first) > 0)
