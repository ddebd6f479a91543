"""Throughput of CSF joining + transaction assembly (no parsing, no landing).

Feeds N change rows of ~200-byte SQL_REDO in transactions of T rows (START, T inserts,
COMMIT; two transactions interleaved at a time) through ``join_continuations`` and a
``TransactionBuffer``, consuming every committed transaction's rows, and prints rows/s.

    .venv/bin/python bench/assemble_bench.py --rows 1000000 --txn-rows 1000 --budget-mb 256
    .venv/bin/python bench/assemble_bench.py --rows 1000000 --txn-rows 1000 --budget-mb 0.25

Rows are built before the clock starts, so the number is the assembly cost alone.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from extractor.assemble import TransactionBuffer, join_continuations
from extractor.logminer_row import LogMinerRow


def make_row(code: int, xid: str, scn: int, n: int, text: str | None) -> LogMinerRow:
    return LogMinerRow(
        scn=scn,
        start_scn=None,
        commit_scn=None,
        timestamp=f"2024-02-14T10:{(n // 60) % 60:02d}:{n % 60:02d}",
        commit_timestamp=None,
        xid=xid,
        operation="INSERT" if code == 1 else "COMMIT" if code == 7 else "START",
        operation_code=code,
        seg_owner="SCOTT" if code == 1 else None,
        table_name="EMP" if code == 1 else None,
        row_id=f"AAASZHAAEAAA{n:06d}" if code == 1 else None,
        rs_id=f" 0x000c5d.{scn:08x}.0010 ",
        ssn=0,
        csf=0,
        rollback=0,
        status=0,
        info=None,
        username="SCOTT",
        sql_redo=text,
    )


def workload(total: int, per_txn: int) -> list[LogMinerRow]:
    rows: list[LogMinerRow] = []
    scn = 1000
    pad = "x" * 120
    for pair in range(total // (2 * per_txn)):
        xids = [f"{2 * pair:08x}00000000", f"{2 * pair + 1:08x}00000000"]
        for xid in xids:
            scn += 1
            rows.append(make_row(6, xid, scn, 0, "set transaction read write;"))
        for k in range(per_txn):
            for xid in xids:
                scn += 1
                text = (
                    f'insert into "SCOTT"."EMP"("EMPNO","ENAME","NOTES") '
                    f"values ('{scn}','E{k}','{pad}');"
                )
                rows.append(make_row(1, xid, scn, scn, text))
        for xid in xids:
            scn += 1
            rows.append(make_row(7, xid, scn, 0, "commit;"))
    return rows


def run(rows: list[LogMinerRow], budget: int) -> tuple[float, float, int, int]:
    with tempfile.TemporaryDirectory() as spill_dir, TransactionBuffer(budget, spill_dir) as buf:
        changes = 0
        began, began_cpu = time.perf_counter(), time.process_time()
        for row in join_continuations(iter(rows)):
            done = buf.add(row)
            if done is not None:
                for _ in done.rows:
                    changes += 1
        elapsed, cpu = time.perf_counter() - began, time.process_time() - began_cpu
        return elapsed, cpu, changes, buf.metrics().bytes_spilled_total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--txn-rows", type=int, default=1_000)
    parser.add_argument("--budget-mb", type=float, default=256.0)
    args = parser.parse_args()
    rows = workload(args.rows, args.txn_rows)
    elapsed, cpu, changes, spilled = run(rows, int(args.budget_mb * 1024 * 1024))
    print(
        f"{changes} change rows ({len(rows)} rows in): wall {elapsed:.2f} s = "
        f"{changes / elapsed:,.0f} rows/s, CPU {cpu:.2f} s = {changes / cpu:,.0f} rows/s per core; "
        f"spilled {spilled / 1e6:.1f} MB (budget {args.budget_mb} MB)"
    )


if __name__ == "__main__":
    main()
