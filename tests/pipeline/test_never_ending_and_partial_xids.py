"""Transactions across mining sessions on a simulator that behaves like a production Oracle:
XID sequence FFFFFFFF on undo / ROLLBACK / COMMIT rows of transactions begun in an earlier
session, replication-marker transactions that never end, and the retention limit."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from extractor.sim.database import SimDatabase
from tests.pipeline.test_extract_to_staging import (
    ITEMS,
    TABLES,
    assert_staging_matches_truth,
    make_config,
    run_cycle,
    staged_rows,
)

pytestmark = pytest.mark.spark


def _database(**options: Any) -> SimDatabase:
    db = SimDatabase(**options)
    for table in TABLES:
        db.create_table(table)
    return db


def test_a_transaction_committed_in_a_later_session_is_landed(spark: Any, tmp_path: Path) -> None:
    """``oracdc stream`` mines window after window (one LogMiner session each); a session
    starting after these transactions began would show their COMMIT, savepoint undo and
    ROLLBACK rows with XID sequence FFFFFFFF (asserted on the simulator below). The second
    session starts at the oldest open transaction (docs/transactions.md "Transactions across
    windows"), and either way the committed transaction lands once, without the undone row."""
    config = make_config(tmp_path, "t_partial_xid")
    db = _database(partial_xid_rate=1.0)
    run_cycle(spark, config, db, lambda e: e.snapshot())
    spans = db.begin()
    spans.insert("APP", "ITEMS", {"ID": 100, "NAME": "kept"})
    spans.savepoint("s")
    spans.insert("APP", "ITEMS", {"ID": 101, "NAME": "undone in the next session"})
    discarded = db.begin()
    discarded.insert("APP", "ITEMS", {"ID": 200, "NAME": "rolled back in the next session"})

    first_window: list[int] = []

    def two_sessions(extractor: Any) -> Any:
        first_window.append(extractor.stream_once().mined_to_scn)  # both transactions open
        spans.rollback_to("s")
        spans.commit()
        discarded.rollback()
        return extractor.stream_once()  # second session, from the oldest open transaction

    result = run_cycle(spark, config, db, two_sessions)

    ends = db.logminer_contents(first_window[0] + 1, result.mined_to_scn)
    assert {r.xid[8:] for r in ends if r.operation_code in (7, 36)} == {"FFFFFFFF"}
    assert result.transactions == 1
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn)
    assert {r["id"] for r in staged_rows(spark, config, ITEMS) if r["_op"] == "c"} == {100}
    checkpoint = run_cycle(spark, config, db, lambda e: e.checkpoint)
    assert checkpoint.resume_scn == result.mined_to_scn + 1  # no orphan holds it


def test_a_replication_marker_transaction_does_not_hold_the_resume_position(
    spark: Any, tmp_path: Path
) -> None:
    config = make_config(tmp_path, "t_marker_txn")
    db = _database()
    run_cycle(spark, config, db, lambda e: e.snapshot())
    db.replication_marker()
    txn = db.begin()
    txn.insert("APP", "ITEMS", {"ID": 300})
    txn.commit()

    result = run_cycle(spark, config, db, lambda e: e.stream_once())

    checkpoint = run_cycle(spark, config, db, lambda e: e.checkpoint)
    assert checkpoint.resume_scn == result.mined_to_scn + 1
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn)


def test_the_retention_limit_discards_an_abandoned_transaction(
    spark: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = make_config(tmp_path, "t_retention", mining={"transaction_retention_scns": 50})
    db = _database()
    run_cycle(spark, config, db, lambda e: e.snapshot())
    abandoned = db.begin()
    abandoned.insert("APP", "ITEMS", {"ID": 400, "NAME": "a session that went away"})
    for key in range(10, 70):  # 60 more SCNs of committed work
        txn = db.begin()
        txn.insert("APP", "ITEMS", {"ID": key})
        txn.commit()

    with caplog.at_level(logging.WARNING, logger="extractor.assemble.transaction_buffer"):
        result = run_cycle(spark, config, db, lambda e: e.stream_once())
        stats = run_cycle(spark, config, db, lambda e: e.stats)

    checkpoint = run_cycle(spark, config, db, lambda e: e.checkpoint)
    assert checkpoint.resume_scn == result.mined_to_scn + 1
    assert stats.abandoned_transactions == 1
    assert any(abandoned.xid in r.getMessage() for r in caplog.records)
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn)


def test_without_a_retention_limit_an_abandoned_transaction_holds_the_position(
    spark: Any, tmp_path: Path
) -> None:
    config = make_config(tmp_path, "t_no_retention")
    db = _database()
    run_cycle(spark, config, db, lambda e: e.snapshot())
    abandoned = db.begin()
    abandoned.insert("APP", "ITEMS", {"ID": 400})
    first_scn = abandoned.start_scn
    for key in range(10, 70):
        txn = db.begin()
        txn.insert("APP", "ITEMS", {"ID": key})
        txn.commit()

    run_cycle(spark, config, db, lambda e: e.stream_once())

    checkpoint = run_cycle(spark, config, db, lambda e: e.checkpoint)
    assert checkpoint.resume_scn == first_scn
