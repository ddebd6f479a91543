{#-- left.k1 <=> right.k1 and ...: keys compared null-safely (a NULL key still matches itself) --#}
{% macro _null_safe_key_match(keys, left, right) -%}
    {%- for key in keys -%}
        {{ left }}.{{ key }} <=> {{ right }}.{{ key }}{% if not loop.last %} and {% endif %}
    {%- endfor -%}
{%- endmacro %}
