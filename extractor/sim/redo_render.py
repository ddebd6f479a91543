"""SQL_REDO text as LogMiner writes it (``docs/logminer.md`` §2-3).

Literals follow the session NLS settings; column lists follow the table's supplemental
logging level. Choices where Oracle's behaviour is not documented are listed in
``docs/simulator.md`` (BINARY_* special values, number exponent form, UNISTR pieces).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from decimal import Decimal

from extractor.dictionary import ColumnDef, TableDef
from extractor.nls import NlsSettings
from extractor.sim.column_values import BcDate, OracleTimestamp, StoredValue
from extractor.sim.datetime_format import format_datetime
from extractor.sim.oracle_types import LOB_KINDS, NATIONAL_KINDS, Kind, column_type
from extractor.values import canonical_decimal_text

UNISTR_PIECE_UNITS = 1000  # UTF-16 units per UNISTR('...') piece before `||` (our choice)
NUMBER_TEXT_MAX = 40  # TO_CHAR switches to scientific notation beyond 40 characters

Row = Mapping[str, StoredValue]


def literal(column: ColumnDef, value: StoredValue, nls: NlsSettings) -> str:
    """The SQL literal LogMiner writes for ``value`` (``NULL`` for None)."""
    if value is None:
        return "NULL"
    ctype = column_type(column)
    kind = ctype.kind
    if isinstance(value, Decimal):
        return quote(oracle_number_text(value, nls.numeric_characters[0]))
    if isinstance(value, float):
        return quote(binary_number_text(value, single=kind is Kind.BINARY_FLOAT))
    if isinstance(value, str):
        if kind in NATIONAL_KINDS and not value.isascii():
            return unistr(value)
        return quote(value)
    if isinstance(value, bytes):
        return f"HEXTORAW('{value.hex()}')"
    if isinstance(value, OracleTimestamp):
        return _timestamp_literal(kind, ctype.precision or 0, value, nls)
    if isinstance(value, datetime | BcDate):
        bc = isinstance(value, BcDate)
        moment = value.moment if isinstance(value, BcDate) else value
        text = format_datetime(nls.date_format, moment, bc=bc)
        return f"TO_DATE({quote(text)}, {quote(nls.date_format)})"
    raise TypeError(f"no literal for {value!r}")


def quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def oracle_number_text(value: Decimal, decimal_char: str = ".") -> str:
    """TO_CHAR of a NUMBER: no leading zero before the point (``.5``), no trailing
    zeros, scientific notation (``1.5E+125``) when the plain text exceeds 40 characters."""
    text = canonical_decimal_text(value)
    if text.startswith("0."):
        text = text[1:]
    elif text.startswith("-0."):
        text = "-" + text[2:]
    if len(text) > NUMBER_TEXT_MAX:
        mantissa, exponent = format(value.normalize(), "E").split("E")
        if "." not in mantissa:
            mantissa += ".0"
        sign = exponent[0] if exponent[0] in "+-" else "+"
        text = f"{mantissa}E{sign}{exponent.lstrip('+-')}"
    return text.replace(".", decimal_char)


def binary_number_text(value: float, *, single: bool) -> str:
    """BINARY_FLOAT / BINARY_DOUBLE: the shortest decimal that reads back to the same
    binary value; ``Nan``, ``Inf``, ``-Inf`` for the special values (unverified form)."""
    if math.isnan(value):
        return "Nan"
    if math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    if not single:
        return repr(value).upper().replace("E+", "E+").removesuffix(".0")
    target = struct.pack("f", value)
    for digits in range(1, 10):
        text = f"{value:.{digits}G}"
        if struct.pack("f", float(text)) == target:
            return text
    return repr(value)


def unistr(value: str) -> str:
    """National text with non-ASCII characters: ``UNISTR('\\963F\\72F8')`` pieces of at most
    1000 UTF-16 units joined by ``||``. ASCII stays literal except ``\\`` (``\\005C``)."""
    units: list[str] = []
    for ch in value:
        if ch == "\\":
            units.append("\\005C")
        elif ch.isascii():
            units.append("''" if ch == "'" else ch)
        else:
            encoded = ch.encode("utf-16-be")
            units.extend(f"\\{encoded[i : i + 2].hex().upper()}" for i in range(0, len(encoded), 2))
    pieces = [
        "UNISTR('" + "".join(units[i : i + UNISTR_PIECE_UNITS]) + "')"
        for i in range(0, len(units), UNISTR_PIECE_UNITS)
    ]
    return "||".join(pieces)


def _timestamp_literal(kind: Kind, digits: int, value: OracleTimestamp, nls: NlsSettings) -> str:
    if kind is Kind.TIMESTAMP:
        text = format_datetime(
            nls.timestamp_format, value.local, nanosecond=value.nanosecond, type_digits=digits
        )
        return f"TO_TIMESTAMP({quote(text)})"
    if kind is Kind.TIMESTAMP_LTZ:
        offset = session_offset_minutes(nls)
        local = value.utc() + timedelta(minutes=offset)
    else:
        offset = value.offset_minutes or 0
        local = value.local
    text = format_datetime(
        nls.timestamp_tz_format, local, nanosecond=value.nanosecond, type_digits=digits,
        offset_minutes=offset,
    )  # fmt: skip
    return f"TO_TIMESTAMP_TZ({quote(text)})"


def session_offset_minutes(nls: NlsSettings) -> int:
    """The session TIME_ZONE as minutes east of UTC (only ``[+-]HH:MM`` offsets)."""
    text = nls.time_zone.strip()
    sign = -1 if text.startswith("-") else 1
    hours, _, minutes = text.lstrip("+-").partition(":")
    return sign * (int(hours) * 60 + int(minutes or 0))


def _name(table: TableDef) -> str:
    return f'"{table.owner}"."{table.name}"'


def insert_sql(
    table: TableDef, columns: Sequence[str], row: Row, nls: NlsSettings, *, empty_lobs: bool
) -> str:
    """``insert into "O"."T"("A","B") values (...);`` listing ``columns`` in order;
    with ``empty_lobs`` a non-NULL LOB shows as ``EMPTY_CLOB()`` / ``EMPTY_BLOB()``."""
    names = ",".join(f'"{c}"' for c in columns)
    values = []
    for name in columns:
        column = table.column(name)
        value = row.get(name)
        kind = column_type(column).kind
        if empty_lobs and value is not None and kind in LOB_KINDS:
            values.append("EMPTY_BLOB()" if kind is Kind.BLOB else "EMPTY_CLOB()")
        else:
            values.append(literal(column, value, nls))
    return f"insert into {_name(table)}({names}) values ({','.join(values)});"


def update_sql(
    table: TableDef, set_columns: Sequence[str], before: Row, after: Row, rowid: str | None,
    nls: NlsSettings,
) -> str:  # fmt: skip
    """``rowid`` None: the session has NO_ROWID_IN_STMT (no ``ROWID = '...'`` predicate; no
    WHERE at all when nothing else is logged)."""
    sets = ", ".join(f'"{c}" = {literal(table.column(c), after.get(c), nls)}' for c in set_columns)
    where = _where(table, where_columns(table, set_columns), before, rowid, nls)
    return f"update {_name(table)} set {sets}{where};"


def delete_sql(table: TableDef, before: Row, rowid: str | None, nls: NlsSettings) -> str:
    where = _where(table, non_lob_columns(table), before, rowid, nls)
    return f"delete from {_name(table)}{where};"


def where_columns(table: TableDef, changed: Iterable[str]) -> list[str]:
    """Columns an UPDATE's WHERE holds under the table's supplemental logging (§2):
    MINIMAL the changed ones, PRIMARY KEY also the key (all columns without a key),
    ALL every column; LOB columns never; in COLUMN_ID order."""
    if table.supplemental_logging == "ALL":
        return non_lob_columns(table)
    wanted = set(changed)
    if table.supplemental_logging == "PRIMARY KEY":
        wanted |= set(table.primary_key) if table.primary_key else set(table.column_names)
    return [c for c in non_lob_columns(table) if c in wanted]


def non_lob_columns(table: TableDef) -> list[str]:
    return [c.name for c in table.columns if column_type(c).kind not in LOB_KINDS]


def _where(
    table: TableDef, columns: Sequence[str], row: Row, rowid: str | None, nls: NlsSettings
) -> str:
    """`` where <predicates>``, or nothing when there is no predicate."""
    terms = []
    for name in columns:
        value = row.get(name)
        if value is None:
            terms.append(f'"{name}" IS NULL')
        else:
            terms.append(f'"{name}" = {literal(table.column(name), value, nls)}')
    if rowid is not None:
        terms.append(f"ROWID = '{rowid}'")
    return " where " + " and ".join(terms) if terms else ""
