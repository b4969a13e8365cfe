"""Large inputs' row blocks on threads (pgm_models._utils.threads, issue 39 item 3): the package's
n_jobs setting, the blocks, and every threaded model's fit and probabilities bit for bit the same at
one and two threads, and equal to the one-block path (the template's own scoring blocks, which
bound the semi-naive models' temporaries, run on threads too: AODE, TAN).
"""

import sys
import threading

import numba  # noqa: F401  (the compiled paths run once numba is loaded)
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from threadpoolctl import threadpool_limits

import pgm_models
from pgm_models import AODE, LDA, QDA, TAN, BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MixedNB, MultinomialNB
from pgm_models._utils import threads


# ------------------------------------------------------------------ settings
@pytest.mark.parametrize("bad", [0, -2, 1.5, "2", 1j, True, np.True_])
def test_n_jobs_refuses_what_is_not_none_minus_one_or_positive(bad):
    with pytest.raises((TypeError, ValueError), match="n_jobs must be None, -1 or a positive integer"):
        pgm_models.set_config(n_jobs=bad)
    with pytest.raises((TypeError, ValueError), match="n_jobs must be None, -1 or a positive integer"):
        with pgm_models.config_context(n_jobs=bad):
            pass
    assert pgm_models.get_config()["n_jobs"] is None


def test_a_call_without_n_jobs_leaves_it_as_it_is():
    with pgm_models.config_context(n_jobs=2):
        with pgm_models.config_context():
            assert pgm_models.get_config()["n_jobs"] == 2
    try:
        pgm_models.set_config(n_jobs=3)
        pgm_models.set_config()
        assert pgm_models.get_config()["n_jobs"] == 3
    finally:
        pgm_models.set_config(n_jobs=None)
    assert pgm_models.get_config()["n_jobs"] is None


def test_config_context_nests_and_restores_and_set_config_is_process_wide():
    assert pgm_models.get_config() == {"n_jobs": None}
    with pgm_models.config_context(n_jobs=2):
        assert threads.n_threads() == 2
        with pgm_models.config_context(n_jobs=1):
            assert threads.n_threads() == 1
        assert pgm_models.get_config()["n_jobs"] == 2
        seen = []
        other = threading.Thread(target=lambda: seen.append(pgm_models.get_config()["n_jobs"]))
        other.start()
        other.join()
        assert seen == [None]  # a context is the calling thread's
    assert pgm_models.get_config()["n_jobs"] is None
    try:
        pgm_models.set_config(n_jobs=3)
        seen = []
        other = threading.Thread(target=lambda: seen.append(threads.n_threads()))
        other.start()
        other.join()
        assert seen == [3]
    finally:
        pgm_models.set_config(n_jobs=None)


def test_the_default_thread_count_follows_the_users_blas_limit_not_the_packages_own_sections():
    cores = threads.n_threads.__globals__["os"].sched_getaffinity(0)
    with threadpool_limits(limits=1, user_api="blas"):
        assert threads.n_threads() == 1
    with threadpool_limits(limits=2, user_api="blas"):
        assert threads.n_threads() == min(2, len(cores))
        with threads.one_blas_thread():  # the package's own one-thread section is not the user's limit
            assert threads.n_threads() == min(2, len(cores))
    with pgm_models.config_context(n_jobs=-1):
        assert threads.n_threads() == len(cores)


# ------------------------------------------------------------------ blocks
def test_row_spans_cover_the_rows_in_fixed_blocks():
    assert threads.row_spans(threads.THREAD_MIN_ROWS - 1) == [(0, threads.THREAD_MIN_ROWS - 1)]
    n = threads.THREAD_MIN_ROWS + 5
    spans = threads.row_spans(n)
    assert spans[0] == (0, threads.BLOCK_ROWS) and spans[-1][1] == n
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert all(stop - start == threads.BLOCK_ROWS for start, stop in spans[:-1])
    assert spans[-1] == (threads.BLOCK_ROWS * (len(spans) - 1), n)


def test_over_row_blocks_runs_two_blocks_at_once_and_keeps_block_order():
    n = threads.THREAD_MIN_ROWS
    both = threading.Barrier(2, timeout=30)  # breaks (an error) unless two blocks run at the same time
    first_of_each_run = {threads.row_spans(n)[0][0], threads.row_spans(n)[len(threads.row_spans(n)) // 2][0]}

    def block(start, stop):
        if start in first_of_each_run:
            both.wait()
        return start, stop

    with pgm_models.config_context(n_jobs=2):
        assert threads.over_row_blocks(block, n) == threads.row_spans(n)
    with pgm_models.config_context(n_jobs=1):  # one thread: the same blocks in turn, no barrier to meet
        first_of_each_run.clear()
        assert threads.over_row_blocks(block, n) == threads.row_spans(n)


def test_block_sums_are_added_in_block_order_at_any_thread_count():
    n = threads.THREAD_MIN_ROWS + 5
    first_three = {0: 1e16, threads.BLOCK_ROWS: 1.0, 2 * threads.BLOCK_ROWS: -1e16}

    def part(start, stop):
        return np.array([first_three.get(start, 0.0)]), stop - start

    for n_jobs in (1, 2):
        with pgm_models.config_context(n_jobs=n_jobs):
            total, rows = threads.add_over_row_blocks(part, n)
        assert total[0] == 0.0 and rows == n  # (1e16 + 1) − 1e16: the 1 lost in that order, and only in it


def test_rows_times_is_the_product_and_the_same_at_one_and_two_threads():
    rng = np.random.default_rng(1)
    X, B = rng.normal(size=(threads.THREAD_MIN_ROWS + 7, 6)), rng.normal(size=(6, 3))
    with pgm_models.config_context(n_jobs=1):
        one = threads.rows_times(X, B)
    with pgm_models.config_context(n_jobs=2):
        two = threads.rows_times(X, B)
    assert np.array_equal(one, two)
    np.testing.assert_allclose(one, X @ B, rtol=1e-13, atol=1e-13)


# ------------------------------------------------------------------ models
N = threads.THREAD_MIN_ROWS + 1234  # several blocks and a short last one


def _data():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, N)
    codes = (rng.integers(0, 4, (N, 6)) + y[:, None]) % 5
    gaussian = rng.normal(size=(N, 5)) + y[:, None] * 0.5 + 10.0
    weight = rng.uniform(0.2, 2.0, N)
    return y, codes, gaussian, weight


def _cases():
    y, codes, gaussian, weight = _data()
    frame = pd.DataFrame({f"c{j}": pd.Categorical(codes[:, j]) for j in range(3)})
    for j in range(3):
        frame[f"g{j}"] = gaussian[:, j]
    rng = np.random.default_rng(3)
    words = sp.random_array(
        (N, 300), density=0.02, format="csr", rng=rng, data_sampler=lambda size: rng.integers(1, 4, size)
    )
    words = (words + sp.csr_array((np.ones(N), (np.arange(N), y * 7)), shape=(N, 300))).tocsr()
    missing = frame.copy()
    missing.loc[::97, "g1"] = np.nan
    missing.loc[::89, "c2"] = np.nan
    return {
        "CategoricalNB": (CategoricalNB(), codes, y, None),
        "CategoricalNB-weighted": (CategoricalNB(), codes, y, weight),
        "BernoulliNB": (BernoulliNB(), (codes > 2).astype(float), y, weight),
        "GaussianNB": (GaussianNB(), gaussian, y, weight),
        "MixedNB-missing": (MixedNB(), missing, y, None),
        "LDA": (LDA(), gaussian, y, weight),
        "QDA": (QDA(), gaussian, y, None),
        "MixedNB": (MixedNB(), frame, y, weight),
        "MultinomialNB": (MultinomialNB(), words, y, weight),
        "ComplementNB": (ComplementNB(), words, y, None),
        "AODE": (AODE(), codes, y, weight),  # the template's scoring blocks, each on a thread
        "TAN": (TAN(), codes, y, None),
    }


CASES = _cases()


def _fitted(model, X, y, weight):
    fitted = clone(model).fit(X, y, sample_weight=weight)
    return fitted._statistics(), fitted.predict_proba(X), fitted.predict_joint_log_proba(X)


def _identical(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_identical(a[key], b[key]) for key in a)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_identical(u, v) for u, v in zip(a, b))
    if a is None or b is None:
        return a is b
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fit_and_probabilities_are_bit_for_bit_the_same_at_one_and_two_threads(name, monkeypatch):
    model, X, y, weight = CASES[name]
    pools = []
    original = threads._pool
    monkeypatch.setattr(threads, "_pool", lambda workers: pools.append(workers) or original(workers))
    with pgm_models.config_context(n_jobs=1):
        one = _fitted(model, X, y, weight)
    assert pools == []
    with pgm_models.config_context(n_jobs=2):
        two = _fitted(model, X, y, weight)
    assert pools and set(pools) == {2}  # the blocks did run on two threads
    assert one[0] and _identical(one[0], two[0])
    assert np.array_equal(one[1], two[1]) and np.array_equal(one[2], two[2])


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_blocks_give_the_one_block_paths_numbers(name, monkeypatch):
    """Blocks change only the order in which a fit's float sums are added: its probabilities agree
    with one block's to 1e-12 (unit-weight counts exactly); a row's scores are its own, so the same
    fitted model scores each row to the bit with blocks or without (QDA's chunks of WORK_ROWS fall
    in the same places: BLOCK_ROWS is a multiple).
    """
    model, X, y, weight = CASES[name]
    fitted = clone(model).fit(X, y, sample_weight=weight)
    blocked = fitted._statistics(), fitted.predict_proba(X), fitted.predict_joint_log_proba(X)
    monkeypatch.setattr(threads, "THREAD_MIN_ROWS", 10 * N)
    assert np.array_equal(fitted.predict_proba(X), blocked[1])
    assert np.array_equal(fitted.predict_joint_log_proba(X), blocked[2])
    whole = _fitted(model, X, y, weight)
    np.testing.assert_allclose(blocked[1], whole[1], rtol=0, atol=1e-12)
    if weight is None and name.startswith("CategoricalNB"):
        assert _identical(blocked[0], whole[0])


def test_validation_counts_every_bad_entry_across_blocks():
    X = np.zeros((N, 3))
    X[5, 0], X[N - 1, 2], X[threads.BLOCK_ROWS + 3, 1] = np.nan, np.inf, 2.0
    with pgm_models.config_context(n_jobs=2):
        with pytest.raises(ValueError, match="NaN or inf"):
            BernoulliNB(binarize=None).fit(X, np.arange(N) % 2)
    X[5, 0], X[N - 1, 2] = 0.0, 0.0
    with pgm_models.config_context(n_jobs=2):
        with pytest.raises(ValueError, match="non-binary value"):
            BernoulliNB(binarize=None).fit(X, np.arange(N) % 2)


def test_seen_values_found_in_any_block():
    X = np.zeros((N, 2), dtype=np.int64)
    X[N - 1, 0], X[threads.BLOCK_ROWS + 1, 1] = 3, 2  # each value only in a later block
    with pgm_models.config_context(n_jobs=2):
        model = CategoricalNB().fit(X, np.arange(N) % 2)
    assert [list(c) for c in model.categories_] == [[0, 3], [0, 2]]


def test_small_inputs_stay_on_the_calling_thread(monkeypatch):
    pools = []
    original = threads._pool
    monkeypatch.setattr(threads, "_pool", lambda workers: pools.append(workers) or original(workers))
    model, X, y, weight = CASES["MixedNB"]
    small = X.iloc[: threads.THREAD_MIN_ROWS - 1]
    with pgm_models.config_context(n_jobs=2):
        clone(model).fit(small, y[: len(small)]).predict_proba(small)
        assert pools == []
        clone(model).fit(X, y).predict_proba(X)
    assert pools and set(pools) == {2}


def test_a_kernel_module_another_thread_is_importing_is_waited_for(tmp_path, monkeypatch):
    """Two threads scoring in a fresh process: the first imports (compiles) a kernel module, which
    sits half made in sys.modules meanwhile; the second must wait for it, not read it half made.
    """
    from pgm_models._utils import jit

    (tmp_path / "slow_kernels_for_test.py").write_text("import time\ntime.sleep(0.5)\nvalue = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen, errors = [], []
    started = threading.Event()

    def first():
        started.set()
        seen.append(jit.kernels("slow_kernels_for_test").value)

    def second():
        started.wait()
        while "slow_kernels_for_test" not in sys.modules:
            pass  # until the first thread's import has put the half-made module in sys.modules
        try:
            seen.append(jit.kernels("slow_kernels_for_test").value)
        except AttributeError as error:
            errors.append(error)

    workers = [threading.Thread(target=first), threading.Thread(target=second)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    monkeypatch.delitem(sys.modules, "slow_kernels_for_test")
    assert errors == [] and seen == [42, 42]


@pytest.mark.parametrize("n_rows", [500, N])  # one block, and blocks on threads
def test_the_compiled_sparse_loops_are_scipys_products(n_rows):
    """The CSR loops add each row's stored entries in order, as scipy's sparse products do: its
    numbers to the bit (whole counts and the scores), duplicates and unsorted indices included.
    """
    from pgm_models._utils import jit

    kernels = jit.kernels("pgm_models.naive_bayes._kernels")
    rng = np.random.default_rng(11)
    X = sp.random_array(
        (n_rows, 50), density=0.1, format="csr", rng=rng, data_sampler=lambda size: rng.normal(size=size)
    )
    X = sp.csr_array((X.data, X.indices[::-1].copy() if n_rows == 500 else X.indices, X.indptr), shape=X.shape)
    duplicates = sp.csr_array((np.array([1.0, 2.0]), np.array([3, 3]), np.array([0, 2])), shape=(1, 50))
    X = sp.vstack([X, duplicates], format="csr")
    assert list(X.indices[-2:]) == [3, 3]  # kept apart, not summed
    class_index = rng.integers(0, 3, X.shape[0])
    weights = rng.normal(size=(3, 50))
    scores = np.empty((X.shape[0], 3))
    with pgm_models.config_context(n_jobs=2):
        kernels.csr_products(X, weights, scores)
    expected = np.column_stack([X @ w for w in weights])
    assert np.array_equal(scores, expected)
    whole = X.copy()
    whole.data = np.round(np.abs(whole.data) * 3)
    counts = kernels.csr_class_sums(whole, class_index, np.ones(X.shape[0]), 3)
    one_hot = np.zeros((X.shape[0], 3))
    one_hot[np.arange(X.shape[0]), class_index] = 1.0
    assert np.array_equal(counts, one_hot.T @ whole)


def test_blocks_inside_a_block_run_on_its_thread(monkeypatch):
    """A block whose work has large blocks of its own runs them in turn on its thread: waiting on the
    pool from inside the pool (both workers waiting) would never end.
    """
    n = threads.THREAD_MIN_ROWS
    inner_threads = []

    def inner(start, stop):
        inner_threads.append(threading.get_ident())
        return stop - start

    def outer(start, stop):
        before = len(inner_threads)
        assert sum(threads.over_row_blocks(inner, n)) == n
        return set(inner_threads[before:]) == {threading.get_ident()}

    with pgm_models.config_context(n_jobs=2):
        assert all(threads.over_row_blocks(outer, n))


def test_a_forked_child_gets_pools_of_its_own():
    """After the parent's pool threads have run, a forked child (multiprocessing's default on Linux)
    fits on threads of its own instead of waiting for the parent's, which it does not have.
    """
    import multiprocessing

    model, X, y, weight = CASES["CategoricalNB"]
    with pgm_models.config_context(n_jobs=2):
        expected = clone(model).fit(X, y).predict_proba(X[:5])
    assert threads._pools  # the parent's pool exists and has run

    def child(queue):
        with pgm_models.config_context(n_jobs=2):
            queue.put(clone(model).fit(X, y).predict_proba(X[:5]))

    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=child, args=(queue,))
    process.start()
    process.join(timeout=120)
    alive = process.is_alive()
    if alive:
        process.kill()
    assert not alive and process.exitcode == 0
    assert np.array_equal(queue.get(timeout=5), expected)


# ------------------------------------------------------------------ BLAS sections and context in the pool's threads
def test_a_one_blas_thread_section_limits_and_restores_blas_from_any_thread():
    """threadpoolctl (3.8 on) lets only the first thread that set an OpenBLAS limit set one again: the
    package's sections in the pool's threads (a block's scoring) or a user's threads (concurrent
    predictions) must still hold BLAS to one thread, and the last to close, in whatever thread,
    must restore the user's setting (not leave every later product, and n_threads, on one thread).
    """
    libraries = threads._blas_controller().lib_controllers
    if not libraries:
        pytest.skip("no BLAS library loaded")
    with threadpool_limits(limits=2, user_api="blas"):  # the main thread takes threadpoolctl's control
        if [library.num_threads for library in libraries] != [2] * len(libraries):
            pytest.skip("this BLAS does not take a limit of two threads")
        seen = []

        def section():
            with threads.one_blas_thread():
                seen.append([library.num_threads for library in libraries])

        other = threading.Thread(target=section)
        other.start()
        other.join()
        assert seen == [[1] * len(libraries)]
        assert [library.num_threads for library in libraries] == [2] * len(libraries)
        # the main thread's section closes first, the other thread's last: the last one restores
        opened, close = threading.Event(), threading.Event()

        def overlapping():
            with threads.one_blas_thread():
                opened.set()
                close.wait(30)

        other = threading.Thread(target=overlapping)
        with threads.one_blas_thread():
            other.start()
            assert opened.wait(30)
        close.set()
        other.join()
        assert [library.num_threads for library in libraries] == [2] * len(libraries)
        assert threads.n_threads() == min(2, len(threads.os.sched_getaffinity(0)))


def test_qda_scoring_blocks_are_the_same_at_one_and_two_threads(monkeypatch):
    """Over FLOATS_PER_BLOCK rows the template scores blocks on the pool's threads, where QDA's one
    BLAS thread must hold as on the calling thread: two OpenBLAS threads split a triangular product
    of a short chunk differently, and a row's last bits changed with n_jobs.
    """
    from pgm_models import base

    model, X, y, weight = CASES["QDA"]
    fitted = clone(model).fit(X, y, sample_weight=weight)
    monkeypatch.setattr(base, "FLOATS_PER_BLOCK", 100_000)  # blocks of 10^5 rows: a short last one
    with threadpool_limits(limits=2, user_api="blas"):
        with pgm_models.config_context(n_jobs=1):
            one = fitted.predict_joint_log_proba(X)
        with pgm_models.config_context(n_jobs=2):
            two = fitted.predict_joint_log_proba(X)
    assert np.array_equal(one, two)


def test_the_callers_context_reaches_the_blocks(monkeypatch):
    """A block on a pool thread sees the calling thread's context variables: the semi-naive models'
    per-call SPODE operands (made once a call, not once a block) and NumPy's error state.
    """
    from pgm_models.semi_naive._base import SemiNaiveBayes

    model, X, y, weight = CASES["AODE"]
    fitted = clone(model).fit(X, y, sample_weight=weight)
    made = []
    stack = SemiNaiveBayes._stack
    monkeypatch.setattr(SemiNaiveBayes, "_stack", staticmethod(lambda *tables: made.append(1) or stack(*tables)))
    with pgm_models.config_context(n_jobs=2):
        two = fitted.predict_proba(X, estimate="map")  # "map": the NumPy path, which reads the operands
    assert 1 <= len(made) <= 2  # once per call, or once per thread where two threads miss it at once
    with pgm_models.config_context(n_jobs=1):
        assert np.array_equal(two, fitted.predict_proba(X, estimate="map"))

    def divide(start, stop):
        return np.ones(1) / np.zeros(1)

    with np.errstate(divide="raise"), pgm_models.config_context(n_jobs=2):
        with pytest.raises(FloatingPointError):
            threads.over_row_blocks(divide, N)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_block_sums_hold_a_few_blocks_parts_at_once(n_jobs):
    """A sum over blocks adds each block's part in block order as it comes, not after every block's
    part is made: a (K, V) table per block of 2^15 rows, all held at once, would grow with the rows
    (a million documents of a large vocabulary: a table per 2^15 of them).
    """
    import tracemalloc

    from pgm_models._utils import jit

    kernels = jit.kernels("pgm_models.naive_bayes._kernels")
    n_blocks, n_classes, n_columns = 16, 4, 4096
    n = n_blocks * threads.BLOCK_ROWS
    rng = np.random.default_rng(5)
    X = sp.csr_array((np.ones(n), rng.integers(0, n_columns, n), np.arange(n + 1)), shape=(n, n_columns))
    class_index, weight = rng.integers(0, n_classes, n), rng.uniform(0.5, 2.0, n)
    table = n_classes * n_columns * 8
    kernels.csr_class_sums(X[:10], class_index[:10], weight[:10], n_classes)  # compiled before the count
    with pgm_models.config_context(n_jobs=n_jobs):
        tracemalloc.start()
        try:
            sums = kernels.csr_class_sums(X, class_index, weight, n_classes)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < (2 * n_jobs + 3) * table  # the blocks in flight and the running total, not n_blocks tables
    one_hot = np.zeros((n, n_classes))
    one_hot[np.arange(n), class_index] = weight
    np.testing.assert_allclose(sums, one_hot.T @ X, rtol=1e-13)
    with pgm_models.config_context(n_jobs=1):
        assert np.array_equal(sums, kernels.csr_class_sums(X, class_index, weight, n_classes))


def test_a_fork_inside_another_threads_blas_section_restores_blas_in_the_child():
    """A child forked while another thread holds a one-BLAS-thread section would keep BLAS on one
    thread for good (no thread of its own will close that section); the child restores it.
    """
    import multiprocessing

    def blas_threads():
        return max(library.num_threads for library in threads._blas_controller().lib_controllers)

    with threadpool_limits(limits=2, user_api="blas"):
        if blas_threads() < 2:
            pytest.skip("this BLAS takes one thread only")
        inside, leave = threading.Event(), threading.Event()

        def hold():
            with threads.one_blas_thread():
                inside.set()
                leave.wait(30)

        holder = threading.Thread(target=hold)
        holder.start()
        inside.wait(30)

        def child(queue):
            queue.put((blas_threads(), threads._sections["open"]))

        context = multiprocessing.get_context("fork")
        queue = context.Queue()
        process = context.Process(target=child, args=(queue,))
        process.start()
        process.join(timeout=60)
        leave.set()
        holder.join()
        assert process.exitcode == 0
        assert queue.get(timeout=5) == (2, 0)
