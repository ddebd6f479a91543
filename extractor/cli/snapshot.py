"""``oracdc snapshot``: consistent snapshot of every configured table not snapshotted yet;
with ``--force``, of the tables named again (after a redo gap, an ORA-01555, or to rebuild a
replica from the source)."""

from __future__ import annotations

import argparse
from typing import Any

from extractor.cli.options import add_config_option, config_of
from extractor.errors import ConfigError
from extractor.name_patterns import name_matches
from extractor.pipeline.runtime import open_runtime


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "snapshot",
        help="snapshot the configured tables not snapshotted yet (resumable); --force: again",
        description="Read every configured table that has no finished snapshot AS OF one SCN "
        "and land it in its staging table; a cut-off snapshot resumes from its last chunk. "
        "--force snapshots the tables again (all, or those --tables names): each replica is "
        "rebuilt from the new snapshot and streaming goes on from its handover.",
    )
    add_config_option(parser)
    parser.add_argument(
        "--force", action="store_true", help="snapshot again tables already snapshotted"
    )
    parser.add_argument(
        "--tables", nargs="+", metavar="PATTERN", help="with --force: only OWNER.TABLE patterns"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.tables and not args.force:
        raise ConfigError("--tables goes with --force", fix="add --force, or leave out --tables")
    config = config_of(args)
    with open_runtime(config, mines=False) as runtime:
        extractor = runtime.extractor
        if args.force:
            tables = extractor.registry.resolve()
            if args.tables:
                wanted = [p.upper() for p in args.tables]
                tables = [t for t in tables if name_matches(wanted, t.qualified_name)]
                if not tables:
                    raise ConfigError(
                        f"no configured table matches {' '.join(args.tables)}",
                        fix="check --tables against the tables list of oracdc.yml",
                    )
            extractor.take_again(tables, "oracdc snapshot --force")
        result = extractor.snapshot()
    if result.tables:
        print(f"snapshot: {result.rows:,} rows landed for {', '.join(result.tables)}")
    if result.retried:
        print(
            f"snapshot: not read yet: {', '.join(result.retried)} (a WARNING says why); "
            "taken again at a newer SCN by the next run"
        )
    if not result.tables and not result.retried:
        print("snapshot: every configured table is already snapshotted")
    return 0
