"""A table's committed rows as append-only version lists per ROWID, for AS OF reads."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from extractor.dictionary import ColumnDef, TableDef
from extractor.sim.column_values import StoredValue
from extractor.sim.rowid import RowidAllocator, decode_rowid

StoredRow = dict[str, StoredValue]
# A virtual column's value from a row's committed values (as ``SimDatabase.truth`` shows them).
VirtualExpression = Callable[[Mapping[str, object]], object]


@dataclass(slots=True)
class SimPartition:
    """One partition of a partitioned table: an object of its own (ALL_OBJECTS type
    ``TABLE PARTITION``, named by the table and a SUBOBJECT_NAME) with its own segment. Its
    OBJECT_ID is the DATA_OBJ# of the redo rows of its rows; its data object id is in their
    ROWIDs."""

    name: str
    object_id: int
    data_object_id: int
    rowids: RowidAllocator


def segment_rowids(data_object_id: int) -> RowidAllocator:
    """The ROWIDs of a new segment (a table's, or a partition's)."""
    return RowidAllocator(data_object_id, file_no=4 + data_object_id % 8)


class VersionedTable:
    """Committed versions of every row (``None`` marks a delete) plus the dictionary history.
    A partitioned table (``partitions``) places each new row in its partitions in turn, as
    list partitioning on a column no statement changes would (rows never move between
    partitions); its own data object id is then unused (the table has no segment)."""

    def __init__(self, table: TableDef, *, object_id: int, created_scn: int) -> None:
        self.object_id = object_id
        self.data_object_id = object_id
        self.rowids = segment_rowids(object_id)
        self.partitions: list[SimPartition] = []
        # data object id -> OBJECT_ID of the partition whose segment it is (or was)
        self._partition_of_segment: dict[int, int] = {}
        self._placed = 0  # rows placed so far: the next one goes to partition _placed % n
        self._definitions: list[tuple[int, TableDef]] = [(created_scn, table)]
        self._version_scns: dict[str, list[int]] = {}
        self._versions: dict[str, list[StoredRow | None]] = {}
        self.latest: dict[str, StoredRow] = {}  # committed live rows, by ROWID
        self.locks: dict[str, int] = {}  # ROWID -> id of the open transaction holding it
        self.defaults: StoredRow = {}  # column -> the default of an ADD … DEFAULT (inserts)
        self.dropped_columns: set[str] = set()
        # Virtual columns: name -> (dictionary entry, value computed from the stored row).
        self.virtual: dict[str, tuple[ColumnDef, VirtualExpression]] = {}
        # INVISIBLE columns: stored and in redo like any other, left out of SELECT * and of
        # ALL_TAB_COLS's COLUMN_ID (NULL there, HIDDEN_COLUMN = 'YES').
        self.invisible: set[str] = set()
        self.shown_again = False  # a column was made VISIBLE again: it lists last
        # ROW ARCHIVAL: its hidden column ORA_ARCHIVE_STATE is in ``invisible`` too, and
        # system-generated (ALL_TAB_COLS: USER_GENERATED = 'NO').
        self.row_archival = False

    def add_partition(self, name: str, object_id: int, data_object_id: int) -> SimPartition:
        partition = SimPartition(name, object_id, data_object_id, segment_rowids(data_object_id))
        self.partitions.append(partition)
        self._partition_of_segment[data_object_id] = object_id
        return partition

    def new_segment(self, partition: SimPartition, data_object_id: int) -> None:
        """The partition's rows go to a new segment from now on (TRUNCATE, MOVE)."""
        partition.data_object_id = data_object_id
        partition.rowids = segment_rowids(data_object_id)
        self._partition_of_segment[data_object_id] = partition.object_id

    def allocate_rowid(self) -> str:
        """A new row's ROWID: in the table's segment, or in its next partition's."""
        if not self.partitions:
            return self.rowids.allocate()
        partition = self.partitions[self._placed % len(self.partitions)]
        self._placed += 1
        return partition.rowids.allocate()

    def segment_object_id(self, rowid: str) -> int:
        """The OBJECT_ID of the object whose segment holds ``rowid``: a partition's, or the
        table's own (DATA_OBJ# of the row's redo)."""
        if not self.partitions:
            return self.object_id
        return self._partition_of_segment[decode_rowid(rowid).data_object_id]

    def partition_of(self, rowid: str) -> SimPartition:
        object_id = self.segment_object_id(rowid)
        return next(p for p in self.partitions if p.object_id == object_id)

    def extents(self) -> list[tuple[str, str, int]]:
        """DBA_EXTENTS of the table's segments (each partition's) as ROWID bounds."""
        if not self.partitions:
            return self.rowids.extents()
        return [extent for p in self.partitions for extent in p.rowids.extents()]

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
