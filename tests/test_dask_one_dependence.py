"""The one-dependence models beyond AODE fitted on Dask collections equal their in-memory fits
(counts exactly, predictions to 1e-12): their statistics are ``*count_`` arrays."""

from __future__ import annotations

import pytest

pytest.importorskip("dask")
pytest.importorskip("distributed")

from test_dask import _frames, assert_same_fit, client  # noqa: F401  (the two-process cluster)

from pgm_models import A2DE, HNB, WAODE, AODEsr
from pgm_models.datasets import load_dataset

MODELS = [AODEsr(critical_value=5), WAODE(), HNB(), A2DE()]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: type(m).__name__)
def test_dask_fit_equals_in_memory_fit(client, model):  # noqa: F811
    X, y = load_dataset("breast-cancer")  # missing values
    X_dask, y_dask = _frames(X, y, 4)
    assert_same_fit(model.__class__(**model.get_params()).fit(X, y), model.fit(X_dask, y_dask), X, X_dask)
