"""``oracdc init [DIR]``: a new dbt project of yours, using the installed oracle_cdc package."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from extractor.errors import SyncStepError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "init",
        help="start a project: oracdc.yml and a dbt project using the oracle_cdc package",
        description="Write oracdc.yml (commented, for kind: oracle), dbt_project.yml, "
        "packages.yml (the installed oracle_cdc package), profiles.yml and models/ into DIR, "
        "then run `dbt deps` there. Afterwards every oracdc command run in DIR needs no flags.",
    )
    parser.add_argument(
        "directory", nargs="?", type=Path, default=Path("."), help="project directory (.)"
    )
    parser.add_argument(
        "--packages-only",
        action="store_true",
        help="only point packages.yml at the installed oracle_cdc package (after oracdc was "
        "moved or reinstalled; other packages are kept) and run dbt deps",
    )
    parser.add_argument("--no-deps", action="store_true", help="do not run `dbt deps`")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from extractor.dbt_gen.user_project import repoint_package, write_user_project

    directory: Path = args.directory.resolve()
    if args.packages_only:
        repoint_package(directory)
        print(f"init: packages.yml in {directory} points at the installed oracle_cdc", flush=True)
    else:
        written = write_user_project(directory)
        names = ", ".join(str(p.relative_to(directory).parent) if p.name == ".gitkeep"
                          else p.name for p in written)  # fmt: skip
        print(f"init: wrote {names} in {directory}", flush=True)
    if not args.no_deps:
        install_package(directory)
    if not args.packages_only:
        print(
            f"init: next: edit {directory / 'oracdc.yml'} (source, tables) and export the "
            "password variable; then, in that directory: oracdc check, oracdc generate, "
            "oracdc sync --once (docs/configuration.md)"
        )
    return 0


def install_package(directory: Path) -> None:
    """``dbt deps`` in ``directory``: installs the oracle_cdc package it names."""
    from extractor.lakehouse.dbt_runner import run_dbt
    from extractor.pipeline.sync import first_dbt_failure

    started = time.monotonic()
    result = run_dbt(["deps"], project_dir=directory, profiles_dir=directory)
    if not result.success:
        raise SyncStepError("dbt deps", first_dbt_failure(result)[1])
    print(f"init: dbt deps: oracle_cdc installed ({time.monotonic() - started:.1f}s)", flush=True)
