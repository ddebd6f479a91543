"""SQL_REDO text -> :class:`ParsedRedo`, in one precompiled pass.

The fast path validates the whole statement with one regular expression (C speed, no
backtracking into literals) and splits its clauses with ``findall``. Only when that fails
does the slow path in :mod:`extractor.parse.relaxed_quotes` try to recover apostrophes that
Oracle did not double; it either finds exactly one reading or raises.
"""

from __future__ import annotations

from collections.abc import Mapping

from extractor.dictionary import TableDef
from extractor.parse import redo_grammar as g
from extractor.parse.errors import RedoParseError
from extractor.parse.literals import IS_NULL_LITERAL, Literal
from extractor.parse.redo_statement import ParsedRedo
from extractor.parse.relaxed_quotes import parse_relaxed

_INSERT_MATCH = g.INSERT_STATEMENT.fullmatch
_UPDATE_MATCH = g.UPDATE_STATEMENT.fullmatch
_DELETE_MATCH = g.DELETE_STATEMENT.fullmatch
_COLUMN_NAMES = g.COLUMN_NAMES.findall
_VALUES = g.VALUES.findall
_SET_PAIRS = g.SET_PAIRS.findall
_WHERE_PAIRS = g.WHERE_PAIRS.findall
_NO_VALUES: dict[str, Literal] = {}


def parse_redo(
    sql: str,
    table: TableDef | None = None,
    *,
    tables: Mapping[tuple[str | None, str], TableDef] | None = None,
) -> ParsedRedo:
    """Split one INSERT / UPDATE / DELETE SQL_REDO statement into its parts.

    ``table`` (the dictionary entry, when known), or ``tables`` (entries by (owner, table
    name), looked up from the statement) lets the parser use the column names when it
    recovers values whose apostrophes Oracle did not double. Raises
    :class:`RedoParseError` (raw text and position) when the statement cannot be read;
    never returns a partial result.
    """
    parsed = _parse_strict(sql)
    if parsed is not None:
        return parsed
    return parse_relaxed(sql, table, tables)


def _parse_strict(sql: str) -> ParsedRedo | None:
    head = sql.lstrip()[:1]
    if head in "iI":
        return _insert(sql)
    if head in "uU":
        return _update(sql)
    if head in "dD":
        return _delete(sql)
    if not head:
        raise RedoParseError("empty statement", sql, 0)
    raise RedoParseError("not an INSERT, UPDATE or DELETE", sql, len(sql) - len(sql.lstrip()))


def _insert(sql: str) -> ParsedRedo | None:
    match = _INSERT_MATCH(sql)
    if match is None:
        return None
    owner, table, columns_text, values_text = match.groups()
    columns = _COLUMN_NAMES(columns_text)
    values = _VALUES(values_text)
    if len(columns) != len(values):
        return None  # only an undoubled apostrophe can do that: let recovery decide
    if '""' in columns_text:
        columns = [_unquote_identifier(c) for c in columns]
    return ParsedRedo(
        "INSERT",
        _identifier(owner),
        _unquote_identifier(table),
        dict(zip(columns, map(Literal, values), strict=True)),
        _NO_VALUES,
    )


def _update(sql: str) -> ParsedRedo | None:
    match = _UPDATE_MATCH(sql)
    if match is None:
        return None
    owner, table, set_text, where_text, rowid, rowid_only = match.groups()
    return ParsedRedo(
        "UPDATE",
        _identifier(owner),
        _unquote_identifier(table),
        _pairs(_SET_PAIRS(set_text), set_text),
        _where(where_text),
        rowid if rowid is not None else rowid_only,
    )


def _delete(sql: str) -> ParsedRedo | None:
    match = _DELETE_MATCH(sql)
    if match is None:
        return None
    owner, table, where_text, rowid, rowid_only = match.groups()
    return ParsedRedo(
        "DELETE",
        _identifier(owner),
        _unquote_identifier(table),
        _NO_VALUES,
        _where(where_text),
        rowid if rowid is not None else rowid_only,
    )


def _where(where_text: str | None) -> dict[str, Literal]:
    if not where_text:
        return {}
    return _pairs(_WHERE_PAIRS(where_text), where_text)


def _pairs(pairs: list[tuple[str, str]], clause: str) -> dict[str, Literal]:
    if '""' in clause:
        pairs = [(_unquote_identifier(c), v) for c, v in pairs]
    return {c: Literal(v) if v else IS_NULL_LITERAL for c, v in pairs}


def _identifier(name: str | None) -> str | None:
    return None if name is None else _unquote_identifier(name)


def _unquote_identifier(name: str) -> str:
    return name.replace('""', '"') if '""' in name else name
