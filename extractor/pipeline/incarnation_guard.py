"""The source's incarnation against the checkpoint's, before each snapshot and mining pass.

After ``ALTER DATABASE OPEN RESETLOGS`` (an incomplete recovery, FLASHBACK DATABASE, a
failover) the changes committed above the new RESETLOGS_CHANGE# are gone from the database,
and the new incarnation hands out the same SCNs again. Mining on from the checkpoint would
skip the new changes at SCNs already passed and keep the lost ones in the replicas, silently.
So a new incarnation stops replication until every table is snapshotted again
(``oracdc snapshot --force``; by itself when every such table has ``snapshot_mode:
when_needed``). Then the checkpoint takes the new incarnation and forgets where mining was;
the snapshot waits until the source's SCN passes every commit SCN landed before: its reset
markers order after those rows and retire them. Another DBID stops replication for good: it
is another database.

In a multitenant database the replicated PDB's incarnation (V$PDB_INCARNATION) is compared
too: FLASHBACK PLUGGABLE DATABASE, or a PDB point-in-time recovery, then OPEN RESETLOGS of
the PDB starts a new one and leaves V$DATABASE as it was. The changes the PDB lost stay in
the replicas unless every table is snapshotted again: the same stop, or the same snapshots
under ``when_needed``. The CDB's SCNs go on, so the snapshot does not wait.

A RESETLOGS needs the database (or the PDB) closed, so every session of a running extractor
in it is cut: the check before each pass sees it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from extractor.config import OracdcConfig
from extractor.dictionary import TableDef
from extractor.errors import SourceIncarnationError
from extractor.incarnation import SourceIncarnation
from extractor.land.staging_writer import StagingWriter
from extractor.source.base import Source
from extractor.state.checkpoint import Checkpoint, CheckpointStore

LOG = logging.getLogger(__name__)

RESNAPSHOT_FIX = (
    "run `oracdc snapshot --force` to snapshot every table again "
    '(docs/operations.md, "The source database was restored or replaced")'
)
WAIT_LOG_EVERY_SECONDS = 60.0  # a waiting snapshot says where the SCN stands this often

TakeAgain = Callable[[Sequence[TableDef], str], None]


def incarnation_change(known: SourceIncarnation, now: SourceIncarnation) -> str | None:
    """What changed between the checkpoint's incarnation and the source's, for a person
    (None: the same incarnation of the same database, or one of them does not know its
    PDB's incarnation)."""
    if known == now:
        return None
    if known.dbid != now.dbid:
        return (
            f"the source is another database ({now.describe()}) than the one replicated so "
            f"far ({known.describe()})"
        )
    if known.database_part() != now.database_part():
        return (
            f"the source database was opened with RESETLOGS at SCN {now.resetlogs_change} "
            f"({now.resetlogs_time}; was RESETLOGS_CHANGE# {known.resetlogs_change} at "
            f"{known.resetlogs_time}): changes committed above SCN {now.resetlogs_change - 1} "
            "before it are gone from the database"
        )
    if known.pdb is None or now.pdb is None:
        return None
    if known.pdb.dbid != now.pdb.dbid:
        return (
            f"the source PDB is another one (PDB DBID {now.pdb.dbid}, was {known.pdb.dbid}: a "
            "clone or another copy put in its place) than the one replicated so far"
        )
    return _pdb_flashback(now)


def _pdb_flashback(now: SourceIncarnation) -> str:
    assert now.pdb is not None
    return (
        f"the pluggable database was flashed back or recovered to SCN {now.pdb.scn} and "
        f"opened with RESETLOGS at SCN {now.pdb.opened_scn} (PDB incarnation "
        f"{now.pdb.number}): changes committed in it above SCN {now.pdb.scn} before that are "
        "gone from it"
    )


def _reopened(known: SourceIncarnation | None, now: SourceIncarnation) -> str:
    """Why every table is snapshotted again, in a few words."""
    if known is not None and known.database_part() == now.database_part():
        return "the pluggable database was opened with RESETLOGS"
    return "the source database was opened with RESETLOGS"


class IncarnationGuard:
    """Checks the source's incarnation (``check``) before each snapshot and mining pass."""

    def __init__(
        self,
        config: OracdcConfig,
        source: Source,
        store: CheckpointStore,
        writer: StagingWriter,
        *,
        replicated: Callable[[], list[TableDef]],
        take_again: TakeAgain,
        on_adopted: Callable[[], None],
    ) -> None:
        self._config = config
        self._source = source
        self._store = store
        self._writer = writer
        self._replicated = replicated
        self._take_again = take_again
        self._on_adopted = on_adopted

    def check(self) -> bool:
        """Pass when the source is the checkpoint's incarnation (recording it the first
        time); after a RESETLOGS, adopt the new one once no table is started in the old
        one (or send them back to be snapshotted under ``when_needed``: returns True);
        raise SourceIncarnationError otherwise."""
        now = self._source.incarnation()
        checkpoint = self._store.current
        known = checkpoint.incarnation
        if now is None or now == known:
            return False
        if known is None:
            change = self._restore_before(checkpoint)
            if change is None:
                LOG.info("source database: %s", now.describe())
                self._store.save(replace(checkpoint, incarnation=now))
                return False
        else:
            _refuse_another_database(known, now)
            change = incarnation_change(known, now)
            if change is None and now.pdb is None:  # the PDB's cannot be read: keep what was
                return False
            if change is None:  # the checkpoint knew the database's incarnation, not its PDB's
                change = self._pdb_flashback_before(checkpoint, now)
                if change is None:
                    LOG.info("source database: %s", now.describe())
                    self._store.save(replace(checkpoint, incarnation=now))
                    return False
        started = self._started_in(checkpoint)
        if started:
            self._start_again_or_stop(change, started, _reopened(known, now))
        self._adopt(now)
        return bool(started)

    def check_database(self) -> None:
        """Raise SourceIncarnationError when the source is another database (DBID) than the
        checkpoint's: nothing of the checkpoint may be changed for it."""
        known, now = self._store.current.incarnation, self._source.incarnation()
        if known is not None and now is not None:
            _refuse_another_database(known, now)

    def _restore_before(self, checkpoint: Checkpoint) -> str | None:
        """For a checkpoint that never saw the source's incarnation (written before this
        check, or new after one was moved aside): why the source was restored since what
        landed, when the checkpoint's mining position or a commit SCN in staging is above
        its current SCN (SCNs never go back otherwise); None when neither is."""
        current = self._source.current_scn()
        above = [
            (scn, where)
            for scn, where in (
                (checkpoint.mined_to_scn, "the checkpoint's mined_to_scn"),
                (self._writer.max_commit_scn(), "a commit SCN in staging"),
            )
            if scn is not None and scn > current
        ]
        if not above:
            return None
        scn, where = max(above)
        return (
            f"{where} ({scn}) is above the source's current SCN {current}: the source was "
            "restored to an earlier SCN (OPEN RESETLOGS) since those changes landed"
        )

    def _pdb_flashback_before(self, checkpoint: Checkpoint, now: SourceIncarnation) -> str | None:
        """For a checkpoint that knew the database's incarnation but not its PDB's (written
        before it was kept): why the PDB was flashed back since what landed, when a
        replicated table was snapshotted before the PDB's current incarnation opened and
        changes above the SCN it went back to were mined or landed; None otherwise."""
        pdb = now.pdb
        if pdb is None or pdb.number == 0:
            return None
        before = [
            table
            for table in self._started_in(checkpoint)
            if (scn := checkpoint.tables[table.qualified_name].snapshot_scn) is None
            or scn < pdb.opened_scn
        ]
        if not before:
            return None
        landed = max(checkpoint.mined_to_scn or 0, self._writer.max_commit_scn() or 0)
        return _pdb_flashback(now) if landed > pdb.scn else None

    def _started_in(self, checkpoint: Checkpoint) -> list[TableDef]:
        """The replicated tables whose snapshot or changes came from the checkpoint's
        incarnation (not waiting for a new snapshot)."""
        return [
            table
            for table in self._replicated()
            if (state := checkpoint.tables.get(table.qualified_name)) is not None
            and state.status != "pending"
        ]

    def _start_again_or_stop(self, change: str, started: list[TableDef], reason: str) -> None:
        modes = self._config.snapshot_modes
        if any(modes.mode_of(t.owner, t.name) != "when_needed" for t in started):
            raise SourceIncarnationError(
                f"{change}; the replicas may hold changes the source no longer has",
                fix=RESNAPSHOT_FIX,
            )
        LOG.warning("%s: every table is snapshotted again (snapshot_mode when_needed)", change)
        self._take_again(started, reason)

    def _adopt(self, now: SourceIncarnation) -> None:
        """Take the new incarnation: the next snapshot must pass the highest commit SCN in
        staging (also rows of a process that crashed before its checkpoint covered them),
        and where mining was in the old one is forgotten (``verify`` compares a table at
        the later of ``mined_to_scn`` and its snapshot; a snapshot below ``last_commit``
        is refused, and a transaction that landed no change row, quarantined, may hold it
        above every landed commit SCN)."""
        above = self._writer.max_commit_scn()  # None or below RESETLOGS_CHANGE#: no wait
        checkpoint = self._store.current
        self._store.save(
            replace(
                checkpoint,
                incarnation=now,
                snapshot_above_scn=above,
                last_commit=None,
                mined_to_scn=None,
            )
        )
        LOG.warning(
            "source database: %s from now on%s",
            now.describe(),
            "" if above is None else f"; the next snapshot is taken above SCN {above}",
        )
        self._on_adopted()


def _refuse_another_database(known: SourceIncarnation, now: SourceIncarnation) -> None:
    another_pdb = known.pdb is not None and now.pdb is not None and known.pdb.dbid != now.pdb.dbid
    if known.dbid != now.dbid or (known.database_part() == now.database_part() and another_pdb):
        raise SourceIncarnationError(
            str(incarnation_change(known, now)),
            fix="point source.dsn back at that database; to replicate this one instead, "
            'start with an empty data_dir and staging_schema (docs/operations.md, "The '
            'source database was restored or replaced")',
        )


def wait_for_scn_above(source: Source, scn: int, poll_seconds: float) -> int:
    """Wait until the source's current SCN is above ``scn``; returns it. A warning says
    where it stands at once and then every minute (a new incarnation's SCN passes the old
    one's at its own pace: as fast as the database makes changes)."""
    logged_at: float | None = None
    while (current := source.current_scn()) <= scn:
        if logged_at is None or time.monotonic() - logged_at >= WAIT_LOG_EVERY_SECONDS:
            LOG.warning(
                "snapshot waits for the source's SCN to pass %d, the highest landed before "
                "its RESETLOGS: now %d (%d to go)",
                scn, current, scn - current + 1,
            )  # fmt: skip
            logged_at = time.monotonic()
        time.sleep(max(poll_seconds, 1.0))
    return current
