{#
    latest_value(value_expression, rank_expression)

    Aggregate: the value of value_expression on the row with the smallest non-NULL
    rank_expression. A NULL value on that row is returned as NULL (a written NULL is a value);
    rows whose rank is NULL (the column was not carried) are passed over.
#}
{% macro latest_value(value_expression, rank_expression) -%}
    {{ return(adapter.dispatch('latest_value', 'oracle_cdc')(value_expression, rank_expression)) }}
{%- endmacro %}


{% macro default__latest_value(value_expression, rank_expression) -%}
    {# -- portable form: the struct orders by its first field; min() skips NULL structs -- #}
    min(case when ({{ rank_expression }}) is not null
        then named_struct('rank', {{ rank_expression }}, 'value', {{ value_expression }}) end).value
{%- endmacro %}


{% macro spark__latest_value(value_expression, rank_expression) -%}
    min_by({{ value_expression }}, {{ rank_expression }})
{%- endmacro %}
