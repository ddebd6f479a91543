"""The simulated Oracle database: dictionary, SCN clock, versioned tables, redo stream.

The extractor sees it through V$DATABASE (:meth:`SimDatabase.current_scn`), the dictionary
(:meth:`tables`), V$TRANSACTION (:meth:`open_transactions`), flashback reads
(:meth:`snapshot_rows`), the log catalog (:meth:`log_files`) and V$LOGMNR_CONTENTS
(:meth:`logminer_contents`). Tests compare what it extracted with :meth:`truth`.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from extractor.dictionary import ColumnDef, TableDef
from extractor.logminer_row import LogMinerRow, OperationCode
from extractor.nls import NlsSettings
from extractor.sim.column_values import truth_value
from extractor.sim.ddl_text import add_column_sql, create_table_sql, drop_column_sql
from extractor.sim.errors import SimUsageError, raise_oracle_error
from extractor.sim.logminer_rows import RedoEvent, render_rows
from extractor.sim.oracle_types import column_type
from extractor.sim.redo_logs import RedoLogCatalog, RedoLogFile
from extractor.sim.transactions import SimTransaction
from extractor.sim.versioned_table import StoredRow, VersionedTable

__all__ = ["RedoLogFile", "SimDatabase", "SimTransaction"]

DEFAULT_EPOCH = datetime(2024, 1, 1)
FIRST_OBJECT_ID = 74_000
DDL_USERNAME = "SYSTEM"


class SimDatabase:
    """An in-process Oracle database as the extractor sees it (see ``docs/simulator.md``)."""

    def __init__(
        self,
        *,
        nls: NlsSettings = NlsSettings(),  # noqa: B008 - frozen, shared default is safe
        first_scn: int = 1_000_000,
        database_name: str = "ORCLPDB1",
        log_switch_every: int = 2_000,
        undo_retention_scns: int | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.nls = nls
        self.database_name = database_name
        self.log_switch_every = log_switch_every
        self.undo_retention_scns = undo_retention_scns
        self._first_scn = first_scn
        self._scn = first_scn
        self._clock = clock or self._scn_clock
        self._tables: dict[tuple[str, str], VersionedTable] = {}
        self._tables_by_id: dict[int, VersionedTable] = {}
        self._next_object_id = FIRST_OBJECT_ID
        self._transactions: dict[int, SimTransaction] = {}
        self._serial = 0
        self._events: list[RedoEvent] = []
        self._event_scns: list[int] = []
        self._rendered: dict[int, list[LogMinerRow]] = {}
        self._rendered_nls = nls
        self._logs = RedoLogCatalog(first_scn, database_name=database_name)

    # -- V$DATABASE and the dictionary -----------------------------------------------------

    def current_scn(self) -> int:
        return self._scn

    def create_table(self, table: TableDef) -> None:
        key = (table.owner, table.name)
        if key in self._tables:
            raise_oracle_error(955, "name is already used by an existing object")
        for column in table.columns:
            column_type(column)  # fail early on a type the simulator lacks
        scn = self._next_scn()
        state = VersionedTable(table, object_id=self._next_object_id, created_scn=scn)
        self._next_object_id += 2
        self._tables[key] = state
        self._tables_by_id[id(state)] = state
        self._record_ddl(table, create_table_sql(table), scn)

    def add_column(self, owner: str, table: str, column: ColumnDef) -> None:
        """ALTER TABLE ADD: existing rows get NULL; a DDL (code 5) row."""
        state = self._table_state(owner, table)
        current = state.definition
        if current.has_column(column.name) or column.name in state.dropped_columns:
            raise SimUsageError(f"{current.qualified_name}: column {column.name} exists or existed")
        column_type(column)
        column_id = max((c.column_id for c in current.columns), default=0) + 1
        added = ColumnDef(
            column.name, column_id, column.data_type, column.data_length, column.data_precision,
            column.data_scale, column.nullable,
        )  # fmt: skip
        new = TableDef(
            owner, table, (*current.columns, added), current.primary_key,
            current.supplemental_logging,
        )  # fmt: skip
        scn = self._next_scn()
        state.redefine(new, scn)
        self._record_ddl(new, add_column_sql(new, added), scn)

    def drop_column(self, owner: str, table: str, column: str) -> None:
        state = self._table_state(owner, table)
        current = state.definition
        if not current.has_column(column):
            raise_oracle_error(904, f'"{column}": invalid identifier')
        if column in current.primary_key:
            raise_oracle_error(12992, "cannot drop parent key column")
        new = TableDef(
            owner, table, tuple(c for c in current.columns if c.name != column),
            current.primary_key, current.supplemental_logging,
        )  # fmt: skip
        scn = self._next_scn()
        state.redefine(new, scn)
        state.dropped_columns.add(column)
        self._record_ddl(new, drop_column_sql(new, column), scn)

    def tables(self) -> list[TableDef]:
        return [state.definition for state in self._tables.values()]

    def table(self, owner: str, name: str) -> TableDef:
        return self._table_state(owner, name).definition

    def object_id(self, owner: str, name: str) -> int:
        return self._table_state(owner, name).object_id

    # -- transactions ----------------------------------------------------------------------

    def begin(self, username: str = "APP") -> SimTransaction:
        self._serial += 1
        serial = self._serial
        txn = SimTransaction(self, serial, _xid(serial), username)
        self._transactions[serial] = txn
        return txn

    def open_transactions(self) -> list[tuple[str, int]]:
        """V$TRANSACTION: (XID hex, START_SCN) of transactions that have changed data."""
        return [
            (t.xid, t.start_scn)
            for t in self._transactions.values()
            if t.is_open and t.start_scn is not None
        ]

    # -- reads -----------------------------------------------------------------------------

    def snapshot_rows(self, owner: str, table: str, scn: int) -> list[dict[str, object]]:
        """``SELECT t.*, ROWIDTOCHAR(t.ROWID) FROM t AS OF SCN :scn`` as Python values."""
        if scn > self._scn:
            raise_oracle_error(8181, "specified number is not a valid system change number")
        if self.undo_retention_scns is not None and scn < self._scn - self.undo_retention_scns:
            raise_oracle_error(
                1555,
                f'snapshot too old: rollback segment number 7 with name "_SYSSMU7$" too '
                f"small (AS OF SCN {scn}, oldest in undo {self._scn - self.undo_retention_scns})",
            )
        state = self._table_state(owner, table)
        if state.definition_at(scn) is None:
            raise_oracle_error(1466, "unable to read data - table definition has changed")
        return self.truth(owner, table, scn)

    def truth(self, owner: str, table: str, scn: int) -> list[dict[str, object]]:
        """The committed contents at ``scn`` (no undo limit), in ROWID allocation order."""
        state = self._table_state(owner, table)
        definition = state.definition_at(scn)
        if definition is None:
            return []
        rows = []
        for rowid, row in state.rows_at(scn):
            values: dict[str, object] = {
                c.name: truth_value(c, row.get(c.name)) for c in definition.columns
            }
            values["ROWID"] = rowid
            rows.append(values)
        return rows

    # -- redo ------------------------------------------------------------------------------

    def logminer_contents(
        self, start_scn: int, end_scn: int, *, log_names: list[str] | None = None
    ) -> list[LogMinerRow]:
        """V$LOGMNR_CONTENTS rows with ``start_scn <= SCN <= end_scn`` in SCN then redo
        order, rendered under ``self.nls``. ORA-01291 when a needed log is purged, or (with
        ``log_names``, the files given to ADD_LOGFILE) when the given logs miss part of it."""
        self._logs.check_minable(start_scn, end_scn)
        if log_names is not None:
            self._check_added_logs(start_scn, min(end_scn, self._scn), log_names)
        if self._rendered_nls != self.nls:
            self._rendered = {}
            self._rendered_nls = self.nls
        low = bisect_left(self._event_scns, start_scn)
        high = bisect_right(self._event_scns, end_scn)
        rows: list[LogMinerRow] = []
        for index in range(low, high):
            rendered = self._rendered.get(index)
            if rendered is None:
                rendered = render_rows(self._events[index], self.nls)
                self._rendered[index] = rendered
            rows.extend(rendered)
        return rows

    def log_files(self) -> list[RedoLogFile]:
        return self._logs.files()

    def switch_log(self) -> None:
        """ALTER SYSTEM SWITCH LOGFILE: the current log is archived; takes one SCN."""
        self._scn += 1
        self._logs.switch(self._scn)

    def purge_archived_logs(self, below_sequence: int) -> None:
        """Delete archived copies of sequences below ``below_sequence`` (RMAN DELETE)."""
        self._logs.purge_archived(below_sequence)

    # -- engine internals used by SimTransaction -------------------------------------------

    def _table_state(self, owner: str, name: str) -> VersionedTable:
        state = self._tables.get((owner, name))
        if state is None:
            raise_oracle_error(942, f"table or view does not exist ({owner}.{name})")
        return state

    def _table_by_id(self, table_id: int) -> VersionedTable:
        return self._tables_by_id[table_id]

    def _next_scn(self) -> int:
        self._scn += 1
        return self._scn

    def _scn_clock(self) -> datetime:
        return DEFAULT_EPOCH + timedelta(milliseconds=10 * (self._scn - self._first_scn))

    def _forget(self, txn: SimTransaction) -> None:
        self._transactions.pop(txn._serial, None)

    def _allocate_rs_id(self, table: TableDef) -> str:
        return self._logs.next_rs_id(64 + 24 * len(table.columns))

    def _append(self, event: RedoEvent) -> None:
        self._events.append(event)
        self._event_scns.append(event.scn)
        if self._logs.records_in_current >= self.log_switch_every:
            self.switch_log()

    def _record_start(self, txn: SimTransaction, scn: int) -> None:
        self._append(self._control_event(txn.xid, OperationCode.START, scn, txn.username))

    def _record_end(self, txn: SimTransaction, code: OperationCode, scn: int) -> None:
        event = self._control_event(txn.xid, code, scn, txn.username)
        if code is OperationCode.COMMIT:
            event = _replace(
                event, start_scn=txn.start_scn, commit_scn=scn, commit_timestamp=event.timestamp
            )
        self._append(event)
        self._forget(txn)

    def _record_dml(
        self,
        txn: SimTransaction,
        code: OperationCode,
        table: TableDef,
        rowid: str,
        columns: tuple[str, ...],
        before: StoredRow | None,
        after: StoredRow | None,
        scn: int,
        *,
        rs_id: str | None = None,
        ssn: int = 0,
        rollback: int = 0,
        empty_lobs: bool = False,
    ) -> None:
        self._append(
            RedoEvent(
                scn=scn,
                xid=txn.xid,
                code=code,
                rs_id=rs_id if rs_id is not None else self._allocate_rs_id(table),
                ssn=ssn,
                timestamp=self._clock(),
                username=txn.username,
                table=table,
                row_id=rowid,
                columns=columns,
                before=before,
                after=after,
                empty_lobs=empty_lobs,
                rollback=rollback,
            )
        )

    def _record_ddl(self, table: TableDef, text: str, scn: int) -> None:
        self._serial += 1
        xid = _xid(self._serial)
        start = self._control_event(xid, OperationCode.START, scn, DDL_USERNAME)
        ddl = RedoEvent(
            scn=scn, xid=xid, code=OperationCode.DDL, rs_id=self._logs.next_rs_id(256), ssn=0,
            timestamp=self._clock(), username=DDL_USERNAME, table=table, text=text,
        )  # fmt: skip
        commit = self._control_event(xid, OperationCode.COMMIT, scn, DDL_USERNAME)
        commit = _replace(commit, start_scn=scn, commit_scn=scn, commit_timestamp=commit.timestamp)
        for event in (start, ddl, commit):
            self._append(event)

    def _control_event(self, xid: str, code: OperationCode, scn: int, username: str) -> RedoEvent:
        return RedoEvent(
            scn=scn, xid=xid, code=code, rs_id=self._logs.next_rs_id(48), ssn=0,
            timestamp=self._clock(), username=username,
        )  # fmt: skip

    def _check_added_logs(self, start_scn: int, end_scn: int, names: list[str]) -> None:
        by_name = {f.name: f for f in self._logs.files()}
        covered = sorted(
            (f.first_change, f.next_change if f.next_change is not None else self._scn + 1)
            for name in names
            if (f := by_name.get(name)) is not None and f.available
        )
        position = start_scn
        for first, after in covered:
            if first > position:
                break
            position = max(position, after)
        if position <= end_scn:
            raise_oracle_error(1291, f"missing log file (no added log covers SCN {position})")


def _xid(serial: int) -> str:
    """RAW(8) XID hex: undo segment (2 bytes), slot (2 bytes), sequence (4 bytes), each
    little-endian as Oracle stores them on x86."""
    usn = serial % 10 + 1
    slot = serial % 32
    sequence = 0x100 + serial
    raw = usn.to_bytes(2, "little") + slot.to_bytes(2, "little") + sequence.to_bytes(4, "little")
    return raw.hex().upper()


def _replace(event: RedoEvent, **changes: Any) -> RedoEvent:
    from dataclasses import replace

    return replace(event, **changes)
