{#
    soft_deletes_enabled()

    Whether the current replica model keeps deleted keys (with _deleted = true). A model
    overrides the project var oracle_cdc__soft_deletes with
    {{ config(meta={'oracle_cdc__soft_deletes': true}) }} (or +meta in dbt_project.yml).
#}
{% macro soft_deletes_enabled() -%}
    {{ return(adapter.dispatch('soft_deletes_enabled', 'oracle_cdc')()) }}
{%- endmacro %}


{% macro default__soft_deletes_enabled() -%}
    {%- set override = oracle_cdc._model_meta('soft_deletes') -%}
    {%- set enabled = var('oracle_cdc__soft_deletes', false) if override is none else override -%}
    {{ return(enabled in [true, 'true', 'True', 1, '1']) }}
{%- endmacro %}
