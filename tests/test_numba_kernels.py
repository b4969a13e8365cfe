"""Issue 16, round 9: the compiled (numba) paths of the small folds give the NumPy paths' numbers.
AODE's compiled tables and scores against its NumPy scoring (probabilities to 1e-15, on every fold
of the bundled nominal sets with missing values, under every weighting and estimator it takes, and
a row with no eligible parent); the small unit-weight pair counts by bit sets over every cell
against the brute-force counts (exact); CategoricalNB's compiled counts and scores against its
NumPy counts and look-ups (bit for bit, with weights, zero probabilities and every estimate); the
structure search's compiled family scores against its NumPy scores (bit for bit)."""

import subprocess
import sys

import numba  # noqa: F401  (the compiled paths run once numba is loaded: pgm_models._utils.jit.loaded)
import numpy as np
import pandas as pd
import pytest

from pgm_models import AODE, CategoricalNB
from pgm_models.datasets import load_dataset
from pgm_models.discrete import pairs as _pairs
from pgm_models.naive_bayes import categorical
from pgm_models.semi_naive import aode


def _folds(name: str, n_folds: int = 5):
    """(training X, y, test X) of every fifth row of a bundled nominal dataset."""
    X, y = load_dataset(name)
    fold = np.arange(len(y)) % n_folds
    return [(X[fold != f], y[fold != f], X[fold == f]) for f in range(n_folds)]


def _both_paths(monkeypatch, module, flag, fit, score):
    """``score(fit())`` with ``module.flag`` on, then off: (compiled, NumPy)."""
    results = []
    for on in (True, False):
        monkeypatch.setattr(module, flag, on)
        results.append(score(fit()))
    return results


@pytest.mark.parametrize("name", ["vote", "breast-cancer"])
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"weights": "bma"},
        {"weights": "tempered", "temperature": 0.5},
        {"estimator": "m-estimate", "m": 2.0},
        {"alpha": "evidence"},
        {"frequency_limit": 30},
    ],
)
def test_aode_compiled_scores_are_the_numpy_paths(name, options, monkeypatch):
    """The compiled kernel scores (a spy checks it ran) as the NumPy one-hot product and average do:
    probabilities within 1e-15, joint log probabilities within 1e-13 relative."""
    from pgm_models.semi_naive import _aode_kernel

    ran = []
    kernel = _aode_kernel.aode_log_scores
    monkeypatch.setattr(_aode_kernel, "aode_log_scores", lambda *args: ran.append(1) or kernel(*args))
    for X_train, y_train, X_test in _folds(name):
        model = AODE(**options).fit(X_train, y_train)
        (compiled, joint), (numpy_path, numpy_joint) = _both_paths(
            monkeypatch,
            aode,
            "COMPILED_SCORING",
            lambda: model,
            lambda m: (m.predict_proba(X_test), m.predict_joint_log_proba(X_test)),
        )
        np.testing.assert_allclose(compiled, numpy_path, rtol=0, atol=1e-15)
        np.testing.assert_allclose(joint, numpy_joint, rtol=1e-13)
    assert ran


def test_aode_compiled_scores_fall_back_to_naive_bayes_and_keep_the_numpy_path_where_they_do_not_apply(monkeypatch):
    """A row with every value missing has no eligible parent: naive Bayes scores it on both paths.
    The MLE (zero probabilities) and alpha = 0 stay on the NumPy path (the kernel is not called)."""
    from pgm_models.semi_naive import _aode_kernel

    X_train, y_train, X_test = _folds("vote")[0]
    X_test = X_test.copy()
    X_test.iloc[0] = np.nan
    model = AODE().fit(X_train, y_train)
    compiled, numpy_path = _both_paths(
        monkeypatch, aode, "COMPILED_SCORING", lambda: model, lambda m: m.predict_proba(X_test)
    )
    np.testing.assert_allclose(compiled, numpy_path, rtol=0, atol=1e-15)
    np.testing.assert_allclose(
        compiled[0], CategoricalNB().fit(X_train, y_train).predict_proba(X_test.iloc[:1])[0], rtol=1e-14
    )
    monkeypatch.setattr(aode, "COMPILED_SCORING", True)
    monkeypatch.setattr(_aode_kernel, "aode_log_scores", None)  # calling it would fail
    model.predict_proba(X_test, estimate="mle")
    AODE(alpha=0.0).fit(X_train, y_train).predict_proba(X_test)


@pytest.mark.parametrize("pair_rows", ["all", "one attribute"])
def test_small_unit_weight_pair_counts_by_bit_sets_over_every_cell_are_exact(pair_rows, monkeypatch):
    """Below DIRECT_PRODUCT_WORK, rows of weight 1 are counted by the bit sets over all T' cells,
    missing cells included (a spy checks it), and equal the brute-force counts and the product's;
    other weights keep the product."""
    rng = np.random.default_rng(16)
    layout = _pairs.PairLayout([3, 2, 4, 1])
    codes = np.column_stack(
        [rng.integers(-1, 3, 150), rng.integers(0, 2, 150), rng.integers(-1, 4, 150), np.full(150, -1)]
    )
    class_index = rng.integers(0, 3, 150)
    rows = slice(None) if pair_rows == "all" else layout.pair_cells(2)
    expected = np.zeros((3, layout.n_cells, layout.n_cells))
    for row, k in zip(layout.cells(codes), class_index):
        expected[k][np.ix_(row, row)] += 1
    used = []
    bit_counts = _pairs._bit_counts
    monkeypatch.setattr(_pairs, "_bit_counts", lambda *args: used.append(1) or bit_counts(*args))
    counted = _pairs.pair_counts(layout, codes, class_index, np.ones(150), 3, rows)
    assert used == [1]
    np.testing.assert_array_equal(counted, expected[:, rows])
    _pairs.pair_counts(layout, codes, class_index, np.full(150, 2.0), 3, rows)
    assert used == [1]
    monkeypatch.setattr(_pairs, "COMPILED_SMALL_COUNTS", False)
    np.testing.assert_array_equal(_pairs.pair_counts(layout, codes, class_index, np.ones(150), 3, rows), counted)


@pytest.mark.parametrize("options", [{}, {"alpha": 0.0}, {"alpha": 0.5, "class_alpha": 2.0}])
@pytest.mark.parametrize("estimate", ["mean", "map", "mle"])
def test_categorical_nb_compiled_counts_and_scores_are_the_numpy_paths_bit_for_bit(options, estimate, monkeypatch):
    """Counts (unit and fractional weights) and joint log probabilities (−inf included) equal."""
    rng = np.random.default_rng(7)
    for X_train, y_train, X_test in _folds("breast-cancer"):
        weight = rng.random(len(y_train)) * 3
        for sample_weight in (None, weight):
            compiled, numpy_path = _both_paths(
                monkeypatch,
                categorical,
                "COMPILED_LOOPS",
                lambda: CategoricalNB(**options).fit(X_train, y_train, sample_weight),
                lambda m: (m.feature_count_, m.predict_joint_log_proba(X_test, estimate=estimate)),
            )
            np.testing.assert_array_equal(compiled[0], numpy_path[0])
            np.testing.assert_array_equal(compiled[1], numpy_path[1])


def test_categorical_nb_compiled_scores_of_integer_codes_by_hand(monkeypatch):
    """Categorical columns with a missing value: the counts and the log-linear sums by hand."""
    monkeypatch.setattr(categorical, "COMPILED_LOOPS", True)
    X = pd.DataFrame({"a": pd.Categorical(["u", "v", "v", None]), "b": pd.Categorical(["p", "p", "q", "q"])})
    model = CategoricalNB().fit(X, [0, 0, 1, 1])
    # class 0: a = (u, v) counts (1, 1), b = (p, q) (2, 0); class 1: a (0, 1) (one missing), b (0, 2)
    expected = np.log(
        [[0.5 * 2 / 4 * 3 / 4, 0.5 * 1 / 3 * 1 / 4], [0.5 * 3 / 4, 0.5 * 1 / 4]]
    )  # rows (u, p) and (missing, p)
    test = pd.DataFrame(
        {
            "a": pd.Categorical(["u", None], categories=["u", "v"]),
            "b": pd.Categorical(["p", "p"], categories=["p", "q"]),
        }
    )
    np.testing.assert_allclose(model.predict_joint_log_proba(test), expected, rtol=1e-14)
    np.testing.assert_array_equal(model.feature_count_, [[1, 1, 2, 0], [0, 1, 0, 2]])


def test_a_lone_small_fit_never_imports_numba_and_takes_the_compiled_paths_once_it_is_loaded():
    """In a fresh process, CategoricalNB's, AODE's and BayesNetClassifier's fit + predict_proba on
    vote leave numba unimported (the NumPy paths); after ``import numba`` the same calls run the
    compiled kernels, with the NumPy paths' probabilities (CategoricalNB and BayesNetClassifier bit
    for bit, AODE to 1e-15)."""
    script = """
import sys
import numpy as np
from pgm_models import AODE, BayesNetClassifier, CategoricalNB
from pgm_models.datasets import load_dataset
X, y = load_dataset("vote")
before = [m().fit(X, y).predict_proba(X) for m in (CategoricalNB, AODE)]
network = [BayesNetClassifier(search=s).fit(X, y).predict_proba(X) for s in ("k2", "hill-climb", "tan")]
assert "numba" not in sys.modules, "a small fit imported numba"
import numba
from pgm_models.semi_naive import _aode_kernel
from pgm_models.naive_bayes import _kernels
calls = []
for module, name in ((_aode_kernel, "aode_log_scores"), (_kernels, "log_sums")):
    kernel = getattr(module, name)
    setattr(module, name, lambda *a, _k=kernel, _n=name: (calls.append(_n), _k(*a))[1])
after = [m().fit(X, y).predict_proba(X) for m in (CategoricalNB, AODE)]
assert sorted(calls) == ["aode_log_scores", "log_sums"], calls
assert np.array_equal(before[0], after[0])
assert np.abs(before[1] - after[1]).max() <= 1e-15
assert "pgm_models.bayes_net._kernels" not in sys.modules
assert all(
    np.array_equal(p, BayesNetClassifier(search=s).fit(X, y).predict_proba(X))
    for p, s in zip(network, ("k2", "hill-climb", "tan"))
) and "pgm_models.bayes_net._kernels" in sys.modules  # the fits loaded and ran the kernels
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]


def test_aode_compiled_scores_of_a_class_of_zero_probability_are_minus_infinity_as_numpys(monkeypatch):
    """A declared class with no training rows and α = 1e-320 over 20 000 rows: its joint underflows to 0 under every
    parent, so its log score is −∞ and its probability 0 on both paths (the compiled log-sum-exp once
    gave exp(−∞ − −∞) = NaN for the whole row)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"a{j}": pd.Categorical.from_codes(rng.integers(0, 3, 20000), list("abc")) for j in range(3)})
    y = pd.Series(pd.Categorical.from_codes(rng.integers(0, 2, 20000), ["k0", "k1", "never"]))
    compiled, numpy_path = _both_paths(
        monkeypatch,
        aode,
        "COMPILED_SCORING",
        lambda: AODE(alpha=1e-320).fit(X, y),
        lambda m: (m.predict_proba(X[:5]), m.predict_joint_log_proba(X[:5])),
    )
    assert not np.isnan(compiled[0]).any() and (compiled[0][:, 2] == 0).all() and (compiled[1][:, 2] == -np.inf).all()
    assert np.abs(compiled[0] - numpy_path[0]).max() <= 1e-15


def test_a_blocked_numba_module_is_not_loaded(monkeypatch):
    """``sys.modules["numba"] = None`` (how an optional dependency is blocked) leaves the NumPy paths:
    CategoricalNB and AODE fit and predict as without numba."""
    from pgm_models._utils import jit as _numba

    X, y = load_dataset("weather.nominal")
    expected = [m().fit(X, y).predict_proba(X) for m in (CategoricalNB, AODE)]
    monkeypatch.setitem(sys.modules, "numba", None)
    assert not _numba.loaded()
    for model, probabilities in zip((CategoricalNB, AODE), expected):
        assert np.abs(model().fit(X, y).predict_proba(X) - probabilities).max() <= 1e-15


def test_pairwise_sum_is_numpys_sum_bit_for_bit():
    """The structure search kernel's sums reproduce NumPy's add reduction (pairwise: in order below
    8 terms, 8 partial sums up to 128, halves beyond) on every length up to 700 and a few longer,
    from an offset, on terms of mixed magnitudes where another order changes the last bits."""
    from pgm_models.bayes_net._kernels import pairwise_sum

    rng = np.random.default_rng(37)
    for n in [*range(701), 1024, 2049, 5000]:
        values = rng.standard_normal(n + 3) * 10.0 ** rng.integers(-4, 5, n + 3)
        assert pairwise_sum(values, 3, n) == values[3:].sum(), n
        assert pairwise_sum(values, 0, n) == values[:n].reshape(1, n).sum(axis=-1, keepdims=True)[0, 0], n


def _family_counter_scores(monkeypatch, on, counter_args, families):
    from pgm_models.bayes_net import _search

    monkeypatch.setattr(_search, "COMPILED_SCORES", on)
    counter = _search.FamilyCounter(*counter_args)
    return [counter.scores(child, parent_sets) for child, parent_sets in families]


def test_bayes_net_compiled_family_scores_are_the_numpy_paths_bit_for_bit(monkeypatch):
    """Random rows of 3 classes and attributes of 2 to 12 values with weights 1..4: every family of
    at most two attribute parents (configurations up to 3·12·11 = 396, past the 128 of one
    pairwise block; children of 12 values, past 8) scores the same bits on both paths (a spy
    checks the kernel ran); the log Γ tables come from SciPy, so the terms are SciPy's."""
    from pgm_models.bayes_net import _kernels

    rng = np.random.default_rng(11)
    sizes = np.array([12, 11, 9, 2, 3])
    codes = np.column_stack([rng.integers(0, s, 400) for s in sizes])
    class_index = rng.integers(0, 3, 400)
    weight = rng.integers(1, 5, 400).astype(float)
    families = [
        (child, [[], *([p] for p in range(5) if p != child), *([p, t] for p in range(5) for t in range(p))])
        for child in range(5)
    ]
    ran = []
    kernel = _kernels.bayes_family_scores
    monkeypatch.setattr(_kernels, "bayes_family_scores", lambda *a: ran.append(1) or kernel(*a))
    for prior_count in (0.5, 1.0, 0.037):
        arguments = (codes, class_index, weight, sizes, 3, "bayes", prior_count)
        compiled = _family_counter_scores(monkeypatch, True, arguments, families)
        assert len(ran) == 5
        assert compiled == _family_counter_scores(monkeypatch, False, arguments, families)
        ran.clear()


@pytest.mark.parametrize("search", ["k2", "hill-climb", "tan"])
def test_bayes_net_compiled_searches_and_tables_are_the_numpy_paths(search, monkeypatch):
    """On the random rows above (tables past one pairwise block, children of 12 values), each search
    with 2 to 4 parents finds the same parents, every family it scored has the same bits, and the
    family tables are equal, with the compiled path (K2 one call, hill climbing and TAN their
    first families in one) on and off."""
    from pgm_models.bayes_net import _search

    rng = np.random.default_rng(12)
    sizes = np.array([12, 11, 9, 2, 3, 5])
    codes = np.column_stack([rng.integers(0, s, 500) for s in sizes])
    # attribute 4 follows attribute 2 and the class, so the searches add arcs
    codes[:, 4] = np.where(rng.random(500) < 0.8, (codes[:, 2] + rng.integers(0, 3, 500)) % 3, codes[:, 4])
    class_index = rng.integers(0, 3, 500)
    weight = rng.integers(1, 5, 500).astype(float)
    run = {"k2": _search.k2, "hill-climb": _search.hill_climb, "tan": lambda c, _: _search.tan(c)}[search]
    for max_parents in (2, 3, 4):
        results = []
        for on in (True, False):
            monkeypatch.setattr(_search, "COMPILED_SCORES", on)
            counter = _search.FamilyCounter(codes, class_index, weight, sizes, 3, "bayes", 0.5)
            parents = run(counter, max_parents)
            results.append((parents, counter, counter.tables(parents)))
        (parents, compiled, tables), (numpy_parents, numpy_path, numpy_tables) = results
        assert compiled._compiled() and not numpy_path._compiled()
        assert parents == numpy_parents and any(parents)
        assert all(
            compiled._scores[key] == value for key, value in numpy_path._scores.items() if key in compiled._scores
        )
        assert {(j, frozenset(p)) for j, p in enumerate(parents)} <= compiled._scores.keys()
        for mine, theirs in zip(tables, numpy_tables):
            np.testing.assert_array_equal(mine, theirs)


def _fit_both_paths(monkeypatch, make, X, y, sample_weight=None):
    """(structure score, parents, probabilities on X) with the compiled scores on, then off."""
    from pgm_models.bayes_net import _search

    results = []
    for on in (True, False):
        monkeypatch.setattr(_search, "COMPILED_SCORES", on)
        model = make().fit(X, y, sample_weight=sample_weight)
        results.append((model.structure_score_, [p.tolist() for p in model.parents_], model.predict_proba(X)))
    return results


@pytest.mark.parametrize("name", ["vote", "breast-cancer"])
def test_bayes_net_compiled_search_is_the_numpy_paths_and_switches_at_its_limit(name, monkeypatch):
    """K2, hill climbing and TAN with 1–3 parents on two folds: the same structure, score and
    probabilities bit for bit with the compiled scores on and off. The kernel runs (a spy) where
    the rows' total weight N is at most ``COMPILED_SCORES_ROWS`` (limit N: yes; N − 1: no, and
    the same results), and never for fractional weights, another score, or without numba."""
    from pgm_models import BayesNetClassifier
    from pgm_models.bayes_net import _kernels, _search

    ran = []
    kernel = _kernels.bayes_family_scores
    monkeypatch.setattr(_kernels, "bayes_family_scores", lambda *a: ran.append(1) or kernel(*a))
    for X_train, y_train, _ in _folds(name)[:2]:
        for search in ("k2", "hill-climb", "tan"):
            for max_parents in (1, 2, 3):
                compiled, numpy_path = _fit_both_paths(
                    monkeypatch, lambda: BayesNetClassifier(search=search, max_parents=max_parents), X_train, y_train
                )
                assert compiled[:2] == numpy_path[:2]
                np.testing.assert_array_equal(compiled[2], numpy_path[2])
    assert ran
    X_train, y_train, _ = _folds(name)[0]
    n_rows = len(y_train)
    results = {}
    for limit in (n_rows, n_rows - 1):
        monkeypatch.setattr(_search, "COMPILED_SCORES_ROWS", limit)
        ran.clear()
        results[limit] = _fit_both_paths(monkeypatch, lambda: BayesNetClassifier(search="hill-climb"), X_train, y_train)
        assert bool(ran) == (limit == n_rows)
    assert results[n_rows][0][:2] == results[n_rows - 1][0][:2]
    np.testing.assert_array_equal(results[n_rows][0][2], results[n_rows - 1][0][2])
    monkeypatch.setattr(_search, "COMPILED_SCORES", True)
    ran.clear()
    fractional = np.random.default_rng(0).random(n_rows) + 0.5
    BayesNetClassifier().fit(X_train, y_train, sample_weight=fractional)
    BayesNetClassifier(score_type="bdeu").fit(X_train, y_train)
    monkeypatch.setitem(sys.modules, "numba", None)
    BayesNetClassifier().fit(X_train, y_train)
    assert not ran


@pytest.mark.parametrize("name", ["vote", "breast-cancer"])
def test_bayes_net_compiled_prediction_is_the_numpy_paths_bit_for_bit(name, monkeypatch):
    """Joint log probabilities and probabilities of every search and 1–3 parents (tables with
    parents in the search's order, children of up to 13 values), unit and fractional weights, test
    rows with missing values: the same bits with the compiled tables and sums on and off (a spy
    checks they ran); other estimates keep the NumPy path."""
    from pgm_models import BayesNetClassifier
    from pgm_models.bayes_net import classifier
    from pgm_models.discrete import _lookup_kernel

    ran = []
    kernel = _lookup_kernel.table_log_sums
    monkeypatch.setattr(_lookup_kernel, "table_log_sums", lambda *a: ran.append(1) or kernel(*a))
    rng = np.random.default_rng(5)
    for X_train, y_train, X_test in _folds(name)[:2]:
        for search, max_parents in [("k2", 1), ("k2", 3), ("hill-climb", 2), ("hill-climb", 3), ("tan", 2)]:
            for sample_weight in (None, rng.random(len(y_train)) + 0.25):
                model = BayesNetClassifier(search=search, max_parents=max_parents, prior_count=0.7)
                model.fit(X_train, y_train, sample_weight=sample_weight)
                compiled, numpy_path = _both_paths(
                    monkeypatch,
                    classifier,
                    "COMPILED_PREDICTION",
                    lambda: model,
                    lambda m: (m.predict_joint_log_proba(X_test), m.predict_proba(X_test)),
                )
                np.testing.assert_array_equal(compiled[0], numpy_path[0])
                np.testing.assert_array_equal(compiled[1], numpy_path[1])
    assert len(ran) == 2 * 2 * 5 * 2
    ran.clear()
    monkeypatch.setattr(classifier, "COMPILED_PREDICTION", True)
    model.predict_proba(X_test, estimate="map")
    model.predict_proba(X_test, estimate="mle")
    assert not ran


@pytest.mark.parametrize("name", ["vote", "breast-cancer"])
def test_tan_compiled_scores_of_complete_rows_are_the_sum_product_passs(name, monkeypatch):
    """TAN's rows with every value observed, scored by the look-ups of the log tables, against the
    sum-product pass (its messages rescaled, a product of probabilities): the same joint log
    probabilities to 1e-13 relative and probabilities to 1e-14, on test rows with and without
    missing values (vote: most rows complete, some not; both kinds in one block), fixed and learned
    alpha, unit and fractional weights; spies check the kernel read every row and summed the complete
    ones, the pass scored the others only, and the MAP, MLE and alpha = 0 keep the pass."""
    from pgm_models import TAN
    from pgm_models.discrete import _lookup_kernel
    from pgm_models.semi_naive import tan

    rows, passed = [], []
    kernel, sum_product = _lookup_kernel.table_log_sums, TAN._sum_product

    def spy(*a):
        sums, observed = kernel(*a)
        rows.append((len(observed), int(observed.sum())))
        return sums, observed

    monkeypatch.setattr(_lookup_kernel, "table_log_sums", spy)
    monkeypatch.setattr(TAN, "_sum_product", lambda self, c, e: passed.append(len(c)) or sum_product(self, c, e))
    rng = np.random.default_rng(3)
    X_train, y_train, X_test = _folds(name)[0]
    complete = int(X_test.notna().all(axis=1).sum())
    assert 0 < complete < len(X_test)
    for options in ({}, {"alpha": 0.3, "root": 2}, {"alpha": "evidence"}):
        for sample_weight in (None, rng.random(len(y_train)) + 0.25):
            model = TAN(**options).fit(X_train, y_train, sample_weight=sample_weight)
            for X in (X_test, X_test[X_test.notna().all(axis=1)]):
                passed.clear()
                compiled, summed = _both_paths(
                    monkeypatch,
                    tan,
                    "COMPILED_SCORING",
                    lambda: model,
                    lambda m, X=X: (m.predict_joint_log_proba(X), m.predict_proba(X)),
                )
                np.testing.assert_allclose(compiled[0], summed[0], rtol=1e-13, atol=0)
                np.testing.assert_allclose(compiled[1], summed[1], rtol=0, atol=1e-14)
                assert passed == [len(X) - complete] * 2 * (len(X) > complete) + [len(X)] * 2
    assert rows == ([(len(X_test), complete)] * 2 + [(complete, complete)] * 2) * 6
    rows.clear()
    monkeypatch.setattr(tan, "COMPILED_SCORING", True)
    model.predict_proba(X_test, estimate="map")
    model.predict_proba(X_test, estimate="mle")
    TAN(alpha=0.0).fit(X_train, y_train).predict_proba(X_test)
    assert not rows


def test_table_log_sums_read_each_rows_entries():
    """Two attributes, one the other's parent, three classes: each row's sum under every class is
    the two entries it reads, by hand; a row with a missing value is not summed (0, flagged);
    ``stacked`` lays the tables end to end."""
    from pgm_models.discrete.lookups import stacked, table_log_sums

    rng = np.random.default_rng(0)
    root = np.log(rng.random((3, 2)))  # (class, x0)
    child = np.log(rng.random((3, 2, 4)))  # (class, x0, x1)
    log_tables, starts = stacked([root, child])
    assert starts.tolist() == [0, 6, 30] and np.array_equal(log_tables[6:], child.ravel())
    codes = np.array([[0, 3], [1, 0], [1, -1], [1, 2], [-1, 0]])
    sums, observed = table_log_sums(log_tables, starts, [2, 4], [[], [0]], codes, 3)
    assert observed.tolist() == [True, True, False, True, False]
    expected = np.array(
        [[root[k, a] + child[k, a, b] if a >= 0 and b >= 0 else 0.0 for a, b in codes] for k in range(3)]
    )
    np.testing.assert_array_equal(sums, expected)


@pytest.mark.parametrize("name", ["vote", "breast-cancer"])
def test_look_ups_before_numba_is_loaded_are_the_kernels_bit_for_bit(name, monkeypatch):
    """``table_log_sums`` in a process that has not imported numba (``jit.loaded`` False) sums the
    same entries in the kernel's order: the same bits on random tables with 0–2 parents and missing
    codes, and TAN's joint log probabilities and probabilities (complete and incomplete test rows,
    fixed and learned alpha) are the same bits whether numba was loaded or not."""
    from pgm_models import TAN
    from pgm_models._utils import jit
    from pgm_models.discrete.lookups import stacked, table_log_sums

    rng = np.random.default_rng(7)
    sizes, parents = [3, 2, 4, 5], [[], [0], [0, 1], [2]]
    tables = [np.log(rng.random((3, *(sizes[p] for p in ps), sizes[j]))) for j, ps in enumerate(parents)]
    log_tables, starts = stacked(tables)
    codes = np.column_stack([rng.integers(-1, r, 300) for r in sizes])
    loaded = table_log_sums(log_tables, starts, sizes, parents, codes, 3)
    monkeypatch.setattr(jit, "loaded", lambda: False)
    numpy_sums = table_log_sums(log_tables, starts, sizes, parents, codes, 3)
    np.testing.assert_array_equal(numpy_sums[1], (codes >= 0).all(axis=1))
    np.testing.assert_array_equal(loaded[0], numpy_sums[0])
    np.testing.assert_array_equal(loaded[1], numpy_sums[1])
    X_train, y_train, X_test = _folds(name)[0]
    for options in ({}, {"alpha": "evidence", "root": 1}):
        model = TAN(**options).fit(X_train, y_train)
        before = model.predict_joint_log_proba(X_test), model.predict_proba(X_test)
        monkeypatch.setattr(jit, "loaded", lambda: True)
        after = model.predict_joint_log_proba(X_test), model.predict_proba(X_test)
        monkeypatch.setattr(jit, "loaded", lambda: False)
        np.testing.assert_array_equal(before[0], after[0])
        np.testing.assert_array_equal(before[1], after[1])


def test_tan_compiled_scores_in_blocks_and_threads_are_one_blocks(monkeypatch):
    """vote's 435 rows in 256-row blocks, at one thread and on two pool threads (the thread threshold
    lowered to these rows): the bits of one block, the log tables made once per call and shared by
    the blocks (a spy counts them), the blocks run on the pool's threads at two (a spy on the
    kernel sees their threads), and the sum-product pass's numbers."""
    import threading

    import pgm_models.base
    from pgm_models import TAN, config_context
    from pgm_models._utils import threads
    from pgm_models.discrete import _lookup_kernel
    from pgm_models.semi_naive import tan

    X, y = load_dataset("vote")
    model = TAN().fit(X, y)
    one_block = model.predict_joint_log_proba(X)
    made, ran_on = [], set()
    log_tables, kernel = TAN._log_tables, _lookup_kernel.table_log_sums
    monkeypatch.setattr(TAN, "_log_tables", lambda self, e: made.append(1) or log_tables(self, e))
    monkeypatch.setattr(_lookup_kernel, "table_log_sums", lambda *a: ran_on.add(threading.get_ident()) or kernel(*a))
    monkeypatch.setattr(pgm_models.base, "FLOATS_PER_BLOCK", 1)
    monkeypatch.setattr(threads, "THREAD_MIN_ROWS", 256)
    for n_jobs in (1, 2):
        made.clear(), ran_on.clear()
        with config_context(n_jobs=n_jobs):
            np.testing.assert_array_equal(model.predict_joint_log_proba(X), one_block)
        assert made == [1]
        assert (ran_on == {threading.get_ident()}) == (n_jobs == 1), ran_on
    monkeypatch.setattr(tan, "COMPILED_SCORING", False)
    np.testing.assert_allclose(model.predict_joint_log_proba(X), one_block, rtol=1e-13, atol=0)
