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
- An INSERT or UPDATE shown with ROW_ID ``AAAAAAAAAAAAAAAAAA`` (its LOB values follow) waits
  for the row that ends its statement, which gives it the row's ROWID (``lob_statement``).
- ROLLBACK (36) discards the transaction. COMMIT (7) completes it: :meth:`add` returns a
  :class:`CommittedTransaction`, unless it has no surviving rows or its commit position is
  ``<= emit_after`` (already emitted before a restart, or covered by the snapshot).
- A row whose XID sequence is ``FFFFFFFF`` (LogMiner could not link it to a transaction
  begun before the mining session: undo, ROLLBACK and COMMIT rows) belongs to the open
  transaction of the same undo segment and slot (the newest one: a slot is reused only after
  its transaction ended); an undo row that matches none opens nothing.
- INTERNAL (0), SELECT_FOR_UPDATE (25) and replication markers (27) carry no change: counted
  and dropped (an INTERNAL row may first end a waiting statement); a marker also discards
  its transaction when nothing was buffered for it (a GoldenGate marker transaction never
  ends). MISSING_SCN (34) is a hole in the redo:
  :class:`RedoGapError`.
- :meth:`abandon_older_than` discards open transactions begun below an SCN (the retention
  limit); their later rows are dropped and their end is logged.
- When the estimated bytes in memory exceed the budget, the largest transactions' rows are
  written to spill files until memory is under half the budget (a waiting statement's rows
  stay, up to a quarter of the budget).
"""

from __future__ import annotations

import logging
import os
import weakref
from typing import cast

from msgspec.structs import replace

from extractor.assemble.lob_statement import (
    continues_statement,
    gives_row_id,
    may_end_statement,
    waits_for_row_id,
    writes_values,
)
from extractor.assemble.open_transaction import (
    ROW_OVERHEAD_BYTES,
    OpenTransaction,
    buffered_size,
)
from extractor.assemble.records import (
    BufferMetrics,
    CommittedTransaction,
    OpenTransactionSummary,
)
from extractor.assemble.spill import SpillFile
from extractor.errors import AssemblyError, RedoGapError
from extractor.logminer_row import (
    NO_ROW_ID,
    TRANSACTION_CONTROL_CODES,
    TRANSACTION_END_CODES,
    LogMinerRow,
    OperationCode,
)
from extractor.redo_position import CommitPosition, RedoPosition

START, COMMIT, ROLLBACK = OperationCode.START, OperationCode.COMMIT, OperationCode.ROLLBACK
MISSING_SCN, REPLICATION_MARKER = OperationCode.MISSING_SCN, OperationCode.REPLICATION_MARKER
INSERT, DELETE = OperationCode.INSERT, OperationCode.DELETE
INTERNAL = OperationCode.INTERNAL
# Rows that change nothing the buffer keeps: internal, SELECT FOR UPDATE, replication markers.
IGNORED_CODES = frozenset(
    {OperationCode.INTERNAL, OperationCode.SELECT_FOR_UPDATE, REPLICATION_MARKER}
)
_NOT_EVENTS = TRANSACTION_CONTROL_CODES | IGNORED_CODES
# XID = undo segment (4 hex) + slot (4 hex) + sequence (8 hex); LogMiner shows sequence
# FFFFFFFF when it cannot link a row to a transaction begun before the session.
_SLOT_CHARS = 8
_PARTIAL_SUFFIXES = ("FFFFFFFF", "ffffffff")

LOG = logging.getLogger(__name__)


def xid_slot(xid: str) -> str | None:
    """Undo segment + slot of a 16-hex-character XID (upper case), else None."""
    return xid[:_SLOT_CHARS].upper() if len(xid) == 16 else None


def is_partial_xid(xid: str) -> bool:
    """True for an XID whose sequence is FFFFFFFF (segment + slot only)."""
    return len(xid) == 16 and xid.endswith(_PARTIAL_SUFFIXES)


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
        self._by_slot: dict[str, OpenTransaction] = {}  # newest open transaction per slot
        self._abandoned: dict[str, str | None] = {}  # XID -> slot, discarded by retention
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
        self._partial_xid_rows = 0
        self._marker_transactions = 0
        self._abandoned_count = 0
        self._abandoned_rows = 0
        self._row_ids_given = 0
        self._changes_without_row_id = 0

    # -- the hot path -------------------------------------------------------------------

    def add(self, row: LogMinerRow) -> CommittedTransaction | None:
        """Take the next joined row; returns the transaction this row commits, if any."""
        if row.xid.endswith(_PARTIAL_SUFFIXES):
            row = self._with_full_xid(row)
        code = row.operation_code
        if code not in _NOT_EVENTS:
            transaction = self._open.get(row.xid)
            if transaction is None:
                if self._abandoned and self._is_abandoned(row):
                    return None
                if row.rollback and is_partial_xid(row.xid):
                    self._unmatched_rollback_rows += 1  # an orphan would pin resume_scn
                    return None
                transaction = self._start(row.xid, row.scn, False)
            if row.rollback:
                self._cancel(transaction, row)
            else:
                self._append(transaction, row)
            return None
        if code == COMMIT:
            return self._commit(row)
        if code == START:
            if row.xid not in self._open:
                self._start(row.xid, row.scn, True)
            return None
        if code == ROLLBACK:
            if self._abandoned:
                self._is_abandoned(row)
            self._discard(row.xid)
            return None
        if code == MISSING_SCN:
            raise RedoGapError(xid=row.xid, scn=row.scn, status=row.status, info=row.info)
        if code == REPLICATION_MARKER:
            self._drop_marker_transaction(row.xid)
        elif code == INTERNAL and may_end_statement(row):
            transaction = self._open.get(row.xid)
            if transaction is not None and transaction.waiting_row >= 0:
                self._settle_waiting_row(transaction, row)
        self._ignored_rows += 1
        return None

    def _start(self, xid: str, scn: int, saw_start: bool) -> OpenTransaction:
        transaction = self._open[xid] = OpenTransaction(xid, scn, saw_start)
        slot = xid_slot(xid)
        if slot is not None:
            self._by_slot[slot] = transaction
            if self._abandoned:  # the slot is reused: its abandoned transaction has ended
                self._abandoned = {x: s for x, s in self._abandoned.items() if s != slot}
        return transaction

    def _close(self, xid: str) -> OpenTransaction | None:
        transaction = self._open.pop(xid, None)
        if transaction is not None:
            slot = xid_slot(xid)
            if slot is not None and self._by_slot.get(slot) is transaction:
                del self._by_slot[slot]
        return transaction

    def _with_full_xid(self, row: LogMinerRow) -> LogMinerRow:
        """The row under the XID of the open transaction holding its segment + slot."""
        slot = xid_slot(row.xid)
        transaction = None if slot is None else self._by_slot.get(slot)
        if transaction is None or transaction.xid == row.xid:
            return row
        self._partial_xid_rows += 1
        return replace(row, xid=transaction.xid)

    def _drop_marker_transaction(self, xid: str) -> None:
        """A replication marker in a transaction with nothing buffered: the transaction is a
        marker transaction, which never ends; holding it would pin the resume position."""
        transaction = self._open.get(xid)
        if transaction is None or transaction.events or transaction.spill is not None:
            return
        self._close(xid)
        self._marker_transactions += 1

    def _append(self, transaction: OpenTransaction, row: LogMinerRow) -> None:
        if transaction.waiting_row >= 0:
            self._settle_waiting_row(transaction, row)
        events = transaction.events
        row_id = row.row_id
        if row_id is None or row_id == NO_ROW_ID:
            transaction.previous.append(-1)
            if waits_for_row_id(row):
                transaction.waiting_row = len(events)
        else:
            last_by_row_id = transaction.last_by_row_id
            transaction.previous.append(last_by_row_id.get(row_id, -1))
            last_by_row_id[row_id] = len(events)
        events.append(row)
        transaction.live += 1
        size = ROW_OVERHEAD_BYTES + len(row.sql_redo or "")  # buffered_size(row), inlined
        transaction.memory_bytes += size
        self._bytes_in_memory += size
        if self._bytes_in_memory > self.memory_budget_bytes:
            self._spill_largest()

    def _cancel(self, transaction: OpenTransaction, row: LogMinerRow) -> None:
        """Undo what a ROLLBACK = 1 row compensates.

        An undo DELETE compensates an INSERT: it cancels the row's events back to and
        including that INSERT (an INSERT with a LOB is followed by the UPDATE writing the LOB,
        both undone by the one DELETE). Any other undo row cancels the latest event, and
        below it the rows writing out-of-line values that it follows, down to their
        statement's DML row (they were given its ROWID: ``lob_statement``; value-writing rows
        never show a ROWID of their own, so those on a ROWID's stack are such rows).
        """
        if row.row_id is None or row.row_id == NO_ROW_ID:
            self._unmatched_rollback_rows += 1
            return
        if transaction.waiting_row >= 0:
            self._settle_waiting_row(transaction, row)
        while True:
            cancelled = self._cancel_latest(transaction, row.row_id)
            if cancelled is None:
                return
            if row.operation_code == DELETE:
                if cancelled.operation_code == INSERT:
                    return
            elif not writes_values(cancelled):
                return  # the DML row of a statement, after the rows writing its values

    def _settle_waiting_row(self, transaction: OpenTransaction, row: LogMinerRow) -> None:
        """The next row of a transaction whose last INSERT or UPDATE showed no ROWID (a row
        whose LOB values follow it: ``extractor.assemble.lob_statement``): a row writing an
        out-of-line value continues the wait; the statement's last row gives the ROWID to
        the waiting row and the value-writing rows after it; any other row ends the wait,
        and the waiting row keeps no ROWID (quarantined for a table keyed by ROWID by
        ``extractor.parse.change_builder``, never merged with another row)."""
        if continues_statement(row):
            return
        slot = transaction.waiting_row
        waiting = transaction.events[slot]
        values_written = slot < len(transaction.events) - 1
        if waiting is not None and gives_row_id(waiting, row, values_written=values_written):
            transaction.give_row_id(cast(str, row.row_id))
            self._row_ids_given += 1
            return
        transaction.waiting_row = -1
        self._changes_without_row_id += 1

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
        size = buffered_size(cancelled)
        transaction.memory_bytes -= size
        self._bytes_in_memory -= size
        transaction.live -= 1
        self._cancelled_rows += 1
        return cancelled

    def _commit(self, row: LogMinerRow) -> CommittedTransaction | None:
        transaction = self._close(row.xid)
        if transaction is None:
            if not (self._abandoned and self._is_abandoned(row)):
                self._empty_commits += 1
            return None
        self._bytes_in_memory -= transaction.memory_bytes
        if transaction.waiting_row >= 0:
            self._changes_without_row_id += 1
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
            return RedoPosition.of(commit_row.rs_id, commit_row.ssn) <= limit.redo
        except ValueError as error:
            raise AssemblyError(
                f"COMMIT row has an RS_ID that is not a redo address: {commit_row.rs_id!r}",
                xid=commit_row.xid,
                scn=commit_row.scn,
                fix="check the RS_ID column of the V$LOGMNR_CONTENTS query (or replay bundle)",
            ) from error

    def _discard(self, xid: str) -> None:
        transaction = self._close(xid)
        self._rolled_back += 1
        if transaction is not None:
            self._bytes_in_memory -= transaction.memory_bytes
            self._drop_spill(transaction)

    @staticmethod
    def _drop_spill(transaction: OpenTransaction) -> None:
        if transaction.spill is not None:
            transaction.spill.delete()

    # -- retention ----------------------------------------------------------------------

    def abandon_older_than(self, scn: int) -> list[OpenTransactionSummary]:
        """Discard every open transaction whose first SCN is below ``scn`` (the retention
        limit); returns what was discarded, each logged as a WARNING. Later rows of these
        XIDs are dropped (counted as ``abandoned_rows``); their COMMIT is logged."""
        summaries = [t for t in self.open_transactions() if t.first_scn < scn]
        for summary in summaries:
            LOG.warning(
                "transaction %s open since SCN %d (%d row(s)) passed the retention limit "
                "(SCN %d): discarded; if it commits later its changes are lost",
                summary.xid,
                summary.first_scn,
                summary.rows,
                scn,
                extra={"xid": summary.xid, "first_scn": summary.first_scn, "rows": summary.rows},
            )
            self._discard_abandoned(summary.xid)
        return summaries

    def _discard_abandoned(self, xid: str) -> None:
        transaction = self._close(xid)
        if transaction is None:
            return
        self._bytes_in_memory -= transaction.memory_bytes
        self._drop_spill(transaction)
        self._abandoned_count += 1
        slot = xid_slot(xid)
        if slot is not None:  # a slot reused means its earlier transaction ended
            self._abandoned = {x: s for x, s in self._abandoned.items() if s != slot}
        self._abandoned[xid] = slot

    def _is_abandoned(self, row: LogMinerRow) -> bool:
        """True (and counted) for a row of an abandoned transaction; its end forgets it."""
        xid = row.xid
        if xid not in self._abandoned and is_partial_xid(xid):
            slot = xid_slot(xid)
            xid = next((x for x, s in self._abandoned.items() if s == slot), xid)
        if xid not in self._abandoned:
            return False
        self._abandoned_rows += 1
        if row.operation_code in TRANSACTION_END_CODES:
            del self._abandoned[xid]
            if row.operation_code == COMMIT:
                LOG.warning(
                    "abandoned transaction %s committed at SCN %d: its changes were discarded "
                    "by the retention limit and are missing from the replicas",
                    xid,
                    row.scn,
                    extra={"xid": xid, "commit_scn": row.scn},
                )
        return True

    # -- spilling -----------------------------------------------------------------------

    def _spill_largest(self) -> None:
        target = self.memory_budget_bytes // 2
        by_size = sorted(self._open.values(), key=lambda t: t.memory_bytes, reverse=True)
        for transaction in by_size:
            if self._bytes_in_memory <= target or transaction.memory_bytes == 0:
                break
            self._spill(transaction)
        if self._bytes_in_memory > self.memory_budget_bytes:  # held by waiting statements
            for transaction in sorted(by_size, key=lambda t: t.memory_bytes, reverse=True):
                if self._bytes_in_memory <= self.memory_budget_bytes:
                    break
                if transaction.waiting_row >= 0:
                    self._end_wait(transaction)
                    self._spill(transaction)

    def _end_wait(self, transaction: OpenTransaction) -> None:
        """Hold a waiting statement's rows no longer: its row keeps no ROWID."""
        transaction.waiting_row = -1
        self._changes_without_row_id += 1

    def _spill(self, transaction: OpenTransaction) -> None:
        if (
            transaction.waiting_row >= 0
            and transaction.waiting_tail_bytes() > self.memory_budget_bytes // 4
        ):  # a statement writing values that large is not held
            self._end_wait(transaction)
        if transaction.waiting_row == 0:
            return  # only the waiting statement is in memory: nothing to spill
        if transaction.spill is None:
            transaction.spill = SpillFile(self.spill_dir, transaction.xid)
            self._spill_files.add(transaction.spill)
        in_memory_before = transaction.memory_bytes
        self._bytes_spilled_total += transaction.move_events_to_spill(transaction.spill)
        self._bytes_in_memory -= in_memory_before - transaction.memory_bytes

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
            partial_xid_rows=self._partial_xid_rows,
            marker_transactions=self._marker_transactions,
            abandoned=self._abandoned_count,
            abandoned_rows=self._abandoned_rows,
            row_ids_from_next_row=self._row_ids_given,
            changes_without_row_id=self._changes_without_row_id,
        )

    # -- lifetime -------------------------------------------------------------------------

    def close(self) -> None:
        """Forget open transactions and delete every spill file still on disk."""
        for spill in list(self._spill_files):
            spill.delete()
        self._open.clear()
        self._by_slot.clear()
        self._bytes_in_memory = 0

    def __enter__(self) -> TransactionBuffer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
