"""A simulated database that outlives the process: saved under ``<data_dir>/sim``.

A ``kind: sim`` source configured with a data directory is one database for every command
that opens the source on that directory (``sync``, ``verify``, ``check``, ``generate``, the
demo): the first
command creates it and runs the configured workload; each later one loads it as the last one
left it. Before each sync cycle the workload runs ``transactions_per_cycle`` more
transactions (0: the database stays as it is), like a live database between two cycles.

The database is saved (pickled, atomically) when it is created and after each step of the
workload, so that every change a command can have mined is in the saved file before the
command mines it; a step that fails half-way is not saved. One process holds it at a time
(``lock``). The file grows with the workload (about 1.2 kB per transaction, rewritten each
step): a simulator for demos and tests, not for a sync loop left running for days.
The file is the simulator's own: it is read only by the same oracdc version that wrote it,
and another version, or other workload settings, is refused with the way out: delete the
data directory (a new database needs new snapshots; a checkpoint of the old one would leave
the replicas on the old one's rows).
"""

from __future__ import annotations

import logging
import pickle
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

from extractor import __version__
from extractor.atomic_file import write_bytes_atomically
from extractor.errors import SourceError
from extractor.process_lock import (
    ProcessLockHeldError,
    acquire_process_lock,
    release_process_lock,
)
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner, WorkloadSpec

LOG = logging.getLogger(__name__)

DATABASE_FILE = "database.pickle"
LOCK_FILE = "lock"
_FORMAT = 4  # 3: VersionedTable.defaults (ADD COLUMN … DEFAULT); 4: partitions


@dataclass
class _Saved:
    format: int
    version: str
    spec: dict[str, Any]
    runner: WorkloadRunner  # holds the SimDatabase


class SavedSimulation:
    """The simulated database of one data directory, locked by this process while open."""

    def __init__(
        self, directory: Path, runner: WorkloadRunner, transactions_per_cycle: int, lock: IO[str]
    ) -> None:
        self.directory = directory
        self.runner = runner
        self.transactions_per_cycle = transactions_per_cycle
        self._lock: IO[str] | None = lock

    @property
    def database(self) -> SimDatabase:
        return self.runner.db

    @classmethod
    def open(
        cls, directory: Path, spec: WorkloadSpec, transactions_per_cycle: int = 0
    ) -> SavedSimulation:
        """The database saved in ``directory``, or a new one running ``spec.transactions``."""
        if transactions_per_cycle < 0:
            raise SourceError(
                f"source.transactions_per_cycle is {transactions_per_cycle}",
                fix="use 0 (the database does not change) or a positive number",
            )
        try:
            lock = acquire_process_lock(directory / LOCK_FILE)
        except ProcessLockHeldError as held:
            raise SourceError(
                f"the simulated database in {directory} is in use by another oracdc process "
                f"(pid {held.holder})",
                fix="wait for that command to end, or stop it",
            ) from None
        try:
            runner = _load(directory / DATABASE_FILE, spec)
            created = runner is None
            if runner is None:
                runner = WorkloadRunner(SimDatabase(), spec)
                runner.run(spec.transactions)
            saved = cls(directory, runner, transactions_per_cycle, lock)
            if created:
                saved.save()
                LOG.info("simulated database created in %s (%d transactions)", directory,
                         spec.transactions)  # fmt: skip
            else:
                LOG.info("simulated database loaded from %s (SCN %d)", directory,
                         runner.db.current_scn())  # fmt: skip
            return saved
        except BaseException:
            release_process_lock(lock)
            raise

    def advance(self) -> int:
        """Run ``transactions_per_cycle`` more transactions and save; returns that number."""
        if self.transactions_per_cycle == 0:
            return 0
        self.runner.run(self.transactions_per_cycle)
        self.save()
        return self.transactions_per_cycle

    def save(self) -> None:
        saved = _Saved(_FORMAT, __version__, asdict(self.runner.spec), self.runner)
        write_bytes_atomically(
            self.directory / DATABASE_FILE, pickle.dumps(saved, protocol=pickle.HIGHEST_PROTOCOL)
        )

    def close(self) -> None:
        """Let another process open it (idempotent). Nothing is saved here: every step was
        saved when it ended, reads change nothing, and a step that failed half-way (an error,
        an interrupt) must not be kept."""
        if self._lock is None:
            return
        release_process_lock(self._lock)
        self._lock = None


def _load(path: Path, spec: WorkloadSpec) -> WorkloadRunner | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    data_dir = path.parent.parent
    fix = (
        f"delete the data directory {data_dir} to start over: a new simulated database, "
        "snapshotted again by the next `oracdc sync`"
    )
    try:
        saved = pickle.loads(data)  # our own file, written by SavedSimulation.save
    except Exception as error:  # any unpickling failure: a damaged file or another version
        raise SourceError(
            f"cannot read the simulated database {path} ({type(error).__name__}: {error})",
            fix=fix,
        ) from None
    if not isinstance(saved, _Saved) or saved.format != _FORMAT or saved.version != __version__:
        written_by = saved.version if isinstance(saved, _Saved) else "unknown"
        raise SourceError(
            f"the simulated database {path} was saved by oracdc {written_by}, "
            f"this is {__version__}",
            fix=fix,
        )
    differences = [
        f"{name}: {saved.spec.get(name)!r} saved, {value!r} configured"
        for name, value in asdict(spec).items()
        if saved.spec.get(name) != value
    ]
    if differences:
        raise SourceError(
            f"the simulated database {path} was made with other source settings "
            f"({'; '.join(differences)})",
            fix=f"restore those settings in oracdc.yml, or {fix}",
        )
    return saved.runner
