"""AS OF reads, redo log catalog and ORA- errors shaped like python-oracledb's."""

from __future__ import annotations

import itertools
from decimal import Decimal

import oracledb
import pytest

from extractor.sim.database import SimDatabase
from extractor.sim.rowid import decode_rowid, encode_rowid

from .sim_tables import one_table


def _full_code(excinfo: pytest.ExceptionInfo[oracledb.DatabaseError]) -> str:
    return str(excinfo.value.args[0].full_code)


def test_rowid_matches_oracle_documented_example() -> None:
    # AAASZH = 18*64^2 + 25*64 + 7 = 75335, AAE = 4, AAAACX = 151, AAD = 3
    assert encode_rowid(75335, 4, 151, 3) == "AAASZHAAEAAAACXAAD"
    assert decode_rowid("AAASZHAAEAAAACXAAD").block_no == 151


def test_as_of_reads_see_committed_state_at_each_scn(db: SimDatabase) -> None:
    db.create_table(one_table(("A", "NUMBER(5,1)")))
    txn = db.begin()
    rowid = txn.insert("O", "T", {"ID": 1, "A": 1})
    first = txn.commit()
    txn = db.begin()
    txn.update("O", "T", rowid, {"A": 2})
    before_commit = db.current_scn()
    second = txn.commit()
    txn = db.begin()
    txn.delete("O", "T", rowid)
    third = txn.commit()
    assert db.snapshot_rows("O", "T", first - 1) == []
    assert db.snapshot_rows("O", "T", first) == [
        {"ID": Decimal(1), "A": Decimal(1), "ROWID": rowid}
    ]
    assert db.snapshot_rows("O", "T", before_commit)[0]["A"] == Decimal(1)
    assert db.snapshot_rows("O", "T", second)[0]["A"] == Decimal(2)
    assert db.snapshot_rows("O", "T", third) == []


def test_uncommitted_changes_are_invisible_to_as_of_reads(db: SimDatabase) -> None:
    db.create_table(one_table())
    db.begin().insert("O", "T", {"ID": 1})
    assert db.snapshot_rows("O", "T", db.current_scn()) == []


def test_future_scn_is_ora_08181(db: SimDatabase) -> None:
    db.create_table(one_table())
    with pytest.raises(oracledb.DatabaseError) as excinfo:
        db.snapshot_rows("O", "T", db.current_scn() + 1)
    assert _full_code(excinfo) == "ORA-08181"


def test_scn_older_than_undo_retention_is_ora_01555() -> None:
    db = SimDatabase(undo_retention_scns=5)
    db.create_table(one_table())
    old = db.current_scn()
    for key in range(6):
        db.begin().insert("O", "T", {"ID": key})
    with pytest.raises(oracledb.DatabaseError) as excinfo:
        db.snapshot_rows("O", "T", old)
    assert _full_code(excinfo) == "ORA-01555"


def test_unknown_table_is_ora_00942(db: SimDatabase) -> None:
    with pytest.raises(oracledb.DatabaseError) as excinfo:
        db.table("O", "MISSING")
    assert _full_code(excinfo) == "ORA-00942"


def test_mining_a_purged_log_is_ora_01291() -> None:
    db = SimDatabase(log_switch_every=3)
    db.create_table(one_table())
    start = db.current_scn()
    for key in range(20):
        txn = db.begin()
        txn.insert("O", "T", {"ID": key})
        txn.commit()
    db.purge_archived_logs(below_sequence=5)
    with pytest.raises(oracledb.DatabaseError) as excinfo:
        db.logminer_contents(start, db.current_scn())
    assert _full_code(excinfo) == "ORA-01291"


def test_logs_chain_without_gaps_and_only_the_newest_is_current() -> None:
    db = SimDatabase(log_switch_every=3)
    db.create_table(one_table())
    for key in range(10):
        db.begin().insert("O", "T", {"ID": key})
    archived = sorted((f for f in db.log_files() if not f.is_online), key=lambda f: f.sequence)
    assert all(a.next_change == b.first_change for a, b in itertools.pairwise(archived))
    online = [f for f in db.log_files() if f.is_online]
    assert [f.status for f in online if f.next_change is None] == ["CURRENT"]


def test_added_logs_missing_part_of_the_range_is_ora_01291() -> None:
    db = SimDatabase(log_switch_every=3)
    db.create_table(one_table())
    for key in range(10):
        db.begin().insert("O", "T", {"ID": key})
    newest = [f.name for f in db.log_files() if f.status == "CURRENT"]
    with pytest.raises(oracledb.DatabaseError) as excinfo:
        db.logminer_contents(0, db.current_scn(), log_names=newest)
    assert _full_code(excinfo) == "ORA-01291"


def test_number_over_precision_is_ora_01438(db: SimDatabase) -> None:
    db.create_table(one_table(("A", "NUMBER(3,1)")))
    with pytest.raises(oracledb.DatabaseError) as excinfo:
        db.begin().insert("O", "T", {"ID": 1, "A": Decimal("100")})
    assert _full_code(excinfo) == "ORA-01438"
