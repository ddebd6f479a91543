"""Transactions of the simulated Oracle: DML, savepoints, commit and rollback.

A transaction's XID is fixed when it begins; its START row is written at its first change,
whose SCN becomes its START_SCN. Rows it changes are locked until it ends; another
transaction touching them raises :class:`SimUsageError` (Oracle would wait; the simulator
does not model lock waits). Statements see committed data plus the transaction's own changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from extractor.dictionary import TableDef
from extractor.errors import SimUsageError
from extractor.logminer_row import NO_ROW_ID, OperationCode
from extractor.sim.column_values import coerce_value, truth_value
from extractor.sim.oracle_errors import raise_oracle_error
from extractor.sim.oracle_types import LOB_KINDS, column_type
from extractor.sim.versioned_table import StoredRow, VersionedTable

RowFilter = Callable[[dict[str, object]], bool]
# a ROWID, several ROWIDs (one multi-row statement), or a predicate over truth-shaped rows
Where = RowFilter | str | list[str] | tuple[str, ...] | set[str] | frozenset[str]


@dataclass(frozen=True, slots=True)
class _Change:
    table: VersionedTable
    rowid: str
    code: OperationCode
    columns: tuple[str, ...]
    before: StoredRow | None
    after: StoredRow | None


class TransactionEngine(Protocol):
    """What a transaction needs of its database (``SimDatabase`` is the one implementation;
    declared here so that this module does not import the database module)."""

    def current_scn(self) -> int: ...
    def _next_scn(self) -> int: ...
    def _table_state(self, owner: str, name: str) -> VersionedTable: ...
    def _table_by_id(self, table_id: int) -> VersionedTable: ...
    def _allocate_rs_id(self, table: TableDef, xid: str | None = None) -> str: ...
    def _forget(self, txn: SimTransaction) -> None: ...
    def _record_start(self, txn: SimTransaction, scn: int) -> None: ...
    def _record_end(self, txn: SimTransaction, code: OperationCode, scn: int) -> None: ...

    lob_out_of_line_chars: int | None

    def _record_lob_rows(
        self,
        txn: SimTransaction,
        table: TableDef,
        rowid: str,
        texts: list[tuple[OperationCode, str]],
        scn: int,
    ) -> None: ...
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
    ) -> None: ...


class SimTransaction:
    """One database transaction; obtain it from ``SimDatabase.begin``."""

    def __init__(self, db: TransactionEngine, serial: int, xid: str, username: str) -> None:
        self._db = db
        self._serial = serial
        self.xid = xid
        self.username = username
        self.start_scn: int | None = None
        self._changes: list[_Change] = []
        self._view: dict[int, dict[str, StoredRow | None]] = {}
        self._savepoints: dict[str, int] = {}
        self._ended: str | None = None

    @property
    def is_open(self) -> bool:
        return self._ended is None

    @property
    def has_changes(self) -> bool:
        return self.start_scn is not None

    # -- DML -------------------------------------------------------------------------------

    def insert(self, owner: str, table: str, values: Mapping[str, object]) -> str:
        """Insert one row; returns its ROWID. Omitted columns are NULL, or the default an
        ``add_column`` gave them (then in the statement, as Oracle stores it)."""
        state = self._table(owner, table)
        definition = state.definition
        stored = {**state.defaults, **self._coerce(definition, values)}
        for column in definition.columns:
            if not column.nullable and stored.get(column.name) is None:
                raise_oracle_error(
                    1400, f'cannot insert NULL into ("{owner}"."{table}"."{column.name}")'
                )
        row: StoredRow = {c.name: stored.get(c.name) for c in definition.columns}
        given = tuple(c.name for c in definition.columns if c.name in stored)
        scn = self._statement_scn()
        rowid = state.allocate_rowid()
        lobs = [c for c in given if _is_lob(definition, c) and row[c] is not None]
        self._db._record_dml(
            self, OperationCode.INSERT, definition, rowid, given, None, row, scn,
            empty_lobs=bool(lobs),
        )  # fmt: skip
        limit = self._db.lob_out_of_line_chars
        out_of_line = [c for c in lobs if limit is not None and len(row[c]) > limit]  # type: ignore[arg-type]
        if out_of_line:  # a locator and writes per value, without ROWID
            texts = [t for c in out_of_line for t in _lob_writes(definition, c, row[c])]
            if len(out_of_line) == len(lobs):  # nothing in line: an INTERNAL row ends it
                texts.append((OperationCode.INTERNAL, ""))
            self._db._record_lob_rows(self, definition, rowid, texts, scn)
        for lob in lobs:  # an in-line value follows the EMPTY_xLOB() insert as an update
            if lob not in out_of_line:
                self._db._record_dml(
                    self, OperationCode.UPDATE, definition, rowid, (lob,), row, row, scn
                )
        self._remember(_Change(state, rowid, OperationCode.INSERT, given, None, row))
        return rowid

    def update(self, owner: str, table: str, where: Where, changes: Mapping[str, object]) -> int:
        """Update the rows ``where`` selects (a ROWID or a predicate over rows shaped like
        ``SimDatabase.truth`` rows); one LogMiner row per changed row. Returns the count."""
        state = self._table(owner, table)
        definition = state.definition
        stored = self._coerce(definition, changes)
        columns = tuple(c.name for c in definition.columns if c.name in stored)
        if not columns:
            raise SimUsageError(f"update of {owner}.{table} changes no column")
        targets = self._targets(state, where)
        self._update_statement(state, [(rowid, before, stored) for rowid, before in targets])
        return len(targets)

    def update_rows(
        self, owner: str, table: str, changes: Sequence[tuple[str, Mapping[str, object]]]
    ) -> int:
        """One UPDATE statement giving each row (by ROWID, in this order) its own values,
        as ``update t set id = id + 1`` or a key swap does: between its rows two rows may
        hold one key (Oracle checks the primary key at the end of the statement)."""
        state = self._table(owner, table)
        definition = state.definition
        by_rowid = dict(self._targets(state, [rowid for rowid, _ in changes]))
        rows = [
            (rowid, by_rowid[rowid], self._coerce(definition, values))
            for rowid, values in changes
            if rowid in by_rowid
        ]
        self._update_statement(state, rows)
        return len(rows)

    def _update_statement(
        self, state: VersionedTable, rows: list[tuple[str, StoredRow, StoredRow]]
    ) -> None:
        """One statement: one SCN and RS_ID, a LogMiner row (SSN 0, 1, ...) per changed row."""
        if not rows:
            return
        definition = state.definition
        scn = self._statement_scn()
        rs_id = self._db._allocate_rs_id(definition, self.xid)
        for ssn, (rowid, before, stored) in enumerate(rows):
            columns = tuple(c.name for c in definition.columns if c.name in stored)
            if not columns:
                raise SimUsageError(f"update of {definition.qualified_name} changes no column")
            after = {**before, **stored}
            self._db._record_dml(
                self, OperationCode.UPDATE, definition, rowid, columns, before, after, scn,
                rs_id=rs_id, ssn=ssn,
            )  # fmt: skip
            self._remember(_Change(state, rowid, OperationCode.UPDATE, columns, before, after))

    def delete(self, owner: str, table: str, where: Where) -> int:
        """Delete the rows ``where`` selects; one LogMiner row per row. Returns the count."""
        state = self._table(owner, table)
        definition = state.definition
        targets = self._targets(state, where)
        if not targets:
            return 0
        scn = self._statement_scn()
        rs_id = self._db._allocate_rs_id(definition, self.xid)
        for ssn, (rowid, before) in enumerate(targets):
            self._db._record_dml(
                self, OperationCode.DELETE, definition, rowid, (), before, None, scn,
                rs_id=rs_id, ssn=ssn,
            )  # fmt: skip
            self._remember(_Change(state, rowid, OperationCode.DELETE, (), before, None))
        return len(targets)

    def unsupported_change(self, owner: str, table: str) -> None:
        """A statement LogMiner cannot render: one UNSUPPORTED (code 255) row with
        SQL_REDO ``Unsupported`` and ROW_ID ``AAAAAAAAAAAAAAAAAA``. Models a change a CDC
        tool cannot reproduce; the simulator applies no data change for it, so truth() is
        unchanged (a consumer can only flag it). A rollback writes no compensating row."""
        definition = self._table(owner, table).definition
        scn = self._statement_scn()
        self._db._record_dml(
            self, OperationCode.UNSUPPORTED, definition, NO_ROW_ID, (), None, None, scn
        )

    # -- transaction control ---------------------------------------------------------------

    def savepoint(self, name: str) -> None:
        self._check_open()
        self._savepoints[name.upper()] = len(self._changes)

    def rollback_to(self, name: str) -> None:
        """ROLLBACK TO SAVEPOINT: undo later changes with ROLLBACK=1 rows; stay open."""
        self._check_open()
        mark = self._savepoints.get(name.upper())
        if mark is None:
            raise_oracle_error(
                1086, f"savepoint '{name.upper()}' never established in this session"
            )
        undone = self._changes[mark:]
        if undone:
            self._compensate(undone, self._db._next_scn())
        del self._changes[mark:]
        self._savepoints = {k: v for k, v in self._savepoints.items() if v <= mark}
        self._rebuild_view()

    def commit(self) -> int:
        """Commit; returns the commit SCN (the current SCN when nothing changed)."""
        self._check_open()
        self._ended = "committed"
        if self.start_scn is None:
            self._db._forget(self)
            return self._db.current_scn()
        scn = self._db._next_scn()
        for table_id, rows in self._view.items():
            state = self._db._table_by_id(table_id)
            for rowid, row in rows.items():
                state.commit_version(rowid, row, scn)
                state.locks.pop(rowid, None)
        self._db._record_end(self, OperationCode.COMMIT, scn)
        return scn

    def rollback(self) -> None:
        """Full rollback: ROLLBACK=1 compensating rows, then a ROLLBACK (code 36) row."""
        self._check_open()
        self._ended = "rolled back"
        if self.start_scn is None:
            self._db._forget(self)
            return
        scn = self._db._next_scn()
        self._compensate(self._changes, scn)
        self._changes.clear()
        self._rebuild_view()
        self._db._record_end(self, OperationCode.ROLLBACK, scn)

    # -- internals -------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._ended is not None:
            raise SimUsageError(f"transaction {self.xid} is already {self._ended}")

    def _table(self, owner: str, table: str) -> VersionedTable:
        self._check_open()
        return self._db._table_state(owner, table)

    def _statement_scn(self) -> int:
        scn = self._db._next_scn()
        if self.start_scn is None:
            self.start_scn = scn
            self._db._record_start(self, scn)
        return scn

    def _coerce(self, definition: TableDef, values: Mapping[str, object]) -> StoredRow:
        stored: StoredRow = {}
        for name, value in values.items():
            if not definition.has_column(name):
                raise_oracle_error(904, f'"{name}": invalid identifier')
            stored[name] = coerce_value(definition.column(name), value)
        return stored

    def _targets(self, state: VersionedTable, where: Where) -> list[tuple[str, StoredRow]]:
        own = self._view.get(state.object_id, {})
        if isinstance(where, str | list | tuple | set | frozenset):
            rowids = [where] if isinstance(where, str) else list(where)
            candidates = []
            for rowid in rowids:
                row = own[rowid] if rowid in own else state.latest.get(rowid)
                if row is not None:
                    candidates.append((rowid, row))
        else:
            definition = state.definition
            visible = [(r, v) for r, v in state.latest.items() if r not in own]
            visible += [(r, v) for r, v in own.items() if v is not None]
            candidates = [(r, v) for r, v in visible if where(_as_truth(definition, r, v))]
        for rowid, _ in candidates:
            holder = state.locks.get(rowid)
            if holder is not None and holder != self._serial:
                raise SimUsageError(
                    f"row {rowid} of {state.definition.qualified_name} is locked by another "
                    "open transaction (the simulator does not model lock waits)",
                    fix="commit or roll back the other transaction first",
                )
        return candidates

    def _remember(self, change: _Change) -> None:
        self._changes.append(change)
        self._view.setdefault(change.table.object_id, {})[change.rowid] = change.after
        change.table.locks[change.rowid] = self._serial

    def _rebuild_view(self) -> None:
        for table_id, rows in self._view.items():
            state = self._db._table_by_id(table_id)
            for rowid in rows:
                state.locks.pop(rowid, None)
        self._view = {}
        for change in self._changes:
            self._view.setdefault(change.table.object_id, {})[change.rowid] = change.after
            change.table.locks[change.rowid] = self._serial

    def _compensate(self, changes: list[_Change], scn: int) -> None:
        for change in reversed(changes):
            definition = change.table.definition
            columns: tuple[str, ...]
            if change.code is OperationCode.INSERT:
                code, columns = OperationCode.DELETE, ()
            elif change.code is OperationCode.DELETE:
                code, columns = OperationCode.INSERT, definition.column_names
            else:
                code, columns = OperationCode.UPDATE, change.columns
            self._db._record_dml(
                self, code, definition, change.rowid, columns, change.after, change.before,
                scn, rollback=1,
            )  # fmt: skip


def _is_lob(definition: TableDef, name: str) -> bool:
    return column_type(definition.column(name)).kind in LOB_KINDS


def _as_truth(definition: TableDef, rowid: str, row: StoredRow) -> dict[str, object]:
    values: dict[str, object] = {
        c.name: truth_value(c, row.get(c.name)) for c in definition.columns
    }
    values["ROWID"] = rowid
    return values


_LOB_WRITE_CHARS = 1000  # characters (bytes of a BLOB) per LOB_WRITE row


def _lob_writes(
    definition: TableDef, column: str, value: object
) -> list[tuple[OperationCode, str]]:
    """The SEL_LOB_LOCATOR row and the LOB_WRITE rows that write ``value`` out of line."""
    kind = "BLOB" if isinstance(value, bytes) else "CLOB"
    table = f'"{definition.owner}"."{definition.name}"'
    rows = [(OperationCode.SELECT_LOB_LOCATOR,
             f'DECLARE \n loc_c {kind}; \n buf_c VARCHAR2(6156);\n BEGIN\n'
             f' select "{column}" into loc_c from {table} for update;')]  # fmt: skip
    text = value.hex() if isinstance(value, bytes) else str(value)
    for offset in range(0, len(text), _LOB_WRITE_CHARS):
        piece = text[offset : offset + _LOB_WRITE_CHARS]
        literal = f"HEXTORAW('{piece}')" if kind == "BLOB" else "'" + piece.replace("'", "''") + "'"
        rows.append((OperationCode.LOB_WRITE,
                     f"buf_c := {literal};\n  dbms_lob.write(loc_c, {len(piece)}, "
                     f"{offset + 1}, buf_c);"))  # fmt: skip
    return rows
