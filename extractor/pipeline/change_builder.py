"""Committed LogMiner rows -> typed change records per table (plus quarantined rows and DDL).

For each DML row of a committed transaction: parse SQL_REDO, type the literals for the table's
columns, and build the change row the staging contract expects:

- INSERT: a full image (columns missing from the statement are NULL, as in Oracle);
- UPDATE: the WHERE values overlaid with the SET values; a full image when that covers every
  column, else a partial image whose ``_present`` lists the carried columns;
- DELETE: what the WHERE clause carried (at least the key);
- for tables keyed by primary key (``keys.keyed_by_primary_key``) an UPDATE that changes the
  key becomes a delete of the old key and an upsert of the new key.

Rows that cannot be used (UNSUPPORTED operations, unparseable SQL_REDO, untypable values,
LOB locator operations) become ``QuarantinedChange``s; the caller applies the error policy.
DDL rows of selected tables are passed on as they are (the pipeline refreshes the dictionary).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from extractor.change_record import ChangeRecord, Operation
from extractor.dictionary import TableDef
from extractor.keys import keyed_by_primary_key
from extractor.land.audit_records import QuarantinedChange
from extractor.logminer_row import LogMinerRow, OperationCode, redo_position
from extractor.nls import NlsSettings
from extractor.parse import (
    ParsedRedo,
    RedoParseError,
    UnsupportedValue,
    ValueTypingError,
    parse_redo,
    typed_row,
)
from extractor.staging_contract import redo_position_number

_DML_OPERATIONS: dict[int, Operation] = {
    OperationCode.INSERT: "c",
    OperationCode.UPDATE: "u",
    OperationCode.DELETE: "d",
}
_LOB_OPERATIONS = frozenset({9, 10, 11, 28, 29})


@dataclass
class TransactionChanges:
    """What one committed transaction contributes to each staging table."""

    records: dict[tuple[str, str], list[ChangeRecord]] = field(default_factory=dict)
    quarantined: list[QuarantinedChange] = field(default_factory=list)
    ddl_rows: list[LogMinerRow] = field(default_factory=list)

    def add(self, record: ChangeRecord) -> None:
        self.records.setdefault((record.owner, record.table), []).append(record)


class _UnsupportedValueError(Exception):
    """A value LogMiner could not render (quarantined with its statement)."""


class UnknownColumnError(Exception):
    """A statement names a column the cached dictionary does not know (refresh and retry)."""


# Looks a table up in the cached dictionary; ``refresh=True`` forces a re-read from the source.
TableLookup = Callable[[str, str, bool], TableDef | None]


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
    ) -> None:
        self._lookup = lookup
        self._is_selected = is_selected
        self._nls = nls

    def build(self, info: TransactionInfo, rows: Iterable[LogMinerRow]) -> TransactionChanges:
        changes = TransactionChanges()
        for row in rows:
            owner, table = row.seg_owner, row.table_name
            if owner is None or table is None or not self._is_selected(owner, table):
                continue
            code = row.operation_code
            if code in _DML_OPERATIONS:
                self._dml(info, row, owner, table, changes)
            elif code == OperationCode.DDL:
                changes.ddl_rows.append(row)
            elif code == OperationCode.UNSUPPORTED:
                changes.quarantined.append(_quarantine(row, "UNSUPPORTED operation (code 255)"))
            elif code in _LOB_OPERATIONS:
                changes.quarantined.append(
                    _quarantine(row, f"LOB operation {row.operation} is not supported")
                )
        return changes

    def _dml(
        self,
        info: TransactionInfo,
        row: LogMinerRow,
        owner: str,
        table_name: str,
        changes: TransactionChanges,
    ) -> None:
        table = self._lookup(owner, table_name, False)
        if table is None:
            changes.quarantined.append(_quarantine(row, "table not found in the dictionary"))
            return
        try:
            try:
                records = self._records(info, row, table)
            except UnknownColumnError:
                refreshed = self._lookup(owner, table_name, True)
                if refreshed is None:
                    raise
                records = self._records(info, row, refreshed)
        except UnknownColumnError as error:
            changes.quarantined.append(_quarantine(row, f"unknown column {error}"))
            return
        except _UnsupportedValueError as error:
            changes.quarantined.append(_quarantine(row, str(error)))
            return
        except (RedoParseError, ValueTypingError) as error:
            changes.quarantined.append(_quarantine(row, error.one_line()))
            return
        for record in records:
            changes.add(record)

    def _records(
        self, info: TransactionInfo, row: LogMinerRow, table: TableDef
    ) -> list[ChangeRecord]:
        parsed = parse_redo(row.sql_redo or "", table)
        _check_columns(parsed, table)
        new, old = typed_row(parsed, table, self._nls)
        unsupported = [
            c for c, v in (*new.items(), *old.items()) if isinstance(v, UnsupportedValue)
        ]
        if unsupported:
            raise _UnsupportedValueError(
                f"LogMiner wrote 'Unsupported Type' for column(s) {', '.join(unsupported)}"
            )

        def record(op: Operation, values: Mapping[str, object], full: bool) -> ChangeRecord:
            return ChangeRecord(
                op=op,
                owner=table.owner,
                table=table.name,
                scn=row.scn,
                commit_scn=info.commit_scn,
                redo_pos=redo_position_number(*redo_position(row.rs_id, row.ssn)),
                rs_id=row.rs_id.strip(),
                ssn=row.ssn,
                xid=info.xid,
                row_id=row.row_id or parsed.rowid,
                commit_ts=info.commit_ts,
                values=values,
                full_image=full,
            )

        all_columns = table.column_names
        operation = _DML_OPERATIONS[row.operation_code]
        if operation == "c":
            return [record("c", {c: new.get(c) for c in all_columns}, True)]
        if operation == "d":
            return [record("d", old, _covers(old, all_columns))]
        image = {**old, **new}
        full = _covers(image, all_columns)
        if keyed_by_primary_key(table) and _key_changed(table, old, new):
            return [record("d", old, _covers(old, all_columns)), record("u", image, full)]
        return [record("u", image, full)]


def _covers(values: Mapping[str, object], columns: tuple[str, ...]) -> bool:
    return len(values) >= len(columns) and all(c in values for c in columns)


def _key_changed(table: TableDef, old: Mapping[str, object], new: Mapping[str, object]) -> bool:
    return any(k in new and k in old and new[k] != old[k] for k in table.primary_key)


def _check_columns(parsed: ParsedRedo, table: TableDef) -> None:
    known = table.column_name_set
    if known.issuperset(parsed.new) and known.issuperset(parsed.old):
        return
    for name in (*parsed.new, *parsed.old):
        if name not in known:
            raise UnknownColumnError(f"{name!r} of {table.qualified_name}")


def _quarantine(row: LogMinerRow, reason: str) -> QuarantinedChange:
    return QuarantinedChange.from_logminer_row(row, reason)


def commit_time(text: str | None) -> datetime | None:
    """COMMIT_TIMESTAMP text (ISO 8601; no offset means UTC) as an aware UTC datetime."""
    if not text:
        return None
    moment = datetime.fromisoformat(text)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
