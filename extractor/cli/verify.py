"""``oracdc verify``: compare every replica with the source at one SCN.

Exit codes: 0 every verified table matches, 3 differences found, 1 verification could not
run (the one-line error says why), 2 bad command line.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from extractor.cli import options as cli_options
from extractor.cli.options import (
    add_config_option,
    add_replica_schema_option,
    config_of,
    replica_schema_of,
)
from extractor.config import OracdcConfig
from extractor.dictionary import TableDef
from extractor.errors import VerifyError
from extractor.name_patterns import name_matches
from extractor.pipeline.incarnation_guard import incarnation_change
from extractor.pipeline.runtime import open_configured_source
from extractor.pipeline.table_registry import TableRegistry
from extractor.source.base import Source
from extractor.state.checkpoint import CHECKPOINT_FILE, Checkpoint
from extractor.verify.reconcile import TableVerification, VerifyOptions, verify_table
from extractor.verify.replica_digest import ReplicaDigests
from extractor.verify.report import DifferenceFile, example_lines, table_line
from extractor.verify.source_digest import SourceDigests

EXIT_MATCH = 0
EXIT_DIFFERENCES = 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="compare every replica with the source at one SCN (exit 3 on differences)",
        description="Row counts, then per-key digests of all columns on both sides at one SCN "
        "(default: the SCN the replicas are at). Exit 0: all match; 3: differences; 1: error.",
    )
    add_config_option(parser)
    parser.add_argument(
        "--tables", nargs="+", metavar="PATTERN", help="only OWNER.TABLE patterns (* and ?)"
    )
    parser.add_argument(
        "--sample", type=_fraction, default=None, metavar="FRACTION",
        help="verify a random FRACTION (0..1] of the key buckets",
    )  # fmt: skip
    parser.add_argument("--scn", type=int, default=None, help="the SCN (default: the replica's)")
    parser.add_argument("--out", type=Path, default=None, help="all differences, as JSON Lines")
    add_replica_schema_option(parser)
    parser.add_argument("--show", type=int, default=20, help="differences shown per table")
    parser.add_argument("--seed", type=int, default=None, help="random seed of --sample")
    parser.set_defaults(handler=run)


def _fraction(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not a fraction in (0, 1]")
    return value


def open_source(config: OracdcConfig) -> Source:
    """The configured source (a hook tests replace)."""
    return open_configured_source(config)


def read_checkpoint(config: OracdcConfig) -> Checkpoint:
    """The extractor's checkpoint; refused when nothing was mined yet."""
    path = config.data_dir / CHECKPOINT_FILE
    try:
        checkpoint = Checkpoint.from_json(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        checkpoint = Checkpoint()
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise VerifyError(f"cannot read checkpoint {path}: {error}") from None
    if replicated_scn(checkpoint) is None:
        raise VerifyError(
            f"nothing replicated yet (no mined_to_scn in {path})", fix="run `oracdc sync` first"
        )
    return checkpoint


def check_incarnation(checkpoint: Checkpoint, source: Source) -> None:
    """Refuse a source that is not the incarnation the replicas came from: its rows AS OF
    the replicas' SCN are another history (docs/extraction.md, "A source restored to an
    earlier SCN")."""
    known, now = checkpoint.incarnation, source.incarnation()
    change = None if known is None or now is None else incarnation_change(known, now)
    if change is not None:
        raise VerifyError(
            f"{change}: the replicas cannot be compared with it",
            fix="run `oracdc snapshot --force` and `oracdc sync` first, or point source.dsn "
            'back (docs/operations.md, "The source database was restored or replaced")',
        )


def replicated_scn(checkpoint: Checkpoint) -> int | None:
    """The SCN the replicas are at: ``mined_to_scn``; before anything was mined (every table
    ``initial_only``), the latest finished snapshot's."""
    if checkpoint.mined_to_scn is not None:
        return checkpoint.mined_to_scn
    done = [s.snapshot_scn for s in checkpoint.tables.values() if s.status == "done"]
    return max((scn for scn in done if scn is not None), default=None)


def verification_scn(
    config: OracdcConfig, checkpoint: Checkpoint, table: TableDef, scn: int
) -> tuple[int | None, str]:
    """The SCN ``table``'s replica is at, or None and why it is not compared: a table started
    with ``snapshot_mode: no_data`` holds only what changed since its start."""
    state = checkpoint.tables.get(table.qualified_name)
    if state is not None and state.no_data:
        since = state.snapshot_scn
        return None, f"snapshot_mode no_data (the replica holds the rows changed since SCN {since})"
    if state is not None and not config.snapshot_modes.streams(table.owner, table.name):
        return state.snapshot_scn or scn, ""  # initial_only: the snapshot is the replica
    return checkpoint.replica_scn_of(table.qualified_name) or scn, ""


def check_scn(requested: int | None, replica: int) -> int:
    """The SCN to verify at; refuses any other SCN than the replica's."""
    if requested is None or requested == replica:
        return replica
    if requested < replica:
        raise VerifyError(
            f"SCN {requested} is older than the replicas (consolidated to SCN {replica}); "
            "rebuilding a replica as of an older SCN is not supported",
            fix="run verify without --scn (it verifies at the replicas' SCN)",
        )
    raise VerifyError(
        f"SCN {requested} is newer than the replicas (consolidated to SCN {replica})",
        fix="run `oracdc sync` to bring the replicas forward, or verify without --scn",
    )


def selected_tables(
    source: Source, config: OracdcConfig, patterns: list[str] | None
) -> list[TableDef]:
    """The configured tables ``verify`` compares (``--tables`` narrows them), each without the
    columns its ``columns:`` entry excludes or masks (a line names the masked ones)."""
    registry = TableRegistry(source, config.tables, config.columns)
    tables = registry.resolve()
    if patterns:
        wanted = [p.upper() for p in patterns]
        tables = [t for t in tables if name_matches(wanted, t.qualified_name)]
    if not tables:
        raise VerifyError(
            "no configured table matches " + (" ".join(patterns) if patterns else "the config"),
            fix="check --tables and the tables list of oracdc.yml",
        )
    for table in tables:
        masked = sorted(registry.policy(table).masks)
        if masked:
            print(f"  {table.qualified_name}: masked column(s) not compared: {', '.join(masked)}")
    return [registry.verified(t) for t in tables]


def run(args: argparse.Namespace) -> int:
    config = config_of(args)
    checkpoint = read_checkpoint(config)
    replicated = replicated_scn(checkpoint)
    assert replicated is not None
    scn = check_scn(args.scn, replicated)
    schema = replica_schema_of(args)
    options = VerifyOptions(sample=args.sample, max_examples=max(0, args.show), seed=args.seed)
    source = open_source(config)
    try:
        check_incarnation(checkpoint, source)
        tables = selected_tables(source, config, args.tables)
        spark = cli_options.open_spark(config)
        replica_side = ReplicaDigests(spark, schema)
        results: list[TableVerification] = []
        with DifferenceFile(args.out) as out:
            print(f"verify: {len(tables)} table(s) at SCN {scn} (replicas in {schema})", flush=True)
            for table in tables:
                at, note = verification_scn(config, checkpoint, table, scn)
                if at is None:
                    print(f"  {table.qualified_name}: not compared: {note}")
                    continue
                if at != scn:
                    print(f"  {table.qualified_name}: snapshotted at SCN {at}, verified there")
                source_side = SourceDigests(source, at, config.snapshot_batch_rows)
                result = verify_table(
                    table, source_side, replica_side, at, options, on_difference=out.difference
                )
                results.append(result)
                print("  " + table_line(result), flush=True)
                for line in example_lines(result, options.max_examples):
                    print(line)
            out.tables(results)
    finally:
        source.close()
    different = [r.table for r in results if not r.matches]
    if different:
        where = f"; all keys in {args.out}" if args.out else ""
        print(f"verify: {len(different)} table(s) differ: {', '.join(different)}{where}")
        return EXIT_DIFFERENCES
    print(f"verify: all {len(results)} table(s) match at SCN {scn}")
    return EXIT_MATCH
