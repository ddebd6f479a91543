"""The YAML files of the generated project: staging sources and one schema file per replica."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml

from extractor.dbt_gen.model_sql import STAGING_SOURCE_NAME
from extractor.dbt_gen.oracle_types import column_description
from extractor.dictionary import TableDef
from extractor.keys import ROW_ID_KEY, consolidation_key
from extractor.land.audit_records import HEARTBEAT_TABLE
from extractor.staging_contract import (
    METADATA_COLUMNS,
    OPERATIONS,
    replica_model_name,
    spark_column_name,
    staging_table_name,
)

FRESHNESS: dict[str, Any] = {
    "warn_after": {"count": 1, "period": "hour"},
    "error_after": {"count": 24, "period": "hour"},
}
# A staging table is as fresh as its last landed row or the last heartbeat, whichever is later:
# a table without changes is up to date as far as mining has got (docs/extraction.md,
# "Heartbeat"). Rendered by dbt at freshness time, with ``this`` the staging table.
LOADED_AT_QUERY = (
    "select greatest("
    "(select max(_extracted_at) from {{ this }}), "
    f"(select max(heartbeat_at) from {{{{ this.schema }}}}.{HEARTBEAT_TABLE}))"
)

# Replica columns the consolidation adds after the staging metadata (minus _present).
REPLICA_EXTRA_COLUMNS: tuple[tuple[str, str], ...] = (
    ("_deleted", "true when the latest change of the key is a delete (soft deletes only)"),
    (
        "_bucket",
        "bucket of the key (its key range or hash): the partition column insert_overwrite rewrites",
    ),
)


def _dump(document: dict[str, Any]) -> str:
    return yaml.safe_dump(document, sort_keys=False, width=100, allow_unicode=True)


def _source_columns(table: TableDef) -> list[dict[str, Any]]:
    key = set(consolidation_key(table))
    return [
        {
            "name": spark_column_name(column.name),
            "description": column_description(column, key=spark_column_name(column.name) in key),
        }
        for column in table.columns
    ]


def staging_sources_yaml(tables: Sequence[TableDef]) -> str:
    """``models/staging/_sources.yml``: the ``_log`` tables, freshness, tests of ``_op``."""
    source_tables = []
    for table in tables:
        columns = _source_columns(table)
        for name, _, meaning in METADATA_COLUMNS:
            entry: dict[str, Any] = {"name": name, "description": meaning}
            if name == "_op":
                entry["data_tests"] = [
                    "not_null",
                    {"accepted_values": {"arguments": {"values": list(OPERATIONS)}}},
                ]
            elif name == "_batch_id":
                entry["data_tests"] = ["not_null"]
            columns.append(entry)
        source_tables.append(
            {
                "name": staging_table_name(table.owner, table.name),
                "description": f"Change rows of Oracle {table.qualified_name}, landed by oracdc "
                "(append-only; one row per change, snapshot read or delete).",
                "columns": columns,
            }
        )
    document = {
        "version": 2,
        "sources": [
            {
                "name": STAGING_SOURCE_NAME,
                "description": "Staging tables landed by the oracdc extractor.",
                "schema": "{{ var('oracle_cdc__staging_schema', 'oracdc_staging') }}",
                "config": {"loaded_at_query": LOADED_AT_QUERY, "freshness": FRESHNESS},
                "tables": [*source_tables, _heartbeat_source()],
            }
        ],
    }
    return _dump(document)


def _heartbeat_source() -> dict[str, Any]:
    return {
        "name": HEARTBEAT_TABLE,
        "description": "One row per oracdc heartbeat: every change committed up to "
        "mined_to_scn had landed at heartbeat_at (its freshness: is the extractor running?).",
        "config": {"loaded_at_field": "heartbeat_at"},
        "columns": [
            {"name": "mined_to_scn", "description": "The end of the last mining window."},
            {"name": "heartbeat_at", "description": "When the pass that mined it ended (UTC)."},
        ],
    }


def _replica_metadata_columns(key: tuple[str, ...]) -> list[dict[str, Any]]:
    """The metadata columns of a replica row (no ``_present``); ``_row_id`` when not the key."""
    columns: list[dict[str, Any]] = []
    for name, _, meaning in METADATA_COLUMNS:
        if name == "_present":
            continue
        if name == ROW_ID_KEY and name in key:
            columns.append({"name": name, "description": meaning})
        else:
            columns.append({"name": name, "description": f"Of the latest change: {meaning}"})
    columns.extend(
        {"name": name, "description": meaning} for name, meaning in REPLICA_EXTRA_COLUMNS
    )
    return columns


def _primary_key_test(table: TableDef, key: tuple[str, ...]) -> list[dict[str, Any]]:
    """Uniqueness of the Oracle primary key among live rows, for a replica keyed otherwise
    (by ROWID, docs/keys.md): a re-snapshot or a moved row may leave two rows for one primary
    key. Rows whose key columns were never carried (NULL) are not compared."""
    primary_key = [spark_column_name(c) for c in table.primary_key]
    if not primary_key or tuple(primary_key) == key:
        return []
    live = " and ".join(["not _deleted", *(f"{c} is not null" for c in primary_key)])
    return [
        {
            "oracle_cdc.unique_combination": {
                "arguments": {"columns": primary_key},
                "config": {"where": live},
            }
        }
    ]


def replica_schema_yaml(table: TableDef) -> str:
    """``models/replica/<owner>__<table>.yml``: docs of every column, tests of the key and of
    the primary key where it is not the key."""
    key = consolidation_key(table)
    columns = _source_columns(table) + _replica_metadata_columns(key)
    for column in columns:
        if column["name"] in key:
            column["data_tests"] = ["not_null"] + (["unique"] if len(key) == 1 else [])
    model: dict[str, Any] = {
        "name": replica_model_name(table.owner, table.name),
        "description": f"Replica of Oracle {table.qualified_name} (supplemental logging "
        f"{table.supplemental_logging}), one row per key ({', '.join(key)}), consolidated from "
        f"{staging_table_name(table.owner, table.name)} by oracle_cdc.consolidate.",
    }
    model_tests = _primary_key_test(table, key)
    if len(key) > 1:
        model_tests.insert(
            0, {"oracle_cdc.unique_combination": {"arguments": {"columns": list(key)}}}
        )
    if model_tests:
        model["data_tests"] = model_tests
    model["columns"] = columns
    return _dump({"version": 2, "models": [model]})
