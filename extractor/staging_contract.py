"""The staging-table contract between the extractor and dbt (docs/architecture.md §3).

One append-only Spark table per replicated Oracle table, ``<owner>__<table>_log`` in
lower case, holding the source columns (Spark types from ``spark_types.spark_type``,
names lower-cased) followed by these metadata columns.
"""

from __future__ import annotations

import re
from typing import Final

# (name, Spark type, meaning), in table order after the source columns.
METADATA_COLUMNS: Final[tuple[tuple[str, str, str], ...]] = (
    (
        "_op",
        "STRING",
        "r snapshot read, c insert, u update, d delete, t table reset (TRUNCATE: every version "
        "ordered before this row is gone)",
    ),
    ("_scn", "BIGINT", "SCN of the change (snapshot rows: the snapshot SCN)"),
    (
        "_commit_scn",
        "BIGINT",
        "SCN of the COMMIT of the change's transaction (snapshot: snapshot SCN)",
    ),
    (
        "_redo_pos",
        "DECIMAL(38,0)",
        "redo position (RS_ID and SSN) as one orderable number; 0 for snapshot rows",
    ),
    ("_rs_id", "STRING", "RS_ID as Oracle wrote it, trimmed (NULL for snapshot rows)"),
    ("_ssn", "BIGINT", "SSN of the change (NULL for snapshot rows)"),
    ("_xid", "STRING", "transaction id, hex of XID (NULL for snapshot rows)"),
    ("_row_id", "STRING", "Oracle ROWID of the row; the key of tables without a primary key"),
    ("_commit_ts", "TIMESTAMP", "commit time of the transaction (snapshot: snapshot time)"),
    (
        "_present",
        "ARRAY<STRING>",
        "source columns (lower-case names) the row carries; NULL means all of them (a full image)",
    ),
    ("_batch_id", "BIGINT", "landing batch, increasing: the incremental watermark of dbt"),
    ("_extracted_at", "TIMESTAMP", "landing time, for dbt source freshness"),
)
METADATA_COLUMN_NAMES: Final[tuple[str, ...]] = tuple(name for name, _, _ in METADATA_COLUMNS)

# "t" is a reset marker: no source column, empty _present, NULL _row_id (docs/landing.md).
OPERATIONS: Final[tuple[str, ...]] = ("r", "c", "u", "d", "t")

_SIMPLE_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_$#]*$")


def spark_column_name(oracle_column: str) -> str:
    """The staging/replica column name of an Oracle column: its name in lower case."""
    return oracle_column.lower()


def staging_table_name(owner: str, table: str) -> str:
    """``<owner>__<table>_log`` in lower case."""
    return f"{owner.lower()}__{table.lower()}_log"


def replica_model_name(owner: str, table: str) -> str:
    """``<owner>__<table>`` in lower case: the dbt model that consolidates the staging table."""
    return f"{owner.lower()}__{table.lower()}"


def is_simple_identifier(name: str) -> bool:
    """True when a Spark column name needs no back-quotes."""
    return bool(_SIMPLE_IDENTIFIER.match(name))
