"""Restart from a checkpoint (docs/transactions.md §4, worked example).

Windows of 100 SCNs. A: START 150, inserts 160 and 240, COMMIT 250. B: START 120,
update 170, COMMIT 180. The process dies after window [101, 200] was checkpointed.
"""

from __future__ import annotations

from pathlib import Path

from extractor.assemble import (
    CommitPosition,
    CommittedTransaction,
    ContinuationJoiner,
    TransactionBuffer,
)
from extractor.logminer_row import LogMinerRow

from .rows import ROWID_2, XID_A, XID_B, commit, insert, row, start, update

BUDGET = 1 << 20

HISTORY = [
    start(XID_B, 120),
    start(XID_A, 150),
    insert(XID_A, 160, 1),
    update(XID_B, 170, "B", row_id=ROWID_2),
    commit(XID_B, 180),
    insert(XID_A, 240, 2),
    commit(XID_A, 250),
]


def mine(buffer: TransactionBuffer, low: int, high: int) -> list[CommittedTransaction]:
    rows: list[LogMinerRow] = [r for r in HISTORY if low <= r.scn <= high]
    return [done for r in rows if (done := buffer.add(r)) is not None]


def test_checkpoint_resumes_at_the_start_of_the_oldest_open_transaction(tmp_path: Path) -> None:
    buffer = TransactionBuffer(BUDGET, tmp_path)

    (b,) = mine(buffer, 101, 200)

    assert b.xid == XID_B
    assert min(buffer.oldest_open_scn() or 201, 201) == 150


def test_restart_drops_the_already_landed_transaction_and_completes_the_open_one(
    tmp_path: Path,
) -> None:
    first_run = TransactionBuffer(BUDGET, tmp_path)
    (b,) = mine(first_run, 101, 200)
    last_emitted = b.position
    first_run.close()

    restarted = TransactionBuffer(BUDGET, tmp_path, emit_after=last_emitted)
    emitted = mine(restarted, 150, 300)

    assert [t.xid for t in emitted] == [XID_A]
    assert [r.scn for r in emitted[0].rows] == [160, 240]
    assert restarted.metrics().skipped_already_emitted == 1


def test_without_emit_after_the_landed_transaction_would_come_back(tmp_path: Path) -> None:
    restarted = TransactionBuffer(BUDGET, tmp_path)

    emitted = mine(restarted, 150, 300)

    assert [t.xid for t in emitted] == [XID_B, XID_A]


def test_commit_position_orders_by_scn_then_redo_address() -> None:
    assert CommitPosition(180, (1, 9, 9, 9)) < CommitPosition(181, (0, 0, 0, 0))
    assert CommitPosition(180, (1, 2, 3, 4)) < CommitPosition(180, (1, 2, 4, 0))
    assert CommitPosition(180, (0xFFFFFFFF, 0xFFFFFFFF, 0xFFFF, 2**32)) < (
        CommitPosition.after_scn(180)
    )


def test_chain_cut_by_the_window_end_is_mined_again_whole_in_the_next_window(
    tmp_path: Path,
) -> None:
    head, tail = 'insert into "SCOTT"."EMP"("EMPNO","NOTES") values (\'7\',\'' + "n" * 3970, "');"
    chain = [
        row(1, XID_A, 300, block=0x400, ssn=1, csf=1, row_id=ROWID_2, sql_redo=head),
        row(1, XID_A, 300, block=0x400, ssn=1, csf=0, row_id=ROWID_2, sql_redo=tail),
    ]
    history = [start(XID_A, 290), insert(XID_A, 300, 6), *chain, commit(XID_A, 310)]
    buffer = TransactionBuffer(BUDGET, tmp_path)
    joiner = ContinuationJoiner(hold_incomplete=True)

    window_1 = history[:3]  # ends after the first piece of the chain
    assert [buffer.add(r) for r in joiner.join(window_1)] == [None]
    resume = joiner.resume_scn
    assert resume == 300
    window_2 = [r for r in history if r.scn >= resume]
    emitted = [done for r in joiner.join(window_2) if (done := buffer.add(r)) is not None]

    assert [[r.sql_redo for r in t.rows] for t in emitted] == [[history[1].sql_redo, head + tail]]
