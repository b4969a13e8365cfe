"""BMATAN: the determinant formulas equal the explicit sum over all F^(F−2) TAN trees (Prüfer
sequences), each tree a directed TAN whose score and predictive do not depend on its root."""

import itertools

import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy.special import gammaln, logsumexp

from pgm_models import BMATAN
from pgm_models.bayes_net._trees import edge_probabilities, log_tree_sum
from pgm_models.datasets import load_dataset

matplotlib.use("Agg")


def _prufer_trees(n):
    """Every labelled tree on n nodes, as a list of edges, decoded from its Prüfer sequence."""
    for sequence in itertools.product(range(n), repeat=n - 2):
        degree = [1] * n
        for node in sequence:
            degree[node] += 1
        edges = []
        for node in sequence:
            leaf = min(i for i in range(n) if degree[i] == 1)
            edges.append((leaf, node))
            degree[leaf] -= 1
            degree[node] -= 1
        u, v = [i for i in range(n) if degree[i] == 1]
        edges.append((u, v))
        yield edges


def _directed(edges, root):
    """Tree parent of every node when the tree's edges point away from ``root`` (−1 at the root)."""
    parent, frontier = {root: -1}, [root]
    while frontier:
        node = frontier.pop()
        for u, v in edges:
            for a, b in ((u, v), (v, u)):
                if a == node and b not in parent:
                    parent[b] = a
                    frontier.append(b)
    return [parent[j] for j in range(len(parent))]


def _dirmult(counts, alpha):
    counts = np.asarray(counts, dtype=float)
    return (
        gammaln(counts.shape[-1] * alpha)
        - gammaln(counts.shape[-1] * alpha + counts.sum(-1))
        + (gammaln(counts + alpha) - gammaln(alpha)).sum(-1)
    )


def _codes(X):
    """Integer codes in each column's declared order, a missing value replaced by the column's mode
    (the first most frequent value)."""
    codes = []
    for name in X.columns:
        column = X[name]
        domain = list(column.cat.categories)
        counts = column.value_counts().reindex(domain).to_numpy()
        mode = domain[int(np.argmax(counts))]
        codes.append(np.array([domain.index(mode if pd.isna(v) else v) for v in column]))
    return np.array(codes).T, [len(X[name].cat.categories) for name in X.columns]


def _tan(codes, sizes, labels, K, parent, ess, class_alpha):
    """(log p(D | TAN), (N, K) log p(y = k, x_n | TAN, D)) of one directed TAN with BDeu tables."""
    N = len(labels)
    class_counts = np.bincount(labels, minlength=K)
    log_ml = _dirmult(class_counts, class_alpha)
    joint = np.tile(np.log((class_counts + class_alpha) / (N + K * class_alpha)), (N, 1))
    for j, p in enumerate(parent):
        r = sizes[j]
        q = 1 if p < 0 else sizes[p]
        alpha = ess / (K * q * r)
        table = np.zeros((K, q, r))
        np.add.at(table, (labels, 0 if p < 0 else codes[:, p], codes[:, j]), 1)
        log_ml += _dirmult(table, alpha).sum()
        prob = (table + alpha) / (table.sum(2, keepdims=True) + r * alpha)
        joint += np.log(prob[:, 0 if p < 0 else codes[:, p], codes[:, j]]).T
    return log_ml, joint


def _enumerate(X, y, ess, class_alpha, beta, root):
    codes, sizes = _codes(X)
    classes = sorted(pd.unique(y))
    labels = np.array([classes.index(v) for v in y])
    F = len(sizes)
    log_scores, joints, trees = [], [], []
    for edges in _prufer_trees(F):
        log_ml, joint = _tan(codes, sizes, labels, len(classes), _directed(edges, root(edges)), ess, class_alpha)
        log_scores.append(log_ml + sum(np.log(beta[u, v]) for u, v in edges))
        joints.append(joint)
        trees.append(edges)
    log_scores = np.array(log_scores)
    log_posterior = log_scores - logsumexp(log_scores)
    averaged = logsumexp(log_posterior[:, None, None] + np.array(joints), axis=0)
    edge = np.zeros((F, F))
    for weight, edges in zip(np.exp(log_posterior), trees):
        for u, v in edges:
            edge[u, v] += weight
            edge[v, u] += weight
    log_prior_sum = logsumexp([sum(np.log(beta[u, v]) for u, v in edges) for edges in trees])
    return np.exp(averaged - logsumexp(averaged, axis=1, keepdims=True)), edge, logsumexp(log_scores) - log_prior_sum


def _breast_cancer_six():
    X, y = load_dataset("breast-cancer")
    return X.iloc[:, :6], y  # node-caps has missing values: replaced by its mode


def _data(name):
    return _breast_cancer_six() if name == "breast-cancer-6" else load_dataset(name)


@pytest.mark.parametrize(
    "dataset, ess, class_alpha, random_beta",
    [
        ("weather.nominal", 1.0, 1.0, False),
        ("contact-lenses", 3.0, 0.5, True),
        ("breast-cancer-6", 1.0, 1.0, False),
    ],
)
def test_average_equals_the_sum_over_every_tree(dataset, ess, class_alpha, random_beta):
    X, y = _data(dataset)
    F = X.shape[1]
    assert F <= 6
    beta = np.ones((F, F))
    if random_beta:
        beta = np.random.default_rng(1).uniform(0.2, 3.0, (F, F))
        beta = beta + beta.T
    model = BMATAN(ess=ess, class_alpha=class_alpha, edge_prior=beta if random_beta else None).fit(X, y)
    proba, edge, log_evidence = _enumerate(X, y, ess, class_alpha, beta, root=lambda edges: 0)
    np.testing.assert_allclose(model.predict_proba(X), proba, rtol=0, atol=1e-10)
    np.testing.assert_allclose(model.edge_posterior_, edge, rtol=0, atol=1e-10)
    assert model.log_evidence() == pytest.approx(log_evidence, abs=1e-9)


def test_each_tree_scores_and_predicts_the_same_from_every_root():
    """Undirected tree → TAN: direct every edge away from a root, the class a parent of all. With
    the BDeu tables the marginal likelihood and the predictive are the same for every root."""
    X, y = _breast_cancer_six()
    codes, sizes = _codes(X)
    labels = np.array([sorted(pd.unique(y)).index(v) for v in y])
    for edges in list(_prufer_trees(6))[::97]:
        results = [_tan(codes, sizes, labels, 2, _directed(edges, root), 2.0, 1.0) for root in range(6)]
        for log_ml, joint in results[1:]:
            assert log_ml == pytest.approx(results[0][0], abs=1e-9)
            np.testing.assert_allclose(joint, results[0][1], rtol=0, atol=1e-10)
    # and so the whole average: rooted at each tree's last leaf instead of node 0
    proba, _, _ = _enumerate(X, y, 1.0, 1.0, np.ones((6, 6)), root=lambda edges: edges[-1][1])
    model = BMATAN().fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), proba, rtol=0, atol=1e-10)


def test_tree_sums_are_stable_where_the_weights_overflow():
    """Kron reduction in log space: weights of e^±700 (beyond a float's range once multiplied)
    give log τ of a scaled graph exactly: τ(c w) = c^(n−1) τ(w); a heavy edge is certain."""
    rng = np.random.default_rng(0)
    log_weight = rng.normal(size=(7, 7))
    log_weight = log_weight + log_weight.T
    base = log_tree_sum(log_weight)
    assert log_tree_sum(log_weight + 700.0) == pytest.approx(base + 6 * 700.0, rel=1e-14)
    assert log_tree_sum(log_weight - 700.0) == pytest.approx(base - 6 * 700.0, rel=1e-14)
    w = np.exp(log_weight)
    laplacian = np.diag(w.sum(1) - np.diag(w)) - w + np.diag(np.diag(w))
    assert base == pytest.approx(np.linalg.slogdet(laplacian[1:, 1:])[1], abs=1e-12)
    heavy = log_weight.copy()
    heavy[2, 5] = heavy[5, 2] = 800.0
    probability = edge_probabilities(heavy)
    assert probability[2, 5] == pytest.approx(1.0, abs=1e-12)
    assert probability.sum() == pytest.approx(2 * 6, abs=1e-10)


def test_estimates_weights_partial_fit_and_bad_input(weather):
    X, y = weather
    model = BMATAN().fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X, estimate="predictive"), model.predict_proba(X))
    mle = model.predict_proba(X, estimate="mle")
    assert np.allclose(mle.sum(1), 1) and not np.allclose(mle, model.predict_proba(X))
    with pytest.raises(ValueError, match="map"):
        model.predict_proba(X, estimate="map")
    from pgm_models.conjugate import PosteriorDraw

    with pytest.raises(TypeError, match="PosteriorDraw"):
        model.predict_proba(X, estimate=PosteriorDraw(0))
    twice = BMATAN().fit(pd.concat([X, X.iloc[:4]]), pd.concat([y, y.iloc[:4]]))
    weighted = BMATAN().fit(X, y, sample_weight=np.r_[2, 2, 2, 2, np.ones(10)])
    np.testing.assert_allclose(weighted.predict_proba(X), twice.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(weighted.edge_posterior_, twice.edge_posterior_, atol=1e-12)
    batches = BMATAN().partial_fit(X.iloc[:6], y.iloc[:6], classes=model.classes_).partial_fit(X.iloc[6:], y.iloc[6:])
    np.testing.assert_allclose(batches.predict_proba(X), model.predict_proba(X), atol=1e-12)
    for params, name in [
        ({"ess": 0}, "ess"),
        ({"edge_prior": np.ones((3, 3))}, "edge_prior"),
        ({"missing": "drop"}, "missing"),
    ]:
        with pytest.raises(ValueError, match=name):
            BMATAN(**params).fit(X, y)
    X_missing = X.copy()
    X_missing.iloc[0, 1] = np.nan
    with pytest.raises(ValueError, match="temperature"):
        BMATAN(missing="error").fit(X_missing, y)


def test_plot_tree_returns_a_figure(weather):
    X, y = weather
    figure = BMATAN().fit(X, y).plot_tree(threshold=0.1)
    assert isinstance(figure, matplotlib.figure.Figure)
    labels = [t.get_text() for t in figure.axes[0].texts]
    assert set(X.columns) <= set(labels)


def test_dask_fit_equals_in_memory():
    dd = pytest.importorskip("dask.dataframe")
    X, y = load_dataset("vote")
    model = BMATAN().fit(X, y)
    on_dask = BMATAN().fit(dd.from_pandas(X, npartitions=3, sort=False), dd.from_pandas(y, npartitions=3, sort=False))
    np.testing.assert_allclose(on_dask.edge_posterior_, model.edge_posterior_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(on_dask.predict_proba(X), model.predict_proba(X), rtol=0, atol=1e-12)


@pytest.mark.parametrize("dataset", ["weather.nominal", "contact-lenses"])
def test_loo_equals_refitting_without_each_row(dataset):
    """Every row's exact leave-one-out score (K + 1 determinants) against a fit on the other rows."""
    X, y = load_dataset(dataset)
    model = BMATAN(ess=2.0).fit(X, y)
    conditional, joint = model.loo(X, y).loo_i.to_numpy(), model.loo(X, y, conditional=False).loo_i.to_numpy()
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        refit = BMATAN(ess=2.0).fit(X[keep], y[keep])
        scores = refit.predict_joint_log_proba(X.iloc[i : i + 1])[0]
        k = list(refit.classes_).index(y.iloc[i])
        assert joint[i] == pytest.approx(scores[k], abs=1e-10)
        assert conditional[i] == pytest.approx(scores[k] - logsumexp(scores), abs=1e-10)


def test_a_pair_tensor_that_cannot_fit_is_refused_with_its_size():
    """2000 attributes × 500 declared values: the 2 × 1002000 × 1002000 pair tensor (16 TB) is refused
    before anything is allocated, with its size and the remedy, as AODE, TAN and KDB refuse theirs."""
    X, y = np.zeros((2, 2000), dtype=int), [0, 1]
    with pytest.raises(
        ValueError,
        match=r"BMATAN's pair counts, a 2 × 1002000 × 1002000 tensor .* needs [\d.e+]+ GiB.*fewer attributes",
    ):
        BMATAN(n_categories=500).fit(X, y)
