"""Everything one oracdc process needs to run the pipeline: config, source, Spark, extractor."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from extractor.config import OracdcConfig
from extractor.lakehouse.spark_session import SparkSettings, get_spark
from extractor.pipeline.extractor import Extractor, open_extractor
from extractor.pipeline.fault_points import FaultHook
from extractor.source.base import Source


@dataclass(frozen=True)
class Runtime:
    config: OracdcConfig
    source: Source
    spark: Any
    extractor: Extractor


def spark_settings(config: OracdcConfig) -> SparkSettings:
    """Embedded Spark keeps its metastore and warehouse under ``<data_dir>/spark``."""
    return SparkSettings.from_environment(
        config.data_dir / "spark", remote=config.spark_remote, master=config.spark_master
    )


def open_configured_source(config: OracdcConfig) -> Source:
    from extractor.source.factory import open_source

    return open_source(config.source, data_dir=config.data_dir)


@contextmanager
def open_runtime(
    config: OracdcConfig,
    *,
    source: Source | None = None,
    spark: Any = None,
    fault: FaultHook | None = None,
) -> Iterator[Runtime]:
    """Open the source, the Spark session and the extractor (holding the checkpoint lock)."""
    owned_source = source is None
    active_source = open_configured_source(config) if source is None else source
    try:
        session = spark if spark is not None else get_spark(spark_settings(config))
        with open_extractor(config, active_source, session, fault=fault) as extractor:
            yield Runtime(config, active_source, session, extractor)
    finally:
        if owned_source:
            active_source.close()
