{#
    incremental_strategy_for(file_format)

    The incremental strategy of a replica stored as file_format: merge where the table format
    supports MERGE INTO (delta, iceberg, hudi), otherwise insert_overwrite of the touched
    _bucket partitions (dbt-spark refuses merge on parquet).
#}
{% macro incremental_strategy_for(file_format) -%}
    {{ return(adapter.dispatch('incremental_strategy_for', 'oracle_cdc')(file_format)) }}
{%- endmacro %}


{% macro default__incremental_strategy_for(file_format) -%}
    {{ oracle_cdc._adapter_not_supported('incremental_strategy_for') }}
{%- endmacro %}


{% macro spark__incremental_strategy_for(file_format) -%}
    {{ return('merge' if file_format in ['delta', 'iceberg', 'hudi'] else 'insert_overwrite') }}
{%- endmacro %}
