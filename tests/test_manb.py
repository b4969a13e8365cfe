"""MANB: the factorised average equals the explicit sum over all 2^F naive Bayes subsets."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.special import gammaln, logsumexp

from pgm_models import MANB
from pgm_models.datasets import load_dataset


def _dirmult(counts, alpha):
    """log DirMult of an ordered sequence with these counts (last axis one block), symmetric α."""
    counts = np.asarray(counts, dtype=float)
    size = counts.shape[-1]
    return (
        gammaln(size * alpha)
        - gammaln(size * alpha + counts.sum(-1))
        + (gammaln(counts + alpha) - gammaln(alpha)).sum(-1)
    )


def _enumerate(X, y, alpha, class_alpha, arc_prior):
    """Every subset S as its own naive Bayes over all attributes (arcs C → X_j for j in S, the rest
    independent of C), scored by its marginal likelihood: (predictive P(y | x) of X's rows,
    arc posteriors, log p(D)) of the average, from first principles (available cases)."""
    classes = sorted(pd.unique(y))
    labels = np.array([classes.index(v) for v in y])
    K, F = len(classes), X.shape[1]
    columns = []
    for j in range(F):
        values = sorted(pd.unique(X.iloc[:, j].dropna()))
        domain = list(X.iloc[:, j].cat.categories) if hasattr(X.iloc[:, j], "cat") else values
        codes = np.array([-1 if pd.isna(v) else domain.index(v) for v in X.iloc[:, j]])
        table = np.zeros((K, len(domain)))
        np.add.at(table, (labels[codes >= 0], codes[codes >= 0]), 1)
        columns.append((codes, table))
    class_counts = np.bincount(labels, minlength=K)
    log_ml_class = _dirmult(class_counts, class_alpha)
    class_pred = (class_counts + class_alpha) / (len(y) + K * class_alpha)
    log_weights, joints = [], []
    for subset in itertools.product([False, True], repeat=F):
        log_weight = log_ml_class
        joint = np.tile(np.log(class_pred), (len(X), 1))
        for j, (codes, table) in enumerate(columns):
            if subset[j]:
                log_weight += np.log(arc_prior) + _dirmult(table, alpha).sum()
                prob = (table + alpha) / (table.sum(1, keepdims=True) + table.shape[1] * alpha)
                term = np.log(prob[:, codes].T)
            else:
                log_weight += np.log(1 - arc_prior) + _dirmult(table.sum(0), alpha)
                margin = table.sum(0)
                prob = (margin + alpha) / (margin.sum() + len(margin) * alpha)
                term = np.tile(np.log(prob[codes])[:, None], (1, K))
            joint += np.where((codes >= 0)[:, None], term, 0.0)
        log_weights.append(log_weight)
        joints.append(joint)
    log_weights = np.array(log_weights)
    log_posterior = log_weights - logsumexp(log_weights)
    # the average of the joint p(y, x | S, D) over P(S | D), then normalised over y
    averaged = logsumexp(log_posterior[:, None, None] + np.array(joints), axis=0)
    subsets = np.array(list(itertools.product([0, 1], repeat=F)))
    return (
        np.exp(averaged - logsumexp(averaged, axis=1, keepdims=True)),
        np.exp(log_posterior) @ subsets,
        logsumexp(log_weights),
    )


def _breast_cancer_six():
    X, y = load_dataset("breast-cancer")
    return X.iloc[:, :6], y  # node-caps (column 4) has missing values


@pytest.mark.parametrize(
    "dataset, alpha, class_alpha, arc_prior",
    [
        ("weather.nominal", 1.0, 1.0, 0.5),
        ("contact-lenses", 0.5, 2.0, 0.2),
        ("breast-cancer-6", 1.0, 1.0, 0.7),
    ],
)
def test_average_equals_the_sum_over_every_subset(dataset, alpha, class_alpha, arc_prior):
    X, y = _breast_cancer_six() if dataset == "breast-cancer-6" else load_dataset(dataset)
    assert X.shape[1] <= 6
    model = MANB(alpha=alpha, class_alpha=class_alpha, arc_prior=arc_prior).fit(X, y)
    proba, arcs, log_evidence = _enumerate(X, y, alpha, class_alpha, arc_prior)
    assert list(model.classes_) == sorted(pd.unique(y))
    np.testing.assert_allclose(model.predict_proba(X), proba, rtol=0, atol=1e-10)
    np.testing.assert_allclose(model.arc_posterior_, arcs, rtol=0, atol=1e-10)
    assert model.log_evidence() == pytest.approx(log_evidence, abs=1e-10)


def test_learned_arc_prior_maximises_the_evidence_of_the_average():
    X, y = load_dataset("contact-lenses")
    model = MANB(arc_prior="evidence").fit(X, y)
    prior = model.arc_prior_
    assert 0 < prior < 1
    for other in (prior * 0.9, prior + 0.1 * (1 - prior)):
        assert MANB(arc_prior=other).fit(X, y).log_evidence() < model.log_evidence()
    # the learned model is the average at that prior, sum over subsets included
    proba, _, log_evidence = _enumerate(X, y, 1.0, 1.0, prior)
    np.testing.assert_allclose(model.predict_proba(X), proba, rtol=0, atol=1e-10)
    assert model.log_evidence() == pytest.approx(log_evidence, abs=1e-10)


def test_arc_posterior_follows_the_evidence_ratio(weather):
    """p_j / (1 − p_j) = π/(1 − π) · W_j / V_j: an attribute independent of the class in the
    data loses its arc; one that determines it keeps it."""
    X, y = weather
    X = X.copy()
    X["copy"] = pd.Categorical(y.astype(str))
    yes = y.to_numpy() == "yes"
    codes = np.empty(14, dtype=int)
    codes[yes], codes[~yes] = np.arange(9) % 2, np.arange(5) % 2  # a, b alternating within each class: 5/4 and 3/2
    X["flat"] = pd.Categorical(np.array(["a", "b"])[codes])
    model = MANB().fit(X, y)
    assert model.arc_posterior_[4] > 0.99
    assert model.arc_posterior_[5] < 0.5  # the evidence favours no arc (π = 0.5)
    w = _dirmult([np.bincount(codes[yes], minlength=2), np.bincount(codes[~yes], minlength=2)], 1.0).sum()
    v = _dirmult(np.bincount(codes, minlength=2), 1.0)
    assert model.arc_posterior_[5] == pytest.approx(1 / (1 + np.exp(v - w)), abs=1e-12)


def test_estimates_mix_the_tables_they_name(weather):
    X, y = weather
    model = MANB(arc_prior=0.3).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X, estimate="predictive"), model.predict_proba(X, estimate="mean"))
    # the MLE with every arc certain is the MLE naive Bayes: 1 − p_j → 0 as π → 1
    certain = MANB(arc_prior=1 - 1e-15).fit(X, y)
    counts = certain.feature_count_
    offsets = np.concatenate([[0], np.cumsum(certain.n_categories_)[:-1]])
    row = X.iloc[0]
    codes = [list(X[c].cat.categories).index(row[c]) for c in X.columns]
    joint = (
        certain.class_count_
        / 14
        * np.prod([counts[:, o + c] / certain.class_count_ for o, c in zip(offsets, codes)], axis=0)
    )
    np.testing.assert_allclose(certain.predict_proba(X.iloc[:1], estimate="mle")[0], joint / joint.sum(), atol=1e-12)


def test_weights_partial_fit_and_bad_input(weather):
    X, y = weather
    full = MANB().fit(X, y)
    twice = MANB().fit(pd.concat([X, X.iloc[:3]]), pd.concat([y, y.iloc[:3]]))
    weighted = MANB().fit(X, y, sample_weight=np.r_[2, 2, 2, np.ones(11)])
    np.testing.assert_allclose(weighted.predict_proba(X), twice.predict_proba(X), atol=1e-12)
    batches = MANB().partial_fit(X.iloc[:5], y.iloc[:5], classes=full.classes_).partial_fit(X.iloc[5:], y.iloc[5:])
    np.testing.assert_allclose(batches.predict_proba(X), full.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(batches.arc_posterior_, full.arc_posterior_, atol=1e-12)
    for params, name in [
        ({"arc_prior": 1.0}, "arc_prior"),
        ({"arc_prior": "max"}, "arc_prior"),
        ({"alpha": 0}, "alpha"),
        ({"alpha": -1}, "alpha"),
    ]:
        with pytest.raises(ValueError, match=name):
            MANB(**params).fit(X, y)


def test_dask_fit_equals_in_memory():
    dd = pytest.importorskip("dask.dataframe")
    X, y = load_dataset("vote")
    model = MANB(arc_prior="evidence").fit(X, y)
    on_dask = MANB(arc_prior="evidence").fit(
        dd.from_pandas(X, npartitions=3, sort=False), dd.from_pandas(y, npartitions=3, sort=False)
    )
    np.testing.assert_allclose(on_dask.predict_proba(X), model.predict_proba(X), rtol=0, atol=1e-12)
    np.testing.assert_allclose(on_dask.arc_posterior_, model.arc_posterior_, rtol=0, atol=1e-12)


@pytest.mark.parametrize("arc_prior", [0.3, "evidence"])
def test_loo_equals_refitting_without_each_row(arc_prior):
    """Every row's exact leave-one-out score against a fit on the other rows (a learned prior
    held at the full fit's value), with missing values in node-caps."""
    X, y = _breast_cancer_six()
    X, y = X.iloc[:25], y.iloc[:25]
    model = MANB(arc_prior=arc_prior).fit(X, y)
    conditional, joint = model.loo(X, y).loo_i.to_numpy(), model.loo(X, y, conditional=False).loo_i.to_numpy()
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        refit = MANB(arc_prior=model.arc_prior_).fit(X[keep], y[keep])
        scores = refit.predict_joint_log_proba(X.iloc[i : i + 1])[0]
        k = list(refit.classes_).index(y.iloc[i])
        assert joint[i] == pytest.approx(scores[k], abs=1e-10)
        assert conditional[i] == pytest.approx(scores[k] - logsumexp(scores), abs=1e-10)


def test_posterior_draws_average_to_the_predictive(weather):
    """A PosteriorDraw draws the arcs (each with p_j) and then the drawn structure's tables, so the
    average of p(y, x | S, θ) over draws is p(y, x | D). 4000 draws; each of the 28 entries is
    compared at 6 standard errors: false-failure chance below 1e-7 per run."""
    from pgm_models.conjugate import PosteriorDraw

    X, y = weather
    model = MANB(arc_prior=0.4).fit(X, y)
    rng = np.random.default_rng(5)
    draws = np.exp(np.array([model.predict_joint_log_proba(X, estimate=PosteriorDraw(rng)) for _ in range(4000)]))
    exact = np.exp(model.predict_joint_log_proba(X, estimate="predictive"))
    error = np.abs(draws.mean(axis=0) - exact)
    assert np.all(error < 6 * draws.std(axis=0) / np.sqrt(len(draws)))
