"""Failure alerts of ``oracdc sync``: run a command and/or POST to a webhook, once per failure.

Configured in ``oracdc.yml``::

    notify:
      command: "/usr/local/bin/page-oncall --service oracdc"   # split with shlex, no shell
      webhook: "https://hooks.example.com/oracdc"              # POST JSON, timeout 10 s
      repeat_after_seconds: 3600                               # re-send an unchanged failure
      recovered: true                                          # notice when a cycle succeeds

The command gets the one-line reason in the environment variable ``ORACDC_FAILURE`` and on
stdin; the reason is never put into a command line. The webhook receives
``{"event", "reason", "step", "table", "at"}``. The last reason sent is remembered in
``<data_dir>/notify_state.json``: an identical failure (same reason once per-attempt ids
and numbers are blanked, see :func:`failure_signature`) is sent again only after
``repeat_after_seconds``; a successful cycle clears it (and sends ``recovered``). Failing to
notify is logged, never fatal.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shlex
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from extractor.errors import NotifyConfigError, OracdcError

LOG = logging.getLogger(__name__)

FAILURE_ENV = "ORACDC_FAILURE"
STATE_FILE = "notify_state.json"
WEBHOOK_TIMEOUT_SECONDS = 10.0
COMMAND_TIMEOUT_SECONDS = 60.0
_KEYS = {"command", "webhook", "repeat_after_seconds", "recovered"}


@dataclass(frozen=True)
class NotifySettings:
    command: tuple[str, ...] = ()
    webhook: str | None = None
    repeat_after_seconds: float = 3600.0
    recovered: bool = True

    @property
    def enabled(self) -> bool:
        return bool(self.command or self.webhook)

    @classmethod
    def from_config(cls, raw: Mapping[str, Any]) -> NotifySettings:
        unknown = sorted(set(raw) - _KEYS)
        if unknown:
            raise NotifyConfigError(
                f"unknown key(s) under notify: {', '.join(unknown)}",
                fix=f"use {', '.join(sorted(_KEYS))}",
            )
        command = raw.get("command")
        try:
            argv = tuple(shlex.split(str(command))) if command else ()
        except ValueError as error:
            raise NotifyConfigError(f"notify.command cannot be split: {error}") from None
        webhook = raw.get("webhook")
        if webhook is not None and not str(webhook).startswith(("http://", "https://")):
            raise NotifyConfigError(f"notify.webhook {webhook!r} is not an http(s) URL")
        repeat = raw.get("repeat_after_seconds", 3600)
        if isinstance(repeat, bool) or not isinstance(repeat, int | float) or repeat < 0:
            raise NotifyConfigError(f"notify.repeat_after_seconds must be >= 0, not {repeat!r}")
        return cls(argv, str(webhook) if webhook else None, float(repeat),
                   bool(raw.get("recovered", True)))  # fmt: skip


@dataclass(frozen=True)
class Failure:
    """One failed cycle: the one-line reason, and the step and table when known."""

    reason: str
    step: str | None = None
    table: str | None = None
    at: str = ""

    @classmethod
    def from_error(cls, error: OracdcError, now: datetime | None = None) -> Failure:
        moment = (now or datetime.now(UTC)).isoformat(timespec="seconds")
        return cls(
            " ".join(error.one_line().split()),
            getattr(error, "step", None),
            getattr(error, "table", None),
            moment,
        )


class Notifier:
    """Sends failure and recovery notices, remembering the last one in ``data_dir``."""

    def __init__(
        self,
        settings: NotifySettings,
        data_dir: Path,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._settings = settings
        self._state_path = data_dir / STATE_FILE
        self._clock = clock

    def failed(self, failure: Failure) -> bool:
        """Notify ``failure`` unless the same reason was sent less than repeat_after ago."""
        if not self._settings.enabled:
            return False
        state = self._read_state()
        now = self._clock()
        signature = failure_signature(failure.reason)
        if (
            state.get("signature") == signature
            and now - float(state.get("sent_at", 0)) < self._settings.repeat_after_seconds
        ):
            LOG.info("failure already notified; not sent again: %s", failure.reason)
            return False
        self._send("failure", failure)
        self._write_state({"reason": failure.reason, "signature": signature, "sent_at": now})
        return True

    def succeeded(self) -> bool:
        """A cycle succeeded: forget the last failure, and say so if one had been sent."""
        state = self._read_state()
        if not state:
            return False
        self._state_path.unlink(missing_ok=True)
        if not (self._settings.enabled and self._settings.recovered):
            return False
        moment = datetime.now(UTC).isoformat(timespec="seconds")
        self._send("recovered", Failure(f"recovered after: {state.get('reason')}", at=moment))
        return True

    def _send(self, event: str, failure: Failure) -> None:
        if self._settings.command:
            run_command(self._settings.command, failure.reason)
        if self._settings.webhook:
            post_webhook(self._settings.webhook, event, failure)

    def _read_state(self) -> dict[str, Any]:
        try:
            raw = json.loads(self._state_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return raw if isinstance(raw, dict) else {}

    def _write_state(self, state: dict[str, Any]) -> None:
        try:
            self._state_path.parent.mkdir(parents=True, exist_ok=True)
            self._state_path.write_text(json.dumps(state), encoding="utf-8")
        except OSError as error:
            LOG.warning("cannot remember the notified failure in %s: %s", self._state_path, error)


_VOLATILE_ID = re.compile(r"\b[A-Z_]*ID=[^\s),]+")
_NUMBER = re.compile(r"(?<![A-Za-z0-9_-])\d+")  # not error codes (ORA-01291) or names


def failure_signature(reason: str) -> str:
    """What makes two failures "identical": the reason without per-attempt identifiers
    (``CONNECTION_ID=...``) and with free-standing numbers blanked (SCNs, ports and counts
    move on; error codes such as ``ORA-01291`` stay)."""
    return _NUMBER.sub("#", _VOLATILE_ID.sub("", reason))


def run_command(argv: tuple[str, ...], reason: str) -> bool:
    """Run ``argv`` (no shell) with the reason in $ORACDC_FAILURE and on stdin."""
    try:
        result = subprocess.run(
            list(argv),
            input=reason + "\n",
            text=True,
            env={**os.environ, FAILURE_ENV: reason},
            capture_output=True,
            timeout=COMMAND_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as error:
        LOG.warning("notify.command %s could not run: %s", argv[0], error)
        return False
    if result.returncode != 0:
        LOG.warning(
            "notify.command %s exited with %d: %s",
            argv[0], result.returncode, " ".join(result.stderr.split())[:200],
        )  # fmt: skip
        return False
    return True


def post_webhook(url: str, event: str, failure: Failure) -> bool:
    """POST ``{event, reason, step, table, at}`` as JSON to ``url`` (timeout 10 s)."""
    body = json.dumps(
        {"event": event, "reason": failure.reason, "step": failure.step,
         "table": failure.table, "at": failure.at}
    ).encode("utf-8")  # fmt: skip
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=WEBHOOK_TIMEOUT_SECONDS) as response:
            response.read()
    except (urllib.error.URLError, OSError, ValueError) as error:
        # the URL's path may hold a token: name the host only
        LOG.warning("notify.webhook to %s failed: %s", urllib.parse.urlsplit(url).netloc, error)
        return False
    return True
