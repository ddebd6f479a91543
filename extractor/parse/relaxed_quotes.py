"""Recovery of string values whose apostrophes Oracle did not double.

LogMiner sometimes writes ``'O'Brien'`` instead of ``'O''Brien'``. A string literal can
then only be delimited by what may follow it in the grammar: a closing quote must be
followed by ``,``, ``)``, `` and ``, `` where``, ``;`` or the end of the statement, and the
rest of the statement must still parse, with as many values as columns (INSERT), only
column names the dictionary knows (when the table is given) and every column the table's
supplemental logging puts in a WHERE clause. Among the readings that satisfy those rules,
the ones with the most columns are kept when the table's dictionary is known (a string that
swallows ``', "COL" = '`` is the less likely split, as Debezium also decides): exactly one
is a recovery, none or several is a :class:`RedoParseError`. Each (state, position) of the
statement is read once.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping
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
_QUOTE = re.compile("'")
_STRING_END = re.compile(r"\s*(?:[,)]|;?\s*\Z)|\s+(?i:and|where)\s")
_COMMA = re.compile(r"\s*,\s*")
_INSERT_END = re.compile(rf"\s*\){g.END}\Z")
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


# A value as read: a literal, or the (opening, closing) quote positions of a relaxed string.
_Value = Literal | tuple[int, int]
# One item of a reading: the section, the column (INSERT: its index), the value.
_Item = tuple[_Section, str, _Value]
# The rest of a reading from some position on: its items in order, and the final ROWID.
_Suffix = tuple[tuple[_Item, ...], str | None]


def _extend(
    found: list[_Suffix], item: _Item | None, rest: list[_Suffix], *, most_items: bool
) -> None:
    """Add ``item`` followed by each of ``rest`` to ``found``, at most two readings (one is a
    recovery, two are ambiguous). With ``most_items`` only the readings with the most items
    are kept (Debezium's choice: a split that swallows a column into a string is the less
    likely one)."""
    for items, rowid in rest:
        candidate = ((item, *items) if item is not None else items, rowid)
        if most_items and found and len(candidate[0]) != len(found[0][0]):
            if len(candidate[0]) < len(found[0][0]):
                continue
            found.clear()
        if len(found) < 2:
            found.append(candidate)


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
        # Every quote a relaxed string could close at (what follows it may end a value),
        # found in one scan: each value start then looks only at those after it.
        self.closers = [
            match.start()
            for match in _QUOTE.finditer(sql, 0, self.string_limit)
            if _STRING_END.match(sql, match.end())
        ]
        self.furthest = 0
        self.first_quote = len(sql)
        self.steps = 0
        self.column_count = 0
        self._memo: dict[tuple[str, int, int, str, frozenset[str]], list[_Suffix]] = {}

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
            self.column_count = len(columns)
            first_state = {"INSERT": "insert_value", "UPDATE": "set_column", "DELETE": "where"}
            suffixes = self._suffixes(first_state[operation], match.end(), 0, "", frozenset())
            return [
                _reading(sql, operation, owner, table, columns, items, rowid)
                for items, rowid in suffixes
            ]
        for prefix in _HEAD_PREFIXES:
            partial = prefix.match(sql)
            if partial:
                self._reach(partial.end())
        return found

    def _suffixes(
        self, state: str, pos: int, count: int, column: str, where: frozenset[str]
    ) -> list[_Suffix]:
        """At most two ways to read the statement from ``pos`` on in ``state`` (what comes
        next), each with its items and final ROWID. ``where`` holds the required WHERE
        columns (``required_old``) the reading has met so far. Memoised per argument tuple:
        the readings of the rest do not depend on how the statement was read up to here, so
        each (state, position) is read once however many splits lead to it."""
        key = (state, pos, count, column, where)
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise RedoParseError("too many possible splits to decide", self.sql, self.first_quote)
        self._reach(pos)
        found: list[_Suffix] = []
        sql = self.sql
        if state == "insert_value":
            for value, end in self._values(pos):
                item = (_Section.INSERT, str(count), value)
                if count + 1 < self.column_count:
                    comma = _COMMA.match(sql, end)
                    if comma:
                        rest = self._suffixes("insert_value", comma.end(), count + 1, "", where)
                        self._extend(found, item, rest)
                elif count + 1 == self.column_count and _INSERT_END.match(sql, end):
                    self._extend(found, item, [((), None)])
        elif state == "set_column":
            match = _SET_COLUMN.match(sql, pos)
            if match and self._known(match.group(1)):
                found = self._suffixes("set_value", match.end(), count, match.group(1), where)
        elif state == "set_value":
            for value, end in self._values(pos):
                item = (_Section.SET, column, value)
                comma = _COMMA.match(sql, end)
                if comma:
                    self._extend(
                        found, item, self._suffixes("set_column", comma.end(), count, "", where)
                    )
                keyword = _WHERE_KEYWORD.match(sql, end)
                if keyword:  # LogMiner always writes a WHERE clause for an UPDATE
                    self._extend(
                        found, item, self._suffixes("where", keyword.end(), count, "", where)
                    )
        elif state == "where":
            rowid = _ROWID_END.match(sql, pos)
            if rowid and self.required_old <= where:
                self._extend(found, None, [((), rowid.group(1))])
            match = _WHERE_COLUMN.match(sql, pos)
            if match and self._known(match.group(1)):
                name = match.group(1)
                if match.group(2):
                    rest = self._suffixes("where_value", match.end(), count, name, where)
                    self._extend(found, None, rest)
                else:
                    item = (_Section.WHERE, name, IS_NULL_LITERAL)
                    self._after_where_value(found, item, match.end(), self._met(where, name))
        elif state == "where_value":
            for value, end in self._values(pos):
                item = (_Section.WHERE, column, value)
                self._after_where_value(found, item, end, self._met(where, column))
        self._memo[key] = found
        return found

    def _after_where_value(
        self, found: list[_Suffix], item: _Item, end: int, where: frozenset[str]
    ) -> None:
        conjunction = _AND.match(self.sql, end)
        if conjunction:
            self._extend(found, item, self._suffixes("where", conjunction.end(), 0, "", where))
        if _END.match(self.sql, end) and self.required_old <= where:
            self._extend(found, item, [((), None)])

    def _extend(self, found: list[_Suffix], item: _Item | None, rest: list[_Suffix]) -> None:
        # The most-columns preference needs the dictionary: without it, every split of an
        # ambiguous statement stands and the statement is refused.
        _extend(found, item, rest, most_items=self.known_columns is not None)

    def _met(self, where: frozenset[str], quoted_name: str) -> frozenset[str]:
        name = _unquote(quoted_name) or ""
        return where | {name} if name in self.required_old else where

    def _values(self, pos: int) -> list[tuple[_Value, int]]:
        """Every way a value can start at ``pos``, with where it ends: the strict literal,
        and each closing quote a relaxed string could end at (kept as its span: the text is
        built only for the reading that is returned)."""
        sql = self.sql
        candidates: list[tuple[_Value, int]] = []
        strict = _VALUE.match(sql, pos)
        if strict:
            candidates.append((Literal(strict.group(1)), strict.end()))
        comment = _COMMENT.match(sql, pos)
        start = comment.end() if comment else pos
        if start < len(sql) and sql[start] == "'":
            self.first_quote = min(self.first_quote, start)
            strict_end = strict.end() if strict else -1
            for close in self.closers[bisect_right(self.closers, start) :]:
                if close + 1 != strict_end:
                    candidates.append(((start, close), close + 1))
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


def _reading(
    sql: str,
    operation: Operation,
    owner: str | None,
    table: str,
    columns: list[str],
    ordered: tuple[_Item, ...],
    rowid: str | None,
) -> ParsedRedo:
    new: dict[str, Literal] = {}
    old: dict[str, Literal] = {}
    for section, column, value in ordered:
        literal = value if isinstance(value, Literal) else _relaxed_string(sql, *value)
        if section is _Section.INSERT:
            new[columns[int(column)]] = literal
        elif section is _Section.SET:
            new[_unquote(column) or ""] = literal
        else:
            old[_unquote(column) or ""] = literal
    return ParsedRedo(operation, owner, table, new, old, rowid, recovered_quotes=True)


def _relaxed_string(sql: str, opening: int, closing: int) -> Literal:
    """The string between two quotes, its apostrophes doubled as a well-formed literal's."""
    content = sql[opening + 1 : closing].replace("''", "'")
    return Literal("'" + content.replace("'", "''") + "'")


def _unquote(name: str | None) -> str | None:
    return None if name is None else name.replace('""', '"')
