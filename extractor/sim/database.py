"""The simulated Oracle database: dictionary, SCN clock, versioned tables, redo stream.

The extractor sees it through V$DATABASE (:meth:`SimDatabase.current_scn`), the dictionary
(:meth:`tables`), V$TRANSACTION (:meth:`open_transactions`), flashback reads
(:meth:`snapshot_rows`), the log catalog (:meth:`log_files`) and V$LOGMNR_CONTENTS
(:meth:`logminer_contents`). Tests compare what it extracted with :meth:`truth`.
"""

from __future__ import annotations

import base64
import hashlib
import zlib
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import msgspec

from extractor.dictionary import ROW_ARCHIVAL_COLUMN, ColumnDef, SupplementalLogging, TableDef
from extractor.errors import SimUsageError
from extractor.logminer_row import NO_ROW_ID, LogMinerRow, OperationCode
from extractor.nls import NlsSettings
from extractor.sim.column_values import coerce_value, truth_value
from extractor.sim.ddl_text import (
    RowMovingDdl,
    add_column_sql,
    add_partition_sql,
    add_virtual_column_sql,
    column_visibility_sql,
    create_table_sql,
    drop_column_sql,
    drop_table_sql,
    rename_table_sql,
    row_archival_sql,
    row_moving_sql,
    supplemental_logging_sql,
    truncate_table_sql,
)
from extractor.sim.logminer_rows import (
    UNSUPPORTED_INFO,
    RedoEvent,
    renamed_rows,
    render_rows,
    unnamed_rows,
)
from extractor.sim.oracle_errors import raise_oracle_error
from extractor.sim.oracle_types import column_type
from extractor.sim.redo_logs import RedoLogCatalog, RedoLogFile
from extractor.sim.redo_render import literal
from extractor.sim.server_settings import SimServerSettings
from extractor.sim.transactions import SimTransaction
from extractor.sim.versioned_table import (
    StoredRow,
    VersionedTable,
    VirtualExpression,
    segment_rowids,
)

__all__ = ["RedoLogFile", "SimDatabase", "SimTransaction"]

DEFAULT_EPOCH = datetime(2024, 1, 1)
FIRST_OBJECT_ID = 74_000
DDL_USERNAME = "SYSTEM"
ACTIVE_ROW = "0"  # ORA_ARCHIVE_STATE of a row not archived (ROW ARCHIVAL)


class SimDatabase:
    """An in-process Oracle database as the extractor sees it (see ``docs/simulator.md``)."""

    # LOB values longer than this many characters are written out of line: SEL_LOB_LOCATOR
    # and LOB_WRITE rows without a ROWID, then an INTERNAL row with it, instead of the UPDATE
    # writing the value (None: every value in line). A class default, so that a database
    # saved before the setting existed reads as None.
    lob_out_of_line_chars: int | None = None
    # V$DATABASE.DBID, RESETLOGS_CHANGE# and the incarnation's RESETLOGS_ID (``open_resetlogs``
    # starts a new one; its RESETLOGS_TIME follows from the id); the archived logs of earlier
    # incarnations stay listed in ``_parent_logs``. Class defaults, for a database saved
    # before they existed.
    # Database-wide supplemental logging above the minimal (ALTER DATABASE ADD SUPPLEMENTAL
    # LOG DATA (ALL | PRIMARY KEY) COLUMNS): V$DATABASE shows it, and every table's redo
    # images follow the higher of it and the table's own level. A class default.
    database_logging: SupplementalLogging = "MINIMAL"
    dbid: int = 3_148_472_117
    resetlogs_change: int = 1
    resetlogs_id: int = 1
    _parent_logs: tuple[RedoLogFile, ...] = ()
    # The PDB on a multitenant server: its DBID (CON_DBID) and its incarnation
    # (V$PDB_INCARNATION's CURRENT row: PDB_INCARNATION#, INCARNATION_SCN,
    # BEGIN_RESETLOGS_SCN); ``flashback_pdb`` starts a new one. Class defaults.
    pdb_dbid: int = 2_981_366_405
    pdb_incarnation: int = 0
    pdb_incarnation_scn: int = 1
    pdb_opened_scn: int = 1

    def __init__(
        self,
        *,
        nls: NlsSettings = NlsSettings(),  # noqa: B008 - frozen, shared default is safe
        first_scn: int = 1_000_000,
        database_name: str = "ORCLPDB1",
        log_switch_every: int = 2_000,
        undo_retention_scns: int | None = None,
        flashback_ddl_lag_scns: int = 0,
        clock: Callable[[], datetime] | None = None,
        unnamed_object_ratio: float = 0.0,
        partial_xid_rate: float = 0.0,
        partial_xid_seed: int = 0,
        pre_session_unsupported_rate: float = 0.0,
        server_time_zone: str = "+00:00",
        redo_write_lag_scns: int = 0,
        threads: int = 1,
        archive_destinations: int = 1,
        online_log_members: int = 1,
    ) -> None:
        self.nls = nls
        self.database_name = database_name
        self.log_switch_every = log_switch_every
        self.undo_retention_scns = undo_retention_scns
        # An AS OF read of a table at an SCN less than this many SCNs after a DDL of the
        # table fails with ORA-01466, as Oracle refuses a flashback query whose SCN is not
        # older than the table's last definition change by its SCN-to-time granularity (0:
        # only a read before the table existed fails).
        self.flashback_ddl_lag_scns = flashback_ddl_lag_scns
        # Called after each snapshot query has read its rows (AS OF its SCN): a test or the
        # harness lets the database go on meanwhile (transactions, DDL), as a live one does.
        self.between_snapshot_reads: Callable[[], None] | None = None
        self._ddl_scns: dict[tuple[str, str], list[int]] = {}
        # Share of DML rows LogMiner shows as UNKNOWN / "OBJ# n" (a dictionary mismatch); any
        # value > 0 also fills DATA_OBJ# on every row of a table.
        self.unnamed_object_ratio = unnamed_object_ratio
        # Share of transactions whose undo, ROLLBACK and COMMIT rows show XID sequence
        # FFFFFFFF in a LogMiner session that starts after the transaction did (picked per
        # XID from a hash with the seed: re-mining a window gives the same rows).
        self.partial_xid_rate = partial_xid_rate
        self.partial_xid_seed = partial_xid_seed
        # Members per online redo log group (2: multiplexed, a member in each of two
        # directories) and V$LOGFILE.STATUS of the members that are not in use (INVALID:
        # inaccessible, STALE: incomplete, DELETED: no longer used), by member path
        # (``set_log_member_status``). ADD_LOGFILE cannot open an INVALID or DELETED member.
        self.online_log_members = online_log_members
        self.log_member_status: dict[str, str] = {}
        # Share of the DML rows of transactions begun before the LogMiner session that it
        # shows as UNSUPPORTED (code 255, no ROWID), undo rows too: LogMiner cannot always
        # rebuild a change whose transaction's earlier redo is outside the session (Debezium
        # DBZ-8747; docs/transactions.md). Picked per row from a hash with partial_xid_seed.
        self.pre_session_unsupported_rate = pre_session_unsupported_rate
        # The server's OS time zone (what SYSDATE / SYSTIMESTAMP use), ±HH:MM: the DATE
        # columns TIMESTAMP and COMMIT_TIMESTAMP of V$LOGMNR_CONTENTS are in it (the DB-API
        # face shifts them; rows and the clock here are UTC).
        self.server_time_zone = server_time_zone
        # Redo not yet written by LGWR: rows above current SCN - this lag are not visible to
        # LogMiner until a log switch (0: every committed change is minable at once).
        self.redo_write_lag_scns = redo_write_lag_scns
        # RAC: rows of one SCN from several threads come in thread order, or (True) in the
        # reverse order in a session that starts at an odd SCN: nothing documents that
        # LogMiner merges threads the same way in every session.
        self.thread_order_varies = False
        # False: LogMiner sessions run with NO_ROWID_IN_STMT (as Debezium's do): SQL_REDO has
        # no ROWID predicate, and no WHERE at all for a table whose columns are all LOBs.
        self.rowid_in_statements = True
        # The share of DML rows whose SQL_REDO has its apostrophes not doubled ('O'Brien'),
        # as LogMiner sometimes writes them (picked by the row's place in the redo, so that
        # every session renders a row alike).
        self.undoubled_quote_ratio = 0.0
        self._redo_flushed_scn = first_scn
        self._start_scn_by_xid: dict[str, int] = {}
        self._marker_xids: set[str] = set()  # replication-marker transactions (never end)
        self._first_scn = first_scn
        self._scn = first_scn
        self._held_scn: int | None = None  # commit_at_one_scn: every step takes this SCN
        self._clock = clock or self._scn_clock
        self._tables: dict[tuple[str, str], VersionedTable] = {}
        self._tables_by_id: dict[int, VersionedTable] = {}
        self._next_object_id = FIRST_OBJECT_ID
        # Every table's name now, by OBJECT_ID: a dropped one's in the recycle bin (BIN$…),
        # None once purged. LogMiner's online catalog names rows by it when they are mined.
        self._object_names: dict[int, str | None] = {}
        # A partition's OBJECT_ID -> its table's (it exists while the table does).
        self._partition_tables: dict[int, int] = {}
        # Which table held a name from which SCN on (None: no table), for truth() at an SCN
        # before a drop, a rename or a new table under the name.
        self._name_holders: dict[tuple[str, str], list[tuple[int, int | None]]] = {}
        self._transactions: dict[int, SimTransaction] = {}
        self._serial = 0
        self._events: list[RedoEvent] = []
        self._event_scns: list[int] = []
        self._rendered: dict[int, list[LogMinerRow]] = {}
        # What _rendered was rendered under: NLS, ROWID predicates, undoubled quote share.
        self._rendered_with: tuple[NlsSettings, bool, float] = (nls, True, 0.0)
        # RAC: ``threads`` instances, each writing its own redo thread (own log sequences and
        # RS_IDs); each transaction runs on one instance (round robin over the open ones).
        # The extractor's session is on ``local_instance``: V$TRANSACTION lists only its
        # transactions, GV$TRANSACTION those of every instance.
        self._threads = {
            thread: _RedoThread(
                RedoLogCatalog(
                    first_scn, database_name=database_name, thread=thread,
                    archive_destinations=archive_destinations,
                    online_members=online_log_members,
                ),
                enable_change=first_scn,
            )
            for thread in range(1, threads + 1)
        }  # fmt: skip
        self._logs = self._threads[1].logs
        # V$ARCHIVE_DEST_STATUS: the DEST_IDs of the local, VALID archive destinations, in the
        # order the view returns them; every switched log has a copy on each.
        self.archive_destinations = tuple(range(1, archive_destinations + 1))
        self.local_instance = 1
        self._thread_by_xid: dict[str, int] = {}
        self._event_threads: list[int] = []
        self.server = SimServerSettings()  # what the pre-flight checks read
        # ALL_TABLES kind of a table that is not a plain heap table: "GLOBAL TEMPORARY",
        # "IOT", "IOT_OVERFLOW", "IOT_MAPPING", "NESTED" or "SECONDARY" (set by tests).
        self.table_kinds: dict[tuple[str, str], str] = {}

    # -- V$DATABASE and the dictionary -----------------------------------------------------

    def current_scn(self) -> int:
        return self._scn

    def create_table(self, table: TableDef, *, partitions: int = 0) -> None:
        """CREATE TABLE; with ``partitions`` > 0 a partitioned table (automatic list
        partitioning: ``P1``, ``P2``, …, each an object with an OBJECT_ID and a segment of its
        own, taking new rows in turn)."""
        key = (table.owner, table.name)
        if key in self._tables:
            raise_oracle_error(955, "name is already used by an existing object")
        for column in table.columns:
            column_type(column)  # fail early on a type the simulator lacks
        scn = self._next_scn()
        state = VersionedTable(table, object_id=self._new_object_id(), created_scn=scn)
        for number in range(1, partitions + 1):
            object_id = self._new_object_id()
            state.add_partition(f"P{number}", object_id, object_id)
            self._partition_tables[object_id] = state.object_id
        self._tables[key] = state
        self._tables_by_id[state.object_id] = state
        self._object_names[state.object_id] = table.name
        self._name_holders.setdefault(key, []).append((scn, state.object_id))
        names = tuple(p.name for p in state.partitions)
        self._record_ddl(table, create_table_sql(table, names), scn)

    def add_partition(self, owner: str, table: str, *, automatic: bool = False) -> int:
        """A new partition of a partitioned table (a new OBJECT_ID, for a new list value),
        which takes its share of new rows from now on; no existing row moves. ``ALTER TABLE …
        ADD PARTITION`` writes one DDL (code 5) row; ``automatic`` is a partition Oracle
        creates itself on the first insert of a new value (automatic list partitioning; an
        interval partition of a range partitioned table likewise), with no DDL row of the
        table. ORA-00054 for the DDL while
        an open transaction holds a row of the table. Returns the partition's OBJECT_ID."""
        state = self._table_state(owner, table)
        if not state.partitions:
            raise SimUsageError(f"{owner}.{table} is not partitioned")
        if not automatic and state.locks:
            raise_oracle_error(
                54, "resource busy and acquire with NOWAIT specified or timeout expired"
            )
        object_id = self._new_object_id()
        partition = state.add_partition(f"P{len(state.partitions) + 1}", object_id, object_id)
        self._partition_tables[object_id] = state.object_id
        if not automatic:
            sql = add_partition_sql(state.definition, partition.name, len(state.partitions))
            self._record_ddl(state.definition, sql, self._next_scn())
        return object_id

    def _new_object_id(self) -> int:
        object_id = self._next_object_id
        self._next_object_id += 2
        return object_id

    def add_column(
        self,
        owner: str,
        table: str,
        column: ColumnDef,
        *,
        default: object = None,
        invisible: bool = False,
    ) -> None:
        """ALTER TABLE ADD: one DDL (code 5) row. Without ``default`` existing rows get NULL.
        With one, existing rows hold it from the DDL's SCN with no redo of theirs (Oracle's
        metadata-only default, 11g for NOT NULL columns, 12c for all) and inserts that omit
        the column store it; ORA-00054 while an open transaction holds a row of the table.
        ``invisible``: ``ADD (c … INVISIBLE)`` (see :meth:`set_column_visibility`)."""
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
        stored_default = coerce_value(added, default)
        if stored_default is not None and state.locks:
            raise_oracle_error(
                54, "resource busy and acquire with NOWAIT specified or timeout expired"
            )
        if invisible:
            state.invisible.add(added.name)
        new = TableDef(
            owner, table, (*current.columns, added), current.primary_key,
            current.supplemental_logging,
        )  # fmt: skip
        scn = self._next_scn()
        state.redefine(new, scn)
        default_sql = None
        if stored_default is not None:
            state.defaults[added.name] = stored_default
            for rowid, row in list(state.latest.items()):
                state.commit_version(rowid, {**row, added.name: stored_default}, scn)
            default_sql = literal(added, stored_default, self.nls)
        self._record_ddl(new, add_column_sql(new, added, default_sql, invisible=invisible), scn)

    def set_column_visibility(self, owner: str, table: str, column: str, *, visible: bool) -> int:
        """``ALTER TABLE … MODIFY (c INVISIBLE | VISIBLE)``: one DDL (code 5) row; no row
        changes and no redo of any. An INVISIBLE column is stored and written to redo as
        before (SQL_REDO names it) but ``SELECT *`` leaves it out and ALL_TAB_COLS lists it
        with HIDDEN_COLUMN = 'YES' and a NULL COLUMN_ID; made VISIBLE again it takes the
        next COLUMN_ID (it becomes the last visible column). ORA-00904 for an unknown column,
        ORA-54039 for the table's last visible column, ORA-00054 while an open transaction
        holds a row of the table. Returns the SCN."""
        state = self._table_state(owner, table)
        current = state.definition
        if not current.has_column(column):
            raise_oracle_error(904, f'"{column}": invalid identifier')
        if column == ROW_ARCHIVAL_COLUMN and self.has_row_archival(owner, table):
            raise SimUsageError(f"{current.qualified_name}: ROW ARCHIVAL's column stays hidden")
        if (column not in state.invisible) == visible:
            raise SimUsageError(f"{current.qualified_name}.{column} is already that visible")
        if not visible and len(state.invisible) + 1 >= len(current.columns):
            raise_oracle_error(54039, "table must have at least one column that is not invisible")
        if state.locks:
            raise_oracle_error(
                54, "resource busy and acquire with NOWAIT specified or timeout expired"
            )
        columns = current.columns  # in the order they were created: it stays
        if visible:
            state.invisible.discard(column)
            state.shown_again = True
            last_id = max(c.column_id for c in self.table_with_virtual(owner, table).columns)
            columns = tuple(
                replace(c, column_id=last_id + 1) if c.name == column else c for c in columns
            )
        else:
            state.invisible.add(column)
        new = replace(current, columns=columns)
        scn = self._next_scn()
        state.redefine(new, scn)
        self._record_ddl(new, column_visibility_sql(new, column, visible), scn)
        return scn

    def set_row_archival(self, owner: str, table: str, *, enabled: bool) -> int:
        """``ALTER TABLE … ROW ARCHIVAL`` (In-Database Archiving, 12c) or ``… NO ROW
        ARCHIVAL``: one DDL (code 5) row. Enabling adds the hidden, system-generated column
        ``ORA_ARCHIVE_STATE VARCHAR2(4000)``: the existing rows hold '0' from the DDL's SCN
        with no redo of theirs (as a metadata default: inferred), an insert that omits it
        stores '0', and SQL_REDO names it as any stored column (inferred). ALL_TAB_COLS lists
        it with HIDDEN_COLUMN = 'YES', USER_GENERATED = 'NO' and a NULL COLUMN_ID. A row
        whose value is not '0' is archived: a session's queries, ``AS OF`` ones included,
        skip it unless the session set ``ROW ARCHIVAL VISIBILITY = ALL`` (the dbapi).
        Disabling drops the column (every row is seen again); it is not enabled again here.
        ORA-00054 while an open transaction holds a row of the table. Returns the SCN."""
        state = self._table_state(owner, table)
        current = state.definition
        if getattr(state, "row_archival", False) == enabled:
            raise SimUsageError(f"{current.qualified_name}: row archival is already {enabled}")
        if state.locks:
            raise_oracle_error(
                54, "resource busy and acquire with NOWAIT specified or timeout expired"
            )
        if enabled and ROW_ARCHIVAL_COLUMN in state.dropped_columns:
            raise SimUsageError(f"{current.qualified_name}: row archival was disabled before")
        scn = self._next_scn()
        if enabled:
            column_id = max((c.column_id for c in current.columns), default=0) + 1
            added = ColumnDef(ROW_ARCHIVAL_COLUMN, column_id, "VARCHAR2", 4000)
            new = replace(current, columns=(*current.columns, added))
            state.redefine(new, scn)
            state.invisible.add(ROW_ARCHIVAL_COLUMN)
            state.defaults[ROW_ARCHIVAL_COLUMN] = ACTIVE_ROW
            for rowid, row in list(state.latest.items()):
                state.commit_version(rowid, {**row, ROW_ARCHIVAL_COLUMN: ACTIVE_ROW}, scn)
        else:
            columns = tuple(c for c in current.columns if c.name != ROW_ARCHIVAL_COLUMN)
            new = replace(current, columns=columns)
            state.redefine(new, scn)
            state.invisible.discard(ROW_ARCHIVAL_COLUMN)
            state.dropped_columns.add(ROW_ARCHIVAL_COLUMN)
            state.defaults.pop(ROW_ARCHIVAL_COLUMN, None)
        state.row_archival = enabled
        self._record_ddl(new, row_archival_sql(new, enabled), scn)
        return scn

    def has_row_archival(self, owner: str, table: str) -> bool:
        """Whether the table has ROW ARCHIVAL (``getattr``: a database saved before it)."""
        return bool(getattr(self._table_state(owner, table), "row_archival", False))

    def invisible_columns(self, owner: str, table: str) -> frozenset[str]:
        """The table's INVISIBLE columns (``getattr``: a database saved before it had any)."""
        return frozenset(getattr(self._table_state(owner, table), "invisible", ()))

    def table_as_listed(self, owner: str, name: str) -> TableDef:
        """The table in ALL_TAB_COLS's order by COLUMN_ID then INTERNAL_COLUMN_ID: the
        visible columns by their ``column_id`` (a column made visible again takes the next
        one), then the invisible ones in the order they were created (:meth:`table` keeps
        that order for all of them)."""
        state = self._table_state(owner, name)
        table = state.definition
        invisible = self.invisible_columns(owner, name)
        if not invisible and not getattr(state, "shown_again", False):
            return table
        shown = sorted((c for c in table.columns if c.name not in invisible),
                       key=lambda c: c.column_id)  # fmt: skip
        hidden = [c for c in table.columns if c.name in invisible]
        return replace(table, columns=(*shown, *hidden))

    def set_supplemental_logging(self, owner: str, table: str, level: SupplementalLogging) -> int:
        """The table's logging set to ``level`` as Oracle's log groups allow: ``ALTER TABLE
        … DROP SUPPLEMENTAL LOG DATA (<the level it had>) COLUMNS`` when it had one (a group
        added stays until dropped), then ``… ADD SUPPLEMENTAL LOG DATA (<level>) COLUMNS``
        unless ``level`` is ``MINIMAL``: a DDL (code 5) row each, at SCNs of their own; the
        table's redo images follow each from its SCN on (the dictionary's ALL_LOG_GROUPS
        too); ORA-00054 while an open transaction holds a row of the table, as for other
        DDL. Returns the last one's SCN."""
        state = self._table_state(owner, table)
        current = state.definition
        if level == current.supplemental_logging:
            raise SimUsageError(f"{current.qualified_name} already has {level} logging")
        if state.locks:
            raise_oracle_error(
                54, "resource busy and acquire with NOWAIT specified or timeout expired"
            )
        if current.supplemental_logging != "MINIMAL":
            dropped = replace(current, supplemental_logging="MINIMAL")
            scn = self._next_scn()
            state.redefine(dropped, scn)
            self._record_ddl(dropped, supplemental_logging_sql(current, added=False), scn)
        if level != "MINIMAL":
            added = replace(current, supplemental_logging=level)
            scn = self._next_scn()
            state.redefine(added, scn)
            self._record_ddl(added, supplemental_logging_sql(added, added=True), scn)
        return scn

    def set_database_supplemental_logging(self, level: SupplementalLogging) -> None:
        """ALTER DATABASE ADD / DROP SUPPLEMENTAL LOG DATA (…) COLUMNS: no DDL row of any
        table; the redo images of every table follow from now on."""
        self.database_logging = level

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
        state.defaults.pop(column, None)
        self._record_ddl(new, drop_column_sql(new, column), scn)

    def truncate_table(self, owner: str, table: str) -> int:
        """TRUNCATE TABLE: every row is gone at one SCN (a DDL, code 5, row with the statement
        as SQL_REDO, committed by itself; no DML rows); the data object id changes. ORA-00054
        while an open transaction holds a row of it. Returns the DDL's SCN."""
        state = self._table_state(owner, table)
        if state.locks:
            raise_oracle_error(
                54, "resource busy and acquire with NOWAIT specified or timeout expired"
            )
        scn = self._next_scn()
        for rowid in list(state.latest):
            state.commit_version(rowid, None, scn)
        for partition in state.partitions:  # a partitioned table's segments are theirs
            state.new_segment(partition, self._new_object_id())
        if not state.partitions:
            state.data_object_id = self._new_object_id()
        self._record_ddl(state.definition, truncate_table_sql(state.definition), scn)
        return scn

    def drop_table(self, owner: str, table: str, *, purge: bool = False) -> int:
        """DROP TABLE [PURGE]: the name is free for a new table (a new OBJECT_ID); one DDL
        (code 5) row named after the table, committed by itself, with ``AS "BIN$…"`` (the
        recycle bin) or ``purge`` in SQL_REDO. Rows of the dropped table mined afterwards show
        its ``BIN$…`` name, or ``UNKNOWN`` / ``OBJ# n`` once purged, with its OBJECT_ID in
        DATA_OBJ#. ORA-00054 while an open transaction holds a row of it. Returns the SCN."""
        state = self._table_state(owner, table)
        if state.locks:
            raise_oracle_error(
                54, "resource busy and acquire with NOWAIT specified or timeout expired"
            )
        scn = self._next_scn()
        bin_name = None if purge else recycle_bin_name(state.object_id)
        self._record_ddl(state.definition, drop_table_sql(state.definition, bin_name), scn)
        for rowid in list(state.latest):
            state.commit_version(rowid, None, scn)
        del self._tables[(owner, table)]
        self._object_names[state.object_id] = bin_name
        self._name_holders[(owner, table)].append((scn, None))
        self.table_kinds.pop((owner, table), None)
        return scn

    def rename_table(self, owner: str, table: str, new_name: str) -> int:
        """ALTER TABLE … RENAME TO: the table (its OBJECT_ID, rows and ROWIDs) goes on under
        ``new_name``; one DDL (code 5) row named after the old name, committed by itself. Its
        rows mined afterwards show the new name, also those written before. ORA-00955 when the
        new name is taken, ORA-00054 while an open transaction holds a row. Returns the
        SCN."""
        state = self._table_state(owner, table)
        if (owner, new_name) in self._tables:
            raise_oracle_error(955, "name is already used by an existing object")
        if state.locks:
            raise_oracle_error(
                54, "resource busy and acquire with NOWAIT specified or timeout expired"
            )
        scn = self._next_scn()
        old = state.definition
        self._record_ddl(old, rename_table_sql(old, new_name), scn)
        state.redefine(TableDef(
            owner, new_name, old.columns, old.primary_key, old.supplemental_logging
        ), scn)  # fmt: skip
        del self._tables[(owner, table)]
        self._tables[(owner, new_name)] = state
        self._object_names[state.object_id] = new_name
        self._name_holders[(owner, table)].append((scn, None))
        self._name_holders.setdefault((owner, new_name), []).append((scn, state.object_id))
        kind = self.table_kinds.pop((owner, table), None)
        if kind is not None:
            self.table_kinds[(owner, new_name)] = kind
        return scn

    def move_rows(self, owner: str, table: str, operation: RowMovingDdl = "move") -> dict[str, str]:
        """DDL that gives rows new ROWIDs without any DML in redo, at one SCN: ``move``
        (``ALTER TABLE … MOVE``: a new segment, a new data object id) or ``shrink``
        (``ALTER TABLE … SHRINK SPACE``: rows compacted to the start of the segment, so a new
        ROWID may be one a deleted row had); ``shrink partition``, ``coalesce subpartition``
        and ``partition by`` are the partition maintenance that does the same (the table
        taken as one partition: ``row_moving_sql``), the first compacting, the others moving.
        One DDL row (code 5) committed by itself; ORA-00054 while an open transaction holds
        a row. Returns old ROWID -> new ROWID."""
        state = self._table_state(owner, table)
        if state.locks:
            raise_oracle_error(
                54, "resource busy and acquire with NOWAIT specified or timeout expired"
            )
        scn = self._next_scn()
        compacted = operation in ("shrink", "shrink partition")
        rows = list(state.latest.items())
        if state.partitions:  # each partition's rows stay in it
            homes = {rowid: state.partition_of(rowid) for rowid, _ in rows}
            for partition in state.partitions:
                data_object_id = partition.data_object_id if compacted else self._new_object_id()
                state.new_segment(partition, data_object_id)
            moved = {rowid: homes[rowid].rowids.allocate() for rowid, _ in rows}
        else:
            if not compacted:
                state.data_object_id = self._new_object_id()
            state.rowids = segment_rowids(state.data_object_id)
            moved = {rowid: state.rowids.allocate() for rowid, _ in rows}
        for rowid, _ in rows:
            state.commit_version(rowid, None, scn)
        for rowid, row in rows:
            state.commit_version(moved[rowid], row, scn)
        self._record_ddl(state.definition, row_moving_sql(state.definition, operation), scn)
        return moved

    def add_virtual_column(
        self,
        owner: str,
        table: str,
        column: ColumnDef,
        expression: VirtualExpression,
        expression_sql: str,
    ) -> None:
        """ALTER TABLE ADD (c … GENERATED ALWAYS AS (expr) VIRTUAL): a DDL (code 5) row. Its
        value is computed on read (``AS OF`` selects), never stored nor written to redo;
        ALL_TAB_COLS lists it with VIRTUAL_COLUMN = 'YES' (ALL_TAB_COLUMNS lists it too).
        :meth:`table` and :meth:`truth` leave it out; :meth:`table_with_virtual` has it."""
        state = self._table_state(owner, table)
        current = self.table_with_virtual(owner, table)
        if current.has_column(column.name) or column.name in state.dropped_columns:
            raise SimUsageError(f"{current.qualified_name}: column {column.name} exists or existed")
        column_type(column)
        column_id = max((c.column_id for c in current.columns), default=0) + 1
        virtual = ColumnDef(
            column.name, column_id, column.data_type, column.data_length, column.data_precision,
            column.data_scale, column.nullable,
        )  # fmt: skip
        state.virtual[column.name] = (virtual, expression)
        scn = self._next_scn()
        sql = add_virtual_column_sql(state.definition, virtual, expression_sql)
        self._record_ddl(state.definition, sql, scn)

    def internal_ddl(self, owner: str, table: str) -> int:
        """Recursive DDL Oracle runs itself on a table (e.g. while gathering statistics): a
        DDL (code 5) row with INFO = 'INTERNAL DDL' that changes no definition. Returns its
        SCN."""
        state = self._table_state(owner, table)
        scn = self._next_scn()
        text = f'ALTER TABLE "{owner}"."{table}" MODIFY DEFAULT ATTRIBUTES'
        self._record_ddl(state.definition, text, scn, info="INTERNAL DDL")
        return scn

    def table_with_virtual(self, owner: str, name: str) -> TableDef:
        """The table with its virtual columns, in COLUMN_ID order (what ``SELECT *`` shows)."""
        state = self._table_state(owner, name)
        current = state.definition
        if not state.virtual:
            return current
        virtual = tuple(column for column, _ in state.virtual.values())
        columns = tuple(sorted((*current.columns, *virtual), key=lambda c: c.column_id))
        return TableDef(
            owner, name, columns, current.primary_key, current.supplemental_logging
        )  # fmt: skip

    def is_virtual(self, owner: str, name: str, column: str) -> bool:
        return column in self._table_state(owner, name).virtual

    def tables(self) -> list[TableDef]:
        return [state.definition for state in self._tables.values()]

    def table(self, owner: str, name: str) -> TableDef:
        return self._table_state(owner, name).definition

    def object_id(self, owner: str, name: str) -> int:
        return self._table_state(owner, name).object_id

    def object_exists(self, object_id: int) -> bool:
        """ALL_OBJECTS has it: a table or a partition of one, or a dropped one still in the
        recycle bin."""
        table_id = self._partition_tables.get(object_id, object_id)
        return self._object_names.get(table_id) is not None

    def data_object_id(self, owner: str, name: str) -> int | None:
        """ALL_OBJECTS.DATA_OBJECT_ID: the object id until a TRUNCATE gives a new segment;
        None for a partitioned table (its partitions have the segments)."""
        state = self._table_state(owner, name)
        return None if state.partitions else state.data_object_id

    def table_objects(self, owner: str, name: str) -> list[tuple[int, int | None]]:
        """(OBJECT_ID, DATA_OBJECT_ID) of the table and of each of its partitions (ALL_OBJECTS
        types ``TABLE`` and ``TABLE PARTITION``), in OBJECT_ID order."""
        state = self._table_state(owner, name)
        table = (state.object_id, self.data_object_id(owner, name))
        return [table, *((p.object_id, p.data_object_id) for p in state.partitions)]

    def partition_object_ids(self, owner: str, name: str) -> list[int]:
        return [p.object_id for p in self._table_state(owner, name).partitions]

    # -- transactions ----------------------------------------------------------------------

    def begin(self, username: str = "APP", *, instance: int | None = None) -> SimTransaction:
        """A new transaction on ``instance`` (RAC: the redo thread its changes go to; by
        default the open instances in turn)."""
        self._serial += 1
        serial = self._serial
        txn = SimTransaction(self, serial, self._free_xid(serial), username)
        self._thread_by_xid[txn.xid] = self._instance_for(serial, instance)
        self._transactions[serial] = txn
        return txn

    def _instance_for(self, serial: int, instance: int | None) -> int:
        open_threads = [n for n, t in self._threads.items() if t.status == "OPEN"]
        if instance is None:
            return open_threads[(serial - 1) % len(open_threads)]
        if instance not in open_threads:
            raise SimUsageError(f"instance {instance} is not open (open: {open_threads})")
        return instance

    def instance_of(self, xid: str) -> int:
        """The instance (redo thread) a transaction runs on; DDL and markers run on the
        first open one."""
        thread = self._thread_by_xid.get(xid)
        if thread is None:
            thread = min(n for n, t in self._threads.items() if t.status == "OPEN")
            self._thread_by_xid[xid] = thread
        return thread

    def replication_marker(self) -> str:
        """A GoldenGate replication marker: a transaction whose START is followed by one
        REPLICATION_MARKER (code 27) row and that never commits nor rolls back (Oracle writes
        such markers periodically for GoldenGate; V$TRANSACTION does not list them). Returns
        its XID."""
        self._serial += 1
        xid = self._free_xid(self._serial)
        scn = self._next_scn()
        self._start_scn_by_xid[xid] = scn
        self._marker_xids.add(xid)
        self._append(self._control_event(xid, OperationCode.START, scn, DDL_USERNAME))
        self._append(self._control_event(xid, OperationCode.REPLICATION_MARKER, scn, DDL_USERNAME))
        return xid

    def redo_hole(self) -> int:
        """What LogMiner shows where the redo it reads misses changes it cannot account for
        (Utilities, "Steps in a Typical LogMiner Session": with options that allow a log to
        be missing): one MISSING_SCN row (code 34, STATUS 1291, INFO ``Missing SCN a - b``,
        no transaction, SQL_REDO NULL) at a new SCN, which it returns. In a CDB its
        SRC_CON_NAME is NULL (the DB-API face): no PDB wrote it."""
        scn = self._next_scn()
        xid = "0" * 16
        thread = min(n for n, t in self._threads.items() if t.status == "OPEN")
        self._thread_by_xid[xid] = thread  # the first open instance's redo, as DDL's
        logs = self._threads[thread].logs
        self._append(
            RedoEvent(
                scn=scn, xid=xid, code=OperationCode.MISSING_SCN, rs_id=logs.next_rs_id(48),
                ssn=0, timestamp=self._clock(), username="UNKNOWN",
                info=f"Missing SCN {scn} - {scn}", status=1291,
            )
        )  # fmt: skip
        return scn

    def commit_at_one_scn(self, transactions: Sequence[SimTransaction]) -> int:
        """Commit ``transactions`` in order at one SCN and return it: RAC instances keep
        their own SCN clocks (synchronised by messages), so transactions of different
        instances may commit at one SCN; LogMiner returns their rows in the order given here
        (a single instance never does this: use one transaction per instance)."""
        instances = [self.instance_of(t.xid) for t in transactions]
        if len(set(instances)) != len(instances):
            raise SimUsageError(f"one commit SCN needs one transaction per instance: {instances}")
        scn = self._next_scn()
        self._held_scn = scn
        try:
            for transaction in transactions:
                transaction.commit()
        finally:
            self._held_scn = None
        return scn

    def open_transactions(self, instance: int | None = None) -> list[tuple[str, int]]:
        """(XID hex, START_SCN) of open transactions that have changed data: of one
        ``instance`` (V$TRANSACTION, local to the session's instance) or of all (None:
        GV$TRANSACTION)."""
        return [
            (t.xid, t.start_scn)
            for t in self._transactions.values()
            if t.is_open
            and t.start_scn is not None
            and (instance is None or self.instance_of(t.xid) == instance)
        ]

    # -- RAC redo threads ------------------------------------------------------------------

    def redo_threads(self) -> list[tuple[int, str, str, int, int, int]]:
        """V$THREAD: (THREAD#, STATUS, ENABLED, ENABLE_CHANGE#, CHECKPOINT_CHANGE#,
        DISABLE_CHANGE#) per thread; an open thread's checkpoint is the written SCN."""
        return [
            (
                number, thread.status, thread.enabled, thread.enable_change,
                self.written_scn() if thread.status == "OPEN" else thread.checkpoint_change,
                thread.disable_change,
            )
            for number, thread in sorted(self._threads.items())
        ]  # fmt: skip

    def close_thread(self, thread: int, *, disable: bool = False) -> int:
        """Shut an instance down cleanly: its thread is CLOSED at the returned SCN (its
        current log is archived there, as the surviving instances' log switch does; its
        CHECKPOINT_CHANGE# is the SCN before). ``disable``: ALTER DATABASE DISABLE THREAD,
        the thread's online groups dropped (DISABLE_CHANGE#: no redo at or above it)."""
        state = self._threads[thread]
        if any(
            t.is_open and self.instance_of(t.xid) == thread for t in self._transactions.values()
        ):
            raise SimUsageError(f"instance {thread} has open transactions")
        if len([t for t in self._threads.values() if t.status == "OPEN"]) < 2:
            raise SimUsageError("the last open instance cannot be closed")
        self._scn += 1
        state.logs.switch(self._scn)
        state.status, state.checkpoint_change = "CLOSED", self._scn - 1
        if disable:
            state.enabled, state.disable_change = "DISABLED", self._scn
            state.logs.online_dropped = True
        return self._scn

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
        lag = getattr(self, "flashback_ddl_lag_scns", 0)  # a database saved before it had it
        ddl_scns = getattr(self, "_ddl_scns", {}).get((owner, table), ())
        too_recent = lag > 0 and any(scn < d + lag for d in ddl_scns)
        if state.definition_at(scn) is None or too_recent:
            raise_oracle_error(1466, "unable to read data - table definition has changed")
        rows = self.truth(owner, table, scn)
        for column, expression in state.virtual.values():
            for row in rows:
                row[column.name] = truth_value(column, coerce_value(column, expression(row)))
        return rows

    def committed_row(self, owner: str, table: str, rowid: str) -> dict[str, object]:
        """The latest committed values of one live row (stored form), for workloads."""
        return dict(self._table_state(owner, table).latest[rowid])

    def table_extents(self, owner: str, table: str) -> list[tuple[str, str, int]]:
        """DBA_EXTENTS of the table's segment: (first ROWID, last ROWID, blocks) per extent."""
        return self._table_state(owner, table).extents()

    def truth(self, owner: str, table: str, scn: int) -> list[dict[str, object]]:
        """The committed contents at ``scn`` (no undo limit), in ROWID allocation order, of
        the table that had the name at ``scn`` (none: no row)."""
        state = self._holder_at(owner, table, scn)
        if state is None:
            return []
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
        self,
        start_scn: int,
        end_scn: int,
        *,
        log_names: list[str] | None = None,
        session_start_scn: int | None = None,
    ) -> list[LogMinerRow]:
        """V$LOGMNR_CONTENTS rows with ``start_scn <= SCN <= end_scn`` in SCN then redo
        order, rendered under ``self.nls``, as a LogMiner session started at
        ``session_start_scn`` (default ``start_scn``) shows them. ORA-01291 when a needed log
        is purged, or (with ``log_names``, the files given to ADD_LOGFILE) when the given
        logs miss part of it."""
        threads = self.check_minable(start_scn, end_scn, log_names=log_names)
        reverse = self.thread_order_varies and start_scn % 2 == 1
        rows = self._rows_between(start_scn, end_scn, threads, reverse_threads=reverse)
        if self.partial_xid_rate or self.pre_session_unsupported_rate:
            session_start = start_scn if session_start_scn is None else session_start_scn
            rows = [
                shown
                for row in rows
                if (shown := self._as_mined_from(session_start, row)) is not None
            ]
        return rows

    def check_minable(
        self, start_scn: int, end_scn: int, *, log_names: list[str] | None = None
    ) -> set[int]:
        """ORA-01291 when a log needed for ``start_scn..end_scn`` is purged, or (with
        ``log_names``) when the given logs miss part of it; returns the threads mined."""
        threads = self._mined_threads(log_names)
        for thread in threads:
            self._threads[thread].logs.check_minable(start_scn, end_scn)
        if log_names is not None:
            self._check_added_logs(start_scn, min(end_scn, self._scn), log_names)
        return threads

    def clone_rows(self, start_scn: int, end_scn: int, lag_scns: int) -> list[LogMinerRow]:
        """What a root session's V$LOGMNR_CONTENTS holds of a clone of this database's PDB
        (same owners, tables and object numbers) replaying each transaction ``lag_scns``
        later under other XIDs: the rows of ``start_scn - lag .. end_scn - lag`` moved up."""
        rows = self._rows_between(start_scn - lag_scns, end_scn - lag_scns, set(self._threads))
        return [
            _replace_row(
                row,
                scn=row.scn + lag_scns,
                start_scn=None if row.start_scn is None else row.start_scn + lag_scns,
                commit_scn=None if row.commit_scn is None else row.commit_scn + lag_scns,
                xid=f"{int(row.xid[:2], 16) ^ 0x80:02X}{row.xid[2:]}",  # another undo segment
            )
            for row in rows
            if row.scn + lag_scns <= min(end_scn, self.written_scn())
        ]

    def _rows_between(
        self, start_scn: int, end_scn: int, threads: set[int], *, reverse_threads: bool = False
    ) -> list[LogMinerRow]:
        """The rendered rows of ``threads`` with ``start_scn <= SCN <= end_scn`` (capped at
        the written SCN), in SCN then redo order (rows of one SCN from several threads in
        descending thread order with ``reverse_threads``); no log is checked."""
        rendering = (self.nls, self.rowid_in_statements, self.undoubled_quote_ratio)
        if self._rendered_with != rendering:
            self._rendered = {}
            self._rendered_with = rendering
        low = bisect_left(self._event_scns, start_scn)
        high = bisect_right(self._event_scns, min(end_scn, self.written_scn()))
        indexes = [i for i in range(low, high) if self._event_threads[i] in threads]
        if reverse_threads:  # stable: each thread's own order is kept
            indexes.sort(key=lambda i: (self._event_scns[i], -self._event_threads[i]))
        rows: list[LogMinerRow] = []
        for index in indexes:
            rendered = self._rendered.get(index)
            if rendered is None:
                rendered = render_rows(
                    self._events[index],
                    self.nls,
                    rowid_in_statement=self.rowid_in_statements,
                    undoubled_quotes=(index * 2654435761) % 1000
                    < self.undoubled_quote_ratio * 1000,
                )
                rendered = self._with_object_ids(index, self._events[index], rendered)
                self._rendered[index] = rendered
            rows.extend(self._as_named_now(self._events[index], rendered))
        return rows

    def _as_named_now(self, event: RedoEvent, rows: list[LogMinerRow]) -> list[LogMinerRow]:
        """The DML rows of a table renamed or dropped since they were written, as the online
        catalog names them when mined: by its name now (a dropped table's ``BIN$…`` name in
        the recycle bin), ``UNKNOWN`` / ``OBJ# n`` once purged; with DATA_OBJ#. Other rows
        as rendered."""
        data_obj = event.data_obj
        if event.table is None or event.object_id is None or event.code not in _DML_CODES:
            return rows
        assert data_obj is not None
        name_now = self._object_names.get(event.object_id, event.table.name)
        if name_now == event.table.name:
            return rows
        if name_now is None:
            return unnamed_rows(rows, event.table, data_obj)
        renamed = renamed_rows(rows, event.table, name_now)
        return [_replace_row(row, data_obj=data_obj) for row in renamed]

    def _as_mined_from(self, session_start_scn: int, row: LogMinerRow) -> LogMinerRow | None:
        """The row as a LogMiner session starting at ``session_start_scn`` shows it, when its
        transaction started before the session: for the share ``partial_xid_rate`` of such
        transactions, their undo (ROLLBACK = 1), ROLLBACK (36) and COMMIT (7) rows carry XID
        undo segment + slot + sequence FFFFFFFF (Oracle cannot link them to the sequence);
        the share ``pre_session_unsupported_rate`` of their DML rows is UNSUPPORTED (None:
        a CSF piece of such a row, which shows as one row)."""
        started = self._start_scn_by_xid.get(row.xid)
        if started is None or started >= session_start_scn:
            return row
        if row.operation_code in _DML_CODES and self._unsupported_before_session(row):
            if row.csf:
                return None
            return _replace_row(
                row, operation="UNSUPPORTED", operation_code=OperationCode.UNSUPPORTED,
                row_id=NO_ROW_ID, sql_redo="Unsupported", info=UNSUPPORTED_INFO,
            )  # fmt: skip
        if not (row.rollback or row.operation_code in _END_CODES):
            return row
        if not self._partial_xid(row.xid):
            return row
        return _replace_row(row, xid=row.xid[:8] + PARTIAL_XID_SEQUENCE)

    def _unsupported_before_session(self, row: LogMinerRow) -> bool:
        """Whether this DML row (each piece of a CSF chain alike: they share RS_ID and SSN)
        is one that ``pre_session_unsupported_rate`` picks."""
        if not self.pre_session_unsupported_rate:
            return False
        key = f"{self.partial_xid_seed}:{row.xid}:{row.rs_id}:{row.ssn}:{row.rollback}"
        return zlib.crc32(key.encode()) < self.pre_session_unsupported_rate * 2**32

    def _partial_xid(self, xid: str) -> bool:
        digest = zlib.crc32(f"{self.partial_xid_seed}:{xid}".encode())
        return digest < self.partial_xid_rate * 2**32

    def _with_object_ids(
        self, index: int, event: RedoEvent, rows: list[LogMinerRow]
    ) -> list[LogMinerRow]:
        """With ``unnamed_object_ratio`` set: DATA_OBJ# on rows of a table, and that share of
        DML events (picked by their index, deterministically) shown as LogMiner shows rows it
        cannot name (``UNKNOWN`` / ``OBJ# n``). Off: the rows as rendered."""
        table, object_id = event.table, event.data_obj
        if not self.unnamed_object_ratio or table is None or object_id is None:
            return rows
        picked = (index * 2_654_435_761) % 2**32 < self.unnamed_object_ratio * 2**32
        if picked and event.code in _DML_CODES:
            return unnamed_rows(rows, table, object_id)
        return [_replace_row(row, data_obj=object_id) for row in rows]

    def _mined_threads(self, log_names: list[str] | None) -> set[int]:
        """The threads a LogMiner session reads: those with an added log (all without)."""
        if log_names is None:
            return set(self._threads)
        by_name = self._log_files_by_name()
        return {f.thread for name in log_names if (f := by_name.get(name)) is not None}

    def log_file_named(self, name: str) -> RedoLogFile | None:
        """The log whose file (an archived copy) or member (an online group's) is ``name``."""
        return self._log_files_by_name().get(name)

    def _log_files_by_name(self) -> dict[str, RedoLogFile]:
        by_name = {}
        for log in self.log_files():
            by_name[log.name] = log
            for member in log.members:
                by_name[member] = log
        return by_name

    def set_log_member_status(self, member: str, status: str | None) -> None:
        """V$LOGFILE.STATUS of an online log member: INVALID, STALE, DELETED, or None (in
        use: the default)."""
        if not any(member in log.members for log in self.log_files()):
            raise SimUsageError(f"no online log member {member}")
        if status is None:
            self.log_member_status.pop(member, None)
        elif status in ("INVALID", "STALE", "DELETED"):
            self.log_member_status[member] = status
        else:
            raise SimUsageError(f"V$LOGFILE.STATUS is INVALID, STALE, DELETED or NULL: {status}")

    @property
    def resetlogs_time(self) -> str:
        """V$DATABASE.RESETLOGS_TIME (``YYYY-MM-DD HH24:MI:SS``): a second per incarnation."""
        opened = RESETLOGS_EPOCH + timedelta(seconds=self.resetlogs_id)
        return opened.strftime("%Y-%m-%d %H:%M:%S")

    def log_files(self) -> list[RedoLogFile]:
        """Every log file: the archived logs of earlier incarnations, then per thread the
        current incarnation's archived and online logs."""
        current = [f for _, t in sorted(self._threads.items()) for f in t.logs.files()]
        return [*self._parent_logs, *current]

    def open_resetlogs(self, to_scn: int) -> int:
        """Point-in-time recovery to ``to_scn`` then ALTER DATABASE OPEN RESETLOGS (as after
        a FLASHBACK DATABASE or an incomplete recovery): every change committed above
        ``to_scn`` is gone, its redo too; a new incarnation starts at RESETLOGS_CHANGE#
        ``to_scn + 1`` with log sequence 1 on every thread; the earlier incarnation's
        archived logs stay listed under their own RESETLOGS_CHANGE#. SCNs go on from the
        new RESETLOGS_CHANGE#, below those the lost changes had. Returns it.

        Simulator limits: no transaction may be open at ``to_scn`` (Oracle would roll it
        back at the open) and no DDL may follow it (the dictionary is not rewound)."""
        cut = self._rewind_cut(to_scn)
        archived = [f for t in self._threads.values() for f in t.logs.files() if not f.is_online]
        self._parent_logs = (*self._parent_logs, *archived)
        del self._events[cut:], self._event_scns[cut:], self._event_threads[cut:]
        self._rendered = {i: rows for i, rows in self._rendered.items() if i < cut}
        for table in self._tables.values():
            table.rewind(to_scn)
        self._transactions.clear()
        self._marker_xids.clear()
        self.resetlogs_change = to_scn + 1
        self.resetlogs_id += 1  # also when an earlier incarnation began at the same SCN
        self._scn = self._redo_flushed_scn = self.resetlogs_change
        for state in self._threads.values():
            state.logs = RedoLogCatalog(
                self._scn, database_name=self.database_name, thread=state.logs.thread,
                archive_destinations=len(self.archive_destinations),
                resetlogs_change=self.resetlogs_change, resetlogs_id=self.resetlogs_id,
                online_members=self.online_log_members,
            )  # fmt: skip
            state.enable_change = self._scn
        self._logs = self._threads[1].logs
        return self.resetlogs_change

    def flashback_pdb(self, to_scn: int) -> int:
        """FLASHBACK PLUGGABLE DATABASE to ``to_scn`` (or a PDB point-in-time recovery),
        then ALTER PLUGGABLE DATABASE OPEN RESETLOGS: every change committed in the PDB
        above ``to_scn`` is gone from its tables, and a new PDB incarnation starts
        (``pdb_incarnation``, from ``to_scn``, opened at the SCN after the current one).
        Unlike ``open_resetlogs`` the database's
        incarnation (V$DATABASE) stays, its SCNs go on and its redo keeps the undone changes,
        which were mined as committed. Returns the new PDB_INCARNATION#.

        Simulator limits: a multitenant server only; no transaction open now (closing the
        PDB ends them) or at ``to_scn``; no DDL after ``to_scn`` (the dictionary is not
        rewound)."""
        if not self.server.cdb:
            raise SimUsageError("FLASHBACK PLUGGABLE DATABASE needs a multitenant server")
        self._rewind_cut(to_scn)
        open_now = sorted(t.xid for t in self._transactions.values() if t.is_open)
        if open_now:
            raise SimUsageError(f"transactions {open_now} are open")
        for table in self._tables.values():
            table.rewind(to_scn)
        self._scn += 1  # the OPEN RESETLOGS
        self.pdb_incarnation += 1
        self.pdb_incarnation_scn = to_scn
        self.pdb_opened_scn = self._scn
        return self.pdb_incarnation

    def _rewind_cut(self, to_scn: int) -> int:
        """Where the events above ``to_scn`` start, after checking the tables can be taken
        back to it (``open_resetlogs``, ``flashback_pdb``): an SCN passed, no DDL after it,
        no transaction open at it."""
        if self._held_scn is not None or not self._first_scn <= to_scn <= self._scn:
            raise SimUsageError(f"cannot go back to SCN {to_scn} (now {self._scn})")
        cut = bisect_right(self._event_scns, to_scn)
        for event in self._events[cut:]:
            if event.code == OperationCode.DDL:
                raise SimUsageError(f"DDL at SCN {event.scn} follows SCN {to_scn}")
        open_at_cut = self._open_at(cut) - self._marker_xids
        if open_at_cut:
            raise SimUsageError(f"transactions {sorted(open_at_cut)} are open at SCN {to_scn}")
        return cut

    def _open_at(self, cut: int) -> set[str]:
        """The XIDs of transactions started and not ended in the first ``cut`` events."""
        started: set[str] = set()
        for event in self._events[:cut]:
            if event.code == OperationCode.START:
                started.add(event.xid)
            elif event.code in _END_CODES and not event.rollback:
                started.discard(event.xid)
        return started

    def switch_log(self, thread: int | None = None) -> None:
        """ALTER SYSTEM SWITCH LOGFILE (one ``thread``) or, by default, ARCHIVE LOG CURRENT
        (every open thread): the current log is archived; takes one SCN. LGWR writes all
        redo before the switch (the simulator's written SCN is one for all threads)."""
        self._scn += 1
        self._redo_flushed_scn = self._scn
        for number, state in sorted(self._threads.items()):
            if (thread is None and state.status == "OPEN") or number == thread:
                state.logs.switch(self._scn)

    def written_scn(self) -> int:
        """V$THREAD.LAST_REDO_CHANGE#: redo up to this SCN is in the log files (and visible
        to LogMiner); with ``redo_write_lag_scns`` it trails the current SCN until a log
        switch writes everything."""
        return max(self._scn - self.redo_write_lag_scns, self._redo_flushed_scn)

    def purge_archived_logs(self, below_sequence: int, thread: int | None = None) -> None:
        """Delete archived copies of sequences below ``below_sequence`` (RMAN DELETE), of
        one ``thread`` or of every thread."""
        for number, state in self._threads.items():
            if thread is None or number == thread:
                state.logs.purge_archived(below_sequence)

    def delete_archived_copy(self, sequence: int, dest_id: int, thread: int = 1) -> None:
        """Delete one destination's copy of an archived log (the other copies stay)."""
        self._threads[thread].logs.delete_archived_copy(sequence, dest_id)

    # -- engine internals used by SimTransaction -------------------------------------------

    def _table_state(self, owner: str, name: str) -> VersionedTable:
        state = self._tables.get((owner, name))
        if state is None:
            raise_oracle_error(942, f"table or view does not exist ({owner}.{name})")
        return state

    def _holder_at(self, owner: str, name: str, scn: int) -> VersionedTable | None:
        """The table named ``owner.name`` at ``scn`` (ORA-00942 for a name never used)."""
        holders = self._name_holders.get((owner, name))
        if not holders:
            return self._table_state(owner, name)
        held: int | None = None
        for since, object_id in holders:
            if since > scn:
                break
            held = object_id
        return None if held is None else self._tables_by_id[held]

    def _table_by_id(self, table_id: int) -> VersionedTable:
        return self._tables_by_id[table_id]

    def _next_scn(self) -> int:
        if self._held_scn is not None:
            return self._held_scn
        self._scn += 1
        return self._scn

    def _scn_clock(self) -> datetime:
        return DEFAULT_EPOCH + timedelta(milliseconds=10 * (self._scn - self._first_scn))

    def _forget(self, txn: SimTransaction) -> None:
        self._transactions.pop(txn._serial, None)

    def _allocate_rs_id(self, table: TableDef, xid: str | None = None) -> str:
        logs = self._threads[self.instance_of(xid) if xid else 1].logs
        return logs.next_rs_id(64 + 24 * len(table.columns))

    def _append(self, event: RedoEvent) -> None:
        thread = self.instance_of(event.xid)
        self._events.append(event)
        self._event_scns.append(event.scn)
        self._event_threads.append(thread)
        if self._threads[thread].logs.records_in_current >= self.log_switch_every:
            self.switch_log(thread if len(self._threads) > 1 else None)

    def _free_xid(self, serial: int) -> str:
        """The XID of a new transaction: a slot of an undo segment no open transaction holds
        (Oracle reuses a slot only once its transaction has ended)."""
        busy = {t.xid[:8] for t in self._transactions.values() if t.is_open}
        busy |= {xid[:8] for xid in self._marker_xids}
        shift = 0
        xid = _xid(serial)
        while xid[:8] in busy:
            shift += 1
            xid = _xid(serial, shift)
        return xid

    def _record_start(self, txn: SimTransaction, scn: int) -> None:
        self._start_scn_by_xid[txn.xid] = scn
        self._append(self._control_event(txn.xid, OperationCode.START, scn, txn.username))

    def _record_end(self, txn: SimTransaction, code: OperationCode, scn: int) -> None:
        event = self._control_event(txn.xid, code, scn, txn.username)
        if code is OperationCode.COMMIT:
            event = _replace(
                event, start_scn=txn.start_scn, commit_scn=scn, commit_timestamp=event.timestamp
            )
        self._append(event)
        self._forget(txn)

    def _record_lob_rows(
        self,
        txn: SimTransaction,
        table: TableDef,
        rowid: str,
        texts: list[tuple[OperationCode, str]],
        scn: int,
    ) -> None:
        """Rows without a DML image: (code, SQL_REDO) each, the INTERNAL one (code 0) with
        ``rowid`` and no table, the others of ``table`` without a ROWID (``NO_ROW_ID``)."""
        for code, text in texts:
            internal = code == OperationCode.INTERNAL
            self._append(
                RedoEvent(
                    scn=scn, xid=txn.xid, code=code,
                    rs_id=self._allocate_rs_id(table, txn.xid), ssn=0, timestamp=self._clock(),
                    username=txn.username, table=None if internal else table,
                    row_id=rowid if internal else NO_ROW_ID, text=text,
                    object_id=self._object_id_of(table),
                    partition_id=self._partition_id_of(table, rowid),
                )
            )  # fmt: skip

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
                rs_id=rs_id if rs_id is not None else self._allocate_rs_id(table, txn.xid),
                ssn=ssn,
                timestamp=self._clock(),
                username=txn.username,
                table=self._as_logged(table),
                row_id=rowid,
                columns=columns,
                before=before,
                after=after,
                empty_lobs=empty_lobs,
                rollback=rollback,
                object_id=self._object_id_of(table),
                partition_id=self._partition_id_of(table, rowid),
            )
        )

    def _object_id_of(self, table: TableDef) -> int | None:
        """The OBJECT_ID of the table now under ``table``'s name (None for one not created
        here)."""
        state = self._tables.get((table.owner, table.name))
        return None if state is None else state.object_id

    def _as_logged(self, table: TableDef) -> TableDef:
        """``table`` with the supplemental logging its redo images follow: its own level, or
        the database's when higher."""
        if _LOGGING_RANK[self.database_logging] <= _LOGGING_RANK[table.supplemental_logging]:
            return table
        return replace(table, supplemental_logging=self.database_logging)

    def _partition_id_of(self, table: TableDef, rowid: str) -> int | None:
        """The OBJECT_ID of the partition of ``table`` that holds ``rowid`` (None for a table
        that is not partitioned)."""
        state = self._tables.get((table.owner, table.name))
        if state is None or not state.partitions:
            return None
        return state.segment_object_id(rowid)

    def _record_ddl(self, table: TableDef, text: str, scn: int, info: str | None = None) -> None:
        if not hasattr(self, "_ddl_scns"):  # a database saved before it had them
            self._ddl_scns = {}
        self._ddl_scns.setdefault((table.owner, table.name), []).append(scn)
        self._serial += 1
        xid = self._free_xid(self._serial)
        start = self._control_event(xid, OperationCode.START, scn, DDL_USERNAME)
        ddl = RedoEvent(
            scn=scn, xid=xid, code=OperationCode.DDL, ssn=0,
            rs_id=self._threads[self.instance_of(xid)].logs.next_rs_id(256),
            timestamp=self._clock(), username=DDL_USERNAME, table=table, text=text, info=info,
            object_id=self._object_id_of(table),
        )  # fmt: skip
        commit = self._control_event(xid, OperationCode.COMMIT, scn, DDL_USERNAME)
        commit = _replace(commit, start_scn=scn, commit_scn=scn, commit_timestamp=commit.timestamp)
        for event in (start, ddl, commit):
            self._append(event)

    def _control_event(self, xid: str, code: OperationCode, scn: int, username: str) -> RedoEvent:
        logs = self._threads[self.instance_of(xid)].logs
        return RedoEvent(
            scn=scn, xid=xid, code=code, rs_id=logs.next_rs_id(48), ssn=0,
            timestamp=self._clock(), username=username,
        )  # fmt: skip

    def _check_added_logs(self, start_scn: int, end_scn: int, names: list[str]) -> None:
        """ORA-01291 when the added logs of a thread leave a hole in the range (up to a
        closed thread's checkpoint); a thread with no added log is not checked."""
        by_name = self._log_files_by_name()
        added = [f for name in names if (f := by_name.get(name)) is not None and f.available]
        for thread in sorted({f.thread for f in added}):
            state = self._threads[thread]
            thread_end = (
                end_scn if state.status == "OPEN" else min(end_scn, state.checkpoint_change)
            )
            covered = sorted(
                (f.first_change, f.next_change if f.next_change is not None else self._scn + 1)
                for f in added
                if f.thread == thread
            )
            position = start_scn
            for first, after in covered:
                if first > position:
                    break
                position = max(position, after)
            if position <= thread_end:
                raise_oracle_error(
                    1291,
                    f"missing log file (no added log of thread {thread} covers SCN {position})",
                )


@dataclass(slots=True)
class _RedoThread:
    """One redo thread: its log catalog and its V$THREAD state."""

    logs: RedoLogCatalog
    enable_change: int
    status: str = "OPEN"  # OPEN | CLOSED
    enabled: str = "PUBLIC"  # PUBLIC | DISABLED
    checkpoint_change: int = 0
    disable_change: int = 0


_LOGGING_RANK: dict[SupplementalLogging, int] = {"MINIMAL": 0, "PRIMARY KEY": 1, "ALL": 2}


def recycle_bin_name(object_id: int) -> str:
    """The ``BIN$<24 base64 characters>$0`` name Oracle gives a dropped table in the recycle
    bin (derived here from its OBJECT_ID, so that a run repeats)."""
    digest = hashlib.sha256(str(object_id).encode()).digest()[:16]
    return f"BIN${base64.b64encode(digest).decode()}$0"


def _xid(serial: int, slot_shift: int = 0) -> str:
    """RAW(8) XID hex: undo segment (2 bytes), slot (2 bytes), sequence (4 bytes), each
    little-endian as Oracle stores them on x86. ``slot_shift`` moves to another slot when
    the usual one is held by an open transaction."""
    usn = serial % 10 + 1
    slot = serial % 32 + 32 * slot_shift
    sequence = 0x100 + serial
    raw = usn.to_bytes(2, "little") + slot.to_bytes(2, "little") + sequence.to_bytes(4, "little")
    return raw.hex().upper()


RESETLOGS_EPOCH = datetime(2023, 11, 6, 9, 30)  # when the simulated database was created
_DML_CODES = (OperationCode.INSERT, OperationCode.UPDATE, OperationCode.DELETE)
_END_CODES = (OperationCode.COMMIT, OperationCode.ROLLBACK)
PARTIAL_XID_SEQUENCE = "FFFFFFFF"  # the XID sequence LogMiner shows when it cannot link it


def _replace_row(row: LogMinerRow, **changes: Any) -> LogMinerRow:
    return msgspec.structs.replace(row, **changes)


def _replace(event: RedoEvent, **changes: Any) -> RedoEvent:
    return replace(event, **changes)
