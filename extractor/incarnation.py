"""Which database, and which incarnation of it, the landed changes came from.

``V$DATABASE.DBID`` names the database; ``RESETLOGS_CHANGE#`` and ``RESETLOGS_TIME`` its
incarnation (both: a database flashed back to one restore point twice opens two
incarnations at one SCN). An ``ALTER DATABASE OPEN RESETLOGS`` (after an incomplete
recovery, a FLASHBACK DATABASE, a failover to a standby) starts a new incarnation at that
SCN: changes committed above it in the earlier one are gone from the database, and the new
one hands out SCNs those changes already had (docs/extraction.md, "A source restored to an
earlier SCN").

In a multitenant database a pluggable database has incarnations of its own
(``V$PDB_INCARNATION``): ``FLASHBACK PLUGGABLE DATABASE`` or a PDB point-in-time recovery,
then ``ALTER PLUGGABLE DATABASE OPEN RESETLOGS``, starts a new one and leaves ``V$DATABASE``
as it was. The changes committed in the PDB after the SCN it went back to are gone from it;
the CDB's SCNs go on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class PdbIncarnation:
    """The replicated PDB and its current incarnation: its own DBID (``CON_DBID``; another
    one is another PDB, e.g. a clone put in its place) and the current row of
    V$PDB_INCARNATION: PDB_INCARNATION#, INCARNATION_SCN (the SCN the PDB was flashed back
    or recovered to; its creation's for the first) and BEGIN_RESETLOGS_SCN (when it was
    opened with RESETLOGS)."""

    dbid: int
    number: int
    scn: int
    opened_scn: int

    def describe(self) -> str:
        return (
            f"PDB DBID {self.dbid}, PDB incarnation {self.number} (back to SCN {self.scn}, "
            f"opened at SCN {self.opened_scn})"
        )


@dataclass(frozen=True, slots=True)
class SourceIncarnation:
    """V$DATABASE.DBID, RESETLOGS_CHANGE# and RESETLOGS_TIME (``YYYY-MM-DD HH24:MI:SS``);
    ``pdb``: the replicated PDB's incarnation (None: not a multitenant database, or not
    read yet)."""

    dbid: int
    resetlogs_change: int
    resetlogs_time: str
    pdb: PdbIncarnation | None = None

    def describe(self) -> str:
        database = (
            f"DBID {self.dbid}, RESETLOGS_CHANGE# {self.resetlogs_change} at {self.resetlogs_time}"
        )
        return database if self.pdb is None else f"{database}, {self.pdb.describe()}"

    def database_part(self) -> SourceIncarnation:
        """This incarnation without its PDB's."""
        return SourceIncarnation(self.dbid, self.resetlogs_change, self.resetlogs_time)

    def to_json(self) -> dict[str, int | str]:
        raw: dict[str, int | str] = {
            "dbid": self.dbid,
            "resetlogs_change": self.resetlogs_change,
            "resetlogs_time": self.resetlogs_time,
        }
        if self.pdb is not None:
            raw.update(
                pdb_dbid=self.pdb.dbid,
                pdb_incarnation=self.pdb.number,
                pdb_incarnation_scn=self.pdb.scn,
                pdb_opened_scn=self.pdb.opened_scn,
            )
        return raw

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> SourceIncarnation:
        dbid, change, time = raw["dbid"], raw["resetlogs_change"], raw["resetlogs_time"]
        if not isinstance(dbid, int) or not isinstance(change, int) or not isinstance(time, str):
            raise TypeError(f"incarnation {dict(raw)!r} is not DBID, SCN and time")
        pdb = [raw.get(key) for key in _PDB_KEYS]
        if all(value is None for value in pdb):
            return cls(dbid, change, time)
        numbers = [value for value in pdb if isinstance(value, int)]
        if len(numbers) != len(_PDB_KEYS):
            raise TypeError(f"incarnation {dict(raw)!r}: its PDB's is not four numbers")
        return cls(dbid, change, time, PdbIncarnation(*numbers))


_PDB_KEYS = ("pdb_dbid", "pdb_incarnation", "pdb_incarnation_scn", "pdb_opened_scn")
