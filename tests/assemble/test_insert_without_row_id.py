"""A change LogMiner shows without its ROWID (a row whose LOB values follow it): the buffer
gives it the ROWID of the last row of its statement (docs/sources.md, "Production
behaviours"; extractor/assemble/lob_statement.py)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest
from msgspec.structs import replace

from extractor.assemble import CommittedTransaction, TransactionBuffer
from extractor.errors import AmbiguousRedoError
from extractor.logminer_row import NO_ROW_ID, LogMinerRow
from extractor.parse import parse_redo

from .rows import ROWID_1, ROWID_2, XID_A, XID_B, commit, row, start, undo, update

OBJECT_ROW_ID = "AAASZHAAAAAAAAAAAA"  # a ROWID of the object as a whole: no file, block, slot


@pytest.fixture
def buffer(tmp_path: Path) -> TransactionBuffer:
    return TransactionBuffer(1 << 20, tmp_path)


def feed(buffer: TransactionBuffer, rows: Iterable[LogMinerRow]) -> list[CommittedTransaction]:
    return [done for r in rows if (done := buffer.add(r)) is not None]


def lob_insert(scn: int, empno: int = 7, xid: str = XID_A) -> LogMinerRow:
    """The INSERT of a row whose CLOB value follows, as LogMiner shows it: no ROWID."""
    sql = (
        f'insert into "SCOTT"."EMP"("EMPNO","ENAME","NOTE") '
        f"values ('{empno}','E{empno}',EMPTY_CLOB());"
    )
    return row(1, xid, scn, row_id=NO_ROW_ID, sql_redo=sql)


def lob_update(scn: int, row_id: str, empno: int = 7, column: str = "NOTE") -> LogMinerRow:
    """The UPDATE writing the in-line value, with the row's ROWID (ALL logging: WHERE holds
    the row's other columns)."""
    sql = (
        f'update "SCOTT"."EMP" set "{column}" = \'text\' '
        f"where \"EMPNO\" = '{empno}' and \"ENAME\" = 'E{empno}' and ROWID = '{row_id}';"
    )
    return row(3, XID_A, scn, row_id=row_id, sql_redo=sql)


def lob_locator(scn: int) -> LogMinerRow:
    return row(9, XID_A, scn, row_id=NO_ROW_ID, sql_redo="DECLARE loc_c CLOB; ...")


def lob_write(scn: int, size: int = 30) -> LogMinerRow:
    text = "x" * size
    return row(
        10, XID_A, scn, row_id=NO_ROW_ID, sql_redo=f"buf_c := '{text}'; dbms_lob.write(...);"
    )


def internal(scn: int, row_id: str, *, rollback: int = 0) -> LogMinerRow:
    """The INTERNAL row ending a statement: no SEG_OWNER or TABLE_NAME."""
    base = row(0, XID_A, scn, row_id=row_id, rollback=rollback, sql_redo=None)
    return replace(base, seg_owner=None, table_name=None)


def undo_delete(scn: int, row_id: str = ROWID_1, table: str = "EMP") -> LogMinerRow:
    sql = f'delete from "SCOTT"."{table}" where "EMPNO" = \'7\' and ROWID = \'{row_id}\';'
    return replace(row(2, XID_A, scn, rollback=1, row_id=row_id, sql_redo=sql), table_name=table)


def row_ids(transaction: CommittedTransaction) -> list[tuple[int, str | None]]:
    return [(r.operation_code, r.row_id) for r in transaction.rows]


def test_the_update_writing_the_lob_gives_the_insert_its_row_id(buffer: TransactionBuffer) -> None:
    rows = [start(XID_A, 100), lob_insert(101), lob_update(101, ROWID_1), commit(XID_A, 102)]

    (done,) = feed(buffer, rows)

    assert row_ids(done) == [(1, ROWID_1), (3, ROWID_1)]
    assert buffer.metrics().row_ids_from_next_row == 1
    assert buffer.metrics().changes_without_row_id == 0


def test_an_internal_row_after_out_of_line_lob_writes_gives_the_row_id(
    buffer: TransactionBuffer,
) -> None:
    rows = [start(XID_A, 100), lob_insert(101), lob_locator(101), lob_write(101)]
    rows += [internal(101, ROWID_2), commit(XID_A, 102)]

    (done,) = feed(buffer, rows)

    assert row_ids(done) == [(1, ROWID_2), (9, ROWID_2), (10, ROWID_2)]


def test_an_in_line_update_after_out_of_line_writes_gives_the_row_id(
    buffer: TransactionBuffer,
) -> None:
    # two LOB columns, one value out of line, one in line: the UPDATE comes last
    rows = [start(XID_A, 100), lob_insert(101), lob_locator(101), lob_write(101)]
    rows += [lob_update(101, ROWID_1), commit(XID_A, 102)]

    (done,) = feed(buffer, rows)

    assert row_ids(done) == [(1, ROWID_1), (9, ROWID_1), (10, ROWID_1), (3, ROWID_1)]


@pytest.mark.parametrize(
    "last",
    [
        lob_update(101, ROWID_2, empno=8),  # another row: WHERE disagrees with the INSERT
        lob_update(101, ROWID_2, column="ENAME"),  # sets nothing the INSERT left to follow
        replace(lob_update(101, ROWID_2), table_name="DEPT"),  # another table
        undo(XID_A, 101, row_id=ROWID_2),  # an undo UPDATE cannot undo the INSERT
        replace(undo_delete(101, ROWID_2), table_name="DEPT"),  # an undo in another table
    ],
    ids=["other-row", "non-lob", "other-table", "undo-update", "other-table-undo"],
)  # fmt: skip
def test_a_row_that_is_not_the_statements_end_leaves_the_insert_without_row_id(
    buffer: TransactionBuffer, last: LogMinerRow
) -> None:
    rows = [start(XID_A, 100), lob_insert(101), lob_locator(101), last, commit(XID_A, 102)]

    (done,) = feed(buffer, rows)

    statement = [r for r in row_ids(done) if r[0] in (1, 9)]
    assert statement == [(1, NO_ROW_ID), (9, NO_ROW_ID)]
    assert buffer.metrics().changes_without_row_id == 1
    assert buffer.metrics().row_ids_from_next_row == 0


def test_an_undo_of_the_insert_cancels_it_and_its_lob_writes(buffer: TransactionBuffer) -> None:
    kept = update(XID_A, 101, "KEPT", row_id=ROWID_2)
    rows = [start(XID_A, 100), kept, lob_insert(102), lob_locator(102), lob_write(102)]

    (done,) = feed(buffer, [*rows, undo_delete(103), commit(XID_A, 104)])

    assert [r.sql_redo for r in done.rows] == [kept.sql_redo]
    assert buffer.metrics().unmatched_rollback_rows == 0


def test_an_undo_after_the_row_id_came_cancels_the_insert_and_its_update(
    buffer: TransactionBuffer,
) -> None:
    rows = [start(XID_A, 100), lob_insert(101), lob_update(101, ROWID_1)]
    rows += [lob_insert(102, 8), lob_update(102, ROWID_2, empno=8), undo_delete(103)]

    (done,) = feed(buffer, [*rows, commit(XID_A, 104)])

    assert row_ids(done) == [(1, ROWID_2), (3, ROWID_2)]


def test_a_row_id_already_changed_in_the_transaction_may_be_the_new_rows(
    buffer: TransactionBuffer,
) -> None:
    # a transaction may reuse the space of a row it deleted: the content decides
    deleted = row(2, XID_A, 101, row_id=ROWID_1, sql_redo="delete ...;")
    rows = [start(XID_A, 100), deleted, lob_insert(102), lob_update(102, ROWID_1)]

    (done,) = feed(buffer, [*rows, commit(XID_A, 103)])

    assert row_ids(done) == [(2, ROWID_1), (1, ROWID_1), (3, ROWID_1)]


def test_a_second_insert_without_row_id_leaves_the_first_without_one(
    buffer: TransactionBuffer,
) -> None:
    rows = [start(XID_A, 100), lob_insert(101), lob_insert(102, 8)]
    rows += [lob_update(102, ROWID_2, empno=8), commit(XID_A, 103)]

    (done,) = feed(buffer, rows)

    assert row_ids(done) == [(1, NO_ROW_ID), (1, ROWID_2), (3, ROWID_2)]
    assert buffer.metrics().changes_without_row_id == 1


def test_an_insert_still_waiting_at_commit_is_counted(buffer: TransactionBuffer) -> None:
    (done,) = feed(buffer, [start(XID_A, 100), lob_insert(101), commit(XID_A, 102)])

    assert row_ids(done) == [(1, NO_ROW_ID)]
    assert buffer.metrics().changes_without_row_id == 1


def test_an_update_shown_without_row_id_waits_too(buffer: TransactionBuffer) -> None:
    sql = """update "SCOTT"."EMP" set "NOTE" = EMPTY_CLOB() where "EMPNO" = '7';"""
    waiting = row(3, XID_A, 101, row_id=NO_ROW_ID, sql_redo=sql)
    rows = [start(XID_A, 100), waiting, lob_update(101, ROWID_1), commit(XID_A, 102)]

    (done,) = feed(buffer, rows)

    assert row_ids(done) == [(3, ROWID_1), (3, ROWID_1)]


def test_an_undo_naming_no_row_cancels_nothing_even_spilled(tmp_path: Path) -> None:
    buffer = TransactionBuffer(2 * 1024, tmp_path)
    unsupported = row(255, XID_A, 101, row_id=NO_ROW_ID, sql_redo="Unsupported")
    padding = [update(XID_A, 101, "P" * 900, row_id=ROWID_2) for _ in range(3)]
    no_row = undo(XID_A, 102, row_id=NO_ROW_ID)
    rows = [start(XID_A, 100), unsupported, *padding, no_row, commit(XID_A, 103)]

    (done,) = feed(buffer, rows)

    assert buffer.metrics().bytes_spilled_total > 0
    assert row_ids(done) == [(255, NO_ROW_ID)] + [(3, ROWID_2)] * 3
    assert buffer.metrics().unmatched_rollback_rows == 1


def _summary(buffer: TransactionBuffer, xid: str) -> tuple[int, int]:
    """(bytes in memory, bytes spilled) of an open transaction."""
    (found,) = [t for t in buffer.open_transactions() if t.xid == xid]
    return found.bytes_in_memory, found.spilled_bytes


def test_a_spill_keeps_the_waiting_insert_in_memory_until_its_row_id_comes(
    tmp_path: Path,
) -> None:
    buffer = TransactionBuffer(8 * 1024, tmp_path)
    padding = [update(XID_A, 101, "P" * 1400, row_id=ROWID_2) for _ in range(3)]
    statement = [lob_insert(102), lob_locator(102), lob_write(102)]
    other = [update(XID_B, 102, "Q" * 1400, row_id=ROWID_2) for _ in range(2)]
    feed(buffer, [start(XID_A, 100), *padding, *statement, *other])

    in_memory, spilled = _summary(buffer, XID_A)
    assert spilled > 0  # the padding went to disk while the INSERT waited
    assert in_memory == sum(500 + len(r.sql_redo or "") for r in statement)

    (done,) = feed(buffer, [internal(102, ROWID_1), commit(XID_A, 103)])

    lob_rows = [(1, ROWID_1), (9, ROWID_1), (10, ROWID_1)]
    assert row_ids(done) == [(3, ROWID_2)] * 3 + lob_rows
    assert buffer.metrics().row_ids_from_next_row == 1


def test_an_undo_after_a_spill_still_finds_the_insert(tmp_path: Path) -> None:
    buffer = TransactionBuffer(8 * 1024, tmp_path)
    kept = [update(XID_A, 101, "P" * 1400, row_id=ROWID_2) for _ in range(3)]
    other = [update(XID_B, 102, "Q" * 1400, row_id=ROWID_2) for _ in range(2)]
    feed(buffer, [start(XID_A, 100), *kept, lob_insert(102), lob_write(102), *other])
    assert _summary(buffer, XID_A)[1] > 0

    (done,) = feed(buffer, [undo_delete(104), commit(XID_A, 105)])

    assert row_ids(done) == [(3, ROWID_2)] * 3
    assert buffer.metrics().unmatched_rollback_rows == 0


def test_a_statement_writing_more_than_a_quarter_of_the_budget_is_not_held(
    tmp_path: Path,
) -> None:
    buffer = TransactionBuffer(8 * 1024, tmp_path)
    writes = [lob_write(102, size=1500) for _ in range(6)]
    rows = [start(XID_A, 100), lob_insert(102), lob_locator(102), *writes]
    rows += [internal(102, ROWID_1), commit(XID_A, 103)]

    (done,) = feed(buffer, rows)

    assert buffer.metrics().bytes_spilled_total > 0
    assert buffer.metrics().bytes_in_memory == 0
    assert [r for r in row_ids(done) if r[0] == 1] == [(1, NO_ROW_ID)]
    assert buffer.metrics().changes_without_row_id == 1


def test_statements_held_together_past_the_budget_are_let_go(tmp_path: Path) -> None:
    buffer = TransactionBuffer(8 * 1024, tmp_path)
    xids = [f"0a00{n:02x}000f2b0000" for n in range(8)]
    for n, xid in enumerate(xids):  # each holds ~1.6 kB, below a quarter of the budget
        waiting = lob_insert(100 + n, xid=xid)
        writes = [replace(lob_write(100 + n, size=100), xid=xid) for _ in range(2)]
        feed(buffer, [waiting, *writes])

    assert buffer.metrics().bytes_in_memory <= 8 * 1024
    assert buffer.metrics().changes_without_row_id > 0


def test_a_null_in_the_insert_agrees_with_is_null_in_the_lob_update(
    buffer: TransactionBuffer,
) -> None:
    insert_sql = (
        'insert into "SCOTT"."EMP"("EMPNO","ENAME","NOTE") values (\'7\',NULL,EMPTY_CLOB());'
    )
    update_sql = (
        'update "SCOTT"."EMP" set "NOTE" = \'text\' '
        f"where \"EMPNO\" = '7' and \"ENAME\" IS NULL and ROWID = '{ROWID_1}';"
    )
    inserted = row(1, XID_A, 101, row_id=NO_ROW_ID, sql_redo=insert_sql)
    written = row(3, XID_A, 101, row_id=ROWID_1, sql_redo=update_sql)

    (done,) = feed(buffer, [start(XID_A, 100), inserted, written, commit(XID_A, 102)])

    assert row_ids(done) == [(1, ROWID_1), (3, ROWID_1)]


@pytest.mark.parametrize(
    "passing", [internal(101, ROWID_2, rollback=1), internal(101, OBJECT_ROW_ID)],
    ids=["undo", "object-rowid"],
)  # fmt: skip
def test_an_internal_row_that_cannot_end_the_statement_leaves_it_waiting(
    buffer: TransactionBuffer, passing: LogMinerRow
) -> None:
    rows = [start(XID_A, 100), lob_insert(101), lob_locator(101), passing]
    rows += [internal(101, ROWID_1), commit(XID_A, 102)]

    (done,) = feed(buffer, rows)

    assert row_ids(done) == [(1, ROWID_1), (9, ROWID_1)]


def test_an_internal_row_right_after_the_insert_is_another_statements(
    buffer: TransactionBuffer,
) -> None:
    # e.g. of an INSERT into a table that is not replicated, in the same transaction
    rows = [start(XID_A, 100), lob_insert(101), internal(102, ROWID_2), commit(XID_A, 103)]

    (done,) = feed(buffer, rows)

    assert row_ids(done) == [(1, NO_ROW_ID)]
    assert buffer.metrics().changes_without_row_id == 1


def test_an_undo_of_a_waiting_update_cancels_it_and_its_value_writes(
    buffer: TransactionBuffer,
) -> None:
    sql = """update "SCOTT"."EMP" set "NOTE" = EMPTY_CLOB() where "EMPNO" = '7';"""
    waiting = row(3, XID_A, 101, row_id=NO_ROW_ID, sql_redo=sql)
    before = update(XID_A, 101, "BEFORE", row_id=ROWID_1)
    rows = [start(XID_A, 100), before, waiting, lob_locator(101), lob_write(101)]
    rows += [internal(101, ROWID_1), undo(XID_A, 102, row_id=ROWID_1), commit(XID_A, 103)]

    (done,) = feed(buffer, rows)

    assert [r.sql_redo for r in done.rows] == [before.sql_redo]


def _undoubled(job: str) -> tuple[LogMinerRow, LogMinerRow]:
    """An INSERT whose ENAME is ``a', "JOB" = 'b`` and the UPDATE writing its CLOB, with
    apostrophes LogMiner did not double (docs/parser.md): the UPDATE's WHERE has two readings
    with as many columns, ENAME = ``a', "JOB" = 'b`` and JOB = ``job``, or ENAME = ``a`` and
    JOB = ``b' and "JOB" = '<job>``."""
    insert = replace(
        lob_insert(101),
        sql_redo='insert into "SCOTT"."EMP"("EMPNO","ENAME","JOB","NOTE") '
        "values ('7','a' and \"JOB\" = 'b','c',EMPTY_CLOB());",
    )
    update = replace(
        lob_update(101, ROWID_1),
        sql_redo='update "SCOTT"."EMP" set "NOTE" = \'n\' where "EMPNO" = \'7\' and '
        f"\"ENAME\" = 'a' and \"JOB\" = 'b' and \"JOB\" = '{job}' and ROWID = '{ROWID_1}';",
    )
    return insert, update


@pytest.mark.parametrize(
    ("job", "insert_row_id"),
    [
        ("c", ROWID_1),  # the first reading is the inserted row: the UPDATE follows it
        ("d", NO_ROW_ID),  # neither reading is: another row's UPDATE gives no ROWID
    ],
)
def test_an_update_read_two_ways_gives_the_row_id_when_one_reading_is_the_rows(
    buffer: TransactionBuffer, job: str, insert_row_id: str
) -> None:
    insert, update = _undoubled(job)
    with pytest.raises(AmbiguousRedoError):
        parse_redo(update.sql_redo or "")
    (done,) = feed(buffer, [start(XID_A, 100), insert, update, commit(XID_A, 102)])

    assert row_ids(done) == [(1, insert_row_id), (3, ROWID_1)]
