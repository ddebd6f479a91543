"""``is_carried`` on column names Spark string literals would misread: a quote and a backslash
(Spark reads ``'a\\b'`` as ``a`` and a backspace), run in Spark against ``_present`` lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import pytest

pytestmark = pytest.mark.spark

MACRO = Path(__file__).resolve().parents[2] / "macros" / "consolidation" / "is_carried.sql"


def _expression(column_name: str) -> str:
    """The SQL ``spark__is_carried`` writes (the macro file rendered as dbt would)."""
    template = jinja2.Environment().from_string(MACRO.read_text(encoding="utf-8"))
    macro = template.module.spark__is_carried  # type: ignore[attr-defined]
    return str(macro(column_name, "_present")).strip()


@pytest.mark.parametrize("name", ["plain", "it's", "back\\slash", "both\\'s", "two\\\\"])
def test_a_listed_column_is_carried_and_another_is_not(spark: Any, name: str) -> None:
    rows = spark.createDataFrame(
        [([name],), (["other"],), (None,)], "_present array<string>"
    ).selectExpr(f"{_expression(name)} as carried")
    assert [r["carried"] for r in rows.collect()] == [True, False, True]
