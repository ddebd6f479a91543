{#-- left.k1 <=> right.k1 and ...: the keys of two relations matched. null_safe (the default):
     a NULL key part still matches itself. Without it the parts are compared with `=`, which
     Spark joins on the key itself instead of on (coalesce(key), isnull(key)) pairs: a 1%
     merge_on_read run at 10M rows took about 15% less (docs/performance.md §2). Only exact
     when one side has no NULL key part (_run_scope's null_keys). --#}
{% macro _key_match(keys, left, right, null_safe=true) -%}
    {%- set operator = '<=>' if null_safe else '=' -%}
    {%- for key in keys -%}
        {{ left }}.{{ key }} {{ operator }} {{ right }}.{{ key }}{% if not loop.last %} and {% endif %}
    {%- endfor -%}
{%- endmacro %}
