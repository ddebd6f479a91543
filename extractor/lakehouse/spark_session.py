"""The one Spark session of an oracdc process (dbt runs in-process on it: ``dbt_runner``).

Embedded (the default): ``local[2]`` with a Hive catalog whose Derby metastore, warehouse and
``derby.log`` live under the configured data directory, never the current directory
(``docs/spark-local.md``). Remote: when ``SPARK_REMOTE`` (or ``SparkSettings.remote``) names a Spark
Connect server, every client (extractor and dbt) goes through it and no local metastore is used.

The embedded Derby metastore admits one JVM, so an oracdc process creates the session first and
runs dbt through ``dbt_runner.run_dbt``, whose ``method: session`` profile reuses the active
session.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOG = logging.getLogger(__name__)

DATA_DIR_ENV = "ORACDC_DATA_DIR"
SPARK_REMOTE_ENV = "SPARK_REMOTE"


LOG4J_CONFIG = "log4j2.properties"
SPARK_LOG = "spark.log"
# The JVM's own logging: WARN and up to <data_dir>/spark.log (rotated at 10 MB, 5 kept), only
# ERROR to the console (no start-up banner, no "Your hostname resolves to a loopback address"
# on every command).
_LOG4J = """\
rootLogger.level = warn
rootLogger.appenderRef.file.ref = file
rootLogger.appenderRef.console.ref = console
rootLogger.appenderRef.console.level = error
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = spark: %p %c{{1}}: %m%n%ex
appender.file.type = RollingFile
appender.file.name = file
appender.file.fileName = {log_file}
appender.file.filePattern = {log_file}.%i
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{{ISO8601}} %p %c: %m%n%ex
appender.file.policies.type = Policies
appender.file.policies.size.type = SizeBasedTriggeringPolicy
appender.file.policies.size.size = 10MB
appender.file.strategy.type = DefaultRolloverStrategy
appender.file.strategy.max = 5
"""


@dataclass(frozen=True)
class SparkSettings:
    """Where the session runs and where the embedded catalog keeps its files."""

    data_dir: Path
    master: str = "local[2]"
    remote: str | None = None
    driver_memory: str = "4g"
    shuffle_partitions: int = 4
    extra_conf: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_environment(cls, data_dir: Path, **overrides: Any) -> SparkSettings:
        """Settings for ``data_dir``; ``SPARK_REMOTE`` in the environment selects Spark Connect."""
        remote = overrides.pop("remote", None) or os.environ.get(SPARK_REMOTE_ENV) or None
        return cls(data_dir=data_dir.resolve(), remote=remote, **overrides)


def embedded_conf(settings: SparkSettings) -> dict[str, str]:
    """The Spark configuration of the embedded session (measured in ``docs/spark-local.md``)."""
    data_dir = settings.data_dir.resolve()
    conf = {
        "spark.master": settings.master,
        "spark.app.name": "oracdc",
        "spark.sql.catalogImplementation": "hive",
        "spark.sql.warehouse.dir": str(data_dir / "warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL": (
            f"jdbc:derby:;databaseName={data_dir / 'metastore_db'};create=true"
        ),
        "spark.driver.extraJavaOptions": (
            f"-Dderby.stream.error.file={data_dir / 'derby.log'} "
            f"-Dlog4j2.configurationFile=file:{data_dir / LOG4J_CONFIG}"
        ),
        "spark.driver.memory": settings.driver_memory,
        "spark.sql.sources.partitionOverwriteMode": "dynamic",
        # the metastore cannot filter on _bucket (docs/dbt.md "Bucket layouts"): Spark picks
        # the partitions itself instead of failing a query that names buckets
        "spark.sql.hive.metastorePartitionPruningFallbackOnException": "true",
        "spark.sql.shuffle.partitions": str(settings.shuffle_partitions),
        # Hive's default (true, for HDFS) gives a new table's directory its parent's group
        # and permissions: without Hadoop's native library (not in the pip package) it forks
        # `ls -ld` two or three times per CREATE TABLE, ~20 ms of its ~100 (docs/spark-local.md).
        "spark.hadoop.hive.warehouse.subdir.inherit.perms": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
    }
    conf.update(settings.extra_conf)
    return conf


def get_spark(settings: SparkSettings) -> SparkSession:
    """The process's Spark session, created on first call (later calls return the same one)."""
    from pyspark.sql import SparkSession

    os.environ[DATA_DIR_ENV] = str(settings.data_dir.resolve())
    if settings.remote:
        os.environ[SPARK_REMOTE_ENV] = settings.remote
        # the host only: a Spark Connect URL may carry a token (sc://host:port/;token=...)
        LOG.info("spark session: connecting to %s", settings.remote.split("/;")[0].split(";")[0])
        remote_session: SparkSession = SparkSession.builder.remote(settings.remote).getOrCreate()
        remote_session.conf.set("spark.sql.session.timeZone", "UTC")
        return remote_session
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    log_config = _LOG4J.format(log_file=settings.data_dir.resolve() / SPARK_LOG)
    (settings.data_dir / LOG4J_CONFIG).write_text(log_config, encoding="utf-8")
    builder = SparkSession.builder
    for key, value in embedded_conf(settings).items():
        builder = builder.config(key, value)
    LOG.info("spark session: embedded %s, data under %s", settings.master, settings.data_dir)
    session: SparkSession = builder.enableHiveSupport().getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session
