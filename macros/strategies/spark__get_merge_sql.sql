{#
    spark__get_merge_sql: dbt-spark's merge, replaced for oracle_cdc replica models only.

    dbt-spark's merge has no delete branch, compares keys with = (never true for NULL) and
    applies whatever the source row holds. A replica (config meta oracle_cdc__replica: true) gets
    replica_merge_sql instead; every other model keeps dbt-spark's merge. Picked up through the
    dispatch search order of dbt_project.yml (macro_namespace dbt: oracle_cdc, then dbt).
#}
{% macro spark__get_merge_sql(target, source, unique_key, dest_columns, incremental_predicates) -%}
    {%- if oracle_cdc._model_meta('replica') -%}
        {{ oracle_cdc.replica_merge_sql(target, source, unique_key) }}
    {%- else -%}
        {{ dbt.spark__get_merge_sql(target, source, unique_key, dest_columns, incremental_predicates) }}
    {%- endif -%}
{%- endmacro %}
