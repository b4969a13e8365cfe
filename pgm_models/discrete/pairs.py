"""Pairwise sufficient statistics of categorical attributes, shared by SPODE, AODE and TAN.

Each attribute j has r_j value cells and one more cell for "missing", laid side by side
(T' = Σ_j (r_j + 1) cells). A row is one-hot in each attribute's block, so its design row
has exactly F ones, and for each class k the K × T' × T' tensor

    C[k, s, t] = Σ_i w_i 1{y_i = k} D[i, s] D[i, t]

holds every count the semi-naive models need, built by one one-hot product per class (or, for
rows of weight 1, by the bit sets of ``pgm_models.discrete.bitsets``):
C[k, s, s] is N(y=k, cell s) (so the diagonal gives naive Bayes' counts), C[k, s, t] is
N(y=k, s, t), and the missing cells give the available-case denominators Weka uses.
Memory: K·T'² floats for AODE and TAN, which use every pair (vote: 2 × 48², a 50k × 30 set
with 4 values each: 2 × 150²); a SPODE counts only the rows s of its super-parent's r_a value
cells, K·r_a·T' floats. A tensor that cannot fit in the memory available is refused before
it is allocated, with its size (``check_memory``).
"""

from __future__ import annotations

import functools
import math
import os
import time

import numpy as np

from pgm_models._utils import jit
from pgm_models._utils.weights import is_unit_weight


class PairLayout:
    """Cell indices of attributes with ``sizes`` r_j values plus a missing cell each."""

    def __init__(self, sizes):
        self.sizes = np.asarray(sizes, dtype=np.intp)
        self.starts = np.concatenate(([0], np.cumsum(self.sizes + 1)[:-1]))
        self.n_cells = int((self.sizes + 1).sum())
        self.missing_cells = self.starts + self.sizes
        self.value_starts = np.concatenate(
            ([0], np.cumsum(self.sizes)[:-1])
        )  # each attribute's first among the T value cells
        self.attribute_of_value_cell = np.repeat(np.arange(len(self.sizes)), self.sizes)
        # value v of attribute j: its position among the T value cells moved past the j missing cells before it
        self.value_cells = np.arange(int(self.sizes.sum())) + self.attribute_of_value_cell
        # (F,) −1 for counts where a missing value has no cell: made here, not on first use, so that
        # counting and scoring, from any number of threads, only read the layout
        self.no_cells = np.full(len(self.sizes), -1, np.intp)
        for array in (
            self.sizes,
            self.starts,
            self.missing_cells,
            self.value_starts,
            self.attribute_of_value_cell,
            self.value_cells,
            self.no_cells,
        ):
            array.flags.writeable = False  # shared by the fits of ``of_sizes``

    @staticmethod
    @functools.lru_cache(maxsize=64)
    def of_sizes(sizes: tuple) -> PairLayout:
        """The layout of these attribute sizes, one shared by every fit that has them (building it
        again is a cost each small fit would pay: cross-validation folds have the same sizes).
        """
        return PairLayout(sizes)

    def clear_same_attribute(self, tables: np.ndarray) -> None:
        """Set to 0, in place, the entries of (…, T, T) ``tables`` whose two value cells are of one
        attribute (a parent is not its own child): one block per attribute, no (T, T) mask.
        """
        for start, size in zip(self.value_starts.tolist(), self.sizes.tolist()):
            tables[..., start : start + size, start : start + size] = 0.0

    def same_attribute_mask(self) -> np.ndarray:
        """(T, T) whether two value cells are of one attribute: a fresh array per call (the layout is
        shared and only read).
        """
        attribute = self.attribute_of_value_cell
        return attribute[:, None] == attribute[None, :]

    def cells(self, codes: np.ndarray) -> np.ndarray:
        """(N, F) cell of each attribute of each row; a missing value (−1) goes to its missing cell."""
        return _cells(codes, self.starts, self.missing_cells)

    def value_index(self, codes: np.ndarray) -> np.ndarray:
        """(N, F) position of each observed value among the T value cells; T if missing."""
        return _cells(codes, self.value_starts, int(self.sizes.sum()))

    def value_cell(self, attribute: int) -> slice:
        """Positions of an attribute's value cells among ``value_cells``."""
        start = int(self.sizes[:attribute].sum())
        return slice(start, start + int(self.sizes[attribute]))

    def pair_cells(self, attribute: int) -> slice:
        """An attribute's value cells among all T' cells (a slice: indexing with it is a view)."""
        start = int(self.starts[attribute])
        return slice(start, start + int(self.sizes[attribute]))


def _cells(codes: np.ndarray, offsets, missing) -> np.ndarray:
    """``codes + offsets``, and ``missing`` where a code is −1 (written in place: np.where costs two
    more arrays of the codes' shape; copyto broadcasts ``missing`` itself, without np.broadcast_to's call).
    """
    index = codes + offsets
    np.copyto(index, missing, where=codes < 0)
    return index


_MEMINFO_SECONDS = 1.0  # how long one reading of the available memory stands
_meminfo = {"read_at": -np.inf, "bytes": 0}


def available_memory(max_age: float = _MEMINFO_SECONDS) -> int:
    """Bytes of memory a new allocation can use: Linux's MemAvailable, else the physical memory;
    a reading at most ``max_age`` seconds old stands (reading /proc/meminfo is a noticeable share
    of a small AODE fit on a busy machine, and cross-validation fits many models a second).
    """
    now = time.monotonic()
    if now - _meminfo["read_at"] >= max_age:
        _meminfo["read_at"], _meminfo["bytes"] = now, _read_available_memory()
    return _meminfo["bytes"]


def _read_available_memory() -> int:
    return min(_system_available_memory(), _address_space_left())


def _system_available_memory() -> int:
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _address_space_left() -> float:
    """What an address-space limit (``ulimit -v``, RLIMIT_AS) leaves this process: the limit less
    its mapped size now (inf without a limit, or off Linux).
    """
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        if limit == resource.RLIM_INFINITY:
            return np.inf
        with open("/proc/self/statm") as statm:
            return limit - int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError):
        return np.inf


def check_memory(n_floats: int, what, remedy: str) -> None:
    """Refuse, before allocating it, a float64 working set that cannot fit in memory; ``what`` names
    it, or is a function that does (called only to refuse: formatting the name is a cost every small fit would pay).
    """
    needed, available = 8 * n_floats, available_memory()
    if needed > available / 2:  # near the limit a reading up to a second old will not do
        available = available_memory(max_age=0)
    if needed > available:
        raise ValueError(
            f"{what() if callable(what) else what} needs {needed / 2**30:.3g} GiB of memory, more than the {available / 2**30:.3g} GiB available; {remedy}"
        )


def family_block(pairs: np.ndarray, child: slice, parent: slice | None = None) -> np.ndarray:
    """A family's counts read off a (K, cells, cells) pair tensor, a view: (K, r_parent, r_child) of
    the child's ``child`` cells given the ``parent`` cells, or the child's own (K, r_child) diagonal
    block without a parent.
    """
    if parent is None:
        return np.diagonal(pairs[:, child, child], axis1=1, axis2=2)
    return pairs[:, parent, child]


def conditional_information(tables: np.ndarray) -> np.ndarray:
    """I(A; B | C) of each (K, r_a, r_b) count table of a batch (B, K, r_a, r_b), C the leading axis
    of a table (a single cell for I(A; B)), from the weighted relative frequencies: (B,); 0 for an
    empty table. Σ p̂(c, a, b) log p̂(c, a, b) p̂(c) / (p̂(c, a) p̂(c, b)), natural logarithms. A fit's
    tables are a batch of one, so leave-one-out tables are summed alike.
    """
    total = tables.sum(axis=(1, 2, 3), keepdims=True)
    joint = tables / np.where(total > 0, total, 1.0)
    row, column = joint.sum(axis=3, keepdims=True), joint.sum(axis=2, keepdims=True)
    class_total = joint.sum(axis=(2, 3), keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = joint * np.log(joint * class_total / (row * column))
    return np.nansum(np.where(joint > 0, terms, 0.0), axis=(1, 2, 3))


def check_pair_memory(model: str, layout: PairLayout, shape, copies: int, remedy: str) -> None:
    """``check_memory`` of a pair tensor of ``shape`` (classes × cells × cells) held ``copies`` times,
    named with the model and the layout's values and attributes.
    """
    check_memory(
        copies * math.prod(shape),
        lambda: (
            f"{model}'s pair counts, a {' × '.join(map(str, shape))} tensor (classes × cells × cells, "
            f"{int(layout.sizes.sum())} values of {len(layout.sizes)} attributes) held about {copies} times,"
        ),
        remedy,
    )


def one_hot(cells: np.ndarray, n_columns: int, dtype=np.float64) -> np.ndarray:
    """(N, n_columns) rows with a 1 in each of their ``cells`` (N, F), written by flat index."""
    design = np.zeros((len(cells), n_columns), dtype=dtype)
    design.reshape(-1)[(np.arange(len(cells)) * n_columns)[:, None] + cells] = 1.0
    return design


# One-hot rows are encoded a block at a time, 1 MB (float32) or 2 MB per block: the blocks reuse
# one buffer that stays in cache, where one large design faults in fresh pages.
FLOATS_PER_BLOCK = 250_000
_FLOAT32_EXACT = 2**24  # float32 holds every whole number up to 2^24 exactly
# Up to this many rows × T'² the product spans every cell at once: deriving the missing cells'
# counts costs more than the larger product on small data
DIRECT_PRODUCT_WORK = 1 << 25
# Below DIRECT_PRODUCT_WORK, rows of weight 1 are counted by the compiled bit sets over all T' cells
# (``counted_by_bit_sets``) rather than the product, faster on small folds (BENCHMARKS.md, "Compiled
# kernels for small folds"; setting the bits and one POPCNT per 64 rows of a pair of cells; no
# one-hot design, no BLAS call or thread context; only once numba is loaded in the process,
# ``jit.loaded``: a lone small fit never imports it). False: the product.
COMPILED_SMALL_COUNTS = True


def pair_counts(
    layout: PairLayout, codes, class_index, weight, n_classes: int, pair_rows=slice(None), bit_sets=None
) -> np.ndarray:
    """The K × T' × T' tensor C of one batch: per class, Dᵀ diag(w) D with a dense one-hot D
    (a BLAS product), one block of rows and one class at a time. ``pair_rows`` (a slice of the T'
    cells) keeps only those rows s of C[k, s, t]: K × |rows| × T'.

    The entries are sums of weights and exact. With whole-number weights the product spans the
    T value cells only (a missing value has no column: (T/T')² of the work) and the missing cells'
    counts follow by subtraction, since each row has exactly one cell per attribute:

        C[k, s, m_j] = C[k, s, s] − Σ_{v ∈ j} C[k, s, v],   C[k, m_i, m_i] = n_k − Σ_{u ∈ i} C[k, u, u],
        C[k, m_i, m_j] = C[k, m_i, m_i] − Σ_{v ∈ j} C[k, v, m_i]   (for j = i the sum is 0),

    exact differences of whole numbers. With unit weights (every row counted once) the value
    cells' counts of every row of C come from bit sets instead of the product (``_bit_counts``).
    Other weights put every cell in the product (a count derived by subtraction would carry a
    rounding error where it should be 0), and so does small data (``DIRECT_PRODUCT_WORK``), whose
    unit-weight rows are counted by the bit sets over every cell instead (``counted_by_bit_sets``):
    the same whole-number counts. ``bit_sets``: ``counted_by_bit_sets`` of these rows where the caller
    has it (None: found here; reading every weight again is a cost a small fit would pay twice).
    """
    if len(codes) * layout.n_cells**2 > DIRECT_PRODUCT_WORK:
        if np.array_equal(weight, np.round(weight)):
            derived = _derived_pair_counts(layout, codes, class_index, weight, n_classes, pair_rows)
            if derived is not None:
                return derived
    elif counted_by_bit_sets(layout, len(codes), n_classes, weight) if bit_sets is None else bit_sets:
        # every cell's bits set directly (a missing value's in its missing cell): no derivation
        return _bit_counts(codes, layout.starts, layout.missing_cells, class_index, n_classes, layout.n_cells)[
            :, pair_rows
        ]
    return _products(
        codes, layout.starts, layout.missing_cells, layout.n_cells, pair_rows, class_index, weight, n_classes
    )


def counted_by_bit_sets(layout: PairLayout, n_rows: int, n_classes: int, weight) -> bool:
    """Whether ``pair_counts`` counts rows of small data (``DIRECT_PRODUCT_WORK``) by the compiled bit
    sets over every cell (``COMPILED_SMALL_COUNTS``: rows of weight 1, classes × cells within
    ``BITSET_CLASS_CELLS``, numba already loaded), which call no BLAS.
    """
    return (
        COMPILED_SMALL_COUNTS
        and n_rows * layout.n_cells**2 <= DIRECT_PRODUCT_WORK
        and jit.loaded()
        and n_classes * layout.n_cells <= BITSET_CLASS_CELLS
        and is_unit_weight(weight)
    )


def _derived_pair_counts(layout: PairLayout, codes, class_index, weight, n_classes: int, pair_rows):
    """``pair_counts`` with whole-number weights by the value cells' product (or bit sets) and the
    subtractions above, for rows of C that are every cell or one attribute's value cells (else None).
    """
    rows = np.arange(layout.n_cells)[pair_rows]
    n_values = len(layout.value_cells)
    position = np.full(layout.n_cells, -1)
    position[layout.value_cells] = np.arange(n_values)
    value_rows = position[rows]
    every_row = len(rows) == layout.n_cells
    one_attribute = (
        value_rows.size and (value_rows >= 0).all() and np.array_equal(np.diff(value_rows), np.ones(len(rows) - 1))
    )
    if not (every_row or one_attribute):
        return None
    product_rows = slice(None) if every_row else slice(value_rows[0], value_rows[-1] + 1)
    if every_row and n_classes * n_values <= BITSET_CLASS_CELLS and is_unit_weight(weight):
        values = _bit_counts(codes, layout.value_starts, layout.no_cells, class_index, n_classes, n_values)
    else:
        # a missing value goes to one extra column, which the derivation does not read
        no_cell = np.full(len(layout.sizes), n_values)
        values = _products(
            codes, layout.value_starts, no_cell, n_values + 1, product_rows, class_index, weight, n_classes
        )
        values = values[:, : n_values if every_row else len(rows), :n_values]  # (K, rows, T)
    of_attribute = layout.attribute_of_value_cell[:, None] == np.arange(len(layout.sizes))  # (T, F)
    diagonal = np.diagonal(values[:, :, product_rows] if not every_row else values, axis1=1, axis2=2)
    value_to_missing = diagonal[:, :, None] - values @ of_attribute  # (K, rows, F): C[k, s, m_j]
    counts = np.zeros((n_classes, len(rows), layout.n_cells))
    if not every_row:  # one attribute's value cells
        counts[:, :, layout.value_cells] = values
        counts[:, :, layout.missing_cells] = value_to_missing
        return counts
    value, missing = layout.value_cells, layout.missing_cells
    counts[:, value[:, None], value] = values
    counts[:, value[:, None], missing] = value_to_missing
    missing_to_value = value_to_missing.transpose(0, 2, 1)  # (K, F, T): C[k, m_i, v]
    counts[:, missing[:, None], value] = missing_to_value
    missing_total = (
        np.bincount(class_index, weight, n_classes)[:, None] - diagonal @ of_attribute
    )  # (K, F): C[k, m_i, m_i]
    counts[:, missing[:, None], missing] = missing_total[:, :, None] - missing_to_value @ of_attribute
    return counts


# Bit sets count in every chunk of rows a pass over all K·T² pairs of cells, whether or not a
# class has rows there, so with many classes they lose to the product: above this many
# class cells the product counts
BITSET_CLASS_CELLS = 1 << 13
# Rows counted per call of the bit-set kernel: its bit sets (K·T bits a row) stay within 8 MB,
# and the chunk's codes, widened to intp, within 2 MB
BITSET_BYTES = 1 << 23
CHUNK_CODE_BYTES = 1 << 21


def _bit_counts(codes, value_starts, missing_cells, class_index, n_classes: int, n_values: int) -> np.ndarray:
    """(K, T, T) counts of the T cells of unit-weight rows (value v of attribute j in cell
    ``value_starts[j] + v``, a missing one in ``missing_cells[j]`` or, where that is −1, none), by the bit sets of
    ``pgm_models.discrete.bitsets`` (numba, imported here, and compiled on first use,
    then read from its on-disk cache), a chunk of rows at a time.
    """
    add_value_pair_counts = jit.kernels("pgm_models.discrete.bitsets").add_value_pair_counts
    counts = np.zeros((n_classes, n_values, n_values))
    n_features = max(1, codes.shape[1])
    rows = 64 * max(1, min(BITSET_BYTES // (8 * n_classes * n_values), CHUNK_CODE_BYTES // (64 * 8 * n_features)))
    for start in range(0, len(codes), rows):
        # two compiled kernels, int8 and intp: other dtypes are widened a chunk at a time
        # (widening the whole block wrote, and in a dask worker faulted in, 8 bytes a value:
        # BENCHMARKS.md, "Dask")
        chunk = jit.kernel_codes(codes[start : start + rows])
        classes = np.asarray(class_index[start : start + rows], dtype=np.intp)
        add_value_pair_counts(chunk, value_starts, missing_cells, classes, counts)
    return counts


def _products(codes, offsets, missing, n_columns: int, pair_rows, class_index, weight, n_classes: int) -> np.ndarray:
    """Per class k, Dᵀ diag(w) D restricted to the ``pair_rows`` columns of Dᵀ, D the one-hot over
    ``n_columns`` of the cells ``codes + offsets`` (N, F), a missing value (−1) of attribute j in
    column ``missing[j]``: (K, |rows|, n_columns). Each class's rows, in order, are taken a
    segment of at most as many rows as the largest class or a block's share of ``FLOATS_PER_BLOCK``
    at a time, one product per segment. The segments are encoded into one buffer as many at a
    time as it holds, their cells found together (an (N, F) array of them costs its page faults,
    more than finding them; on small data every class's rows fill one buffer, their cells found and
    set once rather than once per class). When the weights are whole numbers and no
    segment's total can reach 2^24 the product runs in float32 (faster than BLAS's float64,
    every partial sum a whole number float32 holds), otherwise in float64. The buffer is cleared
    after its products (a fresh zeroed block costs its page faults); the ones are set by flat
    index assignment, faster than np.put (BENCHMARKS.md, "Against a warm Weka, per CV fold").
    """
    counts = np.zeros((n_classes, len(range(n_columns)[pair_rows]), n_columns))
    class_rows = np.bincount(class_index, minlength=n_classes)
    buffer_rows = max(1, FLOATS_PER_BLOCK // n_columns)
    rows_per_segment = max(1, min(buffer_rows, class_rows.max(initial=1)))
    unit = is_unit_weight(weight)
    whole = (
        rows_per_segment < _FLOAT32_EXACT
        if unit
        else (np.array_equal(weight, np.round(weight)) and rows_per_segment * weight.max(initial=0) < _FLOAT32_EXACT)
    )
    buffer = np.zeros((min(buffer_rows, len(codes)), n_columns), dtype=np.float32 if whole else np.float64)
    flat, row_starts = buffer.reshape(-1), (np.arange(len(buffer)) * n_columns)[:, None]
    value_at, missing_at = row_starts + offsets, row_starts + missing  # flat positions in the buffer
    members = np.argsort(class_index, kind="stable")  # each class's rows in order, class by class
    ends = np.cumsum(class_rows).tolist()
    segments = [
        (k, start, min(start + rows_per_segment, end))
        for k, end in enumerate(ends)
        for start in range(end - int(class_rows[k]), end, rows_per_segment)
    ]
    done = 0
    while done < len(segments):
        first, last = segments[done][1], done + 1
        while last < len(segments) and segments[last][2] - first <= len(buffer):  # the next segments the buffer holds
            last += 1
        taken, done = segments[done:last], last
        rows = members[first : taken[-1][2]]
        flat[_cells(codes[rows], value_at[: len(rows)], missing_at[: len(rows)])] = 1.0
        for k, start, end in taken:
            design = buffer[start - first : end - first]
            # unit weights: Dᵀ D of one buffer, which BLAS computes as a symmetric product (syrk)
            weighted = design if unit else design * weight[members[start:end]].astype(design.dtype)[:, None]
            counts[k] += design[:, pair_rows].T @ weighted
        buffer[: len(rows)].fill(0.0)
    return counts
