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
    """Read an ARFF file into (X, y); ``target`` defaults to the last attribute."""
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
    rename them a, a.1 without a word), and a header with no rows."""
    import csv
    from collections import Counter

    with open(path, newline="", encoding="utf-8", errors="replace") as handle:
        header = handle.readline()
        if not header.strip():
            raise ValueError(f"{path}: the file is empty (no header line)")
        if header.count(sep) >= MAX_COLUMNS:  # a lower bound on the names: counted before any is parsed
            raise ValueError(f"{path}: the header names about {header.count(sep) + 1} columns, more than the {MAX_COLUMNS} a "
                             "table may have (pgm_models.datasets.MAX_COLUMNS)")
        names = next(csv.reader([header], delimiter=sep))
        repeated = [name for name, count in Counter(names).items() if count > 1]
        if repeated:
            raise ValueError(f"{path}: repeated column names {', '.join(map(repr, repeated[:5]))}"
                             f"{' …' if len(repeated) > 5 else ''}: each column needs its own name")
        if not any(line.strip() for line in handle):  # stops at the first row
            raise ValueError(f"{path}: a header of {len(names)} columns and no rows: nothing to fit")


def load_table(path, target: str | None = None, *, sep: str | None = None, na_values=()):
    """Read a user's ``.arff`` or ``.csv`` file into (X, y); ``target`` defaults to the last
    column. In a CSV, text columns become nominal attributes (Categoricals of their observed
    values, sorted) and numbers stay numeric. Only empty cells are missing, unless
    ``na_values`` lists other cell texts that mean missing ("NA", "null", "None" and "n/a" are
    category values otherwise). ``sep`` defaults to the delimiter sniffed among ``, ; tab |``.
    A CSV with no rows, repeated column names or more than ``MAX_COLUMNS`` columns is refused
    (ValueError naming the file) before it is parsed."""
    import csv
    from pathlib import Path

    suffix = Path(path).suffix.lower()
    if suffix not in (".arff", ".csv"):
        raise ValueError(f"{path}: expected an .arff or .csv file, got {suffix or 'no extension'!r}")
    _check_path(path)
    if suffix == ".arff":
        return load_arff(path, target)
    import pandas as pd

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
        raise ValueError(f"{path}: needs at least one attribute and a class column, found columns {list(frame.columns)} "
                         f"(separated by {sep!r}: pass --sep, or sep=, if the file uses another delimiter)")
    target = frame.columns[-1] if target is None else target
    if target not in frame.columns:
        raise ValueError(f"{path}: no column named {target!r}; columns are {list(frame.columns)}")
    # one new frame, not a column assignment per column (each one costs the width of the frame)
    frame = pd.DataFrame({column: values if pd.api.types.is_numeric_dtype(values) else pd.Categorical(values)
                          for column, values in frame.items()}, index=frame.index)
    return frame.drop(columns=target), frame[target]


def list_datasets():
    """The bundled datasets: name, rows, file and a one-line description."""
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
    """Load a bundled dataset as (X, y); see :func:`list_datasets`."""
    with resources.as_file(dataset_path(name)) as path:
        return load_arff(path)
