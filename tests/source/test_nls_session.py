"""The ``nls:`` setting reaches the Oracle sessions: the extracting process's and the mining
process's LogMiner session render SQL_REDO under it (a simulated database and a replay
bundle have their own). Through the production factory, with python-oracledb's connect
answered by the simulator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractor.assemble import mining_process
from extractor.config import config_from_mapping
from extractor.errors import SimUsageError
from extractor.nls import NlsSettings
from extractor.pipeline.runtime import open_configured_source
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.source.factory import open_source
from extractor.source.oracle import connect as oracle_connect

CUSTOM = NlsSettings(
    date_format="SYYYY-MM-DD HH24:MI:SS",
    timestamp_format="SYYYY-MM-DD HH24:MI:SS.FF",
    timestamp_tz_format="SYYYY-MM-DD HH24:MI:SS.FF TZH:TZM",
    numeric_characters=",.",
)
SOURCE = {"kind": "oracle", "dsn": "db:1521/ORCL", "user": "U", "password_env": "NLS_TEST_PW"}


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> list[SimConnection]:
    """python-oracledb's connect answered by one simulated database rendering CUSTOM."""
    monkeypatch.setenv("NLS_TEST_PW", "pw")
    db = SimDatabase(nls=CUSTOM)
    made: list[SimConnection] = []

    def connect(**params: object) -> SimConnection:
        made.append(SimConnection(db))
        return made[-1]

    monkeypatch.setattr(oracle_connect.oracledb, "connect", connect)
    return made


def _alter_session_sent(made: list[SimConnection]) -> list[str]:
    return [s for c in made for s in c.statements if s.startswith("ALTER SESSION SET NLS")]


def test_the_configured_formats_are_the_session_s(
    connections: list[SimConnection], tmp_path: Path
) -> None:
    config = config_from_mapping(
        {"source": SOURCE, "tables": ["APP.*"], "nls": CUSTOM.to_json()}, base_dir=tmp_path
    )
    source = open_configured_source(config)
    source.close()
    (sent,) = _alter_session_sent(connections)
    assert "NLS_TIMESTAMP_FORMAT = 'SYYYY-MM-DD HH24:MI:SS.FF'" in sent
    assert "NLS_NUMERIC_CHARACTERS = ',.'" in sent


def test_without_the_setting_the_defaults_are_set(connections: list[SimConnection]) -> None:
    """The simulator refuses formats other than its own: the defaults reached it."""
    with pytest.raises(SimUsageError, match="renders SQL_REDO under its own NLS"):
        open_source(SOURCE)


def test_the_mining_process_opens_its_source_with_the_setting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = config_from_mapping(
        {"source": SOURCE, "tables": ["APP.*"], "nls": CUSTOM.to_json()}, base_dir=tmp_path
    )
    feed = mining_process.MiningProcess(
        config.source, config.data_dir, config.mining, 1 << 20, config.spill_dir, config.nls
    )
    opened: dict[str, Any] = {}

    def open_source_spy(source: Any, **options: Any) -> None:
        opened.update(options)

    monkeypatch.setattr("extractor.source.factory.open_source", open_source_spy)
    mining_process._configured_source(feed._start)
    assert opened["nls"] == CUSTOM
