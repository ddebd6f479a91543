"""Where an ``oracdc`` command's log records go: a quiet console and a rotated file.

The console (stderr) is for a person: the commands print their own one-line steps; log
records reach it only from WARNING up (INFO with ``--verbose``, everything with ``--debug``).
py4j's per-call INFO lines ("Closing down clientserver connection") never do. Every record
from INFO up (DEBUG with ``--debug``) goes as one JSON object per line to
``<data_dir>/logs/oracdc.log`` once the command has read its config, rotated at 10 MiB with
5 old files kept; a failing command names that file in its error line. Log messages never
hold secrets (passwords are read from the environment or a file and never logged).
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import TextIO

LOG_FILE = Path("logs") / "oracdc.log"
MAX_BYTES = 10 * 1024 * 1024
BACKUP_COUNT = 5
# Libraries whose INFO records are per-call chatter, not steps: WARNING and up only.
CHATTY_LOGGERS = ("py4j",)

# The failure a command prints on its error line, recorded for the file only.
FAILURE_LOGGER = "oracdc.failure"

_CONSOLE = "oracdc-console"
_FILE = "oracdc-file"


class JsonLineFormatter(logging.Formatter):
    """One JSON object per record: time (UTC), level, logger, message, traceback if any."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["traceback"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a record comes (a test's capture too)."""

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, _value: TextIO) -> None:
        pass


_saved_levels: list[int] = []  # the root level before configure_console, for reset


def configure_console(*, debug: bool = False, verbose: bool = False) -> None:
    """The console handler of this process (replacing an earlier one); ``reset`` undoes it."""
    root = logging.getLogger()
    if not _saved_levels:
        _saved_levels.append(root.level)
    wanted = logging.DEBUG if debug else logging.INFO
    if root.level == logging.NOTSET or root.level > wanted:  # never less than a caller set
        root.setLevel(wanted)
    _remove(_CONSOLE)
    console = _StderrHandler()
    console.set_name(_CONSOLE)
    console.setLevel(logging.DEBUG if debug else logging.INFO if verbose else logging.WARNING)
    console.setFormatter(logging.Formatter("oracdc: %(levelname)s: %(name)s: %(message)s"))
    console.addFilter(lambda record: record.name != FAILURE_LOGGER)  # printed already
    root.addHandler(console)
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG if debug else logging.WARNING)


def attach_log_file(data_dir: Path) -> Path:
    """Send the records to ``<data_dir>/logs/oracdc.log`` from now on; returns its path."""
    path = (data_dir / LOG_FILE).resolve()
    current = log_file()
    if current == path:
        return path
    _remove(_FILE)
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(
        path, maxBytes=MAX_BYTES, backupCount=BACKUP_COUNT, encoding="utf-8"
    )
    handler.set_name(_FILE)
    handler.setFormatter(JsonLineFormatter())
    logging.getLogger().addHandler(handler)
    return path


def log_file() -> Path | None:
    """The file the records go to, once a command has read its config."""
    for handler in logging.getLogger().handlers:
        if handler.get_name() == _FILE and isinstance(handler, RotatingFileHandler):
            return Path(handler.baseFilename)
    return None


def reset() -> None:
    """Detach the console and the file and restore the root level: a command's logging ends
    with it (``main`` may run again in the same process, as the tests do)."""
    _remove(_CONSOLE)
    _remove(_FILE)
    if _saved_levels:
        logging.getLogger().setLevel(_saved_levels.pop())
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.NOTSET)


def _remove(name: str) -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        if handler.get_name() == name:
            root.removeHandler(handler)
            handler.close()
