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

A RESETLOGS needs the database closed, so every session of a running extractor is cut: the
check before each pass (one V$DATABASE query) sees it. What it cannot see (a PDB flashback)
is in docs/extraction.md, "A source restored to an earlier SCN".
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
    (None: the same incarnation of the same database)."""
    if known == now:
        return None
    if known.dbid != now.dbid:
        return (
            f"the source is another database ({now.describe()}) than the one replicated so "
            f"far ({known.describe()})"
        )
    return (
        f"the source database was opened with RESETLOGS at SCN {now.resetlogs_change} "
        f"({now.resetlogs_time}; was RESETLOGS_CHANGE# {known.resetlogs_change} at "
        f"{known.resetlogs_time}): changes committed above SCN {now.resetlogs_change - 1} "
        "before it are gone from the database"
    )


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
            assert change is not None
        started = self._started_in(checkpoint)
        if started:
            self._start_again_or_stop(change, started)
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

    def _started_in(self, checkpoint: Checkpoint) -> list[TableDef]:
        """The replicated tables whose snapshot or changes came from the checkpoint's
        incarnation (not waiting for a new snapshot)."""
        return [
            table
            for table in self._replicated()
            if (state := checkpoint.tables.get(table.qualified_name)) is not None
            and state.status != "pending"
        ]

    def _start_again_or_stop(self, change: str, started: list[TableDef]) -> None:
        modes = self._config.snapshot_modes
        if any(modes.mode_of(t.owner, t.name) != "when_needed" for t in started):
            raise SourceIncarnationError(
                f"{change}; the replicas may hold changes the source no longer has",
                fix=RESNAPSHOT_FIX,
            )
        LOG.warning("%s: every table is snapshotted again (snapshot_mode when_needed)", change)
        self._take_again(started, "the source database was opened with RESETLOGS")

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
    if known.dbid != now.dbid:
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
