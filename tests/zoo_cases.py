"""Every estimator of ``pgm_models.ESTIMATORS`` fitted on a small dataset of the kind it takes,
with the rows to score and its prediction methods: what the class-of-bug tests (row independence,
thread safety, input aliasing) run over."""

from __future__ import annotations

import numpy as np

import pgm_models
from pgm_models import CategoricalNB

NOMINAL = {
    "CategoricalNB",
    "SPODE",
    "TAN",
    "AODE",
    "AODEsr",
    "WAODE",
    "HNB",
    "A2DE",
    "HierarchicalNB",
    "MANB",
    "BMATAN",
    "BayesNetClassifier",
    "KDB",
}
COUNTS = {"MultinomialNB", "BernoulliNB", "ComplementNB"}
NUMERIC = {"GaussianNB", "LDA", "QDA", "LogisticRegression"}
# the λ draws a HierarchicalNB's NUTS run would leave (its prediction averages over them): fixed
# here, so that the tests need no sampler
HIERARCHICAL_ALPHA_DRAWS = np.array([[0.3], [1.0], [4.0]])


def training_data(name: str, rng=None, per_class: int = 12):
    """(X, y, sample_weight) of a small dataset ``name``'s estimator takes, as NumPy arrays
    (``per_class`` rows of each of the 3 classes).
    """
    rng = np.random.default_rng(20261128) if rng is None else rng
    y = np.repeat([0, 1, 2], per_class)
    weight = rng.uniform(0.5, 2.0, len(y))
    if name in NOMINAL:
        # three classes whose attributes lean to different values, and that depend on each other
        first = (y + rng.integers(0, 2, len(y))) % 3
        X = np.column_stack(
            [first, (first + rng.integers(0, 2, len(y))) % 3, rng.integers(0, 3, len(y)), (y + first) % 2]
        )
        return X, y, weight
    if name in COUNTS:
        rates = np.array([[3.0, 1.0, 0.5, 0.5, 1.0], [0.5, 0.5, 3.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0]])
        return rng.poisson(rates[y]).astype(float), y, weight
    if name == "MixedNB":
        categorical = (y + rng.integers(0, 2, len(y))) % 3
        gaussian = rng.normal(y * 1.5, 1.0)
        poisson = rng.poisson(1.0 + y)
        bernoulli = (rng.random(len(y)) < 0.3 + 0.2 * y).astype(float)
        return np.column_stack([categorical, gaussian, poisson, bernoulli]).astype(float), y, weight
    if name not in NUMERIC:
        raise ValueError(f"{name}: say which kind of data it takes (NOMINAL, COUNTS, NUMERIC or MixedNB)")
    means = np.array([[0.0, 0.0, 0.0], [2.0, 1.0, -1.0], [-1.0, 2.5, 1.0]])
    return rng.normal(means[y], 1.0) + 0.3 * rng.normal(size=(len(y), 1)), y, weight


def make(name: str):
    """An unfitted ``name`` estimator with the settings its dataset needs."""
    Estimator = getattr(pgm_models, name)
    if name == "MixedNB":
        return Estimator(column_types={0: "categorical", 1: "gaussian", 2: "poisson", 3: "bernoulli"})
    if name == "HierarchicalNB":
        return Estimator(CategoricalNB())
    return Estimator()


def fit(model, X, y, sample_weight=None):
    """``model`` fitted on (X, y); a HierarchicalNB counts and takes fixed λ draws (no NUTS)."""
    if type(model).__name__ == "HierarchicalNB":
        model.fit_counts(X, y, sample_weight)
        model.alpha_draws_ = HIERARCHICAL_ALPHA_DRAWS.copy()
        return model
    return model.fit(X, y, sample_weight=sample_weight)


def fitted(name: str):
    """(the fitted ``name`` estimator, distinct rows to score)."""
    X, y, weight = training_data(name)
    model = fit(make(name), X, y, weight)
    rows = np.unique(X, axis=0)[:12]
    return model, rows


def prediction_methods(model, n_draws: int = 3, random_seed: int = 5) -> dict:
    """{name: X → output} of every prediction method the model has; posterior draws with a fixed seed."""
    methods = {
        "predict": model.predict,
        "predict_proba": model.predict_proba,
        "predict_log_proba": model.predict_log_proba,
    }
    if hasattr(model, "predict_joint_log_proba"):
        methods["predict_joint_log_proba"] = model.predict_joint_log_proba
    # LogisticRegression's draws are NUTS samples (sample_posterior), not exact closed-form ones
    if hasattr(model, "predict_proba_draws") and type(model).__name__ != "LogisticRegression":
        methods["predict_proba_draws"] = lambda X: model.predict_proba_draws(
            X, n_draws=n_draws, random_seed=random_seed
        )
    return methods
