"""``oracdc record``: run a seeded simulator workload and write it as a replay bundle."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "record",
        help="run a simulated workload and write it as a replay bundle",
        description="Run a seeded simulated Oracle workload and write a replay bundle "
        "(oracdc-replay/1): dictionary, a snapshot of every table at the SCN the workload "
        "SCN given by --snapshot-at, and all LogMiner rows.",
    )
    parser.add_argument("--out", required=True, type=Path, help="bundle directory to write")
    parser.add_argument("--tables", type=int, default=5, help="number of tables (default 5)")
    parser.add_argument("--transactions", type=int, default=1_000, help="default 1000")
    parser.add_argument("--seed", type=int, default=42, help="workload seed (default 42)")
    parser.add_argument("--rollback-ratio", type=float, default=0.03, help="default 0.03")
    parser.add_argument(
        "--snapshot-at",
        type=float,
        default=0.5,
        help="snapshot every table at this fraction of the workload's SCN span (default 0.5)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from extractor.sim.database import SimDatabase
    from extractor.sim.workload import WorkloadSpec, run_workload
    from extractor.source.replay.recorder import record_bundle

    db = SimDatabase()
    spec = WorkloadSpec(
        tables=args.tables,
        transactions=args.transactions,
        rollback_ratio=args.rollback_ratio,
        seed=args.seed,
    )
    result = run_workload(db, spec)
    span = result.end_scn - result.first_scn
    snapshot_scn = result.first_scn + max(1, int(span * min(max(args.snapshot_at, 0.0), 1.0)))
    scns = {(t.owner, t.name): snapshot_scn for t in db.tables()}
    record_bundle(db, args.out, snapshot_scns=scns, since_scn=result.first_scn)
    print(f"wrote {args.out}: {len(scns)} tables, snapshot SCN {snapshot_scn}, "
          f"current SCN {db.current_scn()}")  # fmt: skip
    return 0
