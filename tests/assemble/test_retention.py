"""Transactions that never end: replication-marker transactions and the retention limit."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from extractor.assemble import TransactionBuffer

from .rows import XID_A, XID_B, commit, insert, row, start

BUDGET = 1 << 20


@pytest.fixture
def buffer(tmp_path: Path) -> TransactionBuffer:
    return TransactionBuffer(BUDGET, tmp_path)


def test_marker_only_transaction_does_not_pin_the_resume_position(
    buffer: TransactionBuffer,
) -> None:
    buffer.add(start(XID_A, 100))
    buffer.add(row(27, XID_A, 100))
    assert buffer.oldest_open_scn() is None
    metrics = buffer.metrics()
    assert (metrics.marker_transactions, metrics.ignored_rows) == (1, 1)


def test_marker_in_a_transaction_with_changes_keeps_them(buffer: TransactionBuffer) -> None:
    buffer.add(start(XID_A, 100))
    buffer.add(insert(XID_A, 101, 7))
    buffer.add(row(27, XID_A, 102))
    done = buffer.add(commit(XID_A, 103))
    assert done is not None and done.row_count == 1
    assert buffer.metrics().marker_transactions == 0


def test_retention_discards_old_transactions_and_logs_them(
    buffer: TransactionBuffer, caplog: pytest.LogCaptureFixture
) -> None:
    for item in (start(XID_A, 100), insert(XID_A, 101, 1), insert(XID_B, 500, 2)):
        buffer.add(item)
    with caplog.at_level(logging.WARNING, logger="extractor.assemble.transaction_buffer"):
        discarded = buffer.abandon_older_than(400)
    assert [(t.xid, t.first_scn, t.rows) for t in discarded] == [(XID_A, 100, 1)]
    assert buffer.oldest_open_scn() == 500
    assert buffer.metrics().abandoned == 1
    (record,) = caplog.records
    assert XID_A in record.getMessage() and "100" in record.getMessage()
    assert "1 row(s)" in record.getMessage()


def test_later_rows_of_an_abandoned_transaction_are_dropped(
    buffer: TransactionBuffer, caplog: pytest.LogCaptureFixture
) -> None:
    """Emitting the rest of an abandoned transaction would land half a transaction."""
    buffer.add(insert(XID_A, 101, 1))
    buffer.abandon_older_than(400)
    buffer.add(insert(XID_A, 450, 2))
    with caplog.at_level(logging.WARNING, logger="extractor.assemble.transaction_buffer"):
        assert buffer.add(commit(XID_A, 460)) is None
    assert buffer.oldest_open_scn() is None
    assert buffer.metrics().abandoned_rows == 2
    assert any("committed at SCN 460" in r.getMessage() for r in caplog.records)


def test_abandoned_commit_with_partial_xid_is_recognised(buffer: TransactionBuffer) -> None:
    buffer.add(insert(XID_A, 101, 1))
    buffer.abandon_older_than(400)
    assert buffer.add(commit(XID_A[:8] + "FFFFFFFF", 460)) is None
    metrics = buffer.metrics()
    assert (metrics.abandoned_rows, metrics.empty_commits) == (1, 0)


def test_reused_slot_is_a_new_transaction(buffer: TransactionBuffer) -> None:
    """Once the slot of an abandoned transaction is reused, that transaction has ended:
    rows of the new one are kept."""
    buffer.add(insert(XID_A, 101, 1))
    buffer.abandon_older_than(400)
    reused = XID_A[:8] + "00ff0000"
    buffer.add(insert(reused, 450, 2))
    done = buffer.add(commit(XID_A[:8] + "FFFFFFFF", 460))
    assert done is not None and done.xid == reused and done.row_count == 1


def test_abandoning_a_spilled_transaction_deletes_its_file(tmp_path: Path) -> None:
    with TransactionBuffer(2_000, tmp_path) as buffer:
        for n in range(10):
            buffer.add(insert(XID_A, 101 + n, n))
        assert list(tmp_path.iterdir())
        buffer.abandon_older_than(400)
        assert not list(tmp_path.iterdir())
        assert buffer.metrics().bytes_in_memory == 0
