"""``oracdc sync``: snapshot new tables, mine, land, ``dbt build`` of what changed (``--all``:
everything) — once or on an interval.

Without ``--once`` a failed cycle does not end the loop: the failure is notified (see
:mod:`extractor.notify`; an unchanged failure only once per ``repeat_after_seconds``), the
runtime is reopened and the cycle retried after the interval. With ``--once`` a failure is
notified and the command exits 1 with the one-line reason.
"""

from __future__ import annotations

import argparse
import logging
import time
from typing import Any

from extractor.cli.options import add_config_option, config_of
from extractor.config import OracdcConfig
from extractor.errors import OracdcError
from extractor.notify import Failure, Notifier, NotifySettings
from extractor.pipeline.preflight import require_ready
from extractor.pipeline.runtime import open_runtime
from extractor.pipeline.sync import CycleReport, DbtSettings, dbt_settings, run_cycle

LOG = logging.getLogger(__name__)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sync",
        help="one cycle (--once) or a loop: snapshot new tables, stream, dbt build",
        description="Each cycle snapshots tables not snapshotted yet, mines up to the current "
        "SCN, lands the changes, writes dbt models for new tables and runs `dbt build`, all in "
        "this process. Without --once it repeats every sync_interval_seconds, also after a "
        "failed cycle (notified through the notify section of oracdc.yml).",
    )
    add_config_option(parser)
    parser.add_argument("--once", action="store_true", help="run one cycle and stop")
    parser.add_argument(
        "--interval", type=float, default=None, help="seconds between cycles (overrides config)"
    )
    parser.add_argument(
        "--all",
        action="store_true",
        dest="full_build",
        help="dbt builds every replica, view and test, not only what changed",
    )
    parser.set_defaults(handler=run)


def wait_between_cycles(seconds: float) -> None:
    """The pause between cycles (its own name, so that a test can replace this pause alone
    and not ``time.sleep`` of every thread in the process)."""
    time.sleep(seconds)


def run(args: argparse.Namespace) -> int:
    config = config_of(args)
    dbt = dbt_settings(config)
    interval = config.sync_interval_seconds if args.interval is None else args.interval
    notifier = Notifier(NotifySettings.from_config(config.notify), config.data_dir)
    cycle = 0
    while True:
        try:
            cycle = _run_cycles(
                config, dbt, interval, args.once, notifier, cycle, full_build=args.full_build
            )
            return 0
        except OracdcError as error:
            notifier.failed(Failure.from_error(error))
            if args.once:
                raise
            print(f"sync: cycle failed: {error.one_line()}; retrying in {interval:g}s", flush=True)
            cycle += 1
            wait_between_cycles(interval)


def _run_cycles(
    config: OracdcConfig,
    dbt: DbtSettings,
    interval: float,
    once: bool,
    notifier: Notifier,
    cycle: int,
    *,
    full_build: bool = False,
) -> int:
    """Cycles on one runtime until ``once`` is done; an OracdcError ends the runtime."""
    with open_runtime(config) as runtime:
        require_ready(config, runtime.source)
        while True:
            cycle += 1
            started = time.monotonic()
            report = run_cycle(runtime, dbt, full_build=full_build)
            notifier.succeeded()
            phases = ", ".join(f"{name} {secs:.1f}s" for name, secs in report.seconds.items())
            print(
                f"sync: cycle {cycle}: {report.snapshot.rows:,} snapshot rows, "
                f"{report.stream.change_rows:,} change rows, mined to SCN "
                f"{report.stream.mined_to_scn}, {_built(report)} in "
                f"{time.monotonic() - started:.1f}s ({phases})",
                flush=True,
            )
            if once:
                return cycle
            wait_between_cycles(max(0.0, interval - (time.monotonic() - started)))


def _built(report: CycleReport) -> str:
    if report.full_build:
        return f"dbt built all {len(report.built)} replicas"
    if not report.built:
        return "nothing for dbt to build"
    return f"dbt built {len(report.built)} replica(s)"
