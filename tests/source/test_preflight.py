"""Pre-flight checks (``oracdc check``, start of ``oracdc sync``) against the simulator: each
database setting and grant the extractor needs is switched off in turn and must fail its
check with the statement that fixes it, the others staying ok."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from extractor.cli import sync as sync_cli
from extractor.cli.main import main
from extractor.config import config_from_mapping
from extractor.errors import PreflightError
from extractor.pipeline.preflight import require_ready, source_checks
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.source.oracle.oracle_source import OracleSource
from extractor.source.oracle.preflight import CheckOutcome, run_checks, table_logging
from tests.sim.sim_tables import one_table

ALL_LOGGED = one_table(("NAME", "VARCHAR2(20)"), name="ALL_LOGGED")
PK_LOGGED = one_table(("NAME", "VARCHAR2(20)"), name="PK_LOGGED", logging="PRIMARY KEY")


def _database() -> SimDatabase:
    db = SimDatabase()
    db.create_table(ALL_LOGGED)
    db.create_table(PK_LOGGED)
    return db


def _checks(db: SimDatabase, tables: tuple[Any, ...] = (ALL_LOGGED,)) -> dict[str, CheckOutcome]:
    outcomes = run_checks(SimConnection(db), "C##CDC", list(tables), db.current_scn())
    return {o.name: o for o in outcomes}


def _not_ok(outcomes: dict[str, CheckOutcome]) -> dict[str, str]:
    return {name: o.status for name, o in outcomes.items() if o.status != "ok"}


def test_a_database_ready_for_capture_passes_every_check() -> None:
    outcomes = _checks(_database())
    assert _not_ok(outcomes) == {}
    assert {
        "version",
        "archive log mode",
        "minimal supplemental logging",
        "container",
        "grant V$LOG",
        "grant V$LOGMNR_CONTENTS",
        "privilege LOGMINING",
        "grant DBMS_LOGMNR",
        "snapshot read O.ALL_LOGGED",
        "logging O.ALL_LOGGED",
    } <= set(outcomes)
    assert outcomes["version"].found == "Oracle 19.3.0.0.0"


def test_noarchivelog_fails_with_the_statements_that_enable_it() -> None:
    db = _database()
    db.server.log_mode = "NOARCHIVELOG"
    outcomes = _checks(db)
    assert _not_ok(outcomes) == {"archive log mode": "failed"}
    assert "ALTER DATABASE ARCHIVELOG" in (outcomes["archive log mode"].fix or "")


def test_missing_minimal_supplemental_logging_fails() -> None:
    db = _database()
    db.server.supplemental_log_data_min = "NO"
    outcomes = _checks(db)
    assert _not_ok(outcomes) == {"minimal supplemental logging": "failed"}
    assert (
        outcomes["minimal supplemental logging"].fix == "ALTER DATABASE ADD SUPPLEMENTAL LOG DATA;"
    )


def test_implicit_minimal_logging_is_enough() -> None:
    db = _database()
    db.server.supplemental_log_data_min = "IMPLICIT"
    assert _not_ok(_checks(db)) == {}


def test_a_release_before_12_1_fails() -> None:
    db = _database()
    db.server.version = "11.2.0.4.0"
    assert _not_ok(_checks(db)) == {"version": "failed"}


def test_the_container_check_follows_where_logminer_can_run() -> None:
    db = _database()
    db.server.cdb = True
    db.server.container_name = db.server.pdb_name = "SALESPDB"
    assert _checks(db)["container"].status == "ok"  # 19c: per-PDB mining
    assert "per-PDB" in _checks(db)["container"].found
    db.server.version = "18.3.0.0.0"
    before_19c = _checks(db)["container"]
    assert before_19c.status == "failed" and "SALESPDB" in before_19c.found
    assert "ORA-65040" in before_19c.found and "source.pdb: SALESPDB" in str(before_19c.fix)
    db.server.container_name = "CDB$ROOT"
    root = _checks(db)["container"]
    assert root.status == "failed" and "source.pdb" in str(root.fix)
    outcomes = run_checks(SimConnection(db), "C##CDC", [], db.current_scn(), pdb="SALESPDB")
    assert next(o for o in outcomes if o.name == "container").status == "ok"


def test_a_root_session_probes_snapshot_reads_in_the_pdb() -> None:
    db = _database()
    db.server.cdb = True
    db.server.container_name = "CDB$ROOT"
    db.server.container_data_all = True
    root = SimConnection(db)
    catalog = SimConnection(db)
    catalog.cursor().execute("ALTER SESSION SET CONTAINER = ORCLPDB1")
    in_root = run_checks(root, "C##CDC", [ALL_LOGGED], db.current_scn(), pdb="ORCLPDB1")
    read = next(o for o in in_root if o.name == "snapshot read O.ALL_LOGGED")
    assert read.status == "failed"  # the table is not in the root (ORA-00942)
    outcomes = run_checks(
        root, "C##CDC", [ALL_LOGGED], db.current_scn(), catalog_connection=catalog,
        pdb="ORCLPDB1",
    )  # fmt: skip
    assert _not_ok({o.name: o for o in outcomes}) == {}


@pytest.mark.parametrize(
    ("revoked", "check", "grant"),
    [
        ("V$LOG", "grant V$LOG", "GRANT SELECT ON V_$LOG TO C##CDC;"),
        ("V$ARCHIVED_LOG", "grant V$ARCHIVED_LOG", "GRANT SELECT ON V_$ARCHIVED_LOG TO C##CDC;"),
        ("GV$TRANSACTION", "grant GV$TRANSACTION", "GRANT SELECT ON GV_$TRANSACTION TO C##CDC;"),
        ("V$THREAD", "grant V$THREAD", "GRANT SELECT ON V_$THREAD TO C##CDC;"),
        (
            "V$LOGMNR_CONTENTS",
            "grant V$LOGMNR_CONTENTS",
            "GRANT SELECT ON V_$LOGMNR_CONTENTS TO C##CDC;",
        ),
        ("LOGMINING", "privilege LOGMINING", "GRANT LOGMINING TO C##CDC;"),
        ("DBMS_LOGMNR", "grant DBMS_LOGMNR", "GRANT EXECUTE ON DBMS_LOGMNR TO C##CDC;"),
    ],
)
def test_each_missing_grant_fails_alone_with_its_grant(
    revoked: str, check: str, grant: str
) -> None:
    db = _database()
    db.server.revoked.add(revoked)
    outcomes = _checks(db)
    assert _not_ok(outcomes) == {check: "failed"}
    assert (outcomes[check].fix or "").startswith(grant)


def test_a_missing_flashback_grant_names_the_table() -> None:
    db = _database()
    db.server.revoked.add("FLASHBACK O.PK_LOGGED")
    outcomes = _checks(db, (ALL_LOGGED, PK_LOGGED))
    failed = {n: o for n, o in outcomes.items() if o.status == "failed"}
    assert list(failed) == ["snapshot read O.PK_LOGGED"]
    assert "ORA-01031" in failed["snapshot read O.PK_LOGGED"].found
    assert '"O"."PK_LOGGED"' in (failed["snapshot read O.PK_LOGGED"].fix or "")


def test_table_logging_below_all_warns_with_the_consequence_for_keys() -> None:
    assert table_logging(ALL_LOGGED).status == "ok"
    warned = table_logging(PK_LOGGED)
    assert warned.status == "warning"
    assert "keyed by ROWID" in warned.found
    assert warned.fix == 'ALTER TABLE "O"."PK_LOGGED" ADD SUPPLEMENTAL LOG DATA (ALL) COLUMNS;'


def test_the_v_logmnr_contents_probe_is_ok_only_through_ora_01306() -> None:
    db = _database()
    connection = SimConnection(db)
    connection.logminer_range = (1, 2)  # a session is open: the view answers normally
    outcomes = run_checks(connection, "U", [], db.current_scn())
    assert next(o for o in outcomes if o.name == "grant V$LOGMNR_CONTENTS").found == "readable"


def _config(tmp_path: Path) -> Any:
    return config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["O.*"], "data_dir": "data"}, base_dir=tmp_path
    )


def test_require_ready_names_the_first_failure_and_counts_the_rest(tmp_path: Path) -> None:
    db = _database()
    db.server.log_mode = "NOARCHIVELOG"
    db.server.revoked.add("LOGMINING")
    source = OracleSource(SimConnection(db), nls=db.nls)
    with pytest.raises(PreflightError) as raised:
        require_ready(_config(tmp_path), source)
    line = raised.value.one_line()
    assert "archive log mode failed" in line and "(and 1 more)" in line
    assert "oracdc check" in line


def test_a_replay_bundle_has_no_database_checks(tmp_path: Path) -> None:
    class Bundle:
        pass

    assert source_checks(_config(tmp_path), Bundle()) is None  # type: ignore[arg-type]


def _write_config(tmp_path: Path) -> Path:
    (tmp_path / "dbt_project.yml").write_text("name: checks\n", encoding="utf-8")  # for sync
    path = tmp_path / "oracdc.yml"
    path.write_text("source: {kind: sim}\ntables: [O.*]\ndata_dir: data\n", encoding="utf-8")
    return path


def test_oracdc_check_prints_a_line_per_check_and_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _database()
    db.server.revoked.add("V$ARCHIVED_LOG")
    monkeypatch.setattr(
        "extractor.cli.check.open_configured_source",
        lambda config: OracleSource(SimConnection(db), nls=db.nls),
    )
    assert main(["check", "--config", str(_write_config(tmp_path))]) == 1
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith("check: FAILED") and "grant V$ARCHIVED_LOG" in line for line in out)
    assert any("fix: GRANT SELECT ON V_$ARCHIVED_LOG TO <capture user>;" in line for line in out)
    assert any(line.startswith("check: WARNING") and "logging O.PK_LOGGED" in line for line in out)
    assert out[-1].endswith("1 failed")
    db.server.revoked.clear()
    assert main(["check", "--config", str(_write_config(tmp_path))]) == 0


def test_sync_stops_before_its_first_cycle_when_a_check_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _database()
    db.server.supplemental_log_data_min = "NO"
    cycles: list[object] = []

    @contextmanager
    def runtime(config: Any) -> Iterator[Any]:
        class Runtime:
            source = OracleSource(SimConnection(db), nls=db.nls)

        yield Runtime()

    monkeypatch.setattr(sync_cli, "open_runtime", runtime)
    monkeypatch.setattr(sync_cli, "run_cycle", lambda rt, dbt: cycles.append(rt))
    assert main(["sync", "--once", "--config", str(_write_config(tmp_path))]) == 1
    assert cycles == []
    err = capsys.readouterr().err
    assert "pre-flight check minimal supplemental logging failed" in err
    assert "ALTER DATABASE ADD SUPPLEMENTAL LOG DATA;" in err


def test_a_root_session_without_container_data_fails_with_the_alter_user() -> None:
    db = _database()
    db.server.cdb = True
    db.server.container_name = "CDB$ROOT"
    outcomes = {
        o.name: o
        for o in run_checks(SimConnection(db), "C##CDC", [], db.current_scn(), pdb="ORCLPDB1")
    }
    check = outcomes["container data ORCLPDB1"]
    assert check.status == "failed"
    assert check.fix is not None and "SET CONTAINER_DATA=ALL" in check.fix
    db.server.container_data_all = True
    outcomes = {
        o.name: o
        for o in run_checks(SimConnection(db), "C##CDC", [], db.current_scn(), pdb="ORCLPDB1")
    }
    assert outcomes["container data ORCLPDB1"].status == "ok"


def test_per_pdb_mining_needs_no_log_catalog_grant() -> None:
    db = _database()
    db.server.cdb = True
    db.server.revoked.update({"V$LOG", "V$LOGFILE", "V$ARCHIVED_LOG", "V$ARCHIVE_DEST_STATUS"})
    outcomes = _checks(db)  # a session in the PDB, 19c: START_LOGMNR picks the logs
    assert _not_ok(outcomes) == {}
    assert "grant V$LOG" not in outcomes and "grant V$THREAD" in outcomes


def test_without_force_logging_nologging_segments_of_replicated_tables_warn() -> None:
    """A direct-path load into a NOLOGGING segment writes no row redo: LogMiner never sees
    those rows. FORCE LOGGING overrides the attribute; without it each such table warns."""
    db = _database()
    db.server.nologging["O.ALL_LOGGED"] = ("TABLE", "LOB DOC")
    db.server.nologging["O.PK_LOGGED"] = ("PARTITION P1",)
    ready = _checks(db, (ALL_LOGGED, PK_LOGGED))
    assert ready["force logging"].status == "ok"  # FORCE LOGGING: the attributes do not matter
    assert not any(name.startswith("redo logging") for name in ready)
    db.server.force_logging = "NO"
    outcomes = _checks(db, (ALL_LOGGED, PK_LOGGED))
    table = outcomes["redo logging O.ALL_LOGGED"]
    assert table.status == "warning"
    assert "NOLOGGING TABLE, LOB DOC" in table.found and "direct-path" in table.found
    assert table.fix is not None and 'ALTER TABLE "O"."ALL_LOGGED" LOGGING' in table.fix
    assert "PARTITION P1" in outcomes["redo logging O.PK_LOGGED"].found
    database = outcomes["force logging"]
    assert (database.status, database.fix) == ("warning", "ALTER DATABASE FORCE LOGGING;")
    assert (
        database.found
        == "NO: 2 of 2 replicated tables have NOLOGGING segments, 0 could not be read"
    )
    # 18c+: loads under a STANDBY NOLOGGING mode skip the primary's redo too
    db.server.force_logging = "STANDBY NOLOGGING FOR LOAD PERFORMANCE"
    standby = _checks(db, (ALL_LOGGED, PK_LOGGED))
    assert standby["redo logging O.ALL_LOGGED"].status == "warning"
    db.server.force_logging = "NO"
    db.server.nologging.clear()
    logged = _checks(db, (ALL_LOGGED, PK_LOGGED))
    assert logged["force logging"].status == "ok" and "LOGGING now" in logged["force logging"].found
    assert not any(name.startswith("redo logging") for name in logged)


def test_nologging_segments_are_read_where_the_tables_are() -> None:
    """A root session reads the segments in the PDB (the catalog connection), as the snapshot
    probes are read."""
    db = _database()
    db.server.cdb = True
    db.server.container_name = "CDB$ROOT"
    db.server.container_data_all = True
    db.server.force_logging = "NO"
    db.server.nologging["O.ALL_LOGGED"] = ("TABLE",)
    root = SimConnection(db)
    catalog = SimConnection(db)
    catalog.cursor().execute("ALTER SESSION SET CONTAINER = ORCLPDB1")
    outcomes = run_checks(
        root, "C##CDC", [ALL_LOGGED], db.current_scn(), catalog_connection=catalog,
        pdb="ORCLPDB1",
    )  # fmt: skip
    assert {o.name: o.status for o in outcomes}["redo logging O.ALL_LOGGED"] == "warning"
    in_root = run_checks(root, "C##CDC", [ALL_LOGGED], db.current_scn(), pdb="ORCLPDB1")
    assert "redo logging O.ALL_LOGGED" not in {o.name for o in in_root}  # not seen there


def test_an_unreadable_force_logging_warns_and_does_not_stop_sync() -> None:
    db = _database()
    db.server.revoked.add("V$DATABASE")
    outcome = _checks(db)["force logging"]
    assert outcome.status == "warning"  # the database settings check fails on its own
    assert outcome.fix == "GRANT SELECT ON V_$DATABASE TO C##CDC;"
