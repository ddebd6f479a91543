{#
    equal_rows(model, expected, columns)

    Fails with the rows that differ between `model` and `expected` on `columns`, compared as
    text (a seed's inferred types need not be the replica's; an empty cell of the seed is
    NULL): each row of one that the other lacks, with `problem` = missing (expected, not in
    the model) or extra. EXCEPT ALL counts rows: a key held twice is one row extra.
#}
{% test equal_rows(model, expected, columns) -%}
{%- set projected -%}
    {%- for column in columns %}{{ seed_value(column) }} as {{ column }}{{ ", " if not loop.last }}{% endfor -%}
{%- endset -%}
with actual as (
    select {{ projected }} from {{ model }}
),

wanted as (
    select {{ projected }} from {{ expected }}
),

missing as (
    select * from wanted
    except all
    select * from actual
),

extra as (
    select * from actual
    except all
    select * from wanted
)

select 'missing' as problem, * from missing
union all
select 'extra' as problem, * from extra
{%- endtest %}
