"""``oracdc generate``: write the dbt sources, replica models and schema YAML of the tables."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from extractor.cli.options import add_config_option, config_of
from extractor.dbt_gen import generate_project_files
from extractor.dbt_gen.dictionary_file import load_dictionary_tables
from extractor.dictionary import TableDef
from extractor.errors import GenerationError


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "generate",
        help="write the dbt models of the replicated tables",
        description=(
            "Write models/staging/_sources.yml and, per table, models/replica/<owner>__<table>"
            ".sql/.yml. Files edited by hand are kept unless --force."
        ),
    )
    parser.add_argument(
        "--dictionary",
        type=Path,
        default=None,
        help="replay-bundle dictionary.json listing the tables (default: read the dictionary "
        "of the configured tables from the source named in --config)",
    )
    add_config_option(parser)
    parser.add_argument(
        "--project-dir",
        type=Path,
        default=None,
        help="dbt project directory (default: dbt.project_dir of oracdc.yml, else the "
        "directory of oracdc.yml; with --dictionary: the current directory)",
    )
    parser.add_argument("--force", action="store_true", help="overwrite files edited by hand")
    parser.add_argument("--dry-run", action="store_true", help="write nothing, report changes")
    parser.add_argument("--diff", action="store_true", help="print the diff of every change")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    implied: Path | None = None  # the project when --project-dir is not given
    if args.dictionary is not None:
        tables = load_dictionary_tables(args.dictionary)
        implied = Path.cwd()
    else:
        tables, implied = _configured_tables(args)
    if args.project_dir is not None:
        project_dir = args.project_dir.resolve()
    else:
        project_dir = (implied or Path.cwd()).resolve()
        if not (project_dir / "dbt_project.yml").is_file():
            raise GenerationError(
                f"no dbt project in {project_dir} (no dbt_project.yml)",
                fix="run `oracdc init DIR` for a new project, or give --project-dir",
            )
    report = generate_project_files(tables, project_dir, force=args.force, dry_run=args.dry_run)
    prefix = "would " if args.dry_run else ""
    for change in report.changes:
        print(prefix + change.describe(project_dir))
        if args.diff and change.diff:
            sys.stdout.write(change.diff)
    return 0


def _configured_tables(args: argparse.Namespace) -> tuple[tuple[TableDef, ...], Path | None]:
    """The configured tables as the source's dictionary describes them now."""
    from extractor.pipeline.runtime import open_configured_source
    from extractor.pipeline.table_registry import TableRegistry

    config = config_of(args)
    source = open_configured_source(config)
    try:
        registry = TableRegistry(source, config.tables, config.columns)
        tables = tuple(registry.replicated(t) for t in registry.resolve())
        return tables, config.dbt_project_dir
    finally:
        source.close()
