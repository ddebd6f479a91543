"""Which database, and which incarnation of it, the landed changes came from.

``V$DATABASE.DBID`` names the database; ``RESETLOGS_CHANGE#`` and ``RESETLOGS_TIME`` its
incarnation (both: a database flashed back to one restore point twice opens two
incarnations at one SCN). An ``ALTER DATABASE OPEN RESETLOGS`` (after an incomplete
recovery, a FLASHBACK DATABASE, a failover to a standby) starts a new incarnation at that
SCN: changes committed above it in the earlier one are gone from the database, and the new
one hands out SCNs those changes already had (docs/extraction.md, "A source restored to an
earlier SCN").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class SourceIncarnation:
    """V$DATABASE.DBID, RESETLOGS_CHANGE# and RESETLOGS_TIME (``YYYY-MM-DD HH24:MI:SS``)."""

    dbid: int
    resetlogs_change: int
    resetlogs_time: str

    def describe(self) -> str:
        return (
            f"DBID {self.dbid}, RESETLOGS_CHANGE# {self.resetlogs_change} at {self.resetlogs_time}"
        )

    def to_json(self) -> dict[str, int | str]:
        return {
            "dbid": self.dbid,
            "resetlogs_change": self.resetlogs_change,
            "resetlogs_time": self.resetlogs_time,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> SourceIncarnation:
        dbid, change, time = raw["dbid"], raw["resetlogs_change"], raw["resetlogs_time"]
        if not isinstance(dbid, int) or not isinstance(change, int) or not isinstance(time, str):
            raise TypeError(f"incarnation {dict(raw)!r} is not DBID, SCN and time")
        return cls(dbid, change, time)
