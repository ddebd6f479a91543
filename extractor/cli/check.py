"""``oracdc check``: is the source ready for capture? One line per check, the fix under each
failed or warned one; exit 1 when a check failed. ``oracdc sync`` runs the same checks first."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Any

from extractor.cli.options import add_config_option, config_of
from extractor.pipeline.preflight import source_checks
from extractor.pipeline.runtime import open_configured_source

_LABELS = {"ok": "ok", "warning": "WARNING", "failed": "FAILED"}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check",
        help="pre-flight: archive log mode, supplemental logging, grants, tables",
        description="Check that the Oracle database and the capture user are ready: version, "
        "ARCHIVELOG mode, minimal supplemental logging, container (CDB/PDB), the grants the "
        "extractor needs, and per table a flashback read and its supplemental logging level. "
        "Prints what to run to fix each failed check; exits 1 when one failed.",
    )
    add_config_option(parser)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    config = config_of(args)
    source = open_configured_source(config)
    try:
        outcomes = source_checks(config, source)
    finally:
        source.close()
    if outcomes is None:
        print("check: a replay bundle needs no database checks")
        return 0
    if args.json:
        print(json.dumps([asdict(o) for o in outcomes], indent=2))
    else:
        width = max(len(o.name) for o in outcomes)
        for outcome in outcomes:
            print(f"check: {_LABELS[outcome.status]:<7}  {outcome.name:<{width}}  {outcome.found}")
            if outcome.status != "ok" and outcome.fix:
                print(f"check: {'':<7}  {'':<{width}}  fix: {outcome.fix}")
        counts = {s: sum(1 for o in outcomes if o.status == s) for s in _LABELS}
        print(
            f"check: {counts['ok']} ok, {counts['warning']} warning(s), {counts['failed']} failed"
        )
    return 1 if any(o.status == "failed" for o in outcomes) else 0
