"""Test-side reading of the INSERTs LogMiner shows without their ROWID (a row whose LOB value
follows): written here, independently of the extractor's buffer, for the tests that rebuild
tables from the simulator's redo by ROW_ID."""

from __future__ import annotations

from msgspec.structs import replace

from extractor.logminer_row import NO_ROW_ID, LogMinerRow


def with_insert_row_ids(rows: list[LogMinerRow]) -> list[LogMinerRow]:
    """``rows`` with each INSERT row (every CSF piece) that shows ROW_ID ``NO_ROW_ID`` given
    the ROW_ID of the next INSERT/UPDATE/DELETE row of its transaction that has one (the
    UPDATE writing its LOB). Every such INSERT must have that row in ``rows``."""
    filled = list(rows)
    waiting: dict[str, list[int]] = {}
    for index, row in enumerate(rows):
        if row.operation_code not in (1, 2, 3):
            continue
        if row.operation_code == 1 and row.row_id == NO_ROW_ID:
            waiting.setdefault(row.xid, []).append(index)  # every CSF piece
        elif row.xid in waiting:
            assert row.operation_code == 3 and not row.rollback, row  # the UPDATE writing it
            pieces = waiting.pop(row.xid)
            insert = "".join(rows[p].sql_redo or "" for p in pieces)
            assert "EMPTY_CLOB()" in insert or "EMPTY_BLOB()" in insert, insert
            for position in pieces:
                filled[position] = replace(filled[position], row_id=row.row_id)
    assert not waiting, f"INSERTs without a ROWID and no row after them: {waiting}"
    return filled
