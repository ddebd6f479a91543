"""TransactionBuffer: rows in mining order in, committed transactions in commit order out."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import msgspec
import pytest

from extractor.assemble import (
    AssemblyError,
    CommitPosition,
    CommittedTransaction,
    RedoGapError,
    TransactionBuffer,
)
from extractor.logminer_row import LogMinerRow

from .rows import (
    ROWID_1,
    ROWID_2,
    XID_A,
    XID_B,
    XID_C,
    commit,
    insert,
    rollback_all,
    row,
    start,
    undo,
    update,
)

BUDGET = 1 << 20


@pytest.fixture
def buffer(tmp_path: Path) -> TransactionBuffer:
    return TransactionBuffer(BUDGET, tmp_path)


def feed(buffer: TransactionBuffer, rows: Iterable[LogMinerRow]) -> list[CommittedTransaction]:
    return [done for r in rows if (done := buffer.add(r)) is not None]


def texts(transaction: CommittedTransaction) -> list[str | None]:
    return [r.sql_redo for r in transaction.rows]


def test_interleaved_transactions_are_emitted_in_commit_order(buffer: TransactionBuffer) -> None:
    rows = [
        start(XID_A, 100),
        start(XID_B, 101),
        insert(XID_A, 102, 1),
        insert(XID_B, 103, 2),
        commit(XID_B, 104),
        commit(XID_A, 105),
    ]

    emitted = feed(buffer, rows)

    assert [t.xid for t in emitted] == [XID_B, XID_A]


def test_rows_of_a_transaction_come_out_in_redo_order(buffer: TransactionBuffer) -> None:
    rows = [start(XID_A, 100), insert(XID_A, 101, 1), insert(XID_B, 102, 9), insert(XID_A, 103, 2)]
    rows += [update(XID_A, 104, "X"), commit(XID_A, 105)]

    (done,) = feed(buffer, rows)

    assert texts(done) == [rows[1].sql_redo, rows[3].sql_redo, rows[4].sql_redo]


def test_committed_transaction_carries_its_commit_row_position(buffer: TransactionBuffer) -> None:
    commit_row = commit(XID_A, 105, block=0x271)
    rows = [start(XID_A, 100), insert(XID_A, 102, 1), commit_row]

    (done,) = feed(buffer, rows)

    assert (done.start_scn, done.commit_scn, done.commit_rs_id, done.commit_ssn) == (
        100,
        105,
        " 0x000c5d.00000271.0010 ",
        0,
    )
    assert done.commit_timestamp == commit_row.timestamp
    assert done.position == CommitPosition(105, (0xC5D, 0x271, 0x10, 0))


def test_full_rollback_discards_the_transaction(buffer: TransactionBuffer) -> None:
    rows = [start(XID_A, 100), insert(XID_A, 101, 1), rollback_all(XID_A, 102)]
    rows += [commit(XID_A, 103)]  # an XID is never reused this fast; nothing left to commit

    assert feed(buffer, rows) == []
    assert buffer.metrics().rolled_back == 1


def test_savepoint_rollback_cancels_the_most_recent_change_of_that_row(
    buffer: TransactionBuffer,
) -> None:
    first, second = update(XID_A, 101, "FIRST"), update(XID_A, 102, "SECOND")
    rows = [start(XID_A, 100), first, second, undo(XID_A, 103), commit(XID_A, 104)]

    (done,) = feed(buffer, rows)

    assert texts(done) == [first.sql_redo]


def test_savepoint_rollback_leaves_changes_of_other_rows_alone(buffer: TransactionBuffer) -> None:
    mine = update(XID_A, 101, "MINE", row_id=ROWID_1)
    other = update(XID_A, 102, "OTHER", row_id=ROWID_2)
    rows = [start(XID_A, 100), mine, other, undo(XID_A, 103, row_id=ROWID_1), commit(XID_A, 104)]

    (done,) = feed(buffer, rows)

    assert texts(done) == [other.sql_redo]


def test_two_undos_cancel_the_two_most_recent_changes_of_that_row(
    buffer: TransactionBuffer,
) -> None:
    changes = [update(XID_A, 101 + i, f"V{i}") for i in range(3)]
    rows = [start(XID_A, 100), *changes, undo(XID_A, 110), undo(XID_A, 111), commit(XID_A, 112)]

    (done,) = feed(buffer, rows)

    assert texts(done) == [changes[0].sql_redo]


def test_clustered_tables_sharing_a_rowid_are_undone_each_its_own(
    buffer: TransactionBuffer,
) -> None:
    """Rows of two tables in one cluster can share a ROWID (SQL Reference, "ROWID
    Pseudocolumn"). Oracle undoes in reverse order, so each undo row meets its own change on
    top of the ROWID's stack, whichever table the changes below it belong to."""
    kept_dept = msgspec.structs.replace(update(XID_A, 101, "KEPT"), table_name="DEPT")
    emp = update(XID_A, 102, "UNDONE")
    dept = msgspec.structs.replace(update(XID_A, 103, "UNDONE TOO"), table_name="DEPT")
    undo_dept = msgspec.structs.replace(undo(XID_A, 104), table_name="DEPT")
    rows = [start(XID_A, 100), kept_dept, emp, dept, undo_dept, undo(XID_A, 105)]

    (done,) = feed(buffer, [*rows, commit(XID_A, 106)])

    assert [(r.table_name, r.sql_redo) for r in done.rows] == [("DEPT", kept_dept.sql_redo)]


def test_savepoint_rollback_of_another_transaction_does_not_cancel(
    buffer: TransactionBuffer,
) -> None:
    mine = update(XID_A, 101, "MINE")
    rows = [start(XID_A, 100), mine, undo(XID_B, 102), commit(XID_A, 103)]

    (done,) = feed(buffer, rows)

    assert texts(done) == [mine.sql_redo]


def test_transaction_whose_changes_were_all_rolled_back_is_not_emitted(
    buffer: TransactionBuffer,
) -> None:
    rows = [start(XID_A, 100), update(XID_A, 101, "X"), undo(XID_A, 102), commit(XID_A, 103)]

    assert feed(buffer, rows) == []
    assert buffer.metrics().empty_commits == 1


def test_transaction_without_start_begins_at_its_first_row(buffer: TransactionBuffer) -> None:
    rows = [insert(XID_A, 150, 1), commit(XID_A, 160)]

    (done,) = feed(buffer, rows)

    assert (done.start_scn, done.saw_start) == (150, False)
    assert texts(done) == [rows[0].sql_redo]


def test_commit_of_an_unseen_transaction_emits_nothing(buffer: TransactionBuffer) -> None:
    assert feed(buffer, [start(XID_A, 100), commit(XID_A, 101), commit(XID_B, 102)]) == []


@pytest.mark.parametrize("code", [0, 25, 27])
def test_internal_select_for_update_and_marker_rows_carry_no_change(
    buffer: TransactionBuffer, code: int
) -> None:
    rows = [
        start(XID_A, 100),
        row(code, XID_A, 101, row_id=ROWID_1, sql_redo="x"),
        insert(XID_A, 102, 1),
        commit(XID_A, 103),
    ]

    (done,) = feed(buffer, rows)

    assert texts(done) == [rows[2].sql_redo]
    assert buffer.metrics().ignored_rows == 1


@pytest.mark.parametrize("code", [5, 9, 10, 11, 28, 29, 70, 255])
def test_ddl_lob_xml_and_unsupported_rows_are_buffered_as_changes(
    buffer: TransactionBuffer, code: int
) -> None:
    rows = [start(XID_A, 100), row(code, XID_A, 101, sql_redo="stmt;"), commit(XID_A, 102)]

    (done,) = feed(buffer, rows)

    assert [r.operation_code for r in done.rows] == [code]


def test_missing_scn_with_status_1291_is_a_redo_gap_error(buffer: TransactionBuffer) -> None:
    gap = row(34, "0000000000000000", 500, status=1291)

    with pytest.raises(RedoGapError) as caught:
        buffer.add(gap)

    assert caught.value.scn == 500
    assert caught.value.fix is not None


def test_oldest_open_scn_is_the_first_scn_of_the_oldest_open_transaction(
    buffer: TransactionBuffer,
) -> None:
    feed(buffer, [start(XID_A, 100), start(XID_B, 110), insert(XID_C, 120, 1)])
    assert buffer.oldest_open_scn() == 100

    feed(buffer, [insert(XID_A, 130, 1), commit(XID_A, 131)])
    assert buffer.oldest_open_scn() == 110


def test_oldest_open_scn_carries_over_across_mining_windows(buffer: TransactionBuffer) -> None:
    window_1 = [start(XID_A, 100), insert(XID_A, 101, 1), start(XID_B, 150)]
    window_2 = [insert(XID_B, 210, 2), commit(XID_B, 220)]
    window_3 = [start(XID_C, 300), commit(XID_A, 310)]

    feed(buffer, window_1)
    after_1 = buffer.oldest_open_scn()
    feed(buffer, window_2)
    after_2 = buffer.oldest_open_scn()
    feed(buffer, window_3)

    assert (after_1, after_2, buffer.oldest_open_scn()) == (100, 100, 300)


def test_oldest_open_scn_is_none_when_nothing_is_open(buffer: TransactionBuffer) -> None:
    feed(buffer, [start(XID_A, 100), commit(XID_A, 101)])

    assert buffer.oldest_open_scn() is None


def test_open_transactions_lists_each_with_its_first_scn_and_row_count(
    buffer: TransactionBuffer,
) -> None:
    feed(buffer, [start(XID_A, 100), insert(XID_A, 101, 1), insert(XID_B, 102, 2)])
    feed(buffer, [insert(XID_A, 103, 3)])

    summary = [(t.xid, t.first_scn, t.saw_start, t.rows) for t in buffer.open_transactions()]

    assert summary == [(XID_A, 100, True, 2), (XID_B, 102, False, 1)]


def test_emit_after_drops_transactions_committed_at_or_before_it(tmp_path: Path) -> None:
    already = commit(XID_A, 105)
    buffer = TransactionBuffer(BUDGET, tmp_path, emit_after=CommitPosition.of_commit_row(already))
    rows = [insert(XID_A, 101, 1), insert(XID_B, 102, 2), insert(XID_C, 103, 3)]
    rows += [commit(XID_C, 104), already, commit(XID_B, 106)]

    emitted = feed(buffer, rows)

    assert [t.xid for t in emitted] == [XID_B]
    assert buffer.metrics().skipped_already_emitted == 2


def test_emit_after_compares_redo_positions_within_the_same_commit_scn(tmp_path: Path) -> None:
    emit_after = CommitPosition(105, (0xC5D, 0x300, 0x10, 0))
    buffer = TransactionBuffer(BUDGET, tmp_path, emit_after=emit_after)
    rows = [insert(XID_A, 101, 1), insert(XID_B, 102, 2)]
    rows += [commit(XID_A, 105, block=0x300), commit(XID_B, 105, block=0x301)]

    emitted = feed(buffer, rows)

    assert [t.xid for t in emitted] == [XID_B]


def test_snapshot_handover_emits_only_transactions_committing_after_the_snapshot(
    tmp_path: Path,
) -> None:
    buffer = TransactionBuffer(BUDGET, tmp_path, emit_after=CommitPosition.after_scn(105))
    rows = [start(XID_A, 90), insert(XID_A, 95, 1), start(XID_B, 100), insert(XID_B, 101, 2)]
    rows += [commit(XID_A, 105, block=0xFFFFFF), commit(XID_B, 106)]

    emitted = feed(buffer, rows)

    assert [t.xid for t in emitted] == [XID_B]


def test_commit_row_with_a_malformed_rs_id_is_an_assembly_error(tmp_path: Path) -> None:
    buffer = TransactionBuffer(BUDGET, tmp_path, emit_after=CommitPosition.after_scn(105))
    buffer.add(insert(XID_A, 101, 1))
    bad = msgspec.structs.replace(commit(XID_A, 105), rs_id=" garbage ")

    with pytest.raises(AssemblyError) as caught:
        buffer.add(bad)

    assert (caught.value.xid, caught.value.scn) == (XID_A, 105)


def undo_insert(xid: str, scn: int, *, row_id: str = ROWID_1) -> LogMinerRow:
    """The compensating DELETE (ROLLBACK = 1) Oracle writes when an INSERT is rolled back."""
    return row(
        2,
        xid,
        scn,
        rollback=1,
        row_id=row_id,
        sql_redo=f'delete from "SCOTT"."EMP" where "EMPNO" = \'7\' and ROWID = \'{row_id}\';',
    )


def test_undo_delete_cancels_an_insert_and_the_lob_write_that_followed_it(
    buffer: TransactionBuffer,
) -> None:
    # An INSERT of a row with a LOB is two redo rows (INSERT with EMPTY_CLOB(), then the UPDATE
    # writing the LOB); rolling the statement back gives one compensating DELETE.
    kept = update(XID_A, 101, "KEPT", row_id=ROWID_2)
    inserted, lob_write = insert(XID_A, 102, 7), update(XID_A, 102, "LOB")
    rows = [start(XID_A, 100), kept, inserted, lob_write, undo_insert(XID_A, 103)]

    (done,) = feed(buffer, [*rows, commit(XID_A, 104)])

    assert texts(done) == [kept.sql_redo]


def test_undo_delete_leaves_changes_made_before_the_insert(buffer: TransactionBuffer) -> None:
    before = update(XID_A, 101, "BEFORE")  # the row existed, was deleted and re-inserted
    rows = [start(XID_A, 100), before, insert(XID_A, 102, 7), undo_insert(XID_A, 103)]

    (done,) = feed(buffer, [*rows, commit(XID_A, 104)])

    assert texts(done) == [before.sql_redo]
