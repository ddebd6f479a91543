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


def default_project_dir() -> Path:
    """The dbt project shipped with this repository (the directory holding dbt_project.yml)."""
    return Path(__file__).resolve().parents[2]


def run_dbt(
    args: Sequence[str],
    *,
    project_dir: Path | None = None,
    profiles_dir: Path | None = None,
    target: str | None = None,
    variables: Mapping[str, object] | None = None,
) -> Any:
    """Run one dbt command in this process (reusing the active Spark session).

    Returns dbt's ``dbtRunnerResult``; callers check ``.success`` and ``.exception``.
    """
    import json

    from dbt.cli.main import dbtRunner

    project = (project_dir or default_project_dir()).resolve()
    import sys

    command = [
        *([] if sys.stdout.isatty() else ["--no-use-colors"]),
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
    return dbtRunner().invoke(command)
