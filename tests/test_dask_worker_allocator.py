"""Workers started by pgm_models keep glibc's adaptive allocator (dask's MALLOC_TRIM_THRESHOLD_
doubled the time of counting a block: pgm_models.dask_engine.engine.WORKER_CONFIG)."""

import logging
import os

import dask
import pytest

pytest.importorskip("distributed")

from distributed import Client  # noqa: E402

from pgm_models.dask_engine.engine import WORKER_CONFIG, local_cluster  # noqa: E402


def test_local_cluster_workers_do_not_get_dasks_malloc_trim_threshold(monkeypatch):
    assert dask.config.get("distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_") == 65536  # dask's default
    # what an earlier cluster's Nanny leaves in this process's environment (tests/test_dask.py's)
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    with (
        local_cluster(n_workers=1, threads_per_worker=1, dashboard_address=":0", silence_logs=logging.ERROR) as cluster,
        Client(cluster) as client,
    ):
        environ = client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_"))
        threads = client.run(lambda: os.environ.get("OPENBLAS_NUM_THREADS"))
    assert list(environ.values()) == [None]
    assert list(threads.values()) == ["1"]  # the rest of dask's worker environment stays
    assert (
        dask.config.get("distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_") == 65536
    )  # only for that cluster
    assert WORKER_CONFIG["distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"] is None
    assert os.environ["MALLOC_TRIM_THRESHOLD_"] == "65536"  # this process's environment is given back
