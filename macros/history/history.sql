{#
    history(staging_relation, key_columns)

    The body of a history model (SCD type 2) of one Oracle table, from its whole change log:
    one row per committed version of each key, with the complete row image of that version
    (partial images merged forward column by column, as consolidate does) and its validity:
    _valid_from_scn / _valid_from_ts (commit of the change) and _valid_to_scn / _valid_to_ts
    (commit of the next change of the key, NULL while current). A delete ends the version
    before it and is no version itself. A version is what a commit left: of several changes of
    a key in one transaction (one _commit_scn) only the last, by (_scn, _redo_pos), is one;
    the image of the changes before it is merged into it, and a key inserted and deleted in
    one transaction has no version. Rebuilds from the staging table on every run: use it in a
    model materialized as a table.
      distinct_changes  a change landed twice is one change
      resets, changes   table reset markers (_op = 't': TRUNCATE, a re-snapshot) are no
                        versions: per change, how many come before it (they cut the image like
                        a delete) and the commit of the first after it (it ends the version)
      held, effective   a delete retires the version of its own physical row (_row_id) only:
                        `update t set id = id + 1` keeps every moved row
      lives             per change, the deletes of its key before it: a delete cuts every
                        column, a later partial image does not inherit values from before it
      images            per change, the full row image after it
      committed         per key and commit, the last change (the state the commit left)
      versions, ended   with the validity interval: to the key's next commit, or to the
                        first table reset after it
      final             deletes removed
#}
{% macro history(staging_relation, key_columns) -%}
    {{ return(adapter.dispatch('history', 'oracle_cdc')(staging_relation, key_columns)) }}
{%- endmacro %}


{% macro default__history(staging_relation, key_columns) -%}
    {{ oracle_cdc._adapter_not_supported('history') }}
{%- endmacro %}


{% macro spark__history(staging_relation, key_columns) -%}
{%- set columns = oracle_cdc._replica_source_columns(staging_relation, none) -%}
{%- set metadata = oracle_cdc._replica_metadata_columns() -%}
{%- set keys = oracle_cdc._quoted_keys(key_columns) -%}
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

resets as (

    select
        _commit_scn as _reset_scn,
        _commit_ts as _reset_ts,
        struct(_commit_scn, _scn, _redo_pos) as _reset_position
    from distinct_changes
    where _op = 't'

),

changes as (

    select
        changed.*,
        (
            select count(*) from resets
            where resets._reset_position < struct(changed._commit_scn, changed._scn, changed._redo_pos)
        ) as _resets_before,
        (
            select min(resets._reset_scn) from resets
            where resets._reset_position > struct(changed._commit_scn, changed._scn, changed._redo_pos)
        ) as _next_reset_scn,
        (
            select min(resets._reset_ts) from resets
            where resets._reset_position > struct(changed._commit_scn, changed._scn, changed._redo_pos)
        ) as _next_reset_ts
    from distinct_changes as changed
    where changed._op <> 't'

),

held as (

    select
        *,
        last(case when _op <> 'd' then _row_id end, true) over (
            partition by {{ key_list }}, _resets_before order by {{ change_order }}
            rows between unbounded preceding and 1 preceding
        ) as _holder_row_id
    from changes

),

effective as (

    {# -- a delete retires the version of its own physical row only: in `update t set id = id + 1`
         the delete of key 2 (row 2 leaving it) follows row 1's arrival on key 2, which stays -- #}
    select * except (_holder_row_id)
    from held
    where _op <> 'd' or _holder_row_id is null or _row_id is null or _holder_row_id = _row_id

),

lives as (

    select
        *,
        count_if(_op = 'd') over (
            partition by {{ key_list }}, _resets_before order by {{ change_order }}
            rows between unbounded preceding and 1 preceding
        ) as _deletes_before
    from effective

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
            partition by {{ key_list }}, _resets_before, _deletes_before order by {{ change_order }}
            rows between unbounded preceding and current row
        ).value as {{ column.quoted }},
        {%- endfor %}
        {%- for name in metadata if adapter.quote(name) not in keys %}
        {{ name }},
        {%- endfor %}
        _next_reset_scn,
        _next_reset_ts,
        row_number() over (
            partition by {{ key_list }}, _commit_scn order by _scn desc, _redo_pos desc
        ) as _change_from_last_of_commit
    from lives

),

committed as (

    select * except (_change_from_last_of_commit)
    from images
    where _change_from_last_of_commit = 1

),

versions as (

    select
        *,
        _commit_scn as _valid_from_scn,
        _commit_ts as _valid_from_ts,
        lead(_commit_scn) over (partition by {{ key_list }} order by {{ change_order }}) as _next_scn,
        lead(_commit_ts) over (partition by {{ key_list }} order by {{ change_order }}) as _next_ts
    from committed

),

ended as (

    {# -- a version ends at the key's next commit, or earlier at a table reset -- #}
    select
        * except (_next_scn, _next_ts, _next_reset_scn, _next_reset_ts),
        least(_next_scn, _next_reset_scn) as _valid_to_scn,
        case
            when _next_reset_scn is not null and (_next_scn is null or _next_reset_scn < _next_scn)
                then _next_reset_ts
            else _next_ts
        end as _valid_to_ts
    from versions

),

final as (

    select
        *,
        _valid_to_scn is null as _is_current
    from ended
    where _op <> 'd'

)

select * from final
{%- endmacro %}
