"""``oracdc status`` as a person reads it: batches landed and consolidated, redo logs in use.
(The numbers' meaning against a real pipeline is checked in tests/e2e/test_replay_two_step.)"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from extractor.cli.main import main
from extractor.state.consolidation_state import (
    landed_batches,
    load_consolidated,
    record_consolidated,
)
from extractor.state.stats import ExtractorStats, save_stats


def _config(tmp_path: Path) -> Path:
    (tmp_path / "dbt_project.yml").write_text("name: ops\n", encoding="utf-8")  # for sync
    config = tmp_path / "oracdc.yml"
    config.write_text("source: {kind: sim}\ntables: [APP.*]\ndata_dir: data\n", encoding="utf-8")
    return config


def test_batches_waiting_for_dbt_and_the_redo_logs_are_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    stats = ExtractorStats(redo_logs=["thread 1 sequence 42 (online) /redo/redo02.log"])
    stats.record_commit("APP.ITEMS", 3, 900, datetime(2026, 1, 1, tzinfo=UTC), batch_id=5)
    stats.record_commit("APP.NOTES", 2, 901, None, batch_id=5)
    record_consolidated(data, landed_batches(stats), datetime(2026, 1, 1, tzinfo=UTC))
    stats.record_commit("APP.ITEMS", 1, 950, None, batch_id=7)  # landed after that dbt build
    save_stats(data, stats)

    assert main(["status", "--config", str(_config(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "redo logs in use: thread 1 sequence 42 (online) /redo/redo02.log" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("APP.")}
    # table, snapshot (2 words: "not started"), snap rows, changes, SCN, age, landed, merged, errors
    assert rows["APP.ITEMS"][4:5] == ["4"] and rows["APP.ITEMS"][-3:] == ["7", "5", "0"]
    assert rows["APP.NOTES"][4:5] == ["2"] and rows["APP.NOTES"][-3:] == ["5", "5", "0"]


def test_a_consolidation_record_keeps_tables_the_last_sync_did_not_land(tmp_path: Path) -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    record_consolidated(tmp_path, {"APP.A": 3, "APP.B": 4}, at)
    record_consolidated(tmp_path, {"APP.A": 9}, at)
    batches = {name: entry.batch_id for name, entry in load_consolidated(tmp_path).items()}
    assert batches == {"APP.A": 9, "APP.B": 4}


def test_each_replica_shows_when_it_was_last_built_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    stats = ExtractorStats()
    stats.record_commit("APP.ITEMS", 3, 900, None, batch_id=5)
    stats.record_commit("APP.NOTES", 2, 901, None, batch_id=5)
    save_stats(data, stats)
    at = datetime(2026, 1, 1, 12, tzinfo=UTC)
    record_consolidated(data, {"APP.ITEMS": 5}, at, reasons={"APP.ITEMS": "new batches 4..5"})
    assert main(["status", "--config", str(_config(tmp_path))]) == 0
    out = capsys.readouterr().out
    builds = out.split("last replica builds:\n")[1].splitlines()
    assert builds == ["  APP.ITEMS                    2026-01-01T12:00:00+00:00  new batches 4..5"]
    assert main(["status", "--json", "--config", str(_config(tmp_path))]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["tables"]["APP.ITEMS"]["built_because"] == "new batches 4..5"
    assert report["tables"]["APP.NOTES"]["built_because"] is None


@pytest.mark.parametrize(("flags", "full"), [([], False), (["--all"], True)])
def test_sync_all_asks_each_cycle_for_a_full_dbt_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: list[str], full: bool
) -> None:
    from extractor.cli import sync as sync_cli

    asked: list[bool] = []

    def one_cycle(*args: object, full_build: bool = False) -> int:
        asked.append(full_build)
        return 1

    monkeypatch.setattr(sync_cli, "_run_cycles", one_cycle)
    assert main(["sync", "--once", *flags, "--config", str(_config(tmp_path))]) == 0
    assert asked == [full]


def test_the_sync_line_says_what_dbt_built() -> None:
    from extractor.cli.sync import _built
    from extractor.pipeline.extractor import SnapshotResult, StreamResult
    from extractor.pipeline.sync import CycleReport

    def report(built: tuple[str, ...], full: bool) -> CycleReport:
        return CycleReport(
            SnapshotResult((), 0), StreamResult(0, 0, 0, 0, None), (), {}, built, full
        )

    assert _built(report((), False)) == "nothing for dbt to build"
    assert _built(report(("HR.A",), False)) == "dbt built 1 replica(s)"
    assert _built(report(("HR.A", "HR.B"), True)) == "dbt built all 2 replicas"
