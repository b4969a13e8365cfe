"""SPODE and AODE: Weka 3.6 agreement with missing values, Dirichlet estimates, BMA evidence."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import logp_at_random_points

from pgm_models import AODE, SPODE, TAN
from pgm_models.datasets import load_dataset

WEKA = Path(__file__).parent.parent / "pgm_models" / "datasets" / "data" / "weka"


@pytest.mark.parametrize(
    "fixture, dataset, params",
    [
        ("aode_vote", "vote", {}),
        ("aode_breast-cancer", "breast-cancer", {}),
        ("aode_m3_vote", "vote", {"estimator": "m-estimate", "m": 3}),
        ("aode_m1_breast-cancer", "breast-cancer", {"estimator": "m-estimate", "m": 1}),
        ("aode_f10_breast-cancer", "breast-cancer", {"frequency_limit": 10}),
        ("aode_f1000_vote", "vote", {"frequency_limit": 1000}),
    ],
)
def test_reproduces_weka_aode_with_missing_values(fixture, dataset, params):
    """weka.classifiers.bayes.AODE 3.6.14 (commands: pgm_models/datasets/data/weka/COMMANDS.txt)."""
    X, y = load_dataset(dataset)
    reference = pd.read_csv(WEKA / f"{fixture}.csv")
    model = AODE(**params).fit(X, y)
    assert list(model.classes_) == sorted(reference.columns)  # Weka's columns follow the declared order
    np.testing.assert_allclose(model.predict_proba(X), reference[list(model.classes_)].to_numpy(), rtol=0, atol=1e-9)


def test_no_qualifying_parent_falls_back_to_weka_naive_bayes():
    X, y = load_dataset("vote")
    naive_bayes = pd.read_csv(WEKA / "naive_bayes_vote.csv").to_numpy()
    np.testing.assert_allclose(AODE(frequency_limit=10_000).fit(X, y).predict_proba(X), naive_bayes, atol=1e-12)


def test_weka_estimates_are_dirichlet_posterior_means(weather):
    X, y = weather
    spode = SPODE(parent="outlook").fit(X, y)
    joint = spode.analytic_posterior("mean")["joint_prob"]
    # Laplace: (N(yes, sunny) + 1) / (N + K r_a) = (2 + 1) / (14 + 2·3)
    assert float(joint.sel(class_parent="yes, sunny")) == pytest.approx(3 / 20)
    child = spode.analytic_posterior("mean")["feature_prob_humidity"].sel({"class": "yes", "outlook_value": "sunny"})
    # sunny 'yes' days: 2, both humidity normal → (0 + 1)/(2 + 2), (2 + 1)/(2 + 2)
    np.testing.assert_allclose(child.values, [1 / 4, 3 / 4])
    m_spode = SPODE(parent="outlook", estimator="m-estimate", m=3).fit(X, y)
    joint = m_spode.analytic_posterior("mean")["joint_prob"]
    assert float(joint.sel(class_parent="yes, sunny")) == pytest.approx(
        (2 + 3 / 6) / (14 + 3)
    )  # (n + m/(K r_a)) / (N + m)


def test_aode_is_the_average_of_its_spodes(weather):
    X, y = weather
    model = AODE().fit(X, y)
    spodes = [np.exp(model.spode(a).predict_joint_log_proba(X)) for a in range(X.shape[1])]
    np.testing.assert_allclose(np.exp(model.predict_joint_log_proba(X)), np.mean(spodes, axis=0), rtol=1e-12)
    np.testing.assert_allclose(
        model.spode("outlook").predict_proba(X), SPODE(parent="outlook").fit(X, y).predict_proba(X)
    )


def test_bma_evidence_is_the_chain_rule_of_exact_predictives(weather):
    """p(D | a) = Π_i p(y_i, x_i | rows before i), each an exact posterior predictive."""
    X, y = weather
    model = AODE(weights="bma").fit(X, y)
    evidence = model.spode_log_evidence()
    for parent in range(X.shape[1]):
        sequential = SPODE(parent=parent, estimate="predictive")
        total = 0.0
        for i in range(len(y)):
            if i > 0:
                total += sequential.predict_joint_log_proba(X.iloc[[i]])[0, list(sequential.classes_).index(y.iloc[i])]
            sequential.partial_fit(X.iloc[[i]], y.iloc[[i]], classes=y.cat.categories)
        # the first row under the prior: P(y, x_a) = 1/(K r_a), P(x_j | y, x_a) = 1/r_j
        sizes = model.n_categories_
        total += -np.log(2 * sizes[parent]) - sum(np.log(sizes[j]) for j in range(len(sizes)) if j != parent)
        assert evidence[parent] == pytest.approx(total, rel=1e-10)


def test_weights_uniform_bma_and_tempered(weather):
    X, y = weather
    uniform = AODE().fit(X, y).predict_joint_log_proba(X)
    np.testing.assert_allclose(AODE(weights="tempered", temperature=0.0).fit(X, y).predict_joint_log_proba(X), uniform)
    bma = AODE(weights="bma").fit(X, y)
    weights = np.exp(bma.spode_log_evidence() - bma.spode_log_evidence().max())
    spodes = np.stack([np.exp(bma.spode(a).predict_joint_log_proba(X)) for a in range(X.shape[1])], axis=2)
    np.testing.assert_allclose(
        np.exp(bma.predict_joint_log_proba(X)), (spodes * weights).sum(axis=2) / weights.sum(), rtol=1e-10
    )
    np.testing.assert_allclose(
        AODE(weights="tempered", temperature=1.0).fit(X, y).predict_joint_log_proba(X), bma.predict_joint_log_proba(X)
    )


def test_missing_super_parent_is_summed_out(weather):
    X, y = weather
    model = SPODE(parent="outlook").fit(X, y)
    row = X.iloc[[3]].copy()
    row["outlook"] = None
    filled = [
        row.assign(outlook=pd.Categorical([v], categories=X["outlook"].cat.categories))
        for v in X["outlook"].cat.categories
    ]
    expected = np.sum([np.exp(model.predict_joint_log_proba(r)) for r in filled], axis=0)
    np.testing.assert_allclose(np.exp(model.predict_joint_log_proba(row)), expected)


def test_counts_and_rows_forms_have_the_same_posterior():
    X, y = load_dataset("contact-lenses")
    model = SPODE(parent="astigmatism").fit(X, y)
    difference = logp_at_random_points(model.pymc_model("counts")) - logp_at_random_points(
        model.pymc_model("rows", X, y)
    )
    np.testing.assert_allclose(difference, difference[0], atol=1e-9)


def test_partial_fit_over_chunks_equals_one_fit():
    X, y = load_dataset("breast-cancer")
    whole = AODE().fit(X, y)
    chunked = AODE()
    for start in range(0, len(y), 50):
        chunked.partial_fit(X.iloc[start : start + 50], y.iloc[start : start + 50])
    np.testing.assert_allclose(chunked.pair_count_, whole.pair_count_)
    np.testing.assert_allclose(chunked.predict_proba(X), whole.predict_proba(X))


@pytest.mark.parametrize(
    "Model, params, message",
    [
        (SPODE, {"parent": 9}, r"parent=9 is out of range: there are 4 attributes \(0..3\)"),
        (SPODE, {"parent": "sky"}, r"parent='sky' is not an attribute name"),
        (AODE, {"estimator": "bayes"}, "estimator='bayes' is not one of"),
        (AODE, {"weights": "best"}, "weights='best' is not one of"),
        (AODE, {"m": -1, "estimator": "m-estimate"}, "m must be a number ≥ 0"),
    ],
)
def test_bad_parameters_are_named(Model, params, message, weather):
    with pytest.raises(ValueError, match=message):
        Model(**params).fit(*weather).predict(weather[0])


def test_evidence_needs_the_complete_row_counts(weather):
    with pytest.raises(ValueError, match="fit with weights='bma' or 'tempered'"):
        AODE().fit(*weather).spode_log_evidence()


def test_aode_is_an_ensemble_its_spodes_are_the_models(weather):
    model = AODE().fit(*weather)
    assert not hasattr(model, "pymc_model") and not hasattr(model, "analytic_posterior")
    assert "joint_prob" in model.spode(0).pymc_model().named_vars


# ---------------------------------------------------------------------- TAN
def test_conditional_mutual_information_is_the_class_weighted_mutual_information():
    from sklearn.metrics import mutual_info_score

    X, y = load_dataset("contact-lenses")
    model = TAN().fit(X, y)
    for i, j in [(0, 1), (0, 3), (2, 3)]:
        expected = sum(
            (y == k).mean() * mutual_info_score(X.iloc[:, i][y == k], X.iloc[:, j][y == k]) for k in y.cat.categories
        )
        assert model.mutual_information_[i, j] == pytest.approx(expected, abs=1e-12)


def test_conditional_information_of_a_batch_and_of_an_unconditioned_table():
    """The shared ``discrete.pairs.conditional_information``: each table of a batch on its own
    (scikit-learn's mutual information per class, weighted by the class share), a single-cell
    condition is I(A; B) itself, an empty table 0; ``family_block`` reads a view of the tensor."""
    from sklearn.metrics import mutual_info_score

    from pgm_models.discrete.pairs import conditional_information, family_block

    rng = np.random.default_rng(0)
    a, b, c = rng.integers(0, 3, 200), rng.integers(0, 4, 200), rng.integers(0, 2, 200)
    b = np.where(rng.random(200) < 0.5, a, b)  # dependent
    table = np.zeros((2, 3, 4))
    np.add.at(table, (c, a, b), 1.0)
    expected = sum((c == k).mean() * mutual_info_score(a[c == k], b[c == k]) for k in (0, 1))
    got = conditional_information(np.stack([table, np.zeros_like(table), table[::-1]]))
    assert got[0] == pytest.approx(expected, abs=1e-12) and got[1] == 0 and got[2] == got[0]
    assert conditional_information(table.sum(axis=0)[None, None])[0] == pytest.approx(
        mutual_info_score(a, b), abs=1e-12
    )
    pairs = np.arange(2 * 5 * 5.0).reshape(2, 5, 5)
    np.testing.assert_array_equal(family_block(pairs, slice(2, 5)), [[12, 18, 24], [37, 43, 49]])
    block = family_block(pairs, slice(2, 5), slice(0, 2))
    assert block.base is not None and np.shares_memory(block, pairs)
    np.testing.assert_array_equal(block, pairs[:, :2, 2:])


def _pruefer_trees(n):
    """Every labelled tree on n nodes, as edge sets, from Prüfer sequences."""
    import itertools

    for sequence in itertools.product(range(n), repeat=n - 2):
        degree = [1] * n
        for node in sequence:
            degree[node] += 1
        edges = []
        for node in sequence:
            leaf = min(v for v in range(n) if degree[v] == 1)
            edges.append((leaf, node))
            degree[leaf] -= 1
            degree[node] -= 1
        u, v = [w for w in range(n) if degree[w] == 1]
        edges.append((u, v))
        yield edges


def test_tree_is_the_maximum_spanning_tree_directed_from_the_root():
    X, y = load_dataset("contact-lenses")
    model = TAN(root="tear-prod-rate").fit(X, y)
    weight = model.mutual_information_
    ours = sum(weight[j, p] for j, p in enumerate(model.tree_parent_) if p >= 0)
    best = max(sum(weight[u, v] for u, v in edges) for edges in _pruefer_trees(4))
    assert ours == pytest.approx(best)
    assert model.tree_parent_[3] == -1 and (model.tree_parent_ >= 0).sum() == 3


def test_tan_sums_missing_attributes_out_exactly():
    import itertools

    X, y = load_dataset("contact-lenses")
    model = TAN(root=1).fit(X, y)
    row = X.iloc[[5]].copy()
    row.iloc[0, 0], row.iloc[0, 2] = None, None
    brute = 0.0
    for a, c in itertools.product(X.iloc[:, 0].cat.categories, X.iloc[:, 2].cat.categories):
        filled = row.copy()
        filled.iloc[0, 0], filled.iloc[0, 2] = a, c
        brute = brute + np.exp(model.predict_joint_log_proba(filled))
    np.testing.assert_allclose(np.exp(model.predict_joint_log_proba(row)), brute, rtol=1e-12)


def test_tan_counts_and_rows_forms_have_the_same_posterior():
    X, y = load_dataset("contact-lenses")
    model = TAN(root=1).fit(X, y)
    difference = logp_at_random_points(model.pymc_model("counts")) - logp_at_random_points(
        model.pymc_model("rows", X, y)
    )
    np.testing.assert_allclose(difference, difference[0], atol=1e-9)


def test_tan_beats_naive_bayes_where_attributes_interact():
    """Two attributes that are copies of each other: naive Bayes double counts them, TAN does not."""
    from pgm_models import CategoricalNB

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    a = np.where(rng.random(400) < 0.7, y, 1 - y)
    X = pd.DataFrame({"a": a, "a_copy": a, "b": np.where(rng.random(400) < 0.6, y, 1 - y)}).astype(str)
    tan = TAN(root="b").fit(X, y)
    assert tan.tree_parent_[1] == 0 or tan.tree_parent_[0] == 1  # the copies are linked
    log_loss = {
        name: -np.mean(m.predict_log_proba(X)[np.arange(400), y])
        for name, m in [("tan", tan), ("nb", CategoricalNB().fit(X, y))]
    }
    assert log_loss["tan"] < log_loss["nb"]


def test_tan_root_errors():
    X, y = load_dataset("contact-lenses")
    with pytest.raises(ValueError, match="root=7 is out of range"):
        TAN(root=7).fit(X, y)
    with pytest.raises(ValueError, match="root='eyes' is not an attribute name"):
        TAN(root="eyes").fit(X, y)


@pytest.mark.parametrize("weights", ["unit", "whole", "fractional", "beyond float32"])
def test_pair_counts_are_the_exact_weighted_pair_counts(weights, monkeypatch):
    """Whole-number weights take the float32 product, others float64; several blocks of rows."""
    from pgm_models.discrete import pairs as _pairs

    rng = np.random.default_rng(3)
    layout = _pairs.PairLayout([3, 2, 4])
    codes = np.column_stack([rng.integers(-1, r, 200) for r in (3, 2, 4)])  # −1: missing
    class_index = rng.integers(0, 2, 200)
    weight = {
        "unit": np.ones(200),
        "whole": rng.integers(0, 6, 200).astype(float),
        "fractional": rng.random(200),
        "beyond float32": np.r_[2.0**24 + 1, np.ones(199)],
    }[weights]
    expected = np.zeros((2, layout.n_cells, layout.n_cells))
    for row, k, w in zip(layout.cells(codes), class_index, weight):
        expected[k][np.ix_(row, row)] += w
    monkeypatch.setattr(_pairs, "FLOATS_PER_BLOCK", 50 * layout.n_cells)  # blocks of 50 rows
    counts = _pairs.pair_counts(layout, codes, class_index, weight, 2)
    if weights == "fractional":
        np.testing.assert_allclose(counts, expected, rtol=1e-12)
    else:
        np.testing.assert_array_equal(counts, expected)


@pytest.mark.parametrize("estimate", ["mean", "mle"])
def test_spode_scores_are_the_sums_of_table_entries(estimate, weather):
    """log P(y, x_a) + Σ_{j≠a} log P(x_j | y, x_a), term by term from the tables, missing values
    skipped as children and −inf as parents; the MLE has zero probabilities (−inf terms)."""
    X, y = weather
    X = X.copy()
    X.iloc[[2, 5], 1] = None
    model = AODE(estimate=estimate).fit(X, y)
    codes = model._encode(X, reset=False, training=False)
    log_joint, log_child = model._spode_tables(estimate)
    cells = model._value_index(codes)
    n_values = log_joint.shape[1]
    expected = np.full((len(X), len(model.classes_), X.shape[1]), -np.inf)
    for i, row in enumerate(cells):
        for k in range(len(model.classes_)):
            for a, parent in enumerate(row):
                if parent < n_values:
                    expected[i, k, a] = log_joint[k, parent] + sum(log_child[k, parent, c] for c in row if c < n_values)
    scores = model._spode_scores(cells, model._stack(log_joint, log_child))
    assert np.isneginf(expected).sum() > (0 if estimate == "mean" else 2 * 2)  # the MLE adds zero probabilities
    np.testing.assert_allclose(scores, expected, rtol=1e-12)
