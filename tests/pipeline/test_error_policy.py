"""What each ``error_policy`` does with a quarantined change (docs/extraction.md): ``fail``
writes it to the errors table and stops, the checkpoint unmoved; ``warn`` writes it, logs a
WARNING and goes on; ``skip`` writes it and goes on without a warning. The change is a DATE
before 1 AD (docs/types.md), on the simulator, into in-memory staging tables."""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path

import pytest

from extractor.config import config_from_mapping
from extractor.errors import QuarantineError, SyncStepError
from extractor.sim.column_values import BcDate
from extractor.sim.database import SimDatabase
from tests.e2e.memory_staging import MemoryStagingWriter, extract_into_memory
from tests.pipeline.test_bc_dates import T  # APP.EVENTS: ID, HAPPENED (DATE)

LANDER_LOG = "extractor.pipeline.lander"


def _run(
    tmp_path: Path, policy: str, caplog: pytest.LogCaptureFixture
) -> tuple[MemoryStagingWriter, list[logging.LogRecord], BaseException | None]:
    db = SimDatabase()
    db.create_table(T)
    config = config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["APP.*"], "data_dir": "data",
         "staging_schema": "t_error_policy", "error_policy": policy},
        base_dir=tmp_path,
    )  # fmt: skip
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)  # the snapshot of the empty table
    txn = db.begin()
    txn.insert("APP", "EVENTS", {"ID": 1, "HAPPENED": BcDate(datetime(4712, 1, 1))})
    txn.insert("APP", "EVENTS", {"ID": 2, "HAPPENED": datetime(2024, 1, 1)})
    txn.commit()
    caplog.clear()
    raised: BaseException | None = None
    with caplog.at_level(logging.INFO, logger=LANDER_LOG):
        try:
            extract_into_memory(db, config, writer)
        except SyncStepError as error:  # the sync step's wrapping of what stopped it
            raised = error.__cause__
    lander_records = [r for r in caplog.records if r.name == LANDER_LOG]
    if raised is not None:  # the checkpoint did not move: a rerun meets the change again
        with pytest.raises(SyncStepError, match="before 1 AD"):
            extract_into_memory(db, config, writer)
        assert len(writer.quarantined_rows()) == 2
    return writer, lander_records, raised


def _landed_ids(writer: MemoryStagingWriter) -> list[int]:
    return sorted(int(r["id"]) for r in writer.staged_rows(T) if r["id"] is not None)


@pytest.mark.parametrize("policy", ["warn", "skip"])
def test_warn_and_skip_write_the_change_to_the_errors_table_and_land_the_rest(
    tmp_path: Path, policy: str, caplog: pytest.LogCaptureFixture
) -> None:
    writer, _, raised = _run(tmp_path, policy, caplog)
    assert raised is None
    assert _landed_ids(writer) == [2]
    (quarantined,) = writer.quarantined_rows()
    assert "year -4712 is before 1 AD" in quarantined["reason"]


def test_warn_logs_a_warning_naming_the_change(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _, records, _ = _run(tmp_path, "warn", caplog)
    (warning,) = [r for r in records if r.levelno == logging.WARNING]
    assert "1 change(s) quarantined" in warning.getMessage()
    assert "APP.EVENTS" in warning.getMessage()


def test_skip_goes_on_without_a_warning_and_logs_the_change_at_info(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _, records, _ = _run(tmp_path, "skip", caplog)
    assert not [r for r in records if r.levelno >= logging.WARNING]
    assert any("1 change(s) quarantined" in r.getMessage() for r in records)


def test_fail_writes_the_change_and_stops(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    writer, _, raised = _run(tmp_path, "fail", caplog)
    assert isinstance(raised, QuarantineError)
    # the window landed, once per run (its checkpoint did not move; consolidation collapses
    # the copies, docs/extraction.md)
    assert _landed_ids(writer) == [2, 2]
    assert "year -4712 is before 1 AD" in str(raised)
    (quarantined, _) = writer.quarantined_rows()
    assert "year -4712 is before 1 AD" in quarantined["reason"]
