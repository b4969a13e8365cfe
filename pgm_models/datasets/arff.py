"""A reader for Weka's ARFF format that keeps what classifiers need from the header.

Nominal attributes become pandas Categoricals whose categories are the *declared* values in
declared order (values declared but never observed still belong to the domain), numeric
attributes become float columns, string and date attributes become str columns. ``?`` is a
missing value (NaN). Dense and sparse (``{index value, ...}``) data rows are both read.

The grammar of a value, in value lists and data rows alike (``_split_fields``): a single- or
double-quoted string with backslash escapes (spaces inside and at its edges are kept), or a bare
run of characters other than whitespace, quotes, ``,``, ``{`` and ``}``; an unquoted ``?`` is
missing; values are separated by commas with optional whitespace around them. Weka's tokenizer
also splits at whitespace, so a bare ``a b`` (or ``0<tab>y``) would be two values there: it is
an error here, naming the line, as is ``'a''b'``. A sparse row is ``{index value, ...}`` with
increasing indices in 0..n−1. Files are UTF-8 (a byte-order mark is skipped).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

# One value: a single- or double-quoted string with backslash escapes, or a bare run without
# whitespace, quotes, commas or braces (possibly empty: then an error or an undeclared value).
# Possessive quantifiers throughout: no backtracking, so a match is linear in the text.
_VALUE = r"""(?:'((?:[^'\\]|\\.)*+)'|"((?:[^"\\]|\\.)*+)"|([^,{}\s'"]*+))"""
_FIELD = re.compile(rf"\s*+{_VALUE}\s*+(?:,|$)")
_PAIR = re.compile(rf"\s*+([^,{{}}\s'\"]++)\s++{_VALUE}\s*+(?:,|$)")  # index value, in a sparse row
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "%": "%"}
_ESCAPE = re.compile(r"\\(.)")
_NUMERIC_TYPES = {"numeric", "real", "integer"}


@dataclass(frozen=True)
class Attribute:
    """An ARFF attribute: its name, kind and (nominal) declared values."""

    name: str
    kind: str  # "nominal", "numeric", "string" or "date"
    values: tuple[str, ...] = ()


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), text)


def _value(single: str | None, double: str | None, bare: str | None) -> str | None:
    if bare is not None:
        return None if bare == "?" else bare
    return _unescape(single if single is not None else double)


def _cannot_parse(text: str, position: int, where: str) -> ValueError:
    return ValueError(
        f"{where}: cannot read a value at {text[position:][:40]!r}: quote a value that contains spaces, "
        f"quotes, commas or braces ('a b'), and separate values with commas"
    )


def _split_fields(text: str, where: str) -> list[str | None]:
    """Split a comma-separated ARFF line; an unquoted ``?`` becomes None (missing)."""
    fields: list[str | None] = []
    position = 0
    text = text.strip()
    while position < len(text):
        match = _FIELD.match(text, position)
        if match is None or match.end() == position:
            raise _cannot_parse(text, position, where)
        fields.append(_value(*match.groups()))
        position = match.end()
    if text.endswith(","):
        raise ValueError(f"{where}: trailing comma")
    return fields


def _sparse_pairs(text: str, n_attributes: int, where: str):
    """(index, value) of a sparse row's ``{index value, ...}``: indices increase in 0..n−1."""
    inner, position, previous = text[1:-1].strip(), 0, -1
    while position < len(inner):
        match = _PAIR.match(inner, position)
        if match is None or match.end() == position:
            raise _cannot_parse(inner, position, where)
        index_text, *value = match.groups()
        if not index_text.isdigit() or int(index_text) >= n_attributes:
            raise ValueError(f"{where}: sparse index {index_text!r} is not an attribute index 0..{n_attributes - 1}")
        if int(index_text) <= previous:
            raise ValueError(f"{where}: sparse indices must increase, got {index_text} after {previous}")
        previous = int(index_text)
        yield previous, _value(*value)
        position = match.end()
    if inner.endswith(","):
        raise ValueError(f"{where}: trailing comma")


def _parse_attribute(spec: str, where: str) -> Attribute:
    match = re.match(r"""\s*('(?:[^'\\]|\\.)*+'|"(?:[^"\\]|\\.)*+"|\S++)\s++(.*)$""", spec)
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


class _NeedsLineNumbers(Exception):
    """Raised by a fast reader's column check: the general reader reads the file again, so the
    error names the line.
    """


def _read_rows(lines, first_number: int, attributes: list[Attribute], path: str):
    """The general reader: every line through ``_split_fields`` (sparse rows through
    ``_sparse_pairs``); rows of values and the line number of each; errors name the line.
    """
    # In a sparse row an omitted value is Weka's internal 0: the number 0, or a nominal
    # attribute's first declared value (missing for an attribute that declares none).
    omitted = [(a.values[0] if a.values else None) if a.kind == "nominal" else "0" for a in attributes]
    n_attributes = len(attributes)
    rows, numbers = [], []
    for number, line in enumerate(lines, start=first_number):
        text = line.strip()
        if not text or text.startswith("%"):
            continue
        where = f"{path}:{number}"
        if text.startswith("{"):
            if not text.endswith("}"):
                raise ValueError(f"{where}: a sparse row must end with '}}'")
            row: list[str | None] = list(omitted)
            for index, value in _sparse_pairs(text, n_attributes, where):
                row[index] = value
        else:
            row = _split_fields(text, where)
        if len(row) != n_attributes:
            raise ValueError(f"{where}: {len(row)} values, the header declares {n_attributes} attributes")
        rows.append(row)
        numbers.append(number)
    return rows, numbers


def _column(attribute: Attribute, values: pd.Categorical, path: str, numbers=None) -> pd.Series:
    """One attribute's values (missing: NaN), as a Categorical of the strings seen, turned into
    a typed Series; all the work is on the few distinct strings, not every row. ``numbers``:
    each row's line, for errors (without them, ``_NeedsLineNumbers``).
    """
    seen, codes = values.categories.astype(object), values.codes
    observed = np.zeros(len(seen), dtype=bool)
    observed[codes[codes >= 0]] = True

    def bad(value, problem):
        if numbers is None:
            raise _NeedsLineNumbers
        line = numbers[int(np.flatnonzero(codes == seen.get_loc(value))[0])]
        raise ValueError(f"{path}:{line}: attribute {attribute.name!r} {problem}")

    if attribute.kind == "nominal":
        position = pd.Index(attribute.values, dtype=object).get_indexer(seen)
        undeclared = seen[(position < 0) & observed]
        if len(undeclared):
            bad(undeclared[0], f"has undeclared value {undeclared[0]!r} (declared: {list(attribute.values)})")
        return _nominal(attribute, np.where(codes >= 0, np.append(position, -1)[codes], -1))
    if attribute.kind == "numeric":
        try:
            numbers_seen = np.array(seen, dtype=float)
        except ValueError:
            text = next(t for t in seen if not _is_number(t))
            bad(text, f"is numeric, got {text!r}")
        return pd.Series(np.append(numbers_seen, np.nan)[codes], name=attribute.name)
    return pd.Series(np.append(np.asarray(seen, dtype=object), None)[codes], name=attribute.name, dtype=object)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _nominal(attribute: Attribute, codes: np.ndarray) -> pd.Series:
    """A nominal attribute from codes into its declared values (−1: missing)."""
    return pd.Series(
        pd.Categorical.from_codes(codes, dtype=_declared_dtype(attribute.values), validate=False), name=attribute.name
    )


@lru_cache(maxsize=1024)
def _declared_dtype(values: tuple[str, ...]) -> pd.CategoricalDtype:
    """One (immutable) dtype per declared value list: attributes and files that declare the
    same values share it, and building one validates its categories.
    """
    return pd.CategoricalDtype(list(values))


def _plain_data(text: str) -> bool:
    """Whether pandas' C parser and NumPy's reader may try a data section: no sparse rows or
    braces (``_split_fields`` rejects a bare brace) and no '%' (a comment at a line's start).
    """
    return not any(mark in text for mark in ("{", "}", "%"))


_MAX_BARE_VALUES = 256  # declared values per attribute that the bare reader's hash tables take
_MULTIPLIERS = np.random.default_rng(0).integers(1, 2**63, size=64, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def _hash_codes(keys: np.ndarray, lookup: np.ndarray) -> np.ndarray | None:
    """Code of every key: its position in ``lookup`` (distinct integers, the last one the
    missing-value mark, coded −1); None if some key is not there. A multiply-shift hash,
    slot = (key · A mod 2^64) >> (64 − b), with 2^b ≥ 2n² slots for n values, is
    collision-free on them for about half the odd multipliers A; the first such A from a fixed
    sequence is used and a table maps slots to codes — a few vectorised passes over the keys,
    where a binary search costs a branch per level.
    """
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
    of them '?'; fields bare values of at most 7 bytes, no spaces or quotes) without pandas.

    NumPy's C reader splits the fields into byte strings of 2, 4 or 8 bytes, at least one more
    than the longest declared value — so a longer field, cut there, still matches nothing —
    which read as unsigned integers, and each column is looked up among its declared values'
    integers (``_hash_codes``). None (the caller goes on with ``_read_plain``) when the data is
    not of that form, rows differ in length or a field matches no declared value.
    """
    # a declared '' would match an empty field, which the grammar rejects (a value is never empty)
    if any(
        a.kind != "nominal"
        or len(a.values) > _MAX_BARE_VALUES
        or "?" in a.values
        or "" in a.values
        or not all(v.isascii() for v in a.values)
        for a in attributes
    ):
        return None
    declared = [[v.encode() for v in a.values] for a in attributes]
    width = next((w for w in (2, 4, 8) if w > max((len(v) for values in declared for v in values), default=0)), None)
    if width is None or not text.isascii() or any(mark in text for mark in (" ", "\t", "\r", "'", '"')):
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


def _decode(raw: pd.Index) -> np.ndarray | None:
    """Each distinct raw field (text between commas, as pandas split it) read as one ARFF value
    by the same grammar as ``_split_fields`` (None: missing); None when a field is not exactly
    one value — a quoted comma split it, or it is empty — and the general reader must decide.
    """
    text = pd.Index(raw, dtype=object).str.strip()
    simple = ~text.str.contains(r"[\s'\"]", regex=True) & (text != "")  # a bare value as it stands
    values = np.where(text == "?", None, text.to_numpy(dtype=object))
    for j in np.flatnonzero(~simple):
        match = _FIELD.fullmatch(text[j])
        if match is None or match.group(0) == "":  # an empty field, or not one value
            return None
        values[j] = _value(*match.groups())
    return values


def _read_plain(text: str, attributes: list[Attribute], path: str) -> list[pd.Series] | None:
    """The data section through pandas' C parser, splitting at every comma (no quoting): each
    column's distinct raw fields are read by ``_decode``, so values are exactly those of the
    general reader. None when a quoted value holds a comma, a row has another length than the
    header's (a short row's missing fields are empty) or a field is empty; a bad value raises
    ``_NeedsLineNumbers`` (``_column``): the general reader then names the line.
    """
    n_attributes = len(attributes)
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            header=None,
            sep=",",
            quoting=csv.QUOTE_NONE,
            dtype=object,
            na_filter=False,
            skip_blank_lines=True,
            engine="c",
        )
    except (ValueError, pd.errors.EmptyDataError):  # a row longer than the first (ParserError)
        return None
    if frame.shape[1] != n_attributes:
        return None
    series = []
    for attribute, (_, column) in zip(attributes, frame.items()):
        raw_codes, raw = pd.factorize(column.to_numpy())
        values = _decode(raw)
        if values is None:
            return None
        inverse, distinct = pd.factorize(values, use_na_sentinel=True)
        codes = np.append(inverse, -1)[raw_codes]
        series.append(
            _column(attribute, pd.Categorical.from_codes(codes, categories=pd.Index(distinct, dtype=object)), path)
        )
    return series


def read_arff(path: str | Path) -> tuple[str, list[Attribute], pd.DataFrame]:
    """Parse an ARFF file into (relation name, attributes, DataFrame of every attribute).

    The data section goes to the fastest reader that reads it exactly: ``_read_bare_nominal``
    (machine-written nominal data), else pandas' C parser (``_read_plain``), else the general
    line-by-line reader (escapes, sparse rows, comments), whose errors name the line.
    """
    path = str(path)
    text = _decode_file(path)
    relation, attributes = "", []
    position, number = 0, 0
    while position < len(text):
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        line, position, number = text[position:end], end + 1, number + 1
        line = line.strip()
        if not line or line.startswith("%"):
            continue
        keyword, *rest = line.split(None, 1)
        rest = rest[0] if rest else ""
        keyword = keyword.lower()
        where = f"{path}:{number}"
        if keyword == "@relation":
            relation = rest.strip().strip("'\"")
        elif keyword == "@attribute":
            attribute = _parse_attribute(rest, where)
            if any(a.name == attribute.name for a in attributes):
                raise ValueError(f"{where}: attribute name {attribute.name!r} is declared twice")
            attributes.append(attribute)
        elif keyword == "@data":
            if not attributes:
                raise ValueError(f"{where}: @data before any @attribute")
            return relation, attributes, pd.concat(_read_data(text[position:], number + 1, attributes, path), axis=1)
        else:
            raise ValueError(f"{where}: unexpected line {line[:40]!r}")
    raise ValueError(f"{path}: no @data section")


def _decode_file(path: str) -> str:
    """The file's text as UTF-8 (a leading byte-order mark dropped). Weka 3.6 decodes with the
    platform's charset and turns undecodable bytes into U+FFFD; silently changed values are
    worse than an error that names the line and the fix.
    """
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ValueError(
            f"{path}:{line}: not UTF-8 (byte 0x{data[error.start]:02x}); ARFF files are read as UTF-8: "
            f"convert it first, e.g. iconv -f latin1 -t utf-8"
        ) from None


def _read_data(data: str, first_number: int, attributes: list[Attribute], path: str) -> list[pd.Series]:
    """The data section's columns, from the fastest reader that reads it exactly: the general
    reader decides every case the fast ones leave (and names the line of a bad value).
    """
    if data.strip() and _plain_data(data):
        try:
            series = _read_bare_nominal(data, attributes) or _read_plain(data, attributes, path)
        except _NeedsLineNumbers:
            series = None
        if series is not None:
            return series
    rows, numbers = _read_rows(re.split(r"\r\n?|\n", data), first_number, attributes, path)
    columns = [pd.Categorical(list(c)) for c in zip(*rows)] if rows else [pd.Categorical([])] * len(attributes)
    return [_column(a, c, path, numbers) for a, c in zip(attributes, columns)]
