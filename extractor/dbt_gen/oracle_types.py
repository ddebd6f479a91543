"""Oracle column types spelled for documentation: ``NUMBER(6,0)``, ``VARCHAR2(20)``, ``DATE``."""

from __future__ import annotations

from extractor.dictionary import ColumnDef

_LENGTH_TYPES = frozenset({"CHAR", "NCHAR", "VARCHAR2", "VARCHAR", "NVARCHAR2", "RAW", "UROWID"})


def oracle_type_text(column: ColumnDef) -> str:
    """The column's type as Oracle DDL spells it (precision/scale/length where they apply)."""
    data_type = column.data_type.upper()
    if data_type == "NUMBER":
        if column.data_precision is None and column.data_scale is None:
            return "NUMBER"
        precision = "*" if column.data_precision is None else str(column.data_precision)
        return f"NUMBER({precision},{column.data_scale or 0})"
    if data_type == "FLOAT" and column.data_precision is not None:
        return f"FLOAT({column.data_precision})"
    if data_type in _LENGTH_TYPES and column.data_length is not None:
        return f"{data_type}({column.data_length})"
    return data_type


def column_description(column: ColumnDef, *, key: bool) -> str:
    """``Oracle NUMBER(6,0) NOT NULL, key; Spark DECIMAL(6,0)``-style column doc."""
    from extractor.spark_types import spark_type

    nullability = "NULL" if column.nullable else "NOT NULL"
    key_note = ", consolidation key" if key else ""
    return f"Oracle {oracle_type_text(column)} {nullability}{key_note}; Spark {spark_type(column)}."
