"""MultinomialNB: scikit-learn agreement, sparse text pipelines, the Dirichlet–multinomial predictive."""

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.naive_bayes as skl
from conftest import logp_at_random_points
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import make_pipeline

from pgm_models import ComplementNB, MultinomialNB
from pgm_models.datasets import load_dataset


@pytest.mark.parametrize("alpha", [1.0, 0.1])
def test_matches_scikit_learn_dense_and_sparse(alpha):
    rng = np.random.default_rng(9)
    X = rng.poisson(0.7, size=(200, 40)).astype(float)
    y = rng.integers(0, 3, 200)
    theirs = skl.MultinomialNB(alpha=alpha).fit(X, y)
    for X_fit in (X, sp.csr_matrix(X)):
        ours = MultinomialNB(alpha=alpha, class_alpha=0).fit(X_fit, y)
        np.testing.assert_allclose(ours.predict_proba(X_fit), theirs.predict_proba(X), atol=1e-12)
        np.testing.assert_allclose(ours.feature_count_, theirs.feature_count_)


def test_works_in_a_pipeline_with_count_vectorizer_on_reuters():
    X, y = load_dataset("reuters-grain-train")
    X_test, y_test = load_dataset("reuters-grain-test")
    pipeline = make_pipeline(CountVectorizer(), MultinomialNB()).fit(X["Text"], y)
    reference = make_pipeline(CountVectorizer(), skl.MultinomialNB(alpha=1.0)).fit(X["Text"], y)
    # class_alpha = 1 vs scikit-learn's MLE prior: a small shift, same decisions nearly everywhere
    agreement = np.mean(pipeline.predict(X_test["Text"]) == reference.predict(X_test["Text"]))
    assert agreement > 0.99
    ours, theirs = pipeline.score(X_test["Text"], y_test), reference.score(X_test["Text"], y_test)
    assert abs(ours - theirs) <= 0.01
    assert ours > y_test.value_counts(normalize=True).max()  # beats always guessing the majority


def test_predictive_is_dirichlet_multinomial_and_differs_when_a_word_repeats():
    X = np.array([[2, 0], [0, 1]])
    model = MultinomialNB(alpha=1, class_alpha=1).fit(X, [0, 1])
    # class 0: concentration (3, 1), A = 4. Document "w0 w0":
    repeat = np.array([[2, 0]])
    predictive = np.exp(model.predict_joint_log_proba(repeat, estimate="predictive"))[0, 0]
    plug_in = np.exp(model.predict_joint_log_proba(repeat, estimate="mean"))[0, 0]
    class_prob = 1 / 2  # one document per class: (1 + 1)/(2 + 2)
    assert predictive == pytest.approx(class_prob * 3 / 4 * 4 / 5)  # Pólya urn: 3/4 then 4/5
    assert plug_in == pytest.approx(class_prob * (3 / 4) ** 2)
    # two different words: the urn still grows, 3/4 · 1/5 against the plug-in 3/4 · 1/4
    mixed = np.exp(model.predict_joint_log_proba(np.array([[1, 1]]), estimate="predictive"))[0, 0]
    assert mixed == pytest.approx(class_prob * 3 / 4 * 1 / 5)
    # a one-word document: predictive and plug-in coincide
    one_word = np.array([[0, 1]])
    np.testing.assert_allclose(
        model.predict_joint_log_proba(one_word, estimate="predictive"), model.predict_joint_log_proba(one_word)
    )


def test_counts_and_rows_forms_have_the_same_posterior(count_data):
    X, y = count_data
    model = MultinomialNB(alpha=0.8).fit(X, y)
    counts_model, rows_model = model.pymc_model("counts"), model.pymc_model("rows", X, y)
    difference = logp_at_random_points(counts_model) - logp_at_random_points(rows_model)
    np.testing.assert_allclose(difference, difference[0], atol=1e-8)


def test_negative_counts_are_rejected_naming_the_column():
    X = np.array([[1.0, 2.0], [0.0, -3.0]])
    with pytest.raises(
        ValueError,
        match="negative value -3.0 in column 1; Negative values in data are not counts: MultinomialNB needs counts ≥ 0",
    ):
        MultinomialNB().fit(X, [0, 1])


def _softmax(joint):
    shifted = np.exp(joint - joint.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


# 5 classes: the K − 1 = 4 differences in one product, above DIFFERENCE_PRODUCTS
@pytest.mark.parametrize("n_classes", [1, 2, 4, 5])
@pytest.mark.parametrize(
    "make",
    [
        lambda: MultinomialNB(alpha=0.3),
        lambda: MultinomialNB(estimate="map", alpha=2.0),
        lambda: ComplementNB(),
        lambda: ComplementNB(norm=True, estimate="map", alpha=1.5),
    ],
    ids=["MultinomialNB", "MultinomialNB-map", "ComplementNB", "ComplementNB-norm-map"],
)
def test_plug_in_probabilities_from_class_differences_equal_the_joints(make, n_classes):
    """predict_proba scores the K − 1 differences of the class weights (a sparse X one difference at a
    time up to DIFFERENCE_PRODUCTS); the joint scores every class: the same probabilities to 1e-12,
    with sample weights and with a fixed class prior holding a 0."""
    from pgm_models.naive_bayes.multinomial import DIFFERENCE_PRODUCTS

    assert (n_classes - 1 <= DIFFERENCE_PRODUCTS) == (n_classes < 5)  # the classes straddle the threshold
    rng = np.random.default_rng(n_classes)
    X = rng.poisson(rng.gamma(0.5, 1.0, 30), size=(120, 30)).astype(float)
    y, weight = np.arange(120) % n_classes, rng.random(120) + 0.5
    priors = [None] if n_classes == 1 else [None, np.r_[0.0, np.full(n_classes - 1, 1 / (n_classes - 1))]]
    for X_in in (X, sp.csr_array(X), sp.csr_matrix(X)):
        for class_prior in priors:
            model = make().set_params(class_prior=class_prior).fit(X_in, y, sample_weight=weight)
            expected = _softmax(model.predict_joint_log_proba(X_in))
            np.testing.assert_allclose(model.predict_proba(X_in), expected, rtol=0, atol=1e-12)


def test_a_float64_csr_matrix_is_checked_for_canonical_format_once(monkeypatch):
    """The canonical-format flag is read from the caller's matrix, where scipy keeps it: predicting on
    the matrix a fit checked does not scan its indices again; duplicates are still summed (a copy)."""
    import scipy.sparse._compressed as compressed

    calls = []
    original = compressed.csr_has_canonical_format
    monkeypatch.setattr(compressed, "csr_has_canonical_format", lambda *a: calls.append(1) or original(*a))
    rng = np.random.default_rng(2)
    X = sp.csr_matrix(rng.poisson(1.0, size=(50, 8)).astype(float))
    model = MultinomialNB().fit(X, np.arange(50) % 2)
    model.predict_proba(X)
    assert len(calls) == 1
    duplicated = sp.csr_matrix(
        (np.r_[X.data, 1.0], np.r_[X.indices, 0], np.r_[X.indptr[:-1], X.nnz + 1]), shape=X.shape
    )
    dense = duplicated.toarray()
    np.testing.assert_allclose(model.predict_proba(duplicated), model.predict_proba(dense), atol=1e-14)
