{#-- The changed CTE: the consolidated rows the run writes. Hard deletes drop deleted keys;
     with insert_overwrite a touched bucket left with no row keeps one marker row (every column
     NULL) so that its partition is overwritten (drop_emptied_buckets drops it after the
     insert); soft deletes keep deleted keys with _deleted = true. ``plan``: consolidate's
     decisions (incremental, rewrites_buckets, soft_deletes, keeps_untouched_rows, columns,
     metadata). --#}
{% macro _changed_rows(plan) -%}
{%- if plan['incremental'] and plan['rewrites_buckets'] and not plan['soft_deletes'] %}

{# -- insert_overwrite leaves a partition untouched when the query writes nothing to it, so a
     touched bucket whose keys were all deleted, and which keeps no untouched row, keeps one
     marker row (every column NULL); drop_emptied_buckets drops such partitions after the
     insert -- #}
buckets_with_untouched_rows as (

    {% if plan['keeps_untouched_rows'] -%}
    select distinct _bucket from untouched_rows
    {%- else -%}
    select _bucket from bucketed where false
    {%- endif %}

),

changed_per_bucket as (

    select
        *,
        count_if(not _is_deleted) over (partition by _bucket) as _live_in_bucket,
        row_number() over (partition by _bucket order by _commit_scn, _scn, _redo_pos) as _row_in_bucket
    from bucketed

),

changed as (

    select
        {{- oracle_cdc._replica_row_columns(plan['columns'], plan['metadata'], blank_deleted=true) }}
    from changed_per_bucket
    where
        not _is_deleted
        or (
            _live_in_bucket = 0
            and _row_in_bucket = 1
            and _bucket not in (select kept._bucket from buckets_with_untouched_rows as kept)
        )

),
{%- else %}

changed as (

    select
        {{- oracle_cdc._replica_row_columns(plan['columns'], plan['metadata']) }}
    from bucketed
    {%- if not plan['soft_deletes'] and (plan['rewrites_buckets'] or not plan['incremental']) %}
    where not _is_deleted
    {%- endif %}

),
{%- endif %}
{%- endmacro %}
