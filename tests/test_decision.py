"""The Bayes decision rule."""

import numpy as np
import pytest

from pgm_models import CategoricalNB
from pgm_models._utils.decision import bayes_decision, check_loss, expected_loss

PROBA = np.array([[0.7, 0.3], [0.2, 0.8], [0.55, 0.45]])


def test_zero_one_loss_is_the_most_probable_class():
    zero_one = 1 - np.eye(2)
    np.testing.assert_array_equal(bayes_decision(PROBA), [0, 1, 0])
    np.testing.assert_array_equal(bayes_decision(PROBA, zero_one), [0, 1, 0])


def test_asymmetric_loss_changes_the_decision():
    # Missing class 1 when it is the truth costs 4: decide 1 once P(1 | x) > 1/5.
    loss = np.array([[0.0, 4.0], [1.0, 0.0]])
    np.testing.assert_allclose(expected_loss(PROBA, loss), [[1.2, 0.7], [3.2, 0.2], [1.8, 0.55]])
    np.testing.assert_array_equal(bayes_decision(PROBA, loss), [1, 1, 1])


def test_estimator_predict_uses_the_loss_matrix(weather):
    X, y = weather
    model = CategoricalNB().fit(X, y)
    proba = model.predict_proba(X)
    yes, no = list(model.classes_).index("yes"), list(model.classes_).index("no")
    loss = np.zeros((2, 2))
    loss[yes, no] = 10.0  # deciding "yes" when the truth is "no" is costly
    loss[no, yes] = 1.0
    decided = model.predict(X, loss=loss)
    expected = np.where(10 * proba[:, no] < proba[:, yes], "yes", "no")
    np.testing.assert_array_equal(decided, expected)
    assert (decided != model.predict(X)).any()


@pytest.mark.parametrize(
    "loss, message",
    [
        (np.ones((3, 3)), r"shape \(3, 3\); expected \(2, 2\)"),
        ([[0, -1], [1, 0]], r"\[0, 1\] = -1.0 is negative"),
        ([[0, np.nan], [1, 0]], "NaN or infinite"),
    ],
)
def test_bad_loss_matrix_is_rejected(loss, message):
    with pytest.raises(ValueError, match=message):
        check_loss(loss, 2)
