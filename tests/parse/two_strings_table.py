"""A keyed table with VARCHAR2 columns A, B (and C): where an undoubled apostrophe in one value can
read as a predicate of the other (``x', "B" = 'y``)."""

from __future__ import annotations

from extractor.dictionary import ColumnDef, TableDef

TWO_STRINGS = TableDef(
    "APP",
    "T",
    (
        ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
        ColumnDef("A", 2, "VARCHAR2", 50),
        ColumnDef("B", 3, "VARCHAR2", 50),
        ColumnDef("C", 4, "VARCHAR2", 50),
    ),
    ("ID",),
    "ALL",
)
