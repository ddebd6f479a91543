"""Records the transaction buffer hands to the pipeline (positions: ``extractor.redo_position``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from extractor.logminer_row import LogMinerRow
from extractor.redo_position import CommitPosition, RedoPosition


@dataclass(frozen=True, slots=True)
class CommittedTransaction:
    """A committed transaction: its surviving change rows, in redo order.

    ``rows`` is a one-shot iterator; when the transaction was spilled it streams the spill
    file back and deletes it when exhausted or closed. ``saw_start`` is False when the START
    row was not mined (the transaction began before the first window), so earlier changes
    of it may be missing.
    """

    xid: str
    start_scn: int
    commit_scn: int
    commit_timestamp: str | None
    commit_rs_id: str
    commit_ssn: int
    saw_start: bool
    row_count: int
    rows: Iterator[LogMinerRow]

    @property
    def position(self) -> CommitPosition:
        return CommitPosition(self.commit_scn, RedoPosition.of(self.commit_rs_id, self.commit_ssn))


@dataclass(frozen=True, slots=True)
class OpenTransactionSummary:
    """One still-open transaction, as ``oracdc status`` shows it."""

    xid: str
    first_scn: int
    saw_start: bool
    rows: int
    bytes_in_memory: int
    spilled_bytes: int


@dataclass(frozen=True, slots=True)
class BufferMetrics:
    """Counters of a :class:`TransactionBuffer` since it was created.

    Byte counts are the buffer's own estimate (SQL_REDO length + a fixed per-row overhead).
    """

    bytes_in_memory: int
    bytes_spilled_total: int
    spill_files_open: int
    open_transactions: int
    committed: int
    rolled_back: int
    empty_commits: int
    skipped_already_emitted: int
    cancelled_rows: int
    unmatched_rollback_rows: int
    ignored_rows: int
    partial_xid_rows: int = 0  # rows with XID sequence FFFFFFFF matched by segment + slot
    marker_transactions: int = 0  # replication-marker-only transactions discarded
    abandoned: int = 0  # open transactions discarded by the retention limit
    abandoned_rows: int = 0  # later rows of abandoned transactions, dropped
    row_ids_from_next_row: int = 0  # changes shown without ROWID, given their statement's
    changes_without_row_id: int = 0  # changes shown without ROWID that no row gave one
