"""The textbook worked examples, reproduced to the fraction."""

from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest

from pgm_models import CategoricalNB
from pgm_models.datasets import load_dataset


def probability_table(model):
    """{(attribute, value, class): posterior mean of P(value | class)}, read off the named
    closed-form posterior (with alpha = 0 the posterior mean is the MLE)."""
    means = model.analytic_posterior("mean")
    table = {}
    for attribute in ("X1", "X2"):
        probs = means[f"feature_prob_{attribute}"]
        for label in probs["class"].values:
            for value in probs[f"{attribute}_value"].values:
                table[(attribute, value, label)] = float(probs.sel({"class": label, f"{attribute}_value": value}))
    return table


def query(X, **values):
    return pd.DataFrame({c: pd.Categorical([values[c]], categories=X[c].cat.categories) for c in X.columns})


# Counts of the 15-sample example: Y=1 has 9 rows, Y=-1 has 6.
TEXTBOOK_COUNTS = {
    ("X1", "1", "1"): 2,
    ("X1", "2", "1"): 3,
    ("X1", "3", "1"): 4,
    ("X2", "S", "1"): 1,
    ("X2", "M", "1"): 4,
    ("X2", "L", "1"): 4,
    ("X1", "1", "-1"): 3,
    ("X1", "2", "-1"): 2,
    ("X1", "3", "-1"): 1,
    ("X2", "S", "-1"): 3,
    ("X2", "M", "-1"): 2,
    ("X2", "L", "-1"): 1,
}
CLASS_SIZE = {"1": 9, "-1": 6}


@pytest.mark.parametrize("smoothing", [0, 1, 2.5])
def test_textbook_15_every_table_entry(smoothing):
    """P(c_k) = (N_k+λ)/(N+Kλ), P(x_j = a | c_k) = (N_ka+λ)/(N_k+S_jλ); λ=0 is the MLE."""
    X, y = load_dataset("textbook-15")
    model = CategoricalNB(alpha=smoothing, class_alpha=smoothing).fit(X, y)
    lam = F(smoothing).limit_denominator()
    class_prob = model.analytic_posterior("mean")["class_prob"]
    for label in ("1", "-1"):
        assert float(class_prob.sel({"class": label})) == pytest.approx(
            float((CLASS_SIZE[label] + lam) / (15 + 2 * lam))
        )
    table = probability_table(model)
    for key, count in TEXTBOOK_COUNTS.items():
        expected = (count + lam) / (CLASS_SIZE[key[2]] + 3 * lam)
        assert table[key] == pytest.approx(float(expected)), key
    assert set(table) == set(TEXTBOOK_COUNTS)


def test_textbook_15_spot_values_from_the_book():
    X, y = load_dataset("textbook-15")
    assert probability_table(CategoricalNB(alpha=0, class_alpha=0).fit(X, y))[("X1", "1", "1")] == pytest.approx(2 / 9)
    assert probability_table(CategoricalNB(alpha=1, class_alpha=1).fit(X, y))[("X1", "1", "1")] == pytest.approx(3 / 12)


@pytest.mark.parametrize(
    "smoothing, scores", [(0, {"1": F(1, 45), "-1": F(1, 15)}), (1, {"1": F(5, 153), "-1": F(28, 459)})]
)
def test_textbook_15_query(smoothing, scores):
    X, y = load_dataset("textbook-15")
    model = CategoricalNB(alpha=smoothing, class_alpha=smoothing).fit(X, y)
    x = query(X, X1="2", X2="S")
    joint = np.exp(model.predict_joint_log_proba(x))[0]
    for k, label in enumerate(model.classes_):
        assert joint[k] == pytest.approx(float(scores[label]), rel=1e-12)
    assert model.predict(x)[0] == "-1"
    total = sum(scores.values())
    np.testing.assert_allclose(model.predict_proba(x)[0], [float(scores[c] / total) for c in model.classes_])


def test_mountain_climbing_mle():
    X, y = load_dataset("mountain-climbing")
    model = CategoricalNB(alpha=0, class_alpha=0).fit(X, y)
    yes = list(model.classes_).index("yes")
    assert float(model.analytic_posterior("mean")["class_prob"].sel({"class": "yes"})) == pytest.approx(4 / 9)
    joint = np.exp(model.predict_joint_log_proba(query(X, weather="sunny", temperature="low")))[0]
    # yes: 4/9 · 1/4 · 1/4 = 1/36;  no: 5/9 · 1/5 · 1/5 = 1/45
    assert joint[yes] == pytest.approx(1 / 36)
    assert joint[1 - yes] == pytest.approx(1 / 45)
    assert model.predict(query(X, weather="sunny", temperature="low"))[0] == "yes"
