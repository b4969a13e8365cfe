"""Issue 13, round 6: blocks the workers already hold (persisted dask arrays) are counted where
they lie, one task per worker thread; workers and the benchmark's in-memory process get the same
fixed malloc thresholds (``dask_engine.ALLOCATOR``); a block's template is started once per set of
classes. Every fit is checked against the in-memory fit of the same rows, on a cluster of 2 worker
processes × 2 threads started by ``dask_engine.local_cluster``."""

from __future__ import annotations

import logging
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
import dask.array as da  # noqa: E402
from distributed import Client, get_task_stream, wait  # noqa: E402
from test_dask import assert_same_fit  # noqa: E402

from pgm_models import AODE, CategoricalNB, GaussianNB  # noqa: E402
from pgm_models.dask_engine import engine as dask_engine  # noqa: E402

N_ROWS, N_BLOCKS = 3_000, 12


@pytest.fixture(scope="module")
def client():
    tunables = os.environ.get("GLIBC_TUNABLES")
    with (
        dask_engine.local_cluster(
            n_workers=2, threads_per_worker=2, dashboard_address=":0", silence_logs=logging.ERROR
        ) as cluster,
        Client(cluster) as client,
    ):
        assert (
            os.environ.get("GLIBC_TUNABLES") == tunables
        )  # the workers' setting is not left to this process's subprocesses
        yield client


def placed(client, arrays, n_blocks=N_BLOCKS):
    """The arrays as persisted dask arrays of ``n_blocks`` blocks, block i of every array made
    by a task on worker i mod 2 (a worker that dies takes its blocks along; the scheduler can
    make them again)."""
    workers = sorted(client.scheduler_info()["workers"])
    bounds = np.linspace(0, len(arrays[0]), n_blocks + 1).astype(int)
    columns = []
    for a in arrays:
        parts = [a[bounds[i] : bounds[i + 1]] for i in range(n_blocks)]
        futures = [client.submit(np.array, p, workers=[workers[i % 2]], pure=False) for i, p in enumerate(parts)]
        columns.append(da.concatenate([da.from_delayed(f, p.shape, p.dtype) for f, p in zip(futures, parts)]))
    persisted = dask.persist(*columns)
    wait(list(persisted))
    return persisted


def data(seed=21):
    """int8 codes of 5 attributes (4 values), string labels sorted so that most blocks lack a
    class, weights with zeros."""
    rng = np.random.default_rng(seed)
    y = np.sort(rng.choice(["ant", "bee", "cat"], N_ROWS, p=[0.5, 0.3, 0.2]))
    X = ((rng.integers(0, 4, (N_ROWS, 5)) + (y == "bee")[:, None]) % 4).astype(np.int8)
    weight = np.where(rng.random(N_ROWS) < 0.1, 0.0, 1.0 + np.arange(N_ROWS) % 3)
    return X, y, weight


def _environ(name):
    return os.environ.get(name)  # in the worker (os.environ.get itself would carry this process's environment along)


def _refaults_of_counting_a_block():
    """Page faults of this thread while counting a block of 450 000 rows (3 slices) a second time."""
    from benchmarks.dask_scaling import make_block

    X, y = make_block(0, 450_000)
    template = dask_engine._Unstarted(CategoricalNB(n_categories=4), X[:1])
    dask_engine._counted_block(template, X, y, None)
    before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    dask_engine._counted_block(template, X, y, None)
    return resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before


_BENCHMARK_PROCESS = """
import threading
from benchmarks.dask_scaling import use_worker_allocator
from test_dask_persisted_blocks import _refaults_of_counting_a_block
use_worker_allocator()
faults = []
counting = threading.Thread(target=lambda: faults.append(_refaults_of_counting_a_block()))
counting.start()
counting.join()
print(faults[0])
"""


def test_workers_and_the_benchmark_process_count_a_block_without_faulting_its_temporaries_again(client):
    """glibc's defaults in a worker's task thread: 2 658 page faults for this block, every time
    (its slices' temporaries handed back and faulted in again); with ALLOCATOR's thresholds 0.
    The benchmark process is a fresh one, as ``benchmarks.dask_scaling`` starts (a test process
    that has run thousands of tests has a fragmented heap whatever its thresholds)."""
    tunables = "glibc.malloc.mmap_threshold=16777216:glibc.malloc.trim_threshold=33554432"
    assert set(client.run(_environ, "GLIBC_TUNABLES").values()) == {tunables}
    assert set(client.run(_environ, "MALLOC_TRIM_THRESHOLD_").values()) == {None}
    assert client.submit(_refaults_of_counting_a_block, pure=False).result() < 500
    root = Path(__file__).resolve().parents[1]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(root / "tests")])}
    environment.pop("GLIBC_TUNABLES", None)
    environment.pop("MALLOC_TRIM_THRESHOLD_", None)
    run = subprocess.run(
        [sys.executable, "-c", _BENCHMARK_PROCESS], env=environment, capture_output=True, text=True, check=True
    )
    assert int(run.stdout.split()[-1]) < 500


@pytest.mark.parametrize(
    "model", [CategoricalNB(n_categories=4), AODE(n_categories=4), GaussianNB()], ids=lambda m: type(m).__name__
)
def test_held_blocks_are_counted_where_they_lie_one_task_per_worker_thread(client, model):
    X, y, weight = data()
    X_dask, y_dask, w_dask = placed(client, [X, y, weight])
    assert dask_engine._held_blocks(X_dask, y_dask, w_dask) is not None
    with get_task_stream(client) as stream:
        fitted = dask_engine.fit(model.__class__(**model.get_params()), X_dask, y_dask, w_dask)
    tasks = stream.data
    # 6 blocks on each worker, split between its 2 threads: 4 tasks, each where its blocks are (no transfer)
    assert sorted(t["key"].split("-")[0] for t in tasks) == ["_counted_group"] * 4
    # a worker short of memory may read a spilled block back from its disk first: that is not a transfer
    actions = [s["action"] for t in tasks for s in t["startstops"] if s["action"] != "disk-read"]
    assert actions == ["compute"] * 4
    assert sorted(t["worker"] for t in tasks) == sorted(2 * list(client.scheduler_info()["workers"]))
    assert_same_fit(model.__class__(**model.get_params()).fit(X, y, sample_weight=weight), fitted, X, X_dask)


def test_blocks_not_all_held_are_counted_a_task_per_block(client):
    X, y, weight = data(22)
    (X_dask,) = placed(client, [X])
    y_dask = da.from_array(y, chunks=(X_dask.chunks[0],))  # not persisted: its blocks are made by the fit's graph
    assert dask_engine._held_blocks(X_dask, y_dask, None) is None
    assert dask_engine._held_blocks(X_dask.rechunk({0: 500}), da.from_array(y, chunks=500), None) is None
    with get_task_stream(client) as stream:
        fitted = CategoricalNB(n_categories=4).fit(X_dask, y_dask)
    names = [t["key"][0] if isinstance(t["key"], tuple) else t["key"] for t in stream.data]
    assert sum(n.startswith("_block_statistics") for n in names) == N_BLOCKS
    assert_same_fit(CategoricalNB(n_categories=4).fit(X, y), fitted, X, X_dask)


def test_worker_killed_while_counting_held_blocks_gives_the_same_result(client):
    """A worker dies while its group tasks count: the blocks it held are made again (from the
    persisted arrays' graph) and its groups counted elsewhere; nothing dropped or counted twice.
    (Blocks made by ``placed`` would not come back: the tasks that made them are released once
    persisted, so a fit of them waits forever, by a task per block as by a task per thread.)"""
    import signal

    X, y, _ = data(23)
    X_dask, y_dask = dask.persist(da.from_array(X, chunks=(250, -1)), da.from_array(y, chunks=250))
    wait([X_dask, y_dask])
    assert dask_engine._held_blocks(X_dask, y_dask, None) is not None
    result = {}
    fitting = threading.Thread(target=lambda: result.update(model=SlowCountNB(n_categories=4).fit(X_dask, y_dask)))
    fitting.start()
    deadline, counting = time.monotonic() + 60, []
    while not counting and time.monotonic() < deadline:
        counting = [
            w for w, keys in client.processing().items() if any(str(k).startswith("_counted_group") for k in keys)
        ]
        time.sleep(0.01)
    time.sleep(0.2)  # each group counts 3 blocks at ≥ 0.25 s each
    victim = counting[0]
    assert fitting.is_alive()
    os.kill(client.run(os.getpid, workers=[victim])[victim], signal.SIGKILL)
    fitting.join(timeout=300)
    client.wait_for_workers(2, timeout=120)
    assert victim not in client.scheduler_info()["workers"]
    assert_same_fit(CategoricalNB(n_categories=4).fit(X, y), result["model"], X, X_dask)


class SlowCountNB(CategoricalNB):
    """CategoricalNB whose every batch takes 0.25 s longer to count (pickled by reference: the
    workers import this module from the tests folder on their sys.path)."""

    def _count(self, encoded, class_index, weight):
        time.sleep(0.25)
        super()._count(encoded, class_index, weight)


def test_template_is_started_once_per_set_of_classes():
    rng = np.random.default_rng(24)
    template = dask_engine._Unstarted(CategoricalNB(n_categories=3), np.zeros((1, 4), np.int64))
    X = rng.integers(0, 3, (200, 4))
    first = dask_engine._counted_block(template, X[:100], np.array(["a", "b"] * 50), None)
    second = dask_engine._counted_block(template, X[100:], np.array(["b", "a"] * 50), None)  # the same classes
    other = dask_engine._counted_block(template, X[:100], np.array(["a", "c"] * 50), None)
    assert list(template._started) == [("<U1", ("a", "b")), ("<U1", ("a", "c"))]
    for model in template._started.values():  # counting started from a copy: the started templates stay zero
        assert not model.feature_count_.any() and not model.class_count_.any()
    labels = np.array(["a", "b"] * 50 + ["b", "a"] * 50)
    memory = CategoricalNB(n_categories=3).fit(X, labels)
    np.testing.assert_array_equal(
        first.statistics["feature_count_"] + second.statistics["feature_count_"], memory.feature_count_
    )
    np.testing.assert_array_equal(other.classes, ["a", "c"])
    np.testing.assert_array_equal(
        other.statistics["feature_count_"][0],
        CategoricalNB(n_categories=3).fit(X[:100:2], labels[:100:2]).feature_count_[0],
    )


def test_split_every_below_two_is_refused_before_held_blocks_are_submitted(client):
    """A merge of one part never shrinks the tree: on held blocks split_every=1 submitted merges
    without end (the per-block path already refused it)."""
    X, y, _ = data(25)
    X_dask, y_dask = placed(client, [X, y], n_blocks=4)
    keys_before = len(client.who_has())
    for split_every in (1, 0):
        with pytest.raises(ValueError, match=f"split_every must be ≥ 2, got {split_every}"):
            dask_engine.fit(CategoricalNB(n_categories=4), X_dask, y_dask, split_every=split_every)
    assert len(client.who_has()) == keys_before  # nothing was submitted


def test_a_dask_frame_with_a_repeated_categorical_column_name_says_so(client):
    import dask.dataframe as dd
    import pandas as pd

    frame = pd.DataFrame({"p": pd.Categorical(["a", "b", "a", "b"]), "q": pd.Categorical(["c", "c", "d", "d"])})
    X = dd.from_pandas(frame.set_axis(["p", "p"], axis=1), npartitions=2)
    with pytest.raises(ValueError, match=r"X has repeated column name\(s\) \['p'\]"):
        CategoricalNB().fit(X, dd.from_pandas(pd.Series(["u", "v", "u", "v"]), npartitions=2))
