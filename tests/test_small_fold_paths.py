"""Issue 16, the small folds: the cheaper paths give the general paths' numbers. Scoring one-hot
rows by look-ups is the sparse design's product to the last bit, counts by shifted cell keys are
the design's counts, the pair counts of class-ordered segments are each class's own product,
shared priors are keyed by everything they depend on, and the cheap fitted and concentration
checks answer as scikit-learn's and the array path do."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from pgm_models import AODE, CategoricalNB, MultinomialNB
from pgm_models._utils import shared_priors as _shared_priors
from pgm_models._utils.validation import check_concentration, check_fitted
from pgm_models.base import _shifted_exp
from pgm_models.conjugate import Dirichlet, normalize
from pgm_models.datasets import load_dataset
from pgm_models.discrete import one_hot as _one_hot
from pgm_models.discrete import pairs as _pairs
from pgm_models.discrete.one_hot import one_hot_log_sums
from pgm_models.discrete.pairs import PairLayout
from pgm_models.naive_bayes._discrete import class_weights, log_linear


def test_one_hot_log_sums_by_hand():
    """Attributes of 2 and 3 values; a missing code adds nothing, a zero probability gives −inf."""
    with np.errstate(divide="ignore"):
        log_table = np.log(np.array([[0.25, 0.75, 0.5, 0.25, 0.25], [0.5, 0.5, 0.0, 0.5, 0.5]]))
        expected = np.log([[0.25 * 0.25, 0.5 * 0.5], [0.75, 0.5], [1.0, 1.0], [0.75 * 0.5, 0.5 * 0.0]])
    codes = np.array([[0, 2], [1, -1], [-1, -1], [1, 0]])
    scores = one_hot_log_sums(log_table, codes, np.array([0, 2]))
    np.testing.assert_allclose(scores, expected, rtol=1e-15)
    assert scores[3, 1] == -np.inf and scores[2].tolist() == [0.0, 0.0]


def test_one_hot_log_sums_are_the_sparse_designs_product_bit_for_bit():
    rng = np.random.default_rng(3)
    sizes = np.array([3, 1, 4, 2, 5])
    offsets = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    codes = rng.integers(0, sizes, (200, len(sizes)))
    codes[rng.random(codes.shape) < 0.2] = -1
    log_table = np.log(rng.dirichlet(np.ones(sizes.sum()), 3))
    log_table[1, 4] = -np.inf  # a zero probability
    present = codes >= 0
    rows = np.repeat(np.arange(len(codes)), present.sum(axis=1))
    design = sp.csr_array((np.ones(rows.size), (rows, (codes + offsets)[present])), shape=(len(codes), sizes.sum()))
    expected = log_linear(design, log_table)
    scores = one_hot_log_sums(log_table, codes, offsets)
    assert np.array_equal(scores, expected) and np.isneginf(scores[:, 1]).any()


def test_categorical_nb_scores_the_same_by_look_ups_and_by_the_product(monkeypatch):
    """Vote's test rows (missing votes among them) score bit for bit the same below and above
    ``LOOKUP_VALUES``, under every point estimate (the MLE has zero probabilities)."""
    X, y = load_dataset("vote")
    for estimate in ("mean", "map", "mle"):
        model = CategoricalNB(estimate=estimate, alpha=0.5).fit(X.iloc[:400], y.iloc[:400])
        test = X.iloc[400:]
        assert test.size <= _one_hot.LOOKUP_VALUES and test.isna().to_numpy().any()
        looked_up = model.predict_joint_log_proba(test)
        monkeypatch.setattr(_one_hot, "LOOKUP_VALUES", 0)
        monkeypatch.setattr("pgm_models.naive_bayes.categorical.LOOKUP_VALUES", 0)
        assert np.array_equal(model.predict_joint_log_proba(test), looked_up)
        monkeypatch.undo()


def test_categorical_counts_are_the_designs_counts_over_several_blocks():
    """Shifted cell keys (no mask for missing codes) count what the one-hot design's weighted
    product counts: 9 000 rows of 8 attributes are 2 blocks, weights fractional."""
    rng = np.random.default_rng(4)
    sizes = [2, 3, 1, 4, 2, 2, 5, 3]
    X = pd.DataFrame(
        {
            f"a{j}": pd.Categorical.from_codes(np.where(rng.random(9000) < 0.1, -1, rng.integers(0, s, 9000)), range(s))
            for j, s in enumerate(sizes)
        }
    )
    y = rng.integers(0, 3, 9000)
    weight = rng.random(9000)
    model = CategoricalNB().fit(X, y, sample_weight=weight)
    codes = model._encode(X, reset=False, training=False)
    assert len(codes) > (1 << 16) // len(sizes)
    expected = class_weights(y, weight, 3).T @ model._design(codes)
    np.testing.assert_allclose(model.feature_count_, expected, rtol=1e-12, atol=0)
    unit = CategoricalNB().fit(X.iloc[:5000], y[:5000])  # unit weights, unweighted keys
    np.testing.assert_array_equal(
        unit.feature_count_, class_weights(y[:5000], np.ones(5000), 3).T @ unit._design(codes[:5000])
    )


@pytest.mark.parametrize("weights", ["unit", "whole", "fractional"])
def test_pair_counts_of_class_ordered_segments_are_each_classes_product(weights, monkeypatch):
    """Segments of at most 64 rows of a class, several to a buffer of 128 rows, spilling over
    buffers: each class's counts are Dᵀ diag(w) D of its own rows (float32 for whole weights,
    float64 for fractional)."""
    monkeypatch.setattr(_pairs, "FLOATS_PER_BLOCK", 128 * 12)
    rng = np.random.default_rng(5)
    layout = PairLayout([2, 3, 4])
    codes = rng.integers(0, layout.sizes, (500, 3))
    codes[rng.random(codes.shape) < 0.15] = -1
    class_index = rng.choice(3, 500, p=[0.1, 0.6, 0.3])
    weight = {"unit": np.ones(500), "whole": rng.integers(0, 4, 500).astype(float), "fractional": rng.random(500)}[
        weights
    ]
    counts = _pairs._products(
        codes, layout.starts, layout.missing_cells, layout.n_cells, slice(None), class_index, weight, 3
    )
    design = np.zeros((500, layout.n_cells))
    design[np.arange(500)[:, None], layout.cells(codes)] = 1.0
    for k in range(3):
        own = design[class_index == k]
        np.testing.assert_allclose(counts[k], own.T @ (own * weight[class_index == k][:, None]), rtol=1e-12, atol=1e-12)
    assert counts[0, 0, 0] == np.sum(weight[(class_index == 0) & (codes[:, 0] == 0)])  # hand: class 0 rows with x0 = 0


def test_same_attribute_blocks_cleared_by_hand():
    tables = np.arange(1.0, 73.0).reshape(2, 6, 6)
    PairLayout.of_sizes((2, 1, 3)).clear_same_attribute(tables)
    blocks = np.array([0, 0, 1, 2, 2, 2])
    expected = np.where(blocks[:, None] == blocks[None, :], 0.0, np.arange(1.0, 73.0).reshape(2, 6, 6))
    np.testing.assert_array_equal(tables, expected)


def test_dirichlet_keeps_its_own_block_sizes_and_their_starts():
    sizes = np.array([2, 3])
    prior = Dirichlet(np.array([1.0, 3.0, 1.0, 1.0, 2.0]), sizes)
    sizes[0] = 4  # the caller's array changes; the Dirichlet's blocks do not
    assert prior.block_sizes.tolist() == [2, 3] and not prior.block_sizes.flags.writeable
    np.testing.assert_allclose(prior.mean(), [0.25, 0.75, 0.25, 0.25, 0.5], rtol=1e-15)
    posterior = prior.posterior(np.array([1.0, 0.0, 0.0, 2.0, 0.0]))
    np.testing.assert_array_equal(posterior.mean(), normalize(posterior.concentration, np.array([2, 3])))
    np.testing.assert_allclose(posterior.total(), [5, 5, 6, 6, 6], rtol=0)


def test_folds_share_their_priors_keyed_by_classes_layout_and_alpha():
    X, y = load_dataset("vote")
    first, second = CategoricalNB().fit(X.iloc[:300], y.iloc[:300]), CategoricalNB().fit(X.iloc[100:], y.iloc[100:])
    assert first._feature_prior is second._feature_prior and first._class_prior is second._class_prior
    assert not first._feature_prior.concentration.flags.writeable
    two = CategoricalNB(alpha=2.0, class_alpha=0.5).fit(X, y)
    assert two._feature_prior is not first._feature_prior and two._class_prior is not first._class_prior
    assert np.all(two._feature_prior.concentration == 2.0) and np.all(two._class_prior.concentration == 0.5)
    per_attribute = CategoricalNB(alpha=np.arange(1.0, 17.0)).fit(X, y)
    assert (
        per_attribute._feature_prior.concentration[0, :2].tolist() == [1.0, 1.0]
        and per_attribute._feature_prior.concentration[0, -1] == 16.0
    )
    # a multinomial model of as many columns and classes has its own prior
    counts = MultinomialNB().fit(np.ones((4, 32)), [0, 1, 0, 1])
    assert counts._feature_prior is not first._feature_prior
    shared = first.predict_proba(X)
    _shared_priors.PRIORS.clear()
    np.testing.assert_array_equal(CategoricalNB().fit(X.iloc[:300], y.iloc[:300]).predict_proba(X), shared)


@pytest.mark.parametrize("Model", [CategoricalNB, AODE])
def test_fitted_check_answers_as_scikit_learns(Model):
    unfitted = Model()
    with pytest.raises(NotFittedError) as theirs:
        check_is_fitted(unfitted, "classes_")
    with pytest.raises(NotFittedError) as ours:
        check_fitted(unfitted, "classes_")
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(NotFittedError, match=f"This {Model.__name__} instance is not fitted yet"):
        unfitted.predict_proba(pd.DataFrame({"a": pd.Categorical(["x"])}))


@pytest.mark.parametrize("value", [0, 1, 2.5, 0.0, -0.0, 1e300])
def test_concentration_of_a_plain_number_is_the_array_paths(value):
    fast = check_concentration(value, "alpha")
    assert fast.shape == () and fast.dtype == float and fast == np.asarray(value, dtype=float)


@pytest.mark.parametrize("value", [-1, -0.5, float("nan"), float("inf"), True])
def test_concentration_of_a_bad_plain_number_is_refused_or_read_as_before(value):
    if value is True:  # a bool is not a plain int here: the array path reads it as 1.0, as before
        assert check_concentration(value, "alpha") == 1.0
        return
    with pytest.raises(ValueError, match="alpha must be finite and ≥ 0"):
        check_concentration(value, "alpha")


def test_shifted_exp_of_finite_rows_and_a_row_of_minus_infinity():
    scores = np.array([[np.log(0.2), np.log(0.6)], [-np.inf, -np.inf], [-1000.0, -1001.0]])
    _, exp, total = _shifted_exp(scores.copy())
    np.testing.assert_allclose(
        exp / total[:, None],
        [[0.25, 0.75], [0.5, 0.5], [1 / (1 + np.exp(-1)), np.exp(-1) / (1 + np.exp(-1))]],
        rtol=1e-15,
    )
    _, exp, total = _shifted_exp(scores[[0, 2]].copy())  # every peak finite: the one-reduction path
    np.testing.assert_allclose(
        exp / total[:, None], [[0.25, 0.75], [1 / (1 + np.exp(-1)), np.exp(-1) / (1 + np.exp(-1))]], rtol=1e-15
    )


def test_parameter_names_read_once_per_class_are_scikit_learns():
    """The zoo's estimators and discretizers give scikit-learn's names (those of ``__init__``,
    sorted), each call its own list, and get_params, set_params and clone work on them."""
    from sklearn.base import BaseEstimator, clone

    from pgm_models import SPODE, TAN
    from pgm_models.preprocessing.discretize import EqualWidthDiscretizer, MDLDiscretizer

    for cls in (CategoricalNB, AODE, SPODE, TAN, MultinomialNB, MDLDiscretizer, EqualWidthDiscretizer):
        names = cls._get_param_names()
        assert names == BaseEstimator._get_param_names.__func__(cls) and names is not cls._get_param_names()
    assert AODE._get_param_names() == [
        "alpha",
        "class_prior",
        "estimate",
        "estimator",
        "frequency_limit",
        "handle_unknown",
        "m",
        "n_categories",
        "temperature",
        "weights",
    ]
    model = clone(AODE(alpha=2.0).set_params(m=3.0))
    assert model.get_params()["alpha"] == 2.0 and model.get_params()["m"] == 3.0


def test_one_row_of_one_class_is_summed_attribute_after_attribute():
    """(F, 1, 1) look-ups are contiguous, which NumPy's sum adds pairwise: the look-ups must still
    add the attributes in order, as the sparse product does (found on random tables of 9–39
    attributes, where about half the pairwise sums differ in the last bits)."""
    rng = np.random.default_rng(7)
    for n_attributes in range(9, 40):
        log_table = np.log(rng.random((1, n_attributes)))
        codes = np.zeros((1, n_attributes), dtype=np.intp)
        in_order = 0.0
        for term in log_table[0]:
            in_order += term
        assert one_hot_log_sums(log_table, codes, np.arange(n_attributes))[0, 0] == in_order


def test_many_classes_score_by_the_product_where_the_look_ups_would_be_large(monkeypatch):
    """The look-ups' temporary is rows × attributes × classes: with 40 classes, 300 rows of 2
    attributes (600 values, far under the bound alone) are scored by the sparse product."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 3, (400, 2)), columns=["a", "b"]).astype("category")
    y = np.arange(400) % 40
    model = CategoricalNB().fit(X, y)
    expected = model.predict_joint_log_proba(X.iloc[:300])

    def refuse(*args):
        raise AssertionError("scored by look-ups")

    monkeypatch.setattr("pgm_models.naive_bayes.categorical.one_hot_log_sums", refuse)
    assert 300 * 2 * 40 > _one_hot.LOOKUP_VALUES >= 300 * 2
    np.testing.assert_array_equal(model.predict_joint_log_proba(X.iloc[:300]), expected)


def test_a_shared_prior_does_not_follow_a_users_array_changed_in_place():
    """A sweep that changes one class_alpha / alpha array in place between fits: another model
    fitted with the array's first values must get those values, not the changed ones."""
    _shared_priors.PRIORS.clear()
    X = pd.DataFrame({"a": pd.Categorical(["x", "y", "x", "z"])})
    y = np.array([0, 1, 2, 0])
    class_alpha = np.array([1.0, 1.0, 1.0])
    CategoricalNB(class_alpha=class_alpha).fit(X, y)
    class_alpha[0] = 200.0
    fitted = CategoricalNB(class_alpha=np.array([1.0, 1.0, 1.0])).fit(X, y)
    assert fitted.class_concentration_.tolist() == [3.0, 2.0, 2.0]  # counts 2, 1, 1 plus 1 each
    counts = np.array([[1, 0, 2], [0, 3, 1]])
    alpha = np.array([1.0, 1.0, 1.0])
    MultinomialNB(alpha=alpha).fit(counts, [0, 1])
    alpha[:] = 50.0
    fitted = MultinomialNB(alpha=np.array([1.0, 1.0, 1.0])).fit(counts, [0, 1])
    assert fitted.feature_concentration_.tolist() == [[2.0, 1.0, 3.0], [1.0, 4.0, 2.0]]


def test_a_subclass_outside_the_package_makes_its_own_prior():
    """A user's subclass may make its prior from parameters of its own, which no key names."""

    class BoostedNB(MultinomialNB):
        def __init__(self, *, alpha=1.0, boost=1.0):
            super().__init__(alpha=alpha)
            self.boost = boost

        def _prior_concentration(self, alpha):
            return self.boost * super()._prior_concentration(alpha)

    counts = np.array([[1, 0, 2], [0, 3, 1]])
    assert BoostedNB(boost=1.0).fit(counts, [0, 1]).feature_concentration_[0].tolist() == [2.0, 1.0, 3.0]
    assert BoostedNB(boost=100.0).fit(counts, [0, 1]).feature_concentration_[0].tolist() == [101.0, 100.0, 102.0]


def test_a_prior_with_large_hyperparameters_is_not_kept():
    """A per-feature alpha of 10 000 numbers (80 kB) is no small fold's: its prior is made afresh
    and the cache holds no reference to it."""
    _shared_priors.PRIORS.clear()
    alpha = np.ones(10_000)
    counts = np.ones((2, 10_000))
    MultinomialNB(alpha=alpha).fit(counts, [0, 1])
    assert not any(key[0] == "feature" for key in _shared_priors.PRIORS)
    MultinomialNB(alpha=alpha[:10]).fit(counts[:, :10], [0, 1])
    assert any(key[0] == "feature" for key in _shared_priors.PRIORS)


def test_parameter_names_of_a_replaced_init_are_read_again():
    class Scaled(MultinomialNB):
        pass

    assert "scale" not in Scaled._get_param_names()

    def __init__(self, *, alpha=1.0, scale=1.0):
        MultinomialNB.__init__(self, alpha=alpha)
        self.scale = scale

    Scaled.__init__ = __init__
    assert "scale" in Scaled._get_param_names()
    assert Scaled().set_params(scale=3).scale == 3


def test_the_categorical_domains_of_a_fit_leave_with_their_data():
    """A frame of Categoricals reuses the domains of an earlier fit of the same dtypes
    (naive_bayes._attributes._CATEGORICAL_DOMAINS), and holds its categories only as long as
    the dtypes live (review: 200 000 categories were kept after the data and model were gone)."""
    import gc
    import weakref

    from pgm_models import CategoricalNB
    from pgm_models.discrete import attributes as _attributes

    categories = [f"v{i}" for i in range(1000)]
    X = pd.DataFrame({"a": pd.Categorical.from_codes(np.arange(10) % 3, categories)})
    first = CategoricalNB().fit(X, np.arange(10) % 2)
    again = CategoricalNB().fit(X.iloc[:6], np.arange(6) % 2)  # the same dtype: the first fit's domain
    assert list(again.n_categories_) == list(first.n_categories_) == [1000] and again.categories_[0][999] == "v999"
    held = weakref.ref(X["a"].dtype)
    key = (id(X["a"].dtype),)
    assert key in _attributes._CATEGORICAL_DOMAINS
    del X, first, again
    gc.collect()
    assert held() is None and key not in _attributes._CATEGORICAL_DOMAINS
