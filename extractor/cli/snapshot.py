"""``oracdc snapshot``: consistent snapshot of every configured table not snapshotted yet."""

from __future__ import annotations

import argparse
from typing import Any

from extractor.cli.options import add_config_option, config_of
from extractor.pipeline.runtime import open_runtime


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "snapshot",
        help="snapshot the configured tables not snapshotted yet (resumable)",
        description="Read every configured table that has no finished snapshot AS OF one SCN "
        "and land it in its staging table; a cut-off snapshot resumes from its last chunk.",
    )
    add_config_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    config = config_of(args)
    with open_runtime(config) as runtime:
        result = runtime.extractor.snapshot()
    if result.tables:
        print(f"snapshot: {result.rows:,} rows landed for {', '.join(result.tables)}")
    else:
        print("snapshot: every configured table is already snapshotted")
    return 0
