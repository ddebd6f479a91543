"""Opening a python-oracledb thin-mode connection. The password is passed in by the caller
(read from an environment variable or a file); it is never logged or put in a message."""

from __future__ import annotations

import logging
import os
import queue
import stat
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import oracledb

from extractor.errors import SourceConnectionError
from extractor.source.oracle.driver_errors import error_message, full_code

log = logging.getLogger(__name__)


DEFAULT_CONNECT_TIMEOUT_SECONDS = 60.0


def connect(
    dsn: str,
    user: str,
    password: str,
    *,
    wallet_dir: str | None = None,
    timeout_seconds: float = DEFAULT_CONNECT_TIMEOUT_SECONDS,
) -> Any:
    """A thin-mode connection to ``dsn`` as ``user``; SourceConnectionError when it fails or
    does not complete within ``timeout_seconds``.

    python-oracledb's ``tcp_connect_timeout`` bounds the TCP connect only: a port that accepts
    but never answers (not a listener) would block the handshake for ever. The connect runs
    in a daemon thread that is abandoned at the deadline; a connection it still makes after
    that is closed at once (a thread stuck for ever keeps its socket until the process ends).
    """
    extra: dict[str, Any] = {"tcp_connect_timeout": timeout_seconds}
    if wallet_dir:
        extra.update(config_dir=wallet_dir, wallet_location=wallet_dir)
    log.info("connecting to Oracle %s as %s", dsn, user)
    outcome: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)
    handover = threading.Lock()
    abandoned = threading.Event()

    def attempt() -> None:
        try:
            result: tuple[bool, Any] = (True, oracledb.connect(**params))
        except BaseException as error:  # handed to the caller's thread
            result = (False, error)
        with handover:
            if abandoned.is_set():
                _close_late(result)
            else:
                outcome.put(result)

    params = {"user": user, "password": password, "dsn": dsn, **extra}
    threading.Thread(target=attempt, name="oracle-connect", daemon=True).start()
    try:
        succeeded, value = outcome.get(timeout=timeout_seconds)
    except queue.Empty:
        with handover:  # a connection arriving from now on is closed by its thread
            abandoned.set()
            if not outcome.empty():
                _close_late(outcome.get_nowait())
        raise SourceConnectionError(
            f"cannot connect to Oracle {dsn} as {user}: no answer within {timeout_seconds:g} s",
            fix="check that source.dsn names an Oracle listener (host, port and service), or "
            "raise source.connect_timeout_seconds",
        ) from None
    if succeeded:
        return value
    if isinstance(value, oracledb.Error) and _requires_native_encryption(value):
        raise SourceConnectionError(
            f"cannot connect to Oracle {dsn}: the database requires Native Network Encryption "
            "(DPY-3001), which python-oracledb's thin mode used by oracdc cannot negotiate",
            fix="connect over TLS instead (a tcps:// DSN with source.wallet_dir), or have the "
            "DBA set SQLNET.ENCRYPTION_SERVER to ACCEPTED or REQUESTED; NNE needs thick mode "
            "(Oracle Instant Client loaded by oracledb.init_oracle_client()), which oracdc "
            "does not load",
        ) from None
    if isinstance(value, oracledb.Error):
        raise SourceConnectionError(
            f"cannot connect to Oracle {dsn} as {user} ({full_code(value)}): "
            f"{error_message(value)}",
            fix="check source.dsn, source.user and the password, and that the listener is up",
        ) from None
    raise value


def _requires_native_encryption(error: BaseException) -> bool:
    """DPY-3001 (a thin-mode limit) about Native Network Encryption, also when reported
    inside another error (DPY-6005 cannot connect) or its cause."""
    seen: BaseException | None = error
    while seen is not None:
        text = f"{full_code(seen)} {error_message(seen)}"
        if "DPY-3001" in text and "Native Network Encryption" in text:
            return True
        seen = seen.__cause__
    return False


def _close_late(result: tuple[bool, Any]) -> None:
    succeeded, value = result
    if succeeded:
        try:
            value.close()
        except oracledb.Error:
            log.debug("closing a connection made after the deadline failed", exc_info=True)


def read_password(source: Mapping[str, Any]) -> str:
    """The password named by ``password_env`` (an environment variable) or ``password_file``
    (a regular file owned by this user with no group or other permission bits; one trailing
    newline is dropped). The password itself never appears in a message."""
    env_name = source.get("password_env")
    if env_name:
        value = os.environ.get(str(env_name))
        if value is None:
            raise SourceConnectionError(
                f"environment variable {env_name} (source.password_env) is not set",
                fix=f"export {env_name}=<the Oracle password> before running oracdc",
            )
        return value
    file_name = source.get("password_file")
    if file_name:
        path = Path(str(file_name))
        try:
            info = path.stat()
        except OSError as error:
            raise SourceConnectionError(
                f"cannot read source.password_file {path}: {error.strerror}"
            ) from None
        if not stat.S_ISREG(info.st_mode):
            raise SourceConnectionError(f"source.password_file {path} is not a regular file")
        if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise SourceConnectionError(
                f"source.password_file {path} is accessible to group or others "
                f"(mode {stat.S_IMODE(info.st_mode):o})",
                fix=f"chmod 600 {path}",
            )
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise SourceConnectionError(
                f"source.password_file {path} is not owned by the user running oracdc",
                fix=f"chown the file to this user and chmod 600 {path}",
            )
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise SourceConnectionError(
                f"cannot read source.password_file {path}: {error.strerror}"
            ) from None
        return text[:-1] if text.endswith("\n") else text
    raise SourceConnectionError(
        "no password configured for the Oracle source",
        fix="set source.password_env or source.password_file in oracdc.yml",
    )
