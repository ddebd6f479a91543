"""Mining windows into committed transactions: the source's rows of each LogMiner window,
CSF chains joined, assembled by the transaction buffer, with the window's facts at its end.

``WindowMiner.mine`` yields each committed transaction as the buffer releases it, in commit
order, then a :class:`MinedWindow` for the window: where it ended and what the buffer holds
then (the checkpoint's ``resume_scn`` comes from it). It runs in the extracting process
(``mining.reader: inline``) or in a mining process that hands both on
(``extractor.assemble.mining_process``); the pipeline lands and checkpoints either way.

Each window's LogMiner session starts at the first SCN of the oldest transaction still open
(the window's start when none is), so that LogMiner reads each transaction it renders from
its beginning; the source hands on the window's rows only (docs/transactions.md).

Window sizes follow :func:`next_window_scns`. A window whose first SCN ends in a cut-off CSF
chain ends before it starts (``window_end < start``): it is reported, then mined again twice as
large, or, when it reached the target SCN already, the call ends there (the chain's rest is
not written yet). Open transactions begun more than ``transaction_retention_scns`` below a
window's end are discarded before the window is reported (docs/transactions.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from extractor.assemble.csf import ContinuationJoiner
from extractor.assemble.records import BufferMetrics, CommittedTransaction
from extractor.assemble.transaction_buffer import TransactionBuffer
from extractor.config import MiningSettings
from extractor.dictionary import TableDef
from extractor.redo_position import CommitPosition
from extractor.source.base import Source


@dataclass(frozen=True)
class MinedWindow:
    """One window mined: ``[start_scn, window_end]`` (``window_end < start_scn`` when a CSF
    chain at its first SCN was cut off), and the buffer's state once its commits were handed
    on and the retention limit applied."""

    start_scn: int
    window_end: int
    window_scns: int  # the size it was mined with
    # where its LogMiner session started: the first SCN of the oldest transaction open
    # before it, or start_scn, or later when the redo back there was gone (the source's
    # last_session_start_scn; docs/transactions.md "Transactions across windows")
    session_start_scn: int
    rows_read: int
    oldest_open_scn: int | None
    buffer: BufferMetrics
    abandoned: int  # open transactions discarded by the retention limit at its end
    redo_logs: tuple[str, ...]  # RedoLogInUse.describe() of each log the window read


class WindowMiner:
    """Mines windows of ``source`` and keeps the open transactions between calls."""

    def __init__(
        self,
        source: Source,
        mining: MiningSettings,
        memory_budget_bytes: int,
        spill_dir: Path,
    ) -> None:
        self._source = source
        self._mining = mining
        self._memory_budget_bytes = memory_budget_bytes
        self._spill_dir = spill_dir
        self._buffer: TransactionBuffer | None = None
        self.window_scns = mining.window_scns

    def reset(
        self,
        emit_after: CommitPosition | None,
        known_objects: Mapping[int, tuple[str, str]] | None = None,
    ) -> None:
        """Forget the open transactions; later commits at or before ``emit_after`` are
        skipped (they landed before the checkpoint). ``known_objects``: OBJECT_IDs the
        checkpoint keeps for its tables (``OracleSource.remember_objects``)."""
        remember = getattr(self._source, "remember_objects", None)
        if known_objects and remember is not None:
            remember(known_objects)
        self.close()
        self._spill_dir.mkdir(parents=True, exist_ok=True)
        self._buffer = TransactionBuffer(
            self._memory_budget_bytes, self._spill_dir, emit_after=emit_after
        )

    def mined_objects(self) -> Mapping[int, tuple[str, str]]:
        """OBJECT_ID -> (owner, table) the source mines by (none for sources that do not)."""
        mined = getattr(self._source, "mined_objects", None)
        return {} if mined is None else dict(mined())

    def mine(
        self, tables: Sequence[TableDef], start_scn: int, target_scn: int
    ) -> Iterator[CommittedTransaction | MinedWindow]:
        """Windows from ``start_scn`` up to ``target_scn``: each one's committed transactions,
        then its :class:`MinedWindow`. ``reset`` must have been called once."""
        buffer = self._buffer
        if buffer is None:
            raise RuntimeError("WindowMiner.mine before reset")
        while start_scn <= target_scn:
            window_scns = self.window_scns
            end = min(start_scn + window_scns - 1, target_scn)
            joiner = ContinuationJoiner(hold_incomplete=True)
            rows_read = 0
            oldest_open = buffer.oldest_open_scn()
            session_start = start_scn if oldest_open is None else min(oldest_open, start_scn)
            with self._source.mine(start_scn, end, tables, session_start) as rows:
                for row in joiner.join(rows):
                    rows_read += 1
                    committed = buffer.add(row)
                    if committed is not None:
                        yield committed
            window_end = end if joiner.resume_scn is None else joiner.resume_scn - 1
            abandoned = 0
            retention = self._mining.transaction_retention_scns
            if retention is not None:
                abandoned = len(buffer.abandon_older_than(window_end - retention))
            logs = tuple(log.describe() for log in self._source.last_window_logs())
            started = getattr(self._source, "last_session_start_scn", None)
            if started is not None and (actual := started()) is not None:
                session_start = actual  # later when the redo back there was gone
            yield MinedWindow(
                start_scn,
                window_end,
                window_scns,
                session_start,
                rows_read,
                buffer.oldest_open_scn(),
                buffer.metrics(),
                abandoned,
                logs,
            )
            if window_end < start_scn:
                # A CSF chain at the window's first SCN was cut off: mine a larger window,
                # unless the window reached the target already (the chain's rest is above it:
                # the next call, with a later target, mines it).
                if end >= target_scn:
                    return
                self.window_scns = min(window_scns * 2, self._mining.max_window_scns * 2)
                continue
            self.window_scns = next_window_scns(window_scns, rows_read, self._mining)
            start_scn = window_end + 1

    def close(self) -> None:
        if self._buffer is not None:
            self._buffer.close()
            self._buffer = None


def next_window_scns(window_scns: int, rows_read: int, mining: MiningSettings) -> int:
    """The next window's size: halved above ``target_rows_per_window`` rows, doubled below
    half of it (each window costs one append per table: fewer, fuller windows land faster),
    within ``[min_window_scns, max_window_scns]``."""
    if rows_read > mining.target_rows_per_window:
        return max(mining.min_window_scns, window_scns // 2)
    if rows_read < mining.target_rows_per_window // 2:
        return min(mining.max_window_scns, window_scns * 2)
    return window_scns


class TransactionFeed(Protocol):
    """What the pipeline mines through: a :class:`WindowMiner` in this process, or the
    mining process's proxy (``extractor.assemble.mining_process.MiningProcess``)."""

    def reset(
        self,
        emit_after: CommitPosition | None,
        known_objects: Mapping[int, tuple[str, str]] | None = None,
    ) -> None: ...

    def mined_objects(self) -> Mapping[int, tuple[str, str]]: ...

    def mine(
        self, tables: Sequence[TableDef], start_scn: int, target_scn: int
    ) -> Iterator[CommittedTransaction | MinedWindow]: ...

    def close(self) -> None: ...
