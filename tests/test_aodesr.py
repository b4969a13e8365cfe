"""AODEsr: Weka 3.6.14 agreement, the subsumption relation against Weka's sequential loop, exact
leave-one-out against refits, estimates, partial_fit and sample weights."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from pgm_models import AODE, AODEsr
from pgm_models.datasets import load_dataset
from pgm_models.preprocessing.discretize import MDLDiscretizer

WEKA = Path(__file__).parent.parent / "pgm_models" / "datasets" / "data" / "weka"


@pytest.mark.parametrize(
    "fixture, dataset, params, removed",
    [
        ("aodesr_vote", "vote", {}, False),
        ("aodesr_breast-cancer", "breast-cancer", {}, False),
        ("aodesr_weather.nominal", "weather.nominal", {}, False),
        ("aodesr_contact-lenses", "contact-lenses", {}, False),
        ("aodesr_laplace_vote", "vote", {"estimator": "laplace"}, False),
        ("aodesr_c5_m3_breast-cancer", "breast-cancer", {"critical_value": 5, "m": 3}, True),
        ("aodesr_c20_f30_vote", "vote", {"critical_value": 20, "frequency_limit": 30}, False),
        ("aodesr_c0_weather.nominal", "weather.nominal", {"critical_value": 0}, True),
    ],
)
@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
def test_reproduces_weka_aodesr(fixture, dataset, params, removed, compiled, monkeypatch):
    """weka.classifiers.bayes.AODEsr 3.6.14 (commands: pgm_models/datasets/data/weka/COMMANDS.txt);
    ``removed``: the fixture's rows lose generalisations (else AODEsr is the m-estimate AODE). The
    generalisations removed by the compiled loop (numba loaded) and by NumPy's path."""
    import numba  # noqa: F401  (the compiled loop runs once numba is loaded)

    from pgm_models.semi_naive import aodesr

    monkeypatch.setattr(aodesr, "COMPILED_GENERALISATIONS", compiled)
    X, y = load_dataset(dataset)
    reference = pd.read_csv(WEKA / f"{fixture}.csv")
    model = AODEsr(**params).fit(X, y)
    expected = reference[list(model.classes_)].to_numpy()
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=0, atol=1e-12)
    assert model.generalisations(X).any() == removed
    if removed:  # the removals change the distributions: the fixture tests them
        aode = AODE(**{k: v for k, v in model.get_params().items() if k in AODE._get_param_names()}).fit(X, y)
        assert np.abs(aode.predict_proba(X) - expected).max() > 1e-3


def test_reproduces_weka_aodesr_after_weka_s_mdl_discretisation():
    """FilteredClassifier(supervised Discretize, AODEsr) on diabetes: the same rows through
    ``MDLDiscretizer`` (equal to Weka's cut points, tests/test_discretize.py)."""
    X, y = load_dataset("diabetes")
    X = MDLDiscretizer().fit(X, y).transform(X)
    reference = pd.read_csv(WEKA / "aodesr_mdl_diabetes.csv")
    model = AODEsr().fit(X, y)
    assert model.generalisations(X).any()
    np.testing.assert_allclose(model.predict_proba(X), reference[list(model.classes_)].to_numpy(), rtol=0, atol=1e-12)


def _weka_generalisations(model, X):
    """Weka's SpecialGeneralArray, row by row: for each i, the first j (in attribute order) with
    N(x_j) > C and N(x_i, x_j) = N(x_j), skipping j = i, a j already removed by i, and j when the
    two imply each other and i < j."""
    codes = model._encode(X, reset=False, training=False)
    layout = model._layout
    pairs = model.pair_count_.sum(axis=0)
    removed = np.zeros(codes.shape, dtype=bool)
    for n, row in enumerate(codes):
        cell = [None if c < 0 else layout.value_cells[layout.value_starts[f] + c] for f, c in enumerate(row)]
        special = [-1] * len(row)
        for i in range(len(row)):
            if cell[i] is None:
                continue
            for j in range(len(row)):
                if cell[j] is None or i == j or special[j] == i:
                    continue
                frequency_j = pairs[cell[j], cell[j]]
                if frequency_j > model.critical_value and frequency_j == pairs[cell[i], cell[j]]:
                    if frequency_j == pairs[cell[i], cell[i]] and i < j:
                        continue
                    special[i] = j
                    break
        removed[n] = np.array(special) != -1
    return removed


def _nested(n=200, seed=0):
    """x1 generalises x0 (its value is x0 // 2), x2 copies x1 (they imply each other), x3 is
    unrelated; 10% of x0 and x3 missing (a missing x1 would break the implications)."""
    rng = np.random.default_rng(seed)
    x0 = rng.integers(0, 4, n)
    codes = np.column_stack([x0, x0 // 2, x0 // 2, rng.integers(0, 3, n)])
    for j in (0, 3):
        codes[rng.random(n) < 0.1, j] = -1
    X = pd.DataFrame(
        {f"x{j}": pd.Categorical.from_codes(codes[:, j], categories=range(codes[:, j].max() + 1)) for j in range(4)}
    )
    return X, pd.Series(rng.choice(["u", "v", "w"], n))


@pytest.mark.parametrize(
    "dataset, critical_value",
    [("breast-cancer", 5), ("breast-cancer", 0), ("weather.nominal", 0), ("nested", 10), ("nested", 45)],
)
def test_generalisations_are_weka_s_sequential_loop(dataset, critical_value):
    X, y = _nested() if dataset == "nested" else load_dataset(dataset)
    model = AODEsr(critical_value=critical_value).fit(X, y)
    expected = _weka_generalisations(model, X)
    assert expected.any()
    np.testing.assert_array_equal(model.generalisations(X), expected)


@pytest.mark.parametrize("removed", [0, 1])
@pytest.mark.parametrize(
    "dataset, critical_value",
    [("breast-cancer", 5), ("breast-cancer", 0), ("weather.nominal", 0), ("nested", 10), ("nested", 45)],
)
def test_compiled_removal_is_numpy_s(dataset, critical_value, removed, monkeypatch):
    """The compiled loop removes the values NumPy's T × T subsumption table removes, each row in
    the counts (``removed`` 0) or left out of them (1, leave-one-out's critical-value test); on
    all rows it reads a table of class-free counts (N·F² tests above the T'² pairs of cells), row by
    row it sums the classes' counts test by test."""
    import numba  # noqa: F401  (the compiled loop runs once numba is loaded)

    from pgm_models.semi_naive import aodesr

    X, y = _nested() if dataset == "nested" else load_dataset(dataset)
    model = AODEsr(critical_value=critical_value).fit(X, y)
    codes = model._encode(X, reset=False, training=False)
    compiled = model._parent_codes(codes, removed)
    n_cells, n_features = model._layout.n_cells, codes.shape[1]
    assert len(codes) * n_features**2 > n_cells**2 >= n_features**2  # the table, then row by row without
    row_by_row = np.vstack([model._parent_codes(codes[n : n + 1], removed) for n in range(len(codes))])
    monkeypatch.setattr(aodesr, "COMPILED_GENERALISATIONS", False)
    numpy_path = model._parent_codes(codes, removed)
    assert (compiled != codes).any()
    np.testing.assert_array_equal(compiled, numpy_path)
    np.testing.assert_array_equal(row_by_row, numpy_path)


def test_a_duplicated_column_is_removed_and_the_rest_is_aode():
    """b copies a (they imply each other): b, the later one, is removed; c crosses a (every pair
    of values occurs), so nothing else is. The prediction is AODE's on (a, c)."""
    a = np.tile([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2], 2)
    c = np.repeat([0, 1], 12)
    y = np.array(list("xyxyyxxyxyxx" + "yyxxyxyxxyyx"))
    X = pd.DataFrame({"a": a, "b": a, "c": c}).astype("category")
    model = AODEsr(critical_value=0).fit(X, y)
    removed = model.generalisations(X)
    assert removed[:, 1].all() and not removed[:, [0, 2]].any()
    reduced = AODE(estimator="m-estimate", m=1.0).fit(X[["a", "c"]], y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X), reduced.predict_joint_log_proba(X[["a", "c"]]), rtol=1e-12
    )


def test_a_high_frequency_limit_falls_back_to_naive_bayes_on_every_value():
    """Under F = 30 and C = 0, some rows keep no eligible parent after the removals while one of
    their removed values was eligible: Weka's fallback scores all the row's values."""
    X, y = load_dataset("breast-cancer")
    model = AODEsr(critical_value=0, frequency_limit=30).fit(X, y)
    codes = model._encode(X, reset=False, training=False)
    eligible = model._eligible(model._value_index(codes), 0)
    kept = model._eligible(model._value_index(model._parent_codes(codes, 0)), 0)
    differs = eligible.any(axis=1) & ~kept.any(axis=1)
    assert differs.any()
    naive_bayes = model._log_naive_bayes(codes[differs], "mean")
    np.testing.assert_allclose(model.predict_joint_log_proba(X)[differs], naive_bayes, rtol=1e-12)


def test_exact_leave_one_out_equals_refits():
    """Critical value 3 on 30 rows: leaving a row out moves some N(x_j) across it."""
    X, y = load_dataset("weather.nominal")
    X, y = pd.concat([X, X.iloc[:8]], ignore_index=True), pd.concat([y, y.iloc[:8]], ignore_index=True)
    model = AODEsr(critical_value=3, m=2.0)
    fitted = clone(model).fit(X, y)
    assert fitted.generalisations(X).any()
    joint = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        joint.append(
            clone(model).fit(X.iloc[keep], y.iloc[keep]).predict_joint_log_proba(X.iloc[[i]], estimate="predictive")[0]
        )
    joint = np.array(joint)
    own = fitted._class_index(np.asarray(y))
    result = fitted.loo(X, y, conditional=False)
    np.testing.assert_allclose(result.loo_i.values, joint[np.arange(len(y)), own], rtol=0, atol=1e-10)


@pytest.mark.parametrize("estimate", ["mle", "map", "mean", "predictive"])
def test_estimates_are_aode_s_on_the_resolved_rows(estimate):
    """Each estimate is AODE's with the removed values made missing (the fallback aside)."""
    X, y = load_dataset("breast-cancer")
    model = AODEsr(critical_value=5, estimator="laplace", alpha=0.5).fit(X, y)
    resolved = X.mask(model.generalisations(X))
    aode = AODE(alpha=0.5).fit(X, y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X, estimate=estimate),
        aode.predict_joint_log_proba(resolved, estimate=estimate),
        rtol=1e-12,
    )


def test_partial_fit_and_integer_weights_equal_fit_on_the_rows():
    X, y = load_dataset("breast-cancer")
    model = AODEsr(critical_value=5).fit(X, y)
    batches = (
        AODEsr(critical_value=5).partial_fit(X[:100], y[:100], classes=model.classes_).partial_fit(X[100:], y[100:])
    )
    np.testing.assert_allclose(batches.predict_proba(X), model.predict_proba(X), rtol=1e-12)
    weight = np.arange(len(y)) % 3
    weighted = AODEsr(critical_value=5).fit(X, y, sample_weight=weight)
    repeated = AODEsr(critical_value=5).fit(
        X.iloc[np.repeat(np.arange(len(y)), weight)], y.iloc[np.repeat(np.arange(len(y)), weight)]
    )
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-12)


@pytest.mark.parametrize("value", [-1, "50", True, np.nan])
def test_bad_critical_value_is_named(value, weather):
    X, y = weather
    with pytest.raises(ValueError, match="critical_value"):
        AODEsr(critical_value=value).fit(X, y)
