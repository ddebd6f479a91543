"""Which columns identify a row in the replica (its consolidation key).

- A table with a primary key, ALL supplemental logging and no LOB/LONG column is keyed by its
  primary key: every change carries the whole row, and a primary-key update becomes a delete
  of the old key plus an upsert of the new one (docs/architecture.md §2).
- A table without a primary key is keyed by ROWID (``_row_id``).
- Every other table with a primary key is keyed by ROWID too. Under MINIMAL logging an UPDATE
  does not carry the key at all; under PRIMARY KEY logging a key update carries only the key
  and the changed columns; under ALL logging LOB and LONG columns are left out of the image.
  In each case the row image of a new key could not be rebuilt from the redo. The ROWID is in
  every change row and survives a key update, so the replica stays exact; the primary key is
  still a column, and the generated schema tests still check that it is unique.
  Caveat (as for tables without a key): operations that move rows (ALTER TABLE MOVE, SHRINK,
  partition row movement, FLASHBACK TABLE) change ROWIDs and need a re-snapshot of the table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import UnsupportedTypeError
from extractor.spark_types import spark_type
from extractor.staging_contract import spark_column_name

ROW_ID_KEY = "_row_id"


_UNLOGGED_TYPES = ("CLOB", "NCLOB", "BLOB", "LONG", "LONG RAW", "XMLTYPE")


# Answers kept by table (a TableDef is frozen), under the table's id: the change builder asks
# them for every change row, and each reads every column's type.
_KEYED_BY_PRIMARY_KEY: dict[int, tuple[TableDef, bool]] = {}
_LOGGED_COLUMNS: dict[int, tuple[TableDef, frozenset[str]]] = {}
_CACHED_TABLES = 4096
T = TypeVar("T")


def _kept(cache: dict[int, tuple[TableDef, T]], table: TableDef, answer: Callable[[], T]) -> T:
    kept = cache.get(id(table))
    if kept is not None and kept[0] is table:
        return kept[1]
    value = answer()
    if len(cache) >= _CACHED_TABLES:
        cache.clear()
    cache[id(table)] = (table, value)
    return value


def keyed_by_primary_key(table: TableDef) -> bool:
    return _kept(
        _KEYED_BY_PRIMARY_KEY,
        table,
        lambda: (
            not table.keyed_by_rowid
            and bool(table.primary_key)
            and table.supplemental_logging == "ALL"
            and not any(c.data_type.upper() in _UNLOGGED_TYPES for c in table.columns)
        ),
    )


def logged_columns(table: TableDef) -> frozenset[str]:
    """The columns whose values redo carries: ALL supplemental logging writes them in every
    UPDATE's image, and an UPDATE's WHERE holds the old value of each of them it changes. All
    but LOB and LONG columns and those of types not replicated (object types, BFILE,
    ANYDATA: Oracle leaves ADTs out too, and none of them lands)."""
    return _kept(
        _LOGGED_COLUMNS, table, lambda: frozenset(c.name for c in table.columns if _logged(c))
    )


def _logged(column: ColumnDef) -> bool:
    if column.data_type.upper() in _UNLOGGED_TYPES:
        return False
    try:
        spark_type(column)
    except UnsupportedTypeError:
        return False
    return True


def consolidation_key(table: TableDef) -> tuple[str, ...]:
    """The replica's key columns (Spark names): the PK columns, or ``("_row_id",)``."""
    if keyed_by_primary_key(table):
        return tuple(spark_column_name(c) for c in table.primary_key)
    return (ROW_ID_KEY,)
