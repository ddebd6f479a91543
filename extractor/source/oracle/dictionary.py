"""Table definitions from the online catalog: ALL_TABLES, ALL_TAB_COLS (without virtual and
system-generated columns; INVISIBLE ones are read), ALL_CONSTRAINTS /
ALL_CONS_COLUMNS (primary key), ALL_LOG_GROUPS and V$DATABASE (supplemental logging) and
ALL_OBJECTS (object ids)."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import Any

from extractor.dictionary import ColumnDef, SupplementalLogging, TableDef
from extractor.errors import TableNotFoundError
from extractor.source.oracle import queries

_LEVEL_RANK: dict[SupplementalLogging, int] = {"MINIMAL": 0, "PRIMARY KEY": 1, "ALL": 2}


def list_table_names(cursor: Any, patterns: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``(owner, table)`` of every table matching a ``*``/``?`` pattern pair, sorted, once."""
    found: set[tuple[str, str]] = set()
    for owner_pattern, table_pattern in patterns:
        owner_pattern, table_pattern = owner_pattern.upper(), table_pattern.upper()
        cursor.execute(
            queries.LIST_TABLES,
            {
                "owner_pattern": queries.like_pattern(owner_pattern),
                "table_pattern": queries.like_pattern(table_pattern),
            },
        )
        for owner, table in cursor.fetchall():
            # LIKE is the coarse filter; the wildcard match is the definition.
            if fnmatch.fnmatchcase(owner, owner_pattern) and fnmatch.fnmatchcase(
                table, table_pattern
            ):
                found.add((str(owner), str(table)))
    return sorted(found)


def database_supplemental_logging(cursor: Any) -> SupplementalLogging:
    """The database-wide level from V$DATABASE (applies to every table)."""
    cursor.execute(queries.DATABASE_INFO)
    _name, _log_mode, _minimal, pk, all_columns = cursor.fetchone()
    if all_columns == "YES":
        return "ALL"
    if pk == "YES":
        return "PRIMARY KEY"
    return "MINIMAL"


def read_table(
    cursor: Any, owner: str, name: str, database_level: SupplementalLogging = "MINIMAL"
) -> TableDef:
    """The TableDef of ``owner.name``; TableNotFoundError when it has no columns visible."""
    binds = {"owner": owner, "table_name": name}
    cursor.execute(queries.TABLE_COLUMNS, binds)
    columns = _columns(cursor.fetchall())
    if not columns:
        raise TableNotFoundError(f"{owner}.{name}")
    cursor.execute(queries.PRIMARY_KEY_COLUMNS, binds)
    primary_key = tuple(str(row[0]) for row in cursor.fetchall())
    cursor.execute(queries.LOG_GROUP_TYPES, binds)
    table_level = _table_logging([str(row[0]) for row in cursor.fetchall()])
    level = max(table_level, database_level, key=_LEVEL_RANK.__getitem__)
    return TableDef(
        owner=owner,
        name=name,
        columns=columns,
        primary_key=primary_key,
        supplemental_logging=level,
    )


def table_object_ids(cursor: Any, owner: str, name: str) -> tuple[int, ...]:
    """The OBJECT_IDs of a table and of its partitions and subpartitions: DATA_OBJ# in
    V$LOGMNR_CONTENTS is one of them (a partition's, for a partitioned table's rows)."""
    cursor.execute(queries.TABLE_OBJECT_IDS, {"owner": owner, "table_name": name})
    object_ids = tuple(int(row[0]) for row in cursor.fetchall())
    if not object_ids:
        raise TableNotFoundError(f"{owner}.{name}")
    return object_ids


def object_exists(cursor: Any, object_id: int) -> bool:
    """True when ALL_OBJECTS has an object of that OBJECT_ID (a purged table has none)."""
    cursor.execute(queries.OBJECT_EXISTS, {"object_id": object_id})
    row = cursor.fetchone()
    return row is not None and int(row[0]) > 0


def _columns(rows: Sequence[Sequence[Any]]) -> tuple[ColumnDef, ...]:
    """The columns in the query's order. An INVISIBLE column has no COLUMN_ID: it takes the
    next number after the visible ones, so the numbers keep that order."""
    last_visible = max((int(row[1]) for row in rows if row[1] is not None), default=0)
    numbered: list[ColumnDef] = []
    for row in rows:
        column_id = row[1]
        if column_id is None:
            last_visible += 1
            column_id = last_visible
        numbered.append(_column(row, int(column_id)))
    return tuple(numbered)


def _column(row: Sequence[Any], column_id: int) -> ColumnDef:
    name, _column_id, data_type, length, precision, scale, nullable = row
    return ColumnDef(
        name=str(name),
        column_id=column_id,
        data_type=str(data_type),
        data_length=None if length is None else int(length),
        data_precision=None if precision is None else int(precision),
        data_scale=None if scale is None else int(scale),
        nullable=nullable != "N",
    )


def _table_logging(group_types: Sequence[str]) -> SupplementalLogging:
    """ALL_LOG_GROUPS.LOG_GROUP_TYPE values to a level (user groups count as minimal)."""
    if "ALL COLUMN LOGGING" in group_types:
        return "ALL"
    if "PRIMARY KEY LOGGING" in group_types:
        return "PRIMARY KEY"
    return "MINIMAL"
