"""Fixtures shared by the whole suite.

One SparkSession per test session (a JVM and a metastore cost ~20 s to start): tests that need
Spark take the ``spark`` fixture and are marked ``spark``. Its data directory (metastore,
warehouse) lives under pytest's temporary directory.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from extractor.lakehouse.spark_session import SparkSettings, get_spark


@pytest.fixture(scope="session")
def spark_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("spark-data")


@pytest.fixture(scope="session")
def spark(spark_data_dir: Path) -> Iterator[Any]:
    session = get_spark(SparkSettings.from_environment(spark_data_dir))
    yield session
    session.stop()
