"""The state of one open transaction inside the :class:`TransactionBuffer`.

Internal to ``extractor.assemble``: the buffer drives it; only summaries leave the package.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator
from typing import cast

import msgspec

from extractor.assemble.spill import SpillFile
from extractor.logminer_row import NO_ROW_ID, LogMinerRow

# Estimated memory of one buffered row beyond its SQL_REDO text: the LogMinerRow object and
# its small strings (RS_ID, ROW_ID, timestamps) and ints, plus the bookkeeping below.
ROW_OVERHEAD_BYTES = 500


def buffered_size(row: LogMinerRow | None) -> int:
    """The estimated memory of one buffered row (what the buffer's budget counts)."""
    return ROW_OVERHEAD_BYTES + len((row and row.sql_redo) or "")


class OpenTransaction:
    """One open transaction.

    Events are numbered 0, 1, ... in arrival order. Events ``< first_in_memory`` are in
    ``spill``; ``events[i]`` is event ``first_in_memory + i`` (``None`` once cancelled).
    For the in-memory events only, ``last_by_row_id`` and ``previous`` form per ROW_ID a
    stack of not-yet-cancelled slots: ``previous[i]`` is the slot before ``i`` with the same
    ROW_ID, or -1. A ROLLBACK = 1 row whose ROW_ID has no in-memory event left targets the
    spill: it is recorded in ``spilled_cancels`` as (ROW_ID, events spilled so far) and
    resolved against the spill file at COMMIT, so spilled events need no memory at all.

    ``waiting_row`` is the slot of an INSERT or UPDATE that LogMiner showed without its ROWID
    (:data:`NO_ROW_ID`: a row whose LOB values follow), until the last row of its statement
    gives it (:meth:`give_row_id`), else -1. Rows with that ROW_ID are in no stack: no
    ROLLBACK = 1 row names it (an undo names the row's real ROWID).
    """

    __slots__ = (
        "cancelled_spilled",
        "events",
        "first_in_memory",
        "first_scn",
        "last_by_row_id",
        "live",
        "memory_bytes",
        "previous",
        "saw_start",
        "spill",
        "spilled_cancels",
        "waiting_row",
        "xid",
    )

    def __init__(self, xid: str, first_scn: int, saw_start: bool) -> None:
        self.xid = xid
        self.first_scn = first_scn
        self.saw_start = saw_start
        self.events: list[LogMinerRow | None] = []
        self.first_in_memory = 0
        self.live = 0
        self.memory_bytes = 0
        self.last_by_row_id: dict[str, int] = {}
        self.previous = array("q")
        self.spill: SpillFile | None = None
        self.spilled_cancels: list[tuple[str, int]] = []
        self.cancelled_spilled: set[int] = set()
        self.waiting_row = -1

    def give_row_id(self, row_id: str) -> None:
        """Give the waiting row, and the value-writing rows after it (no ROWID either),
        ``row_id``, and stack them under it (so that an undo of the INSERT cancels them)."""
        events, previous, last_by_row_id = self.events, self.previous, self.last_by_row_id
        for slot in range(self.waiting_row, len(events)):
            row = events[slot]
            if row is None or row.row_id not in (None, NO_ROW_ID):
                continue
            events[slot] = msgspec.structs.replace(row, row_id=row_id)
            previous[slot] = last_by_row_id.get(row_id, -1)
            last_by_row_id[row_id] = slot
        self.waiting_row = -1

    def resolve_spilled_cancels(self) -> int:
        """Apply the recorded cancels to spilled events; returns how many matched nothing."""
        if not self.spilled_cancels or self.spill is None:
            return 0
        wanted = {row_id for row_id, _ in self.spilled_cancels}
        positions = self.spill.positions_of_row_ids(wanted)
        unmatched = 0
        for row_id, spilled_then in self.spilled_cancels:
            stack = positions.get(row_id, [])
            top = bisect_left(stack, spilled_then) - 1
            if top < 0:
                unmatched += 1
                continue
            self.cancelled_spilled.add(stack.pop(top))
            self.live -= 1
        self.spilled_cancels = []
        return unmatched

    def waiting_tail_bytes(self) -> int:
        """The memory of the waiting row and the rows after it (what a spill keeps)."""
        return sum(buffered_size(row) for row in self.events[self.waiting_row :] if row)

    def move_events_to_spill(self, spill: SpillFile) -> int:
        """Append the in-memory events to ``spill``, but for a waiting row and the rows after
        it (they still change when its ROWID comes); returns the bytes written."""
        keep = len(self.events) if self.waiting_row < 0 else self.waiting_row
        kept = self.events[keep:]
        written = spill.append(self.events[:keep])
        self.first_in_memory += keep
        self.events = []
        self.last_by_row_id = {}
        self.previous = array("q")
        self.memory_bytes = 0
        if self.waiting_row >= 0:
            self.waiting_row = 0
        for row in kept:  # stacked again, in order: the kept rows' earlier slots are spilled
            self.events.append(row)
            self.memory_bytes += buffered_size(row) if row is not None else 0
            row_id = None if row is None else row.row_id
            if row_id is None or row_id == NO_ROW_ID:
                self.previous.append(-1)
            else:
                self.previous.append(self.last_by_row_id.get(row_id, -1))
                self.last_by_row_id[row_id] = len(self.events) - 1
        return written

    def surviving_rows(self) -> Iterator[LogMinerRow]:
        spill = self.spill
        if spill is None:
            if self.live == len(self.events):
                return iter(cast(list[LogMinerRow], self.events))
            return (row for row in self.events if row is not None)
        return _spilled_then_memory(spill, self.cancelled_spilled, self.events)


def _spilled_then_memory(
    spill: SpillFile, cancelled: set[int], events: list[LogMinerRow | None]
) -> Iterator[LogMinerRow]:
    try:
        yield from spill.read(cancelled)
        for row in events:
            if row is not None:
                yield row
    finally:
        spill.delete()
