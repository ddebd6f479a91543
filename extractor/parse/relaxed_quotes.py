"""Recovery of string values whose apostrophes Oracle did not double.

LogMiner sometimes writes ``'O'Brien'`` instead of ``'O''Brien'``. A string literal can
then only be delimited by what may follow it in the grammar: a closing quote must be
followed by ``,``, ``)``, `` and ``, `` where``, ``;`` or the end of the statement, and the
rest of the statement must still parse, with as many values as columns (INSERT) and only
column names the dictionary knows (when the table is given). This module enumerates every
reading that satisfies those rules: exactly one is a recovery, none or several is a
:class:`RedoParseError`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from enum import Enum, auto

from extractor.dictionary import TableDef
from extractor.errors import RedoParseError
from extractor.parse import redo_grammar as g
from extractor.parse.literals import IS_NULL_LITERAL, Literal
from extractor.parse.redo_statement import Operation, ParsedRedo

# Reading more than this many partial states means the text is hopelessly ambiguous.
MAX_STEPS = 5_000

_INSERT_HEAD = g.INSERT_HEAD
_UPDATE_HEAD = g.UPDATE_HEAD
_DELETE_HEAD = g.DELETE_HEAD


def _prefixes(*steps: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile("".join(steps[: i + 1])) for i in range(len(steps)))


# Growing prefixes of each head, to say how far a statement with a broken head got.
_HEAD_PREFIXES = (
    *_prefixes(
        r"\s*(?i:insert\s+into)\s+",
        g.TABLE,
        rf"\s*\(\s*{g.IDENT}(?:\s*,\s*{g.IDENT})*+\s*\)\s*",
        r"(?i:values)\s*\(\s*",
    ),
    *_prefixes(r"\s*(?i:update)\s+", g.TABLE + g.TABLE_ALIAS, r"\s+(?i:set)\s+"),
    *_prefixes(r"\s*(?i:delete\s+from)\s+", g.TABLE + g.TABLE_ALIAS, r"\s+(?i:where)\s+"),
)

_VALUE = re.compile(rf"{g.COMMENT}({g.VALUE})")
_COMMENT = re.compile(g.COMMENT)
_STRING_END = re.compile(r"\s*(?:[,)]|;?\s*\Z)|\s+(?i:and|where)\s")
_COMMA = re.compile(r"\s*,\s*")
_INSERT_END = re.compile(g.INSERT_END)
_SET_COLUMN = re.compile(rf"{g.ALIAS}{g.IDENT_CAP}\s*=\s*")
_WHERE_KEYWORD = re.compile(r"\s+(?i:where)\s+")
_AND = re.compile(g.AND)
_WHERE_COLUMN = re.compile(rf"{g.ALIAS}{g.IDENT_CAP}\s*(?:(=)\s*|(?i:IS\s+NULL))")
_ROWID_END = re.compile(rf"{g.ROWID_PREDICATE}{g.END}\Z")
_END = re.compile(rf"{g.END}\Z")
_TRAILING_ROWID = re.compile(rf"{g.AND}(?i:ROWID)\s*=\s*'[A-Za-z0-9+/]++'{g.END}\Z")
_UNLOGGED_TYPES = ("CLOB", "NCLOB", "BLOB", "LONG")


class _Section(Enum):
    INSERT = auto()
    SET = auto()
    WHERE = auto()


# A reading in progress: items as a linked list (previous, (section, column, literal)).
_Items = tuple["_Items", tuple[_Section, str, Literal]] | None


def parse_relaxed(
    sql: str,
    table: TableDef | None,
    tables: Mapping[tuple[str | None, str], TableDef] | None = None,
) -> ParsedRedo:
    """The one reading of ``sql`` that tolerates undoubled apostrophes, or an error.

    Column names are checked against ``table``, or else against the entry of ``tables``
    named by the statement, when either is given."""
    reader = _Reader(sql, table, tables)
    readings = reader.readings()
    if not readings:
        raise RedoParseError("statement does not follow the SQL_REDO grammar", sql, reader.furthest)
    if len(readings) > 1:
        raise RedoParseError(
            "ambiguous: an undoubled apostrophe allows more than one split", sql, reader.first_quote
        )
    return readings[0]


class _Reader:
    def __init__(
        self,
        sql: str,
        table: TableDef | None,
        tables: Mapping[tuple[str | None, str], TableDef] | None,
    ) -> None:
        self.sql = sql
        self.table = table
        self.tables = tables
        self.known_columns: frozenset[str] | None = None
        self.required_old: frozenset[str] = frozenset()
        trailing_rowid = _TRAILING_ROWID.search(sql)
        # A string never swallows the final ROWID predicate.
        self.string_limit = trailing_rowid.start() if trailing_rowid else len(sql)
        self.furthest = 0
        self.first_quote = len(sql)
        self.steps = 0

    def readings(self) -> list[ParsedRedo]:
        sql = self.sql
        found: list[ParsedRedo] = []
        heads: tuple[tuple[re.Pattern[str], Operation], ...] = (
            (_INSERT_HEAD, "INSERT"),
            (_UPDATE_HEAD, "UPDATE"),
            (_DELETE_HEAD, "DELETE"),
        )
        for head, operation in heads:
            match = head.match(sql)
            if match is None:
                continue
            self._reach(match.end())
            owner, table = _unquote(match.group(1)), _unquote(match.group(2)) or ""
            entry = self.table
            if entry is None and self.tables is not None:
                entry = self.tables.get((owner, table))
            if entry is not None:
                self.known_columns = frozenset(entry.column_names)
                if operation != "INSERT":
                    self.required_old = _logged_columns(entry)
            columns: list[str] = []
            if operation == "INSERT":
                columns = [_unquote(c) or "" for c in g.COLUMN_NAMES.findall(match.group(3))]
            for items, rowid in self._walk(operation, match.end(), len(columns)):
                if self.required_old and not self.required_old <= _where_columns(items):
                    continue
                found.append(_reading(operation, owner, table, columns, items, rowid))
                if len(found) > 1:
                    return found
            return found
        for prefix in _HEAD_PREFIXES:
            partial = prefix.match(sql)
            if partial:
                self._reach(partial.end())
        return found

    def _walk(
        self, operation: str, start: int, column_count: int
    ) -> Iterator[tuple[_Items, str | None]]:
        # Depth-first over (state, position, items, count); states name what comes next.
        first_state = {"INSERT": "insert_value", "UPDATE": "set_column", "DELETE": "where"}
        stack: list[tuple[str, int, _Items, int, str]] = [
            (first_state[operation], start, None, 0, "")
        ]
        sql = self.sql
        while stack:
            state, pos, items, count, column = stack.pop()
            self.steps += 1
            if self.steps > MAX_STEPS:
                raise RedoParseError("too many possible splits to decide", sql, self.first_quote)
            self._reach(pos)
            if state == "insert_value":
                for text, end in self._values(pos):
                    node = (items, (_Section.INSERT, str(count), Literal(text)))
                    if count + 1 < column_count:
                        comma = _COMMA.match(sql, end)
                        if comma:
                            stack.append(("insert_value", comma.end(), node, count + 1, ""))
                    elif count + 1 == column_count and _INSERT_END.match(sql, end):
                        yield node, None
            elif state == "set_column":
                match = _SET_COLUMN.match(sql, pos)
                if match and self._known(match.group(1)):
                    stack.append(("set_value", match.end(), items, count, match.group(1)))
            elif state == "set_value":
                for text, end in self._values(pos):
                    node = (items, (_Section.SET, column, Literal(text)))
                    comma = _COMMA.match(sql, end)
                    if comma:
                        stack.append(("set_column", comma.end(), node, count, ""))
                    where = _WHERE_KEYWORD.match(sql, end)
                    if where:  # LogMiner always writes a WHERE clause for an UPDATE
                        stack.append(("where", where.end(), node, count, ""))
            elif state == "where":
                rowid = _ROWID_END.match(sql, pos)
                if rowid:
                    yield items, rowid.group(1)
                match = _WHERE_COLUMN.match(sql, pos)
                if match and self._known(match.group(1)):
                    if match.group(2):
                        stack.append(("where_value", match.end(), items, count, match.group(1)))
                    else:
                        node = (items, (_Section.WHERE, match.group(1), IS_NULL_LITERAL))
                        yield from self._after_where_value(node, match.end(), stack)
            elif state == "where_value":
                for text, end in self._values(pos):
                    node = (items, (_Section.WHERE, column, Literal(text)))
                    yield from self._after_where_value(node, end, stack)

    def _after_where_value(
        self, node: _Items, end: int, stack: list[tuple[str, int, _Items, int, str]]
    ) -> Iterator[tuple[_Items, str | None]]:
        conjunction = _AND.match(self.sql, end)
        if conjunction:
            stack.append(("where", conjunction.end(), node, 0, ""))
        if _END.match(self.sql, end):
            yield node, None

    def _values(self, pos: int) -> list[tuple[str, int]]:
        """Every way a value can start at ``pos``: the strict literal, and each closing
        quote a relaxed string could end at."""
        sql = self.sql
        candidates: list[tuple[str, int]] = []
        strict = _VALUE.match(sql, pos)
        if strict:
            candidates.append((strict.group(1), strict.end()))
        comment = _COMMENT.match(sql, pos)
        start = comment.end() if comment else pos
        if start < len(sql) and sql[start] == "'":
            self.first_quote = min(self.first_quote, start)
            close = sql.find("'", start + 1)
            while close != -1 and close < self.string_limit:
                end = close + 1
                if _STRING_END.match(sql, end) and not (strict and end == strict.end()):
                    content = sql[start + 1 : close].replace("''", "'")
                    candidates.append(("'" + content.replace("'", "''") + "'", end))
                close = sql.find("'", end)
        return candidates

    def _known(self, quoted_name: str) -> bool:
        if self.known_columns is None:
            return True
        return (_unquote(quoted_name) or "") in self.known_columns

    def _reach(self, pos: int) -> None:
        self.furthest = max(self.furthest, pos)


def _logged_columns(table: TableDef) -> frozenset[str]:
    """Columns every UPDATE / DELETE WHERE clause holds under the table's supplemental
    logging: the key under PRIMARY KEY, every column but LOBs and LONG under ALL."""
    if table.supplemental_logging == "ALL":
        return frozenset(
            c.name for c in table.columns if not c.data_type.upper().startswith(_UNLOGGED_TYPES)
        )
    if table.supplemental_logging == "PRIMARY KEY":
        return frozenset(table.primary_key)
    return frozenset()


def _where_columns(items: _Items) -> frozenset[str]:
    names: set[str] = set()
    while items is not None:
        items, (section, column, _) = items
        if section is _Section.WHERE:
            names.add(_unquote(column) or "")
    return frozenset(names)


def _reading(
    operation: Operation,
    owner: str | None,
    table: str,
    columns: list[str],
    items: _Items,
    rowid: str | None,
) -> ParsedRedo:
    ordered: list[tuple[_Section, str, Literal]] = []
    while items is not None:
        items, item = items
        ordered.append(item)
    ordered.reverse()
    new: dict[str, Literal] = {}
    old: dict[str, Literal] = {}
    for section, column, literal in ordered:
        if section is _Section.INSERT:
            new[columns[int(column)]] = literal
        elif section is _Section.SET:
            new[_unquote(column) or ""] = literal
        else:
            old[_unquote(column) or ""] = literal
    return ParsedRedo(operation, owner, table, new, old, rowid, recovered_quotes=True)


def _unquote(name: str | None) -> str | None:
    return None if name is None else name.replace('""', '"')
