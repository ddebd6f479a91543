"""Buffer joined LogMiner rows per transaction until COMMIT; emit committed work in commit order.

Rules (``docs/transactions.md`` explains them with examples):

- START (6) opens a transaction; so does the first row of an unseen XID (it began before the
  mining window; ``saw_start`` is then False).
- Every other data row (DML 1/2/3, DDL 5, LOB 9/10/11/28/29, UNSUPPORTED 255 and any code not
  listed here) is buffered in arrival order, which is LogMiner's redo order within a
  transaction.
- A row with ROLLBACK = 1 cancels the most recent not-yet-cancelled event of the same XID
  with the same ROW_ID and is dropped itself (savepoint / statement rollback); an undo
  DELETE cancels back to and including the INSERT it compensates (an INSERT of a row with a
  LOB is followed by the UPDATE that writes the LOB; one DELETE undoes both).
- ROLLBACK (36) discards the transaction. COMMIT (7) completes it: :meth:`add` returns a
  :class:`CommittedTransaction`, unless it has no surviving rows or its commit position is
  ``<= emit_after`` (already emitted before a restart, or covered by the snapshot).
- INTERNAL (0), SELECT_FOR_UPDATE (25) and replication markers (27) carry no change: counted
  and dropped. MISSING_SCN (34) is a hole in the redo: :class:`RedoGapError`.
- When the estimated bytes in memory exceed the budget, the largest transactions' rows are
  written to spill files until memory is under half the budget.
"""

from __future__ import annotations

import os
import weakref

from extractor.assemble.errors import AssemblyError, RedoGapError
from extractor.assemble.open_transaction import OpenTransaction
from extractor.assemble.records import (
    BufferMetrics,
    CommitPosition,
    CommittedTransaction,
    OpenTransactionSummary,
)
from extractor.assemble.spill import SpillFile
from extractor.logminer_row import LogMinerRow, redo_position

# Estimated memory of one buffered row beyond its SQL_REDO text: the LogMinerRow object and
# its small strings (RS_ID, ROW_ID, timestamps) and ints, plus the bookkeeping below.
ROW_OVERHEAD_BYTES = 500

START, COMMIT, ROLLBACK, MISSING_SCN = 6, 7, 36, 34
INSERT, DELETE = 1, 2
IGNORED_CODES = frozenset({0, 25, 27})
_NOT_EVENTS = frozenset({START, COMMIT, ROLLBACK, MISSING_SCN}) | IGNORED_CODES


class TransactionBuffer:
    """Assembles joined LogMiner rows (mining order) into committed transactions.

    ``memory_budget_bytes`` bounds the estimated size of buffered rows held in memory;
    ``spill_dir`` receives the spill files (it must exist). ``emit_after`` drops transactions
    whose :class:`CommitPosition` is at or before it (restart and snapshot handover).
    The pipeline must consume each returned transaction's ``rows`` before the next call to
    :meth:`add` to keep memory within the budget.
    """

    def __init__(
        self,
        memory_budget_bytes: int,
        spill_dir: str | os.PathLike[str],
        *,
        emit_after: CommitPosition | None = None,
    ) -> None:
        if memory_budget_bytes <= 0:
            raise ValueError("memory_budget_bytes must be positive")
        self.memory_budget_bytes = memory_budget_bytes
        self.spill_dir = spill_dir
        self.emit_after = emit_after
        self._open: dict[str, OpenTransaction] = {}
        self._spill_files: weakref.WeakSet[SpillFile] = weakref.WeakSet()
        self._bytes_in_memory = 0
        self._bytes_spilled_total = 0
        self._committed = 0
        self._rolled_back = 0
        self._empty_commits = 0
        self._skipped_already_emitted = 0
        self._cancelled_rows = 0
        self._unmatched_rollback_rows = 0
        self._ignored_rows = 0

    # -- the hot path -------------------------------------------------------------------

    def add(self, row: LogMinerRow) -> CommittedTransaction | None:
        """Take the next joined row; returns the transaction this row commits, if any."""
        code = row.operation_code
        if code not in _NOT_EVENTS:
            transaction = self._open.get(row.xid)
            if transaction is None:
                transaction = self._open[row.xid] = OpenTransaction(row.xid, row.scn, False)
            if row.rollback:
                self._cancel(transaction, row)
            else:
                self._append(transaction, row)
            return None
        if code == COMMIT:
            return self._commit(row)
        if code == START:
            if row.xid not in self._open:
                self._open[row.xid] = OpenTransaction(row.xid, row.scn, True)
            return None
        if code == ROLLBACK:
            self._discard(row.xid)
            return None
        if code == MISSING_SCN:
            raise RedoGapError(xid=row.xid, scn=row.scn, status=row.status, info=row.info)
        self._ignored_rows += 1
        return None

    def _append(self, transaction: OpenTransaction, row: LogMinerRow) -> None:
        events = transaction.events
        row_id = row.row_id
        if row_id is None:
            transaction.previous.append(-1)
        else:
            last_by_row_id = transaction.last_by_row_id
            transaction.previous.append(last_by_row_id.get(row_id, -1))
            last_by_row_id[row_id] = len(events)
        events.append(row)
        transaction.live += 1
        size = ROW_OVERHEAD_BYTES + len(row.sql_redo or "")
        transaction.memory_bytes += size
        self._bytes_in_memory += size
        if self._bytes_in_memory > self.memory_budget_bytes:
            self._spill_largest()

    def _cancel(self, transaction: OpenTransaction, row: LogMinerRow) -> None:
        """Undo what a ROLLBACK = 1 row compensates.

        An undo DELETE compensates an INSERT: it cancels the row's events back to and
        including that INSERT (an INSERT with a LOB is followed by the UPDATE writing the LOB,
        both undone by the one DELETE). Any other undo row cancels the latest event.
        """
        if row.row_id is None:
            self._unmatched_rollback_rows += 1
            return
        if row.operation_code != DELETE:
            self._cancel_latest(transaction, row.row_id)
            return
        while True:
            cancelled = self._cancel_latest(transaction, row.row_id)
            if cancelled is None or cancelled.operation_code == INSERT:
                return

    def _cancel_latest(self, transaction: OpenTransaction, row_id: str) -> LogMinerRow | None:
        slot = transaction.last_by_row_id.get(row_id, -1)
        if slot < 0:
            if transaction.spill is None:
                self._unmatched_rollback_rows += 1
            else:
                transaction.spilled_cancels.append((row_id, transaction.first_in_memory))
            return None
        before = transaction.previous[slot]
        if before < 0:
            del transaction.last_by_row_id[row_id]
        else:
            transaction.last_by_row_id[row_id] = before
        cancelled = transaction.events[slot]
        transaction.events[slot] = None
        size = ROW_OVERHEAD_BYTES + len((cancelled and cancelled.sql_redo) or "")
        transaction.memory_bytes -= size
        self._bytes_in_memory -= size
        transaction.live -= 1
        self._cancelled_rows += 1
        return cancelled

    def _commit(self, row: LogMinerRow) -> CommittedTransaction | None:
        transaction = self._open.pop(row.xid, None)
        if transaction is None:
            self._empty_commits += 1
            return None
        self._bytes_in_memory -= transaction.memory_bytes
        if transaction.spilled_cancels:
            pending = len(transaction.spilled_cancels)
            unmatched = transaction.resolve_spilled_cancels()
            self._unmatched_rollback_rows += unmatched
            self._cancelled_rows += pending - unmatched
        if transaction.live == 0:
            self._empty_commits += 1
            self._drop_spill(transaction)
            return None
        if self._already_emitted(row):
            self._skipped_already_emitted += 1
            self._drop_spill(transaction)
            return None
        self._committed += 1
        return CommittedTransaction(
            xid=transaction.xid,
            start_scn=transaction.first_scn,
            commit_scn=row.scn,
            commit_timestamp=row.timestamp if row.timestamp is not None else row.commit_timestamp,
            commit_rs_id=row.rs_id,
            commit_ssn=row.ssn,
            saw_start=transaction.saw_start,
            row_count=transaction.live,
            rows=transaction.surviving_rows(),
        )

    def _already_emitted(self, commit_row: LogMinerRow) -> bool:
        limit = self.emit_after
        if limit is None or commit_row.scn > limit.scn:
            return False
        if commit_row.scn < limit.scn:
            return True
        try:
            return redo_position(commit_row.rs_id, commit_row.ssn) <= limit.redo
        except ValueError as error:
            raise AssemblyError(
                f"COMMIT row has an RS_ID that is not a redo address: {commit_row.rs_id!r}",
                xid=commit_row.xid,
                scn=commit_row.scn,
                fix="check the RS_ID column of the V$LOGMNR_CONTENTS query (or replay bundle)",
            ) from error

    def _discard(self, xid: str) -> None:
        transaction = self._open.pop(xid, None)
        self._rolled_back += 1
        if transaction is not None:
            self._bytes_in_memory -= transaction.memory_bytes
            self._drop_spill(transaction)

    @staticmethod
    def _drop_spill(transaction: OpenTransaction) -> None:
        if transaction.spill is not None:
            transaction.spill.delete()

    # -- spilling -----------------------------------------------------------------------

    def _spill_largest(self) -> None:
        target = self.memory_budget_bytes // 2
        by_size = sorted(self._open.values(), key=lambda t: t.memory_bytes, reverse=True)
        for transaction in by_size:
            if self._bytes_in_memory <= target or transaction.memory_bytes == 0:
                break
            self._spill(transaction)

    def _spill(self, transaction: OpenTransaction) -> None:
        if transaction.spill is None:
            transaction.spill = SpillFile(self.spill_dir, transaction.xid)
            self._spill_files.add(transaction.spill)
        self._bytes_in_memory -= transaction.memory_bytes
        self._bytes_spilled_total += transaction.move_events_to_spill(transaction.spill)

    # -- resume, status, metrics ----------------------------------------------------------

    def oldest_open_scn(self) -> int | None:
        """First SCN of the oldest open transaction (transactions open in SCN order)."""
        for transaction in self._open.values():
            return transaction.first_scn
        return None

    def open_transactions(self) -> list[OpenTransactionSummary]:
        return [
            OpenTransactionSummary(
                xid=t.xid,
                first_scn=t.first_scn,
                saw_start=t.saw_start,
                rows=t.live,
                bytes_in_memory=t.memory_bytes,
                spilled_bytes=0 if t.spill is None else t.spill.bytes_written,
            )
            for t in self._open.values()
        ]

    def metrics(self) -> BufferMetrics:
        return BufferMetrics(
            bytes_in_memory=self._bytes_in_memory,
            bytes_spilled_total=self._bytes_spilled_total,
            spill_files_open=sum(1 for spill in self._spill_files if spill.exists),
            open_transactions=len(self._open),
            committed=self._committed,
            rolled_back=self._rolled_back,
            empty_commits=self._empty_commits,
            skipped_already_emitted=self._skipped_already_emitted,
            cancelled_rows=self._cancelled_rows,
            unmatched_rollback_rows=self._unmatched_rollback_rows,
            ignored_rows=self._ignored_rows,
        )

    # -- lifetime -------------------------------------------------------------------------

    def close(self) -> None:
        """Forget open transactions and delete every spill file still on disk."""
        for spill in list(self._spill_files):
            spill.delete()
        self._open.clear()
        self._bytes_in_memory = 0

    def __enter__(self) -> TransactionBuffer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
