{#
    consolidate(staging_relation, key_columns, bucket_count=none)

    The body of a replica model: staging change rows of one Oracle table folded into one row
    per key (docs/dbt.md, architecture.md section 4). Steps, one CTE each:
      new_changes      staging rows with _batch_id above the replica's highest (its watermark)
      touched_keys     keys (and their hash bucket) those rows change
      current_rows     replica rows of the touched keys, to fold in
      untouched_rows   (insert_overwrite) the other rows of the touched buckets: a bucket is
                       rewritten whole, these pass through unchanged, without ranking
      earlier_deletes  deletes of touched keys from earlier batches: a late-landed snapshot
                       older than a consolidated delete must not bring the key back
      versions         all of them with one "carried" flag per source column
      ranked/based/    per key, newest first by (_commit_scn, _scn, _redo_pos); the newest full
      since_base       image (replica row, or a change with _present null) is the base
      consolidated     per column the newest value carried since the base; metadata of the
                       newest change
      bucketed         plus the key's hash bucket (the partition column)
      changed          deletes dropped (a marker row for a bucket left empty, see
                       drop_emptied_buckets), or kept with _deleted = true (soft deletes)
      final            changed rows, plus untouched_rows (insert_overwrite)
#}
{% macro consolidate(staging_relation, key_columns, bucket_count=none) -%}
    {{ return(adapter.dispatch('consolidate', 'oracle_cdc')(staging_relation, key_columns, bucket_count)) }}
{%- endmacro %}


{% macro default__consolidate(staging_relation, key_columns, bucket_count) -%}
{%- set soft_deletes = oracle_cdc.soft_deletes_enabled() -%}
{%- set buckets = bucket_count or var('oracle_cdc__bucket_count', 16) -%}
{%- set rewrites_buckets = (config.get('incremental_strategy') or 'insert_overwrite') != 'merge' -%}
{%- set incremental = is_incremental() -%}
{%- set columns = oracle_cdc._replica_source_columns(staging_relation, this if incremental else none) -%}
{%- set metadata = oracle_cdc._replica_metadata_columns() -%}
{%- set keys = [] -%}
{%- for key in key_columns -%}{%- do keys.append(adapter.quote(key)) -%}{%- endfor -%}
{%- set key_list = keys | join(', ') -%}
{%- set bucket = oracle_cdc.bucket_expression(keys, buckets) -%}

with

new_changes as (

    select * from {{ staging_relation }}
    {% if incremental -%}
    {# -- a batch of deletes only leaves no row behind, so it is read again next run: harmless,
         a delete of an absent key changes nothing -- #}
    where _batch_id > (select coalesce(max(_batch_id), -1) from {{ this }})
    {%- endif %}

),

touched_keys as (

    select distinct {{ key_list }}, {{ bucket }} as _bucket
    from new_changes

),

{% if incremental -%}
current_rows as (

    select * from {{ this }} as replica
    where exists (
            select 1 from touched_keys as touched
            where {{ oracle_cdc._null_safe_key_match(keys, 'touched', 'replica') }}
        )
        {%- if rewrites_buckets %}
        and replica._bucket in (select touched._bucket from touched_keys as touched)
        {%- endif %}
        {# -- marker rows of emptied buckets (see drop_emptied_buckets) are no versions -- #}
        and replica._op is not null

),
{%- if rewrites_buckets %}

untouched_rows as (

    select * from {{ this }} as replica
    where
        replica._bucket in (select touched._bucket from touched_keys as touched)
        and not exists (
            select 1 from touched_keys as touched
            where {{ oracle_cdc._null_safe_key_match(keys, 'touched', 'replica') }}
        )
        and replica._op is not null

),
{%- endif %}

earlier_deletes as (

    select * from {{ staging_relation }} as staged
    where staged._op = 'd'
      and staged._batch_id <= (select coalesce(max(_batch_id), -1) from {{ this }})
      and exists (
          select 1 from touched_keys as touched
          where {{ oracle_cdc._null_safe_key_match(keys, 'touched', 'staged') }}
      )

),
{%- endif %}

versions as (

    {{ oracle_cdc._versions_select('new_changes', columns, metadata, 'staging', 1) }}
    {%- if incremental %}

    union all

    {{ oracle_cdc._versions_select('current_rows', columns, metadata, 'replica', 0) }}

    union all

    {{ oracle_cdc._versions_select('earlier_deletes', columns, metadata, 'staging', 2) }}
    {%- endif %}

),

ranked as (

    select
        *,
        {# -- the replica row ranks before a re-landed copy of the change it already holds -- #}
        row_number() over (
            partition by {{ key_list }}
            order by _commit_scn desc, _scn desc, _redo_pos desc, _version_source, _batch_id
        ) as _version_rank
    from versions

),

based as (

    select
        *,
        min(case when _is_full_image then _version_rank end) over (
            partition by {{ key_list }}
        ) as _base_rank
    from ranked

),

since_base as (

    {# -- no full image at all (a table replicated from the log only, partial logging): every
         change counts and columns never carried stay NULL. A column the staging table no
         longer has is carried by the replica row only, so the base does not cut it off -- #}
    select
        *,
        _base_rank is null or _version_rank <= _base_rank as _since_base
    from based

),

consolidated as (

    select
        {% for key in keys -%}
        {{ key }},
        {% endfor -%}
        {%- for column in columns if column.quoted not in keys %}
        {%- set counted = column.carried ~ (' and _since_base' if column.in_staging else '') %}
        {{ oracle_cdc.latest_value(column.quoted, 'case when ' ~ counted ~ ' then _version_rank end') }} as {{ column.quoted }},
        {%- endfor %}
        {%- for name in metadata if adapter.quote(name) not in keys %}
        {{ oracle_cdc.latest_value(name, '_version_rank') }} as {{ name }},
        {%- endfor %}
        count(*) as _versions
    from since_base
    group by {{ key_list }}

),

bucketed as (

    select
        *,
        {{ bucket }} as _bucket
    from consolidated

),
{%- if incremental and rewrites_buckets and not soft_deletes %}

{# -- insert_overwrite leaves a partition untouched when the query writes nothing to it, so a
     touched bucket whose keys were all deleted, and which keeps no untouched row, keeps one
     marker row (every column NULL); drop_emptied_buckets drops such partitions after the
     insert -- #}
buckets_with_untouched_rows as (

    select distinct _bucket from untouched_rows

),

changed_per_bucket as (

    select
        *,
        count_if(_op <> 'd') over (partition by _bucket) as _live_in_bucket,
        row_number() over (partition by _bucket order by _commit_scn, _scn, _redo_pos) as _row_in_bucket
    from bucketed

),

changed as (

    select
        {%- for column in columns %}
        case when _op <> 'd' then {{ column.quoted }} end as {{ column.quoted }},
        {%- endfor %}
        {%- for name in metadata %}
        case when _op <> 'd' then {{ name }} end as {{ name }},
        {%- endfor %}
        _op = 'd' as _deleted,
        _bucket
    from changed_per_bucket
    where
        _op <> 'd'
        or (
            _live_in_bucket = 0
            and _row_in_bucket = 1
            and _bucket not in (select kept._bucket from buckets_with_untouched_rows as kept)
        )

),
{%- else %}

changed as (

    select
        {%- for column in columns %}
        {{ column.quoted }},
        {%- endfor %}
        {%- for name in metadata %}
        {{ name }},
        {%- endfor %}
        _op = 'd' as _deleted,
        _bucket
    from bucketed
    {%- if not soft_deletes and (rewrites_buckets or not incremental) %}
    where _op <> 'd'
    {%- endif %}

),
{%- endif %}

final as (

    select * from changed
    {%- if incremental and rewrites_buckets %}

    union all

    {# -- the rest of each rewritten bucket, as it is -- #}
    select
        {%- for column in columns %}
        {%- if column.in_replica %}
        {{ column.quoted }},
        {%- else %}
        cast(null as {{ column.data_type }}) as {{ column.quoted }},
        {%- endif %}
        {%- endfor %}
        {%- for name in metadata %}
        {{ name }},
        {%- endfor %}
        _deleted,
        _bucket
    from untouched_rows
    {%- endif %}

)

select * from final
{%- endmacro %}
