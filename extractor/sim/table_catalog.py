"""Table definitions for workloads: a fixed demo set and seeded random ones."""

from __future__ import annotations

import random

from extractor.dictionary import ColumnDef, SupplementalLogging, TableDef

DEFAULT_OWNER = "SIM"


def _col(name: str, column_id: int, data_type: str, length: int | None = None,
         precision: int | None = None, scale: int | None = None,
         nullable: bool = True) -> ColumnDef:  # fmt: skip
    return ColumnDef(name, column_id, data_type, length, precision, scale, nullable)


def demo_tables(owner: str = DEFAULT_OWNER) -> list[TableDef]:
    """Five tables covering every simulated type, keyed and keyless, all logging levels."""
    return [
        TableDef(
            owner,
            "CUSTOMERS",
            (
                _col("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
                _col("NAME", 2, "VARCHAR2", 100),
                _col("CITY", 3, "NVARCHAR2", 100),
                _col("BALANCE", 4, "NUMBER", 22, 12, 2),
                _col("SCORE", 5, "BINARY_DOUBLE", 8),
                _col("CREATED", 6, "DATE", 7),
            ),
            ("ID",),
            "ALL",
        ),
        TableDef(
            owner,
            "ORDERS",
            (
                _col("ORDER_ID", 1, "NUMBER", 22, 12, 0, nullable=False),
                _col("CUSTOMER_ID", 2, "NUMBER", 22, 10, 0),
                _col("AMOUNT", 3, "NUMBER", 22),
                _col("STATUS", 4, "CHAR", 3),
                _col("PLACED", 5, "TIMESTAMP(6)", 11, None, 6),
                _col("NOTE", 6, "CLOB", 4000),
            ),
            ("ORDER_ID",),
            "PRIMARY KEY",
        ),
        TableDef(
            owner,
            "EVENTS",
            (
                _col("EVENT_TIME", 1, "TIMESTAMP(9)", 11, None, 9),
                _col("ZONE_TIME", 2, "TIMESTAMP(6) WITH TIME ZONE", 13, None, 6),
                _col("PAYLOAD", 3, "RAW", 16),
                _col("WEIGHT", 4, "BINARY_FLOAT", 4),
                _col("RATIO", 5, "FLOAT", 22, 63),
                _col("LABEL", 6, "VARCHAR2", 4000),
            ),
            (),
            "ALL",
        ),
        TableDef(
            owner,
            "ACCOUNTS",
            (
                _col("ACC_NO", 1, "VARCHAR2", 20, nullable=False),
                _col("HOLDER", 2, "NVARCHAR2", 200),
                _col("CREDIT_LIMIT", 3, "NUMBER", 22, 8, -2),
                _col("OPENED", 4, "TIMESTAMP(3)", 11, None, 3),
                _col("CODE", 5, "NCHAR", 4),
            ),
            ("ACC_NO",),
            "MINIMAL",
        ),
        TableDef(
            owner,
            "DOCUMENTS",
            (
                _col("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
                _col("TITLE", 2, "VARCHAR2", 200),
                _col("BODY", 3, "CLOB", 4000),
                _col("STAMP", 4, "TIMESTAMP(6) WITH TIME ZONE", 13, None, 6),
            ),
            ("ID",),
            "PRIMARY KEY",
        ),
    ]


_RANDOM_TYPES: tuple[tuple[str, int | None, int | None, int | None], ...] = (
    ("NUMBER", 22, None, None),
    ("NUMBER", 22, 10, 0),
    ("NUMBER", 22, 9, 3),
    ("FLOAT", 22, 126, None),
    ("BINARY_FLOAT", 4, None, None),
    ("BINARY_DOUBLE", 8, None, None),
    ("VARCHAR2", 4000, None, None),
    ("VARCHAR2", 30, None, None),
    ("NVARCHAR2", 200, None, None),
    ("CHAR", 5, None, None),
    ("DATE", 7, None, None),
    ("TIMESTAMP(6)", 11, None, 6),
    ("TIMESTAMP(9)", 11, None, 9),
    ("TIMESTAMP(6) WITH TIME ZONE", 13, None, 6),
    ("RAW", 32, None, None),
    ("CLOB", 4000, None, None),
)


def random_tables(rng: random.Random, n: int, owner: str = DEFAULT_OWNER) -> list[TableDef]:
    """``n`` tables of 3-8 random columns; about a quarter without primary key; logging
    levels ALL / PRIMARY KEY / MINIMAL in turn."""
    levels: tuple[SupplementalLogging, ...] = ("ALL", "PRIMARY KEY", "MINIMAL")
    tables = []
    for index in range(n):
        keyed = rng.random() >= 0.25
        columns = [_col("ID", 1, "NUMBER", 22, 12, 0, nullable=False)] if keyed else []
        for _ in range(rng.randint(3, 8)):
            data_type, length, precision, scale = rng.choice(_RANDOM_TYPES)
            columns.append(
                _col(f"C{len(columns) + 1}", len(columns) + 1, data_type, length, precision, scale)
            )
        tables.append(
            TableDef(
                owner,
                f"T{index + 1:02d}",
                tuple(columns),
                ("ID",) if keyed else (),
                levels[index % 3],
            )
        )
    return tables
