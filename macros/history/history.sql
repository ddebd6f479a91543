{#
    history(staging_relation, key_columns)

    The body of a history model (SCD type 2) of one Oracle table, from its whole change log:
    one row per committed version of each key, with the complete row image of that version
    (partial images merged forward column by column, as consolidate does) and its validity:
    _valid_from_scn / _valid_from_ts (commit of the change) and _valid_to_scn / _valid_to_ts
    (commit of the next change of the key, NULL while current). A delete ends the version
    before it and is no version itself. Rebuilds from the staging table on every run: use it
    in a model materialized as a table.
      distinct_changes  a change landed twice is one change
      images            per change, the full row image after it
      versions          with the validity interval
      final             deletes removed
#}
{% macro history(staging_relation, key_columns) -%}
    {{ return(adapter.dispatch('history', 'oracle_cdc')(staging_relation, key_columns)) }}
{%- endmacro %}


{% macro default__history(staging_relation, key_columns) -%}
{%- set columns = oracle_cdc._replica_source_columns(staging_relation, none) -%}
{%- set metadata = oracle_cdc._replica_metadata_columns() -%}
{%- set keys = [] -%}
{%- for key in key_columns -%}{%- do keys.append(adapter.quote(key)) -%}{%- endfor -%}
{%- set key_list = keys | join(', ') -%}
{%- set change_order = '_commit_scn, _scn, _redo_pos' -%}

with

distinct_changes as (

    select * from (
        select
            *,
            row_number() over (
                partition by {{ key_list }}, _commit_scn, _scn, _redo_pos, _op
                order by _batch_id
            ) as _landed_copy
        from {{ staging_relation }}
    ) as landed
    where _landed_copy = 1

),

images as (

    select
        {% for key in keys -%}
        {{ key }},
        {% endfor -%}
        {%- for column in columns if column.quoted not in keys %}
        {# -- the struct keeps a written NULL apart from a column not carried (NULL struct) -- #}
        last(
            case when {{ oracle_cdc.is_carried(column.name) }} then named_struct('value', {{ column.quoted }}) end,
            true
        ) over (
            partition by {{ key_list }} order by {{ change_order }}
            rows between unbounded preceding and current row
        ).value as {{ column.quoted }},
        {%- endfor %}
        {%- for name in metadata if adapter.quote(name) not in keys %}
        {{ name }}{% if not loop.last %},{% endif %}
        {%- endfor %}
    from distinct_changes

),

versions as (

    select
        *,
        _commit_scn as _valid_from_scn,
        _commit_ts as _valid_from_ts,
        lead(_commit_scn) over (partition by {{ key_list }} order by {{ change_order }}) as _valid_to_scn,
        lead(_commit_ts) over (partition by {{ key_list }} order by {{ change_order }}) as _valid_to_ts
    from images

),

final as (

    select
        *,
        _valid_to_scn is null as _is_current
    from versions
    where _op <> 'd'

)

select * from final
{%- endmacro %}
