"""Fixtures of the dbt tests: a copy of the dbt project in a temporary directory.

Spark comes from the suite's one session-scoped ``spark`` fixture (tests/conftest.py); dbt runs
in-process on it (``method: session``), so every dbt call here reuses that JVM.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dbt.dbt_helpers import copy_project


@pytest.fixture(scope="module")
def dbt_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh copy of the repository's dbt project (macros, views; no generated models)."""
    return copy_project(tmp_path_factory.mktemp("dbt-project") / "oracle_cdc")
