{#-- The value of the current model's meta key oracle_cdc__<name> (none when unset). The
     spelling of earlier releases, oracle_cdc_<name> (one underscore), is still read. --#}
{% macro _model_meta(name) -%}
    {%- set meta = config.get('meta') or {} -%}
    {%- set value = meta.get('oracle_cdc__' ~ name) -%}
    {{ return(meta.get('oracle_cdc_' ~ name) if value is none else value) }}
{%- endmacro %}
