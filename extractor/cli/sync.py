"""``oracdc sync``: snapshot new tables, mine, land, ``dbt build`` — once or on an interval."""

from __future__ import annotations

import argparse
import logging
import time
from typing import Any

from extractor.cli.options import add_config_option, config_of
from extractor.pipeline.runtime import open_runtime
from extractor.pipeline.sync import dbt_settings, run_cycle

LOG = logging.getLogger(__name__)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sync",
        help="one cycle (--once) or a loop: snapshot new tables, stream, dbt build",
        description="Each cycle snapshots tables not snapshotted yet, mines up to the current "
        "SCN, lands the changes, writes dbt models for new tables and runs `dbt build`, all in "
        "this process. Without --once it repeats every sync_interval_seconds.",
    )
    add_config_option(parser)
    parser.add_argument("--once", action="store_true", help="run one cycle and stop")
    parser.add_argument(
        "--interval", type=float, default=None, help="seconds between cycles (overrides config)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    config = config_of(args)
    dbt = dbt_settings(config)
    interval = config.sync_interval_seconds if args.interval is None else args.interval
    with open_runtime(config) as runtime:
        cycle = 0
        while True:
            cycle += 1
            started = time.monotonic()
            report = run_cycle(runtime, dbt)
            phases = ", ".join(f"{name} {secs:.1f}s" for name, secs in report.seconds.items())
            print(
                f"sync: cycle {cycle}: {report.snapshot.rows:,} snapshot rows, "
                f"{report.stream.change_rows:,} change rows, mined to SCN "
                f"{report.stream.mined_to_scn} in {time.monotonic() - started:.1f}s ({phases})",
                flush=True,
            )
            if args.once:
                return 0
            time.sleep(max(0.0, interval - (time.monotonic() - started)))
