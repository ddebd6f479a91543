"""A small SQL_REDO renderer for tests, written from Oracle's documented output format
(docs/logminer.md §3), independent of the parser: quotes doubled, identifiers
double-quoted, N-strings as UNISTR pieces joined with ``||``, dates and timestamps as
TO_DATE / TO_TIMESTAMP / TO_TIMESTAMP_TZ under the default session formats."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal


def identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def string(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def unistr(value: str, piece_units: int = 3) -> str:
    """UTF-16 code units as \\XXXX (backslash as \\\\), in pieces of ``piece_units`` units."""
    units: list[str] = []
    for ch in value:
        if ch == "\\":
            units.append("\\\\")
        elif ch.isascii() and ch.isprintable() and ch != "'":
            units.append(ch)
        else:
            encoded = ch.encode("utf-16-be")
            units.extend(f"\\{encoded[i : i + 2].hex().upper()}" for i in range(0, len(encoded), 2))
    pieces = ["".join(units[i : i + piece_units]) for i in range(0, len(units), piece_units)]
    return " || ".join(f"UNISTR('{p}')" for p in pieces)


def number(value: Decimal) -> str:
    return "'" + format(value, "f") + "'"


def binary_double(value: float) -> str:
    if math.isnan(value):
        return "'Nan'"
    if math.isinf(value):
        return "'Inf'" if value > 0 else "'-Inf'"
    return "'" + repr(value) + "'"


def date(value: datetime) -> str:
    return f"TO_DATE('{value:%Y-%m-%d %H:%M:%S}', 'YYYY-MM-DD HH24:MI:SS')"


def timestamp(value: datetime) -> str:
    fraction = f"{value.microsecond * 1000:09d}"
    return f"TO_TIMESTAMP('{value:%Y-%m-%d %H:%M:%S}.{fraction}')"


def timestamp_tz(value: datetime) -> str:
    offset = value.utcoffset()
    assert offset is not None
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    hours, mins = divmod(abs(minutes), 60)
    fraction = f"{value.microsecond * 1000:09d}"
    return f"TO_TIMESTAMP_TZ('{value:%Y-%m-%d %H:%M:%S}.{fraction} {sign}{hours:02d}:{mins:02d}')"


def raw(value: bytes) -> str:
    return f"HEXTORAW('{value.hex()}')"


def table_name(owner: str, table: str) -> str:
    return f"{identifier(owner)}.{identifier(table)}"


def insert(owner: str, table: str, values: Sequence[tuple[str, str]]) -> str:
    columns = ",".join(identifier(c) for c, _ in values)
    literals = ",".join(v for _, v in values)
    return f"insert into {table_name(owner, table)}({columns}) values ({literals});"


def _where(old: Sequence[tuple[str, str]], rowid: str | None) -> str:
    predicates = [
        f"{identifier(c)} IS NULL" if v == "NULL" else f"{identifier(c)} = {v}" for c, v in old
    ]
    if rowid is not None:
        predicates.append(f"ROWID = '{rowid}'")
    return " and ".join(predicates)


def update(
    owner: str,
    table: str,
    new: Sequence[tuple[str, str]],
    old: Sequence[tuple[str, str]],
    rowid: str | None,
) -> str:
    sets = ", ".join(f"{identifier(c)} = {v}" for c, v in new)
    return f"update {table_name(owner, table)} set {sets} where {_where(old, rowid)};"


def delete(owner: str, table: str, old: Sequence[tuple[str, str]], rowid: str | None) -> str:
    return f"delete from {table_name(owner, table)} where {_where(old, rowid)};"
