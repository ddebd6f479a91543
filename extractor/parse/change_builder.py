"""Committed LogMiner rows -> typed change records per table (plus quarantined rows and DDL).

For each DML row of a committed transaction: parse SQL_REDO, type the literals for the table's
columns, and build the change row the staging contract expects:

- INSERT: a full image (columns missing from the statement are NULL, as in Oracle);
- UPDATE: the WHERE values overlaid with the SET values; a full image when that covers every
  column, else a partial image whose ``_present`` lists the carried columns;
- DELETE: what the WHERE clause carried (at least the key);
- for tables keyed by primary key (``keys.keyed_by_primary_key``) an UPDATE that changes the
  key becomes a delete of the old key and an upsert of the new key.

Every operation code has a :data:`DISPOSITIONS` entry: applied, passed on (DDL), quarantined
with a reason, or ignored because it carries no row change; an unknown code is quarantined.
Rows that cannot be used (UNSUPPORTED, LOB, XMLTYPE and extended-string operations,
unparseable SQL_REDO, untypable values) become ``QuarantinedChange``s; the caller applies the
error policy.
DDL rows of selected tables are passed on as they are (the pipeline refreshes the dictionary);
a TRUNCATE TABLE or DROP TABLE also becomes a table reset marker (``_op = 't'``) at the
DDL's position.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import lru_cache
from typing import Literal

from extractor.change_record import ChangeRecord, Operation
from extractor.dictionary import TableDef
from extractor.errors import (
    AmbiguousRedoError,
    NumberChoiceError,
    ScnNotYetValidError,
    SnapshotTooOldError,
    TableNotFoundError,
    UnfetchableValueError,
)
from extractor.keys import keyed_by_primary_key, logged_columns
from extractor.land.audit_records import QuarantinedChange
from extractor.logminer_row import NO_ROW_ID, LogMinerRow, OperationCode
from extractor.nls import NlsSettings
from extractor.parse import (
    ParsedRedo,
    RedoParseError,
    UnsupportedValue,
    ValueTypingError,
    implementation,
    parse_redo,
    typed_row,
)
from extractor.parse.as_of_resolution import RowAsOf, resolve_by_row_as_of
from extractor.parse.ddl_statements import resets_table, table_rename
from extractor.parse.value_typing import parse_typed
from extractor.redo_position import RedoPosition

LOG = logging.getLogger(__name__)

_UNSUPPORTED_TEXT = "Unsupported Type"  # what LogMiner writes for a value it cannot render
_DML_OPERATIONS: dict[int, Operation] = {
    OperationCode.INSERT: "c",
    OperationCode.UPDATE: "u",
    OperationCode.DELETE: "d",
}


@dataclass(frozen=True)
class Disposition:
    """What the change builder does with the rows of one operation code of a selected table:
    ``apply`` (DML), ``ddl`` (passed on), ``quarantine`` (with ``reason``) or ``ignore``
    (``reason`` says why no change is lost)."""

    action: Literal["apply", "ddl", "quarantine", "ignore"]
    reason: str = ""


_LOB_REASON = "LOB operation {operation} is not supported"
_XML_REASON = "XMLTYPE operation {operation} (code {code}) is not supported"
_EXTENDED_REASON = "extended string (32k VARCHAR2/RAW) operation code {code} is not supported"
_NOT_A_CHANGE = "handled by the transaction assembler; never a row change"
# Exhaustive over OperationCode (tests/parse/test_operation_codes.py checks it); a code
# missing here is quarantined as unknown, never dropped.
DISPOSITIONS: dict[OperationCode, Disposition] = {
    OperationCode.INSERT: Disposition("apply"),
    OperationCode.UPDATE: Disposition("apply"),
    OperationCode.DELETE: Disposition("apply"),
    OperationCode.DDL: Disposition("ddl"),
    # No row change: index and segment maintenance, row locks, replication markers.
    OperationCode.INTERNAL: Disposition("ignore", "internal redo (no row change)"),
    OperationCode.SELECT_FOR_UPDATE: Disposition("ignore", "a row lock (no row change)"),
    OperationCode.REPLICATION_MARKER: Disposition("ignore", "a replication marker"),
    # Transaction control: the assembler consumes them before rows reach the builder.
    OperationCode.START: Disposition("ignore", _NOT_A_CHANGE),
    OperationCode.COMMIT: Disposition("ignore", _NOT_A_CHANGE),
    OperationCode.ROLLBACK: Disposition("ignore", _NOT_A_CHANGE),
    OperationCode.MISSING_SCN: Disposition("ignore", _NOT_A_CHANGE + " (a redo gap error)"),
    OperationCode.SELECT_LOB_LOCATOR: Disposition("quarantine", _LOB_REASON),
    OperationCode.LOB_WRITE: Disposition("quarantine", _LOB_REASON),
    OperationCode.LOB_TRIM: Disposition("quarantine", _LOB_REASON),
    OperationCode.LOB_ERASE: Disposition("quarantine", _LOB_REASON),
    OperationCode.LOB_ERASE_OBSERVED: Disposition("quarantine", _LOB_REASON),
    OperationCode.XML_DOC_BEGIN: Disposition("quarantine", _XML_REASON),
    OperationCode.XML_DOC_WRITE: Disposition("quarantine", _XML_REASON),
    OperationCode.XML_DOC_END: Disposition("quarantine", _XML_REASON),
    OperationCode.EXTENDED_STRING_BEGIN: Disposition("quarantine", _EXTENDED_REASON),
    OperationCode.EXTENDED_STRING_WRITE: Disposition("quarantine", _EXTENDED_REASON),
    OperationCode.EXTENDED_STRING_END: Disposition("quarantine", _EXTENDED_REASON),
    OperationCode.UNSUPPORTED: Disposition("quarantine", "UNSUPPORTED operation (code 255)"),
}
# A change row whose ROW_ID LogMiner left as the placeholder, that no later row of its
# statement gave its ROWID (extractor.assemble.lob_statement) and whose SQL_REDO names none:
# in a table keyed by ROWID it would merge with every other such row.
_NO_ROW_ID_REASON = (
    f"the change shows ROW_ID {NO_ROW_ID} (a row whose LOB values follow) and no later row "
    "of its statement gave the row's ROWID; the table's replica is keyed by ROWID"
)
_UNKNOWN_CODE = Disposition("quarantine", "unknown operation code {code} ({operation})")


_BY_CODE: dict[int, Disposition] = {int(code): what for code, what in DISPOSITIONS.items()}


def disposition(code: int) -> Disposition:
    """What to do with a row of operation ``code``; an unknown code is quarantined."""
    return _BY_CODE.get(code, _UNKNOWN_CODE)


@dataclass
class TransactionChanges:
    """What one committed transaction contributes to each staging table."""

    records: dict[tuple[str, str], list[ChangeRecord]] = field(default_factory=dict)
    quarantined: list[QuarantinedChange] = field(default_factory=list)
    ddl_rows: list[LogMinerRow] = field(default_factory=list)
    # (owner, table, DDL row): a table renamed into a selected name; its rows were never
    # mined under that name, so it is snapshotted again (a new table: snapshotted anyway)
    renamed_into: list[tuple[str, str, LogMinerRow]] = field(default_factory=list)
    # (owner, table, DML row): an UPDATE or DELETE without what the primary key that keys the
    # table's replica needs, quarantined: its logging was lower than the dictionary read
    # (lowered for the database, which writes no DDL row); the stream runner sends the table
    # back
    logged_lower: list[tuple[str, str, LogMinerRow]] = field(default_factory=list)
    # (owner, table, DML row): the first row of the table's object let go as unreadable
    # (dropped and purged since it was written, or its partition dropped); the DDL that
    # retires it may not be mined yet, so the stream runner sends the table back. Not for
    # rows under a new name (renamed away): the renamed table may go on being written, and
    # its rows, mapped to this table, would send it back at every window.
    let_go: list[tuple[str, str, LogMinerRow]] = field(default_factory=list)
    # (owner, table, DML row, why): an ambiguous statement whose row cannot be read AS OF its
    # SCN (its undo is gone, or DDL of the table since: ORA-01555, ORA-01466, ORA-00904); the
    # stream runner sends the table back (and says why), and the new snapshot holds what the
    # statement wrote.
    unreadable: list[tuple[str, str, LogMinerRow, str]] = field(default_factory=list)

    def add(self, record: ChangeRecord) -> None:
        self.records.setdefault((record.owner, record.table), []).append(record)


# Two signals inside the builder, never raised out of it (so not in extractor/errors.py):


class _UnsupportedValueError(Exception):
    """A value LogMiner could not render (quarantined with its statement)."""


class _NoRowIdError(Exception):
    """A change without its ROWID in a table keyed by ROWID (quarantined)."""


_LOGGED_LOWER = (
    "the table's supplemental logging was lower when it was written than the dictionary "
    "says; the table is snapshotted again, but a second such change under the same key is "
    "reported: check its logging with oracdc check (docs/keys.md)"
)


class _LowerLoggingError(Exception):
    """An UPDATE or DELETE of a table keyed by its primary key whose image lacks what that
    key needs: the key's values, or for an UPDATE moving the row to another key the whole
    row (the new key's version is built from it alone). The table's supplemental logging was
    lower when it was written than the dictionary says (quarantined: landed, it would make a
    row with a NULL key, or a new key's row with NULL columns)."""


class _UnknownColumnError(Exception):
    """A statement names a column the cached dictionary does not know (refresh and retry)."""


# Looks a table up in the cached dictionary; ``refresh=True`` forces a re-read from the source.
TableLookup = Callable[[str, str, bool], TableDef | None]
# (owner, table) of a replicated table by its object id (DATA_OBJ#), None when not one.
ObjectLookup = Callable[[int], tuple[str, str] | None]
# True when the object of that id is gone from the source's catalog (a dropped, purged table).
ObjectDropped = Callable[[int], bool]
# The name Oracle gives a dropped table in the recycle bin (``BIN$<base64>$<version>``).
_RECYCLE_BIN_PREFIX = "BIN$"


@dataclass(frozen=True)
class _Ambiguous:
    """A statement two or more readings fit, resolved once the transaction is read whole;
    ``position`` is where its records go among its table's records."""

    row: LogMinerRow
    table: TableDef
    error: AmbiguousRedoError
    position: int


@dataclass(frozen=True)
class TransactionInfo:
    """The commit facts every change row of a transaction carries."""

    xid: str
    commit_scn: int
    commit_ts: datetime | None


class ChangeBuilder:
    """Builds change records of committed transactions for the selected tables."""

    def __init__(
        self,
        lookup: TableLookup,
        is_selected: Callable[[str, str], bool],
        nls: NlsSettings,
        object_table: ObjectLookup | None = None,
        row_as_of: RowAsOf | None = None,
        object_dropped: ObjectDropped | None = None,
    ) -> None:
        self._lookup = lookup
        self._is_selected = is_selected
        self._selected: dict[tuple[str, str], bool] = {}  # is_selected is configuration
        self._nls = nls
        self._object_table = object_table or (lambda _object_id: None)
        self._row_as_of = row_as_of
        self._object_dropped = object_dropped or (lambda _object_id: False)
        self._retired_objects: set[int] = set()  # dropped objects whose rows were let go
        self._unreadable_dropped: set[str] = set()  # BIN$ names with rows let go

    def build(self, info: TransactionInfo, rows: Iterable[LogMinerRow]) -> TransactionChanges:
        changes = TransactionChanges()
        ambiguous: list[_Ambiguous] = []
        changes_by_row_id: dict[str, int] = {}
        for row in rows:
            owner, table = row.seg_owner, row.table_name
            if table is not None and table.startswith(_RECYCLE_BIN_PREFIX):
                owner, table = self._table_of(row)
            what = disposition(row.operation_code)
            if what.action == "ddl":
                renamed = table_rename(row.sql_redo, row.seg_owner)
                if renamed is not None:
                    self._renamed(info, row, renamed, changes)
                    continue
            if owner is None or table is None or not self._selected_table(owner, table):
                if what.action != "ignore":
                    self._unnamed(row, changes)
                continue
            if what.action == "apply":
                if self._row_as_of is not None and row.row_id is not None:  # ties decidable
                    changes_by_row_id[row.row_id] = changes_by_row_id.get(row.row_id, 0) + 1
                self._dml(info, row, owner, table, changes, ambiguous)
            elif what.action == "ddl":
                changes.ddl_rows.append(row)
                if resets_table(row.sql_redo):
                    changes.add(reset_marker(info, row, owner, table))
            elif what.action == "quarantine":
                reason = what.reason.format(operation=row.operation, code=row.operation_code)
                changes.quarantined.append(_quarantine(row, reason))
        for pending in reversed(ambiguous):  # later first: earlier insert positions hold
            self._resolve(info, pending, changes, changes_by_row_id)
        if changes.quarantined:
            changes.quarantined = self._without_dropped_tables_rows(changes.quarantined)
        return changes

    def _without_dropped_tables_rows(
        self, quarantined: list[QuarantinedChange]
    ) -> list[QuarantinedChange]:
        """Rows of a table in the recycle bin (``BIN$…``, applied by :meth:`_table_of`) that
        cannot be applied (e.g. an ambiguous statement whose row can no longer be read ``AS
        OF`` its SCN, an unsupported operation): let go, said once per table; the DROP TABLE
        later in the redo retires whatever they changed."""
        kept = []
        for change in quarantined:
            name = change.table_name or ""
            if not name.startswith(_RECYCLE_BIN_PREFIX):
                kept.append(change)
                continue
            if name not in self._unreadable_dropped:
                self._unreadable_dropped.add(name)
                LOG.warning(
                    "%s.%s: a row of this dropped table cannot be applied (%s); not landed: "
                    "the DROP TABLE later in the redo empties its replica",
                    change.owner, name, change.reason,
                    extra={"table": f"{change.owner}.{name}", "scn": change.scn},
                )  # fmt: skip
        return kept

    def _table_of(self, row: LogMinerRow) -> tuple[str | None, str | None]:
        """(owner, table) a row LogMiner names by a recycle bin name (``BIN$…``) changed:
        for DATA_OBJ# a replicated table's OBJECT_ID, that table's; else its names. Such a
        row was written before the DROP TABLE and mined after it; its SQL_REDO still names
        the columns, and the drop's reset marker follows it."""
        name = row.table_name
        if row.data_obj is None:
            return row.seg_owner, name
        replicated = self._object_table(row.data_obj)
        return (row.seg_owner, name) if replicated is None else replicated

    def _selected_table(self, owner: str, table: str) -> bool:
        key = (owner, table)
        selected = self._selected.get(key)
        if selected is None:
            selected = self._selected[key] = self._is_selected(owner, table)
        return selected

    def _resolve(
        self,
        info: TransactionInfo,
        pending: _Ambiguous,
        changes: TransactionChanges,
        changes_by_row_id: Mapping[str, int],
    ) -> None:
        """An ambiguous statement, told apart by the row AS OF its SCN (``as_of_resolution``)
        when the source can read it and the statement is the transaction's only change of
        its ROWID. A row Oracle can no longer read at that SCN (undo gone, DDL of the table
        since) sends the table back to be snapshotted; anything else is quarantined."""
        row, table, error = pending.row, pending.table, pending.error
        assert self._row_as_of is not None and row.row_id is not None
        if changes_by_row_id.get(row.row_id, 0) > 1:
            why: ParsedRedo | str = "the transaction changes that ROWID more than once"
        else:
            try:
                why = resolve_by_row_as_of(
                    error.readings, table, self._nls, row.row_id, info.commit_scn, self._row_as_of
                )
            except ScnNotYetValidError:
                raise  # not the row's fault: the window fails and is mined again
            except SnapshotTooOldError as read_error:
                changes.unreadable.append((table.owner, table.name, row, str(read_error)))
                return
            except (TableNotFoundError, NumberChoiceError, UnfetchableValueError) as read_error:
                why = f"the row cannot be read AS OF its SCN: {read_error}"
        if isinstance(why, str):
            changes.quarantined.append(_quarantine(row, f"{error.one_line()}; {why}"))
            return
        try:
            records = self._records(info, row, table, why)
        except (
            _UnknownColumnError,
            _UnsupportedValueError,
            _NoRowIdError,
            _LowerLoggingError,
            ValueTypingError,
        ) as record_error:
            _not_built(changes, row, table, record_error)
            return
        key = (table.owner, table.name)
        held = changes.records.setdefault(key, [])
        held[pending.position : pending.position] = records

    def _renamed(
        self,
        info: TransactionInfo,
        row: LogMinerRow,
        renamed: tuple[str, str, str],
        changes: TransactionChanges,
    ) -> None:
        """ALTER TABLE … RENAME TO / RENAME … TO. A selected name the table left has no table
        any more: a reset marker empties its replica, as a DROP TABLE's does. A table that
        takes a selected name brings rows never mined under it: snapshotted again."""
        owner, old, new = renamed
        passed_on = False
        if self._selected_table(owner, old):
            changes.add(reset_marker(info, row, owner, old))
            passed_on = True
        if self._selected_table(owner, new):
            changes.renamed_into.append((owner, new, row))
            passed_on = True
        if passed_on:
            changes.ddl_rows.append(row)

    def _unnamed(self, row: LogMinerRow, changes: TransactionChanges) -> None:
        """A row of a replicated table (by DATA_OBJ#) under a name that is not selected:
        UNKNOWN / ``OBJ# n`` (a dictionary mismatch, or a table dropped and purged since),
        or a new name (renamed). A purged or renamed table's rows are let go
        (:meth:`_let_go`); other SQL_REDO cannot be trusted against our dictionary:
        quarantined. (``BIN$…`` rows of a table in the recycle bin are its own:
        :meth:`_table_of`.)"""
        if row.data_obj is None:
            return
        replicated = self._object_table(row.data_obj)
        if replicated is None:
            return
        owner, table = replicated
        if _is_a_name(row) or self._object_dropped(row.data_obj):
            self._let_go(row, owner, table)
            purged = not _is_a_name(row)  # no row of it can follow: sending back ends
            if purged and all((owner, table) != (o, t) for o, t, _ in changes.let_go):
                changes.let_go.append((owner, table, row))
            return
        reason = (
            f"LogMiner named object {row.data_obj} ({owner}.{table}) "
            f"{row.seg_owner}.{row.table_name}: the table was renamed or dropped, or the "
            "LogMiner dictionary does not match"
        )
        quarantined = _quarantine(row, reason)
        changes.quarantined.append(replace(quarantined, owner=owner, table_name=table))

    def _let_go(self, row: LogMinerRow, owner: str, table: str) -> None:
        """A row of a replicated table's object that no longer has the table's name: renamed
        (LogMiner names it by its new name) or dropped and purged (``OBJ# n``, no column
        names). Written before the rename or drop, it is retired by the reset marker that
        DDL lands; but that DDL may not be mined yet (a later window, or redo not written
        yet): a purged one's table is snapshotted again (``TransactionChanges.let_go``).
        Written after a rename, it is not this table's. Not landed; said once per object."""
        assert row.data_obj is not None
        if row.data_obj in self._retired_objects:
            return
        self._retired_objects.add(row.data_obj)
        if _is_a_name(row):
            became = f"renamed {row.seg_owner}.{row.table_name}"
        else:
            became = "dropped: the table purged, or a partition dropped, split or merged"
        LOG.warning(
            "%s.%s: rows of its object %d (%s since they were written) cannot be read under "
            "its name and are not landed: %s; the staging history lacks them",
            owner, table, row.data_obj, became,
            "the RENAME lands a reset marker that empties the replica" if _is_a_name(row)
            else "the table is snapshotted again",
            extra={"table": f"{owner}.{table}", "object_id": row.data_obj},
        )  # fmt: skip

    def _dml(
        self,
        info: TransactionInfo,
        row: LogMinerRow,
        owner: str,
        table_name: str,
        changes: TransactionChanges,
        ambiguous: list[_Ambiguous],
    ) -> None:
        table = self._lookup(owner, table_name, False)
        if table is None:
            changes.quarantined.append(_quarantine(row, "table not found in the dictionary"))
            return
        try:
            try:
                records = self._records(info, row, table)
            except _UnknownColumnError:
                refreshed = self._lookup(owner, table_name, True)
                if refreshed is None:
                    raise
                records = self._records(info, row, refreshed)
        except _UnknownColumnError as error:
            changes.quarantined.append(_quarantine(row, f"unknown column {error}"))
            return
        except (_UnsupportedValueError, _NoRowIdError, _LowerLoggingError) as error:
            _not_built(changes, row, table, error)
            return
        except AmbiguousRedoError as error:
            if self._row_as_of is None or not error.readings or row.row_id in (None, NO_ROW_ID):
                reason = error.one_line()
                if self._row_as_of is None:
                    reason += "; this source cannot read the row AS OF its SCN to decide"
                changes.quarantined.append(_quarantine(row, reason))
                return
            position = len(changes.records.get((table.owner, table.name), ()))
            ambiguous.append(_Ambiguous(row, table, error, position))
            return
        except (RedoParseError, ValueTypingError) as error:
            changes.quarantined.append(_quarantine(row, error.one_line()))
            return
        for record in records:
            changes.add(record)

    def _records(
        self,
        info: TransactionInfo,
        row: LogMinerRow,
        table: TableDef,
        parsed: ParsedRedo | None = None,
    ) -> list[ChangeRecord]:
        typed = None if parsed is not None else parse_typed(row.sql_redo or "", table, self._nls)
        if typed is not None:  # the compiled one-pass path
            new, old, statement_rowid = typed
        else:
            if parsed is None:
                parsed = parse_redo(row.sql_redo or "", table)
            _check_columns(parsed, table)
            new, old = typed_row(parsed, table, self._nls)
            statement_rowid = parsed.rowid
        if _UNSUPPORTED_TEXT in (row.sql_redo or ""):  # the only text typed as UNSUPPORTED
            unsupported = [
                c for c, v in (*new.items(), *old.items()) if isinstance(v, UnsupportedValue)
            ]
            if unsupported:
                raise _UnsupportedValueError(
                    f"LogMiner wrote 'Unsupported Type' for column(s) {', '.join(unsupported)}"
                )
        row_id = row.row_id
        if row_id is None or row_id == NO_ROW_ID:
            row_id = statement_rowid if statement_rowid not in (None, NO_ROW_ID) else row_id
            if row_id == NO_ROW_ID and not keyed_by_primary_key(table):
                raise _NoRowIdError(_NO_ROW_ID_REASON)
        owner, name = table.owner, table.name
        operation = _DML_OPERATIONS[row.operation_code]
        if operation == "c":
            image = dict.fromkeys(table.column_names)  # missing columns are NULL, as in Oracle
            image.update(new)
            return [_change_record(info, row, owner, name, "c", image, True, row_id)]
        keyed = keyed_by_primary_key(table)
        if keyed and not all(k in old for k in table.primary_key):
            missing = ", ".join(k for k in table.primary_key if k not in old)
            raise _LowerLoggingError(
                f"the change carries no value of primary-key column(s) {missing}, which "
                f"keys the replica: {_LOGGED_LOWER}"
            )
        columns = table.column_name_set
        if operation == "d":
            return [_change_record(info, row, owner, name, "d", old, old.keys() >= columns, row_id)]
        image = {**old, **new}
        full = image.keys() >= columns
        update = _change_record(info, row, owner, name, "u", image, full, row_id)
        if keyed and _key_changed(table, old, new):
            if not image.keys() >= logged_columns(table):
                raise _LowerLoggingError(
                    "the change moves the row to another primary key without all its "
                    f"logged columns, from which the new key's row is built: {_LOGGED_LOWER}"
                )
            old_full = old.keys() >= columns
            return [_change_record(info, row, owner, name, "d", old, old_full, row_id), update]
        return [update]


def _is_a_name(row: LogMinerRow) -> bool:
    """True when LogMiner named the row's object (not ``UNKNOWN`` / ``OBJ# n``)."""
    return row.seg_owner != "UNKNOWN" and not (row.table_name or "").startswith("OBJ# ")


def reset_marker(info: TransactionInfo, row: LogMinerRow, owner: str, table: str) -> ChangeRecord:
    """The ``_op = 't'`` staging row of a TRUNCATE or DROP TABLE at the DDL row's position:
    no values, an empty ``_present``, no ROWID (docs/landing.md, "Table reset markers")."""
    return _change_record(info, row, owner, table, "t", {}, False, None)


def _change_record(
    info: TransactionInfo,
    row: LogMinerRow,
    owner: str,
    table: str,
    op: Operation,
    values: Mapping[str, object],
    full_image: bool,
    row_id: str | None,
) -> ChangeRecord:
    """The change row of LogMiner ``row`` of committed transaction ``info``."""
    return ChangeRecord(
        op=op,
        owner=owner,
        table=table,
        scn=row.scn,
        commit_scn=info.commit_scn,
        redo_pos=packed_redo_position(row.rs_id, row.ssn),
        rs_id=row.rs_id.strip(),
        ssn=row.ssn,
        xid=info.xid,
        row_id=row_id,
        commit_ts=info.commit_ts,
        values=values,
        full_image=full_image,
    )


def packed_redo_position(rs_id: str, ssn: int) -> int:
    """``RedoPosition.of(rs_id, ssn).packed()``, in C when the extension is built."""
    compiled = implementation.compiled
    if compiled is not None:
        packed: int | None = compiled.packed_redo_position(rs_id, ssn)
        if packed is not None:
            return packed
    return RedoPosition.of(rs_id, ssn).packed()


def _key_changed(table: TableDef, old: Mapping[str, object], new: Mapping[str, object]) -> bool:
    return any(k in new and k in old and new[k] != old[k] for k in table.primary_key)


def _check_columns(parsed: ParsedRedo, table: TableDef) -> None:
    known = table.column_name_set
    if known.issuperset(parsed.new) and known.issuperset(parsed.old):
        return
    for name in (*parsed.new, *parsed.old):
        if name not in known:
            raise _UnknownColumnError(f"{name!r} of {table.qualified_name}")


def _not_built(
    changes: TransactionChanges, row: LogMinerRow, table: TableDef, error: Exception
) -> None:
    """A change whose records could not be built, quarantined with why; one without the key
    of its table's replica (or, moving the row to another key, the whole row) is also named
    in ``changes.logged_lower``."""
    changes.quarantined.append(_quarantine(row, str(error)))
    if isinstance(error, _LowerLoggingError):
        changes.logged_lower.append((table.owner, table.name, row))


def _quarantine(row: LogMinerRow, reason: str) -> QuarantinedChange:
    return QuarantinedChange.from_logminer_row(row, reason)


@lru_cache(maxsize=64)  # LogMiner's COMMIT_TIMESTAMP has whole seconds: most commits repeat one
def commit_time(text: str | None) -> datetime | None:
    """COMMIT_TIMESTAMP text (ISO 8601; no offset means UTC) as an aware UTC datetime."""
    if not text:
        return None
    moment = datetime.fromisoformat(text)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
