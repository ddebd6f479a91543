"""Everything one oracdc process needs to run the pipeline: config, source, Spark, extractor."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from extractor.assemble.mining_process import MiningProcess
from extractor.assemble.window_miner import TransactionFeed
from extractor.config import OracdcConfig
from extractor.errors import ConfigError
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

    return open_source(config.source, data_dir=config.data_dir, nls=config.nls)


# Source kinds a mining process can open on its own (a simulated database lives in this one).
_PROCESS_SOURCE_KINDS = ("replay", "oracle")


def mining_feed(
    config: OracdcConfig, *, source_from_config: bool, start: bool = True
) -> TransactionFeed | None:
    """The mining process for ``mining.reader`` (``docs/extraction.md``), or None for the
    inline miner. ``auto`` picks the process for a replay or Oracle source opened from the
    configuration when this process may run on two CPUs or more; ``process`` insists on it.
    ``start``: started now (it warms its source up), else at the first pass that mines."""
    reader = config.mining.reader
    kind = config.source.get("kind")
    if reader == "inline":
        return None
    if reader == "process" and kind not in _PROCESS_SOURCE_KINDS:
        raise ConfigError(
            f"mining.reader: process needs a replay or oracle source, not {kind!r}",
            fix="set mining.reader to auto or inline",
        )
    if reader == "auto" and (
        kind not in _PROCESS_SOURCE_KINDS or not source_from_config or _usable_cpus() < 2
    ):
        return None
    feed = MiningProcess(
        config.source,
        config.data_dir,
        config.mining,
        config.memory_budget_mb * 1024 * 1024,
        config.spill_dir,
        config.nls,
    )
    if start:
        try:
            feed.start()
        except BaseException:
            feed.close()
            raise
    return feed


def _usable_cpus() -> int:
    """The CPUs this process may run on (its affinity), not those of the machine."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@contextmanager
def open_runtime(
    config: OracdcConfig,
    *,
    source: Source | None = None,
    spark: Any = None,
    fault: FaultHook | None = None,
    mines: bool = True,
) -> Iterator[Runtime]:
    """Open the source, the Spark session and the extractor (holding the checkpoint lock).
    ``mines``: the caller streams, so a mining process starts at once (docs/extraction.md)."""
    owned_source = source is None
    active_source = open_configured_source(config) if source is None else source
    feed = None
    try:
        feed = mining_feed(config, source_from_config=owned_source, start=False)
        session = spark if spark is not None else get_spark(spark_settings(config))
        with open_extractor(config, active_source, session, fault=fault, feed=feed) as extractor:
            if mines and isinstance(feed, MiningProcess):
                feed.start()  # holding the checkpoint lock; it warms up while we snapshot
            yield Runtime(config, active_source, session, extractor)
    finally:
        if feed is not None:
            feed.close()
        if owned_source:
            active_source.close()
