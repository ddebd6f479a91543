"""A seeded workload: interleaved transactions over several tables.

``run_workload(db, WorkloadSpec(tables=5, transactions=10_000, rollback_ratio=0.03,
seed=42))`` creates the tables and drives inserts, multi-row updates and deletes, primary
key updates, savepoint rollbacks inside committed transactions, full rollbacks, long values
(CSF chains), an optional ADD COLUMN, and leaves some transactions open at the end.
The same spec and seed give the same redo, row for row.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from extractor.dictionary import ColumnDef, TableDef
from extractor.sim.database import SimDatabase
from extractor.sim.table_catalog import DEFAULT_OWNER, demo_tables, random_tables
from extractor.sim.transactions import SimTransaction
from extractor.sim.value_generator import ValueGenerator

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
    open_at_end: int = 2
    max_statements: int = 4
    multi_row_max: int = 3
    seed: int = 42
    owner: str = DEFAULT_OWNER


@dataclass(frozen=True)
class WorkloadResult:
    tables: tuple[TableDef, ...]
    first_scn: int  # SCN before the first table was created
    end_scn: int  # current SCN when the workload returned
    committed: int
    rolled_back: int
    open_xids: tuple[str, ...]
    dml_rows: int  # row changes issued (rolled-back ones included)


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


class _Runner:
    def __init__(self, db: SimDatabase, spec: WorkloadSpec) -> None:
        self.db = db
        self.spec = spec
        self.rng = random.Random(spec.seed)
        self.values = ValueGenerator(self.rng, long_value_ratio=spec.long_value_ratio)
        self.live: dict[str, _Live] = {}
        self.next_key: dict[str, int] = {}
        self.committed = 0
        self.rolled_back = 0
        self.dml_rows = 0

    def run(self) -> WorkloadResult:
        spec = self.spec
        first_scn = self.db.current_scn()
        if spec.tables <= 5:
            tables = demo_tables(spec.owner)[: spec.tables]
        else:
            tables = random_tables(self.rng, spec.tables, spec.owner)
        for table in tables:
            self.db.create_table(table)
            self.live[table.name] = _Live()
            self.next_key[table.name] = 1
        names = [t.name for t in tables]
        active: list[_Open] = []
        started = 0
        while started < spec.transactions or len(active) > spec.open_at_end:
            can_start = started < spec.transactions and len(active) < spec.interleave
            if can_start and (not active or self.rng.random() < 0.5):
                if spec.add_column_at is not None and started == spec.add_column_at:
                    self.db.add_column(spec.owner, names[0], ADDED_COLUMN)
                remaining = self.rng.randint(1, spec.max_statements)
                active.append(_Open(self.db.begin(), remaining))
                started += 1
                continue
            current = self.rng.choice(active)
            if current.remaining > 0:
                self._statement(current, self.rng.choice(names))
                current.remaining -= 1
            elif started < spec.transactions or len(active) > spec.open_at_end:
                self._finish(current)
                active.remove(current)
        for left_open in active:  # every transaction left open has written redo
            while not left_open.txn.has_changes:
                self._dml(left_open, self.rng.choice(names))
        open_xids = tuple(o.txn.xid for o in active)
        return WorkloadResult(
            tables=tuple(self.db.table(spec.owner, n) for n in names),
            first_scn=first_scn,
            end_scn=self.db.current_scn(),
            committed=self.committed,
            rolled_back=self.rolled_back,
            open_xids=open_xids,
            dml_rows=self.dml_rows,
        )

    def _statement(self, current: _Open, table_name: str) -> None:
        rng, spec = self.rng, self.spec
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
            changes = self._changes(table, pk_update=rng.random() < spec.pk_update_ratio)
            if len(rowids) > 1:
                for key in table.primary_key:
                    changes.pop(key, None)  # one new key for several rows would collide
            if changes:
                self.dml_rows += current.txn.update(spec.owner, table_name, rowids, changes)

    def _insert(self, current: _Open, table: TableDef) -> None:
        values = {
            c.name: self.values.value(c)
            for c in table.columns
            if c.name not in table.primary_key and self.rng.random() < 0.9
        }
        for key in table.primary_key:
            values[key] = self._new_key(table, key)
        rowid = current.txn.insert(table.owner, table.name, values)
        current.inserted.append((table.name, rowid))
        self.dml_rows += 1

    def _changes(self, table: TableDef, *, pk_update: bool) -> dict[str, object]:
        candidates = [c for c in table.columns if c.name not in table.primary_key]
        chosen = self.rng.sample(candidates, k=min(len(candidates), self.rng.randint(1, 2)))
        changes = {c.name: self.values.value(c) for c in chosen}
        if pk_update and table.primary_key:
            key = table.primary_key[0]
            changes[key] = self._new_key(table, key)
        return changes

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

    def _finish(self, current: _Open) -> None:
        if self.rng.random() < self.spec.rollback_ratio:
            current.txn.rollback()
            self.rolled_back += 1
            for table_name, rowid in current.claimed:
                self.live[table_name].add(rowid)
            return
        current.txn.commit()
        self.committed += 1
        deleted = set(current.deleted)
        for table_name, rowid in current.claimed + current.inserted:
            if (table_name, rowid) not in deleted:
                self.live[table_name].add(rowid)


def run_workload(db: SimDatabase, spec: WorkloadSpec) -> WorkloadResult:
    """Create the spec's tables in ``db`` and run its transactions."""
    return _Runner(db, spec).run()
