"""Oracle column types spelled for documentation: ``NUMBER(6,0)``, ``VARCHAR2(20)``, ``DATE``."""

from __future__ import annotations

from extractor.dictionary import ColumnDef, oracle_type_text

__all__ = ["column_description", "oracle_type_text"]


def column_description(column: ColumnDef, *, key: bool) -> str:
    """``Oracle NUMBER(6,0) NOT NULL, key; Spark DECIMAL(6,0)``-style column doc."""
    from extractor.spark_types import spark_type

    nullability = "NULL" if column.nullable else "NOT NULL"
    key_note = ", consolidation key" if key else ""
    return f"Oracle {oracle_type_text(column)} {nullability}{key_note}; Spark {spark_type(column)}."
