{#-- The _bucket expression of a replica's keys under ``layout`` (bucket_layout): hash buckets
     (INT for legacy replicas, else BIGINT) or key ranges of the leading key column, whose
     Spark type comes from ``columns`` (_replica_source_columns). --#}
{% macro _bucket_of(key_columns, columns, layout) -%}
    {%- set keys = oracle_cdc._quoted_keys(key_columns) -%}
    {%- if layout.layout == 'hash' -%}
        {%- set hashed = oracle_cdc.bucket_expression(keys, layout.count) -%}
        {{ return(hashed if layout.legacy else 'cast(' ~ hashed ~ ' as bigint)') }}
    {%- endif -%}
    {%- set data_type = oracle_cdc._leading_key_type(key_columns, columns) -%}
    {{ return(oracle_cdc.key_range_bucket_expression(keys[0], layout.kind, layout.width, data_type)) }}
{%- endmacro %}
