"""Spilling: past its memory budget the buffer writes transactions to disk and streams them back."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from extractor.assemble import CommittedTransaction, SpillError, TransactionBuffer
from extractor.logminer_row import LogMinerRow

from .rows import XID_A, XID_B, commit, rollback_all, row, start, undo, update

MEGABYTE = 1 << 20


def rowid(n: int) -> str:
    """An 18-character extended ROWID: object, file, block, row in Oracle's base-64 digits."""
    digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    text = ""
    for _ in range(6):
        text = digits[n % 64] + text
        n //= 64
    return "AAASZHAAE" + "AAA" + text


def big_insert(xid: str, n: int) -> LogMinerRow:
    padding = "x" * 120
    return row(
        1,
        xid,
        1000 + n,
        block=n,
        row_id=rowid(n),
        sql_redo=f'insert into "SCOTT"."EMP"("EMPNO","NOTES") values (\'{n}\',\'{padding}\');',
    )


def big_transaction(xid: str, count: int) -> Iterator[LogMinerRow]:
    yield start(xid, 999)
    for n in range(count):
        yield big_insert(xid, n)


def spill_files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.spill"))


def only(buffer: TransactionBuffer, rows: Iterator[LogMinerRow]) -> CommittedTransaction:
    emitted = [done for r in rows if (done := buffer.add(r)) is not None]
    assert len(emitted) == 1
    return emitted[0]


def test_large_transaction_spills_and_comes_back_complete_and_in_order(tmp_path: Path) -> None:
    count = 100_000
    buffer = TransactionBuffer(MEGABYTE, tmp_path)
    text_bytes = 0
    tracemalloc.start()
    try:
        for r in big_transaction(XID_A, count):
            text_bytes += len(r.sql_redo or "")
            buffer.add(r)
        spilled_total = buffer.metrics().bytes_spilled_total
        done = buffer.add(commit(XID_A, 500_000))
        assert done is not None
        expected = 0
        for r in done.rows:
            assert r.sql_redo is not None
            assert r.sql_redo.startswith(
                f'insert into "SCOTT"."EMP"("EMPNO","NOTES") values (\'{expected}\','
            )
            expected += 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert expected == count
    assert spilled_total > 0
    # The rows' text alone is ~18 MB (the row objects several times more); what stays in
    # memory is about the budget: nothing is kept per spilled event (see docs/transactions.md).
    assert peak < text_bytes / 4, (peak, text_bytes)


def test_memory_estimate_stays_within_the_budget_while_spilling(tmp_path: Path) -> None:
    buffer = TransactionBuffer(64 * 1024, tmp_path)
    highest = 0
    for r in big_transaction(XID_A, 2_000):
        buffer.add(r)
        highest = max(highest, buffer.metrics().bytes_in_memory)

    assert highest <= 64 * 1024


def test_savepoint_rollback_cancels_a_spilled_change(tmp_path: Path) -> None:
    buffer = TransactionBuffer(4 * 1024, tmp_path)
    first, second = update(XID_A, 101, "FIRST"), update(XID_A, 102, "SECOND")
    filler = [big_insert(XID_A, n) for n in range(50)]
    rows = [start(XID_A, 100), first, second, *filler, undo(XID_A, 200), commit(XID_A, 201)]

    done = only(buffer, iter(rows))

    assert buffer.metrics().bytes_spilled_total > 0
    assert [r.sql_redo for r in done.rows] == [first.sql_redo] + [f.sql_redo for f in filler]


def test_spill_file_is_removed_once_the_committed_rows_are_read(tmp_path: Path) -> None:
    buffer = TransactionBuffer(4 * 1024, tmp_path)
    done = only(buffer, iter([*big_transaction(XID_A, 50), commit(XID_A, 2000)]))
    assert spill_files(tmp_path) != []

    list(done.rows)

    assert spill_files(tmp_path) == []


def test_spill_file_is_removed_on_full_rollback(tmp_path: Path) -> None:
    buffer = TransactionBuffer(4 * 1024, tmp_path)
    for r in big_transaction(XID_A, 50):
        buffer.add(r)
    assert spill_files(tmp_path) != []

    buffer.add(rollback_all(XID_A, 2000))

    assert spill_files(tmp_path) == []


def test_spill_files_are_removed_on_close(tmp_path: Path) -> None:
    buffer = TransactionBuffer(4 * 1024, tmp_path)
    for r in big_transaction(XID_A, 50):
        buffer.add(r)
    unread = only(buffer, iter([*big_transaction(XID_B, 50), commit(XID_B, 3000)]))
    assert len(spill_files(tmp_path)) == 2

    buffer.close()

    assert spill_files(tmp_path) == []
    assert unread.row_count == 50


def test_largest_transaction_is_spilled_first(tmp_path: Path) -> None:
    buffer = TransactionBuffer(8 * 1024, tmp_path)
    buffer.add(big_insert(XID_B, 0))
    for r in big_transaction(XID_A, 30):
        buffer.add(r)

    spilled = {t.xid: t.spilled_bytes for t in buffer.open_transactions()}

    assert spilled[XID_A] > 0
    assert spilled[XID_B] == 0


def test_metrics_report_memory_spill_and_open_transactions(tmp_path: Path) -> None:
    buffer = TransactionBuffer(4 * 1024, tmp_path)
    for r in big_transaction(XID_A, 50):
        buffer.add(r)

    metrics = buffer.metrics()

    assert metrics.open_transactions == 1
    assert 0 < metrics.bytes_in_memory <= 4 * 1024
    assert metrics.bytes_spilled_total == spill_files(tmp_path)[0].stat().st_size


def test_missing_spill_directory_is_created(tmp_path: Path) -> None:
    spill_dir = tmp_path / "not" / "yet"
    buffer = TransactionBuffer(4 * 1024, spill_dir)

    for r in big_transaction(XID_A, 50):
        buffer.add(r)

    assert len(spill_files(spill_dir)) == 1


def test_unusable_spill_directory_is_a_spill_error_naming_the_transaction(tmp_path: Path) -> None:
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    buffer = TransactionBuffer(4 * 1024, not_a_directory)

    with pytest.raises(SpillError) as caught:
        for r in big_transaction(XID_A, 50):
            buffer.add(r)

    assert caught.value.xid == XID_A
    assert caught.value.fix is not None
