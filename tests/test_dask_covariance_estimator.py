"""LDA/QDA with ``covariance_estimator`` refuse a dask collection before anything is computed,
naming Dask and the parameter (the refusal used to be the in-memory batches' "already had rows
from an earlier batch", raised from inside a block's task). The blocks run on the synchronous
scheduler, in this process."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.covariance import OAS

dask = pytest.importorskip("dask")
import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402

from pgm_models import LDA, QDA  # noqa: E402
from pgm_models.datasets import load_dataset  # noqa: E402


@pytest.mark.parametrize("Model", [LDA, QDA])
def test_covariance_estimator_refuses_dask_naming_dask_and_the_parameter(Model):
    X, y = load_dataset("iris")
    message = (
        f"{Model.__name__} cannot be fitted on a dask collection: covariance_estimator=OAS() is fitted to all rows "
        "of a class at once, and Dask fits from the merged statistics of blocks of rows: use shrinkage (a number "
        "or 'oas', which Dask merges exactly), or compute the collection first"
    )
    frames = dd.from_pandas(X, npartitions=3, sort=False), dd.from_pandas(y, npartitions=3, sort=False)
    arrays = da.from_array(X.to_numpy(), chunks=50), da.from_array(y.to_numpy(), chunks=50)
    with dask.config.set(scheduler="sync"):
        for X_dask, y_dask in (frames, arrays):
            model = Model(estimate="mle", covariance_estimator=OAS())
            with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
                model.fit(X_dask, y_dask)
            with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
                model.partial_fit(X_dask, y_dask, classes=np.unique(y))
            assert not hasattr(model, "classes_")  # refused before any counting
        # the remedy the message names: shrinkage="oas" fits on Dask as in memory
        memory = Model(estimate="mle", shrinkage="oas").fit(X, y)
        distributed = Model(estimate="mle", shrinkage="oas").fit(*frames)
        np.testing.assert_allclose(distributed.predict_proba(X), memory.predict_proba(X), rtol=1e-9, atol=1e-12)
    # in memory, batches keep their own message
    model = Model(estimate="mle", covariance_estimator=OAS()).partial_fit(X[:60], y[:60], classes=np.unique(y))
    with pytest.raises(ValueError, match="already had rows from an earlier batch"):
        model.partial_fit(X[40:], y[40:])
