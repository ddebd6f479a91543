"""A Source over a replay bundle directory, read as if it were a live Oracle.

A bundle may grow between calls (lines appended to ``logminer.jsonl``, new snapshot files,
a rewritten ``dictionary.json`` or ``logs.json``): every call sees the files as they are
then. ``logminer.jsonl`` is indexed incrementally from where the last read stopped (re-read
from the start if the file shrank), and only as far as a call needs: a window up to its end
SCN, the open transactions up to their SCN. ``current_scn`` reads the file's last line (rows
are in SCN order). So a large bundle's index is not built whole before the first window, in
the extracting process and again in the mining process, and a line's error (out of SCN order,
not JSON) is found when the index reaches it.

Snapshots: a bundle holds one snapshot per table at the SCN on its first line, so
``snapshot_point`` gives each table that SCN (``SnapshotPoint.table_scns``; tables asked for
together may differ) and a table without a snapshot file is replicated from the log only: its
point is just below the first recorded SCN and its snapshot is empty. Rows are served in ROWID
order so that ``after_rowid`` resumes exactly as on Oracle.

Mining: rows are filtered as ``queries.LOGMNR_CONTENTS`` filters them on Oracle. With a
``logs.json``, a range that needs a log marked ``"available": false`` fails like ORA-01291
(MissingRedoLogError).
"""

from __future__ import annotations

import bisect
import itertools
import operator
from array import array
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pyarrow as pa

from extractor.dictionary import TableDef
from extractor.errors import (
    BundleError,
    MissingRedoLogError,
    SnapshotTooOldError,
    TableNotFoundError,
)
from extractor.logminer_row import (
    TRANSACTION_CONTROL_CODES,
    TRANSACTION_END_CODES,
    LogMinerRow,
    OperationCode,
)
from extractor.nls import NlsSettings
from extractor.source.arrow_schema import snapshot_batch
from extractor.source.base import RedoLogInUse, SnapshotPoint
from extractor.source.replay import bundle_format as fmt
from extractor.source.replay import logminer_file
from extractor.source.rowid_order import rowid_sort_key

# A bundle is not a database: each table's rows exist at its snapshot SCN only (so `oracdc
# verify` of replicas consolidated past it cannot read the source side).
_ONE_SCN_FIX = (
    "a replay bundle holds each table at its snapshot SCN only: verify against the database "
    "the bundle was recorded from, or record a bundle whose snapshot is at this SCN"
)


# How far past a line read without its newline that newline is looked for.
_LINE_END_BYTES = 64


class ReplaySource:
    """A :class:`~extractor.source.base.Source` reading the bundle at ``path``."""

    def __init__(self, path: Path | str) -> None:
        self._path = Path(path)
        if not self._path.is_dir():
            raise BundleError(self._path, "is not a directory")
        self._header = fmt.read_header(self._path)
        self._tables: dict[tuple[str, str], TableDef] = {}
        # An index of logminer.jsonl, not its rows: memory stays small for large bundles.
        self._scns = array("q")  # SCN of every row, in file order
        self._offsets = array("q")  # byte offset of every row's line
        self._lines = array("q")  # line number of every row, for errors found when mining
        self._first_scn: dict[str, int] = {}  # per XID: SCN of its first row
        self._end_scn: dict[str, int] = {}  # per XID: SCN of its first COMMIT/ROLLBACK row
        self._offset = 0
        self._next_line = 1
        self._file_size = 0
        self._window_logs: tuple[RedoLogInUse, ...] = ()

    @property
    def nls(self) -> NlsSettings:
        return self._header.nls

    @property
    def path(self) -> Path:
        return self._path

    @property
    def snapshots_at_any_scn(self) -> bool:
        return False

    def current_scn(self) -> int:
        self._header = fmt.read_header(self._path)
        candidates = [self._header.current_scn or 0]
        last_scn = self._last_scn()
        if last_scn is not None:
            candidates.append(last_scn)
        for owner, name in fmt.snapshot_tables(self._path):
            snapshot = self._snapshot(self._lookup(owner, name, missing_ok=True))
            if snapshot is not None:
                candidates.append(snapshot.scn)
        return max(candidates)

    def incarnation(self) -> None:
        """A bundle is one recording: its redo is of one incarnation, and it does not say
        which (the extractor's check of the incarnation is off for it)."""
        return None

    def minable_scn(self) -> int:
        """A bundle holds written redo only: its largest recorded SCN."""
        return self.current_scn()

    def list_tables(
        self, patterns: Sequence[tuple[str, str]] = (), names: Sequence[tuple[str, str]] = ()
    ) -> list[TableDef]:
        import fnmatch

        self._reload_dictionary()
        found = {
            key
            for key in self._tables
            if any(
                fnmatch.fnmatchcase(key[0], o.upper()) and fnmatch.fnmatchcase(key[1], t.upper())
                for o, t in patterns
            )
        }
        for owner, name in names:
            found.add((owner.upper(), name.upper()))
        return [self.table(owner, name) for owner, name in sorted(found)]

    def table(self, owner: str, name: str) -> TableDef:
        found = self._lookup(owner, name, missing_ok=False)
        assert found is not None
        return found

    def refresh_table(self, owner: str, name: str) -> TableDef:
        self._reload_dictionary()
        return self.table(owner, name)

    def snapshot_scn(self, table: TableDef) -> int | None:
        """The SCN of the table's snapshot file (None: replicated from the log only)."""
        snapshot = self._snapshot(table)
        return None if snapshot is None else snapshot.scn

    def snapshot_point(self, tables: Sequence[TableDef]) -> SnapshotPoint:
        """Each table at the SCN of its own snapshot file (log-only: just below the log);
        mining starts where the handover of the lowest of them needs it."""
        table_scns = {t.qualified_name: self._point_scn(t) for t in tables}
        if not table_scns:
            scn = self.current_scn()
            return SnapshotPoint(scn=scn, mining_start_scn=self._handover_start(scn))
        start = min(self._handover_start(scn) for scn in set(table_scns.values()))
        return SnapshotPoint(
            scn=max(table_scns.values()), mining_start_scn=start, table_scns=table_scns
        )

    def _handover_start(self, scn: int) -> int:
        """Where mining starts for a snapshot at ``scn``: the first SCN of the oldest
        transaction open at it, else just above it."""
        oldest_open = self.open_transaction_start_scn(scn)
        return scn + 1 if oldest_open is None else oldest_open

    def open_transaction_start_scn(self, at_scn: int) -> int | None:
        self._load_logminer(through_scn=at_scn)  # an end past at_scn leaves it open there
        ended = self._end_scn
        open_starts = [
            scn
            for xid, scn in self._first_scn.items()
            if scn <= at_scn and ended.get(xid, at_scn + 1) > at_scn
        ]
        return min(open_starts) if open_starts else None

    def snapshot_batches(
        self, table: TableDef, scn: int, batch_rows: int, after_rowid: str | None = None
    ) -> Iterator[pa.RecordBatch]:
        snapshot = self._snapshot(table)
        if snapshot is None:
            if scn != self._point_scn(table):
                raise SnapshotTooOldError(
                    table.qualified_name, scn, "the bundle has no snapshot of this table",
                    fix=_ONE_SCN_FIX,
                )  # fmt: skip
            return iter(())
        if snapshot.scn != scn:
            raise SnapshotTooOldError(
                table.qualified_name, scn, f"the bundle holds its snapshot at SCN {snapshot.scn}",
                fix=_ONE_SCN_FIX,
            )  # fmt: skip
        rows = sorted(snapshot.rows, key=lambda r: rowid_sort_key(str(r[fmt.ROWID_KEY])))
        if after_rowid is not None:
            after = rowid_sort_key(after_rowid)
            rows = [r for r in rows if rowid_sort_key(str(r[fmt.ROWID_KEY])) > after]
        return self._batches(table, rows, max(1, batch_rows))

    def mine(
        self,
        start_scn: int,
        end_scn: int,
        tables: Sequence[TableDef],
        session_start_scn: int | None = None,
    ) -> AbstractContextManager[Iterator[LogMinerRow]]:
        """The bundle's rows of the window; ``session_start_scn`` does not apply (the rows
        were mined when the bundle was recorded)."""
        return self._mine(start_scn, end_scn, tables)

    @contextmanager
    def _mine(
        self, start_scn: int, end_scn: int, tables: Sequence[TableDef]
    ) -> Iterator[Iterator[LogMinerRow]]:
        self._window_logs = self._check_logs(start_scn, end_scn)
        # A window that reaches the last line's SCN (the current SCN is read from it) indexes
        # to the end of the file, so a last line out of SCN order is found, not mined past.
        self._follow_file()
        last_scn = logminer_file.last_line_scn(self._path, self._offset)
        whole = last_scn is not None and last_scn <= end_scn
        self._load_logminer(through_scn=None if whole else end_scn)
        low = bisect.bisect_left(self._scns, start_scn)
        high = bisect.bisect_right(self._scns, end_scn)
        owners = {t.owner for t in tables}
        names = {(t.owner, t.name) for t in tables}
        if low >= high:
            yield iter(())
            return
        stop = self._offsets[high] if high < len(self._offsets) else self._offset
        lines = logminer_file.iter_logminer(
            self._path, self._offsets[low], self._lines[low], stop_offset=stop
        )
        yield (row for _, _, _, row in lines if _selected(row, owners, names))

    def last_window_logs(self) -> Sequence[RedoLogInUse]:
        return self._window_logs

    def close(self) -> None:
        self._reset_index()

    def _reset_index(self) -> None:
        self._scns, self._offsets, self._lines = array("q"), array("q"), array("q")
        self._first_scn, self._end_scn = {}, {}
        self._offset, self._next_line, self._file_size = 0, 1, 0

    # -- internals ------------------------------------------------------------------------

    def _batches(
        self, table: TableDef, rows: list[dict[str, object]], batch_rows: int
    ) -> Iterator[pa.RecordBatch]:
        names = [*table.column_names, fmt.ROWID_KEY]
        for start in range(0, len(rows), batch_rows):
            chunk = rows[start : start + batch_rows]
            yield snapshot_batch(table, [[row.get(n) for n in names] for row in chunk])

    def _point_scn(self, table: TableDef) -> int:
        snapshot = self._snapshot(table)
        if snapshot is not None:
            return snapshot.scn
        self._load_logminer(through_scn=-1)  # the first row: a log-only table starts below it
        return (self._scns[0] - 1) if self._scns else self._header.current_scn or 0

    def _snapshot(self, table: TableDef | None) -> fmt.SnapshotFile | None:
        return None if table is None else fmt.read_snapshot(self._path, table)

    def _lookup(self, owner: str, name: str, *, missing_ok: bool) -> TableDef | None:
        key = (owner, name)
        if key not in self._tables:
            self._reload_dictionary()
        found = self._tables.get(key)
        if found is None and not missing_ok:
            raise TableNotFoundError(
                f"{owner}.{name}", f"not in {self._path / fmt.DICTIONARY_FILE}"
            )
        return found

    def _reload_dictionary(self) -> None:
        self._tables = {(t.owner, t.name): t for t in fmt.read_dictionary(self._path)}

    def _last_scn(self) -> int | None:
        """The SCN of the file's last row. Rows are in SCN order: it is the last line's,
        read from the file's end when that line is not indexed yet and reads plainly. Else,
        and when it is below an indexed SCN (the index then names the line out of order),
        the whole file is indexed."""
        self._follow_file()
        last_line = logminer_file.last_line_scn(self._path, self._offset)
        if last_line is None or (self._scns and last_line < self._scns[-1]):
            self._load_logminer()
            return self._scns[-1] if self._scns else None
        return last_line

    def _follow_file(self) -> None:
        """Start the index over when ``logminer.jsonl`` is smaller than when last seen (it
        was rewritten, not appended to)."""
        path = self._path / fmt.LOGMINER_FILE
        size = path.stat().st_size if path.exists() else 0
        if size < self._file_size:
            self._reset_index()
        self._file_size = size

    def _load_logminer(self, through_scn: int | None = None) -> None:
        """Index the lines not indexed yet: all of them, or (``through_scn``) at least every
        line up to that SCN, in whole blocks."""
        path = self._path / fmt.LOGMINER_FILE
        self._follow_file()
        if through_scn is not None and self._scns and self._scns[-1] > through_scn:
            return
        self._skip_newline_of_a_line_read_without_it(path)
        for block in logminer_file.logminer_index_blocks(self._path, self._offset, self._next_line):
            scns = block.scns
            out_of_order = _first_out_of_order(self._scns[-1] if self._scns else None, scns)
            if out_of_order is not None:
                self._reset_index()
                raise BundleError(path, "rows are not in SCN order", block.numbers[out_of_order])
            self._scns.extend(scns)
            self._offsets.extend(block.starts)
            self._lines.extend(block.numbers)
            first_scn = self._first_scn
            for xid, scn in dict(zip(reversed(block.xids), reversed(scns), strict=True)).items():
                first_scn.setdefault(xid, scn)  # the dict holds each XID's first SCN here
            end_scn = self._end_scn
            for xid, scn, code in zip(block.xids, scns, block.operation_codes, strict=True):
                if code in TRANSACTION_END_CODES:
                    end_scn.setdefault(xid, scn)
            self._offset, self._next_line = block.ends[-1], block.numbers[-1] + 1
            if through_scn is not None and scns[-1] > through_scn:
                break

    def _skip_newline_of_a_line_read_without_it(self, path: Path) -> None:
        """A last line indexed before its newline was written (it decoded whole) ends at
        ``_offset``; the newline written since (after blanks, e.g. ``\\r``) ends that line:
        it is not a blank line of its own, which would shift every later line's number."""
        if self._offset == 0:
            return
        with path.open("rb") as handle:
            handle.seek(self._offset - 1)
            around = handle.read(_LINE_END_BYTES)
        if around[:1] == b"\n":
            return
        newline = around.find(b"\n", 1)
        if newline > 0 and not around[1:newline].strip():
            self._offset += newline

    def _check_logs(self, start_scn: int, end_scn: int) -> tuple[RedoLogInUse, ...]:
        """The catalogued logs overlapping the range; MissingRedoLogError if one of them is
        not available."""
        logs = fmt.read_logs(self._path)
        if logs is None:
            return ()
        in_use = []
        for entry in logs:
            overlaps = entry.first_change <= end_scn and (
                entry.next_change is None or entry.next_change > start_scn
            )
            if overlaps and not entry.available:
                raise MissingRedoLogError(
                    max(start_scn, entry.first_change),
                    end_scn if entry.next_change is None else min(end_scn, entry.next_change - 1),
                    f"log thread {entry.thread} sequence {entry.sequence} ({entry.name}) is "
                    "not available (ORA-01291 missing log file)",
                )
            if overlaps:
                in_use.append(
                    RedoLogInUse(entry.thread, entry.sequence, entry.name, not entry.archived)
                )
        return tuple(in_use)


def _first_out_of_order(last_scn: int | None, scns: list[int]) -> int | None:
    """The index of the first of ``scns`` below the SCN before it (``last_scn`` before the
    first), or None when they are in order."""
    in_order = all(map(operator.le, scns, itertools.islice(scns, 1, None)))
    if in_order and (last_scn is None or not scns or scns[0] >= last_scn):
        return None
    for index, scn in enumerate(scns):
        if last_scn is not None and scn < last_scn:
            return index
        last_scn = scn
    return None


def _selected(row: LogMinerRow, owners: set[str], names: set[tuple[str, str]]) -> bool:
    """The filter of queries.LOGMNR_CONTENTS."""
    if row.operation_code in TRANSACTION_CONTROL_CODES:
        return True
    if row.operation_code == OperationCode.DDL and row.seg_owner in owners:
        return True
    return (row.seg_owner, row.table_name) in names
