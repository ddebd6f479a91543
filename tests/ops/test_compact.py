"""``oracdc compact`` as a person runs it: the dbt operation it calls, the lock it shares with
``oracdc sync``, and one-line errors. (The operation itself, on Spark, is checked in
tests/dbt/test_merge_on_read.py with the same arguments.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import extractor.cli.compact as compact_command
from extractor.cli.main import main
from extractor.process_lock import acquire_process_lock, release_process_lock
from extractor.state.checkpoint import LOCK_FILE


def _config(tmp_path: Path) -> Path:
    (tmp_path / "dbt_project.yml").write_text("name: ops\n", encoding="utf-8")
    config = tmp_path / "oracdc.yml"
    config.write_text("source: {kind: sim}\ntables: [APP.*]\ndata_dir: data\n", encoding="utf-8")
    return config


class _Result:
    def __init__(self, success: bool) -> None:
        self.success = success
        self.exception = None
        self.result = None


def test_compact_runs_the_operation_on_the_named_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[dict[str, Any]] = []

    def run_dbt(args: list[str], **settings: Any) -> _Result:
        calls.append({"args": args, **settings})
        return _Result(True)

    monkeypatch.setattr(compact_command.cli_options, "open_spark", lambda config: None)
    monkeypatch.setattr(compact_command, "run_dbt", run_dbt)
    assert main(["compact", "--config", str(_config(tmp_path)), "--models", "app__items"]) == 0
    (call,) = calls
    assert call["args"][:3] == ["run-operation", "oracle_cdc.compact", "--args"]
    assert json.loads(call["args"][3]) == {"select": ["app__items"]}
    assert call["project_dir"] == tmp_path
    assert capsys.readouterr().out.startswith("compact: app__items done in ")


def test_compact_refuses_while_another_process_holds_the_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(compact_command, "run_dbt", pytest.fail)
    lock = acquire_process_lock(tmp_path / "data" / LOCK_FILE)
    try:
        assert main(["compact", "--config", str(_config(tmp_path))]) == 1
    finally:
        release_process_lock(lock)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "is using the data directory" in err[0]
    assert "stop `oracdc sync` first" in err[0]


def test_a_failed_operation_is_one_line_with_our_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def run_dbt(args: list[str], *, errors: list[str], **settings: Any) -> _Result:
        errors.append(
            "Encountered an error while running operation: Runtime Error\n"
            "  Compilation Error in macro compact (macros/consolidation/compact.sql)\n"
            "    oracle_cdc: app__x is no merge_on_read replica model (...)\n"
        )
        return _Result(False)

    monkeypatch.setattr(compact_command.cli_options, "open_spark", lambda config: None)
    monkeypatch.setattr(compact_command, "run_dbt", run_dbt)
    assert main(["compact", "--config", str(_config(tmp_path)), "--models", "app__x"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "oracle_cdc: app__x is no merge_on_read replica model" in err[0]
