"""``oracdc compact``: fold the delta tables of merge-on-read replicas into their base tables.

Replica runs compact by themselves once a delta holds more than ``oracle_cdc__compact_share``
of its base (docs/dbt.md, "Replica layouts"); this command does it now, for example before a
heavy read. It runs ``dbt run-operation oracle_cdc.compact`` in this process and holds the
data directory's lock while it does, so that no sync cycle appends to a delta meanwhile.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from extractor.cli import options as cli_options
from extractor.cli.options import add_config_option, config_of
from extractor.errors import CheckpointLockedError, SyncStepError
from extractor.lakehouse.dbt_runner import run_dbt
from extractor.pipeline.sync import dbt_settings, first_dbt_failure
from extractor.process_lock import (
    ProcessLockHeldError,
    acquire_process_lock,
    release_process_lock,
)
from extractor.state.checkpoint import CHECKPOINT_FILE, LOCK_FILE


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compact",
        help="fold the delta of merge-on-read replicas into their base tables",
        description="Rewrites the base buckets that merge-on-read replicas' delta tables touch "
        "and empties the deltas (dbt run-operation oracle_cdc.compact). Not while `oracdc sync` "
        "runs: its replica runs compact by themselves (oracle_cdc__compact_share).",
    )
    add_config_option(parser)
    parser.add_argument(
        "--models", nargs="+", metavar="MODEL", help="only these replica models (default: all)"
    )
    parser.set_defaults(handler=run)


def compact_arguments(models: list[str] | None) -> list[str]:
    """The dbt command line of the compaction."""
    return ["run-operation", "oracle_cdc.compact", "--args", json.dumps({"select": models})]


def operation_error(messages: list[str]) -> str | None:
    """The one line that says why the operation failed: our macros' own (``oracle_cdc: ...``),
    else dbt's first error line."""
    lines = [line.strip() for message in messages for line in message.splitlines() if line.strip()]
    ours = [line for line in lines if line.startswith("oracle_cdc:")]
    return next(iter(ours or lines), None)


def run(args: argparse.Namespace) -> int:
    config = config_of(args)
    dbt = dbt_settings(config)
    try:
        lock = acquire_process_lock(config.data_dir / LOCK_FILE)
    except ProcessLockHeldError as held:
        raise CheckpointLockedError(
            f"an oracdc process (pid {held.holder}) is using the data directory",
            path=config.data_dir / CHECKPOINT_FILE,
            fix="stop `oracdc sync` first (its replica runs compact by themselves past "
            "oracle_cdc__compact_share), then rerun `oracdc compact`",
        ) from None
    try:
        cli_options.open_spark(config)  # dbt's session: the configured warehouse
        started = time.monotonic()
        errors: list[str] = []
        result = run_dbt(
            compact_arguments(args.models),
            project_dir=dbt.project_dir,
            profiles_dir=dbt.profiles_dir,
            target=dbt.target,
            variables=dbt.variables,
            errors=errors,
        )
    finally:
        release_process_lock(lock)
    if not result.success:
        raise SyncStepError(
            "compact",
            operation_error(errors) or first_dbt_failure(result)[1],
            fix="read the dbt log in the project's logs/ directory",
        )
    chosen = ", ".join(args.models) if args.models else "every merge-on-read replica"
    print(
        f"compact: {chosen} done in {time.monotonic() - started:.1f}s (rows folded per replica:"
        " dbt's log)",
        flush=True,
    )
    return 0
