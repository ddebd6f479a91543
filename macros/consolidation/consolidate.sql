{#
    consolidate(staging_relation, key_columns, bucket_count=none, bucket_layout=none, number_key=false)

    The body of a replica model: staging change rows of one Oracle table folded into one row
    per key (docs/dbt.md "What a replica run does" and "Rules"). Steps, one CTE each:
      new_changes      staging rows with _batch_id above the replica's highest (its watermark);
      new_versions     those without reset markers (_op = 't', never key versions themselves)
      touched_keys     keys (and their bucket) those rows change; every replica key too
                       when a reset marker is among the new rows (the run rewrites the replica)
      consolidated_deletes  deletes of touched keys from earlier batches
      newest_changes/  (no change can be late, no column lost) the keys whose replica row can
      needed_keys      change the result: newest change a partial image or a delete of
                       another ROWID, or a consolidated delete; only their rows are read
      current_rows     replica rows of the touched keys (or of needed_keys), to fold in
      untouched_rows   (insert_overwrite) the other rows of the touched buckets: a bucket is
                       rewritten whole, these pass through unchanged, without ranking
      late_keys        keys with a new change older than their replica row: the row folded
                       versions that change must rank among, so the key is consolidated again
                       from every staging row
      replica_rows     current_rows, flagged _rederived for late keys
      earlier_changes  deletes of touched keys from earlier batches (a late change older than a
                       consolidated delete stays retired), and every earlier row of a late key
      latest_reset_marker  the newest reset marker by position (only if the table has one): a
                       delete of every touched key with no _row_id
      versions         all of them with one "carried" flag per source column
      positioned/      per version: is it a delete (d, t), its position, and is it retired (a
      retired          later delete of the same _row_id, or with a NULL _row_id on either side)
      ranked/based/    per key, newest first by (_commit_scn, _scn, _redo_pos); the current
      since_base       version is the newest live (not retired, not delete) one; its values come
                       from live versions since the newest live full image; no live version:
                       deleted (soft deletes show the last values)
      consolidated     per column the newest value carried since the base; metadata of the
                       current version (of the newest version for a deleted key); _batch_id the
                       highest batch folded in
      bucketed         plus the key's bucket (the partition column; bucket_layout: key ranges
                       or hashes, chosen at a full build and recorded by record_bucket_layout);
                       an incremental run takes it from touched_keys
      changed          deletes dropped (a marker row for a bucket left empty, see
                       drop_emptied_buckets), or kept with _deleted = true (soft deletes, and
                       merge / merge_on_read runs: a delete is their tombstone)
      final            changed rows, plus untouched_rows (insert_overwrite)
    A merge_on_read replica (replica_layout) is read through the rows its view serves (base
    and delta) and its run writes no untouched rows: the materialization appends the result to
    the delta. The mode decisions are made once at the top (``plan``); the incremental inputs
    (current_rows .. earlier_changes) are ``_replica_inputs``, the changed CTE
    ``_changed_rows``, the versions ``_versions_select`` / ``_reset_versions_select``
    (macros/internal/).
#}
{% macro consolidate(staging_relation, key_columns, bucket_count=none, bucket_layout=none, number_key=false) -%}
    {{ return(adapter.dispatch('consolidate', 'oracle_cdc')(staging_relation, key_columns, bucket_count, bucket_layout, number_key)) }}
{%- endmacro %}


{% macro default__consolidate(staging_relation, key_columns, bucket_count, bucket_layout, number_key) -%}
    {{ oracle_cdc._adapter_not_supported('consolidate') }}
{%- endmacro %}


{% macro spark__consolidate(staging_relation, key_columns, bucket_count, bucket_layout, number_key) -%}
{%- set soft_deletes = oracle_cdc.soft_deletes_enabled() -%}
{%- set merge_on_read = oracle_cdc.replica_layout() == 'merge_on_read' -%}
{#-- merge_on_read: the run's rows, tombstones included, are appended to the delta table --#}
{%- set rewrites_buckets = (config.get('incremental_strategy') or 'insert_overwrite') != 'merge'
    and not merge_on_read -%}
{%- set keys = oracle_cdc._quoted_keys(key_columns) -%}
{#-- the replica as an incremental run reads it (none: a full build) --#}
{%- set read = oracle_cdc._replica_read(keys, soft_deletes) -%}
{%- set incremental = read is not none -%}
{%- set columns = oracle_cdc._replica_source_columns(staging_relation, read.table if incremental else none) -%}
{%- set metadata = oracle_cdc._replica_metadata_columns() -%}
{%- set key_list = keys | join(', ') -%}
{%- set per_key = 'partition by ' ~ key_list -%}
{%- set layout = oracle_cdc.bucket_layout(staging_relation, key_columns, columns, bucket_count, bucket_layout, number_key) -%}
{%- set bucket = oracle_cdc._bucket_of(key_columns, columns, layout) -%}
{%- set replica = read.rows if incremental else this -%}
{%- set scope = oracle_cdc._run_scope(staging_relation, read.watermark_relations if incremental else none,
    keys, bucket, read.watermark_floor if incremental else -1) -%}
{%- set watermark = scope.watermark -%}
{%- set last_batch = scope.last_batch if scope.last_batch is not none else watermark -%}
{%- set resets = {
    'present': scope.newest_marker is not none,
    'unconsolidated': scope.newest_marker is not none and scope.newest_marker > watermark,
} -%}
{#-- a reset marker in a new batch touches every key of the replica --#}
{%- set rewrites_all = incremental and resets.unconsolidated -%}
{%- set keeps_untouched_rows = incremental and rewrites_buckets and not rewrites_all -%}
{#-- the touched buckets as literals (insert_overwrite of some buckets; merge_on_read: the base
     partitions the replica rows of touched keys are read from): see _run_scope --#}
{%- set touched_buckets = (scope.buckets | join(', ') or 'null')
    if incremental and (rewrites_buckets or merge_on_read) and not rewrites_all else none -%}
{%- if touched_buckets is not none and execute and var('oracle_cdc__partition_pruning_fallback', true) -%}
    {#-- a Hive metastore cannot filter on _bucket (its filter grammar has no names starting with
         an underscore): Spark then lists the table's partitions and picks them itself --#}
    {%- do run_query('set spark.sql.hive.metastorePartitionPruningFallbackOnException=true') -%}
{%- endif -%}
{#-- null_safe_keys: joins on the touched keys compare with `=` when none of them has a NULL
     part (a NULL replica key then matches nothing either way); rewrites_all touches every
     replica key. late_possible: a new change may be older than a replica row (_run_scope),
     else the late-key check is left out --#}
{%- set plan = {
    'keys': keys, 'watermark': watermark, 'incremental': incremental, 'replica': replica,
    'rewrites_all': rewrites_all, 'rewrites_buckets': rewrites_buckets,
    'keeps_untouched_rows': keeps_untouched_rows, 'soft_deletes': soft_deletes,
    'columns': columns, 'metadata': metadata, 'touched_buckets': touched_buckets,
    'broadcast': not rewrites_all
        and scope.touched_keys <= var('oracle_cdc__broadcast_keys', 1000000) | int,
    'null_safe_keys': rewrites_all or scope.null_keys,
    'late_possible': scope.late_possible,
    'reads_needed_rows_only': incremental and not rewrites_all and not scope.late_possible
        and columns | rejectattr('in_staging') | list | length == 0,
} -%}
{%- if layout.chosen %}
/* oracle_cdc.buckets={{ layout.spec }} */
{%- endif %}

with

new_changes as (

    select * from {{ staging_relation }}
    {# -- a batch of deletes only leaves no row behind, so it is read again next run: harmless,
         a delete of an absent key changes nothing -- #}
    where {% if incremental %}_batch_id > {{ watermark }} and {% endif %}_batch_id <= {{ last_batch }}

),

{# -- reset markers (_op = 't') are no key versions; the latest one enters as latest_reset_marker -- #}
new_versions as (

    select * from new_changes where _op <> 't'

),

touched_keys as (

    select distinct {{ key_list }}, {{ bucket }} as _bucket
    from (
        select {{ key_list }} from new_versions
        {%- if rewrites_all %}
        union all
        select {{ key_list }} from {{ replica }} as replica where _op is not null
        {%- endif %}
    ) as keyed

),

{% if incremental -%}
{{ oracle_cdc._replica_inputs(staging_relation, plan) }}
{%- endif %}
{%- if resets.present %}

latest_reset_marker as (

    select * from {{ staging_relation }}
    where _op = 't' and _batch_id <= {{ last_batch }}
    order by _commit_scn desc, _scn desc, _redo_pos desc
    limit 1

),
{%- endif %}

versions as (

    {{ oracle_cdc._versions_select('new_versions', columns, metadata, 'staging', 1) }}
    {%- if incremental %}

    union all

    {{ oracle_cdc._versions_select('replica_rows', columns, metadata, 'replica', 0) }}

    union all

    {{ oracle_cdc._versions_select('earlier_changes', columns, metadata, 'staging', 2) }}
    {%- endif %}
    {%- if resets.present %}

    union all

    {{ oracle_cdc._reset_versions_select(columns, metadata, keys) }}
    {%- endif %}

),

positioned as (

    select
        *,
        _op in ('d', 't') as _is_delete,
        {{ oracle_cdc._position() }} as _position
    from versions

),

retired as (

    select
        *,
        {{ oracle_cdc._retired_flag(keys) }} as _retired
    from positioned

),

ranked as (

    select
        *,
        not _is_delete and not _retired as _is_live,
        {# -- the replica row ranks before a re-landed copy of the change it already holds -- #}
        row_number() over (
            {{ per_key }}
            order by _commit_scn desc, _scn desc, _redo_pos desc, _version_source, _batch_id
        ) as _version_rank
    from retired

),

based as (

    select
        *,
        {# -- the key's current version: its newest live (not retired) change; none: deleted -- #}
        min(case when _is_live then _version_rank end) over ({{ per_key }}) as _live_rank,
        min(case when _is_live and _is_full_image then _version_rank end) over ({{ per_key }}) as _live_base_rank,
        {# -- a deleted key (soft deletes) shows its last values: counted from its newest full image -- #}
        min(case when _is_full_image then _version_rank end) over ({{ per_key }}) as _base_rank
    from ranked

),

since_base as (

    {# -- a live key takes its values from live versions since the newest live full image (no
         full image at all, a table replicated from the log only: every live version counts and
         columns never carried stay NULL). A column the staging table no longer has is carried by
         the replica row only: the base does not cut it off, a delete or reset does -- #}
    select
        *,
        case
            when _live_rank is null then _base_rank is null or _version_rank <= _base_rank
            else _is_live and (_live_base_rank is null or _version_rank <= _live_base_rank)
        end as _since_base,
        _live_rank is null or _is_live as _since_cut
    from based

),

consolidated as (

    select
        {% for key in keys -%}
        {{ key }},
        {% endfor -%}
        {%- for column in columns if column.quoted not in keys %}
        {%- set counted = column.carried ~ (' and _since_base' if column.in_staging else ' and _since_cut') %}
        {{ oracle_cdc.latest_value(column.quoted, 'case when ' ~ counted ~ ' then _version_rank end') }} as {{ column.quoted }},
        {%- endfor %}
        {%- for name in metadata if adapter.quote(name) not in keys and name != '_batch_id' %}
        {{ oracle_cdc.latest_value(name, 'case when _since_cut then _version_rank end') }} as {{ name }},
        {%- endfor %}
        {# -- every batch folded into the row: the watermark moves past batches of older changes -- #}
        max(_batch_id) as _batch_id,
        min(_live_rank) is null as _is_deleted,
        count(*) as _versions
    from since_base
    group by {{ key_list }}

),

bucketed as (

    {% if incremental -%}
    {# -- the bucket the run rewrites for the key (touched_keys), not one computed again on the
         key's type after the union with the replica: a row written to a bucket the run did not
         touch would replace that partition with itself alone -- #}
    select {{ '/*+ BROADCAST(touched) */' if plan['broadcast'] else '' }}
        consolidated.*,
        case
            when touched._bucket is null
                then raise_error('oracle_cdc: a consolidated key is not among the touched keys')
            {%- if touched_buckets is not none %}
            {# -- only buckets whose untouched rows the query passes through may be written -- #}
            when touched._bucket not in ({{ touched_buckets }})
                then raise_error('oracle_cdc: a touched bucket was not named before the run')
            {%- endif %}
            else touched._bucket
        end as _bucket
    from consolidated
    left join touched_keys as touched
        on {{ oracle_cdc._key_match(keys, 'touched', 'consolidated', plan['null_safe_keys']) }}
    {%- else -%}
    select
        *,
        {{ bucket }} as _bucket
    from consolidated
    {%- endif %}

),

{{ oracle_cdc._changed_rows(plan) }}

final as (

    select * from changed
    {%- if keeps_untouched_rows %}

    union all

    {# -- the rest of each rewritten bucket, as it is -- #}
    select
        {{- oracle_cdc._replica_row_columns(columns, metadata, from_replica=true) }}
    from untouched_rows
    {%- endif %}

)

select * from final
{%- endmacro %}
