"""The shortcuts taken for speed (issue 16) give what the general path gives."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

from pgm_models import AODE, LDA, BernoulliNB, CategoricalNB
from pgm_models._utils.validation import check_labels
from pgm_models.datasets import load_dataset


@pytest.mark.parametrize("estimate", ["mean", "map", "mle"])
@pytest.mark.parametrize("shift", [0.0, 1e6])
def test_lda_linear_posterior_equals_the_normalised_exact_joint(estimate, shift):
    """predict_log_proba takes the linear discriminants; predict_joint_log_proba is the exact
    density, whose class-independent terms normalising must cancel."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    X = rng.normal(size=(200, 4)) @ rng.normal(size=(4, 4)) + y[:, None] + shift
    model = LDA(estimate=estimate, reg_param=0.1).fit(X, y)
    joint = model.predict_joint_log_proba(X)
    np.testing.assert_allclose(model.predict_log_proba(X), joint - logsumexp(joint, axis=1, keepdims=True), atol=1e-7)
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("Model", [CategoricalNB, AODE])
def test_categorical_columns_encode_alike_whatever_their_dtype_object(Model):
    """A slice of the training frame (the fitted dtype itself), the same categories in a new
    dtype object, and the categories in another order all encode to the same values."""
    X, y = load_dataset("vote")
    model = Model().fit(X.iloc[:300], y.iloc[:300])
    test = X.iloc[300:]
    expected = model.predict_proba(test)
    rebuilt = pd.DataFrame(
        {c: pd.Categorical(np.asarray(test[c], dtype=object), categories=list(test[c].cat.categories)) for c in test}
    )
    reordered = pd.DataFrame({c: test[c].cat.reorder_categories(test[c].cat.categories[::-1]) for c in test})
    plain = test.astype(object)
    for other in (rebuilt, reordered, plain):
        np.testing.assert_allclose(model.predict_proba(other), expected, rtol=1e-12)


def test_categorical_labels_are_read_through_their_codes():
    y = pd.Series(pd.Categorical(["b", "a", "c", "a"], categories=["c", "b", "a", "d"]))
    assert check_labels(y).tolist() == ["b", "a", "c", "a"]
    with pytest.raises(ValueError, match="1 missing label"):
        check_labels(pd.Series(pd.Categorical(["b", None], categories=["a", "b"])))


def test_bernoulli_finds_a_non_binary_value_beyond_the_first_block():
    """The 0/1 check runs in blocks of 2^16 values: a 2 in a later block is still found."""
    X = (np.random.default_rng(1).random((3000, 50)) < 0.3).astype(float)
    X[2999, 49] = 2.0  # value 149 999, in the third block
    with pytest.raises(ValueError, match="non-binary value"):
        BernoulliNB(binarize=None).fit(X, np.arange(3000) % 2)
    X[2999, 49] = 1.0
    assert BernoulliNB(binarize=None).fit(X, np.arange(3000) % 2).feature_count_.sum() == X.sum()
