"""scikit-learn's own estimator test suite, run on every estimator of the zoo and on the
discretizers.

Every check applies and passes but one: A2DE refuses check_dtype_object's data, whose hundreds
of declared values would need a triple-count tensor of gigabytes (``EXPECTED_FAILURES``). Two tags say how checks
see the models, as scikit-learn's own classes do: the categorical models accept NaN (a
missing value, skipped as Weka does), and the discrete naive Bayes models have ``poor_score``
(the training-accuracy check feeds continuous blobs, which are not counts, presence
indicators or categories — scikit-learn tags its discrete naive Bayes the same way).
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

import pgm_models
from pgm_models.preprocessing.discretize import EqualFrequencyDiscretizer, EqualWidthDiscretizer, MDLDiscretizer

ESTIMATORS = [getattr(pgm_models, name)() for name in pgm_models.ESTIMATORS]
EXPECTED_FAILURES: dict = {
    # A2DE counts a dense K × T³ triple tensor; this check's 40 rows of distinct floats, read as
    # categories, declare T = 560 values, a 4 × 560³ tensor (5 GiB) that A2DE refuses up front
    "A2DE": {"check_dtype_object": "the triple-count tensor of its 560 declared values is refused as too large"},
}

DISCRETIZERS = [EqualWidthDiscretizer(), EqualFrequencyDiscretizer(), MDLDiscretizer()]
_CATEGORICAL_OUTPUT = (
    "the output is pandas Categorical columns of interval labels (issue #4 asks for them, so that "
    "declared-but-unseen intervals keep prior mass downstream); this check compares transform "
    "outputs numerically or reads an array dtype"
)
DISCRETIZER_EXPECTED_FAILURES = {
    check: _CATEGORICAL_OUTPUT
    for check in (
        "check_pipeline_consistency", "check_estimators_pickle", "check_transformer_data_not_an_array",
        "check_transformer_general", "check_transformer_preserve_dtypes", "check_methods_sample_order_invariance",
        "check_methods_subset_invariance", "check_fit_idempotent",
    )
}


def test_every_exported_estimator_is_checked():
    import inspect

    from sklearn.base import ClassifierMixin

    exported = {name for name in pgm_models.__all__
                if inspect.isclass(getattr(pgm_models, name)) and issubclass(getattr(pgm_models, name), ClassifierMixin)}
    assert {type(e).__name__ for e in ESTIMATORS} == exported == set(pgm_models.ESTIMATORS)
    assert len(ESTIMATORS) == 16


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=lambda estimator: EXPECTED_FAILURES.get(type(estimator).__name__, {}))
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


@parametrize_with_checks(DISCRETIZERS, expected_failed_checks=lambda estimator: DISCRETIZER_EXPECTED_FAILURES)
def test_scikit_learn_discretizer_checks(estimator, check):
    check(estimator)


def test_discretizer_output_compares_by_label_where_those_checks_compare_numbers():
    """What the expected failures check, done on the labels: refitting and pickling give the
    same intervals, and transform is row-order invariant."""
    import pickle

    import numpy as np

    from pgm_models.datasets import load_dataset

    X, y = load_dataset("iris")
    for discretizer in DISCRETIZERS:
        first = discretizer.fit(X, y).transform(X)
        assert first.equals(type(discretizer)().fit(X, y).transform(X))
        assert first.equals(pickle.loads(pickle.dumps(discretizer)).transform(X))
        order = np.random.default_rng(0).permutation(len(X))
        assert discretizer.transform(X.iloc[order]).equals(first.iloc[order])
