"""BernoulliNB: Beta–Bernoulli closed form, scikit-learn agreement, binarize, the PyMC forms."""

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.naive_bayes as skl
from conftest import logp_at_random_points

from pgm_models import BernoulliNB


def test_beta_posterior_by_hand():
    X = np.array([[1, 0], [1, 1], [0, 0], [0, 1], [0, 1]])
    y = np.array(["a", "a", "a", "b", "b"])
    model = BernoulliNB(alpha=1, binarize=None).fit(X, y)
    np.testing.assert_array_equal(model.feature_count_, [[2, 1], [0, 2]])
    # class a: 3 rows, feature 0 present in 2 → Beta(1 + 2, 1 + 1)
    np.testing.assert_array_equal(model.feature_concentration_[0, 0], [2, 3])
    means = model.analytic_posterior("mean")["feature_prob"]
    np.testing.assert_allclose(means.values, [[3 / 5, 2 / 5], [1 / 4, 3 / 4]])
    sds = model.analytic_posterior("sd")["feature_prob"]
    assert float(sds[0, 0]) == pytest.approx(np.sqrt(3 * 2 / (5**2 * 6)))
    # P(x = (1, 0), a) = 4/7 · 3/5 · (1 − 2/5) with class_alpha = 1: (3 + 1)/(5 + 2)
    joint = np.exp(model.predict_joint_log_proba([[1, 0]]))[0, 0]
    assert joint == pytest.approx(4 / 7 * 3 / 5 * 3 / 5)


@pytest.mark.parametrize("alpha", [1.0, 0.5])
@pytest.mark.parametrize("sparse", [False, True])
def test_matches_scikit_learn_with_mle_class_prior(alpha, sparse):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 12))
    y = rng.integers(0, 3, 300)
    X_fit = sp.csr_matrix(np.maximum(X, 0)) if sparse else X
    ours = BernoulliNB(alpha=alpha, class_alpha=0, binarize=0.0).fit(X_fit, y)
    theirs = skl.BernoulliNB(alpha=alpha, binarize=0.0).fit(X_fit, y)
    np.testing.assert_allclose(ours.predict_proba(X_fit), theirs.predict_proba(X_fit), atol=1e-12)
    np.testing.assert_allclose(ours.predict_joint_log_proba(X_fit), theirs.predict_joint_log_proba(X_fit), atol=1e-9)


def test_binarize_threshold_and_already_binary_input():
    X = np.array([[0.2, 3.0], [0.9, 0.0], [0.7, 1.0]])
    y = [0, 1, 1]
    thresholded = BernoulliNB(binarize=0.5).fit(X, y)
    explicit = BernoulliNB(binarize=None).fit((X > 0.5).astype(int), y)
    np.testing.assert_array_equal(thresholded.feature_count_, explicit.feature_count_)
    with pytest.raises(ValueError, match="non-binary value 0.2 in column 0; binarize=None expects 0/1"):
        BernoulliNB(binarize=None).fit(X, y)


def test_alpha_zero_absent_and_present_both_count():
    X = np.array([[1, 0], [1, 1], [0, 1]])
    model = BernoulliNB(alpha=0, class_alpha=0, binarize=None).fit(X, [0, 0, 1])
    joint = model.predict_joint_log_proba(np.array([[1, 1], [0, 0], [1, 0]]))
    assert not np.isnan(joint).any()
    # class 1 never had feature 0: x0 = 1 is impossible there; class 0 always had it: x0 = 0 impossible
    np.testing.assert_array_equal(np.isneginf(joint), [[False, True], [True, True], [False, True]])


def test_counts_and_rows_forms_have_the_same_posterior(binary_data):
    X, y = binary_data
    model = BernoulliNB(binarize=None, alpha=2).fit(X, y)
    counts_model, rows_model = model.pymc_model("counts"), model.pymc_model("rows", X, y)
    assert counts_model.named_vars_to_dims["feature_prob"] == ("class", "feature")
    difference = logp_at_random_points(counts_model) - logp_at_random_points(rows_model)
    np.testing.assert_allclose(difference, difference[0], atol=1e-9)


def test_partial_fit_and_sparse_dense_agree(binary_data):
    X, y = binary_data
    whole = BernoulliNB(binarize=None).fit(X, y)
    chunked = BernoulliNB(binarize=None)
    for rows in np.array_split(np.arange(len(y)), 3):
        chunked.partial_fit(sp.csr_matrix(X[rows]), y[rows], classes=np.unique(y))
    np.testing.assert_allclose(chunked.predict_proba(X), whole.predict_proba(X))


@pytest.mark.parametrize("binarize", [0.0, 1.5])
def test_sparse_counts_binarized_like_dense_and_left_unchanged(binarize):
    """Counts above the threshold everywhere (binarize=0: the presence matrix reuses X's index
    arrays) and counts with entries at or below it (dropped from a copy): both as dense, X intact."""
    rng = np.random.default_rng(5)
    X = rng.poisson(0.6, size=(60, 9)).astype(float)
    y = rng.integers(0, 2, 60)
    X_sparse = sp.csr_array(X)
    copies = X_sparse.data.copy(), X_sparse.indices.copy(), X_sparse.indptr.copy()
    sparse_model = BernoulliNB(binarize=binarize).fit(X_sparse, y)
    dense_model = BernoulliNB(binarize=binarize).fit(X, y)
    np.testing.assert_array_equal(sparse_model.feature_count_, dense_model.feature_count_)
    np.testing.assert_array_equal(sparse_model.feature_count_, [(X[y == k] > binarize).sum(0) for k in (0, 1)])
    np.testing.assert_allclose(sparse_model.predict_proba(X_sparse), dense_model.predict_proba(X), rtol=1e-12)
    for before, after in zip(copies, (X_sparse.data, X_sparse.indices, X_sparse.indptr)):
        np.testing.assert_array_equal(before, after)
