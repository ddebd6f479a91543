"""The state of one open transaction inside the :class:`TransactionBuffer`.

Internal to ``extractor.assemble``: the buffer drives it; only summaries leave the package.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator
from typing import cast

from extractor.assemble.spill import SpillFile
from extractor.logminer_row import LogMinerRow


class OpenTransaction:
    """One open transaction.

    Events are numbered 0, 1, ... in arrival order. Events ``< first_in_memory`` are in
    ``spill``; ``events[i]`` is event ``first_in_memory + i`` (``None`` once cancelled).
    For the in-memory events only, ``last_by_row_id`` and ``previous`` form per ROW_ID a
    stack of not-yet-cancelled slots: ``previous[i]`` is the slot before ``i`` with the same
    ROW_ID, or -1. A ROLLBACK = 1 row whose ROW_ID has no in-memory event left targets the
    spill: it is recorded in ``spilled_cancels`` as (ROW_ID, events spilled so far) and
    resolved against the spill file at COMMIT, so spilled events need no memory at all.
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

    def move_events_to_spill(self, spill: SpillFile) -> int:
        """Append the in-memory events to ``spill``; returns the bytes written."""
        written = spill.append(self.events)
        self.first_in_memory += len(self.events)
        self.events = []
        self.last_by_row_id = {}
        self.previous = array("q")
        self.memory_bytes = 0
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
