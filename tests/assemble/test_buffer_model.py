"""Property: whatever the interleaving and the budget, the buffer emits exactly what a plain
model of Oracle's transaction semantics says was committed.

The model keeps every transaction as a list of [text, row_id, cancelled] entries; a
ROLLBACK = 1 row marks the last not-cancelled entry with the same ROW_ID; COMMIT emits the
not-cancelled texts with their ROW_IDs; ROLLBACK forgets the transaction. An INSERT of a row
with a LOB is two entries under the row's ROWID, though LogMiner shows the INSERT without it
(the buffer takes it from the UPDATE writing the LOB, which comes next); a failed one is an
INSERT and its undo DELETE, which names the ROWID.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.assemble import CommitPosition, TransactionBuffer
from extractor.logminer_row import NO_ROW_ID, LogMinerRow

from .rows import row

FIRST_SCN = 100
ROW_IDS = ["AAASZHAAEAAAACXAAA", "AAASZHAAEAAAACXAAB", "AAASZHAAEAAAACXAAC", None]
# Rows a transaction may insert with a LOB: LogMiner shows that INSERT without its ROWID
# (NO_ROW_ID), and the UPDATE writing the LOB, next, with it. A row is inserted once in a
# transaction, before any other change of it there.
LOB_ROW_IDS = ["AAASZHAAEAAAACXAAD", "AAASZHAAEAAAACXAAE"]


@dataclass(frozen=True)
class Op:
    kind: str  # "change", "undo" or "lob_insert"
    row_id: str | None
    padding: int


@dataclass(frozen=True)
class Txn:
    has_start: bool
    ops: list[Op]
    end: str  # "commit", "rollback" or "open"


ops = st.builds(
    Op,
    kind=st.sampled_from(["change", "change", "undo", "lob_insert", "failed_lob_insert"]),
    row_id=st.sampled_from(ROW_IDS + LOB_ROW_IDS),
    padding=st.integers(0, 300),
)
txns = st.builds(
    Txn,
    has_start=st.booleans(),
    ops=st.lists(ops, max_size=25),
    end=st.sampled_from(["commit", "commit", "rollback", "open"]),
)


def xid(n: int) -> str:
    return f"{n + 1:04x}001a00000000"


def rows_of(number: int, txn: Txn) -> list[tuple[str, Op | None]]:
    steps: list[tuple[str, Op | None]] = [("start", None)] if txn.has_start else []
    seen: set[str | None] = set()
    for op in txn.ops:
        if op.kind.endswith("lob_insert") and op.row_id in LOB_ROW_IDS and op.row_id not in seen:
            # the UPDATE writing the LOB, or the undo of a statement that failed
            last = "lob_write" if op.kind == "lob_insert" else "undo_insert"
            steps += [("lob_insert", op), (last, op)]
        else:
            steps.append(("undo" if op.kind == "undo" else "change", op))
        seen.add(op.row_id)
    if txn.end != "open":
        steps.append((txn.end, None))
    return steps


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[Txn], list[int], int]:
    transactions = draw(st.lists(txns, min_size=1, max_size=6))
    tokens = [n for n, t in enumerate(transactions) for _ in rows_of(n, t)]
    order = draw(st.permutations(tokens))
    # from 4,000 bytes: a waiting INSERT (~600 bytes) stays within a quarter of the budget,
    # and six of them within the budget
    budget = draw(st.integers(4000, 9000))
    return transactions, order, budget


def to_logminer_row(number: int, kind: str, op: Op | None, scn: int, seq: int) -> LogMinerRow:
    code = {"start": 6, "commit": 7, "rollback": 36, "lob_insert": 1, "undo_insert": 2}
    text = None if op is None else f"t{number}-{seq}:" + "p" * op.padding
    row_id = None if op is None else op.row_id
    key = f"{number}{row_id}"  # a row is inserted once in a transaction
    if kind == "lob_insert":
        row_id = NO_ROW_ID
        text = f'insert into "SCOTT"."EMP"("ID","N","C") values (\'{key}\',\'{seq}\',EMPTY_CLOB());'
    elif kind == "lob_write":
        where = f"where \"ID\" = '{key}' and ROWID = '{row_id}'"
        text = f'update "SCOTT"."EMP" set "C" = \'{seq}\' {where};'
    return row(
        code.get(kind, 3),
        xid(number),
        scn,
        row_id=row_id,
        rollback=1 if kind.startswith("undo") else 0,
        sql_redo=text,
    )


def model(
    stream: list[tuple[int, str, Op | None, str | None]],
) -> list[tuple[str, list[tuple[str, str | None]]]]:
    open_txns: dict[int, list[list[object]]] = {}
    committed: list[tuple[str, list[tuple[str, str | None]]]] = []
    for number, kind, op, text in stream:
        entries = open_txns.setdefault(number, [])
        if kind in ("change", "lob_insert", "lob_write") and op is not None:
            entries.append([text, op.row_id, False])
        elif kind == "undo_insert" and op is not None:
            entries[-1][2] = True  # the failed statement's INSERT, right before
        elif kind == "undo" and op is not None:
            for entry in reversed(entries):
                if op.row_id is not None and entry[1] == op.row_id and not entry[2]:
                    entry[2] = True
                    break
        elif kind == "commit":
            survivors = [(str(e[0]), e[1]) for e in open_txns.pop(number) if not e[2]]
            if survivors:
                committed.append((xid(number), survivors))  # type: ignore[arg-type]
        elif kind == "rollback":
            open_txns.pop(number)
    return committed


def build(
    transactions: list[Txn], order: list[int]
) -> tuple[list[LogMinerRow], list[tuple[int, str, Op | None, str | None]]]:
    cursors = [0] * len(transactions)
    steps = [rows_of(n, t) for n, t in enumerate(transactions)]
    stream: list[tuple[int, str, Op | None, str | None]] = []
    rows: list[LogMinerRow] = []
    for scn, number in enumerate(order, start=FIRST_SCN):
        kind, op = steps[number][cursors[number]]
        cursors[number] += 1
        r = to_logminer_row(number, kind, op, scn, scn)
        rows.append(r)
        stream.append((number, kind, op, r.sql_redo))
    return rows, stream


Emitted = list[tuple[str, list[tuple[str, str | None]]]]


def drain(
    buffer: TransactionBuffer, rows: list[LogMinerRow]
) -> tuple[Emitted, CommitPosition | None]:
    emitted: Emitted = []
    last: CommitPosition | None = None
    for r in rows:
        done = buffer.add(r)
        if done is not None:
            emitted.append((done.xid, [(str(x.sql_redo), x.row_id) for x in done.rows]))
            last = done.position
    return emitted, last


@settings(max_examples=150, deadline=None)
@given(scenarios())
def test_buffer_emits_exactly_the_committed_surviving_changes(
    scenario: tuple[list[Txn], list[int], int],
) -> None:
    transactions, order, budget = scenario
    rows, stream = build(transactions, order)

    with tempfile.TemporaryDirectory() as spill_dir:
        with TransactionBuffer(budget, spill_dir) as buffer:
            emitted, _ = drain(buffer, rows)
            assert emitted == model(stream)
        assert list(Path(spill_dir).iterdir()) == []


@settings(max_examples=150, deadline=None)
@given(scenarios(), st.data())
def test_restart_from_the_checkpoint_emits_every_transaction_exactly_once(
    scenario: tuple[list[Txn], list[int], int], data: st.DataObject
) -> None:
    transactions, order, budget = scenario
    rows, stream = build(transactions, order)
    crash_after = data.draw(st.integers(0, len(rows)), label="rows mined before the crash")

    with tempfile.TemporaryDirectory() as spill_dir:
        with TransactionBuffer(budget, spill_dir) as before:
            emitted_before, last_emitted = drain(before, rows[:crash_after])
            window_end = rows[crash_after - 1].scn if crash_after else FIRST_SCN - 1
            oldest = before.oldest_open_scn()
        resume_scn = window_end + 1 if oldest is None else min(oldest, window_end + 1)
        with TransactionBuffer(budget, spill_dir, emit_after=last_emitted) as after:
            emitted_after, _ = drain(after, [r for r in rows if r.scn >= resume_scn])

    assert emitted_before + emitted_after == model(stream)
