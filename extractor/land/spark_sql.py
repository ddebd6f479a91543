"""Identifier validation and quoting for the Spark SQL the landing layer writes.

Database and table names must be plain identifiers (``staging_contract.is_simple_identifier``)
and are back-quoted as well; column names (which may be quoted Oracle identifiers) are always
back-quoted with embedded backticks doubled. No value is ever spliced into SQL.
"""

from __future__ import annotations

from extractor.errors import SparkIdentifierError
from extractor.staging_contract import is_simple_identifier

# A table's columns in order: (lower-case name, Spark type as DDL or ``simpleString``).
Columns = tuple[tuple[str, str], ...]


def checked_name(kind: str, name: str) -> str:
    """``name`` itself when it is a plain identifier; otherwise ``SparkIdentifierError``."""
    if not is_simple_identifier(name):
        raise SparkIdentifierError(kind, name)
    return name


def quote_identifier(name: str) -> str:
    """``name`` back-quoted for Spark SQL, embedded backticks doubled."""
    if not name or "\x00" in name:
        raise SparkIdentifierError("column", name)
    return "`" + name.replace("`", "``") + "`"


def qualified_table(schema: str, table: str) -> str:
    """```schema`.`table``` after checking both names."""
    schema_name = checked_name("schema", schema)
    table_name = checked_name("table", table)
    return f"{quote_identifier(schema_name)}.{quote_identifier(table_name)}"


def split_qualified(name: str) -> tuple[str, str]:
    """The schema and table of a name ``qualified_table`` made."""
    schema, _, table = name.partition(".")
    return checked_name("schema", schema.strip("`")), checked_name("table", table.strip("`"))


def normalized_type(spark_ddl_type: str) -> str:
    """A Spark type spelling comparable across DDL and ``DataType.simpleString()``."""
    text = "".join(spark_ddl_type.split()).lower()
    return {"integer": "int", "long": "bigint"}.get(text, text)
