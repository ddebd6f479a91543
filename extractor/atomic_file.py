"""Files replaced atomically and durably: a reader sees the old file or the new one, whole, and
after a crash or a power loss the new one is either all there or not there.

The one way every file the extractor rewrites (checkpoint, status, metrics, consolidation
record, replay bundle files, a saved simulated database) is written: a temporary file beside
the target, flushed and fsynced, renamed over the target, then the directory fsynced so that
the rename itself is on disk.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO


@contextmanager
def atomic_text_writer(path: Path) -> Iterator[TextIO]:
    """A text handle whose content replaces ``path`` when the block ends without an error; on
    an error the target is untouched and the temporary file removed. Creates the directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    handle = temporary.open("w", encoding="utf-8")
    try:
        yield handle
        handle.flush()
        os.fsync(handle.fileno())
    except BaseException:
        handle.close()
        temporary.unlink(missing_ok=True)
        raise
    handle.close()
    os.replace(temporary, path)
    _fsync_directory(path.parent)


def write_text_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (atomically and durably, see the module docstring)."""
    with atomic_text_writer(path) as handle:
        handle.write(text)


def write_bytes_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` (atomically and durably, see the module docstring)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    os.replace(temporary, path)
    _fsync_directory(path.parent)


def _fsync_directory(directory: Path) -> None:
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
