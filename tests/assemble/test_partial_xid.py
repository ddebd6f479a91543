"""Rows whose XID sequence is FFFFFFFF (LogMiner could not link them to a transaction begun
before the mining session) reach the open transaction of the same undo segment and slot."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from extractor.assemble import CommittedTransaction, TransactionBuffer
from extractor.logminer_row import LogMinerRow

from .rows import ROWID_2, XID_A, XID_B, commit, insert, rollback_all, start, undo, update

BUDGET = 1 << 20
# XID_A's undo segment and slot with the sequence LogMiner cannot resolve.
PARTIAL_A = XID_A[:8] + "FFFFFFFF"


@pytest.fixture
def buffer(tmp_path: Path) -> TransactionBuffer:
    return TransactionBuffer(BUDGET, tmp_path)


def feed(buffer: TransactionBuffer, rows: Iterable[LogMinerRow]) -> list[CommittedTransaction]:
    done = []
    for item in rows:
        committed = buffer.add(item)
        if committed is not None:
            done.append(committed)
    return done


def sql(transaction: CommittedTransaction) -> list[str | None]:
    return [r.sql_redo for r in transaction.rows]


def test_commit_with_partial_xid_emits_the_open_transaction(buffer: TransactionBuffer) -> None:
    done = feed(buffer, [start(XID_A, 100), insert(XID_A, 101, 7), commit(PARTIAL_A, 300)])
    assert [(t.xid, t.commit_scn, t.row_count) for t in done] == [(XID_A, 300, 1)]
    assert buffer.oldest_open_scn() is None
    metrics = buffer.metrics()
    assert (metrics.empty_commits, metrics.partial_xid_rows) == (0, 1)


def test_lower_case_partial_xid_matches_too(buffer: TransactionBuffer) -> None:
    done = feed(buffer, [insert(XID_A, 101, 7), commit(XID_A[:8] + "ffffffff", 300)])
    assert [t.xid for t in done] == [XID_A]


def test_savepoint_undo_with_partial_xid_cancels_the_change(buffer: TransactionBuffer) -> None:
    rows = [
        start(XID_A, 100),
        update(XID_A, 101, "FIRST"),
        update(XID_A, 102, "SECOND"),
        undo(PARTIAL_A, 250),  # ROLLBACK TO SAVEPOINT, mined in the next session
        commit(PARTIAL_A, 300),
    ]
    (done,) = feed(buffer, rows)
    assert done.row_count == 1
    assert "FIRST" in (sql(done)[0] or "")
    assert buffer.metrics().unmatched_rollback_rows == 0


def test_full_rollback_with_partial_xid_discards(buffer: TransactionBuffer) -> None:
    rows = [
        start(XID_A, 100),
        insert(XID_A, 101, 7),
        undo(PARTIAL_A, 250),
        rollback_all(PARTIAL_A, 250),
    ]
    assert feed(buffer, rows) == []
    assert buffer.oldest_open_scn() is None
    assert buffer.metrics().open_transactions == 0


def test_unmatched_partial_undo_opens_nothing(buffer: TransactionBuffer) -> None:
    """An undo row whose transaction is unknown here must not open an orphan that pins the
    resume position for ever."""
    feed(buffer, [undo(PARTIAL_A, 250)])
    assert buffer.oldest_open_scn() is None
    assert buffer.metrics().unmatched_rollback_rows == 1


def test_partial_xid_reaches_the_newest_transaction_of_the_slot(
    buffer: TransactionBuffer,
) -> None:
    """A slot is reused only after its transaction ended: when two open transactions share
    segment and slot (the older one's end was never seen), the newer one is the live one."""
    reused = XID_A[:8] + "00ff0000"
    rows = [insert(XID_A, 101, 1), insert(reused, 150, 2), commit(PARTIAL_A, 300)]
    (done,) = feed(buffer, rows)
    assert done.xid == reused
    assert [t.xid for t in buffer.open_transactions()] == [XID_A]


def test_partial_xid_of_another_slot_does_not_match(buffer: TransactionBuffer) -> None:
    feed(buffer, [insert(XID_A, 101, 1), commit(XID_B[:8] + "FFFFFFFF", 300)])
    assert [t.xid for t in buffer.open_transactions()] == [XID_A]
    assert buffer.metrics().empty_commits == 1


def test_spilled_transaction_with_partial_undo_and_commit(tmp_path: Path) -> None:
    """A transaction spilled to disk resolves its cancels and commits under the FFFFFFFF XID."""
    with TransactionBuffer(4_000, tmp_path) as buffer:
        rows = [start(XID_A, 100)]
        rows += [insert(XID_A, 101 + n, n, row_id=ROWID_2) for n in range(20)]
        rows += [update(XID_A, 130, "KEPT"), update(XID_A, 131, "UNDONE")]
        rows += [undo(PARTIAL_A, 250), undo(PARTIAL_A, 250, row_id=ROWID_2)]
        (done,) = feed(buffer, [*rows, commit(PARTIAL_A, 300)])
        texts = sql(done)
        assert buffer.metrics().bytes_spilled_total > 0
        assert done.row_count == len(texts) == 20
        assert any("KEPT" in (t or "") for t in texts)
        assert not any("UNDONE" in (t or "") for t in texts)
