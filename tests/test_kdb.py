"""KDB: Sahami's structure on a hand-worked example and against an independent computation of
the information measures, k = 0 as naive Bayes, probabilities from the counts, bad input."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mutual_info_score

import pgm_models.bayes_net.kdb as kdb_module
from pgm_models import KDB, CategoricalNB, check_posterior, load_dataset
from pgm_models.bayes_net.kdb import kdb_structure

# y, then X0 = y (I(X0; C) = log 2), X1 independent of y (I = 0), X2 = y but for one flip each way
# (0 < I < log 2), X3 = X1 with one flip in class 1 (small I, but close to X1 within each class)
HAND = pd.DataFrame(
    {
        "y": [0, 0, 0, 0, 1, 1, 1, 1],
        "x0": [0, 0, 0, 0, 1, 1, 1, 1],
        "x1": [0, 1, 0, 1, 0, 1, 0, 1],
        "x2": [0, 0, 0, 1, 1, 1, 1, 0],
        "x3": [0, 1, 0, 1, 0, 1, 0, 0],
    }
)


def _frame(data):
    X = data.drop(columns="y").astype(str).astype("category")
    return X, data["y"].to_numpy()


def _conditional_information(a, b, y):
    """I(A; B | Y) = Σ_k P(k) I(A; B | Y = k), each I by scikit-learn."""
    return sum(np.mean(y == k) * mutual_info_score(a[y == k], b[y == k]) for k in np.unique(y))


def test_k1_builds_sahamis_structure_on_a_hand_worked_example():
    """Order by I(X; C): x0 (log 2), x2, x3, x1 (0). x2 takes x0, the only one placed; x3 takes x2
    (I(x3; x0 | C) = 0: x0 is constant given the class); x1 takes x3, its near copy."""
    X, y = _frame(HAND)
    model = KDB(k=1).fit(X, y)
    assert model.class_information_[0] == pytest.approx(math.log(2), abs=1e-15)
    assert model.class_information_[1] == pytest.approx(0.0, abs=1e-15)
    assert (
        model.class_information_[0]
        > model.class_information_[2]
        > model.class_information_[3]
        > model.class_information_[1]
    )
    assert [p.tolist() for p in model.parents_] == [[], [3], [0], [2]]
    assert model.conditional_information_[3, 0] == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_information_and_structure_equal_an_independent_computation(k):
    """I(X; C) and I(X_i; X_j | C) by scikit-learn's mutual_info_score, and Sahami's procedure
    written out here, on random dependent attributes."""
    rng = np.random.default_rng(k)
    n = 300
    y = rng.integers(0, 3, n)
    columns = [(y + rng.integers(0, 2, n)) % 3]
    for _ in range(5):
        base = columns[rng.integers(0, len(columns))]
        columns.append(np.where(rng.random(n) < 0.6, base, rng.integers(0, 3, n)))
    codes = np.column_stack(columns)
    X = pd.DataFrame({f"a{j}": pd.Categorical(codes[:, j], categories=[0, 1, 2]) for j in range(codes.shape[1])})
    model = KDB(k=k).fit(X, y)
    mi = np.array([mutual_info_score(codes[:, j], y) for j in range(codes.shape[1])])
    cmi = np.array(
        [
            [_conditional_information(codes[:, i], codes[:, j], y) if i != j else 0.0 for j in range(codes.shape[1])]
            for i in range(codes.shape[1])
        ]
    )
    np.testing.assert_allclose(model.class_information_, mi, rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.conditional_information_, cmi, rtol=0, atol=1e-12)
    expected, placed = {}, []
    for i in sorted(range(len(mi)), key=lambda j: (-mi[j], j)):
        expected[i] = sorted(placed, key=lambda j: (-cmi[i, j], placed.index(j)))[:k]
        placed.append(i)
    assert [p.tolist() for p in model.parents_] == [expected[i] for i in range(len(mi))]
    assert kdb_structure(mi, cmi, k) == [expected[i] for i in range(len(mi))]


@pytest.mark.parametrize("estimate", ["mean", "map", "mle"])
@pytest.mark.parametrize("dataset", ["weather.nominal", "contact-lenses"])
def test_k0_is_naive_bayes(dataset, estimate):
    X, y = load_dataset(dataset)
    kdb = KDB(k=0, prior_count=1.0, class_alpha=1.0, estimate=estimate).fit(X, y)
    nb = CategoricalNB(alpha=1.0, class_alpha=1.0, estimate=estimate).fit(X, y)
    assert all(len(p) == 0 for p in kdb.parents_)
    np.testing.assert_allclose(kdb.predict_proba(X), nb.predict_proba(X), rtol=0, atol=1e-12)


def test_probabilities_equal_the_product_of_the_tables_read_off_the_rows():
    """P(y | x) ∝ (n_y + α_c) Π_j (n(y, pa_j, x_j) + α)/(n(y, pa_j) + r_j α), counted here row by row."""
    rng = np.random.default_rng(3)
    n, r = 200, [2, 3, 2, 3]
    y = rng.integers(0, 2, n)
    codes = np.column_stack([(y + rng.integers(0, 2, n)) % r[0]] + [rng.integers(0, s, n) for s in r[1:]])
    codes[:, 2] = np.where(rng.random(n) < 0.7, codes[:, 0] % 2, codes[:, 2])
    X = pd.DataFrame({f"a{j}": pd.Categorical(codes[:, j], categories=range(r[j])) for j in range(4)})
    model = KDB(k=2, prior_count=0.7, class_alpha=1.5).fit(X, y)
    parents = [p.tolist() for p in model.parents_]
    for row in itertools.islice(itertools.product(*(range(s) for s in r)), 0, None, 5):
        scores = []
        for k in (0, 1):
            score = (np.sum(y == k) + 1.5) / (n + 2 * 1.5)
            for j, pa in enumerate(parents):
                match = (y == k) & np.all([codes[:, p] == row[p] for p in pa], axis=0) if pa else (y == k)
                score *= (np.sum(match & (codes[:, j] == row[j])) + 0.7) / (np.sum(match) + r[j] * 0.7)
            scores.append(score)
        expected = np.array(scores) / sum(scores)
        frame = pd.DataFrame({f"a{j}": pd.Categorical([row[j]], categories=range(r[j])) for j in range(4)})
        np.testing.assert_allclose(model.predict_proba(frame)[0], expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("k", [-1, 1.5, True, "2"])
def test_a_bad_k_is_named(k):
    X, y = _frame(HAND)
    with pytest.raises(ValueError, match="k must be a whole number"):
        KDB(k=k).fit(X, y)


def test_partial_fit_gives_the_whole_datas_structure_and_counts():
    """On vote the first 200 rows give another structure than all 435: the batches search again on
    the distinct rows of both, so they end with the whole data's structure, and its tables are the
    whole data's counts."""
    X, y = load_dataset("vote")
    X = X.apply(lambda column: column.fillna(column.mode()[0]))  # no missing values: the codes are the counted ones
    batched = KDB(k=2).partial_fit(X.iloc[:200], y.iloc[:200], classes=np.unique(y))
    whole = [p.tolist() for p in KDB(k=2).fit(X, y).parents_]
    assert [p.tolist() for p in batched.parents_] != whole
    batched.partial_fit(X.iloc[200:], y.iloc[200:])
    assert [p.tolist() for p in batched.parents_] == whole
    codes = np.column_stack([X[c].cat.codes.to_numpy() for c in X.columns])
    labels = np.searchsorted(batched.classes_, y.to_numpy())
    for j, parents in enumerate(whole):
        expected = np.zeros(batched.family_counts_[j].shape)
        np.add.at(expected, (labels, *(codes[:, p] for p in parents), codes[:, j]), 1.0)
        np.testing.assert_array_equal(batched.family_counts_[j], expected)


@pytest.mark.nuts
def test_nuts_agrees_with_the_closed_form():
    """KDB(k=1) on weather: NUTS on the counts form against the Dirichlet posteriors.
    False-failure chance: z-scores at a 1e-6 family-wise level, 4 chains of 1000 draws on smooth
    Dirichlet posteriors: well under 1e-4 per run."""
    X, y = load_dataset("weather.nominal")
    model = KDB(k=1).fit(X, y)
    idata = model.sample_posterior(draws=1000, tune=1000, chains=4, cores=1, random_seed=3, progressbar=False)
    result = check_posterior(model, idata, family_error=1e-6)
    assert result.passed, result.reasons


# ------------------------------------------------------------------ the pair statistic (k ≤ 1)
def _fitted(model):
    """What a fit derives, for comparing two statistics' fits."""
    return (
        [p.tolist() for p in model.parents_],
        model.modes_,
        model.class_information_,
        model.conditional_information_,
        model.family_counts_,
        model.structure_score_,
    )


def _assert_same_fit(a, b, X, exact=True):
    (parents_a, *rest_a), (parents_b, *rest_b) = _fitted(a), _fitted(b)
    assert parents_a == parents_b
    compare = (
        np.testing.assert_array_equal
        if exact
        else lambda u, v: np.testing.assert_allclose(u, v, rtol=1e-10, atol=1e-12)
    )
    for u, v in zip(rest_a, rest_b):
        for x, z in zip(u, v) if isinstance(u, list) else [(u, v)]:
            compare(x, z)
    compare(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("k", [0, 1])
@pytest.mark.parametrize("dataset", ["vote", "breast-cancer", "credit-g"])
def test_pair_statistic_gives_the_distinct_rows_fit(monkeypatch, dataset, k):
    """KDB(k ≤ 1) counts pairs (missing values in their own cells, moved to the modes after); the
    distinct rows (PAIR_STATISTIC off) hold every row: the same modes, information, structure, tables,
    score, probabilities and LOO to the last bit on whole-number weights, to rounding on fractional
    ones. vote and breast-cancer have missing values; credit-g 20 attributes with numeric ones."""
    X, y = load_dataset(dataset)
    X = X.apply(lambda c: c if isinstance(c.dtype, pd.CategoricalDtype) else pd.qcut(c, 3, duplicates="drop"))
    weight = np.random.default_rng(0).uniform(0.1, 3.0, len(y))
    pairs, weighted = KDB(k=k).fit(X, y), KDB(k=k).fit(X, y, sample_weight=weight)
    assert hasattr(pairs, "pair_count_") and not hasattr(pairs, "distinct_rows_")
    pairs_loo = pairs.loo(X, y).loo_i  # loo counts the rows again, by the statistic the limit gives
    monkeypatch.setattr(kdb_module, "PAIR_STATISTIC", False)
    rows = KDB(k=k).fit(X, y)
    assert hasattr(rows, "distinct_rows_") and not hasattr(rows, "pair_count_")
    _assert_same_fit(pairs, rows, X)
    np.testing.assert_array_equal(pairs_loo, rows.loo(X, y).loo_i)
    _assert_same_fit(weighted, KDB(k=k).fit(X, y, sample_weight=weight), X, exact=False)


def test_a_pair_tensor_that_cannot_fit_is_refused_with_its_size():
    """2000 attributes × 500 declared values: a 2 × 1002000 × 1002000 tensor (16 TB) is refused before
    anything is allocated, with its size and the remedy; k = 2 keeps the distinct rows instead."""
    X, y = np.zeros((2, 2000), dtype=int), [0, 1]
    with pytest.raises(ValueError, match=r"KDB's pair counts, a 2 × 1002000 × 1002000 tensor .* needs [\d.e+]+ GiB"):
        KDB(n_categories=500).fit(X, y)
    X, y = load_dataset("vote")
    assert not hasattr(KDB(k=2).fit(X, y), "pair_count_")


def test_partial_fit_adds_pairs_and_gives_one_fits_modes_and_structure():
    """vote in uneven batches (the first of one row): the first 150 rows' modes or structure differ
    from all 435, the batches end with the one fit's pair counts, modes, structure, tables and LOO."""
    X, y = load_dataset("vote")
    one = KDB().fit(X, y)
    first = KDB().fit(X.iloc[:150], y.iloc[:150])
    assert [p.tolist() for p in first.parents_] != [p.tolist() for p in one.parents_] or not np.array_equal(
        first.modes_, one.modes_
    )
    chunked = KDB()
    for start, stop in [(0, 1), (1, 150), (150, 151), (151, len(y))]:
        chunked.partial_fit(X.iloc[start:stop], y.iloc[start:stop], classes=one.classes_)
    np.testing.assert_array_equal(chunked.pair_count_, one.pair_count_)
    _assert_same_fit(chunked, one, X)
    np.testing.assert_array_equal(chunked.loo(X, y).loo_i, one.loo(X, y).loo_i)
    changed = X.copy()
    changed.iloc[0, 0] = "y" if X.iloc[0, 0] == "n" else "n"
    with pytest.raises(ValueError, match="do not give the fitted pair_count_"):
        one.loo(changed, y)


def test_dask_fit_adds_the_blocks_pairs(monkeypatch):
    """k ≤ 1 on a dask collection: the blocks' pair counts add to the in-memory fit's, then the
    same structure and probabilities; the distinct rows (k = 2, or PAIR_STATISTIC off) are refused."""
    dd = pytest.importorskip("dask.dataframe")
    import dask

    X, y = load_dataset("vote")
    on_dask = dd.from_pandas(X, npartitions=3, sort=False), dd.from_pandas(y, npartitions=3, sort=False)
    with dask.config.set(scheduler="sync"):
        for k in (0, 1):
            model = KDB(k=k).fit(*on_dask)
            np.testing.assert_array_equal(model.pair_count_, KDB(k=k).fit(X, y).pair_count_)
            _assert_same_fit(model, KDB(k=k).fit(X, y), X)
        with pytest.raises(ValueError, match="distinct rows of all the data in memory: compute the dask"):
            KDB(k=2).fit(*on_dask)
        monkeypatch.setattr(kdb_module, "PAIR_STATISTIC", False)
        with pytest.raises(
            ValueError,
            match=r"^KDB cannot be fitted on a dask collection: k=1 reads the distinct rows of all the data in memory",
        ):
            KDB(k=1).fit(*on_dask)


def test_dask_blocks_of_undeclared_classes_add_to_the_in_memory_pairs():
    """Undeclared classes, vote sorted by class so that blocks see one class or both: each block counts
    pairs along its own classes, widened to the fit's before they add, and the sum is the in-memory
    fit's, in 2 and 3 partitions."""
    dd = pytest.importorskip("dask.dataframe")
    import dask

    X, y = load_dataset("vote")
    order = np.argsort(y.to_numpy(), kind="stable")
    X, y = X.iloc[order].reset_index(drop=True), y.iloc[order].astype(str).reset_index(drop=True)
    expected = KDB().fit(X, y)
    with dask.config.set(scheduler="sync"):
        for partitions in (2, 3):
            model = KDB().fit(dd.from_pandas(X, npartitions=partitions), dd.from_pandas(y, npartitions=partitions))
            np.testing.assert_array_equal(model.pair_count_, expected.pair_count_)
            _assert_same_fit(model, expected, X)


def test_a_fit_keeps_its_statistic_when_k_changes():
    """set_params(k=2) after pair counts: partial_fit is refused with what to do; after distinct rows
    (k = 2) a change to k = 1 goes on with them, the fit of k = 1 on all the rows; a bad k on dask
    is named as in memory."""
    X, y = load_dataset("vote")
    classes = np.unique(y)
    pairs = KDB(k=1).partial_fit(X.iloc[:200], y.iloc[:200], classes=classes).set_params(k=2)
    with pytest.raises(ValueError, match="k=2: its tables need the distinct rows, but this fit kept the pair counts"):
        pairs.partial_fit(X.iloc[200:], y.iloc[200:])
    rows = KDB(k=2).partial_fit(X.iloc[:200], y.iloc[:200], classes=classes).set_params(k=1)
    rows.partial_fit(X.iloc[200:], y.iloc[200:])
    assert not hasattr(rows, "pair_count_")
    _assert_same_fit(rows, KDB(k=1).fit(X, y), X)
    dd = pytest.importorskip("dask.dataframe")
    with pytest.raises(ValueError, match="k must be a whole number"):
        KDB(k=1.5).fit(dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2))
