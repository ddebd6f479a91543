{#-- The key column names, each quoted for the adapter (`id`), in the given order. --#}
{% macro _quoted_keys(key_columns) -%}
    {%- set keys = [] -%}
    {%- for key in ([key_columns] if key_columns is string else key_columns) -%}
        {%- do keys.append(adapter.quote(key)) -%}
    {%- endfor -%}
    {{ return(keys) }}
{%- endmacro %}
