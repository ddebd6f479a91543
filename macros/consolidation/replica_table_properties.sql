{#
    replica_table_properties(file_format, key_columns)

    The table properties a replica is created with, so that its MERGE writes merge-on-read
    (docs/dbt.md, "Table formats on a cluster"): a sync cycle then writes the changed rows and
    marks the replaced ones, instead of rewriting every file a changed key lives in.

    - delta: deletion vectors ('delta.enableDeletionVectors').
    - iceberg: format version 2 with merge-on-read deletes, updates and merges
      ('write.delete.mode', 'write.update.mode', 'write.merge.mode').
    - hudi: a MERGE_ON_READ table ('type' = 'mor') keyed by the replica's key ('primaryKey').
    - parquet (and any other format): none.

    The var oracle_cdc__merge_on_read (default true) set to false keeps each format's own
    default (copy-on-write). Properties are set when a replica is created: an existing
    replica keeps its own until `dbt build --full-refresh` or an ALTER TABLE ... SET
    TBLPROPERTIES of yours.
#}
{% macro replica_table_properties(file_format, key_columns) -%}
    {{ return(adapter.dispatch('replica_table_properties', 'oracle_cdc')(file_format, key_columns)) }}
{%- endmacro %}


{% macro default__replica_table_properties(file_format, key_columns) -%}
    {{ oracle_cdc._adapter_not_supported('replica_table_properties') }}
{%- endmacro %}


{% macro spark__replica_table_properties(file_format, key_columns) -%}
    {%- if not var('oracle_cdc__merge_on_read', true) -%}
        {{ return(none) }}
    {%- elif file_format == 'delta' -%}
        {{ return({'delta.enableDeletionVectors': 'true'}) }}
    {%- elif file_format == 'iceberg' -%}
        {{ return({
            'format-version': '2',
            'write.delete.mode': 'merge-on-read',
            'write.update.mode': 'merge-on-read',
            'write.merge.mode': 'merge-on-read',
        }) }}
    {%- elif file_format == 'hudi' -%}
        {{ return({'type': 'mor', 'primaryKey': key_columns | join(',')}) }}
    {%- endif -%}
    {{ return(none) }}
{%- endmacro %}
