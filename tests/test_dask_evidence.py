"""Learned ("evidence") hyperparameters on dask collections: the dask fit maximises the evidence
of the merged statistics, as the in-memory fit maximises it after counting, and so learns the same
values. (It used to leave alpha_ at its starting value 1.) The blocks run on the synchronous
scheduler, in this process."""

from __future__ import annotations

import numpy as np
import pytest

dask = pytest.importorskip("dask")
import dask.dataframe as dd  # noqa: E402

from pgm_models import AODE, LDA, TAN, CategoricalNB, GaussianNB  # noqa: E402
from pgm_models.datasets import load_dataset  # noqa: E402
from pgm_models.model_selection.evidence import use_evidence_priors  # noqa: E402


def _learned(model) -> dict:
    return {
        name: np.asarray(value, dtype=float)
        for name, value in vars(model).items()
        if name.endswith("_") and name[:-1] in model.get_params() and not name.startswith("_")
    }


@pytest.mark.parametrize(
    "make",
    [CategoricalNB, lambda: AODE(weights="bma"), TAN, GaussianNB, LDA],
    ids=["CategoricalNB", "AODE", "TAN", "GaussianNB", "LDA"],
)
def test_a_dask_fit_learns_the_evidence_hyperparameters_of_the_in_memory_fit(make):
    X, y = load_dataset("iris" if make in (GaussianNB, LDA) else "vote")
    memory, distributed = make(), make()
    assert use_evidence_priors(memory) and use_evidence_priors(distributed)
    memory.fit(X, y)
    with dask.config.set(scheduler="sync"):
        distributed.fit(dd.from_pandas(X, npartitions=3, sort=False), dd.from_pandas(y, npartitions=3, sort=False))
    learned = _learned(memory)
    assert learned and all(np.all(value != 1.0) for value in learned.values()), learned  # really learned, not the start
    for name, value in learned.items():
        np.testing.assert_allclose(getattr(distributed, name), value, rtol=1e-6, err_msg=name)
    np.testing.assert_allclose(distributed.predict_proba(X), memory.predict_proba(X), rtol=1e-6, atol=1e-9)
