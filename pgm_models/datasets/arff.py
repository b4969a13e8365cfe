"""A reader for Weka's ARFF format that keeps what classifiers need from the header.

Nominal attributes become pandas Categoricals whose categories are the *declared* values in
declared order (values declared but never observed still belong to the domain), numeric
attributes become float columns, string and date attributes become str columns. ``?`` is a
missing value (NaN). Dense and sparse (``{index value, ...}``) data rows are both read.
"""

from __future__ import annotations

import io
import re
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

# One field: a single- or double-quoted string with backslash escapes, or a bare run of text.
_FIELD = re.compile(
    r"""\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|([^,{}\s][^,{}]*?|))\s*(?:,|$)"""
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "%": "%"}
_ESCAPE = re.compile(r"\\(.)")
_NUMERIC_TYPES = {"numeric", "real", "integer"}


@dataclass(frozen=True)
class Attribute:
    name: str
    kind: str  # "nominal", "numeric", "string" or "date"
    values: tuple[str, ...] = ()


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), text)


def _split_fields(text: str, where: str) -> list[str | None]:
    """Split a comma-separated ARFF line; an unquoted ``?`` becomes None (missing)."""
    fields: list[str | None] = []
    position = 0
    text = text.strip()
    while position < len(text):
        match = _FIELD.match(text, position)
        if match is None or match.end() == position:
            raise ValueError(f"{where}: cannot parse {text[position:][:40]!r}")
        single, double, bare = match.groups()
        if bare is not None:
            fields.append(None if bare == "?" else bare)
        else:
            fields.append(_unescape(single if single is not None else double))
        position = match.end()
    if text.endswith(","):
        raise ValueError(f"{where}: trailing comma")
    return fields


def _parse_attribute(spec: str, where: str) -> Attribute:
    match = re.match(r"""\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\S+)\s+(.*)$""", spec)
    if match is None:
        raise ValueError(f"{where}: malformed @attribute {spec!r}")
    raw_name, type_spec = match.groups()
    name = _unescape(raw_name[1:-1]) if raw_name[0] in "'\"" else raw_name
    type_spec = type_spec.strip()
    if type_spec.startswith("{"):
        if not type_spec.endswith("}"):
            raise ValueError(f"{where}: unterminated value list for attribute {name!r}")
        values = _split_fields(type_spec[1:-1], where)
        if any(v is None for v in values) or len(set(values)) != len(values):
            raise ValueError(f"{where}: attribute {name!r} declares '?' or a repeated value")
        return Attribute(name, "nominal", tuple(values))
    kind = type_spec.split()[0].lower()
    if kind in _NUMERIC_TYPES:
        return Attribute(name, "numeric")
    if kind in ("string", "date"):
        return Attribute(name, kind)
    raise ValueError(f"{where}: attribute {name!r} has unsupported type {type_spec!r}")


def _read_rows(lines, first_number: int, attributes: list[Attribute], path: str) -> list[list[str | None]]:
    """The general reader: every line through ``_split_fields``; errors name the line."""
    # In a sparse row an omitted value is Weka's internal 0: the number 0, or a nominal
    # attribute's first declared value.
    omitted = [a.values[0] if a.kind == "nominal" else "0" for a in attributes]
    n_attributes = len(attributes)
    rows = []
    for number, line in enumerate(lines, start=first_number):
        text = line.strip()
        if not text or text.startswith("%"):
            continue
        where = f"{path}:{number}"
        if text.startswith("{"):
            row: list[str | None] = list(omitted)
            for pair in _split_fields(text.strip("{}"), where):
                index, _, value = pair.partition(" ")
                row[int(index)] = None if value.strip() == "?" else _unescape(value.strip().strip("'\""))
        else:
            row = _split_fields(text, where)
        if len(row) != n_attributes:
            raise ValueError(f"{where}: {len(row)} values, the header declares {n_attributes} attributes")
        rows.append(row)
    return rows


def _column(attribute: Attribute, values: pd.Categorical, path: str) -> pd.Series:
    """One attribute's raw text values, as a Categorical of the strings seen (missing: NaN),
    turned into a typed Series; all the work is on the few distinct strings, not every row."""
    seen = values.categories.astype(str).str.strip()
    codes = values.codes
    if attribute.kind == "nominal":
        declared = pd.Index(attribute.values)
        position = declared.get_indexer(seen)
        undeclared = sorted(set(seen[(position < 0) & np.isin(np.arange(len(seen)), codes)]))
        if undeclared:
            raise ValueError(f"{path}: attribute {attribute.name!r} has undeclared value(s) {undeclared}")
        return _nominal(attribute, np.where(codes >= 0, position[codes], -1))
    if attribute.kind == "numeric":
        try:
            numbers = seen.astype(float).to_numpy()
        except ValueError as error:
            raise ValueError(f"{path}: numeric attribute {attribute.name!r}: {error}") from None
        return pd.Series(np.where(codes >= 0, numbers[codes] if len(numbers) else np.nan, np.nan), name=attribute.name)
    text = np.asarray(values.categories, dtype=object)
    return pd.Series(np.where(codes >= 0, text[codes] if len(text) else None, None), name=attribute.name, dtype=object)


def _nominal(attribute: Attribute, codes: np.ndarray) -> pd.Series:
    """A nominal attribute from codes into its declared values (−1: missing)."""
    return pd.Series(pd.Categorical.from_codes(codes, dtype=_declared_dtype(attribute.values), validate=False), name=attribute.name)


@lru_cache(maxsize=1024)
def _declared_dtype(values: tuple[str, ...]) -> pd.CategoricalDtype:
    """One (immutable) dtype per declared value list: attributes and files that declare the
    same values share it, and building one validates its categories."""
    return pd.CategoricalDtype(list(values))


def _plain_data(text: str) -> bool:
    """A data section pandas' CSV parser reads exactly: no escapes, double quotes, sparse rows
    ('{', and so any quoted '{' too, goes to the general reader), '%' (a comment only at a
    line's start in ARFF) or a quoted '?' (a value, not missing)."""
    return not any(mark in text for mark in ("\\", '"', "%", "'?'", "{"))


_MAX_BARE_VALUES = 256  # declared values per attribute that the bare reader's hash tables take
_MULTIPLIERS = np.random.default_rng(0).integers(1, 2**63, size=64, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def _hash_codes(keys: np.ndarray, lookup: np.ndarray) -> np.ndarray | None:
    """Code of every key: its position in ``lookup`` (distinct integers, the last one the
    missing-value mark, coded −1); None if some key is not there. A multiply-shift hash,
    slot = (key · A mod 2^64) >> (64 − b), with 2^b ≥ 2n² slots for n values, is
    collision-free on them for about half the odd multipliers A; the first such A from a fixed
    sequence is used and a table maps slots to codes — a few vectorised passes over the keys,
    where a binary search costs a branch per level."""
    bits = 2 * max(1, int(np.ceil(np.log2(len(lookup))))) + 1
    shift = np.uint64(64 - bits)
    for multiplier in _MULTIPLIERS:
        slots = (lookup.astype(np.uint64) * multiplier) >> shift
        if len(np.unique(slots)) == len(lookup):
            break
    else:
        return None  # no multiplier separates them (2^-64 for distinct values)
    table = np.zeros(2**bits, dtype=np.intp)
    table[slots] = np.append(np.arange(len(lookup) - 1), -1)
    codes = table[(keys.astype(np.uint64) * multiplier) >> shift]
    return codes if np.array_equal(lookup[codes], keys) else None  # lookup[−1] is the mark


def _read_bare_nominal(text: str, attributes: list[Attribute]) -> list[pd.Series] | None:
    """Machine-written nominal data (every attribute nominal with at most 256 ASCII values, none
    of them '?'; fields bare values of at most 7 bytes, no spaces) without pandas.

    NumPy's C reader splits the fields into byte strings of 2, 4 or 8 bytes, at least one more
    than the longest declared value — so a longer field, cut there, still matches nothing —
    which read as unsigned integers, and each column is looked up among its declared values'
    integers (``_hash_codes``). None (the caller goes on with ``_read_plain``) when the data is
    not of that form, rows differ in length or a field matches no declared value."""
    if any(a.kind != "nominal" or len(a.values) > _MAX_BARE_VALUES or "?" in a.values
           or not all(v.isascii() for v in a.values) for a in attributes):
        return None
    declared = [[v.encode() for v in a.values] for a in attributes]
    width = next((w for w in (2, 4, 8) if w > max(len(v) for values in declared for v in values)), None)
    if width is None or not text.isascii() or any(mark in text for mark in (" ", "\t", "\r", "'")):
        return None
    try:
        fields = np.loadtxt(io.StringIO(text), dtype=f"S{width}", delimiter=",", comments=None, quotechar=None, ndmin=2)
    except ValueError:
        return None
    if fields.shape[1] != len(attributes):
        return None
    as_integers = f"u{width}"  # an S-string zero-padded to its width, read as one integer
    keys = np.ascontiguousarray(fields.T).view(as_integers)  # (F, N): one contiguous row per attribute
    series = []
    for column, attribute, values in zip(keys, attributes, declared):
        codes = _hash_codes(column, np.array([*values, b"?"], dtype=f"S{width}").view(as_integers))
        if codes is None:
            return None
        series.append(_nominal(attribute, codes))
    return series


def _read_plain(text: str, attributes: list[Attribute], path: str) -> list[pd.Series] | None:
    """The data section through pandas' C parser: ',' separated, ' quoted, '?' missing; None
    when a field needs the general reader's checks.

    A nominal column is parsed straight into its declared values plus '?' (the parser matches
    every field against them as it reads); other columns are read as text. Rows of another
    length than the header's, a nominal field that matches no declared value or an empty field
    (also what the parser puts in a short row) send the file to ``_read_rows``, whose errors
    name the line and the value."""
    if any("?" in a.values for a in attributes):
        return None  # a declared '?' and the missing mark cannot both be categories
    nominal = [a.kind == "nominal" for a in attributes]
    n_attributes = len(attributes)
    try:
        with warnings.catch_warnings():
            # pandas 3 warns that an undeclared value will raise (pandas 4): either way, it goes on below
            warnings.simplefilter("ignore", DeprecationWarning)
            frame = pd.read_csv(
                io.StringIO(text), header=None, quotechar="'", skipinitialspace=True, keep_default_na=False,
                dtype={j: _declared_dtype((*a.values, "?")) if nominal[j] else str for j, a in enumerate(attributes)},
                na_values={j: ["?"] for j in range(n_attributes) if not nominal[j]}, skip_blank_lines=True, engine="c",
            )
    except ValueError:  # a row longer than the first (ParserError), or an undeclared value in pandas ≥ 4
        return None
    if frame.shape[1] != n_attributes:
        return None
    columns = [frame[j].array for j in range(n_attributes)]
    if any((c.codes < 0).any() if nominal[j] else (frame[j] == "").any() for j, c in enumerate(columns)):
        return None
    return [
        _nominal(a, np.where(c.codes == len(a.values), -1, c.codes)) if nominal[j] else _column(a, pd.Categorical(c), path)
        for j, (a, c) in enumerate(zip(attributes, columns))
    ]


def read_arff(path: str | Path) -> tuple[str, list[Attribute], pd.DataFrame]:
    """Parse an ARFF file into (relation name, attributes, DataFrame of every attribute).

    The data section goes to the fastest reader that reads it exactly: ``_read_bare_nominal``
    (machine-written nominal data), else pandas' C parser (``_read_plain``), else the general
    line-by-line reader (escapes, sparse rows, comments), whose errors name the line."""
    path = str(path)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    relation, attributes = "", []
    position, number = 0, 0
    while position < len(text):
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        line, position, number = text[position:end], end + 1, number + 1
        line = line.strip()
        if not line or line.startswith("%"):
            continue
        keyword, _, rest = line.partition(" ")
        keyword = keyword.lower()
        where = f"{path}:{number}"
        if keyword == "@relation":
            relation = rest.strip().strip("'\"")
        elif keyword == "@attribute":
            attributes.append(_parse_attribute(rest.replace("\t", " "), where))
        elif keyword == "@data":
            if not attributes:
                raise ValueError(f"{where}: @data before any @attribute")
            data = text[position:]
            series = None
            if data.strip() and _plain_data(data):
                series = _read_bare_nominal(data, attributes) or _read_plain(data, attributes, path)
            if series is None:
                rows = _read_rows(data.splitlines(), number + 1, attributes, path)
                columns = [pd.Categorical(list(c)) for c in zip(*rows)] if rows else [pd.Categorical([])] * len(attributes)
                series = [_column(a, c, path) for a, c in zip(attributes, columns)]
            return relation, attributes, pd.concat(series, axis=1)
        else:
            raise ValueError(f"{where}: unexpected line {line[:40]!r}")
    raise ValueError(f"{path}: no @data section")
