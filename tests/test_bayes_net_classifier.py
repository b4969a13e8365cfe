"""BayesNetClassifier: Weka 3.6.14 BayesNet agreement (K2 and TAN), scores from counts, the
searches' properties, LOO, weights, batches, bad input and the PyMC model."""

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import gammaln
from sklearn.base import clone

from pgm_models import BMATAN, KDB, BayesNetClassifier, check_posterior
from pgm_models.bayes_net._search import MAX_TABLE_CELLS, FamilyCounter, family_score, log_gamma
from pgm_models.datasets import load_arff, load_dataset

WEKA = Path(__file__).parent.parent / "pgm_models" / "datasets" / "data" / "weka"
TIES = Path(__file__).parent / "data" / "weka_bayes_net_ties"
DATASETS = ("vote", "breast-cancer", "weather.nominal", "contact-lenses")


@pytest.mark.parametrize("search", ["k2", "tan"])
@pytest.mark.parametrize("dataset", DATASETS)
def test_reproduces_weka_bayes_net(search, dataset):
    """weka.classifiers.bayes.BayesNet 3.6.14, K2 -P 2 or TAN, -S BAYES, SimpleEstimator -A 0.5
    (commands: pgm_models/datasets/data/weka/COMMANDS.txt); vote and breast-cancer have missing
    values, which both replace by the mode."""
    X, y = load_dataset(dataset)
    reference = pd.read_csv(WEKA / f"bayesnet_{search}_{dataset}.csv")
    model = BayesNetClassifier(
        search=search, max_parents=2, score_type="bayes", prior_count=0.5, class_alpha=0.5, missing="mode"
    ).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), reference[list(model.classes_)].to_numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "weka_score, score_type", [("BDeu", "bdeu"), ("MDL", "bic"), ("AIC", "aic"), ("ENTROPY", "loglik")]
)
@pytest.mark.parametrize("dataset", ["vote", "breast-cancer"])
def test_reproduces_weka_k2_under_every_score(weka_score, score_type, dataset):
    """K2 -P 3 (two attribute parents) under Weka's other scores: the same structures, so the same
    distributions (COMMANDS.txt)."""
    X, y = load_dataset(dataset)
    reference = pd.read_csv(WEKA / f"bayesnet_k2p3_{weka_score}_{dataset}.csv")
    model = BayesNetClassifier(search="k2", max_parents=3, score_type=score_type).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), reference[list(model.classes_)].to_numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "case, params",
    [
        ("tan_bayes", dict(search="tan", score_type="bayes")),
        ("k2_bayes", dict(search="k2", score_type="bayes", max_parents=2)),
        ("tan_entropy", dict(search="tan", score_type="loglik")),
        ("tan_bdeu", dict(search="tan", score_type="bdeu")),
    ],
)
@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
def test_reproduces_weka_where_candidates_tie(case, params, compiled, monkeypatch):
    """Weka 3.6.14 BayesNet (tests/data/weka_bayes_net_ties/COMMANDS.txt) on 5–10 training rows
    where candidate parents score the same in exact arithmetic (a constant attribute, a copied
    one, score equivalence), so rounding picks the structure: the scores are summed in Weka's
    order (tan_bayes, k2_bayes: NumPy's pairwise sums gave another tree or parent, |Δp| up to
    0.2), with the classes in their declared order ({c3, c2, c1, c0}; {1, -1}: tan_entropy's root
    flipped in sorted order) and Weka's log Γ (tan_bdeu: SciPy's differs in the last bit at
    α = 1/(q r)). The distributions of the training rows and of held-out rows, missing values
    and a declared value never trained included."""
    import numba  # noqa: F401  (the compiled scores run once numba is loaded)

    from pgm_models.bayes_net import _search

    monkeypatch.setattr(_search, "COMPILED_SCORES", compiled)
    X, y = load_arff(TIES / f"{case}-train.arff")
    X_test, _ = load_arff(TIES / f"{case}-test.arff")
    reference = pd.read_csv(TIES / f"{case}.csv", dtype=float)
    reference.columns = [c.strip("'") for c in reference.columns]
    model = BayesNetClassifier(prior_count=0.5, class_alpha=0.5, **params).fit(X, y)
    expected = reference[[str(c) for c in model.classes_]].to_numpy()
    np.testing.assert_allclose(model.predict_proba(X_test), expected, rtol=0, atol=1e-12)


def test_declared_class_order_changes_only_the_rounding():
    """The classes declared in another order give the same classes_, tables' class axis and, where
    no candidates tie (weather), the same structure and probabilities."""
    X, y = load_dataset("weather.nominal")  # play {yes, no}: not sorted
    resorted = y.cat.reorder_categories(sorted(y.cat.categories))
    for search in ("k2", "tan"):
        declared = BayesNetClassifier(search=search).fit(X, y)
        alphabetical = BayesNetClassifier(search=search).fit(X, resorted)
        assert declared._class_rank.tolist() == [1, 0] and alphabetical._class_rank is None
        assert [p.tolist() for p in declared.parents_] == [p.tolist() for p in alphabetical.parents_]
        for mine, theirs in zip(declared.family_counts_, alphabetical.family_counts_):
            np.testing.assert_array_equal(mine, theirs)
        np.testing.assert_allclose(declared.predict_proba(X), alphabetical.predict_proba(X), rtol=0, atol=1e-15)
    batches = BayesNetClassifier(search="tan").partial_fit(X[:7], y[:7].astype(str), classes=["yes", "no"])
    assert batches._class_rank.tolist() == [1, 0]
    np.testing.assert_array_equal(
        batches.partial_fit(X[7:], y[7:].astype(str)).predict_proba(X),
        BayesNetClassifier(search="tan").fit(X, y).predict_proba(X),
    )


def test_log_gamma_is_weka_s_bit_for_bit():
    """Weka 3.6.14's ``Statistics.lnGamma`` printed with Double.doubleToRawLongBits: BDeu's
    α = 1/(q r) below 13 (where SciPy's ``gammaln`` differs in the last bit) and whole numbers and
    halves (where the two agree)."""
    arguments = np.array([1 / 3, 4 / 3, 0.2, 1.2, 1 / 6, 1 + 1 / 12, 2.5, 7.0])
    weka = [
        0.9854206469277669,
        -0.11319164174034277,
        1.5240638224307848,
        -0.08537409000331574,
        1.7167334350782406,
        -0.04260933860511064,
        0.2846828704729192,
        6.579251212010101,
    ]
    assert log_gamma(arguments).tolist() == weka
    assert [log_gamma(x) for x in arguments.tolist()] == weka  # scalars too
    assert (gammaln(arguments[:6]) != weka[:6]).all()  # the test can fail: SciPy's form rounds otherwise


def test_log_gamma_paths_agree_bit_for_bit_at_their_thresholds():
    """The Cephes steps on Python floats (up to ``STEPPED_SCALARS`` distinct arguments) and on arrays
    (more), and the distinct-value pass above 256 arguments, give the same bits, on arguments that
    step up, down and not at all (1/k, k + 1/3, near whole numbers) at each side of both thresholds."""
    from pgm_models.bayes_net import _search

    rng = np.random.default_rng(11)
    pool = np.concatenate(
        [
            1 / np.arange(3.0, 40.0),
            np.arange(0.0, 12.0) + 1 / 3,
            rng.uniform(1e-3, 12.999, 400),
            [2.0 + 1e-15, 3 - 1e-15],
        ]
    )
    scalars = _search._stepped_log_gamma_scalars(pool)
    np.testing.assert_array_equal(_search._stepped_log_gamma_arrays(pool), scalars)
    for n in (_search.STEPPED_SCALARS, _search.STEPPED_SCALARS + 1, 256, 257, 600):
        arguments = np.resize(pool, n)  # > 256: repeats, so the distinct-value pass has work
        np.testing.assert_array_equal(log_gamma(arguments), np.resize(scalars, n))
        np.testing.assert_array_equal(log_gamma(arguments, memo={}), np.resize(scalars, n))


def _weather():
    return load_dataset("weather.nominal")


def test_family_scores_are_the_hand_formulas():
    """windy | play on weather: yes → (false 6, true 3), no → (false 2, true 3)."""
    counts = np.array([[6.0, 3.0], [2.0, 3.0]])
    loglik = 6 * math.log(6 / 9) + 3 * math.log(3 / 9) + 2 * math.log(2 / 5) + 3 * math.log(3 / 5)
    assert family_score(counts, "loglik", 0.5, 14) == pytest.approx(loglik, abs=1e-12)
    assert family_score(counts, "bic", 0.5, 14) == pytest.approx(loglik - 0.5 * 2 * 1 * math.log(14), abs=1e-12)
    assert family_score(counts, "aic", 0.5, 14) == pytest.approx(loglik - 2, abs=1e-12)
    bayes = sum(gammaln(1.0) - gammaln(1.0 + n.sum()) + sum(gammaln(0.5 + v) - gammaln(0.5) for v in n) for n in counts)
    assert family_score(counts, "bayes", 0.5, 14) == pytest.approx(bayes, abs=1e-12)
    bdeu = sum(
        gammaln(0.5) - gammaln(0.5 + n.sum()) + sum(gammaln(0.25 + v) - gammaln(0.25) for v in n) for n in counts
    )
    assert family_score(counts, "bdeu", 0.5, 14) == pytest.approx(bdeu, abs=1e-12)
    X, y = _weather()
    model = BayesNetClassifier(max_parents=1).fit(X, y)  # naive Bayes: windy's table given the class
    windy = list(X.columns).index("windy")
    table = model.family_counts_[windy]
    order = [list(X["windy"].cat.categories).index(v) for v in ("FALSE", "TRUE")]
    assert table[list(model.classes_).index("yes")][order].tolist() == [6, 3]


def test_one_parent_is_naive_bayes():
    """max_parents=1 leaves the class the only parent: CategoricalNB with the same α."""
    from pgm_models import CategoricalNB

    X, y = _weather()
    model = BayesNetClassifier(max_parents=1, prior_count=0.5, class_alpha=0.5).fit(X, y)
    assert all(len(p) == 0 for p in model.parents_)
    for estimate in ("mean", "map", "mle"):
        np.testing.assert_allclose(
            model.predict_proba(X, estimate=estimate),
            CategoricalNB(alpha=0.5, class_alpha=0.5).fit(X, y).predict_proba(X, estimate=estimate),
            atol=1e-12,
        )


def _total(counter, parents):
    return sum(counter.score(j, list(p)) for j, p in enumerate(parents))


def _acyclic(parents):
    state = {}

    def visit(j):
        if state.get(j) == 1:
            return False
        if state.get(j) == 2:
            return True
        state[j] = 1
        ok = all(visit(p) for p in parents[j])
        state[j] = 2
        return ok

    return all(visit(j) for j in range(len(parents)))


@pytest.mark.parametrize("score_type", ["bayes", "bdeu", "bic", "aic"])
def test_k2_and_hill_climbing_stop_where_no_single_step_helps(score_type):
    X, y = load_dataset("vote")
    for search in ("k2", "hill-climb"):
        model = BayesNetClassifier(search=search, score_type=score_type, max_parents=3).fit(X, y)
        parents = [p.tolist() for p in model.parents_]
        counter = FamilyCounter(
            model._encode(X, reset=False, training=False),  # missing values replaced by the modes
            model._class_index(y),
            np.ones(len(y)),
            model.n_categories_,
            2,
            score_type,
            0.5,
        )
        assert model.structure_score_ == pytest.approx(_total(counter, parents), abs=1e-9)
        assert _acyclic(parents) and all(len(p) <= 2 for p in parents)
        assert model.structure_score_ >= _total(counter, [[] for _ in parents]) - 1e-9  # no worse than naive Bayes
        for j, chosen in enumerate(parents):
            allowed = range(j) if search == "k2" else range(len(parents))
            if search == "k2":
                assert all(p < j for p in chosen)
            for candidate in allowed:
                trial = [list(p) for p in parents]
                if candidate != j and candidate not in chosen and len(chosen) < 2:
                    trial[j] = chosen + [candidate]
                    if _acyclic(trial):
                        assert counter.score(j, trial[j]) <= counter.score(j, chosen) + 1e-9
            if search == "hill-climb":
                for parent in chosen:  # neither deleting nor reversing an arc helps
                    assert counter.score(j, [p for p in chosen if p != parent]) <= counter.score(j, chosen) + 1e-9


def test_tan_structure_is_a_spanning_tree():
    X, y = load_dataset("vote")
    parents = [p.tolist() for p in BayesNetClassifier(search="tan").fit(X, y).parents_]
    assert sum(len(p) for p in parents) == len(parents) - 1 and all(len(p) <= 1 for p in parents)
    assert _acyclic(parents)


def test_log_evidence_is_the_bayes_score_of_the_structure():
    X, y = load_dataset("breast-cancer")
    model = BayesNetClassifier(search="k2", prior_count=0.5, class_alpha=0.5).fit(X, y)
    n = model.class_count_
    class_evidence = gammaln(1.0) - gammaln(1.0 + n.sum()) + (gammaln(0.5 + n) - gammaln(0.5)).sum()
    assert model.log_evidence() == pytest.approx(model.structure_score_ + class_evidence, abs=1e-9)


def test_exact_loo_with_the_structure_fixed():
    """Each row's leave-one-out predictive equals the fitted structure's prediction with that
    row's counts removed (breast-cancer: missing values replaced by the fitted modes)."""
    import copy

    X, y = load_dataset("breast-cancer")
    X, y = X.iloc[:30], y.iloc[:30]
    model = BayesNetClassifier(search="tan").fit(X, y)
    loo = model.loo(X, y).loo_i.to_numpy()
    codes = model._encode(X, reset=False, training=False)  # missing values replaced by the modes
    labels = model._class_index(y)
    for i in range(len(y)):
        left = copy.deepcopy(model)
        left.class_count_ = left.class_count_ - np.eye(2)[labels[i]]
        for j, p in enumerate(model.parents_):
            left.family_counts_[j][(labels[i], *codes[i, p], codes[i, j])] -= 1
        joint = left.predict_joint_log_proba(X.iloc[i : i + 1])[0]
        assert loo[i] == pytest.approx(joint[labels[i]] - np.logaddexp.reduce(joint), abs=1e-12)


@pytest.mark.parametrize(
    "model",
    [
        BayesNetClassifier(search="k2"),
        BayesNetClassifier(search="hill-climb", max_parents=3, score_type="bic"),
        BayesNetClassifier(search="tan"),
        KDB(k=2),
    ],
    ids=["k2", "hill-climb", "tan", "kdb"],
)
def test_chunked_fit_gives_the_one_fits_structure_and_loo(model):
    """partial_fit in uneven batches (the first of one row) on vote, whose missing values' modes and
    structure differ between the first rows and all: the same distinct rows, modes, structure,
    tables and exact LOO as one fit, to the last bit (counts are whole numbers)."""
    X, y = load_dataset("vote")
    one = clone(model).fit(X, y)
    chunked = clone(model)
    for start, stop in [(0, 1), (1, 150), (150, 151), (151, len(y))]:
        chunked.partial_fit(X.iloc[start:stop], y.iloc[start:stop], classes=one.classes_)
    np.testing.assert_array_equal(chunked.distinct_rows_, one.distinct_rows_)
    np.testing.assert_array_equal(chunked.distinct_row_count_, one.distinct_row_count_)
    np.testing.assert_array_equal(chunked.modes_, one.modes_)
    assert [p.tolist() for p in chunked.parents_] == [p.tolist() for p in one.parents_]
    assert chunked.structure_score_ == one.structure_score_
    for conditional in (True, False):
        np.testing.assert_array_equal(
            chunked.loo(X, y, conditional=conditional).loo_i, one.loo(X, y, conditional=conditional).loo_i
        )
    first = clone(model).fit(X.iloc[:150], y.iloc[:150])  # what the chunked fit would be had it kept the first batch
    assert [p.tolist() for p in first.parents_] != [p.tolist() for p in one.parents_] or not np.array_equal(
        first.modes_, one.modes_
    )


def test_loo_refuses_rows_other_than_the_fitted_ones():
    """The same class counts with one value changed, or another row in place of one, are not the
    fitted distinct rows; the fitted rows in another order are, and give the same pointwise LOO."""
    X, y = load_dataset("breast-cancer")
    model = BayesNetClassifier(search="tan").fit(X, y)
    changed = X.copy()
    changed.iloc[0, 0] = next(v for v in X.iloc[:, 0].cat.categories if v != X.iloc[0, 0])
    with pytest.raises(ValueError, match="do not give the fitted distinct_rows_ .other rows than the fit"):
        model.loo(changed, y)
    twin = int(np.flatnonzero((y == y.iloc[0]).to_numpy() & (X != X.iloc[0]).any(axis=1).to_numpy())[0])
    swapped = pd.concat([X.iloc[twin : twin + 1], X.iloc[1:]])  # row 0 replaced by another row of its class
    with pytest.raises(ValueError, match="distinct_rows_"):
        model.loo(swapped, y)
    with pytest.raises(ValueError, match="class counts"):
        model.loo(X.iloc[1:], y.iloc[1:])
    order = np.random.default_rng(0).permutation(len(y))
    np.testing.assert_array_equal(
        model.loo(X.iloc[order], y.iloc[order]).loo_i.to_numpy(), model.loo(X, y).loo_i.to_numpy()[order]
    )


def test_weights_partial_fit_and_missing_values():
    X, y = load_dataset("vote")
    twice = BayesNetClassifier().fit(pd.concat([X, X.iloc[:20]]), pd.concat([y, y.iloc[:20]]))
    weighted = BayesNetClassifier().fit(X, y, sample_weight=np.r_[np.full(20, 2.0), np.ones(len(y) - 20)])
    assert [p.tolist() for p in weighted.parents_] == [p.tolist() for p in twice.parents_]
    np.testing.assert_allclose(weighted.predict_proba(X), twice.predict_proba(X), atol=1e-12)
    # the modes and structure of the whole data, whatever the batches saw: vote's first 200 rows alone give another
    one = BayesNetClassifier().fit(X, y)
    first = BayesNetClassifier().fit(X.iloc[:200], y.iloc[:200])
    assert [p.tolist() for p in first.parents_] != [p.tolist() for p in one.parents_]
    batches = (
        BayesNetClassifier()
        .partial_fit(X.iloc[:200], y.iloc[:200], classes=first.classes_)
        .partial_fit(X.iloc[200:], y.iloc[200:])
    )
    assert [p.tolist() for p in batches.parents_] == [p.tolist() for p in one.parents_]
    np.testing.assert_array_equal(batches.modes_, one.modes_)
    for mine, theirs in zip(batches.family_counts_, one.family_counts_):
        np.testing.assert_array_equal(mine, theirs)
    with pytest.raises(ValueError, match="missing"):
        BayesNetClassifier(missing="error").fit(X, y)


def test_bad_input_is_named():
    X, y = load_dataset("breast-cancer")
    # age (9 values) with all 8 other attributes as parents: 2 classes × 505 440/9 parent values × 9 values
    with pytest.raises(ValueError, match="'age' a table of 1,010,880 cells"):
        BayesNetClassifier(max_parents=9).fit(X, y)
    assert MAX_TABLE_CELLS < 1_010_880
    BayesNetClassifier(max_parents=8).fit(X, y)  # its largest table, 2 × 13·12·9·5·3·3·2·2 × 2: within the limit
    for params, name in [
        ({"max_parents": -1}, "max_parents"),
        ({"max_parents": 1.5}, "max_parents"),
        ({"search": "greedy"}, "search"),
        ({"score_type": "mdl"}, "score_type"),
        ({"prior_count": 0}, "prior_count"),
        ({"prior_count": -1}, "prior_count"),
    ]:
        with pytest.raises(ValueError, match=name):
            BayesNetClassifier(**params).fit(X, y)
    dd = pytest.importorskip("dask.dataframe")
    refusal = (
        "^BayesNetClassifier cannot be fitted on a dask collection: it searches its structure over the distinct rows "
        "of all the data in memory: compute the dask collection first$"
    )
    on_dask = dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2)
    for fit in (BayesNetClassifier().fit, BayesNetClassifier().partial_fit):
        with pytest.raises(ValueError, match=refusal):
            fit(*on_dask)


def test_pymc_forms_differ_by_a_constant():
    from conftest import logp_at_random_points

    X, y = _weather()
    model = BayesNetClassifier(search="k2", max_parents=2).fit(X, y)
    counts = logp_at_random_points(model.pymc_model("counts"))
    rows = logp_at_random_points(model.pymc_model("rows", X, y))
    np.testing.assert_allclose(counts - rows, (counts - rows)[0], atol=1e-8)
    assert set(model.analytic_posterior().data_vars) == {"class_prob", *(f"feature_prob_{c}" for c in X.columns)}
    assert model.analytic_posterior()["feature_prob_temperature"].dims == (
        "class",
        "outlook_value",
        "temperature_value",
    )


@pytest.mark.nuts
def test_nuts_agrees_with_the_closed_form_for_a_learned_structure():
    """K2 (two parents) on weather: NUTS on the counts form against the Dirichlet posteriors.
    False-failure chance: z-scores at a 1e-6 family-wise level, 4 chains of 1000 draws on smooth
    Dirichlet posteriors (R-hat, ESS and divergences with the same margin): well under 1e-4 per run."""
    X, y = _weather()
    model = BayesNetClassifier(search="k2", max_parents=2).fit(X, y)
    assert any(len(p) for p in model.parents_)
    idata = model.sample_posterior(draws=1000, tune=1000, chains=4, cores=1, random_seed=7, progressbar=False)
    result = check_posterior(model, idata, family_error=1e-6)
    assert result.passed, result.reasons


@pytest.mark.parametrize("Model", [KDB, BayesNetClassifier, BMATAN])
def test_missing_error_names_an_unseen_value_as_unseen(Model):
    """missing='error' with handle_unknown='missing': an unseen value at prediction is named with its
    column and value (it was reported as a missing value the row does not have); a real missing
    value is still reported as missing, and handle_unknown='error' and missing='mode' are unchanged."""
    X, y = load_dataset("vote")
    complete = X.notna().all(axis=1)
    X, y = X[complete].astype(object), y[complete]
    row = X.iloc[:2].copy()
    row.iloc[1, 2] = "maybe"
    column = X.columns[2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "treated as missing" warning before the error
        model = Model(missing="error").fit(X, y)
        with pytest.raises(ValueError) as error:
            model.predict(row)
    message = str(error.value)
    assert f"column {column!r} has value(s) ['maybe'] outside its domain ['n', 'y']" in message
    assert "handle_unknown decides" in message and f"{Model.__name__}(missing='error') refuses" in message
    assert "has missing values" not in message
    # integer codes: the column by position, the value as it is
    codes = (X.to_numpy() == "y").astype(np.int64)
    on_codes = Model(missing="error").fit(codes, y)
    with pytest.raises(
        ValueError, match=re.escape("column 0 has value(s) [7] outside its domain [0, 1]; handle_unknown")
    ):
        on_codes.predict(np.vstack([codes[:1], [[7] + codes[0, 1:].tolist()]]))
    missing = row.copy()
    missing.iloc[1, 2] = None
    with pytest.raises(ValueError, match=re.escape(f"column {column!r} has missing values")):
        model.predict(missing)
    with pytest.raises(
        ValueError, match=re.escape(f"column {column!r} has value(s) ['maybe'] outside its domain ['n', 'y']") + "$"
    ):
        Model(missing="error", handle_unknown="error").fit(X, y).predict(row)
    # missing='mode' still treats it as missing, then as the mode
    mode = Model().fit(X, y)
    with pytest.warns(UserWarning, match="treated as missing"):
        unseen = mode.predict_proba(row)
    replaced = row.copy()
    replaced.iloc[1, 2] = mode.categories_[2][mode.modes_[2]]
    np.testing.assert_array_equal(unseen, mode.predict_proba(replaced))
