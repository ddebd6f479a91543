"""Choosing the redo logs that cover an SCN range (reference §2).

Candidates come from V$ARCHIVED_LOG (one copy per log: the lowest local valid destination
holding it; current incarnation) and from the online logs (V$LOG joined to V$LOGFILE). A log
holds SCNs ``FIRST_CHANGE# <= scn < NEXT_CHANGE#``; the CURRENT log is open-ended.
Candidates are deduplicated on (THREAD#, SEQUENCE#), preferring the archived copy (an online
log can be overwritten while it is mined), and each redo thread must cover the part of the
range it wrote redo in, without a hole: the first log starts at or before it,
``prev.NEXT_CHANGE# = next.FIRST_CHANGE#`` between neighbours, and the last log reaches past
its end or is the CURRENT log. Which threads and which part come from V$THREAD
(:class:`RedoThread`), not from the candidates: a RAC thread none of whose logs is listed
would otherwise pass unseen and its changes be lost. A hole raises MissingRedoLogError
naming the SCNs that cannot be read.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from extractor.errors import MissingRedoLogError
from extractor.source.oracle import queries

# NEXT_CHANGE# of the CURRENT online log on Oracle 12c+ (2**48 - 1); anything this large
# means "open-ended".
OPEN_ENDED_NEXT_CHANGE = 281_474_976_710_655


@dataclass(frozen=True, slots=True)
class RedoLog:
    """One redo log file: SCNs ``first_change <= scn < next_change`` (None: open-ended)."""

    name: str
    thread: int
    sequence: int
    first_change: int
    next_change: int | None
    online: bool

    def covers(self, scn: int) -> bool:
        return self.first_change <= scn and (self.next_change is None or scn < self.next_change)


@dataclass(frozen=True, slots=True)
class RedoThread:
    """One row of V$THREAD: a redo thread (one per RAC instance) and the SCNs it wrote in."""

    thread: int
    status: str  # OPEN | CLOSED
    enabled: str  # PUBLIC | PRIVATE | DISABLED
    enable_change: int
    checkpoint_change: int
    disable_change: int

    def redo_span(self, start_scn: int, end_scn: int) -> tuple[int, int] | None:
        """The part of ``start_scn..end_scn`` (inclusive) this thread may hold redo for:
        from its ENABLE_CHANGE#; an OPEN thread to the end, a CLOSED one to its
        CHECKPOINT_CHANGE# (written at shutdown), a DISABLED one below its DISABLE_CHANGE#
        (no redo at or beyond it). None when nothing of the range."""
        low = max(start_scn, self.enable_change)
        if self.enabled == "DISABLED":
            high = min(end_scn, self.disable_change - 1)
        elif self.status == "OPEN":
            high = end_scn
        else:
            high = min(end_scn, self.checkpoint_change)
        return (low, high) if low <= high else None


def read_threads(cursor: Any) -> list[RedoThread]:
    """Every redo thread of V$THREAD."""
    cursor.execute(queries.REDO_THREADS, {})
    return [
        RedoThread(
            thread=int(thread), status=str(status), enabled=str(enabled),
            enable_change=int(enable or 0), checkpoint_change=int(checkpoint or 0),
            disable_change=int(disable or 0),
        )
        for thread, status, enabled, enable, checkpoint, disable in cursor.fetchall()
    ]  # fmt: skip


def read_log_catalog(cursor: Any, start_scn: int, end_scn: int) -> list[RedoLog]:
    """Archived and online logs overlapping ``start_scn..end_scn`` (before deduplication)."""
    binds = {"start_scn": start_scn, "end_scn": end_scn}
    logs: list[RedoLog] = []
    cursor.execute(queries.ARCHIVED_LOGS, binds)
    for name, thread, sequence, first, next_change in cursor.fetchall():
        logs.append(_log(name, thread, sequence, first, next_change, online=False))
    cursor.execute(queries.ONLINE_LOGS, binds)
    for name, thread, sequence, first, next_change, status in cursor.fetchall():
        open_ended = status == "CURRENT"
        logs.append(
            _log(name, thread, sequence, first, None if open_ended else next_change, online=True)
        )
    return logs


def select_logs(
    candidates: Iterable[RedoLog],
    start_scn: int,
    end_scn: int,
    threads: Sequence[RedoThread] = (),
) -> list[RedoLog]:
    """The logs to add for ``start_scn..end_scn`` (inclusive), one per (thread, sequence),
    ordered by thread and sequence; MissingRedoLogError on any hole. Each of ``threads``
    (V$THREAD) must cover its :meth:`RedoThread.redo_span`; a thread with candidates that
    V$THREAD does not list must cover the whole range."""
    chosen: dict[tuple[int, int], RedoLog] = {}
    for log in candidates:
        if log.next_change is not None and log.next_change <= start_scn:
            continue
        if log.first_change > end_scn:
            continue
        key = (log.thread, log.sequence)
        if key not in chosen or (chosen[key].online and not log.online):
            chosen[key] = log
    if not chosen:
        raise MissingRedoLogError(start_scn, end_scn, "no redo log covers this range")
    by_thread: dict[int, list[RedoLog]] = {}
    for log in chosen.values():
        by_thread.setdefault(log.thread, []).append(log)
    spans = {t.thread: t.redo_span(start_scn, end_scn) for t in threads}
    ordered: list[RedoLog] = []
    for thread in sorted(set(by_thread) | set(spans)):
        logs = sorted(by_thread.get(thread, []), key=lambda log: log.sequence)
        span = spans.get(thread, (start_scn, end_scn))
        if span is not None:
            _check_continuity(thread, logs, *span)
        ordered.extend(logs)
    return ordered


def _check_continuity(thread: int, logs: Sequence[RedoLog], start_scn: int, end_scn: int) -> None:
    if not logs:
        raise MissingRedoLogError(
            start_scn,
            end_scn,
            f"redo thread {thread} (V$THREAD) has no log for these SCNs; its archived logs "
            "were purged or are on a destination this database does not list",
        )
    first = logs[0]
    if first.first_change > start_scn:
        raise MissingRedoLogError(
            start_scn,
            first.first_change - 1,
            f"thread {thread} has no log before sequence {first.sequence} "
            f"(FIRST_CHANGE# {first.first_change}); older logs were purged",
        )
    for previous, following in itertools.pairwise(logs):
        if previous.next_change != following.first_change:
            raise MissingRedoLogError(
                previous.next_change or previous.first_change,
                following.first_change - 1,
                f"thread {thread} sequences {previous.sequence} to {following.sequence} "
                "are not contiguous (a log in between is missing)",
            )
    last = logs[-1]
    if last.next_change is not None and last.next_change <= end_scn:
        raise MissingRedoLogError(
            last.next_change,
            end_scn,
            f"thread {thread} has no log after sequence {last.sequence} "
            f"(NEXT_CHANGE# {last.next_change})",
        )


def _log(
    name: Any, thread: Any, sequence: Any, first: Any, next_change: Any, *, online: bool
) -> RedoLog:
    next_value = None if next_change is None else int(next_change)
    if next_value is not None and next_value >= OPEN_ENDED_NEXT_CHANGE:
        next_value = None
    return RedoLog(
        name=str(name),
        thread=int(thread),
        sequence=int(sequence),
        first_change=int(first),
        next_change=next_value,
        online=online,
    )
