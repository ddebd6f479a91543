"""DDL statements as issued, for the SQL_REDO of DDL (code 5) rows."""

from __future__ import annotations

from typing import Literal

from extractor.dictionary import ColumnDef, TableDef, oracle_type_text


def column_type_sql(column: ColumnDef) -> str:
    """The type as written in CREATE TABLE: ``NUMBER(10,2)``, ``VARCHAR2(40)``, ``DATE``."""
    return oracle_type_text(column)


def column_sql(column: ColumnDef) -> str:
    null = "" if column.nullable else " NOT NULL"
    return f'"{column.name}" {column_type_sql(column)}{null}'


def create_table_sql(table: TableDef, partitions: tuple[str, ...] = ()) -> str:
    """CREATE TABLE; with ``partitions`` (their names), automatic list partitioned on the
    first key column (or the first column): a new value makes a new partition, and ADD
    PARTITION of a new value moves no row."""
    parts = [column_sql(c) for c in table.columns]
    if table.primary_key:
        keys = ", ".join(f'"{k}"' for k in table.primary_key)
        parts.append(f"PRIMARY KEY ({keys})")
    if table.supplemental_logging != "MINIMAL":
        parts.append(f"SUPPLEMENTAL LOG DATA ({table.supplemental_logging}) COLUMNS")
    partitioning = ""
    if partitions:
        named = ", ".join(
            f'partition "{name}" values ({number})' for number, name in enumerate(partitions, 1)
        )
        partitioning = f' partition by list ("{_first_key(table)}") automatic ({named})'
    return f'create table "{table.owner}"."{table.name}" ({", ".join(parts)}){partitioning};'


def add_partition_sql(table: TableDef, partition: str, value: int) -> str:
    return (
        f'alter table "{table.owner}"."{table.name}" add partition "{partition}" values ({value});'
    )


def add_column_sql(
    table: TableDef, column: ColumnDef, default_sql: str | None = None, *, invisible: bool = False
) -> str:
    """``ALTER TABLE … ADD (column)``; ``INVISIBLE``, then ``DEFAULT <default_sql>``, then
    NOT NULL, as Oracle's grammar orders them."""
    null = "" if column.nullable else " NOT NULL"
    default = "" if default_sql is None else f" default {default_sql}"
    visibility = " invisible" if invisible else ""
    added = f'"{column.name}" {column_type_sql(column)}{visibility}{default}{null}'
    return f'alter table "{table.owner}"."{table.name}" add ({added});'


def row_archival_sql(table: TableDef, enabled: bool) -> str:
    """``ALTER TABLE … ROW ARCHIVAL`` or ``… NO ROW ARCHIVAL``."""
    clause = "row archival" if enabled else "no row archival"
    return f'alter table "{table.owner}"."{table.name}" {clause};'


def column_visibility_sql(table: TableDef, column: str, visible: bool) -> str:
    """``ALTER TABLE … MODIFY (column VISIBLE | INVISIBLE)``."""
    visibility = "visible" if visible else "invisible"
    return f'alter table "{table.owner}"."{table.name}" modify ("{column}" {visibility});'


def supplemental_logging_sql(table: TableDef, added: bool) -> str:
    """``ALTER TABLE … ADD|DROP SUPPLEMENTAL LOG DATA (…) COLUMNS``; ``table`` is the table
    with the level added, or the table before the level is dropped."""
    verb = "add" if added else "drop"
    level = table.supplemental_logging
    return (
        f'alter table "{table.owner}"."{table.name}" {verb} supplemental log data '
        f"({level}) columns;"
    )


def drop_column_sql(table: TableDef, column: str) -> str:
    return f'alter table "{table.owner}"."{table.name}" drop column "{column}";'


def truncate_table_sql(table: TableDef) -> str:
    return f'truncate table "{table.owner}"."{table.name}";'


def drop_table_sql(table: TableDef, bin_name: str | None) -> str:
    """DROP TABLE as LogMiner shows it: with the recycle bin on, the name the table got in
    the bin (``AS "BIN$…"``); with PURGE (or the bin off), ``purge``."""
    target = f'"{table.owner}"."{table.name}"'
    return f'drop table {target} AS "{bin_name}";' if bin_name else f"drop table {target} purge;"


def rename_table_sql(table: TableDef, new_name: str) -> str:
    return f'alter table "{table.owner}"."{table.name}" rename to "{new_name}";'


# Rows compacted in their segment ("shrink", "shrink partition"), or moved to a new one.
RowMovingDdl = Literal[
    "move", "shrink", "shrink partition", "coalesce subpartition", "partition by"
]
_ROW_MOVING_CLAUSES: dict[str, str] = {
    "move": "move",
    "shrink": "shrink space",
    "shrink partition": 'modify partition "P1" shrink space',
    "coalesce subpartition": 'modify partition "P1" coalesce subpartition',
    "partition by": "modify partition by hash ({column}) partitions 2 online",
}


def row_moving_sql(table: TableDef, operation: RowMovingDdl) -> str:
    """ALTER TABLE … MOVE, SHRINK SPACE and the partition maintenance that moves rows, as
    issued (LogMiner shows DDL as issued); the partition forms as if the table were one
    partition "P1" of a partitioned table."""
    clause = _ROW_MOVING_CLAUSES[operation].format(column=f'"{_first_key(table)}"')
    return f'alter table "{table.owner}"."{table.name}" {clause};'


def _first_key(table: TableDef) -> str:
    return table.primary_key[0] if table.primary_key else table.columns[0].name


def add_virtual_column_sql(table: TableDef, column: ColumnDef, expression_sql: str) -> str:
    return (
        f'alter table "{table.owner}"."{table.name}" add ("{column.name}" '
        f"{column_type_sql(column)} generated always as ({expression_sql}) virtual);"
    )
