"""Redo still in the log buffer (or, on RAC, not yet written by another instance) is absent
for LogMiner: a window mined up to V$DATABASE.CURRENT_SCN would read those SCNs as empty and
the next window would start above them. Windows end at the minable SCN (what every open
redo thread has written, V$THREAD.LAST_REDO_CHANGE#)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.source.oracle.oracle_source import OracleSource
from tests.pipeline.test_extract_to_staging import (
    TABLES,
    assert_staging_matches_truth,
    make_config,
    run_cycle,
)

LAG = 8


def _commit_items(db: SimDatabase, keys: range) -> None:
    for key in keys:
        txn = db.begin()
        txn.insert("APP", "ITEMS", {"ID": key, "NAME": f"item {key}"})
        txn.commit()


def test_the_simulator_hides_unwritten_redo_until_a_log_switch() -> None:
    db = SimDatabase(redo_write_lag_scns=LAG)
    for table in TABLES:
        db.create_table(table)
    _commit_items(db, range(1, 11))
    current = db.current_scn()
    assert db.written_scn() == current - LAG
    assert max(r.scn for r in db.logminer_contents(0, current)) <= current - LAG
    db.switch_log()
    assert db.written_scn() == db.current_scn()
    assert max(r.scn for r in db.logminer_contents(0, db.current_scn())) == current


def test_the_source_names_the_minable_scn_from_v_thread() -> None:
    db = SimDatabase(redo_write_lag_scns=LAG)
    for table in TABLES:
        db.create_table(table)
    _commit_items(db, range(1, 4))
    source = OracleSource(SimConnection(db), nls=db.nls)
    assert source.minable_scn() == db.current_scn() - LAG
    assert source.current_scn() == db.current_scn()


@pytest.mark.spark
def test_changes_not_yet_written_to_the_redo_log_are_mined_by_a_later_cycle(
    spark: Any, tmp_path: Path
) -> None:
    config = make_config(tmp_path, "t_unwritten_redo")
    db = SimDatabase(redo_write_lag_scns=LAG)
    for table in TABLES:
        db.create_table(table)
    run_cycle(spark, config, db, lambda e: e.snapshot())
    _commit_items(db, range(1, 21))
    run_cycle(spark, config, db, lambda e: e.stream_once())  # the last commits: unwritten
    _commit_items(db, range(21, 31))
    db.switch_log()  # everything is written now
    run_cycle(spark, config, db, lambda e: e.stream_once())

    assert_staging_matches_truth(spark, config, db, db.current_scn())
