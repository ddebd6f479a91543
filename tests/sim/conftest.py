"""Fixtures of the simulator tests."""

from __future__ import annotations

import pytest

from extractor.sim.database import SimDatabase


@pytest.fixture
def db() -> SimDatabase:
    return SimDatabase()
