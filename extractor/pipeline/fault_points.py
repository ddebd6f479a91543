"""The named points where tests inject crashes into the extraction loop (``fault`` callback);
production passes none. The crash harness (``tests/e2e/harness.py``) picks among them."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum


class FaultPoint(StrEnum):
    """Where a fault hook is called: after a snapshot chunk landed (before its checkpoint),
    after one table's change batch landed, before and after a window's checkpoint."""

    SNAPSHOT_AFTER_LAND = "snapshot:after_land"
    STREAM_AFTER_LAND_TABLE = "stream:after_land_table"
    STREAM_BEFORE_CHECKPOINT = "stream:before_checkpoint"
    STREAM_AFTER_CHECKPOINT = "stream:after_checkpoint"


FaultHook = Callable[[str], None]


def no_fault(point: str) -> None:
    """The production hook: nothing happens at any point."""
