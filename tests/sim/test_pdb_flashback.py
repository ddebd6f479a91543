"""The simulator's FLASHBACK PLUGGABLE DATABASE (``SimDatabase.flashback_pdb``): the PDB's
tables go back to an SCN and a new PDB incarnation starts, while the database's incarnation,
its SCNs and its redo go on; and the PDB's incarnation as the Oracle source reads it."""

from __future__ import annotations

import pytest

from extractor.errors import SimUsageError
from extractor.incarnation import PdbIncarnation, SourceIncarnation
from extractor.logminer_row import OperationCode
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.source.oracle.oracle_source import OracleSource
from extractor.source.oracle.preflight import run_checks
from extractor.source.simulated_source import open_simulated_source
from tests.sim.sim_tables import one_table
from tests.sim.test_resetlogs import TABLE, _insert


def _keys(db: SimDatabase) -> list[object]:
    return sorted(row["ID"] for row in db.truth("O", "T", db.current_scn()))  # type: ignore[type-var]


def _multitenant(*, in_root: bool = False) -> SimDatabase:
    db = SimDatabase()
    db.server.cdb = True
    if in_root:
        db.server.container_name = "CDB$ROOT"
        db.server.container_data_all = True
    db.create_table(TABLE)
    return db


def test_a_flashback_undoes_the_pdbs_changes_and_keeps_the_databases_incarnation() -> None:
    db = _multitenant()
    flashed_to = _insert(db, 1)
    second = _insert(db, 2)
    database = (db.dbid, db.resetlogs_change, db.resetlogs_time)
    assert db.flashback_pdb(flashed_to) == 1
    assert _keys(db) == [1]
    assert (db.pdb_incarnation, db.pdb_incarnation_scn) == (1, flashed_to)
    assert (db.dbid, db.resetlogs_change, db.resetlogs_time) == database
    assert db.current_scn() > second  # the CDB's SCNs go on
    undone = [r for r in db.logminer_contents(flashed_to + 1, second) if r.operation_code
              == OperationCode.INSERT]  # fmt: skip
    assert len(undone) == 1  # the redo keeps the undone insert, mined as committed
    assert _insert(db, 3) > db.pdb_incarnation_scn
    assert _keys(db) == [1, 3]
    assert db.flashback_pdb(flashed_to) == 2  # back to one SCN twice: two incarnations


def test_what_the_simulator_cannot_flash_back_is_refused() -> None:
    plain = SimDatabase()
    plain.create_table(TABLE)
    with pytest.raises(SimUsageError, match="multitenant"):
        plain.flashback_pdb(_insert(plain, 1))
    db = _multitenant()
    scn = _insert(db, 1)
    open_now = db.begin()
    open_now.insert("O", "T", {"ID": 2, "NAME": "open"})
    with pytest.raises(SimUsageError, match="open"):
        db.flashback_pdb(scn)
    open_now.rollback()
    db.create_table(one_table(("NOTE", "VARCHAR2(5)"), name="LATER"))
    with pytest.raises(SimUsageError, match="DDL"):
        db.flashback_pdb(scn)


@pytest.mark.parametrize("in_root", [False, True], ids=["pdb session", "root session"])
def test_the_source_reads_the_pdbs_incarnation_in_the_pdb(in_root: bool) -> None:
    db = _multitenant(in_root=in_root)
    source = open_simulated_source(db, pdb=db.server.pdb_name if in_root else None)
    database = SourceIncarnation(db.dbid, db.resetlogs_change, db.resetlogs_time)
    assert source.incarnation() == SourceIncarnation(
        db.dbid, db.resetlogs_change, db.resetlogs_time, PdbIncarnation(db.pdb_dbid, 0, 1, 1)
    )
    flashed_to = _insert(db, 1)
    db.flashback_pdb(flashed_to)
    now = source.incarnation()
    assert now.database_part() == database
    assert now.pdb == PdbIncarnation(db.pdb_dbid, 1, flashed_to, db.current_scn())


def test_a_database_without_pdbs_has_no_pdb_incarnation() -> None:
    db = SimDatabase()
    source = OracleSource(SimConnection(db), nls=db.nls, sleep=lambda _: None)
    assert source.incarnation().pdb is None
    assert "PDB_INCARNATION" not in " ".join(SimConnection(db).statements)


def test_without_the_grant_the_source_warns_once_and_the_check_names_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    db = _multitenant()
    db.server.revoked.add("V$PDB_INCARNATION")
    source = open_simulated_source(db)
    with caplog.at_level("WARNING"):
        assert source.incarnation().pdb is None
        assert source.incarnation().pdb is None
    warnings = [r.getMessage() for r in caplog.records if "V$PDB_INCARNATION" in r.getMessage()]
    assert len(warnings) == 1 and "ORA-00942" in warnings[0]
    assert "GRANT SELECT ON V_$PDB_INCARNATION" in warnings[0]
    outcomes = {o.name: o for o in run_checks(SimConnection(db), "C##CDC", [], db.current_scn())}
    check = outcomes["grant V$PDB_INCARNATION"]
    assert check.status == "failed"
    assert (check.fix or "").startswith("GRANT SELECT ON V_$PDB_INCARNATION TO C##CDC;")
    plain = SimDatabase()
    plain.server.revoked.add("V$PDB_INCARNATION")
    names = {o.name for o in run_checks(SimConnection(plain), "C##CDC", [], plain.current_scn())}
    assert "grant V$PDB_INCARNATION" not in names  # read only when the tables are in a PDB
