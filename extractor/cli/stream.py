"""``oracdc stream``: mine committed changes and land them, once or continuously."""

from __future__ import annotations

import argparse
import logging
import time
from typing import Any

from extractor.cli.options import add_config_option, config_of
from extractor.pipeline.extractor import Extractor
from extractor.pipeline.runtime import open_runtime

LOG = logging.getLogger(__name__)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "stream",
        help="mine LogMiner and land committed changes (--once: up to the current SCN)",
        description="Mine from the checkpoint up to the current SCN and land committed changes "
        "in the staging tables; without --once keep going, polling every "
        "mining.poll_interval_seconds.",
    )
    add_config_option(parser)
    parser.add_argument("--once", action="store_true", help="stop at the current SCN")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    config = config_of(args)
    with open_runtime(config) as runtime:
        while True:
            _take_pending_snapshots(runtime.extractor)
            result = runtime.extractor.stream_once()
            if _take_pending_snapshots(runtime.extractor):
                result = result.then(runtime.extractor.stream_once())
            print(
                f"stream: {result.transactions:,} transactions, {result.change_rows:,} change "
                f"rows landed, {result.quarantined} quarantined; mined to SCN "
                f"{result.mined_to_scn}",
                flush=True,
            )
            if args.once:
                return 0
            time.sleep(config.mining.poll_interval_seconds)


def _take_pending_snapshots(extractor: Extractor) -> bool:
    """Snapshot the tables waiting for one (row-moving DDL, a redo gap under
    ``snapshot_mode: when_needed``); True when there were any."""
    if not extractor.snapshot_pending():
        return False
    taken = extractor.snapshot()
    if taken.tables:
        print(f"snapshot again: {taken.rows:,} rows landed for {', '.join(taken.tables)}")
    if taken.retried:
        print(f"snapshot again: not read yet: {', '.join(taken.retried)} (a WARNING says why)")
    return True
