"""Statements that an undoubled apostrophe leaves with two equally good readings.

The simulator writes ``update "APP"."T" set "A" = 'x', "B" = 'y', "B" = 'z' …`` for A set to
``x', "B" = 'y`` (Oracle did not double the apostrophes). Read as text, B is set twice; the
two readings with one value for A and one for B fit equally. The row ``AS OF`` the commit SCN
(by ROWID, from the source) tells which one Oracle wrote; where the source cannot read it (a
replay bundle) or the transaction changed that row again, the statement is quarantined, never
guessed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractor.config import OracdcConfig, config_from_mapping
from extractor.dictionary import ColumnDef
from extractor.errors import AmbiguousRedoError, UnfetchableValueError
from extractor.logminer_row import OperationCode
from extractor.parse import parse_redo
from extractor.parse.change_builder import ChangeBuilder, TransactionInfo
from extractor.pipeline.extractor import open_extractor
from extractor.pipeline.sync import extract_and_land
from extractor.sim.database import SimDatabase
from extractor.source.factory import open_source
from extractor.source.replay.recorder import record_bundle
from extractor.source.replay.replay_source import ReplaySource
from tests.e2e.memory_staging import MemoryStagingWriter, extract_into_memory
from tests.parse.two_strings_table import TWO_STRINGS
from tests.pipeline.reference_replica import consolidate, truth_by_key

T = TWO_STRINGS
# A's new value makes the SET clause read as B set twice.
TRICKY = {"A": "x', \"B\" = 'y", "B": "z"}
# ... and B's, the other way round: the same SQL_REDO text.
TRICKY_OTHER_WAY = {"A": "x", "B": "y', \"B\" = 'z"}


def _database() -> SimDatabase:
    db = SimDatabase()
    db.create_table(T)
    setup = db.begin()
    setup.insert("APP", "T", {"ID": 1, "A": "a", "B": "b", "C": "c"})
    setup.insert("APP", "T", {"ID": 2, "A": "a", "B": "b", "C": "c"})
    setup.commit()
    db.undoubled_quote_ratio = 1.0
    return db


def _update(db: SimDatabase, key: int, values: dict[str, object], *, again: bool = False) -> None:
    txn = db.begin()
    txn.update("APP", "T", lambda row: row["ID"] == key, values)
    if again:
        txn.update("APP", "T", lambda row: row["ID"] == key, {"C": "later"})
    txn.commit()


def _build(db: SimDatabase, row_as_of: Any) -> Any:
    """The change builder's output for every transaction that updated T."""
    rows = db.logminer_contents(0, db.current_scn())
    commits = {r.xid: r for r in rows if r.operation_code == OperationCode.COMMIT}
    builder = ChangeBuilder(
        lambda owner, name, refresh: T if (owner, name) == ("APP", "T") else None,
        lambda owner, name: True,
        db.nls,
        row_as_of=row_as_of,
    )
    built = []
    for xid, commit in commits.items():
        updates = [r for r in rows if r.xid == xid and r.operation_code == OperationCode.UPDATE]
        if updates:
            info = TransactionInfo(xid, commit.scn, None)
            built.append(builder.build(info, updates))
    return built


@pytest.mark.parametrize("values", [TRICKY, TRICKY_OTHER_WAY])
def test_the_two_readings_are_told_apart_by_the_row_as_of_the_commit(
    values: dict[str, object],
) -> None:
    db = _database()
    _update(db, 1, values)
    (update,) = [r for r in db.logminer_contents(0, db.current_scn()) if r.operation_code == 3]
    assert update.sql_redo is not None and "\"B\" = 'y', \"B\" = 'z'" in update.sql_redo
    with pytest.raises(AmbiguousRedoError) as ambiguity:
        parse_redo(update.sql_redo, T)
    assert len(ambiguity.value.readings) == 2
    source = open_source({"kind": "sim", "database": db})
    (changes,) = _build(db, source.row_as_of)
    assert not changes.quarantined
    ((record,),) = changes.records.values()
    assert {name: record.values[name] for name in values} == values


def test_a_row_changed_again_in_the_transaction_is_quarantined() -> None:
    db = _database()
    _update(db, 1, TRICKY, again=True)
    source = open_source({"kind": "sim", "database": db})
    (changes,) = _build(db, source.row_as_of)
    (quarantined,) = changes.quarantined
    assert "ambiguous" in quarantined.reason
    assert "changes that ROWID more than once" in quarantined.reason
    ((later,),) = changes.records.values()  # the transaction's other change still lands
    assert later.values["C"] == "later"


def test_without_a_source_that_reads_as_of_the_statement_is_quarantined() -> None:
    db = _database()
    _update(db, 1, TRICKY)
    (changes,) = _build(db, None)
    (quarantined,) = changes.quarantined
    assert "cannot read the row AS OF its SCN" in quarantined.reason
    assert not changes.records


def test_the_extractor_lands_the_row_the_source_confirms(tmp_path: Path) -> None:
    """End to end (staging in memory, error policy ``fail``): the staging rows carry the
    values Oracle committed. A replay bundle of the same redo cannot read rows AS OF an SCN:
    there both statements are quarantined, the rest lands."""
    db = _database()
    bundle = tmp_path / "bundle"
    runs = [
        (_config(tmp_path / "sim", "fail"), lambda: open_source({"kind": "sim", "database": db})),
        (_config(tmp_path / "replay", "warn"), lambda: ReplaySource(bundle)),
    ]
    staging = {config.data_dir: MemoryStagingWriter(config.staging_schema) for config, _ in runs}
    for config, source in runs:  # the snapshots
        if source is runs[1][1]:
            record_bundle(db, bundle)
        with open_extractor(config, source(), None, writer=staging[config.data_dir]) as extractor:
            extract_and_land(extractor, {})
        if source is runs[0][1]:
            _update(db, 1, TRICKY)
            _update(db, 2, TRICKY_OTHER_WAY)
    record_bundle(db, bundle)
    for config, source in runs:
        with open_extractor(config, source(), None, writer=staging[config.data_dir]) as extractor:
            extract_and_land(extractor, {})

    from_sim, from_bundle = (staging[config.data_dir] for config, _ in runs)
    changed = [row for row in from_sim.staged_rows(T) if row["_op"] == "u"]
    assert sorted((row["id"], row["a"], row["b"]) for row in changed) == [
        (1, TRICKY["A"], TRICKY["B"]),
        (2, TRICKY_OTHER_WAY["A"], TRICKY_OTHER_WAY["B"]),
    ]
    assert not from_sim.quarantined_rows()
    assert not [row for row in from_bundle.staged_rows(T) if row["_op"] == "u"]
    reasons = [row["reason"] for row in from_bundle.quarantined_rows()]
    assert len(reasons) == 2
    assert all("cannot read the row AS OF its SCN" in reason for reason in reasons)


def _config(work: Path, policy: str) -> OracdcConfig:
    return config_from_mapping(
        {
            "source": {"kind": "sim"},
            "tables": ["APP.*"],
            "data_dir": "data",
            "staging_schema": "t_ambiguous",
            "error_policy": policy,
        },
        base_dir=work,
    )


def test_a_column_dropped_since_makes_the_row_unreadable_and_the_table_sent_back() -> None:
    """Mining behind a DROP COLUMN: the cached dictionary still names the column, the AS OF
    read fails with ORA-00904; the table is to be snapshotted again (the new snapshot holds
    what the statement wrote), nothing is quarantined."""
    db = _database()
    _update(db, 1, TRICKY)
    db.drop_column("APP", "T", "C")
    source = open_source({"kind": "sim", "database": db})
    (changes,) = _build(db, source.row_as_of)  # with T as it was, C included
    assert not changes.quarantined
    ((owner, table, row, why),) = changes.unreadable
    assert "ORA-00904" in why
    assert (owner, table, row.operation_code) == ("APP", "T", OperationCode.UPDATE)
    assert not changes.records


@pytest.mark.parametrize("unreadable_by", ["ddl since", "undo gone"])
def test_a_row_oracle_cannot_read_as_of_its_scn_sends_the_table_back(
    tmp_path: Path, unreadable_by: str
) -> None:
    """End to end (staging in memory, error policy ``fail``): the ambiguous statement's row
    cannot be read AS OF its commit (ORA-01466 after DDL of the table, ORA-01555 once its
    undo is gone); the table is snapshotted again and the staging rows end as the source's."""
    db = _database()
    config = _config(tmp_path, "fail")
    staging = MemoryStagingWriter(config.staging_schema)

    def cycle() -> None:
        extract_into_memory(db, config, staging)

    cycle()  # the snapshot
    _update(db, 1, TRICKY)
    if unreadable_by == "ddl since":
        db.flashback_ddl_lag_scns = 5
        db.add_column("APP", "T", ColumnDef("D", 0, "VARCHAR2", 10))
    else:
        db.undo_retention_scns = 1
        _update(db, 2, {"C": "moves the SCN on"})
        _update(db, 2, {"C": "and on"})
    cycle()  # mines the statement, sends T back
    for _ in range(3):  # the source goes on, past the DDL's ORA-01466 window
        _update(db, 2, {"C": "later"})
        _update(db, 2, {"C": "later still"})
    cycle()  # takes T again
    assert not staging.quarantined_rows()
    assert consolidate(T, staging.staged_rows(T)) == truth_by_key(
        T, db.truth("APP", "T", db.current_scn())
    )


def test_a_row_python_oracledb_cannot_fetch_is_quarantined_not_a_failed_window() -> None:
    """A BC DATE elsewhere in the row: the AS OF read cannot be fetched (UnfetchableValueError),
    every retry would fail alike; the statement is quarantined with why."""
    db = _database()
    _update(db, 1, TRICKY)

    def unfetchable(table: Any, row_id: str, scn: int) -> None:
        raise UnfetchableValueError("APP.T", ["D"], "year -4712 is out of range")

    (changes,) = _build(db, unfetchable)
    (quarantined,) = changes.quarantined
    assert "year -4712 is out of range" in quarantined.reason
    assert not changes.unreadable


@pytest.mark.parametrize("order", [("unreadable", "twice"), ("twice", "unreadable")])
def test_a_window_that_sends_a_table_back_reports_none_of_its_quarantined_changes(
    tmp_path: Path, order: tuple[str, str]
) -> None:
    """A change of T quarantined earlier in a window than the statement that sends T back is
    covered by the new snapshot as much as one after it: neither is reported, in either
    order (reported, it stopped the stream at every retry under ``fail``)."""
    db = _database()
    config = _config(tmp_path, "fail")
    staging = MemoryStagingWriter(config.staging_schema)

    def cycle() -> None:
        extract_into_memory(db, config, staging)

    cycle()
    db.undo_retention_scns = 1
    for what in order:
        if what == "twice":
            _update(db, 1, TRICKY, again=True)  # quarantined: its ROWID changed twice
        else:
            _update(db, 2, TRICKY)  # its undo will be gone: T is sent back
        _update(db, 2, {"C": "moves the SCN on"})
    _update(db, 2, {"C": "and on"})
    cycle()  # mines both, sends T back
    cycle()  # takes T again
    assert not staging.quarantined_rows()
    assert consolidate(T, staging.staged_rows(T)) == truth_by_key(
        T, db.truth("APP", "T", db.current_scn())
    )
