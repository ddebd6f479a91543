{#-- The incremental run's inputs besides the new staging rows, as CTEs: consolidated_deletes
     (deletes of touched keys from consolidated batches), current_rows (replica
     rows of the touched keys), untouched_rows (insert_overwrite: the rest of the touched
     buckets, passed through), late_keys (keys with a new change older than their replica row),
     replica_rows (current_rows flagged _rederived for late keys), earlier_changes (consolidated
     deletes of touched keys, every earlier row of a late key). ``plan``: consolidate's
     decisions (keys, watermark, replica: the replica's rows as a relation or subquery,
     rewrites_all, rewrites_buckets, keeps_untouched_rows, touched_buckets: the touched buckets as an SQL list, broadcast: the touched keys are few
     enough to send to every task, so no join shuffles the replica or staging rows,
     null_safe_keys: the joins on touched keys match NULL key parts, see _key_match;
     late_possible: false when every new change is newer than every replica row, so no key is
     late and neither late_keys nor the earlier rows of late keys are read;
     reads_needed_rows_only: current_rows holds only the replica rows the result needs, see
     newest_changes). --#}
{% macro _replica_inputs(staging_relation, plan) -%}
{%- set touched_hint = '/*+ BROADCAST(touched) */ ' if plan['broadcast'] else '' -%}
{%- set keys = plan['keys'] -%}
{# -- deletes of touched keys from already consolidated batches (a late snapshot older than a
     consolidated delete must not bring the key back) -- #}
consolidated_deletes as (

    select {{ touched_hint }}staged.* from {{ staging_relation }} as staged
    left semi join touched_keys as touched
        on {{ oracle_cdc._key_match(keys, 'touched', 'staged', plan['null_safe_keys']) }}
    where
        staged._op = 'd'
        and staged._batch_id <= {{ plan['watermark'] }}

),
{%- if plan['reads_needed_rows_only'] %}
{# -- no change can be late and every replica column is in staging: a key's replica row only
     counts when its newest new change is a partial image (it merges onto the row), a delete
     of another ROWID than the row's (the row stays live) or, with soft deletes, a delete that
     is not a full image (the row's values are kept), and when the key has a consolidated
     delete (with a key two rows share in turn, another row's delete newer than the replica row
     can retire the new change and leave the replica row the key's only live version). A
     full-image insert or update is otherwise the key's current version and all its values; a
     delete of the row's own ROWID retires it. Only the other keys' replica rows are read
     whole; for deletes, keys and ROWIDs first -- #}
newest_changes as (

    select * from (
        select
            {{ keys | join(', ') }}, _op, _present, _row_id,
            row_number() over (
                partition by {{ keys | join(', ') }}
                order by _commit_scn desc, _scn desc, _redo_pos desc, _batch_id
            ) as _newest
        from new_versions
    ) as ranked_changes
    where _newest = 1

),

needed_keys as (

    select {{ keys | join(', ') }} from newest_changes
    where _present is not null{% if not plan['soft_deletes'] %} and _op <> 'd'{% endif %}

    union all

    select {{ '/*+ BROADCAST(newest) */ ' if plan['broadcast'] else '' }}
        {%- for key in keys %}newest.{{ key }}{% if not loop.last %}, {% endif %}{% endfor %}
    from newest_changes as newest
    inner join (
        select {{ keys | join(', ') }}, _row_id from {{ plan['replica'] }} as replica
        where
            {%- if plan['touched_buckets'] is not none %}
            replica._bucket in ({{ plan['touched_buckets'] }}) and
            {%- endif %}
            replica._op is not null
    ) as replica
        on {{ oracle_cdc._key_match(keys, 'newest', 'replica', plan['null_safe_keys']) }}
    where newest._op = 'd' and not coalesce(newest._row_id = replica._row_id, false)

    union all

    select {{ keys | join(', ') }} from consolidated_deletes

),
{%- endif %}
{%- set wanted = 'needed_keys' if plan['reads_needed_rows_only'] else 'touched_keys' %}

current_rows as (

    {% if plan['rewrites_all'] -%}
    select * from {{ plan['replica'] }} as replica
    where replica._op is not null
    {%- else -%}
    select {{ touched_hint }}replica.* from {{ plan['replica'] }} as replica
    left semi join {{ wanted }} as touched
        on {{ oracle_cdc._key_match(keys, 'touched', 'replica', plan['null_safe_keys']) }}
    where
        {%- if plan['touched_buckets'] is not none %}
        replica._bucket in ({{ plan['touched_buckets'] }}) and
        {%- endif %}
        {# -- marker rows of emptied buckets (see drop_emptied_buckets) are no versions -- #}
        replica._op is not null
    {%- endif %}

),
{%- if plan['keeps_untouched_rows'] %}

untouched_rows as (

    select {{ touched_hint }}replica.* from {{ plan['replica'] }} as replica
    left anti join touched_keys as touched
        on {{ oracle_cdc._key_match(plan['keys'], 'touched', 'replica', plan['null_safe_keys']) }}
    where
        replica._bucket in ({{ plan['touched_buckets'] }})
        and replica._op is not null

),
{%- endif %}

{%- if plan['late_possible'] %}
{# -- keys with a new change older than their replica row: the replica row folded versions the
     older change must be ranked among, so the key is consolidated again from every staging row
     (the replica row then only contributes columns the staging table no longer has) -- #}
late_keys as (

    select {{ '/*+ BROADCAST(staged) */ ' if plan['broadcast'] else '' }}distinct
        {%- for key in plan['keys'] %} replica.{{ key }},{% endfor %} true as _late
    from current_rows as replica
    inner join (
        select {{ plan['keys'] | join(', ') }}, min({{ oracle_cdc._position() }}) as _earliest
        from new_versions
        group by {{ plan['keys'] | join(', ') }}
    ) as staged
        on {{ oracle_cdc._key_match(plan['keys'], 'staged', 'replica', plan['null_safe_keys']) }}
    where staged._earliest < {{ oracle_cdc._position('replica') }}

),

replica_rows as (

    select
        replica.*,
        coalesce(late._late, false) as _rederived
    from current_rows as replica
    left join late_keys as late
        on {{ oracle_cdc._key_match(plan['keys'], 'late', 'replica', plan['null_safe_keys']) }}

),
{%- else %}

{# -- every new change is newer than every replica row (_run_scope): no key is late -- #}
replica_rows as (

    select
        replica.*,
        false as _rederived
    from current_rows as replica

),
{%- endif %}


{# -- consolidated deletes of touched keys, and every earlier row of a late key -- #}
earlier_changes as (

    select * from consolidated_deletes
    {%- if plan['late_possible'] %}

    union all

    select {{ '/*+ BROADCAST(late) */ ' if plan['broadcast'] else '' }}staged.* from {{ staging_relation }} as staged
    left semi join late_keys as late
        on {{ oracle_cdc._key_match(plan['keys'], 'late', 'staged', plan['null_safe_keys']) }}
    where
        staged._op not in ('d', 't')
        and staged._batch_id <= {{ plan['watermark'] }}
    {%- endif %}

),
{%- endmacro %}
