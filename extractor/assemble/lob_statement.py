"""The rows of one statement that writes LOB values, as LogMiner shows them.

Oracle writes the INSERT (or UPDATE) of a row whose LOB values follow it with ROW_ID
``AAAAAAAAAAAAAAAAAA`` (:data:`NO_ROW_ID`); then, per value stored out of line, a group of
rows without a ROWID either (SEL_LOB_LOCATOR and LOB_WRITE / LOB_TRIM / LOB_ERASE rows,
XML DOC rows, 32K VARCHAR rows); and ends with a row that carries the row's ROWID: the UPDATE
writing the in-line values, or an INTERNAL row (docs/logminer.md §3). The undo of the
statement (ROLLBACK = 1) names the ROWID as well. The transaction buffer gives the waiting
row the ROWID of that last row (``TransactionBuffer``); these predicates say which rows wait,
which continue the statement and which end it.
"""

from __future__ import annotations

from extractor.errors import AmbiguousRedoError, RedoParseError
from extractor.logminer_row import NO_ROW_ID, OBJECT_ROW_ID_SUFFIX, LogMinerRow, OperationCode
from extractor.parse import Literal, ParsedRedo, parse_redo

INSERT, UPDATE, DELETE = OperationCode.INSERT, OperationCode.UPDATE, OperationCode.DELETE
INTERNAL = OperationCode.INTERNAL
# The rows of the groups that write a value stored out of line.
_VALUE_WRITING_CODES = frozenset(
    {
        OperationCode.SELECT_LOB_LOCATOR,
        OperationCode.LOB_WRITE,
        OperationCode.LOB_TRIM,
        OperationCode.LOB_ERASE,
        OperationCode.LOB_ERASE_OBSERVED,
        OperationCode.XML_DOC_BEGIN,
        OperationCode.XML_DOC_WRITE,
        OperationCode.XML_DOC_END,
        OperationCode.EXTENDED_STRING_BEGIN,
        OperationCode.EXTENDED_STRING_WRITE,
        OperationCode.EXTENDED_STRING_END,
    }
)
_EMPTY_LOBS = ("EMPTY_CLOB()", "EMPTY_BLOB()")


def waits_for_row_id(row: LogMinerRow) -> bool:
    """An INSERT or UPDATE shown without its ROWID: its statement's last row gives it."""
    return row.row_id == NO_ROW_ID and row.operation_code in (INSERT, UPDATE) and not row.rollback


def writes_values(row: LogMinerRow) -> bool:
    """A row of a group writing an out-of-line value (LOB, XML DOC, 32K VARCHAR)."""
    return row.operation_code in _VALUE_WRITING_CODES


def continues_statement(row: LogMinerRow) -> bool:
    """A row writing an out-of-line value of the waiting row (no ROWID either)."""
    return row.operation_code in _VALUE_WRITING_CODES and row.row_id in (None, NO_ROW_ID)


def may_end_statement(row: LogMinerRow) -> bool:
    """An INTERNAL row that may end a statement: not an undo, with the ROWID of a row (not
    of the object as a whole). Others (they reach the buffer through the table and object
    filters) leave a waiting statement waiting."""
    row_id = row.row_id
    return (
        not row.rollback
        and row_id is not None
        and row_id != NO_ROW_ID
        and not row_id.endswith(OBJECT_ROW_ID_SUFFIX)
    )


def gives_row_id(waiting: LogMinerRow, row: LogMinerRow, *, values_written: bool) -> bool:
    """``row`` (of the same transaction, after ``waiting`` and the rows that continue its
    statement) ends that statement with the row's ROWID:

    - an INTERNAL row that :func:`may_end_statement`, once a row writing an out-of-line value
      continued the statement (``values_written``: an INTERNAL row right after the waiting
      row may be another statement's, in a table not replicated);
    - an undo (ROLLBACK = 1) of the waiting statement in the same table: a DELETE undoes an
      INSERT, an UPDATE an UPDATE;
    - an UPDATE of the same table writing a value the waiting statement left to follow
      (a column it gave ``EMPTY_CLOB()`` / ``EMPTY_BLOB()``; for an UPDATE, a column it set),
      whose WHERE agrees with the row the waiting statement left on every column both name.
      Under MINIMAL supplemental logging WHERE names no column: the UPDATE is taken on its
      SET clause alone.
    """
    row_id, code = row.row_id, row.operation_code
    if row_id is None or row_id == NO_ROW_ID:
        return False
    if code == INTERNAL:
        return values_written and may_end_statement(row)
    if row.table_name != waiting.table_name or row.seg_owner != waiting.seg_owner:
        return False
    if row.rollback:
        return code == (DELETE if waiting.operation_code == INSERT else UPDATE)
    return code == UPDATE and _writes_values_of(waiting, row)


def _writes_values_of(waiting: LogMinerRow, update: LogMinerRow) -> bool:
    """Some reading of both statements (more than one only where undoubled apostrophes
    leave a tie) has ``update`` write a value ``waiting`` left to follow, on the row it left:
    the row that comes right after, of the same table, is its follower unless no reading
    fits; the change builder tells the readings apart later (by the row AS OF the commit)."""
    statements, followers = _readings(waiting), _readings(update)
    return any(
        _follows(waiting.operation_code, statement, follower)
        for statement in statements
        for follower in followers
    )


def _follows(code: int, statement: ParsedRedo, follower: ParsedRedo) -> bool:
    if code == INSERT:
        to_follow = {c for c, v in statement.new.items() if v.text in _EMPTY_LOBS}
    else:
        to_follow = set(statement.new)
    if to_follow.isdisjoint(follower.new):
        return False
    row_left = {**statement.old, **statement.new}  # the row as far as the text shows it
    return all(
        _same_value(row_left[column], value)
        for column, value in follower.old.items()
        if column in row_left and row_left[column].text not in _EMPTY_LOBS
    )


def _readings(row: LogMinerRow) -> tuple[ParsedRedo, ...]:
    """The statement; with apostrophes Oracle did not double, its readings with the most
    columns (docs/parser.md); none for one that cannot be read without the table's
    dictionary."""
    try:
        return (parse_redo(row.sql_redo or ""),)  # relaxed-quote recovery included
    except AmbiguousRedoError as error:
        return error.readings
    except RedoParseError:
        return ()


def _same_value(left: Literal, right: Literal) -> bool:
    return left.text == right.text or (left.is_null and right.is_null)
