"""Snapshot reads in ROWID-range chunks: no query sorts the whole table.

A real Oracle sorts the whole table for ``ORDER BY ROWID`` before the first row comes back
(TEMP space: ORA-01652 on a large table; a longer ``AS OF`` read: ORA-01555). The simulator
models a TEMP limit (``server.temp_sort_limit_rows``) and answers DBA_EXTENTS; the reader
must stay under the limit, return every row once in ROWID order, and resume after a landed
ROWID as before.
"""

from __future__ import annotations

import pytest

from extractor.errors import SourceQueryError
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.source.oracle import queries
from extractor.source.oracle.oracle_source import OracleSource
from extractor.source.oracle.snapshot import read_snapshot
from extractor.source.rowid_order import rowid_sort_key
from tests.sim.sim_tables import one_table

TABLE = one_table(("NAME", "VARCHAR2(20)"))
ROWS = 2000  # 64 rows a block, 8 blocks an extent: 4 extents of 512 rows


def _database(rows: int = ROWS, partitions: int = 0) -> SimDatabase:
    db = SimDatabase()
    db.create_table(TABLE, partitions=partitions)
    txn = db.begin()
    for i in range(rows):
        txn.insert("O", "T", {"ID": i, "NAME": f"n{i}"})
    txn.commit()
    return db


def _read(
    connection: SimConnection, scn: int, after: str | None = None, chunk_blocks: int = 8
) -> list[tuple[int, str]]:
    batches = read_snapshot(connection, TABLE, scn, 300, after, chunk_blocks=chunk_blocks)
    return [
        (int(i.as_py()), str(r.as_py()))
        for batch in batches
        for i, r in zip(batch.column("id"), batch.column("_row_id"), strict=True)
    ]


def _read_every_row_once(
    db: SimDatabase, connection: SimConnection
) -> tuple[list[tuple[int, str]], list[tuple[int, int, int, int]]]:
    """The whole table as of now, and its ROWIDs' sort keys: every row once, in ROWID order."""
    read = _read(connection, db.current_scn())
    assert sorted(i for i, _ in read) == list(range(ROWS))
    keys = [rowid_sort_key(r) for _, r in read]
    assert keys == sorted(keys) and len(set(keys)) == ROWS
    return read, keys


def test_a_table_larger_than_temp_is_read_whole_without_a_full_sort() -> None:
    db = _database()
    db.server.temp_sort_limit_rows = 600  # one extent (512 rows) fits, the table does not
    connection = SimConnection(db)
    _read_every_row_once(db, connection)
    ranged = [s for s in connection.statements if "ROWID BETWEEN" in s]
    assert len(ranged) == 4  # one query per extent at chunk_blocks=8


def test_a_partitioned_table_is_read_in_chunks_over_every_partition() -> None:
    db = _database(partitions=3)  # 667 rows a partition: 2 extents each
    db.server.temp_sort_limit_rows = 600
    read, keys = _read_every_row_once(db, SimConnection(db))
    assert len({key[0] for key in keys}) == 3  # three segments
    resumed = _read(SimConnection(db), db.current_scn(), after=read[999][1])
    assert resumed == read[1000:]


def test_extents_are_merged_into_chunks_of_at_most_chunk_blocks() -> None:
    db = _database()
    connection = SimConnection(db)
    assert sorted(i for i, _ in _read(connection, db.current_scn(), chunk_blocks=16)) == list(
        range(ROWS)
    )
    assert len([s for s in connection.statements if "ROWID BETWEEN" in s]) == 2


def test_the_source_reads_in_chunks_by_default() -> None:
    db = _database()
    db.server.temp_sort_limit_rows = 600
    source = OracleSource(SimConnection(db), nls=db.nls, snapshot_chunk_blocks=8)
    rows = sum(b.num_rows for b in source.snapshot_batches(TABLE, db.current_scn(), 500))
    assert rows == ROWS


def test_resuming_after_a_landed_rowid_reads_only_the_rest() -> None:
    db = _database()
    scn = db.current_scn()
    everything = _read(SimConnection(db), scn)
    cut = 1100  # inside the third extent
    rest = _read(SimConnection(db), scn, after=everything[cut - 1][1])
    assert rest == everything[cut:]


def test_rows_inserted_after_the_snapshot_scn_are_not_read() -> None:
    db = _database()
    scn = db.current_scn()
    txn = db.begin()
    for i in range(ROWS, ROWS + 700):  # new blocks and extents after the snapshot SCN
        txn.insert("O", "T", {"ID": i, "NAME": "late"})
    txn.commit()
    assert sorted(i for i, _ in _read(SimConnection(db), scn)) == list(range(ROWS))


def test_without_extent_access_the_reader_falls_back_to_one_sorted_query() -> None:
    db = _database(300)
    db.server.revoked.add("DBA_EXTENTS")
    connection = SimConnection(db)
    assert len(_read(connection, db.current_scn())) == 300
    assert not any("ROWID BETWEEN" in s for s in connection.statements)


def test_the_simulated_temp_limit_fails_a_whole_table_sort() -> None:
    """The reproduction: what the single ``ORDER BY ROWID`` query meets on a large table."""
    db = _database()
    db.server.temp_sort_limit_rows = 600
    db.server.revoked.add("DBA_EXTENTS")
    with pytest.raises(SourceQueryError, match="ORA-01652"):
        _read(SimConnection(db), db.current_scn())


def test_the_extents_query_computes_rowid_bounds_in_oracle() -> None:
    text = queries.TABLE_EXTENTS
    assert "DBMS_ROWID.ROWID_CREATE(1, O.DATA_OBJECT_ID, E.RELATIVE_FNO, E.BLOCK_ID, 0)" in text
    assert "E.BLOCK_ID + E.BLOCKS - 1, 32767" in text
