"""Options shared by the pipeline commands."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from extractor.config import CONFIG_FILE_NAME, OracdcConfig, load_config
from extractor.lakehouse.dbt_runner import (
    DEFAULT_REPLICA_SCHEMA,
    REPLICA_SCHEMA_ENV,
    replica_schema,
)
from extractor.log_setup import attach_log_file

# The schema dbt builds the replicas in: profiles.yml reads the same variable.


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        default=Path(CONFIG_FILE_NAME),
        help=f"configuration file (default ./{CONFIG_FILE_NAME})",
    )


def config_of(args: argparse.Namespace) -> OracdcConfig:
    """The command's config; from here on its log records also go to ``<data_dir>/logs``."""
    config = load_config(args.config)
    attach_log_file(config.data_dir)
    return config


def add_replica_schema_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--replica-schema", default=None,
        help=f"schema of the replicas (default ${REPLICA_SCHEMA_ENV} or {DEFAULT_REPLICA_SCHEMA})",
    )  # fmt: skip


def replica_schema_of(args: argparse.Namespace) -> str:
    chosen: str | None = args.replica_schema
    return chosen or replica_schema()


def open_spark(config: OracdcConfig) -> Any:
    """The Spark session the replicas live in (a hook tests replace)."""
    from extractor.lakehouse.spark_session import get_spark
    from extractor.pipeline.runtime import spark_settings

    return get_spark(spark_settings(config))
