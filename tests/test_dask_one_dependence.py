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


def test_dask_fit_of_a2de_on_two_attributes_keeps_its_absent_triples(client):  # noqa: F811
    """Two attributes: A2DE counts no triples (``triple_count_`` None); the blocks' statistics merge
    with it absent (a zeroed template made it a 0-d object array, and adding None to it failed)."""
    X, y = load_dataset("textbook-15")
    X_dask, y_dask = _frames(X, y, 3)
    fitted = A2DE().fit(X_dask, y_dask)
    assert fitted.triple_count_ is None
    assert_same_fit(A2DE().fit(X, y), fitted, X, X_dask)
