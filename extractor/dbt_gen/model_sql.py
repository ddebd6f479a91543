"""The SQL file of one replica model: config plus one call of ``oracle_cdc.consolidate``."""

from __future__ import annotations

from extractor.dictionary import TableDef
from extractor.keys import consolidation_key
from extractor.spark_types import spark_type
from extractor.staging_contract import replica_model_name, spark_column_name, staging_table_name

STAGING_SOURCE_NAME = "oracdc_staging"


def _python_list(names: tuple[str, ...]) -> str:
    return "[" + ", ".join(f"'{name}'" for name in names) + "]"


def replica_model_sql(table: TableDef) -> str:
    """The body (without generated header) of ``models/replica/<owner>__<table>.sql``."""
    key_columns = consolidation_key(table)
    key = _python_list(key_columns)
    staging = staging_table_name(table.owner, table.name)
    # a NUMBER key landed as STRING (unbounded, exact) still gets ranges of numbers
    number_key = "\n    number_key=true," if _number_landed_as_text(table, key_columns) else ""
    return f"""\
{{#-- Replica of Oracle {table.qualified_name}: one row per key, the latest committed version.
     Soft deletes for this table only: add 'oracle_cdc__soft_deletes': true to meta. --#}}
{{%- set file_format = var('oracle_cdc__file_format', 'parquet') -%}}

{{{{
    config(
        materialized='replica',
        file_format=file_format,
        incremental_strategy=oracle_cdc.incremental_strategy_for(file_format),
        tblproperties=oracle_cdc.replica_table_properties(file_format, {key}),
        partition_by=['_bucket'],
        unique_key={key},
        on_schema_change='append_new_columns',
        post_hook=[
            "{{{{ oracle_cdc.record_bucket_layout() }}}}",
            "{{{{ oracle_cdc.drop_emptied_buckets() }}}}",
        ],
        meta={{'oracle_cdc__replica': true, 'oracle_cdc__table': '{table.qualified_name}'}},
    )
}}}}

{{{{ oracle_cdc.consolidate(
    source('{STAGING_SOURCE_NAME}', '{staging}'),
    key_columns={key},{number_key}
) }}}}
"""


def _number_landed_as_text(table: TableDef, key_columns: tuple[str, ...]) -> bool:
    """Whether the leading key column is an Oracle NUMBER or FLOAT that lands as STRING."""
    leading = next((c for c in table.columns if spark_column_name(c.name) == key_columns[0]), None)
    return (
        leading is not None
        and leading.data_type.upper() in ("NUMBER", "FLOAT")
        and spark_type(leading) == "STRING"
    )


def replica_model_path_name(table: TableDef) -> str:
    return f"{replica_model_name(table.owner, table.name)}.sql"
