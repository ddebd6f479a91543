"""A console a person can read: steps printed by the commands, log records only from WARNING
up (py4j's chatter never), every record as JSON in ``<data_dir>/logs/oracdc.log``, and the
error line naming that file."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from extractor import log_setup
from extractor.cli.main import main
from extractor.lakehouse import dbt_runner
from extractor.log_setup import LOG_FILE, attach_log_file, configure_console, log_file


@pytest.fixture(autouse=True)
def _quiet_again() -> Any:
    yield
    log_setup.reset()  # as main() does when a command ends
    dbt_runner.show_dbt_progress(False)


def test_info_records_and_py4j_stay_off_the_console_and_go_to_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_console()
    path = attach_log_file(tmp_path)
    logging.getLogger("py4j.clientserver").info("Closing down clientserver connection")
    logging.getLogger("extractor.pipeline").info("window mined: 12 rows")
    logging.getLogger("extractor.pipeline").warning("redo log switch is slow")
    assert (
        capsys.readouterr().err == "oracdc: WARNING: extractor.pipeline: redo log switch is slow\n"
    )
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [(r["level"], r["message"]) for r in records] == [
        ("INFO", "window mined: 12 rows"),
        ("WARNING", "redo log switch is slow"),
    ]
    assert path == (tmp_path / LOG_FILE).resolve()


def test_verbose_shows_info_records_and_debug_shows_py4j(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_console(verbose=True)
    logging.getLogger("py4j.clientserver").info("Closing down clientserver connection")
    logging.getLogger("extractor.pipeline").info("window mined")
    assert capsys.readouterr().err == "oracdc: INFO: extractor.pipeline: window mined\n"
    configure_console(debug=True)
    logging.getLogger("py4j.clientserver").debug("Command to send")
    assert "Command to send" in capsys.readouterr().err


def test_a_failing_command_names_its_log_file_on_its_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "oracdc.yml"
    config.write_text("source: {kind: sim}\ntables: [SIM.*]\ndata_dir: data\n", encoding="utf-8")
    assert main(["verify", "--config", str(config)]) == 1  # nothing replicated yet
    error = capsys.readouterr().err
    path = tmp_path / "data" / LOG_FILE
    assert error.count("\n") == 1 and error.endswith(f" [log: {path}]\n"), error
    logged = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert any("nothing replicated yet" in r["message"] for r in logged)
    assert log_file() is None  # the command's logging ended with it

    # a later command without a config names no log file, and writes nothing into this one
    size = path.stat().st_size
    assert main(["init", str(tmp_path / "a-file"), "--packages-only", "--no-deps"]) == 1
    assert "[log:" not in capsys.readouterr().err
    assert path.stat().st_size == size


def test_the_log_file_rotates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import extractor.log_setup as log_setup

    monkeypatch.setattr(log_setup, "MAX_BYTES", 2_000)
    configure_console()
    path = attach_log_file(tmp_path / "rotating")
    for number in range(200):
        logging.getLogger("extractor").info("record %d", number)
    kept = sorted(p.name for p in path.parent.iterdir())
    assert kept == [
        "oracdc.log",
        *(f"oracdc.log.{n}" for n in range(1, log_setup.BACKUP_COUNT + 1)),
    ]
    assert all(p.stat().st_size <= 2_000 for p in path.parent.iterdir())


def test_dbt_prints_only_errors_unless_verbose(monkeypatch: pytest.MonkeyPatch) -> None:
    commands: list[list[str]] = []

    class Runner:
        def invoke(self, command: list[str]) -> None:
            commands.append(command)

    monkeypatch.setattr("dbt.cli.main.dbtRunner", Runner)
    dbt_runner.run_dbt(["build"])
    dbt_runner.show_dbt_progress(True)
    dbt_runner.run_dbt(["build"])
    assert "--quiet" in commands[0] and "--quiet" not in commands[1]


@pytest.mark.parametrize(
    ("argv", "debug", "verbose"),
    [(["status"], False, False), (["--debug", "status"], True, False),
     (["status", "--debug"], True, False), (["sync", "--verbose"], False, True),
     (["--verbose", "verify"], False, True)],
)  # fmt: skip
def test_debug_and_verbose_go_before_or_after_the_command(
    argv: list[str], debug: bool, verbose: bool
) -> None:
    from extractor.cli.main import build_parser

    args = build_parser().parse_args(argv)
    assert (args.debug, args.verbose) == (debug, verbose)


@pytest.mark.spark
def test_the_spark_jvm_logs_to_a_file_under_its_data_directory(
    spark: Any, spark_data_dir: Path
) -> None:
    from extractor.lakehouse.spark_session import LOG4J_CONFIG, SPARK_LOG

    config = (spark_data_dir / LOG4J_CONFIG).read_text(encoding="utf-8")
    assert f"appender.file.fileName = {spark_data_dir.resolve() / SPARK_LOG}" in config
    assert "rootLogger.appenderRef.console.level = error" in config
    assert (spark_data_dir / SPARK_LOG).is_file()  # log4j read the file at start-up
    java_options = spark.sparkContext.getConf().get("spark.driver.extraJavaOptions")
    assert f"-Dlog4j2.configurationFile=file:{spark_data_dir.resolve() / LOG4J_CONFIG}" in (
        java_options
    )


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_redrawn_on_a_terminal_and_written_as_lines_elsewhere() -> None:
    from extractor.pipeline.progress import Progress

    plain = io.StringIO()
    progress = Progress("snapshot HR.EMPLOYEES", 100, stream=plain, log_every_seconds=0)
    progress.advance(40)
    progress.finish()
    lines = plain.getvalue().splitlines()
    assert len(lines) == 2 and lines[-1].endswith("(done)") and "100 rows" in lines[-1]
    assert "\r" not in plain.getvalue()

    terminal = _Terminal()
    live = Progress("snapshot HR.EMPLOYEES", 100, stream=terminal)
    live.advance(40)
    live.finish()
    assert terminal.getvalue().startswith("\r\x1b[2K") and terminal.getvalue().endswith("\n")
