"""The scikit-learn API shared by the discrete family, and the errors bad input gets."""

import pickle

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from pgm_models import (
    AODE,
    LDA,
    QDA,
    SPODE,
    TAN,
    BernoulliNB,
    CategoricalNB,
    GaussianNB,
    LogisticRegression,
    MultinomialNB,
)

DISCRETE = [CategoricalNB, BernoulliNB, MultinomialNB]
ESTIMATORS = DISCRETE + [GaussianNB, LDA, QDA, SPODE, AODE, TAN]  # the generative zoo
EVERY_ESTIMATOR = ESTIMATORS + [LogisticRegression]
X_COUNTS = np.array([[1, 0, 2], [0, 1, 1], [2, 2, 0], [1, 1, 1]], dtype=float)
Y = np.array(["a", "b", "a", "b"])


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_fitted_attributes_and_probability_api(Estimator):
    model = Estimator().fit(X_COUNTS, Y)
    assert list(model.classes_) == ["a", "b"]
    assert model.n_features_in_ == 3
    np.testing.assert_array_equal(model.class_count_, [2, 2])
    np.testing.assert_allclose(model.class_concentration_, [3, 3])
    proba = model.predict_proba(X_COUNTS)
    np.testing.assert_allclose(proba.sum(axis=1), 1)
    np.testing.assert_allclose(np.log(proba), model.predict_log_proba(X_COUNTS))
    joint = model.predict_joint_log_proba(X_COUNTS)
    np.testing.assert_allclose(
        joint - joint.max(axis=1, keepdims=True), np.log(proba) - np.log(proba).max(axis=1, keepdims=True)
    )
    np.testing.assert_array_equal(model.predict(X_COUNTS), model.classes_[proba.argmax(axis=1)])
    assert model.score(X_COUNTS, Y) == np.mean(model.predict(X_COUNTS) == Y)


@pytest.mark.parametrize("Estimator", EVERY_ESTIMATOR)
def test_feature_names_from_a_dataframe(Estimator):
    frame = pd.DataFrame(X_COUNTS, columns=["u", "v", "w"])
    model = Estimator().fit(frame, Y)
    assert list(model.feature_names_in_) == ["u", "v", "w"]


@pytest.mark.parametrize("Estimator", EVERY_ESTIMATOR)
def test_pickle_round_trip_keeps_predictions(Estimator):
    model = Estimator().fit(X_COUNTS, Y)
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict_proba(X_COUNTS), model.predict_proba(X_COUNTS))


@pytest.mark.parametrize("Estimator", EVERY_ESTIMATOR)
@pytest.mark.parametrize(
    "X, y, kwargs, message",
    [
        (X_COUNTS, Y[:3], {}, "X has 4 rows but y has 3"),
        (X_COUNTS[:0], Y[:0], {}, r"X is empty \(0 rows\)"),
        (X_COUNTS, np.array(["a", None, "b", "a"], dtype=object), {}, r"y has 1 missing label\(s\).*first at row 1"),
        (X_COUNTS, Y, {"sample_weight": [1, 1, -1, 1]}, r"sample_weight\[2\] = -1.0"),
        (X_COUNTS, Y, {"sample_weight": [1, 1]}, r"sample_weight has shape \(2,\); expected \(4,\)"),
    ],
)
def test_bad_training_input_is_named(Estimator, X, y, kwargs, message):
    with pytest.raises(ValueError, match=message):
        Estimator().fit(X, y, **kwargs)


PARAMETER_ERRORS = [
    ({"class_alpha": np.nan}, "class_alpha must be finite"),
    ({"estimate": "median"}, "estimate='median' is not one of"),
    ({"class_alpha": [1, 2, 3]}, "class_alpha has 3 entries; expected 2"),
]


@pytest.mark.parametrize(
    "Estimator, params, message",
    [(E, p, m) for E in ESTIMATORS for p, m in PARAMETER_ERRORS if set(p) <= set(E().get_params())],
)
def test_invalid_parameters_are_named(Estimator, params, message):
    with pytest.raises(ValueError, match=message):
        Estimator(**params).fit(X_COUNTS, Y)


@pytest.mark.parametrize("Estimator", DISCRETE)
@pytest.mark.parametrize(
    "params, message",
    [({"alpha": -1}, "alpha must be finite and ≥ 0"), ({"alpha": [1, 2]}, "alpha has 2 entries; expected 3")],
)
def test_invalid_alpha_is_named(Estimator, params, message):
    with pytest.raises(ValueError, match=message):
        Estimator(**params).fit(X_COUNTS, Y)


@pytest.mark.parametrize("Estimator", EVERY_ESTIMATOR)
def test_wrong_feature_count_and_unknown_estimate_at_prediction(Estimator):
    model = Estimator().fit(X_COUNTS, Y)
    with pytest.raises(ValueError, match="X has 2 features, but .* is expecting 3 features"):
        model.predict(X_COUNTS[:, :2])
    with pytest.raises(ValueError, match="estimate='mode' is not one of"):
        model.predict_proba(X_COUNTS, estimate="mode")


@pytest.mark.parametrize("Estimator", [BernoulliNB, MultinomialNB, GaussianNB, LDA, QDA])
def test_non_finite_numeric_input_is_named(Estimator):
    X = X_COUNTS.copy()
    X[1, 2] = np.inf
    with pytest.raises(ValueError, match="NaN or inf value: inf in column 2"):
        Estimator().fit(X, Y)
    X[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or inf value: nan in column 'w'"):
        Estimator().fit(pd.DataFrame(X, columns=["u", "v", "w"]), Y)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_partial_fit_needs_classes_and_rejects_new_labels(Estimator):
    with pytest.raises(ValueError, match="the first call to partial_fit needs classes="):
        Estimator().partial_fit(X_COUNTS, Y)
    model = Estimator().partial_fit(X_COUNTS, Y, classes=["a", "b"])
    with pytest.raises(ValueError, match=r"y has label 'c', which is not among classes_ \['a', 'b'\]"):
        model.partial_fit(X_COUNTS[:1], ["c"])
    with pytest.raises(ValueError, match="differs from classes_"):
        model.partial_fit(X_COUNTS[:1], ["a"], classes=["a", "z"])


def test_declared_class_without_rows_keeps_prior_mass():
    model = MultinomialNB().partial_fit(X_COUNTS, Y, classes=["a", "b", "c"])
    proba = model.predict_proba(X_COUNTS)
    assert np.all(proba[:, 2] > 0)
    np.testing.assert_allclose(model.analytic_posterior("mean")["class_prob"].values, [3 / 7, 3 / 7, 1 / 7])


def test_continuous_target_is_rejected_unless_declared_categorical():
    with pytest.raises(ValueError, match="Unknown label type"):
        MultinomialNB().fit(X_COUNTS, [0.1, 0.5, 0.7, 1.2])
    y = pd.Series(pd.Categorical([0.1, 0.5, 0.1, 0.5], categories=[0.1, 0.5, 0.7]))  # classes by declaration
    model = MultinomialNB().fit(X_COUNTS, y)
    np.testing.assert_array_equal(model.classes_, [0.1, 0.5, 0.7])
    np.testing.assert_array_equal(model.class_count_, [2, 2, 0])


def test_sparse_and_dense_input_give_the_same_model():
    dense = MultinomialNB().fit(X_COUNTS, Y)
    sparse = MultinomialNB().fit(sp.csr_matrix(X_COUNTS), Y)
    np.testing.assert_allclose(dense.predict_proba(X_COUNTS), sparse.predict_proba(sp.csr_matrix(X_COUNTS)))


def test_the_package_namespace_lists_the_estimators_and_nothing_it_imports():
    """The estimators load on first use (PEP 562); the module's own imports stay private."""
    import types

    import pgm_models

    public = {name for name in dir(pgm_models) if not name.startswith("_")}
    submodules = {
        name
        for name in public
        if isinstance(getattr(pgm_models, name), types.ModuleType)
        and getattr(pgm_models, name).__name__ == f"pgm_models.{name}"
    }
    assert public - submodules == set(pgm_models.__all__)
    assert pgm_models.CategoricalNB.__name__ == "CategoricalNB"
    with pytest.raises(AttributeError, match="no attribute 'importlib'"):
        pgm_models.importlib  # noqa: B018  (the attribute access is what raises)
