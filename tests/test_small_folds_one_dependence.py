"""AODEsr, WAODE and HNB's small-fold path (``semi_naive._small``, the compiled weights and HNB's
one-call scoring) against the plain path: the fitted state equal, the probabilities within 1e-12,
on both sides of the row limit, with missing values, sample weights, declared domains, and the
cases the small path leaves to the template."""

import numba  # noqa: F401  (the small path and the compiled kernels run once numba is loaded)
import numpy as np
import pandas as pd
import pytest

from pgm_models import HNB, WAODE, AODEsr
from pgm_models.datasets import load_dataset
from pgm_models.semi_naive import _small, aode, aodesr, hnb, waode

MODELS = [AODEsr, WAODE, HNB]
OPTIONS = [{}, {"estimator": "laplace"}, {"estimator": "laplace", "alpha": 0.5}, {"m": 3.0}]


def _plain(monkeypatch):
    """Every compiled or small path off: the template and NumPy's scoring."""
    for module, name in [
        (_small, "SMALL_PATH"),
        (aode, "COMPILED_SCORING"),
        (aodesr, "COMPILED_GENERALISATIONS"),
        (waode, "COMPILED_WEIGHTS"),
        (hnb, "COMPILED_SCORING"),
    ]:
        monkeypatch.setattr(module, name, False)


def _spied(monkeypatch):
    """Record whether each small fit and prediction was taken (True) or left to the template."""
    taken = {"fit": [], "predict": []}
    fit, predict = _small.SmallFolds._small_fit, _small.SmallFolds._small_predict_proba

    def spy_fit(self, X, y):
        result = fit(self, X, y)
        taken["fit"].append(result)
        return result

    def spy_predict(self, X):
        result = predict(self, X)
        taken["predict"].append(result is not None)
        return result

    monkeypatch.setattr(_small.SmallFolds, "_small_fit", spy_fit)
    monkeypatch.setattr(_small.SmallFolds, "_small_predict_proba", spy_predict)
    return taken


def _fold(name):
    """(train X, train y, test X): every tenth row tested."""
    X, y = load_dataset(name)
    test = np.arange(len(y)) % 10 == 0
    return X[~test], y[~test], X[test]


def _same_state(small, plain):
    """The same fitted attributes: arrays equal, the rest equal or the very same shared object."""
    assert vars(small).keys() == vars(plain).keys()
    for name, value in vars(small).items():
        other = vars(plain)[name]
        if isinstance(value, np.ndarray):
            assert value.dtype == other.dtype and np.array_equal(value, other), name
        elif isinstance(value, list):
            assert len(value) == len(other) and all(a is b or np.array_equal(a, b) for a, b in zip(value, other)), name
        elif isinstance(value, pd.Index):
            assert value.equals(other), name
        elif hasattr(value, "concentration"):  # a prior: shared by a cache that other tests may have emptied
            assert type(value) is type(other) and np.array_equal(value.concentration, other.concentration), name
            assert _equal_blocks(value.block_sizes, other.block_sizes), name
        else:
            assert value is other or value == other, name


def _equal_blocks(a, b):
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", ["vote", "breast-cancer"])
@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_small_path_equals_the_plain_path(model, name, options, monkeypatch):
    """A fold of a frame of Categoricals (vote has missing values): the small path runs (a spy sees
    it), leaves the template's fitted state and predicts the NumPy path's probabilities to 1e-12."""
    X_train, y_train, X_test = _fold(name)
    model().fit(X_train, y_train)  # the domains of the frame's dtypes are known after one fit
    with monkeypatch.context() as patch:
        taken = _spied(patch)
        small = model(**options).fit(X_train, y_train)
        small_p = small.predict_proba(X_test)
    assert taken == {"fit": [True], "predict": [True]}
    _plain(monkeypatch)
    plain = model(**options).fit(X_train, y_train)
    _same_state(small, plain)
    np.testing.assert_allclose(small_p, plain.predict_proba(X_test), rtol=0, atol=1e-12)
    np.testing.assert_allclose(small.predict_proba(X_test), small_p, rtol=0, atol=1e-12)  # the template on it too


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("extra", [0, 1])
def test_both_sides_of_the_row_limit(model, extra, monkeypatch):
    """SMALL_ROWS test rows take the small path, one more the template's: both equal NumPy's."""
    X, y = load_dataset("vote")
    rows = _small.SMALL_ROWS + extra
    model().fit(X, y)
    with monkeypatch.context() as patch:
        taken = _spied(patch)
        fitted = model().fit(X, y)
        small_p = fitted.predict_proba(X.iloc[:rows])
    assert taken == {"fit": [True], "predict": [extra == 0]}
    _plain(monkeypatch)
    np.testing.assert_allclose(small_p, model().fit(X, y).predict_proba(X.iloc[:rows]), rtol=0, atol=1e-12)


def _declared(X, y):
    """X with an unseen value declared in its first column, y with an unseen class declared last."""
    X = X.copy()
    first = X.columns[0]
    X[first] = X[first].cat.add_categories(["zzz-unseen"])
    return X, y.cat.add_categories(["zzz-unseen"])


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_declared_domains_and_classes(model, monkeypatch):
    """Declared but unseen values and classes get prior mass on both paths alike."""
    X, y = _declared(*load_dataset("breast-cancer"))
    model().fit(X[20:], y[20:])
    with monkeypatch.context() as patch:
        taken = _spied(patch)
        small = model().fit(X[20:], y[20:])
        small_p = small.predict_proba(X[:20])
    assert taken == {"fit": [True], "predict": [True]}
    assert small_p.shape == (20, 3)
    _plain(monkeypatch)
    plain = model().fit(X[20:], y[20:])
    _same_state(small, plain)
    np.testing.assert_allclose(small_p, plain.predict_proba(X[:20]), rtol=0, atol=1e-12)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_sample_weights_take_the_template_and_equal_the_plain_path(model, monkeypatch):
    """With sample_weight the template fits (the small fit is not tried); unit weights equal the
    small fit, fractional ones the plain path's, to 1e-12."""
    X_train, y_train, X_test = _fold("vote")
    weight = np.random.default_rng(0).uniform(0.2, 2.0, len(y_train))  # deterministic
    with monkeypatch.context() as patch:
        taken = _spied(patch)
        ones = model().fit(X_train, y_train, sample_weight=np.ones(len(y_train))).predict_proba(X_test)
        small = model().fit(X_train, y_train).predict_proba(X_test)
        weighted = model().fit(X_train, y_train, sample_weight=weight).predict_proba(X_test)
    assert taken["fit"] == [True]
    np.testing.assert_allclose(ones, small, rtol=0, atol=1e-12)
    _plain(monkeypatch)
    plain = model().fit(X_train, y_train, sample_weight=weight).predict_proba(X_test)
    np.testing.assert_allclose(weighted, plain, rtol=0, atol=1e-12)


@pytest.mark.filterwarnings("ignore:column .* outside its domain")  # the NumPy codes' −1, treated as missing
@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_what_the_small_path_leaves_to_the_template(model, monkeypatch):
    """A NumPy X, labels not a Categorical, unsorted class categories, a refit, a learned alpha, a
    class prior, another estimate, other columns: the template runs, with the same results."""
    X_train, y_train, X_test = _fold("breast-cancer")
    model().fit(X_train, y_train)
    reference = model().fit(X_train, y_train).predict_proba(X_test)
    reordered = y_train.cat.reorder_categories(list(y_train.cat.categories)[::-1])
    renamed = pd.DataFrame({c: X_test[c] for c in X_test.columns})  # the same dtypes, other columns
    with monkeypatch.context() as patch:
        taken = _spied(patch)
        results = [
            model().fit(X_train, y_train.astype(str)).predict_proba(X_test),
            model().fit(X_train, reordered).predict_proba(X_test),
            model().fit(X_train, y_train).fit(X_train, y_train).predict_proba(X_test),
            model().fit(X_train, y_train).predict_proba(renamed),
        ]
        codes = np.column_stack([X_train[c].cat.codes for c in X_train.columns])
        test_codes = np.column_stack([X_test[c].cat.codes for c in X_test.columns])
        model().fit(codes, y_train.to_numpy()).predict_proba(test_codes)
        model(class_prior=[0.5, 0.5]).fit(X_train, y_train).predict_proba(X_test)
        model(estimator="laplace", alpha="evidence").fit(X_train, y_train).predict_proba(X_test)
        model().fit(X_train, y_train).predict_proba(X_test, estimate="map")
    # labels as strings, unsorted categories, a refit, new columns, a class prior, a learned alpha, a map estimate
    assert taken["fit"] == [False, False, True, False, True, False, False, True]
    assert taken["predict"] == [True, True, True, False, False, False]
    for result in results:
        np.testing.assert_allclose(result, reference, rtol=0, atol=1e-12)


def test_hnb_one_call_scoring_with_missing_values_and_many_classes(monkeypatch):
    """HNB's scores from the counts in one call equal NumPy's with three classes and a row whose
    every value is missing (naive Bayes' empty product: the class prior alone)."""
    rng = np.random.default_rng(3)  # deterministic data
    X = pd.DataFrame(rng.integers(0, 3, (120, 5)).astype(float))
    X[X.columns[1]] = (X[1] + X[0]) % 3
    X = X.mask(rng.random(X.shape) < 0.15)
    X.iloc[0] = np.nan
    y = rng.integers(0, 3, 120)
    compiled = HNB().fit(X, y).predict_proba(X)
    _plain(monkeypatch)
    np.testing.assert_allclose(compiled, HNB().fit(X, y).predict_proba(X), rtol=0, atol=1e-12)


def test_waode_compiled_weights_are_the_mutual_informations(monkeypatch):
    """The compiled log weights are the log of ``mutual_information`` (NumPy's), with missing
    values, and all 0 (uniform) when no attribute tells anything of the class."""
    X, y = load_dataset("vote")
    model = WAODE().fit(X, y)
    np.testing.assert_allclose(np.exp(model._log_weights()), model.mutual_information(), rtol=1e-12)
    independent = pd.DataFrame({"a": ["u", "v", "u", "v"], "b": ["u", "u", "v", "v"]})
    flat = WAODE().fit(independent, ["p", "q", "q", "p"])
    assert flat.mutual_information()[0] == 0 and flat.mutual_information()[1] == 0
    assert np.array_equal(flat._log_weights(), [0.0, 0.0])


@pytest.mark.parametrize(
    "model, alpha", [(AODEsr, 1.0), (WAODE, 1.0), (AODEsr, 1e-25), (WAODE, 1e-25), (AODEsr, 2e-18)], ids=str
)
def test_averaged_scores_in_the_probability_domain_equal_aode_s_logs(model, alpha):
    """The small path's scores (products, one log a row and class) equal AODE's kernels' joint log
    probabilities to 1e-12 relative: vote's folds; factors below 1e-20 (an α of 1e-25 where a pair is
    unseen: each adds its own log); and products of 15 factors near 1e-19, logged before they
    underflow: 30 attributes equal to the class (40 rows of one, 20 of the other), test rows
    alternating, only the frequent value a parent (frequency limit 30) and AODEsr's critical value
    above every count (else every copy of the class would be a generalisation removed)."""
    y = np.repeat([0, 1], [40, 20])
    X = pd.DataFrame({f"a{j}": pd.Categorical.from_codes(y, ["u", "v"]) for j in range(30)})
    test = pd.DataFrame({f"a{j}": pd.Categorical.from_codes((np.arange(4) + j) % 2, ["u", "v"]) for j in range(30)})
    options = {}
    if alpha == 1.0:
        X, y, test = _fold("vote")
    elif model is AODEsr:
        options = {"critical_value": 10**6, "frequency_limit": 30 if alpha == 2e-18 else 1}
    fitted = model(estimator="laplace", alpha=alpha, **options).fit(X, y)
    codes = np.array([test[c].cat.codes for c in test.columns], dtype=np.intp).T
    small = fitted._small_scores(codes)
    aode.COMPILED_SCORING = False
    try:
        plain = fitted._joint_log_likelihood(codes, "mean")
    finally:
        aode.COMPILED_SCORING = True
    assert np.isfinite(small).all()
    np.testing.assert_allclose(small, plain, rtol=1e-12, atol=0)
    if alpha == 2e-18:
        assert plain[:, 0].max() < np.log(1e-280)  # every parent's product passed the underflow guard
