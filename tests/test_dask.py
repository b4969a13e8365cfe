"""The Dask engine (pgm_models.dask_engine.engine) on a real two-process cluster: every generative
model fitted on dask collections equals the in-memory fit on the same rows (counts exactly,
Normal moments to 1e-12 relative, predictions to 1e-12), for any chunking and block order, and
after a worker dies mid-fit; out-of-core files; bad input."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
import uuid

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import clone

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pgm_models import (  # noqa: E402
    AODE,
    LDA,
    QDA,
    SPODE,
    TAN,
    BernoulliNB,
    CategoricalNB,
    GaussianNB,
    MultinomialNB,
    dask_engine,  # noqa: E402
)
from pgm_models.app.cli import main  # noqa: E402
from pgm_models.conjugate import PosteriorDraw  # noqa: E402
from pgm_models.datasets import load_dataset  # noqa: E402

MOMENTS = ("feature_mean_", "feature_scatter_")


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def vote():
    return load_dataset("vote")


@pytest.fixture(scope="module")
def iris():
    X, y = load_dataset("iris")
    return X, y


def _frames(X, y, npartitions):
    return dd.from_pandas(X, npartitions=npartitions, sort=False), dd.from_pandas(
        y, npartitions=npartitions, sort=False
    )


def assert_same_fit(memory, distributed_model, X_memory, X_dask):
    """Statistics, priors and every prediction of the dask fit equal the in-memory fit's."""
    np.testing.assert_array_equal(distributed_model.classes_, memory.classes_)
    for name, value in vars(memory).items():
        if name.endswith("count_"):
            np.testing.assert_array_equal(getattr(distributed_model, name), value, err_msg=name)  # whole numbers: exact
        elif name in MOMENTS:
            np.testing.assert_allclose(
                getattr(distributed_model, name), value, rtol=1e-12, atol=1e-12 * np.abs(value).max(), err_msg=name
            )
    if hasattr(memory, "_prior"):  # the data-scaled prior, from the whole data
        for field in ("m", "kappa"):
            np.testing.assert_allclose(
                getattr(distributed_model._prior, field), getattr(memory._prior, field), rtol=1e-12
            )
    if hasattr(memory, "tree_parent_"):
        np.testing.assert_array_equal(distributed_model.tree_parent_, memory.tree_parent_)
    for method in ("predict_joint_log_proba", "predict_log_proba", "predict_proba"):
        result = getattr(distributed_model, method)(X_dask)
        assert isinstance(result, da.Array)
        np.testing.assert_allclose(
            result.compute(), getattr(memory, method)(X_memory), rtol=1e-12, atol=1e-12, err_msg=method
        )
    np.testing.assert_array_equal(distributed_model.predict(X_dask).compute(), memory.predict(X_memory))


NOMINAL = [CategoricalNB(), SPODE(parent=2), AODE(weights="bma"), TAN(root=1)]
GAUSSIAN = [GaussianNB(), LDA(), QDA()]


@pytest.mark.parametrize("model", NOMINAL, ids=lambda m: type(m).__name__)
def test_nominal_models_equal_in_memory_fit(client, vote, model):
    X, y = vote
    X_dask, y_dask = _frames(X, y, 4)
    assert_same_fit(model.__class__(**model.get_params()).fit(X, y), model.fit(X_dask, y_dask), X, X_dask)


@pytest.mark.parametrize("model", GAUSSIAN, ids=lambda m: type(m).__name__)
def test_gaussian_models_equal_in_memory_fit(client, iris, model):
    X, y = iris
    X_dask = da.from_array(X.to_numpy(), chunks=(40, 2))  # chunked across columns too: rechunked to whole rows
    memory = model.__class__().fit(X.to_numpy(), y.to_numpy())
    assert_same_fit(memory, model.fit(X_dask, da.from_array(y.to_numpy(), chunks=25)), X.to_numpy(), X_dask)


def test_bernoulli_and_multinomial_equal_in_memory_fit_dense_and_sparse(client):
    rng = np.random.default_rng(3)
    counts = rng.poisson(0.4, (300, 25)).astype(float)
    y = rng.integers(0, 3, 300)
    for dense in (counts, counts > 0):
        X_dask = da.from_array(dense.astype(float), chunks=(70, -1))
        assert_same_fit(BernoulliNB().fit(dense, y), BernoulliNB().fit(X_dask, y), dense.astype(float), X_dask)
    sparse = sp.csr_matrix(counts)
    X_dask = da.from_array(sparse, chunks=(70, -1), asarray=False)  # scipy.sparse blocks
    assert_same_fit(MultinomialNB().fit(sparse, y), MultinomialNB().fit(X_dask, y), sparse, X_dask)


def test_integer_codes_with_n_categories_and_sample_weight(client):
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 3, (200, 5))
    y = rng.choice(["a", "b"], 200)
    weight = rng.integers(0, 4, 200).astype(float)
    X_dask = da.from_array(codes, chunks=60)
    memory = TAN(n_categories=3).fit(codes, y, sample_weight=weight)
    assert_same_fit(
        memory, TAN(n_categories=3).fit(X_dask, da.from_array(y, chunks=60), sample_weight=weight), codes, X_dask
    )


def _pieces(frame, cuts, order):
    """frame split at ``cuts`` into partitions, taken in ``order``."""
    bounds = [0, *cuts, len(frame)]
    pieces = [frame.iloc[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    return [pieces[i] for i in order]


@st.composite
def chunkings(draw, n_rows):
    cuts = sorted(draw(st.sets(st.integers(1, n_rows - 1), min_size=0, max_size=6)))
    order = draw(st.permutations(range(len(cuts) + 1)))
    return cuts, order, draw(st.integers(2, 4))


@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_any_chunking_and_block_order_gives_the_in_memory_fit(vote, iris, data):
    """Synchronous scheduler (the reduction tree is the same): blocks of any sizes, in any
    order, any split_every, with integer weights, against the in-memory fit of the same rows."""
    with dask.config.set(scheduler="sync"):
        X, y = vote
        weight = pd.Series(np.arange(len(y)) % 3, index=y.index, dtype=float)
        cuts, order, split_every = data.draw(chunkings(len(y)))
        parts = [_pieces(v, cuts, order) for v in (X, y, weight)]
        X_dask, y_dask, w_dask = (dd.from_delayed([dask.delayed(p) for p in ps], meta=ps[0].iloc[:0]) for ps in parts)
        rows = pd.concat(parts[0])
        for model in (CategoricalNB(), TAN()):
            memory = model.__class__().fit(rows, pd.concat(parts[1]), sample_weight=pd.concat(parts[2]))
            fitted = dask_engine.fit(model, X_dask, y_dask, w_dask, split_every=split_every)
            assert_same_fit(memory, fitted, rows, X_dask)
        Xg, yg = iris
        cuts, order, split_every = data.draw(chunkings(len(yg)))
        (pieces_X, pieces_y) = (_pieces(v, cuts, order) for v in (Xg, yg))
        X_dask = da.concatenate([da.from_array(p.to_numpy(), chunks=-1) for p in pieces_X])
        y_dask = da.concatenate([da.from_array(p.to_numpy(), chunks=-1) for p in pieces_y])
        rows = pd.concat(pieces_X).to_numpy()
        memory = QDA().fit(rows, pd.concat(pieces_y).to_numpy())
        assert_same_fit(memory, dask_engine.fit(QDA(), X_dask, y_dask, split_every=split_every), rows, X_dask)


def test_partial_fit_adds_dask_batches_like_in_memory_batches(client, iris, vote):
    X, y = iris
    halves = [slice(0, 75), slice(75, 150)]
    labels = np.unique(y)
    memory, distributed_model = GaussianNB(), GaussianNB()
    for half in halves:  # the data-scaled prior comes from the first batch in both
        memory.partial_fit(X.iloc[half], y.iloc[half], classes=labels)
        distributed_model.partial_fit(*_frames(X.iloc[half], y.iloc[half], 2), classes=labels)
    assert_same_fit(memory, distributed_model, X, _frames(X, y, 3)[0])
    X, y = vote
    mixed = AODE().partial_fit(X.iloc[:200], y.iloc[:200])  # in memory first, then dask
    mixed.partial_fit(*_frames(X.iloc[200:], y.iloc[200:], 3))
    assert_same_fit(AODE().fit(X, y), mixed, X, _frames(X, y, 2)[0])


def test_posterior_draw_is_one_draw_for_every_block(client, vote):
    X, y = vote
    X_dask, y_dask = _frames(X, y, 4)
    memory, distributed_model = CategoricalNB().fit(X, y), CategoricalNB().fit(X_dask, y_dask)
    seed = np.random.default_rng(5).integers(2**63)
    drawn = distributed_model.predict_proba(X_dask, estimate=PosteriorDraw(5)).compute()
    np.testing.assert_allclose(drawn, memory.predict_proba(X, estimate=PosteriorDraw(seed)), rtol=1e-12, atol=1e-15)
    draws = distributed_model.predict_proba_draws(X_dask, n_draws=3, random_seed=1).compute()
    seed = np.random.default_rng(1).integers(2**63)
    np.testing.assert_allclose(
        draws, memory.predict_proba_draws(X, n_draws=3, random_seed=seed), rtol=1e-12, atol=1e-15
    )
    assert not np.allclose(draws[0], draws[1])  # a new θ per draw


def test_worker_killed_mid_fit_gives_the_same_result(client, tmp_path):
    """A worker process dies while blocks are being counted: the scheduler recomputes what it
    held and the fit still equals the in-memory one (nothing dropped or counted twice)."""
    rng = np.random.default_rng(6)
    X = pd.DataFrame({f"x{j}": pd.Categorical(rng.choice(list("abc"), 1600), categories=list("abc")) for j in range(4)})
    y = pd.Series(rng.choice(["u", "v"], 1600))

    def slow(part, marker_dir=str(tmp_path)):
        open(os.path.join(marker_dir, uuid.uuid4().hex), "w").close()  # one file per block computed
        time.sleep(0.3)
        return part

    X_dask = dd.from_pandas(X, npartitions=16, sort=False).map_partitions(slow, meta=X.iloc[:0])
    y_dask = dd.from_pandas(y, npartitions=16, sort=False)
    result = {}
    fitting = threading.Thread(target=lambda: result.update(model=CategoricalNB().fit(X_dask, y_dask)))
    fitting.start()
    deadline = time.monotonic() + 120
    while len(os.listdir(tmp_path)) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    killed_mid_fit = fitting.is_alive()
    victim = sorted(client.scheduler_info()["workers"])[0]
    os.kill(client.run(os.getpid, workers=[victim])[victim], signal.SIGKILL)
    fitting.join(timeout=300)
    client.wait_for_workers(2, timeout=120)
    assert killed_mid_fit and victim not in client.scheduler_info()["workers"]
    assert_same_fit(CategoricalNB().fit(X, y), result["model"], X, dd.from_pandas(X, npartitions=3))


def test_parquet_and_csv_directories_out_of_core_and_from_the_command_line(client, vote, tmp_path, capsys):
    X, y = vote
    table = X.assign(Class=y)
    for i, start in enumerate(range(0, len(table), 100)):
        table.iloc[start : start + 100].to_parquet(tmp_path / f"part-{i}.parquet")
        table.iloc[start : start + 100].to_csv(tmp_path / f"part-{i}.csv", index=False)
    for pattern in ("*.parquet", "*.csv"):
        X_dask, y_dask = dask_engine.read_table(str(tmp_path / pattern), target="Class")
        assert X_dask.npartitions == 5 and all(X_dask[c].cat.known for c in X_dask.columns)
        memory_X, memory_y = X_dask.compute(), y_dask.compute()  # the same rows, categories as read
        assert_same_fit(AODE().fit(memory_X, memory_y), AODE().fit(X_dask, y_dask), memory_X, X_dask)
    assert (
        main(
            [
                "fit",
                "--model",
                "categorical-nb",
                "--data",
                str(tmp_path / "*.parquet"),
                "--scheduler",
                client.scheduler.address,
                "--max-rows",
                "0",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    counts = y.value_counts()
    assert (
        f"435 rows, 16 attributes, target 'Class' with classes democrat ({counts['democrat']}), republican ({counts['republican']})"
        in out
    )
    with pytest.raises(FileNotFoundError, match="no files match"):
        dask_engine.read_table(str(tmp_path / "*.feather"))


def test_bad_input_gets_a_clear_error(client, vote):
    X, y = vote
    X_dask, y_dask = _frames(X, y, 3)
    unknown = X_dask.assign(**{X.columns[0]: X_dask[X.columns[0]].cat.as_unknown()})
    with pytest.raises(
        ValueError,
        match=rf"column '{X.columns[0]}' is a dask Categorical with unknown categories; call .categorize\(\)",
    ):
        CategoricalNB().fit(unknown, y_dask)
    text = X_dask.astype({X.columns[1]: object})
    with pytest.raises(ValueError, match=rf"column '{X.columns[1]}' .* has no declared domain"):
        AODE().fit(text, y_dask)
    with pytest.raises(ValueError, match="no declared domain: pass n_categories"):
        CategoricalNB().fit(da.zeros((10, 2), dtype=int, chunks=5), np.zeros(10))
    with pytest.raises(ValueError, match="y is a dask Categorical with unknown categories"):
        CategoricalNB().fit(X_dask, y_dask.astype("category").cat.as_unknown())
    with pytest.raises(ValueError, match=r"y has label 'republican', which is not among classes_ \['democrat'\]"):
        CategoricalNB().partial_fit(X_dask, y_dask.astype(str), classes=["democrat"])
    with pytest.raises(ValueError, match="needs classes="):
        CategoricalNB().partial_fit(X_dask, y_dask.astype(str))
    with pytest.raises(ValueError, match="X has 3 blocks of rows but y has 2"):
        CategoricalNB().fit(X_dask, dd.from_pandas(y, npartitions=2))
    numbers = dd.from_pandas(pd.DataFrame({"a": np.arange(200.0)}), npartitions=2)  # 100 rows per partition
    with pytest.raises(ValueError, match="X has 100 rows but y has (95|105)"):
        GaussianNB().fit(numbers, da.from_array(np.arange(200) % 2, chunks=((95, 105),)))
    with pytest.raises(ValueError, match="X has 200 rows but y has 150"):
        GaussianNB().fit(da.ones((200, 2), chunks=100), np.zeros(150))
    renamed = dd.from_delayed(
        [dask.delayed(X.iloc[:200]), dask.delayed(X.iloc[200:].rename(columns={X.columns[3]: "other"}))],
        meta=X.iloc[:0],
        verify_meta=False,
    )
    with pytest.raises(ValueError, match="feature names"):
        CategoricalNB().fit(
            renamed, dd.from_delayed([dask.delayed(y.iloc[:200]), dask.delayed(y.iloc[200:])], meta=y.iloc[:0])
        )
    with pytest.raises(ValueError, match="sample_weight is zero for every row"):
        CategoricalNB().fit(
            X_dask, y_dask, sample_weight=dd.from_pandas(pd.Series(0.0, index=y.index), npartitions=3, sort=False)
        )
    assert (
        main(["fit", "--model", "logistic-regression", "--data", "x.parquet", "--scheduler", client.scheduler.address])
        == 2
    )


def test_benchmark_blocks_are_the_in_memory_data_and_workers_report_their_peak_memory(client):
    from benchmarks import dask_scaling

    X, y = dask_scaling.dask_data(3001, 4)
    parts = [dask_scaling.make_block(seed, n) for seed, n in enumerate(dask_scaling.block_sizes(3001, 4))]
    np.testing.assert_array_equal(X.compute(), np.concatenate([p[0] for p in parts]))
    np.testing.assert_array_equal(y.compute(), np.concatenate([p[1] for p in parts]))
    assert X.chunks[0] == (751, 750, 750, 750) and set(np.unique(X.compute())) == {0, 1, 2, 3}
    client.run(dask_scaling.reset_peak)
    assert all(
        20 < peak < 100_000 for peak in client.run(dask_scaling.peak_mib).values()
    )  # MiB of a live Python worker
    assert dask_scaling.make_frame(1, 5).shape == (5, 11)


def _mixed_table(vote, iris):
    """vote's nominal columns (with their missing values), iris's four measurements (two of them
    with missing values), a 0/1 column and a count column, all declared by dtype or column_types."""
    X_vote, y = vote
    rng = np.random.default_rng(12)
    numeric = iris[0].to_numpy()[rng.integers(0, len(iris[1]), len(y))] + rng.normal(0, 0.1, (len(y), 4))
    numeric[rng.random(numeric.shape) < 0.05] = np.nan
    X = X_vote.iloc[:, :5].copy()
    for j, name in enumerate(iris[0].columns):
        X[name] = numeric[:, j]
    X["flag"] = rng.random(len(y)) < np.where(y == y.iloc[0], 0.7, 0.2)
    X["visits"] = rng.poisson(np.where(y == y.iloc[0], 3.0, 1.0))
    return X, y


@pytest.mark.parametrize("npartitions", [1, 5])
def test_mixed_nb_equals_in_memory_fit(client, vote, iris, npartitions):
    from pgm_models import MixedNB

    X, y = _mixed_table(vote, iris)
    model = MixedNB(column_types={"visits": "poisson"}, alpha=0.5)
    memory = clone(model).fit(X, y)
    X_dask, y_dask = _frames(X, y, npartitions)
    fitted = clone(model).fit(X_dask, y_dask)
    assert fitted.column_types_ == memory.column_types_
    statistics = memory._statistics()
    assert (
        set(statistics)
        == set(fitted._statistics())
        >= {"categorical_count_", "gaussian_mean_", "bernoulli_total_", "poisson_total_"}
    )
    for name, value in statistics.items():
        np.testing.assert_allclose(
            fitted._statistics()[name], value, rtol=1e-12, atol=1e-12 * np.abs(value).max(), err_msg=name
        )
    gaussian, poisson = (memory._blocks[kind].prior for kind in ("gaussian", "poisson"))
    np.testing.assert_allclose(fitted._blocks["gaussian"].prior.m, gaussian.m, rtol=1e-12)
    np.testing.assert_allclose(fitted._blocks["gaussian"].prior.b, gaussian.b, rtol=1e-12)
    np.testing.assert_allclose(fitted._blocks["poisson"].prior.a, poisson.a, rtol=1e-12)
    assert_same_fit(memory, fitted, X, X_dask)
    # batches added on Dask after an in-memory start equal in-memory batches
    batches = clone(model).partial_fit(X.iloc[:150], y.iloc[:150], classes=np.unique(y))
    batches.partial_fit(*_frames(X.iloc[150:], y.iloc[150:], 3))
    expected = (
        clone(model)
        .partial_fit(X.iloc[:150], y.iloc[:150], classes=np.unique(y))
        .partial_fit(X.iloc[150:], y.iloc[150:])
    )
    np.testing.assert_allclose(batches.predict_joint_log_proba(X), expected.predict_joint_log_proba(X), rtol=1e-12)
