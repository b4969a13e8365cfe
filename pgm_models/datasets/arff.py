"""A reader for Weka's ARFF format that keeps what classifiers need from the header.

Nominal attributes become pandas Categoricals whose categories are the *declared* values in
declared order (values declared but never observed still belong to the domain), numeric
attributes become float columns, string and date attributes become str columns. ``?`` is a
missing value (NaN). Dense and sparse (``{index value, ...}``) data rows are both read.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
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


def _read_rows(lines, start: int, attributes: list[Attribute], path: str) -> list[list[str | None]]:
    # In a sparse row an omitted value is Weka's internal 0: the number 0, or a nominal
    # attribute's first declared value.
    omitted = [a.values[0] if a.kind == "nominal" else "0" for a in attributes]
    n_attributes = len(attributes)
    rows = []
    for number, line in enumerate(lines[start:], start=start + 1):
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
        recoded = np.where(codes >= 0, position[codes], -1)
        return pd.Series(pd.Categorical.from_codes(recoded, dtype=pd.CategoricalDtype(list(attribute.values))), name=attribute.name)
    if attribute.kind == "numeric":
        try:
            numbers = seen.astype(float).to_numpy()
        except ValueError as error:
            raise ValueError(f"{path}: numeric attribute {attribute.name!r}: {error}") from None
        return pd.Series(np.where(codes >= 0, numbers[codes] if len(numbers) else np.nan, np.nan), name=attribute.name)
    text = np.asarray(values.categories, dtype=object)
    return pd.Series(np.where(codes >= 0, text[codes] if len(text) else None, None), name=attribute.name, dtype=object)


def _plain_data(text: str) -> bool:
    """A data section pandas' CSV parser reads exactly: no escapes, double quotes, sparse rows,
    '%' (a comment only at a line's start in ARFF) or a quoted '?' (a value, not missing)."""
    return not any(mark in text for mark in ("\\", '"', "%", "'?'")) and "\n{" not in "\n" + text.lstrip()


def _read_plain(text: str, n_attributes: int, path: str) -> list[pd.Categorical]:
    """The data section through pandas' C parser: ',' separated, ' quoted, '?' missing."""
    frame = pd.read_csv(
        io.StringIO(text), header=None, dtype=str, quotechar="'", skipinitialspace=True,
        na_values=["?"], keep_default_na=False, skip_blank_lines=True, engine="c",
    )
    if frame.shape[1] != n_attributes:
        raise ValueError(f"{path}: rows have {frame.shape[1]} values, the header declares {n_attributes} attributes")
    return [pd.Categorical(frame[c]) for c in frame.columns]  # strings kept as strings (no type inference)


def read_arff(path: str | Path) -> tuple[str, list[Attribute], pd.DataFrame]:
    """Parse an ARFF file into (relation name, attributes, DataFrame of every attribute)."""
    path = str(path)
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    relation, attributes = "", []
    for number, line in enumerate(lines):
        text = line.strip()
        if not text or text.startswith("%"):
            continue
        keyword, _, rest = text.partition(" ")
        keyword = keyword.lower()
        where = f"{path}:{number + 1}"
        if keyword == "@relation":
            relation = rest.strip().strip("'\"")
        elif keyword == "@attribute":
            attributes.append(_parse_attribute(rest.replace("\t", " "), where))
        elif keyword == "@data":
            if not attributes:
                raise ValueError(f"{where}: @data before any @attribute")
            data = "\n".join(lines[number + 1 :])
            if data.strip() and _plain_data(data):
                columns = _read_plain(data, len(attributes), path)
            else:
                rows = _read_rows(lines, number + 1, attributes, path)
                columns = [pd.Categorical(list(c)) for c in zip(*rows)] if rows else [pd.Categorical([])] * len(attributes)
            frame = pd.concat([_column(a, c, path) for a, c in zip(attributes, columns)], axis=1)
            return relation, attributes, frame
        else:
            raise ValueError(f"{where}: unexpected line {text[:40]!r}")
    raise ValueError(f"{path}: no @data section")
