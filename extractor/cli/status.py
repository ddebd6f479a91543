"""``oracdc status``: where the extractor stands, per table and overall.

Reads the checkpoint, the counters the extractor writes after every checkpoint
(``status.json``) and the batches the last successful sync consolidated
(``consolidated.json``); it needs neither Spark nor the source, so it works while a sync
runs. ``--replicas`` also reads each replica's own watermark (its highest ``_batch_id``)
through Spark, which covers ``dbt run`` started by hand.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import Any

from extractor.cli import options as cli_options
from extractor.cli.options import (
    add_config_option,
    add_replica_schema_option,
    config_of,
    replica_schema_of,
)
from extractor.state.checkpoint import CHECKPOINT_FILE, Checkpoint
from extractor.state.consolidation_state import load_consolidated
from extractor.state.stats import load_stats
from extractor.verify.replica_watermark import replica_watermarks


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "status",
        help="per table: snapshot state, rows landed, last commit, consolidation, lag, errors",
        description="Show the extractor's position from its checkpoint and counters.",
    )
    add_config_option(parser)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--replicas",
        action="store_true",
        help="also read each replica's highest consolidated batch through Spark",
    )
    add_replica_schema_option(parser)
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
    consolidated = load_consolidated(config.data_dir)
    names = sorted(set(checkpoint.tables) | set(stats.tables))
    watermarks: dict[str, int | None] = {}
    if args.replicas:
        spark = cli_options.open_spark(config)
        watermarks = replica_watermarks(spark, replica_schema_of(args), names)
    now = datetime.now(UTC)
    tables: dict[str, dict[str, Any]] = {}
    for name in names:
        state = checkpoint.tables.get(name)
        counters = stats.table(name)
        last_time = counters.last_commit_time
        lag_seconds = (
            round((now - datetime.fromisoformat(last_time)).total_seconds()) if last_time else None
        )
        done = consolidated.get(name)
        tables[name] = {
            "snapshot": state.status if state else "not started",
            "snapshot_mode": config.snapshot_modes.mode_of(*name.split(".", 1)),
            "snapshot_scn": state.snapshot_scn if state else None,
            "snapshot_rows": state.rows_landed if state else 0,
            "change_rows_landed": counters.rows_landed,
            "last_commit_scn": counters.last_commit_scn,
            "last_commit_time": last_time,
            "seconds_since_last_commit": lag_seconds,
            "last_landed_batch": counters.last_batch_id,
            "last_consolidated_batch": done.batch_id if done else None,
            "consolidated_at": done.at if done else None,
            "built_because": (done.reason or None) if done else None,
            "quarantined": counters.quarantined,
        }
        if args.replicas:
            tables[name]["replica_batch"] = watermarks.get(name)
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
        "abandoned_transactions": stats.abandoned_transactions,
        "redo_logs_in_use": stats.redo_logs,
        "window_scns": stats.window_scns,
        "next_batch_id": checkpoint.next_batch_id,
        "updated_at": stats.updated_at,
    }
    if args.json:
        print(json.dumps({"overall": overall, "tables": tables}, indent=2))
        return 0
    _print_human(overall, tables, replicas=args.replicas)
    return 0


def _print_human(
    overall: dict[str, Any], tables: dict[str, dict[str, Any]], *, replicas: bool
) -> None:
    print(
        f"mined to SCN {overall['mined_to_scn']} (lag {overall['lag_scns']} SCNs), resume at "
        f"SCN {overall['resume_scn']}, {overall['open_transactions']} open transaction(s), "
        f"oldest from SCN {overall['oldest_open_transaction_scn']}, "
        f"{overall['abandoned_transactions']} abandoned (retention limit); "
        f"updated {overall['updated_at']}"
    )
    logs = overall["redo_logs_in_use"]
    print("redo logs in use: " + ("; ".join(logs) if logs else "-"))
    header = (
        f"{'table':<28} {'snapshot':<12} {'snap rows':>10} {'changes':>10} "
        f"{'last commit SCN':>16} {'age s':>7} {'landed':>7} {'merged':>7} "
    )
    print(header + (f"{'replica':>7} " if replicas else "") + f"{'errors':>6}")
    for name, row in tables.items():
        line = (
            f"{name:<28} {row['snapshot']:<12} {row['snapshot_rows']:>10,} "
            f"{row['change_rows_landed']:>10,} {_or_dash(row['last_commit_scn']):>16} "
            f"{_or_dash(row['seconds_since_last_commit']):>7} "
            f"{_or_dash(row['last_landed_batch']):>7} "
            f"{_or_dash(row['last_consolidated_batch']):>7} "
        )
        if replicas:
            line += f"{_or_dash(row['replica_batch']):>7} "
        print(line + f"{row['quarantined']:>6}")
    print("landed/merged: last batch landed in staging / taken in by the last successful sync")
    built = [(name, row) for name, row in tables.items() if row["consolidated_at"]]
    if built:
        print("last replica builds:")
    for name, row in built:
        why = row["built_because"] or "-"
        print(f"  {name:<28} {row['consolidated_at']}  {why}")


def _or_dash(value: object) -> str:
    return "-" if value is None else str(value)
