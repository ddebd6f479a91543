"""dbt called in-process, on the process's Spark session (``spark_session``), and the dbt
project shipped with this repository."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

LOG = logging.getLogger(__name__)

# The schema of the replicas, as the package's profiles.yml chooses it.
REPLICA_SCHEMA_ENV = "ORACDC_DBT_SCHEMA"
DEFAULT_REPLICA_SCHEMA = "oracdc"


def replica_schema() -> str:
    """The schema dbt builds the replicas in (``$ORACDC_DBT_SCHEMA``, else ``oracdc``)."""
    return os.environ.get(REPLICA_SCHEMA_ENV) or DEFAULT_REPLICA_SCHEMA


# Where a built wheel carries the dbt package (setup.py copies it there at build time).
SHIPPED_PACKAGE = "dbt_package"


_progress = {"shown": False}


def show_dbt_progress(shown: bool) -> None:
    """dbt's per-model lines on the console (``--verbose``); else only its errors."""
    _progress["shown"] = shown


def dbt_package_dir() -> Path:
    """The ``oracle_cdc`` dbt package (the directory holding its dbt_project.yml and macros):
    the repository's root in a checkout or an editable install, else the copy a normal
    ``pip install`` put inside the Python package (``extractor/dbt_package``)."""
    here = Path(__file__).resolve()
    for candidate in (here.parents[2], here.parents[1] / SHIPPED_PACKAGE):
        if (candidate / "dbt_project.yml").is_file() and (candidate / "macros").is_dir():
            return candidate
    raise FileNotFoundError(
        f"the oracle_cdc dbt package is not installed beside {here.parents[1]}; "
        "reinstall oracdc (pip install oracdc)"
    )


def run_dbt(
    args: Sequence[str],
    *,
    project_dir: Path | None = None,
    profiles_dir: Path | None = None,
    target: str | None = None,
    variables: Mapping[str, object] | None = None,
    errors: list[str] | None = None,
) -> Any:
    """Run one dbt command in this process (reusing the active Spark session).

    Returns dbt's ``dbtRunnerResult``; callers check ``.success`` and ``.exception``. dbt's
    error messages are appended to ``errors`` when given (``run-operation`` reports a failed
    macro only there).
    """
    import json

    from dbt.cli.main import dbtRunner

    project = (project_dir or dbt_package_dir()).resolve()
    import sys

    command = [
        *([] if sys.stdout.isatty() else ["--no-use-colors"]),
        *([] if _progress["shown"] else ["--quiet"]),
        *args,
        "--project-dir",
        str(project),
        "--profiles-dir",
        str((profiles_dir or project).resolve()),
    ]
    if target:
        command += ["--target", target]
    if variables:
        command += ["--vars", json.dumps(dict(variables))]
    LOG.info("dbt %s", " ".join(args))

    if errors is None:
        return dbtRunner().invoke(command)
    kept = errors

    def keep_error(event: Any) -> None:
        if event.info.level == "error":
            kept.append(str(event.info.msg))

    return dbtRunner(callbacks=[keep_error]).invoke(command)
