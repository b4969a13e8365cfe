"""Bundled datasets and an ARFF loader.

``load_arff(path)`` returns ``(X, y)``: nominal attributes as pandas Categoricals with their
declared values in declared order, numeric attributes as floats, string attributes as str
objects, ``?`` as missing. The target is the last attribute unless ``target`` names another.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from importlib import resources

__all__ = ["MAX_COLUMNS", "list_datasets", "load_arff", "load_dataset", "load_table"]


@dataclass(frozen=True)
class _Entry:
    file: str
    n_rows: int
    description: str


_DATASETS = {
    "textbook-15": _Entry("textbook-15.arff", 15, "Li Hang's naive Bayes worked example (2 nominal attributes)"),
    "mountain-climbing": _Entry("mountain-climbing.arff", 9, "weather, temperature -> climb (worked example)"),
    "heights-weights": _Entry("heights-weights.arff", 9, "height, weight -> sex (Gaussian worked example)"),
    "weather.nominal": _Entry("weather.nominal.arff", 14, "play tennis; 4 nominal attributes"),
    "weather.numeric": _Entry("weather.numeric.arff", 14, "play tennis; 2 nominal, 2 numeric attributes"),
    "contact-lenses": _Entry("contact-lenses.arff", 24, "contact lenses; 4 nominal attributes, 3 classes"),
    "vote": _Entry("vote.arff", 435, "1984 US Congress votes; 16 nominal {n,y}, many missing"),
    "breast-cancer": _Entry("breast-cancer.arff", 286, "Ljubljana breast cancer; 9 nominal, some missing"),
    "iris": _Entry("iris.arff", 150, "iris; 4 numeric attributes, 3 classes"),
    "diabetes": _Entry("diabetes.arff", 768, "Pima Indians diabetes; 8 numeric attributes"),
    "credit-g": _Entry("credit-g.arff", 1000, "German credit; 13 nominal, 7 numeric attributes (mixed)"),
    "reuters-grain-train": _Entry("ReutersGrain-train.arff", 1554, "Reuters-21578 'grain' vs rest; raw text"),
    "reuters-grain-test": _Entry("ReutersGrain-test.arff", 604, "Reuters-21578 'grain' vs rest; raw text"),
}


def load_arff(path, target: str | None = None):
    """Read an ARFF file into (X, y).

    Nominal attributes become pandas Categoricals with their declared values in declared order,
    numeric attributes floats, string attributes str objects, and ``?`` a missing value.

    Parameters
    ----------
    path : str or path-like
        The ARFF file (UTF-8).
    target : str, default=None
        The class attribute; None: the last attribute.

    Returns
    -------
    X : pandas.DataFrame
        The other attributes.
    y : pandas.Series
        The class attribute.

    Raises
    ------
    ValueError
        If the file is not valid ARFF (the message names the line), or ``target`` names no
        attribute.

    See Also
    --------
    load_table : ARFF or CSV.
    load_dataset : The bundled files.

    Examples
    --------
    >>> import os, tempfile
    >>> from pgm_models import load_arff
    >>> text = '''@relation toy
    ... @attribute colour {red, green, blue}
    ... @attribute size numeric
    ... @attribute class {yes, no}
    ... @data
    ... red, 1.5, yes
    ... blue, ?, no
    ... '''
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "toy.arff")
    ...     with open(path, "w") as handle:
    ...         _ = handle.write(text)
    ...     X, y = load_arff(path)
    >>> X.shape, X["size"].isna().tolist()
    ((2, 2), [False, True])
    >>> list(X["colour"].cat.categories), y.tolist()
    (['red', 'green', 'blue'], ['yes', 'no'])
    """
    from pgm_models.datasets.arff import read_arff

    _, attributes, frame = read_arff(path)
    target = attributes[-1].name if target is None else target
    if target not in frame.columns:
        raise ValueError(f"{path}: no attribute named {target!r}; attributes are {list(frame.columns)}")
    return frame.drop(columns=target), frame[target]


_DELIMITERS = ",;\t|"
MAX_COLUMNS = 100_000  # a CSV header naming more columns is refused before pandas reads it


def _check_path(path) -> None:
    """A file to read, or a ValueError that says what the path is instead."""
    from pathlib import Path

    path = Path(path)
    if path.is_file():
        return
    if path.is_dir():
        raise ValueError(f"{path}: is a directory, not a file")
    if path.is_symlink():
        try:
            path.resolve(strict=True)
        except (RuntimeError, OSError) as error:  # Python < 3.13 raises RuntimeError for a loop, later ones ELOOP
            if isinstance(error, RuntimeError) or error.errno == errno.ELOOP:
                raise ValueError(f"{path}: is a symlink loop, not a file") from None
            raise ValueError(f"{path}: is a broken symlink (to {os.readlink(path)!r}), not a file") from None
    if path.exists():
        raise ValueError(f"{path}: is not a regular file")
    raise ValueError(f"{path}: no such file")


def _check_csv_shape(path, sep: str) -> None:
    """Refuse, before pandas reads the file, an empty file, a header wider than ``MAX_COLUMNS``
    (its names alone can take gigabytes in a frame), one with repeated names (pandas would
    rename them a, a.1 without a word), and a header with no rows.
    """
    import csv
    from collections import Counter

    with open(path, newline="", encoding="utf-8", errors="replace") as handle:
        header = handle.readline()
        if not header.strip():
            raise ValueError(f"{path}: the file is empty (no header line)")
        if header.count(sep) >= MAX_COLUMNS:  # a lower bound on the names: counted before any is parsed
            raise ValueError(
                f"{path}: the header names about {header.count(sep) + 1} columns, more than the {MAX_COLUMNS} a "
                "table may have (pgm_models.datasets.MAX_COLUMNS)"
            )
        names = next(csv.reader([header], delimiter=sep))
        repeated = [name for name, count in Counter(names).items() if count > 1]
        if repeated:
            raise ValueError(
                f"{path}: repeated column names {', '.join(map(repr, repeated[:5]))}"
                f"{' …' if len(repeated) > 5 else ''}: each column needs its own name"
            )
        if not any(line.strip() for line in handle):  # stops at the first row
            raise ValueError(f"{path}: a header of {len(names)} columns and no rows: nothing to fit")


def load_table(path, target: str | None = None, *, sep: str | None = None, na_values=()):
    r"""Read a user's ``.arff`` or ``.csv`` file into (X, y).

    An ARFF file is read by :func:`load_arff`. In a CSV, text columns become nominal attributes
    (Categoricals of their observed values, sorted) and numbers stay numeric; only empty cells are
    missing, unless ``na_values`` lists other cell texts that mean missing.

    Parameters
    ----------
    path : str or path-like
        A file ending in ``.arff`` or ``.csv``.
    target : str, default=None
        The class column; None: the last column.
    sep : str, default=None
        The CSV delimiter; None: sniffed among ``,``, ``;``, tab and ``|``.
    na_values : sequence of str, default=()
        Cell texts that mean missing ("NA", "null", "None" and "n/a" are category values
        otherwise).

    Returns
    -------
    X : pandas.DataFrame
        The other columns.
    y : pandas.Series
        The class column.

    Raises
    ------
    ValueError
        If the file does not exist (or is a directory, a symlink loop, a broken link), has another
        extension, cannot be parsed, has no rows, repeats a column name, has more than
        ``MAX_COLUMNS`` columns (refused before it is parsed) or fewer than two, or ``target``
        names no column.

    See Also
    --------
    load_arff : ARFF files only.

    Examples
    --------
    >>> import os, tempfile
    >>> from pgm_models import load_table
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "toy.csv")
    ...     with open(path, "w") as handle:
    ...         _ = handle.write("colour;size;class\nred;1.5;yes\nblue;;no\nred;NA;yes\n")
    ...     X, y = load_table(path, na_values=["NA"])
    >>> X.shape, X["size"].isna().tolist()
    ((3, 2), [False, True, True])
    >>> X.dtypes.astype(str).tolist(), y.tolist()
    (['category', 'float64'], ['yes', 'no', 'yes'])
    """
    import csv
    from pathlib import Path

    suffix = Path(path).suffix.lower()
    if suffix not in (".arff", ".csv"):
        raise ValueError(f"{path}: expected an .arff or .csv file, got {suffix or 'no extension'!r}")
    _check_path(path)
    if suffix == ".arff":
        return load_arff(path, target)
    import pandas as pd
    from pandas.api.types import is_numeric_dtype

    if sep is None:
        with open(path, newline="", encoding="utf-8", errors="replace") as handle:
            sample = handle.read(65536)
        try:
            sep = csv.Sniffer().sniff(sample, delimiters=_DELIMITERS).delimiter
        except csv.Error:
            sep = ","
    _check_csv_shape(path, sep)
    try:
        frame = pd.read_csv(path, sep=sep, keep_default_na=False, na_values=["", *na_values])
    except (UnicodeDecodeError, pd.errors.ParserError) as error:
        raise ValueError(f"{path}: {error}") from None
    if frame.shape[1] < 2:
        raise ValueError(
            f"{path}: needs at least one attribute and a class column, found columns {list(frame.columns)} "
            f"(separated by {sep!r}: pass --sep, or sep=, if the file uses another delimiter)"
        )
    target = frame.columns[-1] if target is None else target
    if target not in frame.columns:
        raise ValueError(f"{path}: no column named {target!r}; columns are {list(frame.columns)}")
    # whole-frame operations only: a column assignment, a column lookup or a list-membership test per
    # column each cost the width of the frame, so thousands of columns cost it thousands of times
    dtypes = dict(frame.dtypes.items())
    nominal = _categoricals(frame, [column for column, dtype in dtypes.items() if not is_numeric_dtype(dtype)], dtypes)
    columns = {**_numeric_columns(frame, [c for c in dtypes if c not in nominal], dtypes), **nominal}
    X = pd.DataFrame({column: columns[column] for column in dtypes if column != target}, index=frame.index)
    return X, pd.Series(columns[target], index=frame.index, name=target)


_BLOCK_CELLS = 1 << 20  # cells of text converted to Python objects at once: bounds the peak on tall files


def _categoricals(frame, columns, dtypes) -> dict:
    """``{column: pd.Categorical(frame[column])}`` for the text columns named, equal to it in
    categories (their dtype and order) and codes, computed a block of columns at a time.

    ``pd.Categorical`` of one column pays a fixed cost (hashing, sorting and validating through
    several layers) that a CSV of thousands of columns pays thousands of times. Here a block of
    columns is factorised once, its values sorted once, and each column's observed values and
    codes read off one ``np.unique`` of (column, rank) keys; each column then builds its
    Categorical from those codes, sharing the dtype of columns with the same values. Columns
    whose dtype (``dtypes[column]``) is not a pandas string dtype, and blocks of one column (a
    tall file), take ``pd.Categorical`` itself.
    """
    import numpy as np
    import pandas as pd

    result, by_dtype = {}, {}
    for column in columns:
        if isinstance(dtypes[column], pd.StringDtype):
            by_dtype.setdefault(dtypes[column], []).append(column)
        else:
            result[column] = pd.Categorical(frame[column])
    width = max(1, _BLOCK_CELLS // max(len(frame), 1))
    for dtype, same in by_dtype.items():
        for start in range(0, len(same), width):
            block = same[start : start + width]
            if len(block) == 1:
                result[block[0]] = pd.Categorical(frame[block[0]])
            else:
                result.update(_block_categoricals(frame, block, dtype, np, pd))
    return result


def _numeric_columns(frame, columns, dtypes) -> dict:
    """``{column: its values}`` for the numeric columns named: one array per NumPy dtype, sliced
    by column (a column lookup each would cost the frame's width); other dtypes one by one.
    """
    import numpy as np

    result, by_dtype = {}, {}
    for column in columns:
        if isinstance(dtypes[column], np.dtype):
            by_dtype.setdefault(dtypes[column], []).append(column)
        else:
            result[column] = frame[column].array
    for dtype, same in by_dtype.items():
        values = frame[same].to_numpy(dtype=dtype)
        result.update({column: values[:, j] for j, column in enumerate(same)})
    return result


def _block_categoricals(frame, block, dtype, np, pd) -> dict:
    """The Categoricals of a block of text columns sharing ``dtype`` (``_categoricals``)."""
    n_rows = len(frame)
    cells = frame[block].to_numpy(dtype=object).ravel(order="F")  # column after column
    codes, uniques = pd.factorize(cells)  # −1 where missing
    uniques = np.asarray(uniques, dtype=object)
    order = np.argsort(uniques, kind="stable")  # code-point order, as pandas sorts categories
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    column = np.repeat(np.arange(len(block), dtype=np.int64), n_rows)
    present = codes >= 0
    keys, inverse = np.unique(column[present] * len(uniques) + rank[codes[present]], return_inverse=True)
    starts = np.searchsorted(keys // len(uniques), np.arange(len(block) + 1))
    category_codes = np.full(len(cells), -1, dtype=np.int64)
    category_codes[present] = inverse.ravel() - starts[column[present]]
    # every column's categories, column after column: one Index, sliced per column below
    categories = pd.Index(uniques[order][keys % len(uniques)] if len(uniques) else [], dtype=dtype)
    # the categories are unique, sorted and non-missing by construction: pandas' validation of them
    # (hashing every column's categories again) is skipped where pandas offers it
    category_dtype = getattr(pd.CategoricalDtype, "_from_fastpath", None) or pd.CategoricalDtype
    dtypes, result = {}, {}
    for j, name in enumerate(block):
        ranks = keys[starts[j] : starts[j + 1]] % len(uniques)
        signature = ranks.tobytes()
        if signature not in dtypes:
            dtypes[signature] = category_dtype(categories[starts[j] : starts[j + 1]], False)
        result[name] = pd.Categorical.from_codes(
            category_codes[j * n_rows : (j + 1) * n_rows], dtype=dtypes[signature], validate=False
        )
    return result


def list_datasets():
    """The bundled datasets: name, number of rows, file and a one-line description.

    Weka's classic ARFF files (vote, breast-cancer, weather, contact-lenses, iris, diabetes,
    credit-g), the worked examples of the textbooks, and the Reuters "grain" text collection.

    Returns
    -------
    pandas.DataFrame
        Columns ``name``, ``rows``, ``file``, ``description``, one row per dataset.

    See Also
    --------
    load_dataset : Loads one of them.

    Examples
    --------
    >>> from pgm_models import list_datasets
    >>> table = list_datasets()
    >>> table.loc[table["name"].isin(["vote", "iris"]), ["name", "rows"]]
       name  rows
    6  vote   435
    8  iris   150
    """
    import pandas as pd

    return pd.DataFrame(
        [(name, e.n_rows, e.file, e.description) for name, e in _DATASETS.items()],
        columns=["name", "rows", "file", "description"],
    )


def dataset_path(name: str):
    """Path of a bundled dataset's ARFF file."""
    if name not in _DATASETS:
        raise ValueError(f"no bundled dataset {name!r}; available: {sorted(_DATASETS)}")
    return resources.files("pgm_models.datasets") / "data" / _DATASETS[name].file


def load_dataset(name: str):
    """Load a bundled dataset as (X, y).

    Nominal attributes become pandas Categoricals with their declared values (so declared but
    unseen values get prior mass in the categorical models), numeric attributes floats, and
    Weka's ``?`` a missing value. The class is the last attribute.

    Parameters
    ----------
    name : str
        One of the names of :func:`list_datasets` (e.g. "vote", "iris", "credit-g").

    Returns
    -------
    X : pandas.DataFrame
        The attributes.
    y : pandas.Series
        The class, a Categorical.

    Raises
    ------
    ValueError
        If no bundled dataset has that name (the message lists them).

    See Also
    --------
    list_datasets : The names.
    load_table : A user's ARFF or CSV file.

    Examples
    --------
    >>> from pgm_models import CategoricalNB, load_dataset
    >>> X, y = load_dataset("weather.nominal")
    >>> X.shape, list(y.cat.categories)
    ((14, 4), ['yes', 'no'])
    >>> list(X["outlook"].cat.categories)
    ['sunny', 'overcast', 'rainy']
    >>> CategoricalNB().fit(X, y).predict(X.iloc[:3])
    array(['no', 'no', 'yes'], dtype=object)
    """
    with resources.as_file(dataset_path(name)) as path:
        return load_arff(path)
