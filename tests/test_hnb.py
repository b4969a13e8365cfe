"""HNB: Weka 3.6.14 agreement (mode-imputed and MDL-discretised data too), the conditional mutual
information, a brute-force computation from the rows with missing values under every estimate,
partial_fit, sample weights."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import NUTS_SETTINGS, logp_at_random_points
from sklearn.metrics import mutual_info_score
from test_waode import weka_data

from pgm_models import HNB, CategoricalNB
from pgm_models.datasets import load_dataset
from pgm_models.inference.verify import check_posterior

WEKA = Path(__file__).parent.parent / "pgm_models" / "datasets" / "data" / "weka"


def _scoring_path(compiled, monkeypatch):
    """Score by the compiled loop (numba loaded) or by NumPy's path, and check which one runs."""
    from pgm_models.semi_naive import hnb

    if compiled:
        import numba  # noqa: F401  (the compiled loop runs once numba is loaded)
    monkeypatch.setattr(hnb, "COMPILED_SCORING", compiled)
    assert HNB._compiled_scoring() is compiled


@pytest.mark.parametrize(
    "fixture, dataset, preparation",
    [
        ("hnb_weather.nominal", "weather.nominal", None),
        ("hnb_contact-lenses", "contact-lenses", None),
        ("hnb_imputed_vote", "vote", "imputed"),
        ("hnb_imputed_breast-cancer", "breast-cancer", "imputed"),
        ("hnb_mdl_diabetes", "diabetes", "mdl"),
    ],
)
@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
def test_reproduces_weka_hnb(fixture, dataset, preparation, compiled, monkeypatch):
    """weka.classifiers.bayes.HNB 3.6.14, alone or in a FilteredClassifier (commands:
    pgm_models/datasets/data/weka/COMMANDS.txt), by the compiled scoring loop and by NumPy's."""
    _scoring_path(compiled, monkeypatch)
    X, y = weka_data(dataset, preparation)
    reference = pd.read_csv(WEKA / f"{fixture}.csv")
    model = HNB().fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), reference[list(model.classes_)].to_numpy(), rtol=0, atol=1e-12)


def test_conditional_mutual_information_is_the_class_weighted_mutual_information():
    """I(X_j; X_p | Y) = Σ_k P(k) I(X_j; X_p | Y = k), on the rows observing both."""
    X, y = load_dataset("breast-cancer")
    information = HNB().fit(X, y).conditional_mutual_information()
    for j in range(X.shape[1]):
        for p in range(X.shape[1]):
            if p == j:
                assert information[j, p] == 0
                continue
            both = X.iloc[:, j].notna() & X.iloc[:, p].notna()
            rows, labels = X[both], y[both]
            expected = sum(
                (labels == k).mean() * mutual_info_score(rows.iloc[:, j][labels == k], rows.iloc[:, p][labels == k])
                for k in labels.unique()
            )
            assert information[j, p] == pytest.approx(expected, rel=1e-10, abs=1e-14)
    np.testing.assert_allclose(information, information.T, rtol=1e-12)


def _brute_force(X, y, model, rows, estimate, alpha):
    """log p(y = k, x) of ``rows`` of X by the formula, every count taken from the rows of X by
    a comparison: the tables' estimates with Laplace ``alpha`` under ``estimate``."""
    codes = np.column_stack([X[c].cat.codes.to_numpy() for c in X.columns])
    sizes = [len(X[c].cat.categories) for c in X.columns]
    labels = np.asarray(y)
    classes = model.classes_
    weights = model.conditional_mutual_information()

    def estimated(count, total, size):  # an empty block: uniform (the Dirichlet estimates' convention)
        if estimate == "mle":
            return count / total if total > 0 else 1 / size
        if estimate == "map":
            return (count + alpha - 1) / (total + size * (alpha - 1))
        return (count + alpha) / (total + size * alpha)

    result = np.zeros((len(rows), len(classes)))
    for r, n in enumerate(rows):
        for k, label in enumerate(classes):
            is_k = labels == label
            log_p = np.log(estimated(is_k.sum(), len(labels), len(classes)))
            observed = [j for j in range(len(sizes)) if codes[n, j] >= 0]
            for j in observed:
                child = is_k & (codes[:, j] == codes[n, j])
                parents = [p for p in observed if p != j]
                total = sum(weights[j, p] for p in parents)
                if total > 0:
                    mixed = sum(
                        weights[j, p]
                        * estimated(
                            (child & (codes[:, p] == codes[n, p])).sum(),
                            (is_k & (codes[:, p] == codes[n, p]) & (codes[:, j] >= 0)).sum(),
                            sizes[j],
                        )
                        for p in parents
                    )
                    log_p += np.log(mixed / total)
                else:
                    log_p += np.log(estimated(child.sum(), (is_k & (codes[:, j] >= 0)).sum(), sizes[j]))
            result[r, k] = log_p
    return result


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
@pytest.mark.parametrize("estimate", ["mle", "map", "mean", "predictive"])
def test_equals_the_formula_computed_from_the_rows_with_missing_values(estimate, compiled, monkeypatch):
    _scoring_path(compiled, monkeypatch)
    X, y = load_dataset("breast-cancer")
    model = HNB(estimator="laplace", alpha=2.0).fit(X, y)
    rows = np.r_[
        np.flatnonzero(X.isna().any(axis=1)), np.arange(0, len(y), 25)
    ]  # every row with a missing value, and some
    expected = _brute_force(X, y, model, rows, "mean" if estimate == "predictive" else estimate, 2.0)
    np.testing.assert_allclose(model.predict_joint_log_proba(X.iloc[rows], estimate=estimate), expected, rtol=1e-12)


def test_a_lone_attribute_or_no_dependence_is_naive_bayes():
    """One attribute has no other to be its hidden parent; attributes independent given the
    class (each class's table a product) have weight 0 everywhere: both are naive Bayes."""
    y = np.array(list("aaaabbbb"))
    X = pd.DataFrame({"x0": [0, 0, 1, 1, 1, 1, 1, 1], "x1": [0, 1, 0, 1, 0, 1, 0, 1]}).astype("category")
    naive_bayes = CategoricalNB(alpha=1.0, class_alpha=1.0)
    lone = HNB(estimator="laplace").fit(X[["x0"]], y)
    np.testing.assert_allclose(
        lone.predict_proba(X[["x0"]]), naive_bayes.fit(X[["x0"]], y).predict_proba(X[["x0"]]), rtol=1e-12
    )
    independent = HNB(estimator="laplace").fit(X, y)
    assert not independent.conditional_mutual_information().any()
    np.testing.assert_allclose(independent.predict_proba(X), naive_bayes.fit(X, y).predict_proba(X), rtol=1e-12)


def test_partial_fit_and_integer_weights_equal_fit_on_the_rows():
    X, y = load_dataset("vote")
    model = HNB().fit(X, y)
    batches = HNB().partial_fit(X[:200], y[:200], classes=model.classes_).partial_fit(X[200:], y[200:])
    np.testing.assert_allclose(batches.predict_proba(X), model.predict_proba(X), rtol=1e-12)
    weight = np.arange(len(y)) % 3
    rows = np.repeat(np.arange(len(y)), weight)
    np.testing.assert_allclose(
        HNB().fit(X, y, sample_weight=weight).predict_proba(X),
        HNB().fit(X.iloc[rows], y.iloc[rows]).predict_proba(X),
        rtol=1e-12,
    )


def test_leave_one_out_is_refused_with_the_reason(weather):
    X, y = weather
    with pytest.raises(NotImplementedError, match="conditional mutual information"):
        HNB().fit(X, y).loo(X, y)


def test_posterior_means_of_the_tables_are_what_it_mixes(weather):
    """Each table's closed-form posterior mean is the m-estimate HNB plugs in: with the means
    read off ``analytic_posterior``, the formula gives ``predict_joint_log_proba``."""
    X, y = weather
    model = HNB().fit(X, y)
    mean = model.analytic_posterior("mean")
    # (n(no, sunny, humidity=high) + 1/2) / (n(no, sunny) + 1) = (3 + 1/2) / (3 + 1)
    table = mean["feature_prob_humidity_given_outlook"].sel(
        {"class": "no", "outlook_value": "sunny", "humidity_value": "high"}
    )
    assert float(table) == pytest.approx(3.5 / 4)
    assert float(mean["class_prob"].sel({"class": "yes"})) == pytest.approx((9 + 1 / 2) / (14 + 1))
    names, weights = list(X.columns), model.conditional_mutual_information()
    row = X.iloc[0]
    for k, label in enumerate(model.classes_):
        log_p = np.log(float(mean["class_prob"].sel({"class": label})))
        for j, child in enumerate(names):
            mixed = sum(
                weights[j, p]
                * float(
                    mean[f"feature_prob_{child}_given_{parent}"].sel(
                        {"class": label, f"{parent}_value": row[parent], f"{child}_value": row[child]}
                    )
                )
                for p, parent in enumerate(names)
                if p != j
            )
            log_p += np.log(mixed / weights[j].sum())
        assert model.predict_joint_log_proba(X.iloc[[0]])[0, k] == pytest.approx(log_p, rel=1e-12)


def test_counts_and_rows_forms_have_the_same_posterior():
    X, y = load_dataset("breast-cancer")
    X, y = X.iloc[:60, :4], y.iloc[:60]
    X = X.mask(np.random.default_rng(2).random(X.shape) < 0.1)
    model = HNB().fit(X, y)
    difference = logp_at_random_points(model.pymc_model("counts")) - logp_at_random_points(
        model.pymc_model("rows", X, y)
    )
    np.testing.assert_allclose(difference, difference[0], atol=1e-9)


@pytest.mark.nuts
def test_nuts_agrees_with_the_closed_form(weather):
    """4 chains × 1000 draws of the counts form on weather (12 one-dependence and 4 naive Bayes
    tables). check_posterior's family error 1e-6 bounds a false failure by its z-tests; R-hat
    and ESS on these small Dirichlet posteriors pass with wide margins (as the zoo's models do,
    tests/test_verify.py)."""
    model = HNB().fit(*weather)
    idata = model.sample_posterior(random_seed=20261128, **NUTS_SETTINGS)
    result = check_posterior(model, idata, family_error=1e-6)
    assert result.passed, result.reasons
    assert len(result.table) == sum(v.size for v in model.analytic_posterior("mean").data_vars.values())
