"""A reader for Weka's ARFF format that keeps what classifiers need from the header.

Nominal attributes become pandas Categoricals whose categories are the *declared* values in
declared order (values declared but never observed still belong to the domain), numeric
attributes become float columns, string and date attributes become str columns. ``?`` is a
missing value (NaN). Dense and sparse (``{index value, ...}``) data rows are both read.
"""

from __future__ import annotations

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


def _column(attribute: Attribute, values: list[str | None], path: str) -> pd.Series:
    if attribute.kind == "nominal":
        undeclared = {v for v in values if v is not None} - set(attribute.values)
        if undeclared:
            raise ValueError(
                f"{path}: attribute {attribute.name!r} has undeclared value(s) {sorted(undeclared)}"
            )
        dtype = pd.CategoricalDtype(list(attribute.values))
        return pd.Series(pd.Categorical(values, dtype=dtype), name=attribute.name)
    if attribute.kind == "numeric":
        try:
            numbers = np.array([np.nan if v is None else float(v) for v in values])
        except ValueError as error:
            raise ValueError(f"{path}: numeric attribute {attribute.name!r}: {error}") from None
        return pd.Series(numbers, name=attribute.name)
    return pd.Series(values, name=attribute.name, dtype=object)


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
            rows = _read_rows(lines, number + 1, attributes, path)
            columns = list(zip(*rows)) if rows else [()] * len(attributes)
            frame = pd.concat(
                [_column(a, list(c), path) for a, c in zip(attributes, columns)], axis=1
            )
            return relation, attributes, frame
        else:
            raise ValueError(f"{where}: unexpected line {text[:40]!r}")
    raise ValueError(f"{path}: no @data section")
