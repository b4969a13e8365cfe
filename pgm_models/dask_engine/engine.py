"""Fit and predict on Dask collections: many workers, data larger than memory.

Every generative model is fitted from sufficient statistics that merge exactly: class counts,
the count tables ``*count_`` (naive Bayes' N_kjs, the semi-naive pair tensor C[k, s, t]) add,
and the Gaussian models' per-class moments (n, x̄, S) merge by Chan's formula
(``pgm_models.conjugate.normal.merge_moments``). So a fit on a dask collection is

1. **domains first** (on the client): each categorical attribute's domain (a dask
   Categorical's known categories or ``n_categories``) and, when declared, the classes (y's
   categories or ``classes=``) fix the estimator's layout; a one-row stand-in built from the
   collection's dtypes runs the model's own first ``partial_fit``, then its statistics are
   zeroed: that is the *template*;
2. **map**: every block (a partition, a chunk of rows) is counted by a copy of the template
   through the model's own ``partial_fit`` (its ``_encode``/``_count``), a slice of rows at a
   time, on whichever worker holds or reads the block. Blocks the workers already hold
   (persisted dask arrays) are counted by one task per worker thread, each over the blocks
   of its worker in turn: a fit then costs a scheduling round trip per thread, not per block.
   Undeclared classes are found in the same pass: a block's template is started on the
   block's own distinct labels, sorted, so its statistics run along those classes;
3. **tree-reduce**: the block statistics merge ``split_every`` at a time up a tree, each merge
   onto the sorted union of its parts' classes (a class a part lacks has zero statistics
   there); only statistics (a few arrays per block) travel, never rows. One compute: the
   classes come back with the counts;
4. **finish** (on the client): the merged statistics are added to the estimator's, the
   data-scaled Gaussian prior is set from the whole data's moments (pooled from the merged
   class moments, so it costs no extra pass), and the derived state (posterior
   concentrations, TAN's tree from the merged pair tensor) is recomputed.

Counts are sums of whole numbers, so they equal the in-memory fit exactly for any chunking and
any block order; Normal moments agree to rounding (1e-12 relative). Prediction maps the fitted
model over the blocks (``map_blocks`` / ``map_partitions``) and returns a dask array.

A worker that dies mid-fit loses only the block statistics it held: the scheduler recomputes
those blocks from the graph (reading their files again), so nothing is dropped or counted twice.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import glob
import os
import sys

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import scipy.sparse as sp
from dask.dataframe.dask_expr._expr import are_co_aligned
from sklearn.base import clone

from pgm_models._utils.validation import check_fitted, check_labels, check_n_rows, check_unique_columns, sorted_classes
from pgm_models.conjugate import PosteriorDraw

SPLIT_EVERY = 8  # block statistics merged per node of the reduction tree
_CATEGORIZE = (
    "call .categorize() on the dask DataFrame or give the column a pandas CategoricalDtype with its categories"
)


# ---------------------------------------------------------------------- fitting
def fit(model, X, y, sample_weight=None, split_every=SPLIT_EVERY):
    """``model.fit`` on dask collections: X a dask DataFrame or array (dense or scipy.sparse
    chunks), y (and sample_weight) a dask Series/array split into the same blocks. The classes
    are y's known categories, else its distinct labels (found in the counting pass).
    """
    _check_blocks_merge(model)
    X, y, weight = _aligned(X, y, sample_weight)
    declared = _declared_classes(y, "fit")
    if declared is not None:
        model._start_fit(pd.Categorical(declared, categories=declared))  # a Categorical declares its classes
        _start_template(model, X, declared)
        return _add_blocks(model, X, y, weight, split_every, set_prior=True)
    _check_domains(model, X)
    counted = _counted_blocks(_Unstarted(clone(model), _stand_in(X)), X, y, weight, split_every)
    model._start_fit(counted.classes)  # checks they are classification targets
    _start_template(model, X, counted.classes)
    return _finish(model, X, counted, set_prior=True)


def partial_fit(model, X, y, classes=None, sample_weight=None, split_every=SPLIT_EVERY):
    """``model.partial_fit`` on dask collections: the first call needs ``classes`` (or a y
    with known categories); the collection's statistics are added to the model's.
    """
    _check_blocks_merge(model)
    X, y, weight = _aligned(X, y, sample_weight)
    if hasattr(model, "classes_"):
        if classes is not None and not np.array_equal(sorted_classes(classes), model.classes_):
            raise ValueError(
                f"classes={list(classes)} differs from classes_ {model.classes_.tolist()} of the first call"
            )
        return _add_blocks(model, X, y, weight, split_every, set_prior=False)
    if classes is None:
        classes = _declared_classes(y, "partial_fit")
        if classes is None:
            raise ValueError("the first call to partial_fit needs classes= (all class labels)")
    classes = np.asarray(classes)
    if len(np.unique(classes)) != len(classes):
        raise ValueError(f"classes has repeated labels: {list(classes)}")
    _start_template(model, X, classes)
    return _add_blocks(model, X, y, weight, split_every, set_prior=True)


def _check_blocks_merge(model):
    """Refuse, before anything is computed, a model whose fit cannot come from merged block statistics."""
    reason = model._blocks_refused()
    if reason is not None:
        raise ValueError(f"{type(model).__name__} cannot be fitted on a dask collection: {reason}")


def _start_template(model, X, classes):
    """Fix the model's layout (classes, features, domains) with its own first ``partial_fit``
    on a one-row stand-in of X's dtypes, then zero the statistics that row added.
    """
    _check_domains(model, X)
    _zero_statistics(model.partial_fit(_stand_in(X), classes[:1], classes=classes))


def _add_blocks(model, X, y, weight, split_every, set_prior):
    """Count every block with a zeroed copy of the model, tree-reduce, add to the model."""
    template = _zero_statistics(copy.deepcopy(model))
    return _finish(model, X, _counted_blocks(template, X, y, weight, split_every), set_prior)


def _counted_blocks(template, X, y, weight, split_every) -> _Counts:
    """The statistics of all blocks, merged: one compute. Blocks already held by a distributed
    cluster (persisted) are counted where they lie, a task per worker thread
    (``_counted_in_place``); otherwise a task per block, the template inside each block's task
    (a graph key of its own made one more task, and a transfer between workers, before any
    block could start).
    """
    if split_every < 2:  # before anything is submitted: a merge of one part never shrinks the tree
        raise ValueError(f"split_every must be ≥ 2, got {split_every}")
    held = _held_blocks(X, y, weight)
    if held is not None:
        merged = _counted_in_place(template, *held, split_every)
    else:
        count = dask.delayed(functools.partial(_block_statistics, template), pure=False)
        blocks = [count(index, *block) for index, block in enumerate(_blocks(X, y, weight))]
        merged = _tree_reduce(blocks, split_every, _merge)
    if merged.statistics is None:
        raise ValueError("sample_weight is zero for every row (or X has no rows): there is nothing to learn from")
    return merged


def _finish(model, X, counted: _Counts, set_prior):
    """Add the merged statistics to the model's (along its classes), then what derives from them."""
    for name, value in counted.merge(model._statistics(), _on_classes(counted, model.classes_)).items():
        setattr(model, name, value)
    model._after_merged_statistics(first_fit=set_prior)
    _refresh(model, X)
    return model


class _Unstarted:
    """The template of a fit whose classes are not declared: the unfitted model and a one-row
    stand-in of X, on which each block starts its own copy with the block's labels as classes.
    """

    def __init__(self, model, stand_in):
        self.model, self.stand_in = model, stand_in
        self._started = {}  # classes → zeroed model: the blocks one task counts mostly share their classes

    def start(self, y):
        """A zeroed model along the block's labels, and those labels (None for no labels).
        Starting one is a ``partial_fit``, a noticeable share of counting a small block; a copy of
        one already started along the same classes costs much less.
        """
        classes = _sorted_labels(np.ravel(np.asarray(y)))
        if not len(classes):
            return None, classes
        key = (classes.dtype.str, tuple(classes.tolist()))
        if key not in self._started:
            self._started[key] = _zero_statistics(
                copy.deepcopy(self.model).partial_fit(self.stand_in, classes[:1], classes=classes)
            )
        return copy.deepcopy(self._started[key]), classes


def _sorted_labels(y: np.ndarray) -> np.ndarray:
    """Y's distinct labels, sorted (as the in-memory fit finds them, ``np.sort(pd.unique(y))``).
    Integers in a range no wider than y is long are read off a ``bincount``, cheaper than
    ``pd.unique``'s hashing of every label, a noticeable share of CategoricalNB's counting.
    """
    if y.dtype.kind in "iu" and y.size and np.can_cast(y.dtype, np.intp):
        low, high = int(y.min()), int(y.max())
        if high - low < y.size:
            offset = y if low == 0 else np.subtract(y, low, dtype=np.intp)
            return (np.flatnonzero(np.bincount(offset)) + low).astype(y.dtype)
    return np.sort(pd.unique(y))


class _Counts:
    """Statistics (a dict, or None when no row had weight) along the class axis ``classes``;
    ``merge``: the model's function that merges two of them (``_statistics_merger``).
    """

    def __init__(self, classes, statistics, merge):
        self.classes, self.statistics, self.merge = classes, statistics, merge


def _block_statistics(template, index: int, X, y, weight) -> _Counts:
    """``_counted_block``; a failure caused by a missing label (NaN, None, pd.NA: sorting or
    mapping the labels fails on it) is reported as the in-memory fit reports it, with the row
    counted within block ``index`` (its rows' numbers in the whole collection are not known
    here), and the labels are checked only then (looking for missing strings costs a fair share
    of a block's counting).
    """
    try:
        return _counted_block(template, X, y, weight)
    except (TypeError, ValueError):
        try:
            check_labels(y)
        except ValueError as missing:
            raise ValueError(f"block {index} of y: {missing} (rows counted from the block's first row)") from None
        raise


def _counted_block(template, X, y, weight) -> _Counts:
    """A block's statistics: a copy of the zeroed template after ``partial_fit`` on the block's
    rows, a slice at a time (no statistics for a block with no rows or no weight: it has
    nothing to count, but its labels are classes all the same).

    A block is counted in slices of ``_slice_rows`` rows: a partition of millions of rows counted
    in one call makes temporaries of tens of MB (class indices, weights, AODE's cells), each
    mapped afresh and faulted in, while a slice's temporaries stay in cache and are reused (the
    in-memory ``fit`` still counts all its rows in one call); smaller slices count a row more
    slowly. Counts are sums, so slices change no count.
    """
    model, classes = (
        template.start(y) if isinstance(template, _Unstarted) else (copy.deepcopy(template), template.classes_)
    )
    unstarted = template.model if isinstance(template, _Unstarted) else template
    merge = unstarted._statistics_merger()
    if np.shape(X)[0] == 0 or (weight is not None and not np.any(np.asarray(weight))):
        return _Counts(classes, None, merge)
    if model is None:  # no labels, but rows
        check_n_rows(np.shape(X)[0], 0)
    weight = None if weight is None else np.asarray(weight)
    rows = (
        np.shape(X)[0] if sp.issparse(X) else _slice_rows(model, np.shape(X)[1])
    )  # sparse: temporaries scale with nonzeros
    if rows < np.shape(X)[0]:
        y = _coded_labels(y, model.classes_)
    for start in range(0, np.shape(X)[0], rows):
        part = slice(start, start + rows)
        if weight is not None and not np.any(weight[part]):
            continue  # partial_fit refuses rows without weight; the block's other rows have some
        model.partial_fit(_take(X, part), _take(y, part), sample_weight=None if weight is None else weight[part])
    return _Counts(classes, model._statistics(), merge)


def _coded_labels(y, classes: np.ndarray):
    """Integer labels as a categorical Series over ``classes`` whose codes are their positions, so that
    each slice's ``partial_fit`` reads the codes instead of hashing its labels again (``pd.factorize``
    cost a quarter of CategoricalNB's counting of a block); ``y`` itself where that does not apply
    (labels that are not integers in a range no wider than ``classes``'s, or one not among them:
    ``partial_fit`` then reports it as it would).
    """
    labels = y.to_numpy() if isinstance(y, pd.Series) else y
    if not (
        isinstance(labels, np.ndarray)
        and labels.ndim == 1
        and np.can_cast(labels.dtype, np.intp)  # integers that index a table (uint64 may not)
        and np.can_cast(classes.dtype, np.intp)
        and labels.dtype.kind in "iu"
        and classes.dtype.kind in "iu"
        and labels.size
        and classes.size
    ):
        return y
    low, high = int(classes[0]), int(classes[-1])  # classes_ is sorted
    if high - low >= (1 << 16) or int(labels.min()) < low or int(labels.max()) > high:
        return y
    table = np.full(high - low + 1, -1, dtype=np.int32)
    table[classes.astype(np.intp) - low] = np.arange(len(classes), dtype=np.int32)
    codes = table[np.subtract(labels, low, dtype=np.intp) if low else labels]
    if np.minimum.reduce(codes, initial=0) < 0:  # a label between two classes that is not one
        return y
    dtype = pd.CategoricalDtype(pd.Index(classes, copy=False))
    index = y.index if isinstance(y, pd.Series) else None  # a partition's own row labels kept
    return pd.Series(pd.Categorical.from_codes(codes, dtype=dtype, validate=False), index=index, copy=False)


SLICE_VALUES = 1 << 21  # attribute values (rows × features) counted per partial_fit within a block


def _slice_rows(model, n_features: int) -> int:
    """Rows per slice of a block: ``SLICE_VALUES`` values, and at least 16 values per cell of
    the model's statistics, since every ``partial_fit`` also recomputes what it derives from them
    (TAN's tree from its pair tensor): that costs little against counting the slice.
    """
    cells = sum(np.size(value) for value in model._statistics().values())
    return max(1, max(SLICE_VALUES, 16 * cells) // max(1, n_features))


def _take(v, rows: slice):
    return v.iloc[rows] if isinstance(v, (pd.DataFrame, pd.Series)) else v[rows]


def _held_blocks(X, y, weight):
    """(client, [(x, y, weight) futures of each block]) when every block of X, y (and the
    weights) is a finished future of one distributed client (dask arrays after ``persist``),
    else None.
    """
    collections = [c for c in (X, y, weight) if c is not None]
    if "distributed" not in sys.modules or not all(isinstance(c, da.Array) for c in collections):
        return None
    from distributed import Future

    columns = []
    for c in collections:
        if c.ndim > 2 or np.prod(c.numblocks[1:]) != 1:
            return None
        graph, futures = c.__dask_graph__(), []
        for key in c.__dask_keys__():
            future = graph.get(key[0] if c.ndim == 2 else key)
            if not (isinstance(future, Future) and future.status == "finished"):
                return None  # at the first block that is a task to run
            futures.append(future)
        columns.append(futures)
    clients = {f.client for futures in columns for f in futures}
    if len(clients) != 1:
        return None
    return clients.pop(), [block if weight is not None else (*block, None) for block in zip(*columns)]


def _counted_in_place(template, client, blocks, split_every) -> _Counts:
    """Blocks held in the workers' memory counted where they lie: each worker's blocks are
    split among its threads, one task per thread counts its blocks in turn and merges them
    (``_counted_group``), so a fit costs a scheduling round trip per worker thread, not per
    block (dask's own messaging per task costs more than counting a block: BENCHMARKS.md,
    "Dask"); only statistics travel. A block whose X and y
    lie on no common worker is counted where its X lies. The group tasks may run elsewhere if
    their worker dies (the scheduler recomputes or moves what it held).
    """
    holders = client.who_has([f for block in blocks for f in block if f is not None])
    threads = {worker: info["nthreads"] for worker, info in client.scheduler_info()["workers"].items()}
    on_worker = {}
    for index, block in enumerate(blocks):
        where = [set(holders[f.key]) for f in block if f is not None]
        common = set.intersection(*where) or where[0]
        # replicas: the least loaded holder; a block lost meanwhile (None) goes where the scheduler sends it
        worker = min(sorted(common), key=lambda w: len(on_worker.get(w, []))) if common else None
        on_worker.setdefault(worker, []).append(index)
    groups = []
    for worker, indices in on_worker.items():
        for part in np.array_split(indices, min(len(indices), threads.get(worker, 1))):
            group = [(int(i), *blocks[i]) for i in part]
            placement = {} if worker is None else {"workers": [worker], "allow_other_workers": True}
            groups.append(client.submit(_counted_group, template, group, pure=False, **placement))
    while len(groups) > split_every:
        groups = [
            client.submit(_merge, *groups[i : i + split_every], pure=False) for i in range(0, len(groups), split_every)
        ]
    return _merge(*client.gather(groups))


def _counted_group(template, group) -> _Counts:
    """The merged statistics of blocks (index, X, y, weight) counted in turn by one task."""
    return _merge(*(_block_statistics(template, *block) for block in group))


def _tree_reduce(parts, split_every, combine):
    """``combine`` over the delayed parts, ``split_every`` at a time up a tree whose last node
    runs here: the parts of its level (at most ``split_every``) come back in one compute and
    are combined in this process (a task of its own cost one more scheduling round and a
    transfer between workers for no saving).
    """
    while len(parts) > split_every:
        parts = [dask.delayed(combine)(*parts[i : i + split_every]) for i in range(0, len(parts), split_every)]
    return combine(*dask.compute(*parts))


def _merge(*parts: _Counts) -> _Counts:
    """The parts' statistics added along the sorted union of their classes."""
    classes = parts[0].classes
    if any(not np.array_equal(p.classes, classes) for p in parts[1:]):
        classes = _sorted_labels(np.concatenate([p.classes for p in parts]))
    counted = [_on_classes(p, classes) for p in parts if p.statistics is not None]
    merged = counted[0] if counted else None
    for other in counted[1:]:
        merged = parts[0].merge(merged, other)
    return _Counts(classes, merged, parts[0].merge)


def _on_classes(part: _Counts, classes) -> dict:
    """A part's statistics along ``classes`` (a superset of its own): zero for a class it lacks."""
    if np.array_equal(part.classes, classes):
        return part.statistics
    rows = pd.Index(classes).get_indexer(part.classes)
    wide = {}
    for name, value in part.statistics.items():
        wide[name] = np.zeros((len(classes), *value.shape[1:]), dtype=value.dtype)
        wide[name][rows] = value
    return wide


def _zero_statistics(model):
    for name, value in model._statistics().items():
        setattr(model, name, None if value is None else np.zeros_like(value))  # None: a statistic the data do not need
    return model


def _refresh(model, X):
    """Recompute what the model derives from its statistics (posterior concentrations, TAN's
    tree) by adding an empty batch, as its own ``_count`` does after every batch.
    """
    empty = _stand_in(X)[:0]
    model._count(model._encode(empty, reset=False, training=True), np.zeros(0, np.intp), np.zeros(0))
    model.class_concentration_ = model._class_prior.posterior(model.class_count_).concentration
    model._learn_hyperparameters()  # "evidence" hyperparameters: from the whole data's statistics


# ---------------------------------------------------------------------- inputs
def _declared_classes(y, method: str):
    """Y's declared categories, None if it declares none; an error if they are unknown."""
    if isinstance(y, dd.Series) and isinstance(y.dtype, pd.CategoricalDtype):
        if not y.cat.known:
            raise ValueError(
                f"y is a dask Categorical with unknown categories, so the classes are not fixed before "
                f"{method}: call y.cat.as_known() or pass declared categories"
            )
        return np.asarray(y.dtype.categories)
    return None


def _check_domains(model, X):
    """Categorical attributes need their domain before counting: a known Categorical or
    ``n_categories``; an error names the first column that has neither. A Categorical column
    is read by its categories whatever the model (its one-row stand-in carries them), so they
    must be known for every model.
    """
    if isinstance(X, dd.DataFrame):
        check_unique_columns(X._meta)  # a repeated name's dtype would read as a Series of them
        for name in X.columns:
            dtype = X.dtypes[name]
            if isinstance(dtype, pd.CategoricalDtype):
                if not X[name].cat.known:
                    raise ValueError(f"column {name!r} is a dask Categorical with unknown categories; {_CATEGORIZE}")
            elif model._needs_declared_domains and model.n_categories is None:
                raise ValueError(
                    f"column {name!r} ({dtype}) has no declared domain; {_CATEGORIZE}, or pass n_categories"
                )
    elif model._needs_declared_domains and model.n_categories is None:
        raise ValueError(
            "a dask array of attribute codes has no declared domain: pass n_categories (values 0..n−1) "
            "or use a dask DataFrame with Categorical columns"
        )


def _stand_in(X):
    """One in-memory row with X's columns and dtypes: 0 in numeric columns, missing in
    categorical ones (so it is inside every declared domain).
    """
    if isinstance(X, dd.DataFrame):
        meta = X._meta
        columns = {}
        for name, dtype in meta.dtypes.items():
            if isinstance(dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(dtype):
                columns[name] = pd.Series([None], dtype=dtype)
            else:
                columns[name] = pd.Series([0], dtype=dtype)
        return pd.DataFrame(columns)
    if sp.issparse(X._meta):
        return sp.csr_array((1, X.shape[1]), dtype=X.dtype)
    return np.zeros((1, X.shape[1]), dtype=X.dtype)


def _aligned(X, y, sample_weight):
    """X with whole rows per block, and y and the weights split into X's blocks."""
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D dask array (rows × features), got {X.ndim}-D")
        X = X.rechunk({1: -1})
    elif not isinstance(X, dd.DataFrame):
        raise TypeError(f"X must be a dask DataFrame or dask array, got {type(X).__name__}")
    if y is None:
        raise ValueError("y is None: fitting needs the class labels, a dask Series/array split like X")
    return X, _split_like(X, y, "y"), None if sample_weight is None else _split_like(X, sample_weight, "sample_weight")


def _split_like(X, v, name):
    if not dask.is_dask_collection(v):
        if isinstance(X, da.Array) and not np.isnan(X.shape[0]):
            v = np.asarray(v)
            if len(v) != X.shape[0]:
                raise ValueError(f"X has {X.shape[0]} rows but {name} has {len(v)}; they must match")
            return da.from_array(v, chunks=(X.chunks[0],) + v.shape[1:])
        raise ValueError(
            f"{name} must be a dask collection split into X's partitions (e.g. df[target] of the same dask DataFrame)"
        )
    if isinstance(X, da.Array) and isinstance(v, da.Array) and v.chunks[0] != X.chunks[0] and not np.isnan(X.shape[0]):
        v = v.rechunk((X.chunks[0],) + v.chunks[1:])
    if _n_blocks(v) != _n_blocks(X):
        raise ValueError(
            f"X has {_n_blocks(X)} blocks of rows but {name} has {_n_blocks(v)}; split them alike "
            "(e.g. X and y from the same dask DataFrame)"
        )
    return v


def _n_blocks(c) -> int:
    return c.numblocks[0] if isinstance(c, da.Array) else c.npartitions


def _delayed_blocks(c) -> list:
    # unoptimized: the optimizer may fuse a projected read's partitions, which would unpair X's and y's
    return list(c.to_delayed().ravel()) if isinstance(c, da.Array) else list(c.to_delayed(optimize_graph=False))


_Y, _W = "__pgm_models_y__", "__pgm_models_weight__"


def _blocks(X, y, weight):
    """Delayed (X, y, weight) blocks of rows. A y (and weights) computed from X's own frame
    rides in X's partitions: one read per block, paired whatever the optimizer fuses.
    """
    riders = {name: v for name, v in ((_Y, y), (_W, weight)) if v is not None}
    if isinstance(X, dd.DataFrame) and all(
        isinstance(v, dd.Series) and are_co_aligned(X.expr, v.expr) for v in riders.values()
    ):
        return [dask.delayed(_unpack, nout=3)(part) for part in X.assign(**riders).to_delayed()]
    columns = [
        _delayed_blocks(X),
        _delayed_blocks(y),
        [None] * _n_blocks(X) if weight is None else _delayed_blocks(weight),
    ]
    return zip(*columns)


def _unpack(frame):
    return frame.drop(columns=[c for c in (_Y, _W) if c in frame]), frame[_Y], frame[_W] if _W in frame else None


# ---------------------------------------------------------------------- prediction
def predict_joint_log_proba(model, X, estimate=None):
    """Log p(x_n, y = k) block by block: a dask array (N, K)."""
    return _map_rows(model, X, "predict_joint_log_proba", estimate)


def predict_log_proba(model, X, estimate=None):
    """Log P(y = k | x_n) block by block: a dask array (N, K)."""
    return _map_rows(model, X, "predict_log_proba", estimate)


def predict_proba(model, X, estimate=None):
    """P(y = k | x_n) block by block: a dask array (N, K)."""
    return _map_rows(model, X, "predict_proba", estimate)


def predict(model, X, loss=None, estimate=None):
    """The Bayes decision of every row: a dask array of labels."""
    return _map_rows(model, X, "predict", estimate, **({} if loss is None else {"loss": loss}))


def predict_proba_draws(model, X, n_draws=200, random_seed=None):
    """P(y | x_n, θ_s) under ``n_draws`` exact posterior draws: a dask array (S, N, K). Every
    block draws the same θ_1..θ_S from one seed.
    """
    seed = np.random.default_rng(random_seed).integers(2**63)
    return _map_rows(model, X, "predict_proba_draws", None, n_draws=n_draws, random_seed=seed).transpose(1, 0, 2)


def _map_rows(model, X, method, estimate, **kwargs):
    """Apply ``model.<method>`` to every block of rows: a dask array of rows × (classes, or
    draws × classes). A PosteriorDraw is replaced by one seed, from which every block makes
    the same draw (all rows see one θ, as in memory). An ``estimate`` (or ``loss``) the caller
    did not give is not passed on: a model with one way to predict has no such parameter.
    """
    check_fitted(model, model._predicts_when_fitted)
    if isinstance(estimate, PosteriorDraw):
        kwargs["estimate"] = _SeededDraw(estimate.rng.integers(2**63))
    elif estimate is not None:
        kwargs["estimate"] = estimate
    block = _BlockMethod(model, method, kwargs)
    K = len(model.classes_)
    if method == "predict":
        shape, dtype = (), model.classes_.dtype
    else:
        shape, dtype = (kwargs["n_draws"], K) if method == "predict_proba_draws" else (K,), float
    meta = np.empty((0, *shape), dtype=dtype)
    if isinstance(X, dd.DataFrame):
        return X.map_partitions(block, meta=meta)
    if not isinstance(X, da.Array) or X.ndim != 2:
        raise TypeError(f"X must be a dask DataFrame or 2-D dask array, got {type(X).__name__}")
    X = X.rechunk({1: -1})
    if not shape:
        return X.map_blocks(block, drop_axis=1, meta=meta)
    return X.map_blocks(
        block, chunks=(X.chunks[0], *((n,) for n in shape)), new_axis=list(range(2, len(shape) + 1)), meta=meta
    )


class _SeededDraw:
    """Stands for a PosteriorDraw in a task: each block builds the same draw from the seed."""

    def __init__(self, seed):
        self.seed = seed


class _BlockMethod:
    """A picklable ``model.<method>(block, **kwargs)``; a block's draws put rows first."""

    def __init__(self, model, method, kwargs):
        self.model, self.method, self.kwargs = model, method, kwargs

    def __call__(self, block):
        kwargs = dict(self.kwargs)
        if isinstance(kwargs.get("estimate"), _SeededDraw):
            kwargs["estimate"] = PosteriorDraw(kwargs["estimate"].seed)
        result = getattr(self.model, self.method)(block, **kwargs)
        return result.transpose(1, 0, 2) if self.method == "predict_proba_draws" else result


# ---------------------------------------------------------------------- files and schedulers
def read_table(path: str, target: str | None = None, blocksize="64MB"):
    """(X, y) as dask collections from Parquet or CSV files (a glob, a directory, or one file),
    with every text/Categorical column's domain declared: one pass over those columns finds
    their values before counting. ``target`` defaults to the last column.
    """
    files = _files(path)
    suffixes = {os.path.splitext(f)[1].lower() for f in files}
    if suffixes <= {".parquet", ".pq"}:
        frame = dd.read_parquet(files)
    elif suffixes == {".csv"}:
        frame = dd.read_csv(files, blocksize=blocksize)
    else:
        raise ValueError(f"{path!r} matches files of types {sorted(suffixes)}; expected .parquet or .csv files")
    target = frame.columns[-1] if target is None else target
    if target not in frame.columns:
        raise ValueError(f"target column {target!r} is not among {list(frame.columns)}")
    nominal = [
        c
        for c in frame.columns
        if isinstance(frame.dtypes[c], pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(frame.dtypes[c])
    ]
    if nominal:  # their domains in one pass: the sorted values seen, as load_table declares them
        seen = [dask.delayed(_values)(part) for part in frame[nominal].to_delayed()]
        values = _tree_reduce(seen, SPLIT_EVERY, _union)
        frame = frame.astype({c: pd.CategoricalDtype(sorted(values[c])) for c in nominal})
    return frame.drop(columns=[target]), frame[target]


def _files(path: str) -> list[str]:
    files = sorted(glob.glob(os.path.join(path, "*")) if os.path.isdir(path) else glob.glob(path))
    if not files:
        raise FileNotFoundError(f"no files match {path!r}")
    return files


def _values(part) -> dict:
    return {c: set(part[c].dropna().unique()) for c in part.columns}


def _union(*parts) -> dict:
    return {c: set().union(*(p[c] for p in parts)) for c in parts[0]}


def fit_files(model, path: str, target: str | None, address: str):
    """Fit ``model`` to Parquet/CSV files on the Dask scheduler at ``address`` (or "local");
    returns the (X, y) dask collections it read (``pgm-models fit --scheduler``).
    """
    if not model._generative:
        raise ValueError(
            f"{type(model).__name__} has no sufficient statistics to reduce; --scheduler fits generative models"
        )
    _files(path)  # before starting a cluster
    with scheduler(address):
        X, y = read_table(path, target)
        model.fit(X, y)
    return X, y


# Dask starts workers with MALLOC_TRIM_THRESHOLD_=65536 (to hand freed memory back to the OS).
# Setting it turns off glibc's adaptive mmap threshold, so every temporary array over 128 KiB is
# mapped afresh and its pages faulted in again, which slows a worker's counting. glibc's
# adaptive default is no cure in a worker either: a task runs in a thread of its own, whose
# malloc arena kept handing the slices' temporaries (a few MB for 2^21 values) back and
# faulting them in again (BENCHMARKS.md, "Dask"). So workers started here get fixed
# thresholds: arrays under 16 MiB come from the heap, and up to 32 MiB of free heap is kept for
# the next slice. The block statistics need no trimming (a worker keeps only statistics);
# larger arrays (a block itself) are mapped and handed back as before.
ALLOCATOR = {"glibc.malloc.mmap_threshold": 16 << 20, "glibc.malloc.trim_threshold": 32 << 20}
_PRE_SPAWN = "distributed.nanny.pre-spawn-environ."
WORKER_CONFIG = {
    _PRE_SPAWN + "MALLOC_TRIM_THRESHOLD_": None,
    _PRE_SPAWN + "GLIBC_TUNABLES": ":".join(f"{name}={value}" for name, value in ALLOCATOR.items()),
}


def local_cluster(**kwargs):
    """A ``distributed.LocalCluster`` of worker processes (``kwargs`` passed on) whose workers
    get ``ALLOCATOR``'s malloc thresholds (``WORKER_CONFIG``). A cluster started elsewhere gets
    the same by those dask config keys (``distributed.nanny.pre-spawn-environ``:
    ``MALLOC_TRIM_THRESHOLD_: null``, ``GLIBC_TUNABLES: glibc.malloc.mmap_threshold=16777216:glibc.malloc.trim_threshold=33554432``);
    a ``GLIBC_TUNABLES`` set in this process's environment wins over it.
    """
    from distributed import LocalCluster

    # a Nanny writes its pre-spawn environment into this process's os.environ, so a cluster
    # started earlier here would pass MALLOC_TRIM_THRESHOLD_ on to these workers too, and this
    # process's later subprocesses would inherit the workers' GLIBC_TUNABLES
    inherited = {
        "MALLOC_TRIM_THRESHOLD_": os.environ.pop("MALLOC_TRIM_THRESHOLD_", None),
        "GLIBC_TUNABLES": os.environ.get("GLIBC_TUNABLES"),
    }
    try:
        with dask.config.set(WORKER_CONFIG):
            return LocalCluster(processes=True, **kwargs)
    finally:
        for name, value in inherited.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def scheduler(address: str | None):
    """A distributed Client for the block of code: ``"local"`` starts a LocalCluster on this
    machine (``local_cluster``), anything else is a scheduler's address (``tcp://host:8786``).
    """
    from distributed import Client

    if address == "local":
        with local_cluster() as cluster, Client(cluster) as client:
            yield client
    else:
        with Client(address) as client:
            yield client
