"""Recovery of string values whose apostrophes Oracle did not double.

LogMiner sometimes writes ``'O'Brien'`` instead of ``'O''Brien'``. A string literal can
then only be delimited by what may follow it in the grammar: a closing quote must be
followed by ``,``, ``)``, `` and ``, `` where``, ``;`` or the end of the statement, and the
rest of the statement must still parse, with as many values as columns (INSERT), only
column names the dictionary knows (when the table is given), no column twice in a clause,
the primary key in an UPDATE's or DELETE's WHERE clause (PRIMARY KEY and ALL logging) and
the old value of each column an UPDATE sets (the primary key only where some reading has it:
a statement older than a raised logging level has not). Among the readings that satisfy those rules
the one with the most columns wins (Debezium's choice: a closing quote ends a value where it
can); two readings with the most columns, or none, are a :class:`RedoParseError`.

The readings form a graph whose nodes are (what comes next, position): every way to read
the rest of the statement from a node is the same whichever way the node was reached. The
search reads each node once and keeps, per node, the most items any reading of the rest
has and how many readings reach it (``_Best``): linear in the nodes and their edges. The
rules that depend on the whole reading are checked on the best reading; when it breaks one,
or two readings tie, a best-first search over the same graph (``_best_valid``, bounded by
``MAX_STEPS``) yields readings with the most items first until the valid best is known.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping
from enum import Enum, auto
from heapq import heappop, heappush
from typing import NamedTuple

from extractor.dictionary import TableDef
from extractor.errors import AmbiguousRedoError, RedoParseError
from extractor.keys import logged_columns
from extractor.parse import redo_grammar as g
from extractor.parse.literals import IS_NULL_LITERAL, Literal
from extractor.parse.redo_statement import Operation, ParsedRedo

# Taking more than this many partial readings off the best-first search's heap means the
# text is hopelessly ambiguous.
MAX_STEPS = 5_000
# Reading a graph with more edges than this: the same. Each value may end at every later
# possible closing quote, so the edges grow with the square of the values: an UPDATE of
# 1,000 columns (Oracle's limit before 23ai) with an undoubled apostrophe in every value has
# ~1.1 million and takes ~1.7 s.
MAX_EDGES = 2_000_000
# Readings tied for the most columns handed on with the ambiguity error (a caller may tell
# the right one by reading the row AS OF its SCN); a tie of more is left unresolved.
MAX_TIED = 8

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
_VALUE_COMMA = re.compile(r"[').\dLle]\s*(,)")
_CALL_START = re.compile(r"[A-Za-z_][\w$]*+\('")
_INSERT_END = re.compile(g.INSERT_END)
_SET_COLUMN = re.compile(rf"{g.ALIAS}{g.IDENT_CAP}\s*=\s*")
_WHERE_KEYWORD = re.compile(r"\s+(?i:where)\s+")
_AND = re.compile(g.AND)
_WHERE_COLUMN = re.compile(rf"{g.ALIAS}{g.IDENT_CAP}\s*(?:(=)\s*|(?i:IS\s+NULL))")
_ROWID_END = re.compile(rf"{g.ROWID_PREDICATE}{g.END}\Z")
_END = re.compile(rf"{g.END}\Z")
# the ROWID predicate ending a WHERE clause, or making it (MINIMAL logging: no column in it)
_TRAILING_ROWID = re.compile(
    rf"(?:{g.AND}|\s+(?i:where)\s+)(?i:ROWID)\s*=\s*'[A-Za-z0-9+/]++'{g.END}\Z"
)


class _Section(Enum):
    INSERT = auto()
    SET = auto()
    WHERE = auto()


class _Value(NamedTuple):
    """A value's text ``sql[start:end]``; ``relaxed``: a string whose inner apostrophes
    are to be doubled (its literal is built only for the reading returned)."""

    start: int
    end: int
    relaxed: bool


_IS_NULL = _Value(-1, -1, False)  # the IS NULL predicate
# An item of a reading: section, column (quoted name; the value's index for INSERT), value.
_Item = tuple[_Section, str, _Value]
# A reading in progress: items as a linked list (previous, item).
_Items = tuple["_Items", _Item] | None
# Where a reading stands: what comes next, position, values read (INSERT), pending column.
_Node = tuple[str, int, int, str]
# A step from a node: the next node (None: the reading ends), the item read, the ROWID.
_Move = tuple[_Node | None, _Item | None, str | None]
# Per node, for the rest of the statement: most items of a reading (-1: none), readings
# with that many (capped at 2), and the first move of one of them.
_Best = tuple[int, int, _Move | None]


def parse_relaxed(
    sql: str,
    table: TableDef | None,
    tables: Mapping[tuple[str | None, str], TableDef] | None = None,
) -> ParsedRedo:
    """The reading of ``sql`` with the most columns that tolerates undoubled apostrophes,
    or an error.

    Column names are checked against ``table``, or else against the entry of ``tables``
    named by the statement, when either is given."""
    reader = _Reader(sql, table, tables)
    readings = reader.readings()
    if not readings:
        raise RedoParseError("statement does not follow the SQL_REDO grammar", sql, reader.furthest)
    most = max(_columns(reading) for reading in readings)
    best = [reading for reading in readings if _columns(reading) == most]
    if len(best) > 1:
        # A tie of more than MAX_TIED readings is left unresolved (no readings given).
        tied = tuple(best) if len(best) <= MAX_TIED else ()
        raise AmbiguousRedoError(sql, reader.first_quote, tied)
    return best[0]


def _columns(reading: ParsedRedo) -> int:
    return len(reading.new) + len(reading.old)


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
        # Columns whose old value an UPDATE's WHERE holds when the UPDATE changes them.
        self.old_carried: frozenset[str] = frozenset()
        self.column_count = 0
        self.graph: dict[_Node, _Best] = {}
        self.graph_moves: dict[_Node, list[_Move]] = {}
        # (searched near the end only: the predicate ends the statement)
        trailing_rowid = _TRAILING_ROWID.search(sql, max(0, len(sql) - 300))
        # A string never swallows the final ROWID predicate.
        self.string_limit = trailing_rowid.start() if trailing_rowid else len(sql)
        # Every position right after a quote where a relaxed string may end (one pass).
        # ... and right after each "')" where a relaxed one-argument call may end.
        self.string_ends: list[int] = []
        self.call_ends: list[int] = []
        string_end = _STRING_END.match
        for close in _quote_positions(sql, self.string_limit):
            if string_end(sql, close + 1):
                self.string_ends.append(close + 1)
            if sql.startswith("')", close) and string_end(sql, close + 2):
                self.call_ends.append(close + 2)
        # Every comma that may follow a value (after a quote, a parenthesis, a number, NULL or
        # Unsupported Type): an INSERT needing k more values needs k of them. INSERT only.
        self.commas: list[int] = []
        self.furthest = 0
        self.first_quote = len(sql)

    def readings(self) -> list[ParsedRedo]:
        sql = self.sql
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
                    self.old_carried = logged_columns(entry)  # old values in WHERE
            columns: list[str] = []
            if operation == "INSERT":
                columns = [_unquote(c) or "" for c in g.COLUMN_NAMES.findall(match.group(3))]
                if len(set(columns)) != len(columns):
                    return []  # a column named twice: never Oracle's
                self.commas = [m.start(1) for m in _VALUE_COMMA.finditer(sql, match.end())]
            self.column_count = len(columns)
            first_state = {"INSERT": "insert_value", "UPDATE": "set_column", "DELETE": "where"}
            start: _Node = (first_state[operation], match.end(), 0, "")
            count, items, rowid = self._best(start)
            if count == 0:
                return []
            if count == 1 and self._valid(items):
                return [self._reading(operation, owner, table, columns, items, rowid)]
            valid = self._best_valid(start)
            if not valid and self.required_old:
                # no reading names the key in WHERE: the statement is older than the
                # dictionary's logging level (raised since, or lowered for the database)
                self.required_old = frozenset()
                valid = self._best_valid(start)
            return [
                self._reading(operation, owner, table, columns, items, rowid)
                for items, rowid in valid
            ]
        for prefix in _HEAD_PREFIXES:
            partial = prefix.match(sql)
            if partial:
                self._reach(partial.end())
        return []

    def _best(self, start: _Node) -> tuple[int, _Items, str | None]:
        """How many readings have the most items (0, 1, or 2 for two or more), and the
        reading and its ROWID when one has (rules on the whole reading not checked). Each
        node is read once: ``best`` holds the answer for the rest of the statement."""
        best: dict[_Node, _Best] = {}
        moves: dict[_Node, list[_Move]] = {}
        edges = 0
        stack: list[_Node] = [start]
        while stack:
            node = stack[-1]
            if node in best:
                stack.pop()
                continue
            if node not in moves:
                moves[node] = self._moves(node)
                edges += len(moves[node])
                if edges > MAX_EDGES:
                    raise self._too_many()
                pending = [n for n, _, _ in moves[node] if n is not None and n not in best]
                if pending:
                    stack.extend(pending)
                    continue
            stack.pop()
            best[node] = _best_move(moves[node], best)
        self.graph = best
        self.graph_moves = moves
        most, count, move = best[start]
        if most < 0:
            return 0, None, None
        if count > 1:
            return 2, None, None
        reading: _Items = None
        while move is not None:
            following, item, rowid = move
            if item is not None:
                reading = (reading, item)
            if following is None:
                return 1, reading, rowid
            move = best[following][2]
        raise AssertionError("a best reading that does not end")

    def _best_valid(self, start: _Node) -> list[tuple[_Items, str | None]]:
        """The valid readings with the most items (``MAX_TIED`` + 1 at most: a tie of more
        is not worth resolving),
        best first over the graph ``_best`` left: a partial reading's bound is its items
        plus the most the rest can add, so complete readings come out with the most items
        first (bounded by MAX_STEPS)."""
        best, moves = self.graph, self.graph_moves
        order = 0  # ties in the heap: first pushed, first out
        heap: list[tuple[int, int, _Node | None, _Items, int, str | None]] = [
            (-best[start][0], order, start, None, 0, None)
        ]
        found: list[tuple[_Items, str | None]] = []
        most = -1
        steps = 0
        while heap:
            bound, _, node, items, count, rowid = heappop(heap)
            if -bound < most:
                break
            steps += 1
            if steps > MAX_STEPS:
                raise self._too_many()
            if node is None:
                if self._valid(items):
                    found.append((items, rowid))
                    most = count
                    if len(found) > MAX_TIED:
                        break
                continue
            for following, item, end_rowid in moves[node]:
                reading = items if item is None else (items, item)
                total = count + (item is not None)
                rest = 0 if following is None else best[following][0]
                if rest < 0:
                    continue
                order += 1
                heappush(heap, (-(total + rest), order, following, reading, total, end_rowid))
        return found

    def _moves(self, node: _Node) -> list[_Move]:
        """The steps the grammar allows from ``node``."""
        state, pos, count, column = node
        sql = self.sql
        self._reach(pos)
        moves: list[_Move] = []
        if state == "insert_value":
            # The values after this one need as many commas, the first right after it: a
            # value ending past the comma that leaves too few cannot be in a reading.
            remaining = self.column_count - count - 1
            commas = self.commas
            if len(commas) - bisect_left(commas, pos) < remaining:
                return moves
            limit = commas[len(commas) - remaining] if remaining > 0 else len(sql)
            for value in self._values(pos, limit):
                item = (_Section.INSERT, str(count), value)
                if count + 1 < self.column_count:
                    comma = _COMMA.match(sql, value.end)
                    if comma:
                        moves.append((("insert_value", comma.end(), count + 1, ""), item, None))
                elif count + 1 == self.column_count and _INSERT_END.match(sql, value.end):
                    moves.append((None, item, None))
        elif state == "set_column":
            match = _SET_COLUMN.match(sql, pos)
            if match and self._known(match.group(1)):
                moves.append((("set_value", match.end(), 0, match.group(1)), None, None))
        elif state == "set_value":
            for value in self._values(pos):
                item = (_Section.SET, column, value)
                comma = _COMMA.match(sql, value.end)
                if comma:
                    moves.append((("set_column", comma.end(), 0, ""), item, None))
                where = _WHERE_KEYWORD.match(sql, value.end)
                if where:
                    moves.append((("where", where.end(), 0, ""), item, None))
                if _END.match(sql, value.end):  # no WHERE: nothing logged, NO_ROWID_IN_STMT
                    moves.append((None, item, None))
        elif state == "where":
            rowid = _ROWID_END.match(sql, pos)
            if rowid:
                moves.append((None, None, rowid.group(1)))
            match = _WHERE_COLUMN.match(sql, pos)
            if match and self._known(match.group(1)):
                if match.group(2):
                    moves.append((("where_value", match.end(), 0, match.group(1)), None, None))
                else:
                    item = (_Section.WHERE, match.group(1), _IS_NULL)
                    moves += self._after_where_value(item, match.end())
        elif state == "where_value":
            for value in self._values(pos):
                moves += self._after_where_value((_Section.WHERE, column, value), value.end)
        return moves

    def _after_where_value(self, item: _Item, end: int) -> list[_Move]:
        moves: list[_Move] = []
        conjunction = _AND.match(self.sql, end)
        if conjunction:
            moves.append((("where", conjunction.end(), 0, ""), item, None))
        if _END.match(self.sql, end):
            moves.append((None, item, None))
        return moves

    def _values(self, pos: int, limit: int | None = None) -> list[_Value]:
        """Every way a value can start at ``pos`` (and end by ``limit``): the strict
        literal, and each closing quote a relaxed string could end at."""
        sql = self.sql
        candidates: list[_Value] = []
        strict = _VALUE.match(sql, pos)
        if strict and strict.group(1) != "''":  # Oracle's empty string is NULL
            candidates.append(_Value(strict.start(1), strict.end(1), False))
        comment = _COMMENT.match(sql, pos)
        start = comment.end() if comment else pos
        call = _CALL_START.match(sql, start) if self.call_ends else None
        if call:  # NAME('<relaxed>'), e.g. UNISTR('caf\00E9 O'Neil')
            self.first_quote = min(self.first_quote, call.end() - 1)
            ends = self.call_ends
            stop = len(ends) if limit is None else bisect_right(ends, limit)
            for index in range(bisect_right(ends, call.end() + 1), stop):
                end = ends[index]
                if not (strict and end == strict.end()):
                    candidates.append(_Value(start, end, True))
        if start < len(sql) and sql[start] == "'":
            self.first_quote = min(self.first_quote, start)
            ends = self.string_ends
            stop = len(ends) if limit is None else bisect_right(ends, limit)
            for index in range(bisect_right(ends, start + 2), stop):  # not '' (it is NULL)
                end = ends[index]
                if not (strict and end == strict.end()):
                    candidates.append(_Value(start, end, True))
        return candidates

    def _valid(self, items: _Items) -> bool:
        """No column twice in a clause, and the logged columns in the WHERE clause."""
        seen: dict[_Section, set[str]] = {_Section.SET: set(), _Section.WHERE: set()}
        while items is not None:
            items, (section, column, _) = items
            if section is _Section.INSERT:
                continue
            name = _unquote(column) or ""
            if name in seen[section]:
                return False
            seen[section].add(name)
        where = seen[_Section.WHERE]
        changed = seen[_Section.SET] & self.old_carried  # their old values are in WHERE
        return self.required_old <= where and changed <= where

    def _reading(
        self,
        operation: Operation,
        owner: str | None,
        table: str,
        columns: list[str],
        items: _Items,
        rowid: str | None,
    ) -> ParsedRedo:
        ordered: list[_Item] = []
        while items is not None:
            items, item = items
            ordered.append(item)
        ordered.reverse()
        new: dict[str, Literal] = {}
        old: dict[str, Literal] = {}
        for section, column, value in ordered:
            literal = self._literal(value)
            if section is _Section.INSERT:
                new[columns[int(column)]] = literal
            elif section is _Section.SET:
                new[_unquote(column) or ""] = literal
            else:
                old[_unquote(column) or ""] = literal
        return ParsedRedo(operation, owner, table, new, old, rowid, recovered_quotes=True)

    def _literal(self, value: _Value) -> Literal:
        if value is _IS_NULL:
            return IS_NULL_LITERAL
        text = self.sql[value.start : value.end]
        if not value.relaxed:
            return Literal(text)
        # '<content>' or NAME('<content>'): the content's apostrophes doubled
        prefix = text[: text.index("'") + 1]
        suffix = "'" if prefix == "'" else "')"
        content = text[len(prefix) : len(text) - len(suffix)].replace("''", "'")
        return Literal(prefix + content.replace("'", "''") + suffix)

    def _known(self, quoted_name: str) -> bool:
        if self.known_columns is None:
            return True
        return (_unquote(quoted_name) or "") in self.known_columns

    def _too_many(self) -> RedoParseError:
        return RedoParseError("too many possible splits to decide", self.sql, self.first_quote)

    def _reach(self, pos: int) -> None:
        self.furthest = max(self.furthest, pos)


def _best_move(moves: list[_Move], best: Mapping[_Node, _Best]) -> _Best:
    most, paths, choice = -1, 0, None
    for move in moves:
        node, item, _ = move
        if node is None:
            items, readings = 0, 1
        else:
            items, readings, _ = best[node]
            if items < 0:
                continue
        items += item is not None
        if items > most:
            most, paths, choice = items, readings, move
        elif items == most:
            paths = min(paths + readings, 2)
    return most, paths, choice


def _quote_positions(sql: str, limit: int) -> Iterator[int]:
    position = sql.find("'")
    while position != -1 and position < limit:
        yield position
        position = sql.find("'", position + 1)


def _logged_columns(table: TableDef) -> frozenset[str]:
    """Columns every UPDATE / DELETE WHERE clause holds: the primary key under PRIMARY KEY
    and ALL logging. Not every column under ALL: the dictionary may be newer than the
    statement (a column added since is in the dictionary and not in the statement; found by
    the simulator's undoubled apostrophes across an ADD COLUMN)."""
    if table.supplemental_logging in ("ALL", "PRIMARY KEY"):
        return frozenset(table.primary_key)
    return frozenset()


def _unquote(name: str | None) -> str | None:
    return None if name is None else name.replace('""', '"')
