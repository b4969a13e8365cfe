"""pgm_models: generative Bayesian classifiers built on PyMC, with closed-form posteriors and a
scikit-learn interface.

Every public name is importable from here. The package is laid out by role:

- ``base``: the template every estimator follows (:class:`~pgm_models.base.BayesianClassifier`);
- model families: ``naive_bayes``, ``gaussian``, ``semi_naive``, ``bayes_net``, ``discriminative``;
- ``conjugate``: the closed-form conjugate posteriors (Dirichlet, Normal–Inverse-Gamma/-Wishart,
  Gamma) and the Dirichlet blocks of the PyMC counts form;
- ``discrete``: what the discrete families share (categorical domains, value and pair layouts,
  compiled counting kernels);
- ``inference``: NUTS backends, the verification of closed forms against draws, simulation-based
  calibration, posterior summaries;
- ``model_selection``: exact leave-one-out, evidence maximisation, model comparison;
- ``preprocessing``: the discretizers;
- ``dask_engine``: fitting and predicting on Dask collections;
- ``app``: the ``pgm-models`` command, its zoo, report and plots;
- ``datasets``: the bundled ARFF datasets and loaders;
- ``_utils``: validation, frames, weights, score helpers, threads and the settings (``n_jobs``).
"""

import importlib as _importlib
import importlib.abc as _abc
import sys as _sys

# Public names are imported on first use (PEP 562): `pgm-models --help` must not wait for PyMC.
_MODULES = {
    # estimators
    "LogisticRegression": "pgm_models.discriminative",
    "LDA": "pgm_models.gaussian",
    "QDA": "pgm_models.gaussian",
    "GaussianNB": "pgm_models.gaussian",
    "BernoulliNB": "pgm_models.naive_bayes",
    "CategoricalNB": "pgm_models.naive_bayes",
    "ComplementNB": "pgm_models.naive_bayes",
    "HierarchicalNB": "pgm_models.naive_bayes",
    "MixedNB": "pgm_models.naive_bayes",
    "MultinomialNB": "pgm_models.naive_bayes",
    "A2DE": "pgm_models.semi_naive",
    "AODE": "pgm_models.semi_naive",
    "AODEsr": "pgm_models.semi_naive",
    "HNB": "pgm_models.semi_naive",
    "SPODE": "pgm_models.semi_naive",
    "TAN": "pgm_models.semi_naive",
    "WAODE": "pgm_models.semi_naive",
    "MANB": "pgm_models.bayes_net",
    "BMATAN": "pgm_models.bayes_net",
    "BayesNetClassifier": "pgm_models.bayes_net",
    "KDB": "pgm_models.bayes_net",
    # preprocessing
    "EqualFrequencyDiscretizer": "pgm_models.preprocessing.discretize",
    "EqualWidthDiscretizer": "pgm_models.preprocessing.discretize",
    "MDLDiscretizer": "pgm_models.preprocessing.discretize",
    # inference
    "PosteriorDraw": "pgm_models.conjugate",
    "SBCResult": "pgm_models.inference.calibration",
    "Verification": "pgm_models.inference.verify",
    "available_samplers": "pgm_models.inference.sampling",
    "check_posterior": "pgm_models.inference.verify",
    "check_sampler": "pgm_models.inference.verify",
    "posterior_summary": "pgm_models.inference.summary",
    "simulation_based_calibration": "pgm_models.inference.calibration",
    # model selection
    "brier_score": "pgm_models.model_selection.compare",
    "compare_estimates": "pgm_models.model_selection.compare",
    "compare_loo": "pgm_models.model_selection.loo",
    "compare_models": "pgm_models.model_selection.compare",
    "describe_prior": "pgm_models.model_selection.evidence",
    "expected_calibration_error": "pgm_models.model_selection.compare",
    "log_loss": "pgm_models.model_selection.compare",
    "score_estimates": "pgm_models.model_selection.compare",
    "use_evidence_priors": "pgm_models.model_selection.evidence",
    # saved models
    "load_model": "pgm_models._utils.persistence",
    # settings
    "config_context": "pgm_models._utils.config",
    "get_config": "pgm_models._utils.config",
    "set_config": "pgm_models._utils.config",
    # data
    "list_datasets": "pgm_models.datasets",
    "load_arff": "pgm_models.datasets",
    "load_dataset": "pgm_models.datasets",
    "load_table": "pgm_models.datasets",
    # plots
    "decision_boundary": "pgm_models.app.plots",
    "diagnostics": "pgm_models.app.plots",
    "posterior_vs_closed_form": "pgm_models.app.plots",
    "probability_intervals": "pgm_models.app.plots",
    "reliability_diagram": "pgm_models.app.plots",
    "sampler_health": "pgm_models.app.plots",
    "verification_forest": "pgm_models.app.plots",
}

# the estimator classes, in the order the zoo and the docs list them
ESTIMATORS = (
    "CategoricalNB",
    "BernoulliNB",
    "MultinomialNB",
    "ComplementNB",
    "MixedNB",
    "HierarchicalNB",
    "GaussianNB",
    "LDA",
    "QDA",
    "SPODE",
    "TAN",
    "AODE",
    "AODEsr",
    "WAODE",
    "HNB",
    "A2DE",
    "MANB",
    "BMATAN",
    "BayesNetClassifier",
    "KDB",
    "LogisticRegression",
)

__all__ = sorted([*_MODULES, "ESTIMATORS"])
__version__ = "0.2.0"

# Modules that moved in 0.2.0: importing an old path is an ImportError that names the new one.
_MOVED_MODULES = {
    "pgm_models.calibration": "pgm_models.inference.calibration",
    "pgm_models.cli": "pgm_models.app.cli",
    "pgm_models.compare": "pgm_models.model_selection.compare",
    "pgm_models.decision": "pgm_models._utils.decision",
    "pgm_models.discretize": "pgm_models.preprocessing.discretize",
    "pgm_models.evidence": "pgm_models.model_selection.evidence",
    "pgm_models.hierarchical": "pgm_models.naive_bayes.hierarchical",
    "pgm_models.loo": "pgm_models.model_selection.loo",
    "pgm_models.plots": "pgm_models.app.plots",
    "pgm_models.progress": "pgm_models.app.progress",
    "pgm_models.report": "pgm_models.app.report",
    "pgm_models.sampling": "pgm_models.inference.sampling",
    "pgm_models.summary": "pgm_models.inference.summary",
    "pgm_models.verify": "pgm_models.inference.verify",
    "pgm_models.zoo": "pgm_models.app.zoo",
}


class _MovedModuleFinder(_abc.MetaPathFinder):
    """Refuses the pre-0.2.0 module paths with an ImportError naming where the module lives now."""

    def find_spec(self, fullname, path=None, target=None):
        new = _MOVED_MODULES.get(fullname)
        if new is None:
            return None
        names = [name for name, module in _MODULES.items() if module == new]
        hint = f"; its public names import from pgm_models itself ({', '.join(names)})" if names else ""
        raise ImportError(f"{fullname} moved to {new} in pgm_models 0.2.0{hint}", name=fullname)


if not any(isinstance(finder, _MovedModuleFinder) for finder in _sys.meta_path):
    _sys.meta_path.insert(0, _MovedModuleFinder())


def __getattr__(name):
    if name not in _MODULES:
        raise AttributeError(f"module 'pgm_models' has no attribute {name!r}")
    value = getattr(_importlib.import_module(_MODULES[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *__all__})
