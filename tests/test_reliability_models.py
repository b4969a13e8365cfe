"""Issue 17 (model side): sparse duplicates, AODE's weight limits, logistic regression's classes
and optimiser, nominal columns with no observed value, memory of the semi-naive models,
discretizer labels at small scales."""

import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from pgm_models import AODE, SPODE, TAN, BernoulliNB, CategoricalNB, LogisticRegression, MultinomialNB
from pgm_models.discrete import pairs as _pairs
from pgm_models.preprocessing.discretize import EqualFrequencyDiscretizer, EqualWidthDiscretizer, MDLDiscretizer


def _peak_bytes(action) -> int:
    """Peak of the memory NumPy allocates (NumPy reports its buffers to tracemalloc) while ``action`` runs."""
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ---------------------------------------------------------------------- sparse duplicates
def _with_duplicates(dense, seed):
    """The same matrix with every stored entry split into two duplicate parts (a cell's value
    is the sum of its entries, scipy's convention), in shuffled order."""
    rng = np.random.default_rng(seed)
    coo = sp.coo_matrix(dense)
    share = rng.random(coo.nnz)
    rows, cols = np.r_[coo.row, coo.row], np.r_[coo.col, coo.col]
    data = np.r_[coo.data * share, coo.data * (1 - share)]
    order = rng.permutation(len(data))
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=dense.shape[0]))]
    by_row = np.argsort(rows[order], kind="stable")
    matrix = sp.csr_matrix((data[order][by_row], cols[order][by_row], indptr), shape=dense.shape)
    assert matrix.nnz == 2 * coo.nnz and not matrix.has_canonical_format
    np.testing.assert_allclose(matrix.toarray(), dense)
    return matrix


@pytest.mark.parametrize(
    "model, estimates",
    [
        (BernoulliNB(binarize=0.5), ["mean", "mle"]),
        (MultinomialNB(), ["mean", "predictive"]),
        (LogisticRegression(), ["map"]),
    ],
    ids=["BernoulliNB", "MultinomialNB", "LogisticRegression"],
)
def test_sparse_duplicate_entries_are_summed_before_use(model, estimates):
    """0.3 + 0.3 is one cell of 0.6: present under binarize=0.5, one count of 0.6 — not two
    absent entries or two presences (BernoulliNB), nor two documents' worth of words
    (MultinomialNB's Dirichlet–multinomial predictive is not linear in the counts)."""
    rng = np.random.default_rng(5)
    dense = np.round(rng.poisson(1.0, size=(40, 6)) * rng.random((40, 6)) * 2, 1)
    y = np.arange(40) % 2
    duplicated = _with_duplicates(dense, 5)
    reference = model.__class__(**model.get_params()).fit(dense, y)
    fitted = model.__class__(**model.get_params()).fit(duplicated, y)
    for estimate in estimates:
        np.testing.assert_allclose(
            fitted.predict_proba(duplicated, estimate=estimate),
            reference.predict_proba(dense, estimate=estimate),
            rtol=1e-10,
        )


def test_bernoulli_duplicates_from_the_issue():
    """0.3 + 0.3 counts as present at binarize 0.5 (the cell is 0.6), 0.6 + 0.6 counts once."""
    X = sp.csr_matrix((np.array([0.3, 0.3, 0.6, 0.6]), np.array([0, 0, 0, 0]), np.array([0, 2, 4])), shape=(2, 1))
    model = BernoulliNB(binarize=0.5, alpha=0.0).fit(X, [0, 1])
    np.testing.assert_array_equal(model.feature_count_, [[1.0], [1.0]])


# ---------------------------------------------------------------------- AODE limits
@pytest.mark.parametrize(
    "params, uniform",
    [
        ({"alpha": 0.0, "weights": "bma"}, {"alpha": 0.0}),
        ({"estimator": "m-estimate", "m": 0.0, "weights": "bma"}, {"estimator": "m-estimate", "m": 0.0}),
        ({"alpha": 0.0, "weights": "tempered", "temperature": 0.0}, {"alpha": 0.0}),
        ({"weights": "tempered", "temperature": 0.0}, {}),
    ],
)
def test_aode_weights_at_their_limits_are_uniform_never_nan(params, uniform, weather):
    """Every SPODE's evidence is 0 under an improper prior (alpha = 0, m = 0) and τ = 0 is
    documented to be uniform: −inf − (−inf) and 0 · (−inf) must not reach the probabilities."""
    X, y = weather
    proba = AODE(**params).fit(X, y).predict_proba(X)
    assert not np.isnan(proba).any()
    np.testing.assert_allclose(proba, AODE(**uniform).fit(X, y).predict_proba(X), rtol=1e-12)


# ---------------------------------------------------------------------- logistic regression
def test_logistic_regression_with_one_class_has_one_probability_column():
    X = np.random.default_rng(0).normal(size=(10, 2))
    model = LogisticRegression().fit(X, ["a"] * 10)
    assert model.classes_.tolist() == ["a"]
    np.testing.assert_array_equal(model.predict_proba(X), np.ones((10, 1)))
    assert model.predict(X).tolist() == ["a"] * 10


def test_logistic_regression_takes_a_categorical_targets_declared_classes():
    """The README: a Categorical y's categories are the class domain (as for the generative models)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    y = pd.Series(pd.Categorical(np.where(X[:, 0] > 0, "up", "down"), categories=["down", "up", "never"]))
    model = LogisticRegression().fit(X, y)
    assert model.classes_.tolist() == ["down", "never", "up"]  # sorted, as scikit-learn's
    proba = model.predict_proba(X)
    assert proba.shape == (60, 3)
    assert proba[:, 1].max() < 0.05  # no row of the unseen class: the prior keeps its logit low
    assert (model.predict(X) == y.to_numpy()).mean() > 0.9


def test_logistic_regression_warns_when_the_optimiser_stops_at_max_iter():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(100, 3))
    y = (X @ [1.0, -2.0, 0.5] + rng.normal(size=100) > 0).astype(int)
    with pytest.warns(ConvergenceWarning, match="max_iter=5"):
        LogisticRegression(max_iter=5).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        LogisticRegression().fit(X, y)  # the default converges silently


@pytest.mark.parametrize("n_classes", [2, 3])
def test_logistic_regression_keeps_sparse_x_sparse(n_classes):
    """1000 × 10k with 5k non-zeros: the dense copy would be 80 MB; fit and predict allocate a
    few MB (the issue's 2000 × 100k took 1.7 GB), with the dense fit's answer."""
    rng = np.random.default_rng(3)
    X = sp.random(1000, 10_000, density=5e-4, format="csr", random_state=3)
    y = rng.integers(0, n_classes, 1000)
    model = LogisticRegression(max_iter=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        peak = _peak_bytes(lambda: model.fit(X, y).predict_proba(X))
    assert peak < 20e6, f"{peak / 1e6:.0f} MB"
    small = X[:, :50]
    dense = LogisticRegression().fit(small.toarray(), y)
    sparse = LogisticRegression().fit(small, y)
    # the sparse and dense products round differently, so L-BFGS ends its line searches at
    # slightly different points of the same flat optimum
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-5)
    np.testing.assert_allclose(sparse.predict_proba(small), dense.predict_proba(small.toarray()), atol=1e-6)


def test_logistic_regression_pymc_model_on_sparse_rows_has_the_dense_log_density():
    rng = np.random.default_rng(4)
    X = sp.random(40, 5, density=0.3, format="csr", random_state=4)
    y = rng.integers(0, 3, 40)
    model = LogisticRegression().fit(X, y)
    sparse_model, dense_model = model.pymc_model(X=X, y=y), model.pymc_model(X=X.toarray(), y=y)
    point = {name: value + rng.normal(size=value.shape) for name, value in dense_model.initial_point().items()}
    sparse_value, dense_value = (
        m.compile_fn([m.logp(), m.dlogp()], mode="FAST_COMPILE")(point) for m in (sparse_model, dense_model)
    )
    assert sparse_value[0] == pytest.approx(dense_value[0], rel=1e-12)
    np.testing.assert_allclose(sparse_value[1], dense_value[1], rtol=1e-10)


# ---------------------------------------------------------------------- a nominal column with no value
ALL_MISSING = pd.DataFrame({"gone": [None] * 6, "b": list("xyxyxx"), "c": list("ppqqpq")}, dtype=object)
Y6 = np.array([0, 1, 0, 1, 1, 0])


@pytest.mark.parametrize("Model", [CategoricalNB, SPODE, AODE, TAN])
def test_a_column_missing_in_every_row_is_named(Model):
    with pytest.raises(ValueError, match="column 'gone' has no value to model: it is missing in every row"):
        Model().fit(ALL_MISSING, Y6)


@pytest.mark.parametrize(
    "Model, params", [(CategoricalNB, {}), (AODE, {}), (SPODE, {"parent": "b"}), (TAN, {"root": "b"})]
)
def test_a_declared_column_missing_in_every_row_has_prior_mass_only(Model, params):
    """Declared values: the column is modelled, with no count; missing at prediction too, it is
    skipped, so the model predicts as it does without the column."""
    declared = ALL_MISSING.assign(gone=pd.Categorical([None] * 6, categories=["u", "v"]))
    model = Model(**params).fit(declared, Y6)
    assert model.n_categories_.tolist() == [2, 2, 2]
    without = Model(**params).fit(ALL_MISSING[["b", "c"]], Y6)
    np.testing.assert_allclose(
        model.predict_proba(declared), without.predict_proba(ALL_MISSING[["b", "c"]]), rtol=1e-12
    )


# ---------------------------------------------------------------------- memory of the semi-naive models
def _wide(n_attributes, n_values, n_rows, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_values, size=(n_rows, n_attributes)), rng.integers(0, 2, n_rows)


def test_spode_counts_only_its_super_parents_rows():
    """K × r_a × T', not K × T'²: 500 attributes × 50 values is 20 MB, not 10 GB, and the
    counts are the AODE tensor's rows of the parent."""
    X, y = _wide(500, 50, 60)
    model = SPODE(parent=3, n_categories=50).fit(X, y)
    assert model.pair_count_.shape == (2, 50, 500 * 51)
    small_X, small_y = _wide(6, 3, 80, seed=1)
    aode = AODE().fit(small_X, small_y)
    spode = SPODE(parent=2).fit(small_X, small_y)
    np.testing.assert_array_equal(spode.pair_count_, aode.pair_count_[:, aode._layout.pair_cells(2)])
    np.testing.assert_allclose(spode.predict_proba(small_X), aode.spode(2).predict_proba(small_X), rtol=1e-12)


def test_spode_memory_scales_with_its_parent_not_with_all_pairs():
    X, y = _wide(200, 20, 300)  # T' = 4200: the full tensor would be 2 × 4200² × 8 B = 282 MB
    peak = _peak_bytes(lambda: SPODE(parent=0, n_categories=20).fit(X, y).predict_proba(X))
    assert peak < 60e6, f"{peak / 1e6:.0f} MB"


def test_spode_refuses_a_parent_changed_after_fit():
    X, y = _wide(4, 3, 30)
    model = SPODE(parent=0).fit(X, y)
    with pytest.raises(
        ValueError, match=r"parent=2 differs from the super-parent the counts were made for \('x0'\): fit again"
    ):
        model.set_params(parent=2).predict(X)


def test_tan_prediction_does_not_copy_the_pair_tensor():
    """The pair tensor (2 × 1260² floats, 25 MB) is read through views: scoring 2000 rows
    allocates a small fraction of it (it used to copy it per attribute per block)."""
    X, y = _wide(60, 20, 2000)
    model = TAN(n_categories=20).fit(X, y)
    tensor = model.pair_count_.nbytes
    peak = _peak_bytes(lambda: model.predict_proba(X))
    assert peak < tensor / 4, f"{peak / 1e6:.1f} MB for a {tensor / 1e6:.0f} MB tensor"


def test_a_pair_tensor_that_cannot_fit_is_refused_with_its_size():
    """2000 attributes × 1000 declared values: AODE's tensor would be 2 × 2002000² floats
    (64 TB). Refused before anything is allocated, with the size and the remedies."""
    X, y = np.zeros((2, 2000), dtype=int), [0, 1]
    for Model in (AODE, TAN):
        with pytest.raises(
            ValueError,
            match=r"pair counts, a 2 × 2002000 × 2002000 tensor .* needs [\d.e+]+ GiB of memory, more than the",
        ):
            Model(n_categories=1000).fit(X, y)


def test_the_memory_check_refuses_beyond_the_available_memory(monkeypatch):
    monkeypatch.setattr(_pairs, "available_memory", lambda max_age=None: 1_000_000)
    X, y = _wide(10, 5, 20)  # T' = 60: 2 × 60 × 60 floats held 7 times = 403 kB fits in 1 MB
    AODE(n_categories=5).fit(X, y)
    X, y = _wide(20, 5, 20)  # T' = 120: 1.6 MB does not
    with pytest.raises(ValueError, match="more than the 0.000931 GiB available; use fewer attributes or values"):
        AODE(n_categories=5).fit(X, y)


# ---------------------------------------------------------------------- discretizer labels
@pytest.mark.parametrize("Discretizer", [EqualWidthDiscretizer, EqualFrequencyDiscretizer, MDLDiscretizer])
@pytest.mark.parametrize("scale", [1e-7, 1e-12, 1e-300])
def test_interval_labels_stay_distinct_at_small_scales(Discretizer, scale):
    """Rounded to 6 decimals, every cut point of a column of sd 1e-7 is 0: the labels collided."""
    rng = np.random.default_rng(6)
    values = rng.normal(size=300)
    y = (values > 0.3).astype(int)
    out = Discretizer().fit(values[:, None] * scale, y).transform(values[:, None] * scale)[0]
    labels = list(out.cat.categories)
    assert len(labels) == len(set(labels)) >= 2
    reference = Discretizer().fit(values[:, None], y).transform(values[:, None])[0]
    np.testing.assert_array_equal(out.cat.codes, reference.cat.codes)  # the same bins as unscaled


@pytest.mark.parametrize("estimate", ["mean", "mle"])
def test_sparse_and_dense_scoring_products_agree(estimate, weather, monkeypatch):
    """Attributes with many values are scored by a sparse one-hot product, others by a dense
    one: the same sums, zero probabilities (the MLE's −inf) and missing values included."""
    from pgm_models.semi_naive import _base

    X, y = weather
    X = X.copy()
    X.iloc[[2, 5], 1] = None
    X.iloc[[3, 9], 0] = None
    results = {}
    for ratio in (0, 10**9):  # every model sparse, every model dense
        monkeypatch.setattr(_base, "SPARSE_DESIGN_RATIO", ratio)
        results[ratio] = [Model(estimate=estimate).fit(X, y).predict_joint_log_proba(X) for Model in (AODE, SPODE)]
    for sparse, dense in zip(results[0], results[10**9]):
        assert np.array_equal(np.isneginf(sparse), np.isneginf(dense))
        np.testing.assert_allclose(sparse, dense, rtol=1e-12)
    assert estimate == "mean" or np.isneginf(results[0][0]).any()  # the MLE has zero probabilities
