{#
    unique_combination(model, columns)

    Generic test: no two rows share the same values of all `columns` (a composite key). NULLs
    compare equal here, unlike in SQL `=`, so a NULL key part cannot hide a duplicate.
#}
{% test unique_combination(model, columns) %}
    {{ return(adapter.dispatch('test_unique_combination', 'oracle_cdc')(model, columns)) }}
{% endtest %}


{% macro default__test_unique_combination(model, columns) %}

with

key_counts as (

    select
        {{ columns | join(', ') }},
        count(*) as rows_per_key
    from {{ model }}
    group by {{ columns | join(', ') }}

),

final as (

    select * from key_counts
    where rows_per_key > 1

)

select * from final

{% endmacro %}
