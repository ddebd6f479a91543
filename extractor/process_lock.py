"""One process at a time: an exclusive ``flock`` on a file that holds the owner's pid.

Used for the data directory (the checkpoint) and for a simulated database saved under it.
The lock goes with the process: a crash releases it, so a stale file never blocks.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO


class ProcessLockHeldError(Exception):
    """Another process holds the lock; ``holder`` is its pid as it wrote it (or "unknown")."""

    def __init__(self, holder: str) -> None:
        super().__init__(f"held by pid {holder}")
        self.holder = holder


def acquire_process_lock(path: Path) -> IO[str]:
    """The open, locked ``path`` (created, with this process's pid in it); raises
    :class:`ProcessLockHeldError` at once when another process holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = path.open("a+", encoding="utf-8")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "unknown"
        handle.close()
        raise ProcessLockHeldError(holder) from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


def release_process_lock(handle: IO[str]) -> None:
    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    handle.close()
