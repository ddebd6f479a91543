"""The live workload runner: calls compose, transactions cross calls, DDL, UNSUPPORTED rows.

Committed LogMiner changes are replayed by a tiny regex applier (the literal decoding of
``test_workload_replay``) fed window by window, and compared with ``truth()``.
"""

from __future__ import annotations

import hashlib
import json
import re

import sqlglot
from sqlglot import exp

from extractor.dictionary import TableDef
from extractor.logminer_row import NO_ROW_ID, LogMinerRow
from extractor.nls import UNSIGNED_YEAR_DEFAULTS
from extractor.sim.database import SimDatabase
from extractor.sim.workload import (
    WorkloadResult,
    WorkloadRunner,
    WorkloadSpec,
    demo_tables,
    random_tables,
    run_workload,
)
from tests.sim.lob_inserts import with_insert_row_ids
from tests.sim.sim_tables import one_table
from tests.sim.test_workload_replay import (
    _ASSIGN,
    _DELETE,
    _INSERT,
    _LITERAL,
    _UPDATE,
    _same,
    _typed,
)

State = dict[str, dict[str, dict[str, object]]]


class _Replica:
    """Applies committed DML in commit order; transactions still open at the end of one
    window stay pending into the next. Columns the table no longer has are skipped."""

    def __init__(self) -> None:
        self.state: State = {}
        self._pending: dict[str, list[tuple[str, str, str]]] = {}  # xid -> (table, ROW_ID, SQL)

    def feed(self, rows: list[LogMinerRow], tables: dict[str, TableDef]) -> None:
        text = ""
        for row in with_insert_row_ids(rows):
            text += row.sql_redo or ""
            if row.csf:
                continue
            if row.operation_code in (1, 2, 3):
                entry = (row.table_name or "", row.row_id or "", text)
                self._pending.setdefault(row.xid, []).append(entry)
            elif row.operation_code == 7:
                for table_name, rowid, sql in self._pending.pop(row.xid, []):
                    self._apply(tables[table_name], rowid, sql)
            elif row.operation_code == 36:
                self._pending.pop(row.xid, None)
            text = ""

    def _apply(self, table: TableDef, rowid: str, sql: str) -> None:
        rows = self.state.setdefault(table.name, {})
        if match := _INSERT.match(sql):
            names = [n.strip('"') for n in match.group(3).split(",")]
            values = re.findall(_LITERAL, match.group(4))
            image: dict[str, object] = dict.fromkeys(table.column_names)
            for name, literal in zip(names, values, strict=True):
                if table.has_column(name):
                    image[name] = _typed(table, name, literal)
            rows[rowid] = image
        elif match := _UPDATE.match(sql):
            for name, literal in _ASSIGN.findall(match.group(3)):
                if table.has_column(name):
                    rows[rowid][name] = _typed(table, name, literal)
        elif match := _DELETE.match(sql):
            del rows[rowid]
        else:
            raise AssertionError(f"unreadable SQL_REDO: {sql[:200]}")


def _assert_replica_matches_truth(
    db: SimDatabase, replica: _Replica, tables: tuple[TableDef, ...]
) -> None:
    end = db.current_scn()
    for table in tables:
        truth = {str(row.pop("ROWID")): row for row in db.truth(table.owner, table.name, end)}
        mine = replica.state.get(table.name, {})
        assert set(mine) == set(truth), table.name
        for rowid, row in truth.items():
            for name, value in row.items():
                assert _same(value, mine[rowid].get(name)), (table.name, rowid, name, value)


def _ends(rows: list[LogMinerRow]) -> dict[str, int]:
    """XID -> SCN of its COMMIT or ROLLBACK row."""
    return {r.xid: r.scn for r in rows if r.operation_code in (7, 36)}


# -- run_workload is unchanged ------------------------------------------------------------

# sha256 over json.dumps(row.to_json(), sort_keys=True) + "\n" of every row of
# db.logminer_contents(result.first_scn, db.current_scn()), computed once by running the
# run_workload implementation from BEFORE WorkloadRunner existed (the old private _Runner)
# on these specs, in a fresh SimDatabase(). A change here means existing seeds changed.
_OLD_RUN_WORKLOAD_HASHES = (
    (
        WorkloadSpec(tables=5, transactions=300, seed=7, add_column_at=100),
        "362b6f2855d8c400a5b77cd062df249172277e34e9e74ec2660d9fd467afbc9b",
    ),
    (
        WorkloadSpec(
            tables=8,
            transactions=200,
            seed=11,
            rollback_ratio=0.1,
            savepoint_rollback_ratio=0.1,
            pk_update_ratio=0.1,
        ),
        "2763815e6c1aa2165f299eaf9764d127b41b2d9c0d56cdacd71f0a1a29d77ceb",
    ),
)


# The hashes were taken under the defaults then (unsigned years).


def test_run_workload_gives_the_same_redo_as_before_the_runner() -> None:
    for spec, expected in _OLD_RUN_WORKLOAD_HASHES:
        db = SimDatabase(nls=UNSIGNED_YEAR_DEFAULTS)
        result = run_workload(db, spec)
        digest = hashlib.sha256()
        # the one change since: LogMiner's INSERT of a row with a LOB shows no ROWID
        rows = db.logminer_contents(result.first_scn, db.current_scn())
        assert any(r.row_id == NO_ROW_ID and r.operation_code == 1 for r in rows), spec
        for row in with_insert_row_ids(rows):
            digest.update(json.dumps(row.to_json(), sort_keys=True).encode())
            digest.update(b"\n")
        assert digest.hexdigest() == expected, spec


def test_table_catalog_is_re_exported_from_workload() -> None:
    from extractor.sim import table_catalog

    assert demo_tables is table_catalog.demo_tables
    assert random_tables is table_catalog.random_tables


# -- runner calls compose ---------------------------------------------------------------


def test_two_runs_each_leave_a_replica_equal_to_truth() -> None:
    db = SimDatabase()
    runner = WorkloadRunner(db, WorkloadSpec(seed=5, long_value_ratio=0.03))
    tables = runner.create_tables()
    replica = _Replica()
    start = 0
    for _ in range(2):
        result = runner.run(50)
        by_name = {t.name: t for t in result.tables}
        replica.feed(db.logminer_contents(start, result.end_scn), by_name)
        start = result.end_scn + 1
        _assert_replica_matches_truth(db, replica, tables)


def test_each_run_starts_the_requested_transactions() -> None:
    db = SimDatabase()
    runner = WorkloadRunner(db, WorkloadSpec(seed=5))
    runner.create_tables()
    first = runner.run(40)
    second = runner.run(60)
    starts = {r.xid for r in db.logminer_contents(first.end_scn + 1, second.end_scn)
              if r.operation_code == 6}  # fmt: skip
    assert runner.started == 100
    # every transaction writes redo, so each started one shows one START row
    assert len(starts) == 60 - len(set(first.open_xids) & starts)


def test_transactions_open_at_the_end_of_a_run_end_in_a_later_run() -> None:
    db = SimDatabase()
    runner = WorkloadRunner(db, WorkloadSpec(seed=9, open_at_end=3, interleave=5))
    runner.create_tables()
    first = runner.run(50)
    assert first.open_xids
    assert {x for x, _ in db.open_transactions()} == set(first.open_xids)
    second = runner.run(50)
    ended = _ends(db.logminer_contents(first.end_scn + 1, second.end_scn))
    assert set(first.open_xids) - set(second.open_xids) <= set(ended)
    assert set(first.open_xids) - set(second.open_xids)  # at least one crossed and ended


def test_run_leaves_at_most_open_at_end_transactions_each_with_redo() -> None:
    db = SimDatabase()
    runner = WorkloadRunner(db, WorkloadSpec(seed=2, open_at_end=2))
    for _ in range(3):
        result = runner.run(30)
        assert len(result.open_xids) <= 2
        assert {x for x, _ in db.open_transactions()} == set(result.open_xids)


def test_close_all_ends_every_open_transaction_and_truth_still_matches() -> None:
    db = SimDatabase()
    runner = WorkloadRunner(db, WorkloadSpec(seed=4, open_at_end=3, interleave=5))
    tables = runner.create_tables()
    opened = runner.run(40).open_xids
    closed = runner.close_all()
    assert opened and closed.open_xids == () and db.open_transactions() == []
    assert closed.committed + closed.rolled_back == len(opened)
    assert set(opened) <= set(_ends(db.logminer_contents(0, db.current_scn())))
    replica = _Replica()
    replica.feed(db.logminer_contents(0, db.current_scn()), {t.name: t for t in tables})
    _assert_replica_matches_truth(db, replica, tables)


def test_same_seed_and_calls_give_the_same_redo() -> None:
    spec = WorkloadSpec(tables=7, seed=13, unsupported_ratio=0.05, drop_column_at=10)
    contents = []
    for _ in range(2):
        db = SimDatabase()
        runner = WorkloadRunner(db, spec)
        runner.create_tables()
        runner.run(30)
        runner.run(20)
        runner.close_all()
        contents.append(db.logminer_contents(0, db.current_scn()))
    assert contents[0] == contents[1]


def test_different_seeds_give_different_runner_redo() -> None:
    sql = []
    for seed in (1, 2):
        db = SimDatabase()
        WorkloadRunner(db, WorkloadSpec(seed=seed)).run(20)
        sql.append([r.sql_redo for r in db.logminer_contents(0, db.current_scn())])
    assert sql[0] != sql[1]


def test_create_tables_twice_is_refused() -> None:
    runner = WorkloadRunner(SimDatabase(), WorkloadSpec(tables=1))
    runner.create_tables()
    try:
        runner.create_tables()
    except Exception as error:  # SimUsageError is an OracdcError
        assert "already created" in str(error)
    else:
        raise AssertionError("second create_tables() was accepted")


# -- DDL across calls --------------------------------------------------------------------


def test_add_column_at_counts_transactions_over_all_calls() -> None:
    db = SimDatabase()
    runner = WorkloadRunner(db, WorkloadSpec(seed=3, add_column_at=70))
    runner.create_tables()
    first = runner.run(50)
    assert not first.tables[0].has_column("ADDED_NOTE")
    second = runner.run(50)
    ddl = [r for r in db.logminer_contents(0, second.end_scn) if r.operation_code == 5]
    adds = [r for r in ddl if " add (" in (r.sql_redo or "")]
    assert len(adds) == 1 and adds[0].scn > first.end_scn
    assert second.tables[0].has_column("ADDED_NOTE")


def test_drop_column_at_drops_the_last_non_key_column_of_the_first_table() -> None:
    db = SimDatabase()
    result = run_workload(db, WorkloadSpec(seed=8, transactions=60, drop_column_at=20))
    customers = demo_tables()[0]  # ID key; CREATED is its last column
    assert result.tables[0].column_names == customers.column_names[:-1]
    drops = [r.sql_redo for r in db.logminer_contents(0, db.current_scn()) if r.operation_code == 5]
    assert 'alter table "SIM"."CUSTOMERS" drop column "CREATED";' in drops


def test_drop_column_waits_until_no_open_transaction_touched_the_table() -> None:
    # Oracle refuses the DDL (ORA-00054) while DML on the table is uncommitted
    db = SimDatabase()
    run_workload(db, WorkloadSpec(seed=8, transactions=200, interleave=6, drop_column_at=20))
    rows = db.logminer_contents(0, db.current_scn())
    drop_scn = next(
        r.scn for r in rows if r.operation_code == 5 and "drop column" in (r.sql_redo or "")
    )
    ends = _ends(rows)
    touching = {r.xid: r.scn for r in reversed(rows) if r.table_name == "CUSTOMERS"
                and r.operation_code in (1, 2, 3)}  # xid -> first DML SCN  # fmt: skip
    for xid, first_dml in touching.items():
        assert not (first_dml < drop_scn < ends.get(xid, db.current_scn() + 1)), xid


def test_replica_matches_truth_across_add_and_drop_column() -> None:
    db = SimDatabase()
    runner = WorkloadRunner(db, WorkloadSpec(seed=6, add_column_at=15, drop_column_at=35))
    runner.create_tables()
    replica = _Replica()
    start = 0
    for _ in range(3):
        result = runner.run(25)
        replica.feed(
            db.logminer_contents(start, result.end_scn), {t.name: t for t in result.tables}
        )
        start = result.end_scn + 1
        _assert_replica_matches_truth(db, replica, result.tables)


# -- UNSUPPORTED rows ----------------------------------------------------------------------


def test_unsupported_change_writes_one_code_255_row_and_changes_no_data() -> None:
    db = SimDatabase()
    db.create_table(one_table(("NAME", "VARCHAR2(10)")))
    setup = db.begin()
    setup.insert("O", "T", {"ID": 1, "NAME": "a"})
    setup.commit()
    before = db.truth("O", "T", db.current_scn())
    start = db.current_scn() + 1
    txn = db.begin()
    txn.unsupported_change("O", "T")
    txn.commit()
    rows = db.logminer_contents(start, db.current_scn())
    assert [r.operation_code for r in rows] == [6, 255, 7]
    unsupported = rows[1]
    assert (unsupported.operation, unsupported.sql_redo) == ("UNSUPPORTED", "Unsupported")
    assert (unsupported.seg_owner, unsupported.table_name) == ("O", "T")
    assert unsupported.xid == txn.xid and unsupported.rollback == 0
    assert db.truth("O", "T", db.current_scn()) == before


def test_unsupported_ratio_emits_unsupported_rows_and_truth_still_replays() -> None:
    db = SimDatabase()
    result = run_workload(db, WorkloadSpec(seed=12, transactions=200, unsupported_ratio=0.1))
    rows = db.logminer_contents(0, db.current_scn())
    assert result.unsupported > 0
    assert sum(r.operation_code == 255 for r in rows) == result.unsupported
    replica = _Replica()
    replica.feed(rows, {t.name: t for t in result.tables})
    _assert_replica_matches_truth(db, replica, result.tables)


def test_default_spec_emits_no_unsupported_rows() -> None:
    db = SimDatabase()
    result = run_workload(db, WorkloadSpec(seed=12, transactions=200))
    assert result.unsupported == 0
    assert not any(r.operation_code == 255 for r in db.logminer_contents(0, db.current_scn()))


# -- primary-key updates -------------------------------------------------------------------


def _key_updates_by_logging_level(db: SimDatabase, result: WorkloadResult) -> set[str]:
    tables = {t.name: t for t in result.tables}
    levels: set[str] = set()
    text = ""
    for row in db.logminer_contents(0, db.current_scn()):
        text += row.sql_redo or ""
        if row.csf:
            continue
        if row.operation_code == 3 and not row.rollback and (match := _UPDATE.match(text)):
            table = tables[match.group(2)]
            if {n for n, _ in _ASSIGN.findall(match.group(3))} & set(table.primary_key):
                levels.add(table.supplemental_logging)
        text = ""
    return levels


def test_primary_key_updates_happen_on_demo_tables_of_every_logging_level() -> None:
    db = SimDatabase()
    result = run_workload(db, WorkloadSpec(seed=21, transactions=400, pk_update_ratio=0.2))
    assert _key_updates_by_logging_level(db, result) == {"ALL", "PRIMARY KEY", "MINIMAL"}


def test_primary_key_updates_happen_on_random_tables_of_every_logging_level() -> None:
    db = SimDatabase()
    spec = WorkloadSpec(tables=9, seed=21, transactions=600, pk_update_ratio=0.2)
    result = run_workload(db, spec)
    assert _key_updates_by_logging_level(db, result) == {"ALL", "PRIMARY KEY", "MINIMAL"}


# -- every SQL_REDO is Oracle SQL ------------------------------------------------------------

# sqlglot 30.30 cannot read two valid Oracle constructs of CREATE TABLE, so in DDL rows only:
# the inline supplemental logging clause (`, SUPPLEMENTAL LOG DATA (ALL) COLUMNS`) is cut,
# and a negative NUMBER scale (`NUMBER(8,-2)`) is read as positive. UNSUPPORTED rows carry the
# word `Unsupported`, which is not SQL: they are skipped.
# UNISTR(...) || UNISTR(...), TO_TIMESTAMP_TZ, EMPTY_CLOB() and HEXTORAW all parse as they are.
_SUPPLEMENTAL_CLAUSE = re.compile(r", SUPPLEMENTAL LOG DATA \((?:ALL|PRIMARY KEY)\) COLUMNS")
_NEGATIVE_SCALE = re.compile(r"NUMBER\((\d+),-(\d+)\)")


def _readable_by_sqlglot(code: int, sql: str) -> str:
    sql = sql.rstrip(";")
    if code == 5:
        sql = _NEGATIVE_SCALE.sub(r"NUMBER(\1,\2)", _SUPPLEMENTAL_CLAUSE.sub("", sql))
    return sql


_EXPECTED_NODE: dict[int, type[exp.Expression]] = {
    1: exp.Insert,
    2: exp.Delete,
    3: exp.Update,
    6: exp.Set,
    7: exp.Commit,
    36: exp.Rollback,
}


def _statements(db: SimDatabase) -> list[tuple[int, str]]:
    out, text = [], ""
    for row in db.logminer_contents(0, db.current_scn()):
        text += row.sql_redo or ""
        if not row.csf:
            out.append((row.operation_code, text))
            text = ""
    return out


def test_every_sql_redo_of_a_mixed_workload_parses_as_oracle_sql() -> None:
    mixed = dict(
        transactions=250, long_value_ratio=0.05, rollback_ratio=0.1, savepoint_rollback_ratio=0.1,
        pk_update_ratio=0.1, add_column_at=30, drop_column_at=60, unsupported_ratio=0.03, seed=17,
    )  # fmt: skip
    seen: set[int] = set()
    for tables in (5, 9):
        db = SimDatabase()
        run_workload(db, WorkloadSpec(tables=tables, **mixed))  # type: ignore[arg-type]
        for code, sql in _statements(db):
            seen.add(code)
            if code == 255:
                continue
            parsed = sqlglot.parse_one(_readable_by_sqlglot(code, sql), read="oracle")
            if code == 5:
                assert isinstance(parsed, exp.Create | exp.Alter), sql[:200]
            else:
                assert isinstance(parsed, _EXPECTED_NODE[code]), sql[:200]
    assert seen == {1, 2, 3, 5, 6, 7, 36, 255}
