"""Exact leave-one-out of SPODE, AODE and TAN (pgm_models.semi_naive._loo): equal to refitting
without each row, with missing values, and ranked by az.compare beside naive Bayes."""

from __future__ import annotations

import arviz as az
import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from pgm_models import AODE, SPODE, TAN, CategoricalNB
from pgm_models.datasets import load_dataset


@pytest.fixture(scope="module")
def small_missing():
    """30 rows, 4 attributes of 2–3 declared values (a refit keeps the domains), 3 classes,
    about 15% of values missing and one row missing everything (AODE's naive Bayes fallback)."""
    rng = np.random.default_rng(3)
    n, sizes = 30, [2, 3, 3, 2]
    y = pd.Series(np.repeat(["a", "b", "c"], n // 3))
    columns = {}
    for j, size in enumerate(sizes):
        codes = rng.integers(0, size, n)
        codes[rng.random(n) < 0.15] = -1
        codes[4] = -1
        columns[f"x{j}"] = pd.Categorical.from_codes(codes, categories=[f"v{u}" for u in range(size)])
    return pd.DataFrame(columns), y


def _refit_joint(model, X, y):
    """(N, K) log p(y_i = k, x_i | D₋ᵢ) for every class, by refitting without row i."""
    joint = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        refit = clone(model).fit(X.iloc[keep], y.iloc[keep])
        joint.append(refit.predict_joint_log_proba(X.iloc[[i]], estimate="predictive")[0])
    return np.array(joint)


def _check_against_refits(model, X, y):
    fitted = clone(model).fit(X, y)
    joint = _refit_joint(model, X, y)
    own = fitted._class_index(np.asarray(y))
    rows = np.arange(len(y))
    for conditional, expected in ((False, joint), (True, joint - np.logaddexp.reduce(joint, axis=1)[:, None])):
        result = fitted.loo(X, y, conditional=conditional)
        np.testing.assert_allclose(result.loo_i.values, expected[rows, own], rtol=0, atol=1e-10)
        assert result.elpd_loo == pytest.approx(expected[rows, own].sum(), abs=1e-9)


MODELS = {
    "SPODE": SPODE(parent=1, alpha=0.7),
    "SPODE m-estimate": SPODE(parent="x0", estimator="m-estimate", m=2.0),
    "AODE": AODE(alpha=0.5),
    "AODE bma": AODE(weights="bma", alpha=0.6),
    "AODE tempered, frequency limit": AODE(weights="tempered", temperature=0.3, frequency_limit=6),
    "AODE all fallback": AODE(frequency_limit=30, alpha=2.0),
}


@pytest.mark.parametrize("name", MODELS)
def test_loo_equals_refits_without_each_row(small_missing, name):
    X, y = small_missing
    model = MODELS[name]
    if isinstance(model, SPODE):  # some rows lack the super-parent (summed out, not counted)
        assert X[model.parent if isinstance(model.parent, str) else X.columns[model.parent]].isna().sum() >= 2
    _check_against_refits(model, X, y)


@pytest.mark.parametrize("model", [TAN(alpha=0.7, class_alpha=2.0), TAN(root=2)])
def test_tan_loo_equals_refits_that_learn_the_tree_again(small_missing, model):
    X, y = small_missing
    full_tree = clone(model).fit(X, y).tree_parent_
    moved = sum(
        not np.array_equal(clone(model).fit(X.drop(index=i), y.drop(index=i)).tree_parent_, full_tree)
        for i in range(len(y))
    )
    assert 3 <= moved <= len(y) - 3  # both paths: rows that move the tree and rows that do not
    _check_against_refits(model, X, y)


def test_aode_loo_frequency_limit_counts_the_row_out():
    """A parent value seen exactly ``frequency_limit`` times qualifies in the full fit but not
    without one of its rows: x0 = "u" occurs twice, limit 2. By hand (one class, α = 1, two
    attributes, so p(x) = ½[p(x0) p(x1 | x0) + p(x1) p(x0 | x1)]): leaving out row 0 = (u, p)
    drops SPODE x0, and SPODE x1 (x1 = "p" seen 3 times, 2 left) scores
    p(x1 = p) p(x0 = u | p) = (2 + 1)/(4 + 2) · (0 + 1)/(2 + 2) = 1/8."""
    X = pd.DataFrame({"x0": ["u", "u", "w", "w", "w"], "x1": ["p", "q", "p", "p", "q"]})
    y = ["c"] * 5
    result = AODE(frequency_limit=2).fit(X, y).loo(X, y, conditional=False)
    assert result.loo_i.values[0] == pytest.approx(np.log(1 / 8), abs=1e-14)


def test_az_compare_ranks_semi_naive_beside_naive_bayes():
    X, y = load_dataset("vote")
    models = {
        "CategoricalNB": CategoricalNB(),
        "SPODE": SPODE(parent="physician-fee-freeze"),
        "AODE": AODE(),
        "TAN": TAN(),
        "AODE alpha=50": AODE(alpha=50.0),
    }
    results = {name: model.fit(X, y).loo(X, y, conditional=False) for name, model in models.items()}
    table = az.compare(results, method="pseudo-bma")
    order = sorted(results, key=lambda name: -results[name].elpd_loo)
    assert list(table.index) == order
    np.testing.assert_allclose(table["elpd_loo"], [results[name].elpd_loo for name in order])
    assert table["weight"].sum() == pytest.approx(1.0)
    # on vote the attributes interact: every semi-naive model predicts (y, x) better than naive
    # Bayes, and a 50-pseudo-count prior worst (by 110 or more; elpd_loo is about −3000)
    assert all(results[name].elpd_loo > results["CategoricalNB"].elpd_loo for name in ("SPODE", "AODE", "TAN"))
    assert order[-1] == "AODE alpha=50"


@pytest.mark.parametrize("model", [SPODE(parent=2), AODE()])
def test_every_row_is_more_probable_in_the_training_data(small_missing, model):
    """Each Dirichlet factor (n + α)/(N + A) ≥ (n − 1 + α)/(N − 1 + A) when n ≤ N, so the full
    fit's joint predictive of a training row is never below its leave-one-out one (TAN is left
    out: without the row its tree may change, and nothing bounds the row under another tree)."""
    X, y = small_missing
    fitted = clone(model).fit(X, y)
    result = fitted.loo(X, y, conditional=False)
    full = fitted.predict_joint_log_proba(X, estimate="predictive")[
        np.arange(len(y)), fitted._class_index(np.asarray(y))
    ]
    assert np.all(full >= result.loo_i.values - 1e-12)
    assert result.p_loo == pytest.approx(full.sum() - result.elpd_loo, abs=1e-9) and result.p_loo > 0


def test_blocks_of_rows_give_the_same_loo(monkeypatch):
    """Rows are scored in blocks of at least 256: vote's 435 rows in one block, then in two."""
    import pgm_models.semi_naive._loo as semi_naive_loo

    X, y = load_dataset("vote")
    models = [SPODE(parent=3), AODE(weights="bma"), TAN()]
    one_block = [model.fit(X, y).loo(X, y, conditional=False).loo_i.values for model in models]
    monkeypatch.setattr(semi_naive_loo, "FLOATS_PER_BLOCK", 1)
    for model, expected in zip(models, one_block):
        np.testing.assert_allclose(model.loo(X, y, conditional=False).loo_i.values, expected, rtol=0, atol=1e-12)
