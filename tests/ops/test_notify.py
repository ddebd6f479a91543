"""Failure alerts: a command and a webhook, each failure sent once, recovery, and the sync
loop that keeps going after a failed cycle."""

from __future__ import annotations

import logging
import shlex
import sys
from pathlib import Path

import pytest

from extractor.cli import sync as sync_cli
from extractor.cli.main import main
from extractor.errors import NotifyConfigError
from extractor.notify import Failure, Notifier, NotifySettings
from tests.ops.receivers import closed_port, webhook_receiver

FAILURE = Failure("step stream failed: ORA-01291", "stream", "HR.EMPLOYEES", "2024-01-01T00:00")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def _recording_command(tmp_path: Path) -> tuple[str, Path]:
    """A command line that appends $ORACDC_FAILURE and its stdin to a file."""
    out = tmp_path / "alerts.txt"
    script = tmp_path / "alert.py"
    script.write_text(
        "import os, sys\n"
        f"with open({str(out)!r}, 'a') as f:\n"
        "    f.write('env=' + os.environ['ORACDC_FAILURE'] + '|stdin=' + sys.stdin.read())\n",
        encoding="utf-8",
    )
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}", out


def test_a_failure_is_posted_to_the_webhook_as_json(tmp_path: Path) -> None:
    with webhook_receiver() as (url, received):
        Notifier(NotifySettings(webhook=url), tmp_path).failed(FAILURE)
    assert received == [
        {"event": "failure", "reason": FAILURE.reason, "step": "stream",
         "table": "HR.EMPLOYEES", "at": "2024-01-01T00:00"}
    ]  # fmt: skip


def test_the_command_gets_the_reason_in_its_environment_and_on_stdin(tmp_path: Path) -> None:
    command, out = _recording_command(tmp_path)
    settings = NotifySettings.from_config({"command": command})
    Notifier(settings, tmp_path).failed(FAILURE)
    assert out.read_text() == f"env={FAILURE.reason}|stdin={FAILURE.reason}\n"


def test_a_reason_holding_shell_syntax_is_never_run(tmp_path: Path) -> None:
    command, out = _recording_command(tmp_path)
    marker = tmp_path / "pwned"
    reason = f"bad; touch {marker}; $(touch {marker}) `touch {marker}`"
    Notifier(NotifySettings.from_config({"command": command}), tmp_path).failed(Failure(reason))
    assert not marker.exists()
    assert out.read_text().startswith(f"env={reason}|")


def test_an_identical_failure_is_not_sent_again_before_the_repeat_interval(
    tmp_path: Path,
) -> None:
    clock = Clock()
    with webhook_receiver() as (url, received):
        notifier = Notifier(NotifySettings(webhook=url, repeat_after_seconds=60), tmp_path,
                            clock=clock)  # fmt: skip
        sent = [notifier.failed(FAILURE), notifier.failed(FAILURE)]
        clock.now += 61
        sent.append(notifier.failed(FAILURE))
    assert sent == [True, False, True]
    assert len(received) == 2


def test_failures_differing_only_in_ids_and_numbers_are_identical(tmp_path: Path) -> None:
    with webhook_receiver() as (url, received):
        notifier = Notifier(NotifySettings(webhook=url), tmp_path)
        notifier.failed(Failure("DPY-6005 (CONNECTION_ID=ff+FP3J==). SCN 100 is gone"))
        notifier.failed(Failure("DPY-6005 (CONNECTION_ID=6mkRPF==). SCN 250 is gone"))
    assert len(received) == 1


def test_failures_with_different_error_codes_differ(tmp_path: Path) -> None:
    with webhook_receiver() as (url, received):
        notifier = Notifier(NotifySettings(webhook=url), tmp_path)
        notifier.failed(Failure("step stream failed: ORA-01291 at SCN 5"))
        notifier.failed(Failure("step stream failed: ORA-01555 at SCN 5"))
    assert len(received) == 2


def test_a_different_failure_is_sent_at_once(tmp_path: Path) -> None:
    with webhook_receiver() as (url, received):
        notifier = Notifier(NotifySettings(webhook=url), tmp_path)
        notifier.failed(FAILURE)
        notifier.failed(Failure("step dbt build failed"))
    assert [r["reason"] for r in received] == [FAILURE.reason, "step dbt build failed"]


def test_a_success_after_a_failure_sends_recovered_and_rearms(tmp_path: Path) -> None:
    with webhook_receiver() as (url, received):
        notifier = Notifier(NotifySettings(webhook=url), tmp_path)
        notifier.failed(FAILURE)
        notifier.succeeded()
        notifier.succeeded()  # nothing to recover from any more
        notifier.failed(FAILURE)
    assert [r["event"] for r in received] == ["failure", "recovered", "failure"]


def test_the_last_sent_failure_survives_a_restart(tmp_path: Path) -> None:
    with webhook_receiver() as (url, received):
        Notifier(NotifySettings(webhook=url), tmp_path).failed(FAILURE)
        Notifier(NotifySettings(webhook=url), tmp_path).failed(FAILURE)
    assert len(received) == 1


def test_an_unreachable_webhook_is_logged_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/hook"
    with caplog.at_level(logging.WARNING):
        Notifier(NotifySettings(webhook=url), tmp_path).failed(FAILURE)
    assert "notify.webhook to 127.0.0.1" in caplog.text


def test_a_failing_command_is_logged_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = NotifySettings.from_config(
        {"command": f"{shlex.quote(sys.executable)} -c 'raise SystemExit(4)'"}
    )
    with caplog.at_level(logging.WARNING):
        Notifier(settings, tmp_path).failed(FAILURE)
    assert "exited with 4" in caplog.text


@pytest.mark.parametrize(
    "raw",
    [{"webhook": "file:///etc/passwd"}, {"repeat_after_seconds": -1}, {"pager": "x"},
     {"command": "unbalanced 'quote"}],
)  # fmt: skip
def test_an_invalid_notify_section_is_refused(raw: dict[str, object]) -> None:
    with pytest.raises(NotifyConfigError):
        NotifySettings.from_config(raw)


def _failing_sync_config(tmp_path: Path, url: str) -> Path:
    (tmp_path / "dbt_project.yml").write_text("name: ops\n", encoding="utf-8")  # never built
    config = tmp_path / "oracdc.yml"
    config.write_text(
        f"source: {{kind: oracle, dsn: '127.0.0.1:{closed_port()}/NOPE', user: OPS, "
        "password_env: OPS_PW}\ntables: [HR.*]\ndata_dir: data\n"
        f"notify: {{webhook: '{url}'}}\n",
        encoding="utf-8",
    )
    return config


def test_sync_once_exits_1_with_the_reason_and_notifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPS_PW", "not-the-point")
    with webhook_receiver() as (url, received):
        code = main(["sync", "--once", "--config", str(_failing_sync_config(tmp_path, url))])
    assert code == 1
    assert "cannot connect to Oracle" in capsys.readouterr().err
    assert len(received) == 1 and "cannot connect to Oracle" in received[0]["reason"]


def test_sync_keeps_looping_after_failed_cycles_and_notifies_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPS_PW", "not-the-point")
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        if len(sleeps) == 3:
            raise KeyboardInterrupt

    # Not time.sleep: that is every thread's (a Spark or py4j thread sleeping in a loop would
    # call the fake too, spin and fill ``sleeps`` until the machine runs out of memory).
    monkeypatch.setattr(sync_cli, "wait_between_cycles", sleep)
    with webhook_receiver() as (url, received):
        config = _failing_sync_config(tmp_path, url)
        code = main(["sync", "--interval", "7", "--config", str(config)])
    assert code == 130
    assert sleeps == [7, 7, 7]
    assert capsys.readouterr().out.count("cycle failed") == 3
    assert len(received) == 1
