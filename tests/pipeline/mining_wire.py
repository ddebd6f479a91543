"""The mining process's wire with its mining side served by a thread of this process: a
simulated database cannot be opened by another process, so this is how the Oracle code path
(``OracleSource`` on the simulator's DB-API) is mined on the mining side of the real wire
(``tests/pipeline/test_mining_process.py``, the fast crash harness)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from extractor.assemble.mining_process import MiningProcess, serve
from extractor.config import OracdcConfig
from extractor.sim.database import SimDatabase
from extractor.source.factory import open_source


class ServedByThread:
    """A mining process served by a thread of this process, over two pipes: the mining side
    (``serve``) and the wire run as they do, on a source this process opens (a simulated
    database, which another process cannot open: the Oracle code path through its DB-API).
    ``kill`` closes this side's pipe ends, as a killed process's would be."""

    def __init__(self, opener: Callable[[Any], Any]) -> None:
        commands_in, commands_out = os.pipe()
        frames_in, frames_out = os.pipe()
        self.stdin: IO[bytes] | None = os.fdopen(commands_out, "wb")
        self.stdout: IO[bytes] | None = os.fdopen(frames_in, "rb")
        self.pid = os.getpid()
        self._returncode: int | None = None
        self._thread = threading.Thread(
            target=self._serve,
            args=(os.fdopen(commands_in, "rb"), os.fdopen(frames_out, "wb"), opener),
        )
        self._thread.start()

    def _serve(self, commands: IO[bytes], frames: IO[bytes], opener: Callable[[Any], Any]) -> None:
        try:
            self._returncode = serve(commands, frames, opener)
        except (BrokenPipeError, ValueError, OSError):
            self._returncode = -9
        finally:
            for stream in (commands, frames):
                with contextlib.suppress(OSError):
                    stream.close()

    def poll(self) -> int | None:
        return None if self._thread.is_alive() else self._returncode

    def kill(self) -> None:
        for stream in (self.stdin, self.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def wait(self, timeout: float | None = None) -> int:
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise subprocess.TimeoutExpired("mining thread", timeout or 0)
        return -9 if self._returncode is None else self._returncode


def sim_opener(db: SimDatabase) -> Callable[[Any], Any]:
    """A source of its own on ``db`` for the mining side (its own OracleSource and cursor)."""
    return lambda _start: open_source({"kind": "sim", "database": db})


class ThreadMiningProcess(MiningProcess):
    def __init__(self, config: OracdcConfig, opener: Callable[[Any], Any]) -> None:
        super().__init__(
            {"kind": "sim"},  # not opened: ``opener`` gives the source
            config.data_dir,
            config.mining,
            config.memory_budget_mb * 1024 * 1024,
            config.spill_dir,
        )
        self._opener = opener

    def _launch(self, log_path: Path) -> Any:
        return ServedByThread(self._opener)
