"""``open_source``: the Source a configuration's ``source`` mapping names.

- ``{kind: oracle, dsn, user, password_env | password_file [, wallet_dir,
  connect_timeout_seconds, pdb]}``: python-oracledb thin mode; ``pdb`` names the pluggable
  database to mine from a connection to CDB$ROOT (docs/sources.md, "Multitenant");
- ``{kind: sim [, tables, transactions, seed, rollback_ratio, ..., pdb]}``: a simulated
  database running a seeded workload (``WorkloadSpec`` fields), read through its DB-API face
  by the Oracle code; tests may pass a ready ``database`` (a SimDatabase) instead;
- ``{kind: replay, path}``: a replay bundle directory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from extractor.errors import SourceError
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


def open_source(config: Mapping[str, Any]) -> Source:
    kind = config.get("kind")
    if kind == "oracle":
        return _oracle(config)
    if kind == "sim":
        return _sim(config)
    if kind == "replay":
        from extractor.source.replay.replay_source import ReplaySource

        if not config.get("path"):
            raise SourceError("source.path (the bundle directory) is required for kind replay")
        return ReplaySource(str(config["path"]))
    raise SourceError(f"unknown source kind {kind!r}", fix="use source.kind oracle, sim or replay")


def _oracle(config: Mapping[str, Any]) -> Source:
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

    return open_oracle_source(connection, pdb=config.get("pdb"))


def _sim(config: Mapping[str, Any]) -> Source:
    from extractor.sim.database import SimDatabase
    from extractor.sim.dbapi import SimConnection
    from extractor.sim.workload import WorkloadSpec, run_workload
    from extractor.source.oracle.oracle_source import open_oracle_source

    db = config.get("database")
    if db is None:
        spec_keys = {f.name for f in fields(WorkloadSpec)}
        unknown = sorted(set(config) - spec_keys - {"kind", "pdb"})
        if unknown:
            raise SourceError(
                f"unknown key(s) under source for kind sim: {', '.join(unknown)}",
                fix=f"use {', '.join(sorted(spec_keys))}",
            )
        db = SimDatabase()
        run_workload(db, WorkloadSpec(**{k: v for k, v in config.items() if k in spec_keys}))
    if not isinstance(db, SimDatabase):
        raise SourceError("source.database must be a SimDatabase")
    return open_oracle_source(lambda: SimConnection(db), pdb=config.get("pdb"), nls=db.nls)
