"""The command line: one line per failure, tracebacks only with --debug."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

import extractor.cli.status as status_command
from extractor.cli.main import main
from extractor.parse import implementation


def explode(args: argparse.Namespace) -> int:
    raise RuntimeError("disk\non fire")


def test_unexpected_error_is_one_line_with_the_way_to_the_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(status_command, "run", explode)
    assert main(["status"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "RuntimeError: disk on fire" in err
    assert "--debug" in err


def test_debug_shows_the_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(status_command, "run", explode)
    with pytest.raises(RuntimeError):
        main(["--debug", "status"])


def test_a_configuration_error_names_the_fix(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snapshot", "--config", "/no/such/oracdc.yml"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("oracdc snapshot: error: configuration file /no/such/oracdc.yml")
    assert "fix:" in err


def test_version_says_which_parser_implementation_is_active(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    out = capsys.readouterr().out
    assert out.startswith("oracdc 0.1.0 (SQL_REDO parser: ")
    assert implementation.active() in out
    expected = "compiled (C extension)" if implementation.compiled else "pure Python ("
    assert expected in out


def test_oracdc_parser_python_forces_the_reference() -> None:
    shown = subprocess.run(
        [sys.executable, "-c", "from extractor.cli.main import main; main(['--version'])"],
        env={**os.environ, "ORACDC_PARSER": "python"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert "SQL_REDO parser: pure Python (ORACDC_PARSER=python)" in shown.stdout, shown.stderr
