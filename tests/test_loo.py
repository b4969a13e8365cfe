"""Exact leave-one-out (pgm_models.model_selection.loo): equal to refitting without each row, close to ArviZ's
PSIS-LOO on posterior draws, and usable by az.compare."""

from __future__ import annotations

import arviz as az
import numpy as np
import pytest
from sklearn.base import clone

from benchmarks.loo import rows_log_likelihood
from pgm_models import LDA, QDA, BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB
from pgm_models.datasets import load_dataset


def _fixed_prior(model, X):
    """Gaussian defaults scale the prior to the data; a refit without a row must keep the fit's."""
    if isinstance(model, GaussianNB):
        return clone(model).set_params(prior_mean=X.mean(axis=0), prior_var=X.var(axis=0))
    if isinstance(model, (LDA, QDA)):
        return clone(model).set_params(prior_mean=X.mean(axis=0), prior_cov=np.diag(X.var(axis=0)))
    return model


def _brute_force(model, X, y, conditional):
    """log p(y_i | x_i, D₋ᵢ) or log p(y_i, x_i | D₋ᵢ) by refitting without row i."""
    values = []
    rows = np.arange(len(y))
    for i in rows:
        keep = rows != i
        X_out = X.iloc[keep] if hasattr(X, "iloc") else X[keep]
        y_out = y.iloc[keep] if hasattr(y, "iloc") else y[keep]
        refit = clone(model).fit(X_out, y_out)
        row = X.iloc[[i]] if hasattr(X, "iloc") else X[[i]]
        joint = refit.predict_joint_log_proba(row, estimate="predictive")[0]
        if conditional:
            joint = joint - np.logaddexp.reduce(joint)
        values.append(joint[list(refit.classes_).index(np.asarray(y)[i])])
    return np.array(values)


@pytest.fixture(scope="module")
def small_cases(weather, binary_data, count_data, iris_2d):
    X_iris, y_iris = iris_2d
    pick = np.r_[0:8, 50:58, 100:108]  # 8 rows per class: LOO moves the posterior noticeably
    return {
        "CategoricalNB": (CategoricalNB(alpha=0.7, class_alpha=1.5), *weather),
        "BernoulliNB": (BernoulliNB(alpha=0.5, binarize=None), *binary_data),
        "MultinomialNB": (MultinomialNB(alpha=0.3), *count_data),
        "GaussianNB": (GaussianNB(), X_iris[pick], y_iris[pick]),
        "LDA": (LDA(), X_iris[pick], y_iris[pick]),
        "QDA": (QDA(), X_iris[pick], y_iris[pick]),
    }


@pytest.mark.parametrize("name", ["CategoricalNB", "BernoulliNB", "MultinomialNB", "GaussianNB", "LDA", "QDA"])
@pytest.mark.parametrize("conditional", [True, False])
def test_loo_equals_refits_without_each_row(small_cases, name, conditional):
    model, X, y = small_cases[name]
    model = _fixed_prior(model, np.asarray(X, dtype=float) if name not in ("CategoricalNB",) else X)
    fitted = clone(model).fit(X, y)
    result = fitted.loo(X, y, conditional=conditional)
    expected = _brute_force(model, X, y, conditional)
    np.testing.assert_allclose(result.loo_i.values, expected, rtol=0, atol=1e-10)
    assert result.elpd_loo == pytest.approx(expected.sum(), abs=1e-9)
    assert result.se == pytest.approx(np.sqrt(len(expected) * expected.var()), abs=1e-9)
    assert result.n_data_points == len(y)


def test_loo_p_loo_is_lppd_minus_elpd(small_cases):
    model, X, y = small_cases["CategoricalNB"]
    fitted = clone(model).fit(X, y)
    result = fitted.loo(X, y, conditional=False)
    full = fitted.predict_joint_log_proba(X, estimate="predictive")
    lppd = full[np.arange(len(y)), fitted._class_index(np.asarray(y))].sum()
    assert result.p_loo == pytest.approx(lppd - result.elpd_loo, abs=1e-12)
    assert result.p_loo > 0  # every row is more probable when it is in the training data


def test_multinomial_loo_of_repeated_words_is_the_polya_urn():
    """A one-class, one-document-left-out case by hand: documents [2, 0] and [1, 1], α = 1.
    Leaving out [2, 0] leaves Dirichlet(2, 2); the ordered sequence (w1, w1) then has
    probability 2/4 · 3/5 = 3/10, and the class term is 1 (one class)."""
    model = MultinomialNB(alpha=1.0).fit(np.array([[2.0, 0.0], [1.0, 1.0]]), [0, 0])
    result = model.loo(np.array([[2.0, 0.0], [1.0, 1.0]]), [0, 0], conditional=False)
    # leaving out [1, 1] leaves Dirichlet(3, 1): p(w1, w2) = 3/4 · 1/5
    np.testing.assert_allclose(result.loo_i.values, np.log([3 / 10, 3 / 20]), rtol=1e-13)


def test_loo_rejects_rows_that_were_not_fitted(count_data):
    X, y = count_data
    model = MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match="class counts"):
        model.loo(X[:-1], y[:-1])
    with pytest.raises(ValueError, match="do not give the fitted feature_count_"):
        model.loo(X + 50, y)


def test_exact_joint_loo_matches_psis_loo_of_exact_draws():
    """az.loo (PSIS) on exact posterior draws of CategoricalNB on vote, with the rows-form
    pointwise log-likelihood log p(y_i, x_i | θ_s), estimates the exact joint LOO.

    False-failure chance: with S = 4000 independent draws PSIS's Monte Carlo error of elpd_loo
    on vote has sd 0.12 and its pointwise errors stay below 0.06 (measured over 12 seeds: 5220
    points, every Pareto k < 0.45). The tolerances — 1.0 on elpd_loo (8 sds) and 0.3 pointwise
    (5× the largest error seen) — fail by chance far less often than 1e-4; elpd_loo's own
    standard error (about 81) is much looser still. A grossly wrong alpha = 50 is 100 away."""
    X, y = load_dataset("vote")
    model = CategoricalNB().fit(X, y)
    exact = model.loo(X, y, conditional=False)
    log_lik = rows_log_likelihood(model, X, y, model.posterior_draws(1000, random_seed=20261122, chains=4))
    idata = az.from_dict(log_likelihood={"y": log_lik.reshape(4, 1000, -1)})
    psis = az.loo(idata, pointwise=True, reff=1.0)  # exact draws are independent
    assert np.all(psis.pareto_k.values < 0.7)
    assert abs(psis.elpd_loo - exact.elpd_loo) < 1.0
    assert abs(psis.elpd_loo - exact.elpd_loo) < psis.se
    np.testing.assert_allclose(psis.loo_i.values, exact.loo_i.values, atol=0.3)
    wrong = CategoricalNB(alpha=50.0).fit(X, y).loo(X, y, conditional=False)
    assert exact.elpd_loo - wrong.elpd_loo > 100


def test_az_compare_ranks_exact_loo_results(small_cases):
    _, X, y = small_cases["CategoricalNB"]
    results = {f"alpha={a}": CategoricalNB(alpha=a).fit(X, y).loo(X, y) for a in (0.5, 1.0, 20.0)}
    table = az.compare(results, method="pseudo-bma")
    best = max(results, key=lambda k: results[k].elpd_loo)
    assert table.index[0] == best
    assert table.loc[best, "elpd_diff"] == 0
    np.testing.assert_allclose(table["elpd_loo"].sort_values().to_numpy(), sorted(r.elpd_loo for r in results.values()))
    assert table["weight"].sum() == pytest.approx(1.0)


@pytest.mark.nuts
def test_zoo_ranks_models_by_exact_loo_and_reports_learned_priors(tmp_path):
    """`pgm-models zoo --prior evidence` learns alpha/class_alpha, shows them, and the report has
    the az.compare table of the models' exact LOO on the training rows and its figure."""
    from pgm_models.app.report import write_report
    from pgm_models.app.zoo import run_zoo

    X, y = load_dataset("weather.nominal")
    models = [("CategoricalNB", CategoricalNB()), ("CategoricalNB, MAP", CategoricalNB(estimate="map"))]
    result = run_zoo(X, y, models=models, draws=30, chains=1, test_size=0.3, seed=0, prior="evidence")
    classifier = result.runs[0].classifier
    assert classifier.alpha == "evidence"
    assert result.table().loc[0, "prior"] == f"alpha={classifier.alpha_:.3g}, class_alpha={classifier.class_alpha_:.3g}"
    X_train = X.drop(index=result.X_test.index)
    y_train = y.drop(index=result.X_test.index)
    fixed = CategoricalNB(alpha=classifier.alpha_, class_alpha=classifier.class_alpha_).fit(X_train, y_train)
    table = result.comparison()
    assert set(table.index) == {"CategoricalNB", "CategoricalNB, MAP"} and table["weight"].sum() == pytest.approx(1)
    assert table.loc["CategoricalNB", "elpd_loo"] == pytest.approx(fixed.loo(X_train, y_train).elpd_loo, rel=1e-9)
    text = write_report(result, tmp_path).read_text()
    assert "az.compare" in text and (tmp_path / "figures" / "model-comparison.png").stat().st_size > 5_000
    with pytest.raises(ValueError, match="--prior"):
        run_zoo(X, y, prior="hierarchical")
