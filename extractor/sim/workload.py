"""A seeded workload: interleaved transactions over several tables.

``run_workload(db, WorkloadSpec(tables=5, transactions=10_000, rollback_ratio=0.03,
seed=42))`` creates the tables and drives inserts, multi-row updates and deletes, primary
key updates, savepoint rollbacks inside committed transactions, full rollbacks, long values
(CSF chains), an optional ADD COLUMN / DROP COLUMN, optional UNSUPPORTED (code 255)
statements, optional TRUNCATE TABLEs (``truncate_ratio``), optional DROP TABLEs each
followed by a CREATE TABLE of the same name (``recreate_ratio``), optional reloads by rename
(``rebuild_ratio``), optional supplemental logging changes (``logging_change_ratio``) and
the other ratios of ``WorkloadSpec``, and leaves some transactions open at the end. The same
spec and seed give the same redo, row for row.

A live workload keeps going: ``runner = WorkloadRunner(db, spec); runner.create_tables();
runner.run(50); runner.run(50); runner.close_all()`` - open transactions carry across calls.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

from extractor.dictionary import (
    ROW_ARCHIVAL_COLUMN,
    SUPPLEMENTAL_LOGGING_LEVELS,
    ColumnDef,
    TableDef,
)
from extractor.errors import SimUsageError
from extractor.sim.database import SimDatabase
from extractor.sim.ddl_text import RowMovingDdl
from extractor.sim.oracle_types import Kind, column_type
from extractor.sim.table_catalog import DEFAULT_OWNER, demo_tables, random_tables
from extractor.sim.transactions import SimTransaction
from extractor.sim.value_generator import ValueGenerator

__all__ = [
    "ADDED_COLUMN",
    "WorkloadResult",
    "WorkloadRunner",
    "WorkloadSpec",
    "demo_tables",
    "random_tables",
    "run_workload",
]

ADDED_COLUMN = ColumnDef("ADDED_NOTE", 0, "VARCHAR2", 60)


@dataclass(frozen=True)
class WorkloadSpec:
    tables: int = 5  # 5 or fewer: the demo tables; more: random tables
    transactions: int = 10_000
    rollback_ratio: float = 0.03
    savepoint_rollback_ratio: float = 0.02
    pk_update_ratio: float = 0.02
    delete_ratio: float = 0.1
    long_value_ratio: float = 0.01
    interleave: int = 4  # most transactions open at once
    add_column_at: int | None = None  # transaction number at which ADD COLUMN runs
    # the added column's DEFAULT: existing rows hold it with no redo (it then waits, as
    # Oracle's DDL does, until no open transaction holds a row of the table)
    added_column_default: str | None = None
    drop_column_at: int | None = None  # ... DROP COLUMN (last non-key column of table 1)
    open_at_end: int = 2
    max_statements: int = 4
    multi_row_max: int = 3
    seed: int = 42
    owner: str = DEFAULT_OWNER
    unsupported_ratio: float = 0.0  # statements LogMiner shows as UNSUPPORTED (code 255)
    truncate_ratio: float = 0.0  # chance, per transaction started, of a TRUNCATE TABLE
    # chance, per transaction started, of DROP TABLE (half the time PURGE, else to the
    # recycle bin) and CREATE TABLE of the same name and definition (a new OBJECT_ID)
    recreate_ratio: float = 0.0
    # chance, per transaction started, of a reload by rename: CREATE TABLE <t>_NEW, a
    # transaction filling it, DROP TABLE <t> (PURGE half the time; a third of the time a
    # swap instead: RENAME <t> TO <t>_OLD), RENAME <t>_NEW TO <t>
    rebuild_ratio: float = 0.0
    # chance, per transaction started, of ALTER TABLE … MOVE or SHRINK SPACE (new ROWIDs)
    row_move_ratio: float = 0.0
    # chance, per multi-row update of a table with a primary key, that the statement moves
    # keys between its rows instead (``set id = id + 1`` in key order, or a rotation: a swap)
    key_shift_ratio: float = 0.0
    # chance, per transaction started, of a GoldenGate replication marker (a transaction of
    # one code 27 row that never ends; SimDatabase.replication_marker)
    replication_marker_ratio: float = 0.0
    # chance, per commit, that a finished transaction of another RAC instance commits at the
    # same SCN right after it (SimDatabase.commit_at_one_scn; needs SimDatabase(threads=2+))
    one_scn_commit_ratio: float = 0.0
    # chance, per UPDATE setting a VARCHAR2 column and a later string column, that the first
    # value reads as a predicate of the second: ``x', "B" = 'y``. With apostrophes not
    # doubled (SimDatabase.undoubled_quote_ratio) the SET clause names B twice and two
    # readings tie: the change builder decides by the row AS OF the commit (docs/parser.md)
    set_lookalike_ratio: float = 0.0
    # how many of the tables (the last ones) are list partitioned, in 2 partitions each
    partitioned_tables: int = 0
    # chance, per transaction started, of a new partition of a partitioned table: an
    # ALTER TABLE … ADD PARTITION, or (half the time) an automatic partition Oracle creates
    # itself, with no DDL row (drawn from a random stream of its own: the workload's DML is
    # the same with or without it)
    add_partition_ratio: float = 0.0
    # chance, per transaction started, of ALTER TABLE … ADD / DROP SUPPLEMENTAL LOG DATA on a
    # table no open transaction holds (another of ALL, PRIMARY KEY, MINIMAL; PRIMARY KEY only
    # for a table with one): to or from ALL, its replica key changes (extractor/keys.py).
    # Drawn from a random stream of its own: the workload's DML is the same with or without it
    logging_change_ratio: float = 0.0
    # chance, per transaction started, of ALTER DATABASE ADD / DROP SUPPLEMENTAL LOG DATA:
    # another database-wide level of ALL, PRIMARY KEY, MINIMAL (no DDL row; every table's
    # images follow the higher of it and its own level at once, open transactions' too).
    # Drawn from a random stream of its own: the workload's DML is the same with or without it
    database_logging_change_ratio: float = 0.0
    # chance, per transaction started, of ALTER TABLE … MODIFY (c INVISIBLE | VISIBLE) on a
    # column outside the key of a table no open transaction holds: the column stays stored and
    # in redo, and later statements still name it. Drawn from a random stream of its own: the
    # workload's DML is the same with or without it
    visibility_change_ratio: float = 0.0
    # chance, per transaction started, of ALTER TABLE … ROW ARCHIVAL on a table without it
    # that no open transaction holds: its rows get ORA_ARCHIVE_STATE '0' with no redo, and
    # later statements set it to '0' or '1' (archived: hidden from a session's queries unless
    # it sees all rows). Drawn from a random stream of its own: the workload's DML is the
    # same with or without it until a table has the column
    row_archival_ratio: float = 0.0


@dataclass(frozen=True)
class WorkloadResult:
    tables: tuple[TableDef, ...]
    first_scn: int  # SCN before the first table was created
    end_scn: int  # current SCN when the workload returned
    committed: int
    rolled_back: int
    open_xids: tuple[str, ...]
    dml_rows: int  # row changes issued (rolled-back ones included)
    unsupported: int = 0  # UNSUPPORTED (code 255) rows written


@dataclass
class _Live:
    """Committed, unlocked rows a transaction may pick (ROWIDs), per table."""

    rowids: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)

    def add(self, rowid: str) -> None:
        self.index[rowid] = len(self.rowids)
        self.rowids.append(rowid)

    def remove(self, rowid: str) -> None:
        position = self.index.pop(rowid)
        last = self.rowids.pop()
        if last != rowid:
            self.rowids[position] = last
            self.index[last] = position


@dataclass
class _Open:
    txn: SimTransaction
    remaining: int
    claimed: list[tuple[str, str]] = field(default_factory=list)  # (table, rowid) taken off live
    inserted: list[tuple[str, str]] = field(default_factory=list)
    deleted: list[tuple[str, str]] = field(default_factory=list)


class WorkloadRunner:
    """A continuing workload over one database: ``create_tables()`` once, then ``run(n)`` as
    often as wanted, each call starting ``n`` more transactions from the same RNG stream.

    Transactions still open at the end of a call stay open into the next one (at most
    ``spec.open_at_end`` of them; each has written redo); ``close_all()`` ends them.
    ``spec.transactions`` is not used here (``run_workload`` passes it to ``run``).
    ``add_column_at`` / ``drop_column_at`` count transactions started over all calls.
    """

    def __init__(self, db: SimDatabase, spec: WorkloadSpec) -> None:
        self.db = db
        self.spec = spec
        self.rng = random.Random(spec.seed)
        self._ddl_forms = random.Random(f"ddl-forms-{spec.seed}")
        self._reload_forms = random.Random(f"reload-forms-{spec.seed}")
        self._partitioning = random.Random(f"partitions-{spec.seed}")
        self._logging = random.Random(f"logging-{spec.seed}")
        self._database_logging = random.Random(f"database-logging-{spec.seed}")
        self._visibility = random.Random(f"visibility-{spec.seed}")
        self._row_archival = random.Random(f"row-archival-{spec.seed}")
        self.values = ValueGenerator(self.rng, long_value_ratio=spec.long_value_ratio)
        self.live: dict[str, _Live] = {}
        self.next_key: dict[str, int] = {}
        self.committed = 0
        self.rolled_back = 0
        self.dml_rows = 0
        self.unsupported = 0
        self.truncates = 0  # TRUNCATE TABLE statements run (truncate_ratio)
        self.recreates = 0  # DROP TABLE + CREATE TABLE pairs run (recreate_ratio)
        self.rebuilds = 0  # reloads by rename run (rebuild_ratio)
        self.row_moves = 0  # ALTER TABLE … MOVE / SHRINK SPACE run (row_move_ratio)
        self.key_shifts = 0  # statements moving keys between rows (key_shift_ratio)
        self.set_lookalikes = 0  # values that read as a SET predicate (set_lookalike_ratio)
        self.replication_markers = 0  # marker transactions written (replication_marker_ratio)
        self.partitions_added = 0  # new partitions (add_partition_ratio)
        self.logging_changes = 0  # supplemental logging changed (logging_change_ratio)
        self.database_logging_changes = 0  # ... for the database (database_logging_change_ratio)
        self.visibility_changes = 0  # columns made INVISIBLE or VISIBLE (visibility_change_ratio)
        self.row_archivals = 0  # tables given ROW ARCHIVAL (row_archival_ratio)
        self.started = 0  # transactions started over all calls
        self._names: list[str] = []
        self._active: list[_Open] = []
        self._drop_pending = False
        self._add_pending = False
        self._created_scn: int | None = None  # SCN before the first table was created

    @property
    def table_names(self) -> tuple[str, ...]:
        return tuple(self._names)

    @property
    def tables(self) -> tuple[TableDef, ...]:
        """The workload's tables as the dictionary holds them now."""
        return tuple(self.db.table(self.spec.owner, n) for n in self._names)

    @property
    def open_xids(self) -> tuple[str, ...]:
        return tuple(o.txn.xid for o in self._active)

    def create_tables(self) -> tuple[TableDef, ...]:
        """Create the spec's tables (once; a second call raises SimUsageError)."""
        if self._created_scn is not None:
            raise SimUsageError("the workload's tables are already created")
        spec = self.spec
        self._created_scn = self.db.current_scn()
        if spec.tables <= 5:
            tables = demo_tables(spec.owner)[: spec.tables]
        else:
            tables = random_tables(self.rng, spec.tables, spec.owner)
        partitioned = {t.name for t in tables[len(tables) - spec.partitioned_tables :]}
        for table in tables:
            self.db.create_table(table, partitions=2 if table.name in partitioned else 0)
            self.live[table.name] = _Live()
            self.next_key[table.name] = 1
        self._names = [t.name for t in tables]
        return self.tables

    def run(self, transactions: int) -> WorkloadResult:
        """Start ``transactions`` more transactions (creating the tables first if needed) and
        run until at most ``spec.open_at_end`` are open. The result counts this call only;
        its ``first_scn`` is the SCN when the call began (before the tables on the first
        call), so transactions carried in from an earlier call may have started before it."""
        first_scn = self.db.current_scn()
        if self._created_scn is None:
            self.create_tables()
        before = self._counts()
        spec, rng, names, active = self.spec, self.rng, self._names, self._active
        target = self.started + transactions
        while self.started < target or len(active) > spec.open_at_end:
            self._try_pending_add()
            self._try_pending_drop()
            can_start = self.started < target and len(active) < spec.interleave
            if can_start and (not active or rng.random() < 0.5):
                self._before_start()
                remaining = rng.randint(1, spec.max_statements)
                active.append(_Open(self.db.begin(), remaining))
                self.started += 1
                continue
            current = rng.choice(active)
            if current.remaining > 0:
                self._statement(current, rng.choice(names))
                current.remaining -= 1
            elif self.started < target or len(active) > spec.open_at_end:
                for finished in self._finish(current):
                    active.remove(finished)
        for left_open in active:  # every transaction left open has written redo
            while not left_open.txn.has_changes:
                self._dml(left_open, rng.choice(names))
        return self._result(first_scn, before)

    def close_all(self) -> WorkloadResult:
        """End every open transaction: commit, or roll back with ``spec.rollback_ratio``;
        then run a DROP COLUMN still waiting for the first table to be free."""
        first_scn = self.db.current_scn()
        before = self._counts()
        while self._active:
            for finished in self._finish(self._active[0]):
                self._active.remove(finished)
        self._try_pending_add()
        self._try_pending_drop()
        return self._result(first_scn, before)

    def after_resetlogs(self) -> None:
        """Go on after ``SimDatabase.open_resetlogs``: the open transactions are gone, and the
        rows a transaction may pick are those committed now (keys are never reused)."""
        self._active.clear()
        for name in self._names:
            live = _Live()
            for row in self.db.truth(self.spec.owner, name, self.db.current_scn()):
                live.add(str(row["ROWID"]))
            self.live[name] = live

    def _counts(self) -> tuple[int, int, int, int]:
        return (self.committed, self.rolled_back, self.dml_rows, self.unsupported)

    def _result(self, first_scn: int, before: tuple[int, int, int, int]) -> WorkloadResult:
        committed, rolled_back, dml_rows, unsupported = (
            now - then for now, then in zip(self._counts(), before, strict=True)
        )
        return WorkloadResult(
            tables=self.tables,
            first_scn=first_scn,
            end_scn=self.db.current_scn(),
            committed=committed,
            rolled_back=rolled_back,
            open_xids=self.open_xids,
            dml_rows=dml_rows,
            unsupported=unsupported,
        )

    def _before_start(self) -> None:
        spec = self.spec
        if spec.add_column_at is not None and self.started == spec.add_column_at:
            self._add_pending = True
            self._try_pending_add()
        if spec.drop_column_at is not None and self.started == spec.drop_column_at:
            self._drop_pending = True
            self._try_pending_drop()
        if spec.truncate_ratio and self.rng.random() < spec.truncate_ratio:
            self._try_truncate(self.rng.choice(self._names))
        if spec.recreate_ratio and self.rng.random() < spec.recreate_ratio:
            self._try_recreate(self.rng.choice(self._names))
        if spec.rebuild_ratio and self.rng.random() < spec.rebuild_ratio:
            self._try_rebuild(self.rng.choice(self._names))
        if spec.row_move_ratio and self.rng.random() < spec.row_move_ratio:
            self._try_row_move(self.rng.choice(self._names))
        if spec.replication_marker_ratio and self.rng.random() < spec.replication_marker_ratio:
            self.db.replication_marker()
            self.replication_markers += 1
        if spec.add_partition_ratio and self._partitioning.random() < spec.add_partition_ratio:
            self._add_partition(self._partitioning.choice(self._names))
        if spec.logging_change_ratio and self._logging.random() < spec.logging_change_ratio:
            self._try_logging_change(self._logging.choice(self._names))
        database_ratio = spec.database_logging_change_ratio
        if database_ratio and self._database_logging.random() < database_ratio:
            levels = [x for x in SUPPLEMENTAL_LOGGING_LEVELS if x != self.db.database_logging]
            self.db.set_database_supplemental_logging(self._database_logging.choice(levels))
            self.database_logging_changes += 1
        visibility = spec.visibility_change_ratio
        if visibility and self._visibility.random() < visibility:
            self._try_visibility_change(self._visibility.choice(self._names))
        archival = spec.row_archival_ratio
        if archival and self._row_archival.random() < archival:
            self._try_row_archival(self._row_archival.choice(self._names))

    def _try_row_archival(self, table_name: str) -> None:
        """ROW ARCHIVAL for ``table_name`` when it has none and no open transaction has
        touched it (Oracle would raise ORA-00054)."""
        owner = self.spec.owner
        if self._touched_by_open(table_name) or self.db.has_row_archival(owner, table_name):
            return
        self.db.set_row_archival(owner, table_name, enabled=True)
        self.row_archivals += 1

    def _try_visibility_change(self, table_name: str) -> None:
        """A column outside the key of ``table_name`` made INVISIBLE, or VISIBLE again, when
        no open transaction has touched the table (Oracle would raise ORA-00054)."""
        if self._touched_by_open(table_name):
            return
        owner = self.spec.owner
        table = self.db.table(owner, table_name)
        columns = [
            c.name
            for c in table.columns
            if c.name not in table.primary_key and c.name != ROW_ARCHIVAL_COLUMN
        ]
        if not columns:
            return
        column = self._visibility.choice(columns)
        invisible = self.db.invisible_columns(owner, table_name)
        hidden = column in invisible
        if not hidden and len(invisible) + 1 >= len(table.columns):
            return  # the last visible column (Oracle: ORA-54039)
        self.db.set_column_visibility(owner, table_name, column, visible=hidden)
        self.visibility_changes += 1

    def _try_logging_change(self, table_name: str) -> None:
        """Another supplemental logging level for ``table_name`` when no open transaction has
        touched it (Oracle would raise ORA-00054: the workload does not try)."""
        if self._touched_by_open(table_name):
            return
        table = self.db.table(self.spec.owner, table_name)
        levels = [
            level
            for level in SUPPLEMENTAL_LOGGING_LEVELS
            if level != table.supplemental_logging and (level != "PRIMARY KEY" or table.primary_key)
        ]
        self.db.set_supplemental_logging(self.spec.owner, table_name, self._logging.choice(levels))
        self.logging_changes += 1

    def _add_partition(self, table_name: str) -> None:
        """A new partition of ``table_name`` if it is partitioned: by DDL, or (half the time)
        automatic (created by an insert: no DDL row, so it needs no free table)."""
        owner = self.spec.owner
        if not self.db.partition_object_ids(owner, table_name):
            return
        automatic = self._partitioning.random() < 0.5
        if not automatic and self._touched_by_open(table_name):
            return
        self.db.add_partition(owner, table_name, automatic=automatic)
        self.partitions_added += 1

    def _try_truncate(self, table_name: str) -> None:
        """TRUNCATE TABLE when no open transaction has touched the table (else Oracle raises
        ORA-00054; the workload just goes on)."""
        for current in self._active:
            if any(t == table_name for t, _ in current.claimed + current.inserted):
                return
        self.db.truncate_table(self.spec.owner, table_name)
        self.live[table_name] = _Live()
        self.truncates += 1

    def _try_recreate(self, table_name: str) -> None:
        """DROP TABLE (PURGE half the time) and CREATE TABLE of the same definition when no
        open transaction has touched the table (else ORA-00054; the workload goes on)."""
        if self._touched_by_open(table_name):
            return
        definition = _as_created(self.db.table(self.spec.owner, table_name))
        partitions = len(self.db.partition_object_ids(self.spec.owner, table_name))
        self.db.drop_table(self.spec.owner, table_name, purge=self.rng.random() < 0.5)
        self.db.create_table(definition, partitions=partitions)
        self.live[table_name] = _Live()
        self.recreates += 1

    def _try_rebuild(self, table_name: str) -> None:
        """A reload by rename when no open transaction has touched the table (else
        ORA-00054; the workload goes on): CREATE TABLE <t>_NEW like it, one transaction
        inserting 1-4 rows (new keys), DROP TABLE <t> (PURGE half the time), ALTER TABLE
        <t>_NEW RENAME TO <t>. A third of the time (its own random stream, so the workload's
        is unchanged) a swap instead of the DROP: <t> is renamed to <t>_OLD, which stays
        (an earlier <t>_OLD is dropped first)."""
        if self._touched_by_open(table_name):
            return
        owner = self.spec.owner
        table = _as_created(self.db.table(owner, table_name))
        copy_name = f"{table_name}_NEW"
        self.db.create_table(TableDef(
            owner, copy_name, table.columns, table.primary_key, table.supplemental_logging
        ), partitions=len(self.db.partition_object_ids(owner, table_name)))  # fmt: skip
        txn = self.db.begin()
        live = _Live()
        for _ in range(self.rng.randint(1, 4)):
            live.add(txn.insert(owner, copy_name, self._new_row(table)))
            self.dml_rows += 1
        txn.commit()
        self.committed += 1
        purge = self.rng.random() < 0.5
        if self._reload_forms.random() < 1 / 3:
            old_name = f"{table_name}_OLD"
            if any(t.name == old_name for t in self.db.tables() if t.owner == owner):
                self.db.drop_table(owner, old_name, purge=purge)
            self.db.rename_table(owner, table_name, old_name)
        else:
            self.db.drop_table(owner, table_name, purge=purge)
        self.db.rename_table(owner, copy_name, table_name)
        self.live[table_name] = live
        self.rebuilds += 1

    def _try_row_move(self, table_name: str) -> None:
        self.move_rows_of(table_name, self.rng)

    def move_rows_of(self, table_name: str, rng: random.Random) -> bool:
        """ALTER TABLE … MOVE or SHRINK SPACE (``rng`` draws which) when no open transaction
        has touched the table (else ORA-00054: False, the workload goes on): every live row
        gets a new ROWID. Also for a caller between the workload's transactions (a harness
        moving rows while a snapshot reads)."""
        if table_name not in self._names or self._touched_by_open(table_name):
            return False
        operation: RowMovingDdl = rng.choice(("move", "shrink"))
        # which statement of its kind: its own random stream, so the workload's is unchanged
        if operation == "move":
            operation = self._ddl_forms.choice(("move", "coalesce subpartition", "partition by"))
        else:
            operation = self._ddl_forms.choice(("shrink", "shrink partition"))
        moved = self.db.move_rows(self.spec.owner, table_name, operation)
        live = _Live()
        for rowid in self.live[table_name].rowids:
            live.add(moved[rowid])
        self.live[table_name] = live
        self.row_moves += 1
        return True

    def _touched_by_open(self, table_name: str) -> bool:
        return any(
            t == table_name
            for current in self._active
            for t, _ in current.claimed + current.inserted
        )

    def _try_pending_add(self) -> None:
        """ADD COLUMN; with a DEFAULT it needs the table free of open DML (ORA-00054,
        retried), as DROP COLUMN does."""
        if not self._add_pending:
            return
        default = self.spec.added_column_default
        if default is not None and self._touched_by_open(self._names[0]):
            return
        self.db.add_column(self.spec.owner, self._names[0], ADDED_COLUMN, default=default)
        self._add_pending = False

    def _try_pending_drop(self) -> None:
        """DROP COLUMN needs the table free of open DML (Oracle: ORA-00054, retried): run
        it once no open transaction has touched the first table."""
        if not self._drop_pending or self._touched_by_open(self._names[0]):
            return
        first = self._names[0]
        table = self.db.table(self.spec.owner, first)
        droppable = [c.name for c in _as_created(table).columns if c.name not in table.primary_key]
        if not droppable:
            raise SimUsageError(
                f"drop_column_at: {table.qualified_name} has no non-key column to drop",
                fix="set drop_column_at=None or use a table with a non-key column",
            )
        self.db.drop_column(self.spec.owner, first, droppable[-1])
        self._drop_pending = False

    def _statement(self, current: _Open, table_name: str) -> None:
        rng, spec = self.rng, self.spec
        if spec.unsupported_ratio and rng.random() < spec.unsupported_ratio:
            current.txn.unsupported_change(spec.owner, table_name)
            self.unsupported += 1
            return
        if rng.random() < spec.savepoint_rollback_ratio:
            current.txn.savepoint("SP1")
            marks = (len(current.claimed), len(current.inserted), len(current.deleted))
            self._dml(current, table_name)
            current.txn.rollback_to("SP1")
            self._undo_after(current, marks)
            return
        self._dml(current, table_name)

    def _dml(self, current: _Open, table_name: str) -> None:
        rng, spec = self.rng, self.spec
        table = self.db.table(spec.owner, table_name)
        live = self.live[table_name]
        roll = rng.random()
        if not live.rowids or roll < 0.45:
            self._insert(current, table)
        elif roll < 0.45 + spec.delete_ratio:
            rowids = self._claim(current, table_name, rng.randint(1, spec.multi_row_max))
            self.dml_rows += current.txn.delete(spec.owner, table_name, rowids)
            current.deleted.extend((table_name, r) for r in rowids)
        else:
            rowids = self._claim(current, table_name, rng.randint(1, spec.multi_row_max))
            if (
                spec.key_shift_ratio
                and table.primary_key
                and len(rowids) > 1
                and rng.random() < spec.key_shift_ratio
            ):
                self._shift_keys(current, table, rowids)
                return
            changes = self._changes(table, pk_update=rng.random() < spec.pk_update_ratio)
            if len(rowids) > 1:
                for key in table.primary_key:
                    changes.pop(key, None)  # one new key for several rows would collide
            if changes:
                self.dml_rows += current.txn.update(spec.owner, table_name, rowids, changes)

    def _shift_keys(self, current: _Open, table: TableDef, rowids: list[str]) -> None:
        """One statement handing each row the key of the next in key order: the last row gets
        a new key (``id = id + 1``) or the first row's key (a rotation; two rows: a swap)."""
        key = table.primary_key[0]
        # Keys are numbers or text of one type per column: they compare with each other.
        keyed: list[tuple[Any, str]] = sorted(
            (self.db.committed_row(table.owner, table.name, r)[key], r) for r in rowids
        )
        keys = [k for k, _ in keyed]
        last = self._new_key(table, key) if self.rng.random() < 0.5 else keys[0]
        new_keys = [*keys[1:], last]
        changes = [(rowid, {key: new}) for (_, rowid), new in zip(keyed, new_keys, strict=True)]
        self.dml_rows += current.txn.update_rows(table.owner, table.name, changes)
        self.key_shifts += 1

    def _insert(self, current: _Open, table: TableDef) -> None:
        rowid = current.txn.insert(table.owner, table.name, self._new_row(table))
        current.inserted.append((table.name, rowid))
        self.dml_rows += 1

    def _new_row(self, table: TableDef) -> dict[str, object]:
        """Values of a new row: most non-key columns, and new keys."""
        values = {
            c.name: self.values.value(c)
            for c in table.columns
            if c.name not in table.primary_key and self.rng.random() < 0.9
        }
        for key in table.primary_key:
            values[key] = self._new_key(table, key)
        return values

    def _changes(self, table: TableDef, *, pk_update: bool) -> dict[str, object]:
        candidates = [c for c in table.columns if c.name not in table.primary_key]
        chosen = self.rng.sample(candidates, k=min(len(candidates), self.rng.randint(1, 2)))
        changes = {c.name: self.values.value(c) for c in chosen}
        lookalike = self.spec.set_lookalike_ratio
        # (no draw when off: the seeds' workloads stay what they were)
        if len(chosen) == 2 and lookalike > 0 and self.rng.random() < lookalike:
            self._set_lookalike(sorted(chosen, key=lambda c: c.column_id), changes)
        if pk_update and table.primary_key:
            key = table.primary_key[0]
            changes[key] = self._new_key(table, key)
        return changes

    def _set_lookalike(self, columns: list[ColumnDef], changes: dict[str, object]) -> None:
        """The first column's new value ends like a predicate of the second (in SET order,
        which is column order): ``x', "B" = 'y``. VARCHAR2 first, a string type second."""
        first, second = columns
        if column_type(first).kind is not Kind.VARCHAR2 or column_type(second).kind not in (
            Kind.VARCHAR2, Kind.CHAR, Kind.NVARCHAR2, Kind.NCHAR,
        ):  # fmt: skip
            return
        text = f"{self.rng.choice(('x', 'O'))}', \"{second.name}\" = '{self.rng.randint(0, 99)}"
        if len(text.encode()) <= (first.data_length or 4000):
            changes[first.name] = text
            self.set_lookalikes += 1

    def _new_key(self, table: TableDef, key: str) -> object:
        number = self.next_key[table.name]
        self.next_key[table.name] = number + 1
        if table.column(key).data_type.upper().startswith("NUMBER"):
            return number
        return f"K{number:08d}"

    def _claim(self, current: _Open, table_name: str, count: int) -> list[str]:
        live = self.live[table_name]
        rowids = self.rng.sample(live.rowids, k=min(count, len(live.rowids)))
        for rowid in rowids:
            live.remove(rowid)
            current.claimed.append((table_name, rowid))
        return rowids

    def _undo_after(self, current: _Open, marks: tuple[int, int, int]) -> None:
        """After ROLLBACK TO SAVEPOINT: later inserts and deletes never happened; rows
        claimed since stay claimed (still locked) and return to the pool at the end."""
        _, inserted, deleted = marks
        del current.inserted[inserted:]
        del current.deleted[deleted:]

    def _finish(self, current: _Open) -> list[_Open]:
        """End ``current`` (and, with ``one_scn_commit_ratio``, a partner committing at the
        same SCN); returns the transactions ended."""
        if self.rng.random() < self.spec.rollback_ratio:
            current.txn.rollback()
            self.rolled_back += 1
            for table_name, rowid in current.claimed:
                self.live[table_name].add(rowid)
            return [current]
        partner = self._one_scn_partner(current)
        if partner is None:
            current.txn.commit()
            ended = [current]
        else:
            self.db.commit_at_one_scn([current.txn, partner.txn])
            ended = [current, partner]
        for done in ended:
            self.committed += 1
            deleted = set(done.deleted)
            for table_name, rowid in done.claimed + done.inserted:
                if (table_name, rowid) not in deleted:
                    self.live[table_name].add(rowid)
        return ended

    def _one_scn_partner(self, current: _Open) -> _Open | None:
        """A finished transaction of another instance to commit at ``current``'s SCN."""
        ratio = self.spec.one_scn_commit_ratio
        if not ratio or not current.txn.has_changes or self.rng.random() >= ratio:
            return None
        instance = self.db.instance_of(current.txn.xid)
        candidates = [
            other
            for other in self._active
            if other is not current
            and other.remaining == 0
            and other.txn.has_changes
            and self.db.instance_of(other.txn.xid) != instance
        ]
        return self.rng.choice(candidates) if candidates else None


def run_workload(db: SimDatabase, spec: WorkloadSpec) -> WorkloadResult:
    """Create the spec's tables in ``db`` and run its ``spec.transactions`` transactions
    (one :class:`WorkloadRunner` call; ``first_scn`` is the SCN before the tables)."""
    return WorkloadRunner(db, spec).run(spec.transactions)


def _as_created(table: TableDef) -> TableDef:
    """``table`` as a CREATE TABLE writes it: without the column ROW ARCHIVAL adds."""
    columns = tuple(c for c in table.columns if c.name != ROW_ARCHIVAL_COLUMN)
    return table if len(columns) == len(table.columns) else replace(table, columns=columns)
