"""Every estimator's scikit-learn tags against what it does (issue 33 item 21): a tag that says
an input is accepted means fitting and predicting on it works; one that says it is not means
the fit refuses it with a named error. Categorical and string input: the categorical models
take both (as scikit-learn's CategoricalNB says); allow_nan: NaN is a missing value;
positive_only: a negative count is refused; sparse: a scipy sparse matrix fits; requires_fit:
predicting unfitted raises NotFittedError; multi_class: three classes fit."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

import pgm_models

pytestmark = pytest.mark.filterwarnings("ignore")

FAST = [name for name in pgm_models.ESTIMATORS if name != "HierarchicalNB"]
N = 60
Y = np.array(["a", "b", "c"])[np.arange(N) % 3]


def _make(name):
    if name == "HierarchicalNB":  # a short NUTS run: the tags are what is checked, not the sampler
        return pgm_models.HierarchicalNB(draws=50, tune=50, chains=1, random_seed=0)
    return getattr(pgm_models, name)()


def _inputs():
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 4, (N, 3)).astype(float)
    strings = pd.DataFrame(
        {"s": np.array(["x", "y", "z"])[rng.integers(0, 3, N)], "t": np.array(["u", "v"])[rng.integers(0, 2, N)]}
    )
    nan = counts.copy()
    nan[::7, 0] = np.nan
    return {
        "string": strings,
        "categorical": strings.astype("category"),
        "allow_nan": nan,
        "positive_only": counts - 2,
        "sparse": sp.csr_array(counts),
        "multi_class": counts,
    }


def _fits(estimator, X) -> bool:
    try:
        estimator.fit(X, Y)
    except (ValueError, TypeError):  # the refusal: a named error, not another exception
        return False
    assert estimator.predict(X).shape == (N,)
    return True


def _check_tags(name):
    tags = _make(name).__sklearn_tags__()
    said = {
        "string": tags.input_tags.string,
        "categorical": tags.input_tags.categorical,
        "allow_nan": tags.input_tags.allow_nan,
        "positive_only": not tags.input_tags.positive_only,
        "sparse": tags.input_tags.sparse,
        "multi_class": tags.classifier_tags.multi_class,
    }
    done = {tag: _fits(_make(name), X) for tag, X in _inputs().items()}
    assert done == said, name  # positive_only read as "negative values accepted"
    assert tags.requires_fit
    with pytest.raises(NotFittedError):
        _make(name).predict(_inputs()["multi_class"])


@pytest.mark.parametrize("name", FAST)
def test_tags_say_what_each_estimator_accepts(name):
    _check_tags(name)


@pytest.mark.nuts
def test_tags_of_the_hierarchical_model_are_its_wrapped_models():
    _check_tags("HierarchicalNB")


def test_the_categorical_models_say_they_take_categories_and_text():
    for name in ("CategoricalNB", "MixedNB", "SPODE", "TAN", "AODE", "HierarchicalNB"):
        tags = _make(name).__sklearn_tags__().input_tags
        assert tags.categorical and tags.string and tags.allow_nan, name
    wrapped = pgm_models.HierarchicalNB(model=pgm_models.MultinomialNB()).__sklearn_tags__().input_tags
    assert wrapped.positive_only and wrapped.sparse and not wrapped.string  # the wrapped model's input
