"""Multitenant databases (docs/sources.md, "Multitenant"): a session in a pluggable database
mines it on its own (19c+, no ADD_LOGFILE: ORA-65040 there), a session in CDB$ROOT mines the
added logs, keeps the configured PDB's rows by SRC_CON_NAME and reads the dictionary, open
transactions and snapshots through a second connection switched into the PDB. The
simulator's CDB holds a clone PDB (same tables and object numbers) whose rows a root session
must leave out, and shows a root session the PDB's rows only with CONTAINER_DATA."""

from __future__ import annotations

from pathlib import Path

import pytest

from extractor.config import config_from_mapping
from extractor.errors import ConfigError, MissingRedoLogError, SourceError
from extractor.logminer_row import LogMinerRow
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.sim.workload import WorkloadSpec, run_workload
from extractor.source.factory import open_source
from extractor.source.oracle import queries
from extractor.source.oracle.container import Container, MiningScope, mining_scope
from extractor.source.oracle.oracle_source import OracleSource, open_oracle_source

FIRST_SCN = 1_000_000
PDB = "ORCLPDB1"


def _database(*, cdb: bool = True, container: str = PDB) -> SimDatabase:
    db = SimDatabase(first_scn=FIRST_SCN, log_switch_every=150)
    run_workload(db, WorkloadSpec(transactions=120, seed=5, tables=3))
    db.server.cdb = cdb
    db.server.container_name = container
    db.server.container_data_all = True  # ALTER USER … SET CONTAINER_DATA=ALL
    return db


def _mined(source: OracleSource, db: SimDatabase) -> list[LogMinerRow]:
    tables = [source.table(t.owner, t.name) for t in db.tables()]
    with source.mine(FIRST_SCN, db.written_scn(), tables) as rows:
        return list(rows)


def _non_cdb_rows(db: SimDatabase) -> list[LogMinerRow]:
    """The rows a session of the same database without containers mines."""
    cdb = db.server.cdb
    db.server.cdb = False
    try:
        return _mined(OracleSource(SimConnection(db), nls=db.nls), db)
    finally:
        db.server.cdb = cdb


def _open(db: SimDatabase, pdb: str | None = None) -> OracleSource:
    return open_oracle_source(lambda: SimConnection(db), pdb=pdb, nls=db.nls)


# -- a session in the PDB ---------------------------------------------------------------------


def test_adding_logs_inside_a_pdb_fails_with_ora_65040() -> None:
    db = _database()
    classic = OracleSource(SimConnection(db), nls=db.nls)  # adds logs as on a non-CDB
    with pytest.raises(SourceError, match="ORA-65040"):
        _mined(classic, db)


def test_a_pdb_session_mines_without_adding_logs_what_a_non_cdb_session_mines() -> None:
    db = _database()
    source = _open(db)
    assert source.scope == MiningScope(add_logs=False)
    rows = _mined(source, db)
    assert rows == _non_cdb_rows(db) and len(rows) > 500
    statements = source.connection.statements
    assert queries.ADD_LOGFILE not in statements and queries.START_LOGMNR in statements
    assert source.last_window_logs() == ()


def test_per_pdb_mining_reports_purged_redo_as_missing() -> None:
    db = _database()
    db.switch_log()
    db.purge_archived_logs(below_sequence=3)
    source = open_oracle_source(lambda: SimConnection(db), nls=db.nls, retry_attempts=0)
    with pytest.raises(MissingRedoLogError):
        _mined(source, db)


def test_a_pdb_session_before_19c_is_refused_with_the_root_as_fix() -> None:
    db = _database()
    db.server.version = "18.3.0.0.0"
    with pytest.raises(SourceError, match="before 19c") as raised:
        _open(db)
    assert raised.value.fix is not None and f"source.pdb: {PDB}" in raised.value.fix


# -- a session in CDB$ROOT --------------------------------------------------------------------


def test_the_root_holds_no_table_of_the_pdb() -> None:
    db = _database(container="CDB$ROOT")
    in_root = OracleSource(SimConnection(db), nls=db.nls)
    assert in_root.list_tables([("*", "*")]) == []
    source = _open(db, pdb=PDB.lower())
    assert [t.qualified_name for t in source.list_tables([("*", "*")])] == sorted(
        t.qualified_name for t in db.tables()
    )
    assert source.catalog_connection is not source.connection
    assert source.catalog_connection.container == PDB
    assert source.connection.container == "CDB$ROOT"


def test_a_root_session_mines_the_rows_of_its_pdb_only() -> None:
    db = _database(container="CDB$ROOT")
    db.server.clone_pdb = "CLONEPDB"
    source = _open(db, pdb=PDB)
    assert source.scope == MiningScope(add_logs=True, pdb=PDB)
    assert _mined(source, db) == _non_cdb_rows(db)
    assert queries.ADD_LOGFILE in source.connection.statements


def test_without_the_container_filter_a_root_session_mines_the_clones_rows_too() -> None:
    db = _database(container="CDB$ROOT")
    db.server.clone_pdb = "CLONEPDB"
    catalog = SimConnection(db)
    catalog.switched_to = PDB
    unfiltered = OracleSource(SimConnection(db), catalog_connection=catalog, nls=db.nls)
    ours = _non_cdb_rows(db)
    rows = _mined(unfiltered, db)
    clone_rows = [r for r in rows if int(r.xid[:2], 16) >= 0x80]
    assert len(rows) > len(ours) and clone_rows
    assert {r.data_obj for r in clone_rows if r.data_obj} <= {r.data_obj for r in ours}


def test_without_container_data_a_root_session_mines_nothing_of_the_pdb() -> None:
    db = _database(container="CDB$ROOT")
    db.server.container_data_all = False  # a common user's default: the root's rows only
    assert _mined(_open(db, pdb=PDB), db) == []  # what `oracdc check` refuses (preflight)


def test_the_handover_reads_the_pdbs_open_transactions_in_the_pdb() -> None:
    db = _database(container="CDB$ROOT")
    db.server.container_data_all = False  # GV$TRANSACTION in the root would show none
    open_before = db.begin()
    open_before.insert("SIM", "CUSTOMERS", {"ID": 10_000, "NAME": "open at the snapshot"})
    db.switch_log()
    source = _open(db, pdb=PDB)
    point = source.snapshot_point(source.list_tables([("*", "*")]))
    assert open_before.start_scn is not None
    assert point.mining_start_scn <= open_before.start_scn < point.scn


def test_an_unknown_pdb_is_refused_with_the_fix() -> None:
    db = _database(container="CDB$ROOT")
    opened: list[SimConnection] = []

    def connect() -> SimConnection:
        opened.append(SimConnection(db))
        return opened[-1]

    with pytest.raises(SourceError, match="ORA-65011") as raised:
        open_oracle_source(connect, pdb="NOSUCHPDB", nls=db.nls)
    assert "V$PDBS" in str(raised.value.fix)
    assert len(opened) == 2 and all(c.closed for c in opened)


def test_the_sim_source_takes_source_pdb() -> None:
    db = _database(container="CDB$ROOT")
    source = open_source({"kind": "sim", "database": db, "pdb": PDB})
    assert isinstance(source, OracleSource) and source.scope.pdb == PDB


# -- the decision and the configuration -------------------------------------------------------


@pytest.mark.parametrize(
    ("container", "version", "pdb", "message"),
    [
        (Container(False, "ORCL"), "19.3.0.0.0", "P1", "not a multitenant"),
        (Container(True, "CDB$ROOT"), "19.3.0.0.0", None, "without source.pdb"),
        (Container(True, "P1"), "19.3.0.0.0", "P2", "but source.pdb is P2"),
        (Container(True, "P1"), "12.2.0.1.0", None, "before 19c"),
        (Container(True, "P1"), None, None, "before 19c"),
    ],
)
def test_where_capture_cannot_run_it_says_why(
    container: Container, version: str | None, pdb: str | None, message: str
) -> None:
    with pytest.raises(SourceError, match=message) as raised:
        mining_scope(container, version, pdb)
    assert raised.value.fix


def test_the_scopes_where_capture_runs() -> None:
    assert mining_scope(Container(False, "ORCL"), "12.1.0.2.0", None) == MiningScope()
    assert mining_scope(Container(True, "P1"), "21.3.0.0.0", "p1") == MiningScope(add_logs=False)
    root = mining_scope(Container(True, "CDB$ROOT"), "12.2.0.1.0", "p1")
    assert root == MiningScope(add_logs=True, pdb="P1")


def test_the_container_filter_is_in_the_query_of_a_root_session_only() -> None:
    plain, plain_binds = queries.logminer_contents_query(["O"], [("O", "T")], [7])
    assert "SRC_CON_NAME" not in plain and "pdb" not in plain_binds
    filtered, binds = queries.logminer_contents_query(["O"], [("O", "T")], [7], "P1")
    assert filtered == plain + queries.LOGMNR_CONTAINER_FILTER and binds["pdb"] == "P1"


def test_source_pdb_is_a_plain_name(tmp_path: Path) -> None:
    def load(source: dict[str, object]) -> object:
        return config_from_mapping(
            {"source": source, "tables": ["O.*"], "data_dir": "d"}, base_dir=tmp_path
        )

    config = load({"kind": "sim", "pdb": "salespdb"})
    assert config.source["pdb"] == "SALESPDB"  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="not a valid Oracle identifier"):
        load({"kind": "sim", "pdb": "SALES; DROP"})
    with pytest.raises(ConfigError, match=r"source\.pdb"):
        load({"kind": "replay", "path": "b", "pdb": "P1"})
