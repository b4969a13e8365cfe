"""The users' docstrings: every public object of ``pgm_models.__all__`` and every public method of
the estimator template has a numpydoc docstring with the sections a user looks for, and the code
of its Examples section runs as written (doctest)."""

import ast
import dataclasses
import doctest
import inspect
import textwrap

import matplotlib
import numpy as np
import pytest
from numpydoc.docscrape import NumpyDocString

import pgm_models
from pgm_models.base import BayesianClassifier

matplotlib.use("Agg")  # the plot functions' examples draw off screen

# the methods a user calls on a fitted estimator, documented once on the template
TEMPLATE_METHODS = (
    "fit",
    "partial_fit",
    "predict",
    "predict_proba",
    "predict_log_proba",
    "predict_joint_log_proba",
    "predict_proba_draws",
    "analytic_posterior",
    "posterior_draws",
    "pymc_model",
    "pymc_trace",
    "sample_posterior",
    "find_map",
)
MODEL_SELECTION_METHODS = ("loo", "log_evidence")


def _public_objects():
    """(name, object) of every public name and of the template's public methods."""
    objects = [(name, getattr(pgm_models, name)) for name in pgm_models.__all__ if name != "ESTIMATORS"]
    objects += [(f"BayesianClassifier.{name}", getattr(BayesianClassifier, name)) for name in TEMPLATE_METHODS]
    # the model-selection methods the estimators inherit from their families' mixins, each implementation once
    seen = set()
    for estimator in pgm_models.ESTIMATORS:
        for name in MODEL_SELECTION_METHODS:
            method = getattr(getattr(pgm_models, estimator), name, None)
            if method is not None and inspect.unwrap(method) not in seen:
                seen.add(inspect.unwrap(method))
                objects.append((f"{estimator}.{name}", method))
    return objects


def _own_methods(cls):
    """The public methods a public class defines itself (its overrides and additions)."""
    return [
        (f"{cls.__name__}.{name}", getattr(cls, name))
        for name, value in vars(cls).items()
        if not name.startswith("_") and callable(getattr(cls, name, None)) and not inspect.isclass(value)
    ]


def _doctested_objects():
    objects = _public_objects()
    for _, obj in list(objects):
        if inspect.isclass(obj):
            objects += _own_methods(obj)
    return list(dict(objects).items())  # a method listed twice (TAN.log_evidence) runs once


PUBLIC = _public_objects()
DOCTESTED = _doctested_objects()


@pytest.fixture
def default_print_options():
    saved = np.get_printoptions()
    np.set_printoptions(
        edgeitems=3,
        threshold=1000,
        floatmode="maxprec",
        precision=8,
        suppress=False,
        linewidth=75,
        nanstr="nan",
        infstr="inf",
        sign="-",
        formatter=None,
        legacy=False,
    )
    yield
    np.set_printoptions(**saved)


@pytest.mark.parametrize(("name", "obj"), DOCTESTED, ids=[name for name, _ in DOCTESTED])
def test_examples_run(name, obj, default_print_options):
    import matplotlib.pyplot as plt

    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(obj, name, globs={})
    try:
        for test in tests:
            runner.run(test)
    finally:
        plt.close("all")
    assert runner.failures == 0, f"{runner.failures} of {runner.tries} doctest examples of {name} failed (output above)"


def _docstring(obj) -> NumpyDocString:
    return NumpyDocString(inspect.getdoc(obj) or "")


def _takes_parameters(obj) -> bool:
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return False
    # a class without an __init__ of its own has object's (*args, **kwargs): no parameters
    return any(
        name not in ("self", "cls") and not (inspect.isclass(obj) and p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
        for name, p in signature.parameters.items()
    )


def _returns_value(function) -> bool:
    """Whether the function's own body (not a nested function's) returns or yields a value."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(inspect.unwrap(function))))
    body = tree.body[0]

    def walk(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(child, (ast.Yield, ast.YieldFrom)):
                return True
            if (
                isinstance(child, ast.Return)
                and child.value is not None
                and not (isinstance(child.value, ast.Constant) and child.value.value is None)
            ):
                return True
            if walk(child):
                return True
        return False

    return walk(body)


@pytest.mark.parametrize(("name", "obj"), PUBLIC, ids=[name for name, _ in PUBLIC])
def test_numpydoc_sections(name, obj):
    doc = _docstring(obj)
    missing = []
    if not doc["Summary"]:
        missing.append("a one-line summary")
    if dataclasses.is_dataclass(obj):
        # a result object a function returns: its fields are what a user reads
        listed = {item.name for item in doc["Attributes"]}
        missing += [f"Attributes entry {f.name!r}" for f in dataclasses.fields(obj) if f.name not in listed]
    elif _takes_parameters(obj):
        documented = {part.strip() for item in doc["Parameters"] for part in item.name.split(",")}
        target = obj.__init__ if inspect.isclass(obj) else obj
        names = [
            p
            for p, v in inspect.signature(target).parameters.items()
            if p not in ("self", "cls") and v.kind not in (v.VAR_POSITIONAL, v.VAR_KEYWORD)
        ]
        if not doc["Parameters"]:
            missing.append("Parameters")
        missing += [f"Parameters entry {p!r}" for p in names if p not in documented]
    if not inspect.isclass(obj) and _returns_value(obj) and not doc["Returns"] and not doc["Yields"]:
        missing.append("Returns")
    if not doc["Examples"]:
        missing.append("Examples")
    assert not missing, f"the docstring of {name} lacks {', '.join(missing)}"


ESTIMATOR_NAMES = list(pgm_models.ESTIMATORS)


@pytest.mark.parametrize("name", ESTIMATOR_NAMES)
def test_estimators_document_the_model(name):
    """An estimator's docstring says what it fits: its attributes, the model and its formulas,
    where they come from, and where to look next."""
    doc = _docstring(getattr(pgm_models, name))
    missing = [section for section in ("Attributes", "Notes", "References", "See Also") if not doc[section]]
    assert not missing, f"the docstring of {name} lacks {', '.join(missing)}"


def test_the_checks_see_a_missing_section():
    """The section check is not vacuous: a docstring without Parameters, Returns or Examples is caught."""

    def documented(x):
        """Twice x.

        Parameters
        ----------
        x : float
            A number.

        Returns
        -------
        float
            ``2 x``.

        Examples
        --------
        >>> documented(2)
        4
        """
        return 2 * x

    def undocumented(x):
        """Twice x."""
        return 2 * x

    test_numpydoc_sections("documented", documented)
    with pytest.raises(AssertionError, match="lacks Parameters, Parameters entry 'x', Returns, Examples"):
        test_numpydoc_sections("undocumented", undocumented)


def _training_data(name):
    """A small (X, y) of the kind each estimator models."""
    import pandas as pd

    rng = np.random.default_rng(0)
    codes, y = rng.integers(0, 3, (30, 3)), rng.integers(0, 2, 30)
    numbers = rng.normal(size=(30, 3))
    mixed = pd.DataFrame(
        {
            "colour": pd.Categorical(rng.choice(["red", "blue"], 30)),
            "size": numbers[:, 0],
            "new": rng.integers(0, 2, 30).astype(bool),
        }
    )
    return {
        "BernoulliNB": (codes > 1).astype(int),
        "MixedNB": mixed,
        "GaussianNB": numbers,
        "LDA": numbers,
        "QDA": numbers,
        "LogisticRegression": numbers,
    }.get(name, codes), y


@pytest.mark.parametrize("name", [name for name in ESTIMATOR_NAMES if name != "HierarchicalNB"])
def test_estimators_document_their_fitted_attributes(name):
    """Every public fitted attribute (set by ``fit``, or a property ending in ``_``) is listed
    under Attributes. (HierarchicalNB's fit runs NUTS: its fitted attributes are checked by name.)"""
    cls = getattr(pgm_models, name)
    X, y = _training_data(name)
    model = cls().fit(X, y)
    fitted = {a for a in vars(model) if a.endswith("_") and not a.startswith("_")}
    fitted |= {
        a for a in dir(cls) if a.endswith("_") and not a.startswith("_") and isinstance(getattr(cls, a), property)
    }
    listed = {part.strip() for item in _docstring(cls)["Attributes"] for part in item.name.split(",")}
    assert fitted - listed == set(), f"{name}'s Attributes section lacks {sorted(fitted - listed)}"


def test_hierarchical_nb_documents_its_fitted_attributes():
    cls = pgm_models.HierarchicalNB
    listed = {part.strip() for item in _docstring(cls)["Attributes"] for part in item.name.split(",")}
    model = cls().fit_counts(*_training_data("CategoricalNB"))
    fitted = {a for a in vars(model) if a.endswith("_") and not a.startswith("_")} | {"idata_", "alpha_draws_"}
    assert fitted - listed == set(), f"HierarchicalNB's Attributes section lacks {sorted(fitted - listed)}"
