"""ComplementNB: scikit-learn's ComplementNB to 1e-12 (random counts, Reuters), sparse input never
densified, partial_fit, sample_weight, Dask, the complement posterior and its PyMC forms, every
estimate, the norm and infinity rules, bad input."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn.naive_bayes as skl
from conftest import NUTS_SETTINGS, logp_at_random_points
from sklearn.feature_extraction.text import CountVectorizer

from pgm_models import ComplementNB, check_posterior
from pgm_models.datasets import load_dataset

METHODS = ("predict_joint_log_proba", "predict_log_proba", "predict_proba")


def assert_equals_scikit_learn(ours, theirs, X_ours, X_theirs):
    for method in METHODS:
        expected = getattr(theirs, method)(X_theirs)
        scale = max(1.0, np.abs(expected).max()) if method == "predict_joint_log_proba" else 1.0
        np.testing.assert_allclose(getattr(ours, method)(X_ours), expected, rtol=0, atol=1e-12 * scale, err_msg=method)
    np.testing.assert_array_equal(ours.predict(X_ours), theirs.predict(X_theirs))


@pytest.fixture(scope="module")
def counts():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 3, 300)
    rates = rng.gamma(0.5, 1.0, (3, 50))
    X = rng.poisson(rates[y]).astype(float)
    return X, y


@pytest.mark.parametrize("norm", [False, True])
@pytest.mark.parametrize("alpha", [1.0, 0.1, "per word"])
def test_matches_scikit_learn_dense_and_sparse(counts, alpha, norm):
    X, y = counts
    if alpha == "per word":
        alpha = np.random.default_rng(1).uniform(0.05, 2.0, X.shape[1])
    theirs = skl.ComplementNB(alpha=alpha, norm=norm).fit(X, y)
    for X_fit in (X, sp.csr_matrix(X), sp.csc_array(X)):
        ours = ComplementNB(alpha=alpha, norm=norm).fit(X_fit, y)
        np.testing.assert_array_equal(ours.feature_count_, theirs.feature_count_)
        assert_equals_scikit_learn(ours, theirs, X_fit, X)


def test_sample_weight_matches_scikit_learn_and_whole_weights_repeat_rows(counts):
    X, y = counts
    weight = np.random.default_rng(2).integers(0, 4, len(y)).astype(float)
    theirs = skl.ComplementNB(norm=True).fit(X, y, sample_weight=weight)
    ours = ComplementNB(norm=True).fit(sp.csr_matrix(X), y, sample_weight=weight)
    assert_equals_scikit_learn(ours, theirs, X, X)
    repeated = ComplementNB(norm=True).fit(np.repeat(X, weight.astype(int), axis=0), np.repeat(y, weight.astype(int)))
    np.testing.assert_allclose(repeated.predict_proba(X), ours.predict_proba(X), rtol=0, atol=1e-12)
    np.testing.assert_allclose(repeated.feature_concentration_, ours.feature_concentration_, rtol=1e-15)


def test_partial_fit_equals_fit_and_scikit_learns_partial_fit(counts):
    X, y = counts
    theirs = skl.ComplementNB(alpha=0.5)
    ours = ComplementNB(alpha=0.5)
    for rows in np.array_split(np.arange(len(y)), 4):
        theirs.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
        ours.partial_fit(sp.csr_matrix(X[rows]), y[rows], classes=[0, 1, 2])
    assert_equals_scikit_learn(ours, theirs, X, X)
    np.testing.assert_array_equal(ours.feature_concentration_, ComplementNB(alpha=0.5).fit(X, y).feature_concentration_)


@pytest.mark.parametrize("norm", [False, True])
def test_matches_scikit_learn_on_reuters_text(norm):
    X, y = load_dataset("reuters-grain-train")
    X_test, _ = load_dataset("reuters-grain-test")
    vectorizer = CountVectorizer().fit(X["Text"])
    train, test = vectorizer.transform(X["Text"]), vectorizer.transform(X_test["Text"])
    theirs = skl.ComplementNB(norm=norm).fit(train, y)
    ours = ComplementNB(norm=norm).fit(train, y)
    assert_equals_scikit_learn(ours, theirs, test, test)
    assert len(np.unique(ours.predict(test))) == 2  # both classes are predicted: the comparison has substance


def test_one_training_class_matches_scikit_learns_edge_case(counts):
    X, _ = counts
    y = np.zeros(len(X), dtype=int)
    assert_equals_scikit_learn(ComplementNB().fit(X, y), skl.ComplementNB().fit(X, y), X, X)


def _refuse_densifying(monkeypatch):
    def refuse(self, *args, **kwargs):
        raise AssertionError("a sparse X was densified")

    for cls in (sp._base._spbase, sp._compressed._cs_matrix, sp._coo._coo_base):
        for name in ("toarray", "todense"):
            if name in vars(cls):
                monkeypatch.setattr(cls, name, refuse)


@pytest.mark.parametrize("estimate", ["mean", "predictive"])
def test_sparse_input_is_never_densified(counts, monkeypatch, estimate):
    X, y = counts
    expected = ComplementNB(estimate=estimate).fit(X, y).predict_proba(X)
    _refuse_densifying(monkeypatch)
    with pytest.raises(AssertionError, match="densified"):
        sp.csr_array(X).toarray()  # the patch is in force
    model = ComplementNB(estimate=estimate).fit(sp.csr_array(X), y, sample_weight=np.ones(len(y)))
    model.partial_fit(sp.csr_matrix(X[:10]), y[:10])
    np.testing.assert_allclose(
        ComplementNB(estimate=estimate).fit(sp.csr_array(X), y).predict_proba(sp.csr_array(X)), expected, atol=1e-12
    )


def test_a_corpus_too_large_to_densify_fits_and_matches_scikit_learn():
    """40 000 documents × 400 000 words is 128 GB dense (float64), 20 nonzeros a row sparse."""
    rng = np.random.default_rng(5)
    n_rows, n_words, per_row = 40_000, 400_000, 20
    columns = np.minimum(rng.zipf(1.3, n_rows * per_row) - 1, n_words - 1)
    X = sp.csr_array(
        (rng.integers(1, 4, n_rows * per_row).astype(float), (np.repeat(np.arange(n_rows), per_row), columns)),
        shape=(n_rows, n_words),
    )
    y = rng.integers(0, 4, n_rows)
    ours, theirs = ComplementNB(norm=True).fit(X, y), skl.ComplementNB(norm=True).fit(X, y)
    rows = X[:2000]
    np.testing.assert_allclose(ours.predict_proba(rows), theirs.predict_proba(rows), rtol=0, atol=1e-12)


def test_fit_on_dask_equals_the_in_memory_fit(counts):
    dask = pytest.importorskip("dask")
    import dask.array as da
    import dask.dataframe as dd
    from test_dask import assert_same_fit

    X, y = counts
    with dask.config.set(scheduler="sync"):
        sparse = sp.csr_matrix(X)
        X_dask = da.from_array(sparse, chunks=(70, -1), asarray=False)
        assert_same_fit(ComplementNB(norm=True).fit(sparse, y), ComplementNB(norm=True).fit(X_dask, y), sparse, X_dask)
        frame = pd.DataFrame(X, columns=[f"w{v}" for v in range(X.shape[1])])
        frame_dask = dd.from_pandas(frame, npartitions=4, sort=False)
        y_dask = dd.from_pandas(pd.Series(y), npartitions=4, sort=False)
        assert_same_fit(ComplementNB().fit(frame, y), ComplementNB().fit(frame_dask, y_dask), frame, frame_dask)


# ----------------------------------------------------------------------------- the posterior
X_SMALL = np.array([[3, 0, 1], [2, 1, 0], [0, 2, 3], [1, 0, 4]])
Y_SMALL = np.array(["a", "a", "b", "b"])


def test_complement_posterior_is_the_other_classes_counts_plus_alpha():
    model = ComplementNB(alpha=0.5).fit(X_SMALL, Y_SMALL)
    # class a's complement is class b's counts (1, 2, 7); class b's is a's (5, 1, 1)
    np.testing.assert_array_equal(model.feature_concentration_, [[1.5, 2.5, 7.5], [5.5, 1.5, 1.5]])
    mean = model.analytic_posterior("mean")["complement_prob"].to_numpy()
    np.testing.assert_allclose(mean, [[1.5 / 11.5, 2.5 / 11.5, 7.5 / 11.5], [5.5 / 8.5, 1.5 / 8.5, 1.5 / 8.5]])
    mode = model.analytic_posterior("mode")["complement_prob"].to_numpy()
    np.testing.assert_allclose(mode, [[0.5 / 8.5, 1.5 / 8.5, 6.5 / 8.5], [4.5 / 5.5, 0.5 / 5.5, 0.5 / 5.5]])
    np.testing.assert_array_equal(model.class_concentration_, [3.0, 3.0])


@pytest.mark.parametrize(
    "estimate, complement",
    [
        ("mean", [[1.5 / 11.5, 2.5 / 11.5, 7.5 / 11.5], [5.5 / 8.5, 1.5 / 8.5, 1.5 / 8.5]]),
        ("map", [[0.5 / 8.5, 1.5 / 8.5, 6.5 / 8.5], [4.5 / 5.5, 0.5 / 5.5, 0.5 / 5.5]]),
    ],
)
@pytest.mark.parametrize("norm", [False, True])
def test_scores_are_the_weights_of_the_chosen_estimate(estimate, complement, norm):
    model = ComplementNB(alpha=0.5, estimate=estimate, norm=norm).fit(X_SMALL, Y_SMALL)
    log_complement = np.log(complement)
    weights = log_complement / log_complement.sum(axis=1, keepdims=True) if norm else -log_complement
    x = np.array([[1, 2, 0], [0, 0, 5]])
    np.testing.assert_allclose(model.predict_joint_log_proba(x), x @ weights.T, rtol=1e-14)
    scores = x @ weights.T
    np.testing.assert_allclose(
        model.predict_proba(x), np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True), rtol=1e-14
    )


def test_predictive_is_the_complements_dirichlet_multinomial():
    model = ComplementNB(alpha=1.0, estimate="predictive").fit(X_SMALL, Y_SMALL)
    # complement of a: concentration (2, 3, 8), total 13. Document "w2 w2": Pólya urn 8/13 · 9/14
    doc = np.array([[0, 0, 2]])
    score_a = model.predict_joint_log_proba(doc)[0, 0]
    assert score_a == pytest.approx(-np.log(8 / 13 * 9 / 14), rel=1e-14)
    plug_in = ComplementNB(alpha=1.0).fit(X_SMALL, Y_SMALL).predict_joint_log_proba(doc)[0, 0]
    assert plug_in == pytest.approx(-2 * np.log(8 / 13), rel=1e-14)


def test_mle_weights_ignore_alpha_and_an_infinite_score_takes_the_probability():
    X = np.array([[2, 0, 1], [0, 3, 1], [1, 1, 2]])
    model = ComplementNB(alpha=5.0, estimate="mle").fit(X, [0, 1, 2])
    # complements: of class 0 rows 1 + 2 = (1, 4, 3), of class 1 (3, 1, 3), of class 2 (2, 3, 2)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(np.array([[0, 0, 1]]))[0],
        [-np.log(3 / 8), -np.log(3 / 7), -np.log(2 / 7)],
        rtol=1e-14,
    )
    two = ComplementNB(estimate="mle").fit(np.array([[2, 0], [0, 3]]), [0, 1])
    # class 0's complement (0, 3) gives word 0 probability 0, class 1's (2, 0) word 1: their weights are +inf
    np.testing.assert_array_equal(two.predict_joint_log_proba(np.array([[1, 0]]))[0], [np.inf, 0.0])
    np.testing.assert_array_equal(
        two.predict_proba(np.array([[1, 0], [1, 1], [0, 2]])), [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]
    )
    with pytest.raises(
        ValueError, match=r"norm=True .* word 0 has complement probability 0 for class 0 under estimate='mle'"
    ):
        ComplementNB(estimate="mle", norm=True).fit(np.array([[2, 0], [0, 3]]), [0, 1]).predict_proba(
            np.array([[1, 0]])
        )


def test_posterior_draws_score_under_exact_draws_of_the_complements(counts):
    X, y = counts
    model = ComplementNB(norm=True).fit(X, y)
    draws = model.predict_proba_draws(X[:5], n_draws=4000, random_seed=3)
    np.testing.assert_allclose(draws.sum(axis=-1), 1.0, atol=1e-12)
    # 300 documents: the draws scatter tightly about the plug-in of the posterior mean
    np.testing.assert_allclose(draws.mean(axis=0), model.predict_proba(X[:5]), atol=0.02)
    assert draws.std(axis=0).max() > 1e-4


def test_counts_and_rows_forms_have_the_same_posterior(count_data):
    X, y = count_data
    model = ComplementNB(alpha=0.8).fit(X, y)
    counts_model, rows_model = model.pymc_model("counts"), model.pymc_model("rows", X, y)
    assert set(counts_model.named_vars) >= {"class_prob", "complement_prob", "complement_count"}
    difference = logp_at_random_points(counts_model) - logp_at_random_points(rows_model)
    np.testing.assert_allclose(difference, difference[0], atol=1e-8)


@pytest.mark.nuts
def test_nuts_agrees_with_the_closed_form(count_data):
    # 3 + 15 parameters at a family error of 1e-6 (test_verify.py): a false failure about 1e-6 a run
    X, y = count_data
    model = ComplementNB(alpha=0.8).fit(X, y)
    idata = model.sample_posterior(random_seed=20261128, **NUTS_SETTINGS)
    result = check_posterior(model, idata, family_error=1e-6)
    assert result.passed, result.reasons
    assert len(result.table) == 3 + 15
    wrong = check_posterior(ComplementNB(alpha=1.8).fit(X, y), idata, family_error=1e-6)
    assert not wrong.passed


def test_evidence_learns_the_alpha_that_maximises_the_complements_evidence(count_data):
    X, y = count_data
    model = ComplementNB(alpha="evidence").fit(X, y)

    def at(alpha):
        return ComplementNB(alpha=alpha).fit(X, y).log_evidence()

    assert model.log_evidence() == pytest.approx(at(model.alpha_), rel=1e-12)
    assert at(model.alpha_) > max(at(model.alpha_ * 1.05), at(model.alpha_ / 1.05))


# ----------------------------------------------------------------------------- bad input
def test_bad_parameters_and_unsupported_methods_are_refused(counts):
    X, y = counts
    with pytest.raises(ValueError, match="norm must be True or False, got 'yes'"):
        ComplementNB(norm="yes").fit(X, y)
    with pytest.raises(ValueError, match="norm=True normalises the weights of a point estimate; estimate='predictive'"):
        ComplementNB(norm=True, estimate="predictive").fit(X, y)
    with pytest.raises(ValueError, match="estimate='predictive' has none"):
        ComplementNB(norm=True).fit(X, y).predict_proba(X, estimate="predictive")
    with pytest.raises(ValueError, match="negative value -1.0 in column 2"):
        ComplementNB().fit(np.where(np.arange(X.shape[1]) == 2, -1.0, X), y)
    with pytest.raises(NotImplementedError, match="ComplementNB has no exact leave-one-out"):
        ComplementNB().fit(X, y).loo(X, y)
