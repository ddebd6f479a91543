"""A hole in the redo: LogMiner writes a MISSING_SCN row (code 34, STATUS 1291) where the redo
it reads misses changes, and the transaction buffer stops with RedoGapError. A session in
CDB$ROOT keeps its PDB's rows by SRC_CON_NAME, which Oracle may leave NULL on rows no PDB
wrote ("may not always have values returned"): the container filter must not drop the hole
(docs/sources.md, "Multitenant")."""

from __future__ import annotations

from pathlib import Path

import pytest

from extractor.assemble import RedoGapError, TransactionBuffer
from extractor.logminer_row import LogMinerRow, OperationCode
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.source.oracle.oracle_source import OracleSource, open_oracle_source
from tests.sim.sim_tables import one_table

TABLE = one_table(("NAME", "VARCHAR2(20)"), name="ITEMS")
PDB = "ORCLPDB1"


def _database_with_a_hole() -> tuple[SimDatabase, int, int]:
    """(database, first SCN, the hole's SCN) with committed inserts before and after it."""
    db = SimDatabase()
    db.create_table(TABLE)
    first = db.current_scn() + 1
    for key in range(6):
        txn = db.begin()
        txn.insert("O", "ITEMS", {"ID": key, "NAME": f"row {key}"})
        txn.commit()
        if key == 2:
            hole = db.redo_hole()
    return db, first, hole


def _mined(source: OracleSource, db: SimDatabase, first: int) -> list[LogMinerRow]:
    with source.mine(first, db.written_scn(), [TABLE]) as rows:
        return list(rows)


def _holes(rows: list[LogMinerRow]) -> list[tuple[int, int, str | None]]:
    return [
        (r.scn, r.status, r.info) for r in rows if r.operation_code == OperationCode.MISSING_SCN
    ]


def test_the_hole_is_mined_and_stops_the_buffer(tmp_path: Path) -> None:
    db, first, hole = _database_with_a_hole()
    rows = _mined(OracleSource(SimConnection(db), nls=db.nls), db, first)

    assert _holes(rows) == [(hole, 1291, f"Missing SCN {hole} - {hole}")]
    buffer = TransactionBuffer(1 << 20, tmp_path)
    with pytest.raises(RedoGapError) as gap:
        for row in rows:
            buffer.add(row)
    assert gap.value.scn == hole


def test_a_root_session_mines_the_hole_though_no_pdb_wrote_it() -> None:
    db, first, hole = _database_with_a_hole()
    db.server.cdb = True
    db.server.container_name = "CDB$ROOT"
    db.server.container_data_all = True
    db.server.clone_pdb = "CLONEPDB"  # its rows stay out; the hole is the CDB's, shown once
    source = open_oracle_source(lambda: SimConnection(db), pdb=PDB, nls=db.nls)

    rows = _mined(source, db, first)

    assert _holes(rows) == [(hole, 1291, f"Missing SCN {hole} - {hole}")]
    assert len([r for r in rows if r.operation_code == OperationCode.INSERT]) == 6
