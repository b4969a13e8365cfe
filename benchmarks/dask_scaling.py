"""Fitting on Dask: rows/s against workers, the overhead on small data, and out of core.

    python -m benchmarks.dask_scaling [--rows 1000000 4000000] [--memory-rows 10000000] [--ooc-rows 20000000]
                                      [--memory-limit 700MiB] [--write FILE]

Data: 10 attributes of 4 values and 3 classes, x_j = (u_j + y) mod 4 with u uniform, made block
by block by seeded tasks (never whole in one process, except for the in-memory baseline).

1. For each size in ``--rows``: CategoricalNB and AODE fitted in memory by this process (the
   generated blocks concatenated first, at most ``--memory-rows`` rows of them: the data that
   fits one process; the fit alone is timed), and on a LocalCluster of 1 and of 2
   single-threaded worker processes with the blocks already in the workers' memory, spread
   evenly over them (``placed_data``), the fit alone timed; peak RSS per worker during the
   fits. Both are given the same input (int8 attribute codes, int64 labels, whole blocks of
   the same seeds), and each repeat times an in-memory fit right before a dask fit, so that
   load from other processes falls on both alike; besides the best of each side, the median of each repeat's
   paired ratio, and two plain processes fitting the in-memory data at once (no Dask: the machine's own ceiling
   for two workers). The smallest size is the overhead case (the dask fit's time over the in-memory fit's).
2. Out of core: the workers write ``--ooc-rows`` rows as Parquet files (int64 columns, the
   data in memory larger than all workers' memory limits together), then fit from the files
   (``pgm_models.dask_engine.engine.read_table``) on 2 workers capped at ``--memory-limit`` each;
   peak RSS of each worker against the cap.

Every process runs BLAS single-threaded (threadpoolctl here, OPENBLAS_NUM_THREADS=1 etc. for the
workers), so one in-memory process is one core, as one worker is, and with the same malloc
thresholds (``pgm_models.dask_engine.engine.ALLOCATOR``: the workers by ``GLIBC_TUNABLES``, this process
by ``mallopt``). Timings: best of ``--repeats``.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import shutil
import tempfile
import time

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks import append_section, command_line

N_ATTRIBUTES, N_VALUES, N_CLASSES = 10, 4, 3
MODELS = ("CategoricalNB", "AODE")


def make_block(seed: int, n_rows: int, dtype="int8"):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, n_rows)
    X = ((rng.integers(0, N_VALUES, (n_rows, N_ATTRIBUTES)) + y[:, None]) % N_VALUES).astype(dtype)
    return X, y


def make_frame(seed: int, n_rows: int):
    import pandas as pd

    X, y = make_block(seed, n_rows, "int64")
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(N_ATTRIBUTES)]).assign(y=y)


def block_sizes(n_rows: int, n_blocks: int) -> list[int]:
    return [len(b) for b in np.array_split(np.arange(n_rows), n_blocks)]


def dask_data(n_rows: int, n_blocks: int):
    import dask
    import dask.array as da

    blocks = [dask.delayed(make_block, nout=2)(seed, size) for seed, size in enumerate(block_sizes(n_rows, n_blocks))]
    X = da.concatenate(
        [
            da.from_delayed(x, (size, N_ATTRIBUTES), np.int8)
            for (x, _), size in zip(blocks, block_sizes(n_rows, n_blocks))
        ]
    )
    y = da.concatenate(
        [da.from_delayed(v, (size,), np.int64) for (_, v), size in zip(blocks, block_sizes(n_rows, n_blocks))]
    )
    return X, y


def placed_data(client, n_rows: int, n_blocks: int):
    """``dask_data``'s blocks made and kept on the workers in turn (block i on worker i mod W,
    its X and y together): left to the scheduler, 16 blocks landed 10 and 6 on 2 workers
    in one run of three, which caps 2 workers at 1.6 times one before any counting."""
    import operator

    import dask
    import dask.array as da
    from distributed import wait

    workers = sorted(client.scheduler_info()["workers"])
    xs, ys = [], []
    for seed, size in enumerate(block_sizes(n_rows, n_blocks)):
        where = [workers[seed % len(workers)]]
        block = client.submit(make_block, seed, size, workers=where, pure=False)
        xs.append(
            da.from_delayed(client.submit(operator.itemgetter(0), block, workers=where), (size, N_ATTRIBUTES), np.int8)
        )
        ys.append(da.from_delayed(client.submit(operator.itemgetter(1), block, workers=where), (size,), np.int64))
        del block
    # the concatenation's keys of their own, each kept where its block is: tiny blocks would otherwise be
    # moved by work stealing (block i's key is (name, i, ...))
    with dask.annotate(workers=lambda key: [workers[key[1] % len(workers)]], allow_other_workers=False):
        X, y = da.concatenate(xs), da.concatenate(ys)
    X, y = dask.persist(X, y, optimize_graph=False)
    wait([X, y])
    return X, y


def first_rows(a, n: int = 1000):
    """The first ``n`` rows of every block of a dask array, as a dask array with a block on each
    worker that holds one of ``a``'s."""
    import dask.array as da

    return da.concatenate([a.blocks[i][:n] for i in range(a.numblocks[0])])


def memory_data(sizes: list[int]):
    """The in-memory baseline's data: blocks 0, 1, .. of ``sizes`` (the workers' first blocks), concatenated."""
    parts = [make_block(seed, size) for seed, size in enumerate(sizes)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def use_worker_allocator() -> None:
    """Give this process the workers' malloc thresholds (``dask_engine.ALLOCATOR``), so that the
    in-memory fit and the workers count with the same allocator (glibc's ``mallopt``)."""
    import ctypes

    from pgm_models.dask_engine.engine import ALLOCATOR

    option = {
        "glibc.malloc.mmap_threshold": -3,
        "glibc.malloc.trim_threshold": -1,
    }  # M_MMAP_THRESHOLD, M_TRIM_THRESHOLD
    libc = ctypes.CDLL(None)
    for name, value in ALLOCATOR.items():
        if libc.mallopt(option[name], value) != 1:
            raise OSError(f"mallopt refused {name}={value}")


def model(name: str):
    import pgm_models

    return getattr(pgm_models, name)(n_categories=N_VALUES)


def peak_mib() -> float:
    """This process's peak resident memory since the last reset_peak."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak() -> None:
    """Reset VmHWM to the current RSS (Linux: write 5 to /proc/self/clear_refs)."""
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")


def cluster(n_workers: int, memory_limit="auto"):
    from distributed import Client

    from pgm_models.dask_engine.engine import local_cluster

    local = local_cluster(
        n_workers=n_workers,
        threads_per_worker=1,
        memory_limit=memory_limit,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    )
    return local, Client(local)


def timed(name: str, X, y):
    """Seconds of one fit, and the fitted model."""
    start = time.perf_counter()
    fitted = model(name).fit(X, y)
    return time.perf_counter() - start, fitted


def timed_slices(name: str, X, y):
    """Seconds of one in-memory fit by ``partial_fit`` over slices of the rows, the slices a dask
    worker counts a block in (``dask_engine._slice_rows``), and the fitted model: what one process
    gains from slicing is no gain of the workers. The classes are found in y first, as ``fit``
    (and the dask fit) finds them; handed to it, it skipped the pass over y that both do."""
    import pandas as pd

    from pgm_models.dask_engine.engine import SLICE_VALUES, _slice_rows

    start = time.perf_counter()
    fitted, first = model(name), SLICE_VALUES // X.shape[1]
    fitted.partial_fit(X[:first], y[:first], classes=np.sort(pd.unique(y)))  # as fit finds them
    rows = _slice_rows(fitted, X.shape[1])
    for begin in range(first, len(y), rows):
        fitted.partial_fit(X[begin : begin + rows], y[begin : begin + rows])
    return time.perf_counter() - start, fitted


def throughput(n_rows: int, n_blocks: int, repeats: int, memory_rows: int) -> list[dict]:
    """Rows/s of the in-memory fit (on the first ``memory_rows`` rows at most: the data that fits
    one process; the faster of one ``fit`` and ``partial_fit`` over slices) and of dask fits of all ``n_rows`` on 1 and 2 workers, per model. Each repeat
    times an in-memory fit and then a dask fit, so that on a shared machine both meet the same
    load; every time is the best of its repeats (the in-memory one over both clusters)."""
    sizes = block_sizes(n_rows, n_blocks)
    # the first whole blocks, as many as fit in memory_rows (at least one): the same rows the workers make
    memory_sizes = sizes[: int((np.cumsum(sizes) <= max(memory_rows, sizes[0])).sum())]
    X_memory, y_memory = memory_data(memory_sizes)
    for name in MODELS:
        model(name).fit(X_memory[:1000], y_memory[:1000])  # warm: the imports and first-call costs
    whole = len(y_memory) == n_rows
    results = {
        name: {"model": name, "rows": n_rows, "memory_rows": len(y_memory), "memory_s": np.inf} for name in MODELS
    }
    for n_workers in (1, 2):
        local, client = cluster(n_workers)
        try:
            X, y = placed_data(client, n_rows, n_blocks)  # the blocks in the workers' memory before any timing
            for name in MODELS:
                # warm: every worker imports pgm_models and counts once (warming on one block left the other
                # worker's import, seconds, inside the first timed fit)
                model(name).fit(first_rows(X), first_rows(y))
                client.run(reset_peak)
                seconds, paired = [], []
                for _ in range(repeats):
                    memory_s, reference = timed(name, X_memory, y_memory)
                    sliced_s, sliced = timed_slices(name, X_memory, y_memory)
                    assert np.array_equal(sliced.class_count_, reference.class_count_)
                    results[name]["memory_s"] = min(results[name]["memory_s"], memory_s, sliced_s)
                    dask_s, fitted = timed(name, X, y)
                    seconds.append(dask_s)
                    # this repeat's dask rate over its own in-memory rate: both timed within seconds of each other
                    paired.append((n_rows / dask_s) / (len(y_memory) / min(memory_s, sliced_s)))
                    assert fitted.class_count_.sum() == n_rows
                    if whole:
                        assert np.array_equal(fitted.class_count_, reference.class_count_)  # the same fit
                results[name][f"dask{n_workers}_s"] = min(seconds)
                results[name][f"paired{n_workers}"] = float(np.median(paired))
                results[name][f"peak{n_workers}_mib"] = max(client.run(peak_mib).values())
        finally:
            client.close()
            local.close()
    for name in MODELS:
        rates = two_processes(name, memory_sizes, repeats)
        results[name]["two_processes"] = sum(rates) / (len(y_memory) / results[name]["memory_s"])
    return list(results.values())


def _fit_rate(name: str, sizes: list[int], barrier, queue, repeats: int) -> None:
    """A process of ``two_processes``: the in-memory baseline's data (blocks 0.. of ``sizes``), then after
    ``barrier`` the best of ``repeats`` fits, as rows/s on ``queue``."""
    use_worker_allocator()
    X, y = memory_data(sizes)
    model(name).fit(X[:1000], y[:1000])
    with threadpool_limits(1):
        barrier.wait()
        best = min(timed(name, X, y)[0] for _ in range(repeats))
    queue.put(len(y) / best)


def two_processes(name: str, sizes: list[int], repeats: int) -> list[float]:
    """Rows/s of each of two plain processes (no Dask) fitting the in-memory data at the same time: what
    this machine gives two single-threaded fits at once, the ceiling of two workers against one process."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    barrier, queue = context.Barrier(2), context.Queue()
    processes = [context.Process(target=_fit_rate, args=(name, sizes, barrier, queue, repeats)) for _ in range(2)]
    for process in processes:
        process.start()
    rates = [queue.get() for _ in processes]
    for process in processes:
        process.join()
    return rates


def out_of_core(n_rows: int, n_blocks: int, memory_limit: str) -> dict:
    """Write Parquet files from the workers, then fit from them on 2 capped workers."""
    import dask
    import dask.dataframe as dd
    from dask.utils import parse_bytes

    from pgm_models import dask_engine

    folder = tempfile.mkdtemp(prefix="pgm-models-dask-")
    try:
        local, client = cluster(2, memory_limit)
        try:
            sizes = block_sizes(n_rows, n_blocks)
            meta = make_frame(0, 1).iloc[:0]
            frames = dd.from_delayed(
                [dask.delayed(make_frame)(seed, size) for seed, size in enumerate(sizes)], meta=meta
            )
            frames.to_parquet(folder, write_index=False)
            X, y = dask_engine.read_table(os.path.join(folder, "*.parquet"), target="y")
            client.run(importlib.import_module, "pgm_models")  # warm: every worker imports pgm_models
            model("CategoricalNB").fit(X.partitions[:1], y.partitions[:1])
            client.run(reset_peak)
            pids = client.run(os.getpid)
            start = time.perf_counter()
            fitted = model("CategoricalNB").fit(X, y)
            seconds = time.perf_counter() - start
            peaks = client.run(peak_mib)
            restarts = client.run(os.getpid) != pids  # a worker killed for memory comes back with a new process
        finally:
            client.close()
            local.close()
        disk = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder)) / 2**20
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert fitted.class_count_.sum() == n_rows
    return {
        "rows": n_rows,
        "seconds": seconds,
        "data_mib": n_rows * (N_ATTRIBUTES + 1) * 8 / 2**20,
        "disk_mib": disk,
        "limit_mib": parse_bytes(memory_limit) / 2**20,
        "peaks": sorted(peaks.values()),
        "restarts": restarts,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows", type=int, nargs="+", default=[1_000_000, 4_000_000], help="sizes for the rows/s table"
    )
    parser.add_argument("--blocks", type=int, default=16, help="blocks of rows (dask chunks, Parquet files)")
    parser.add_argument(
        "--memory-rows",
        type=int,
        default=10_000_000,
        help="the in-memory baseline fits at most this many rows (the data that fits one process)",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--ooc-rows", type=int, default=20_000_000, help="rows of the out-of-core Parquet dataset (0: skip)"
    )
    parser.add_argument("--ooc-blocks", type=int, default=64, help="Parquet files of the out-of-core dataset")
    parser.add_argument("--memory-limit", default="700MiB", help="memory limit of each worker in the out-of-core fit")
    parser.add_argument("--write", help="append the Markdown tables to this file")
    args = parser.parse_args(argv)
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = "1"  # inherited by the worker processes started below
    use_worker_allocator()
    with threadpool_limits(1):
        return _run(args, argv)


def _run(args, argv) -> int:
    command = command_line("dask_scaling", argv)
    lines = [
        "",
        f"## Dask: rows/s against workers ({N_ATTRIBUTES} attributes × {N_VALUES} values, {N_CLASSES} classes, "
        f"{args.blocks} blocks)",
        "",
        f"Command: `{command}`",
        "",
        "Workers: `pgm_models.dask_engine.engine.local_cluster` (malloc thresholds `dask_engine.ALLOCATOR`, not dask's "
        "MALLOC_TRIM_THRESHOLD_=65536, which doubled a block's counting time; the in-memory process gets the same "
        "thresholds). "
        f"In memory: one process, the fit alone, on the first {args.memory_rows:,} rows at most, the faster of one `fit` "
        "and `partial_fit` over the slices a worker counts a block in (larger sizes are "
        "made only block by block on the workers and never held by one process; the rate is rows/s of what it "
        "fitted). Dask: LocalCluster of single-threaded worker processes, the "
        "blocks already in the workers' memory (block i made on worker i mod W), the fit alone (blocks a worker holds are counted there, one task per worker thread). Both fit the same input (int8 codes, int64 "
        "labels); every repeat times an in-memory fit right before a dask fit (the same load on both), best of "
        f"{args.repeats} each. Paired: the median over the repeats of each dask fit's rate over the in-memory rate "
        "timed right before it (on a machine whose speed drifts, the best of each side alone can pair a fast spell "
        "with a slow one). 2 plain processes: two processes without Dask, each fitting the in-memory data at the same "
        "time (best of the repeats each), their rows/s together over the in-memory rate: the most two single-threaded "
        "fits get from this machine at once, the ceiling of the 2-worker ratio. Peak: the largest worker's peak RSS "
        "during the fits (its share of the blocks included).",
        "",
        "| model | rows | in memory (rows/s) | 1 worker (rows/s) | 2 workers (rows/s) | 2 workers / in memory | "
        "paired 1 / 2 workers ÷ in memory | 2 plain processes ÷ in memory | dask (2) time per row / in-memory | "
        "peak per worker, 1 / 2 workers (MiB) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n_rows in args.rows:
        for r in throughput(n_rows, args.blocks, args.repeats, args.memory_rows):
            rate = {k: n_rows / r[f"{k}_s"] for k in ("dask1", "dask2")} | {"memory": r["memory_rows"] / r["memory_s"]}
            lines.append(
                f"| {r['model']} | {n_rows:,} | {rate['memory']:,.0f} | {rate['dask1']:,.0f} | {rate['dask2']:,.0f} | "
                f"{rate['dask2'] / rate['memory']:.2f} | {r['paired1']:.2f} / {r['paired2']:.2f} | "
                f"{r['two_processes']:.2f} | "
                f"{rate['memory'] / rate['dask2']:.2f} | "
                f"{r['peak1_mib']:.0f} / {r['peak2_mib']:.0f} |"
            )
            print(lines[-1], flush=True)
    if args.ooc_rows:
        r = out_of_core(args.ooc_rows, args.ooc_blocks, args.memory_limit)
        lines += [
            "",
            f"Out of core: CategoricalNB from {args.ooc_blocks} Parquet files, 2 workers capped at {args.memory_limit} each:",
            "",
            "| rows | data in memory (MiB) | on disk (MiB) | worker limit (MiB) | peak RSS per worker (MiB) | seconds | rows/s | worker restarted |",
            "|---:|---:|---:|---:|---:|---:|---:|---|",
            f"| {r['rows']:,} | {r['data_mib']:,.0f} | {r['disk_mib']:,.0f} | {r['limit_mib']:.0f} | "
            f"{' / '.join(f'{p:.0f}' for p in r['peaks'])} | {r['seconds']:.1f} | {r['rows'] / r['seconds']:,.0f} | "
            f"{'yes' if r['restarts'] else 'no'} |",
        ]
        print(lines[-1], flush=True)
    if args.write:
        append_section(args.write, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
