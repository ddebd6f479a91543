"""SQL_REDO text -> :class:`ParsedRedo`, in one precompiled pass.

The compiled scanner (``implementation``) reads the common statements first; the rest, and
every statement when it is not built, takes the path below, the reference. Its fast path
matches the statement head, then reads every value (with its separator) in
one ``findall`` from there (C speed, no backtracking into literals) and checks that the
items cover the rest of the text without gaps. Only when that fails does the slow path in
:mod:`extractor.parse.relaxed_quotes` try to recover apostrophes that Oracle did not
double; it either finds exactly one reading or raises.
"""

from __future__ import annotations

from collections.abc import Mapping

from extractor.dictionary import TableDef
from extractor.errors import RedoParseError
from extractor.parse import implementation
from extractor.parse import redo_grammar as g
from extractor.parse.implementation import NO_VALUES
from extractor.parse.literals import IS_NULL_LITERAL, Literal
from extractor.parse.redo_statement import ParsedRedo
from extractor.parse.relaxed_quotes import parse_relaxed

_INSERT_HEAD = g.INSERT_HEAD.match
_UPDATE_HEAD = g.UPDATE_HEAD.match
_DELETE_HEAD = g.DELETE_HEAD.match
_DELETE_WITHOUT_WHERE = g.DELETE_WITHOUT_WHERE.match
_SET_CLAUSE = g.SET_CLAUSE.match
_VALUE_ITEMS = g.VALUE_ITEMS.findall
_WHERE_ITEMS = g.WHERE_ITEMS.findall
_COLUMN_NAMES = g.COLUMN_NAMES.findall
_SET_PAIRS = g.SET_PAIRS.findall


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
    compiled = implementation.compiled
    if compiled is not None:
        fast: ParsedRedo | None = compiled.parse_strict(sql)
        if fast is not None:
            return fast
    parsed = _parse_strict(sql)
    if parsed is not None:
        return parsed
    return parse_relaxed(sql, table, tables)


def _parse_strict(sql: str) -> ParsedRedo | None:
    first = sql[:1]
    if first.isspace():
        first = sql.lstrip()[:1]
    if not first:
        raise RedoParseError("empty statement", sql, 0)
    if first in "iI":
        return _insert(sql)
    if first in "uU":
        return _update(sql)
    if first in "dD":
        return _delete(sql)
    raise RedoParseError("not an INSERT, UPDATE or DELETE", sql, len(sql) - len(sql.lstrip()))


def _insert(sql: str) -> ParsedRedo | None:
    head = _INSERT_HEAD(sql)
    if head is None:
        return None
    owner, table, columns_text = head.groups()
    start = head.end()
    items = _VALUE_ITEMS(sql, start)
    columns = _COLUMN_NAMES(columns_text)
    if (
        len(items) != len(columns)  # also when an undoubled apostrophe split a value
        or items[-1][2]
        or sum([len(item[0]) for item in items]) != len(sql) - start
    ):
        return None
    if '""' in columns_text:
        columns = [_unquote_identifier(c) for c in columns]
    values = dict(zip(columns, [Literal(item[1]) for item in items], strict=True))
    if len(values) != len(columns):
        return None  # a column twice: never Oracle's; the relaxed reading decides
    return ParsedRedo("INSERT", _identifier(owner), _unquote_identifier(table), values, NO_VALUES)


def _update(sql: str) -> ParsedRedo | None:
    head = _UPDATE_HEAD(sql)
    if head is None:
        return None
    set_clause = _SET_CLAUSE(sql, head.end())
    if set_clause is None:
        return None
    set_text, where_keyword = set_clause.groups()
    new = _pairs(_SET_PAIRS(set_text), set_text)
    old, rowid = _where(sql, set_clause.end()) if where_keyword else ({}, None)
    if new is None or old is None:
        return None
    return ParsedRedo(
        "UPDATE", _identifier(head.group(1)), _unquote_identifier(head.group(2)), new, old, rowid
    )


def _delete(sql: str) -> ParsedRedo | None:
    head = _DELETE_HEAD(sql)
    if head is None:
        whole = _DELETE_WITHOUT_WHERE(sql)
        if whole is None:
            return None
        owner, table = whole.groups()
        return ParsedRedo(
            "DELETE", _identifier(owner), _unquote_identifier(table), NO_VALUES, NO_VALUES
        )
    old, rowid = _where(sql, head.end())
    if old is None:
        return None
    owner, table = head.groups()
    return ParsedRedo(
        "DELETE", _identifier(owner), _unquote_identifier(table), NO_VALUES, old, rowid
    )


def _where(sql: str, start: int) -> tuple[dict[str, Literal] | None, str | None]:
    """The WHERE predicates from ``start`` to the end, and the ROWID; None if unreadable."""
    items = _WHERE_ITEMS(sql, start)
    if not items or items[-1][3] or sum([len(item[0]) for item in items]) != len(sql) - start:
        return None, None
    rowid: str | None = items[-1][4] or None
    if rowid is not None:
        items.pop()
    old = {
        (_unquote_identifier(column) if '""' in column else column): (
            Literal(value) if value else IS_NULL_LITERAL
        )
        for _, column, value, _, _ in items
    }
    if len(old) != len(items):
        return None, None  # a column twice: never Oracle's; the relaxed reading decides
    return old, rowid


def _pairs(pairs: list[tuple[str, str]], clause: str) -> dict[str, Literal] | None:
    """The SET pairs; None when a column is set twice (an undoubled apostrophe made the
    text look like more pairs: the relaxed reading decides)."""
    if '""' in clause:
        pairs = [(_unquote_identifier(c), v) for c, v in pairs]
    new = {c: Literal(v) for c, v in pairs}
    return new if len(new) == len(pairs) else None


def _identifier(name: str | None) -> str | None:
    return None if name is None else _unquote_identifier(name)


def _unquote_identifier(name: str) -> str:
    return name.replace('""', '"') if '""' in name else name
