"""A table's committed rows as append-only version lists per ROWID, for AS OF reads."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping

from extractor.dictionary import ColumnDef, TableDef
from extractor.sim.column_values import StoredValue
from extractor.sim.rowid import RowidAllocator

StoredRow = dict[str, StoredValue]
# A virtual column's value from a row's committed values (as ``SimDatabase.truth`` shows them).
VirtualExpression = Callable[[Mapping[str, object]], object]


class VersionedTable:
    """Committed versions of every row (``None`` marks a delete) plus the dictionary history."""

    def __init__(self, table: TableDef, *, object_id: int, created_scn: int) -> None:
        self.object_id = object_id
        self.data_object_id = object_id
        self.rowids = RowidAllocator(object_id, file_no=4 + object_id % 8)
        self._definitions: list[tuple[int, TableDef]] = [(created_scn, table)]
        self._version_scns: dict[str, list[int]] = {}
        self._versions: dict[str, list[StoredRow | None]] = {}
        self.latest: dict[str, StoredRow] = {}  # committed live rows, by ROWID
        self.locks: dict[str, int] = {}  # ROWID -> id of the open transaction holding it
        self.defaults: StoredRow = {}  # column -> the default of an ADD … DEFAULT (inserts)
        self.dropped_columns: set[str] = set()
        # Virtual columns: name -> (dictionary entry, value computed from the stored row).
        self.virtual: dict[str, tuple[ColumnDef, VirtualExpression]] = {}

    @property
    def definition(self) -> TableDef:
        return self._definitions[-1][1]

    @property
    def created_scn(self) -> int:
        return self._definitions[0][0]

    def redefine(self, table: TableDef, scn: int) -> None:
        self._definitions.append((scn, table))

    def definition_at(self, scn: int) -> TableDef | None:
        found = None
        for since, table in self._definitions:
            if since > scn:
                break
            found = table
        return found

    def commit_version(self, rowid: str, row: StoredRow | None, scn: int) -> None:
        scns = self._version_scns.setdefault(rowid, [])
        versions = self._versions.setdefault(rowid, [])
        if scns and scns[-1] == scn:
            versions[-1] = row
        else:
            scns.append(scn)
            versions.append(row)
        if row is None:
            self.latest.pop(rowid, None)
        else:
            self.latest[rowid] = row

    def rewind(self, to_scn: int) -> None:
        """Forget every version committed above ``to_scn`` (point-in-time recovery); the
        latest rows are those of ``to_scn``. No lock survives (no transaction does)."""
        for rowid, scns in self._version_scns.items():
            kept = bisect_right(scns, to_scn)
            del scns[kept:]
            del self._versions[rowid][kept:]
        self.latest = {rowid: row for rowid, row in self.rows_at(to_scn)}
        self.locks.clear()

    def rows_at(self, scn: int) -> Iterator[tuple[str, StoredRow]]:
        """(ROWID, row) of every row committed and not deleted as of ``scn``."""
        for rowid, scns in self._version_scns.items():
            index = bisect_right(scns, scn) - 1
            if index >= 0:
                row = self._versions[rowid][index]
                if row is not None:
                    yield rowid, row
