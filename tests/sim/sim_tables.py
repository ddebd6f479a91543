"""Table definitions for simulator tests."""

from __future__ import annotations

from extractor.dictionary import ColumnDef, SupplementalLogging, TableDef


def one_table(
    *columns: tuple[str, str],
    key: tuple[str, ...] = ("ID",),
    logging: SupplementalLogging = "ALL",
    name: str = "T",
) -> TableDef:
    """Table O.<name> with an ``ID NUMBER(10,0)`` key column followed by ``columns``."""
    defs = [ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False)]
    for position, (column, data_type) in enumerate(columns, start=2):
        length = None
        if "(" in data_type and not data_type.startswith(("TIMESTAMP", "NUMBER", "FLOAT")):
            data_type, size = data_type.rstrip(")").split("(")
            length = int(size)
        precision = scale = None
        if data_type.startswith("NUMBER("):
            p, s = data_type[7:-1].split(",")
            data_type, precision, scale = "NUMBER", int(p), int(s)
        defs.append(ColumnDef(column, position, data_type, length, precision, scale))
    return TableDef("O", name, tuple(defs), key, logging)
