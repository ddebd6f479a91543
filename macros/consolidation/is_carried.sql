{#
    is_carried(column_name, present_column='_present')

    True when a staging row carries a value for column_name (lower-case source name): the row
    is a full image (_present is NULL) or lists the column in _present (partial row images of
    tables logged with PRIMARY KEY or MINIMAL supplemental logging).
#}
{% macro is_carried(column_name, present_column='_present') -%}
    {{ return(adapter.dispatch('is_carried', 'oracle_cdc')(column_name, present_column)) }}
{%- endmacro %}


{% macro default__is_carried(column_name, present_column) -%}
    {{ oracle_cdc._adapter_not_supported('is_carried') }}
{%- endmacro %}


{% macro spark__is_carried(column_name, present_column) -%}
    {#- -- a Spark string literal reads a backslash as an escape: double it, then the quotes -- #}
    ({{ present_column }} is null or array_contains({{ present_column }}, '{{ column_name | replace("\\", "\\\\") | replace("'", "''") }}'))
{%- endmacro %}
