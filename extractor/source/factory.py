"""``open_source``: the Source a configuration's ``source`` mapping names.

- ``{kind: oracle, dsn, user, password_env | password_file [, wallet_dir,
  connect_timeout_seconds, pdb]}``: python-oracledb thin mode; ``pdb`` names the pluggable
  database to mine from a connection to CDB$ROOT (docs/sources.md, "Multitenant");
- ``{kind: sim [, tables, transactions, seed, rollback_ratio, ..., transactions_per_cycle,
  pdb]}``: a simulated database running a seeded workload (``WorkloadSpec`` fields), read
  through its DB-API face by the Oracle code. With ``data_dir`` the database is saved there
  and every later command opens the same one (``extractor.sim.saved_simulation``), its
  workload running ``transactions_per_cycle`` more transactions before each sync cycle;
  without, it lives as long as the process. Tests may pass a ready ``database`` (a
  SimDatabase) instead;
- ``{kind: replay, path}``: a replay bundle directory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from extractor.errors import SourceError
from extractor.nls import NlsSettings
from extractor.source.base import Source

_CONNECTION_KEYS = {
    "kind",
    "dsn",
    "user",
    "password_env",
    "password_file",
    "wallet_dir",
    "connect_timeout_seconds",
    "pdb",
}


def open_source(
    config: Mapping[str, Any], *, data_dir: Path | None = None, nls: NlsSettings | None = None
) -> Source:
    """The source ``config`` names; ``data_dir`` keeps a simulated database between runs;
    ``nls``: the formats an Oracle session renders SQL_REDO with (default ``NlsSettings()``;
    a simulated database and a replay bundle have their own)."""
    kind = config.get("kind")
    if kind == "oracle":
        return _oracle(config, nls)
    if kind == "sim":
        return _sim(config, data_dir)
    if kind == "replay":
        from extractor.source.replay.replay_source import ReplaySource

        if not config.get("path"):
            raise SourceError("source.path (the bundle directory) is required for kind replay")
        return ReplaySource(str(config["path"]))
    raise SourceError(f"unknown source kind {kind!r}", fix="use source.kind oracle, sim or replay")


def _oracle(config: Mapping[str, Any], nls: NlsSettings | None) -> Source:
    from extractor.source.oracle.connect import (
        DEFAULT_CONNECT_TIMEOUT_SECONDS,
        connect,
        read_password,
    )
    from extractor.source.oracle.oracle_source import open_oracle_source

    unknown = sorted(set(config) - _CONNECTION_KEYS)
    if unknown:
        raise SourceError(f"unknown key(s) under source: {', '.join(unknown)}")
    timeout = config.get("connect_timeout_seconds", DEFAULT_CONNECT_TIMEOUT_SECONDS)
    password = read_password(config)

    def connection() -> Any:
        return connect(
            str(config["dsn"]),
            str(config["user"]),
            password,
            wallet_dir=config.get("wallet_dir"),
            timeout_seconds=float(timeout),
        )

    return open_oracle_source(connection, pdb=config.get("pdb"), nls=nls)


SIM_DIRECTORY = "sim"  # under data_dir: the saved simulated database


def _sim(config: Mapping[str, Any], data_dir: Path | None) -> Source:
    from extractor.sim.database import SimDatabase
    from extractor.sim.saved_simulation import SavedSimulation
    from extractor.sim.workload import WorkloadSpec, run_workload
    from extractor.source.simulated_source import open_simulated_source

    db = config.get("database")
    pdb = config.get("pdb")
    if db is not None:
        if not isinstance(db, SimDatabase):
            raise SourceError("source.database must be a SimDatabase")
        return open_simulated_source(db, pdb=pdb)
    spec_keys = {f.name for f in fields(WorkloadSpec)}
    unknown = sorted(set(config) - spec_keys - {"kind", "pdb", "transactions_per_cycle"})
    if unknown:
        raise SourceError(
            f"unknown key(s) under source for kind sim: {', '.join(unknown)}",
            fix=f"use {', '.join(sorted(spec_keys | {'transactions_per_cycle', 'pdb'}))}",
        )
    spec = WorkloadSpec(**{k: v for k, v in config.items() if k in spec_keys})
    per_cycle = config.get("transactions_per_cycle", 0)
    if isinstance(per_cycle, bool) or not isinstance(per_cycle, int):
        raise SourceError(
            f"source.transactions_per_cycle must be a whole number, not {per_cycle!r}",
            fix="use 0 (the database does not change between cycles) or a positive number",
        )
    if data_dir is None:
        if per_cycle:
            raise SourceError(
                "source.transactions_per_cycle needs a data directory to keep the database in"
            )
        db = SimDatabase()
        run_workload(db, spec)
        return open_simulated_source(db, pdb=pdb)
    simulation = SavedSimulation.open(data_dir / SIM_DIRECTORY, spec, per_cycle)
    try:
        return open_simulated_source(simulation.database, pdb=pdb, simulation=simulation)
    except BaseException:
        simulation.close()
        raise
