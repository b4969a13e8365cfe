"""pgm_models: generative Bayesian classifiers built on PyMC, with closed-form posteriors and a
scikit-learn interface."""

import importlib as _importlib

# The estimators are imported on first use (PEP 562): `pgm-models --help` must not wait for PyMC.
_MODULES = {
    "LogisticRegression": "pgm_models.discriminative", "LDA": "pgm_models.gaussian", "QDA": "pgm_models.gaussian",
    "GaussianNB": "pgm_models.gaussian", "BernoulliNB": "pgm_models.naive_bayes", "CategoricalNB": "pgm_models.naive_bayes",
    "MixedNB": "pgm_models.naive_bayes", "MultinomialNB": "pgm_models.naive_bayes", "AODE": "pgm_models.semi_naive", "SPODE": "pgm_models.semi_naive",
    "TAN": "pgm_models.semi_naive",
}

__all__ = ["AODE", "BernoulliNB", "CategoricalNB", "GaussianNB", "LDA", "LogisticRegression", "MixedNB", "MultinomialNB", "QDA", "SPODE",
           "TAN"]
__version__ = "0.1.0"


def __getattr__(name):
    if name not in _MODULES:
        raise AttributeError(f"module 'pgm_models' has no attribute {name!r}")
    value = getattr(_importlib.import_module(_MODULES[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *__all__})
