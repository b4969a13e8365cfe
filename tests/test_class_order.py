"""classes_ is sorted, as scikit-learn's, whatever order the classes were declared in: its
metrics read probability columns in sorted label order (a declared order misaligned them:
credit-g's {good, bad} gave a cross-validated log loss of 2.09 instead of 0.596)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import get_scorer, log_loss
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB

import pgm_models
from pgm_models._utils.validation import sorted_classes

X = np.array([[0, 1], [1, 1], [1, 0], [0, 0], [1, 1], [0, 1], [1, 0]])
LABELS = ["good", "bad", "good", "good", "bad", "good", "bad"]


def declared(order):
    return pd.Series(pd.Categorical(LABELS, categories=order))


@pytest.mark.parametrize(
    "name",
    [
        "CategoricalNB",
        "BernoulliNB",
        "MultinomialNB",
        "GaussianNB",
        "LDA",
        "QDA",
        "SPODE",
        "AODE",
        "TAN",
        "MixedNB",
        "LogisticRegression",
    ],
)
def test_a_declared_order_gives_sorted_classes_and_the_same_probability_columns(name):
    X_used = pd.DataFrame(X, columns=["a", "b"]).astype(float) if name in ("GaussianNB", "LDA", "QDA") else X
    if name == "MixedNB":
        X_used = pd.DataFrame({"a": pd.Categorical(X[:, 0]), "b": X[:, 1].astype(float) + np.arange(7) / 7})
    kwargs = {"reg_param": 0.5} if name == "QDA" else {}
    unsorted = getattr(pgm_models, name)(**kwargs).fit(X_used, declared(["good", "bad"]))
    plain = getattr(pgm_models, name)(**kwargs).fit(X_used, np.array(LABELS))
    assert unsorted.classes_.tolist() == ["bad", "good"]
    np.testing.assert_allclose(unsorted.predict_proba(X_used), plain.predict_proba(X_used), rtol=1e-10, atol=1e-12)
    # scikit-learn's scorer reads the columns in sorted order: the same number as the plain fit
    scorer = get_scorer("neg_log_loss")
    assert scorer(unsorted, X_used, declared(["good", "bad"])) == pytest.approx(
        scorer(plain, X_used, np.array(LABELS)), rel=1e-12
    )


def test_a_declared_but_unseen_class_stays_in_the_domain_in_sorted_place():
    model = pgm_models.CategoricalNB().fit(X, declared(["zebra", "good", "bad"]))
    assert model.classes_.tolist() == ["bad", "good", "zebra"]
    assert model.class_count_.tolist() == [3, 4, 0]


def test_partial_fit_sorts_the_classes_it_is_given_and_accepts_them_again_in_any_order():
    model = pgm_models.CategoricalNB(n_categories=2).partial_fit(X[:3], LABELS[:3], classes=["good", "bad"])
    assert model.classes_.tolist() == ["bad", "good"]
    model.partial_fit(X[3:], LABELS[3:], classes=["good", "bad"])
    reference = pgm_models.CategoricalNB(n_categories=2).fit(X, LABELS)
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X), rtol=1e-12)
    # and scikit-learn's CategoricalNB (alpha = 1, unsmoothed class prior) gives the same columns
    sk = SkCategoricalNB(alpha=1.0).fit(X, LABELS)
    ours = pgm_models.CategoricalNB(n_categories=2, class_alpha=0).partial_fit(X, LABELS, classes=["good", "bad"])
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), rtol=1e-12)
    with pytest.raises(ValueError, match="differs from classes_"):
        model.partial_fit(X, LABELS, classes=["good", "bad", "ugly"])


def test_log_loss_with_labels_matches_for_unsorted_declared_classes():
    model = pgm_models.CategoricalNB().fit(X, declared(["good", "bad"]))
    expected = -np.mean(
        np.log(model.predict_proba(X)[np.arange(7), [model.classes_.tolist().index(v) for v in LABELS]])
    )
    assert log_loss(LABELS, model.predict_proba(X)) == pytest.approx(expected, rel=1e-12)


def test_sorted_classes_keeps_unsortable_mixed_labels_in_their_order():
    assert sorted_classes(np.array(["b", "a", "c"])).tolist() == ["a", "b", "c"]
    assert sorted_classes(np.array([3, 1, 2])).tolist() == [1, 2, 3]
    assert sorted_classes(np.array([1, "a"], dtype=object)).tolist() == [1, "a"]
