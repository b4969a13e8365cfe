"""HierarchicalNB pickles after ``posterior_alpha``, whose compiled PyMC model and NUTS step it
caches for the next call: the copy leaves the cache out and makes it again."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from pgm_models import CategoricalNB
from pgm_models.naive_bayes.hierarchical import HierarchicalNB


@pytest.mark.nuts
def test_pickles_after_posterior_alpha(weather):
    model = HierarchicalNB(CategoricalNB(), draws=20, tune=20, chains=1).fit_counts(*weather)
    counts = model._layout()[2]
    draws = model.posterior_alpha(counts, 5, np.random.default_rng(0))
    assert draws.shape == (5, 1) and np.all(draws > 0)
    restored = pickle.loads(pickle.dumps(model))
    assert restored._simulation_model is None and "_simulation_step" not in vars(restored)
    again = restored.posterior_alpha(counts, 5, np.random.default_rng(0))  # the cache made anew on the copy
    assert again.shape == (5, 1) and np.all(again > 0)
    restored.alpha_draws_ = model.alpha_draws_ = np.array([[0.5], [2.0]])
    X = weather[0]
    np.testing.assert_array_equal(restored.predict_proba(X), model.predict_proba(X))
