"""MixedNB's count and categorical columns at their edges: counts bounded as the Gaussian columns
are (log x! of a larger count overflows to NaN), named with column and value; an all-missing
categorical column and an unseen value named as CategoricalNB names them."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from pgm_models import MixedNB
from pgm_models.conjugate.gamma import MAX_COUNT

Y = np.array([0, 0, 0, 1, 1, 1])


def _counts(big):
    return pd.DataFrame({"x": np.arange(6.0), "visits": [1.0, 2.0, 0.0, 3.0, big, 2.0]})


@pytest.mark.parametrize("big", [1e307, np.inf, 1e151])
def test_a_count_past_the_bound_is_refused_at_fit_and_prediction(big):
    message = r"column 'visits' is a poisson column and has a value that is not a count ≥ 0 and ≤ 1e\+150 .*: " + re.escape(str(big))
    with pytest.raises(ValueError, match=message):
        MixedNB(column_types={"visits": "poisson"}).fit(_counts(big), Y)
    model = MixedNB(column_types={"visits": "poisson"}).fit(_counts(4.0), Y)
    with pytest.raises(ValueError, match=r"column 'visits' is a poisson column and has a value that is not a count"):
        model.predict_proba(_counts(big))


@pytest.mark.parametrize("estimate", ["mean", "predictive", "mle"])
def test_the_largest_count_scores_finitely(estimate):
    model = MixedNB(column_types={"visits": "poisson"}, estimate=estimate).fit(_counts(MAX_COUNT), Y)
    log_proba = model.predict_log_proba(_counts(MAX_COUNT))
    assert np.isfinite(log_proba).all() or estimate == "mle"  # mle: a count impossible under a class is −inf there
    assert not np.isnan(log_proba).any()
    np.testing.assert_allclose(np.exp(log_proba).sum(axis=1), 1.0)
