"""``oracdc status``: where the extractor stands, per table and overall.

Reads the checkpoint and the counters the extractor writes after every checkpoint
(``status.json``); it needs neither Spark nor the source, so it works while a sync runs.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import Any

from extractor.cli.options import add_config_option, config_of
from extractor.land.checkpoint import CHECKPOINT_FILE, Checkpoint
from extractor.pipeline.stats import load_stats


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "status",
        help="per table: snapshot state, rows landed, last commit, lag, errors",
        description="Show the extractor's position from its checkpoint and counters.",
    )
    add_config_option(parser)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    config = config_of(args)
    path = config.data_dir / CHECKPOINT_FILE
    checkpoint = (
        Checkpoint.from_json(json.loads(path.read_text(encoding="utf-8")))
        if path.exists()
        else Checkpoint()
    )
    stats = load_stats(config.data_dir)
    now = datetime.now(UTC)
    tables: dict[str, dict[str, Any]] = {}
    for name in sorted(set(checkpoint.tables) | set(stats.tables)):
        state = checkpoint.tables.get(name)
        counters = stats.table(name)
        last_time = counters.last_commit_time
        lag_seconds = (
            round((now - datetime.fromisoformat(last_time)).total_seconds()) if last_time else None
        )
        tables[name] = {
            "snapshot": state.status if state else "not started",
            "snapshot_scn": state.snapshot_scn if state else None,
            "snapshot_rows": state.rows_landed if state else 0,
            "change_rows_landed": counters.rows_landed,
            "last_commit_scn": counters.last_commit_scn,
            "last_commit_time": last_time,
            "seconds_since_last_commit": lag_seconds,
            "quarantined": counters.quarantined,
        }
    lag_scns = (
        None
        if stats.source_scn is None or checkpoint.mined_to_scn is None
        else stats.source_scn - checkpoint.mined_to_scn
    )
    overall = {
        "mined_to_scn": checkpoint.mined_to_scn,
        "resume_scn": checkpoint.resume_scn,
        "source_scn_at_last_window": stats.source_scn,
        "lag_scns": lag_scns,
        "open_transactions": stats.open_transactions,
        "oldest_open_transaction_scn": stats.oldest_open_scn,
        "window_scns": stats.window_scns,
        "next_batch_id": checkpoint.next_batch_id,
        "updated_at": stats.updated_at,
    }
    if args.json:
        print(json.dumps({"overall": overall, "tables": tables}, indent=2))
        return 0
    print(
        f"mined to SCN {overall['mined_to_scn']} (lag {lag_scns} SCNs), resume at SCN "
        f"{overall['resume_scn']}, {overall['open_transactions']} open transaction(s), "
        f"oldest from SCN {overall['oldest_open_transaction_scn']}; updated {stats.updated_at}"
    )
    header = f"{'table':<28} {'snapshot':<12} {'snap rows':>10} {'changes':>10} "
    print(header + f"{'last commit SCN':>16} {'age s':>7} {'errors':>6}")
    for name, row in tables.items():
        print(
            f"{name:<28} {row['snapshot']:<12} {row['snapshot_rows']:>10,} "
            f"{row['change_rows_landed']:>10,} {row['last_commit_scn'] or '-':>16} "
            f"{row['seconds_since_last_commit'] or '-':>7} {row['quarantined']:>6}"
        )
    return 0
