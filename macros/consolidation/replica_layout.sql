{#
    replica_layout()

    How the current replica model stores its rows (docs/dbt.md, "Replica layouts"):

    - copy_on_write (the default): one table; a run rewrites the buckets its changes touch
      (parquet, insert_overwrite) or merges into the table (delta, iceberg, hudi).
    - merge_on_read (parquet only): a base table (<model>__base, bucketed as above) and a
      delta table (<model>__delta) holding the latest version of each key changed since the
      last compaction, deletes as tombstones; the model's own name is a view serving delta
      rows over the base rows of the other keys. A run appends to the delta only; compaction
      folds the delta into the base (automatically past oracle_cdc__compact_share of the base,
      or `oracdc compact` / `dbt run-operation oracle_cdc.compact`).

    The model's meta oracle_cdc__layout overrides the var oracle_cdc__layout. Needs
    materialized='replica' (the generated models have it). Switching takes one full build,
    which the next run does by itself.
#}
{% macro replica_layout() -%}
    {{ return(adapter.dispatch('replica_layout', 'oracle_cdc')()) }}
{%- endmacro %}


{% macro default__replica_layout() -%}
    {{ oracle_cdc._adapter_not_supported('replica_layout') }}
{%- endmacro %}


{% macro spark__replica_layout() -%}
    {%- set override = oracle_cdc._model_meta('layout') -%}
    {%- set layout = var('oracle_cdc__layout', 'copy_on_write') if override is none else override -%}
    {%- if layout not in ['copy_on_write', 'merge_on_read'] -%}
        {{ exceptions.raise_compiler_error("oracle_cdc: replica layout '" ~ layout
            ~ "' is not one of copy_on_write, merge_on_read (meta or var oracle_cdc__layout)") }}
    {%- endif -%}
    {#-- the model's whole config is known at execution time only --#}
    {%- if layout == 'merge_on_read' and execute -%}
        {%- if config.get('materialized') != 'replica' -%}
            {{ exceptions.raise_compiler_error("oracle_cdc: " ~ model.name ~ " asks for the "
                ~ "merge_on_read layout but is materialized '" ~ config.get('materialized')
                ~ "': set materialized='replica' in its config") }}
        {%- endif -%}
        {%- if (config.get('file_format') or 'parquet') != 'parquet' -%}
            {{ exceptions.raise_compiler_error("oracle_cdc: " ~ model.name ~ ": the merge_on_read "
                ~ "layout is for parquet replicas; a " ~ config.get('file_format') ~ " replica merges "
                ~ "on read through its own table properties (docs/dbt.md, \"Table formats on a "
                ~ "cluster\"): leave oracle_cdc__layout at copy_on_write") }}
        {%- endif -%}
    {%- endif -%}
    {{ return(layout) }}
{%- endmacro %}
