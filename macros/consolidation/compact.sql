{#
    compact(select=none)

    Operation (`dbt run-operation oracle_cdc.compact`, or `oracdc compact`): folds the delta
    table of every merge_on_read replica (select: a list of model names, default all) into its
    base table, then empties the delta (docs/dbt.md, "Replica layouts"). Replica runs compact
    by themselves once the delta holds more than oracle_cdc__compact_share of the base's rows.

    compact_replica(relation, key_columns, soft_deletes=false)

    One replica (relation: the model's view). Its cost is that of a copy-on-write run of every
    change since the last compaction: the base's buckets the delta's keys are in are rewritten
    (insert overwrite of those _bucket partitions) with the delta's newest rows. A bucket left
    without rows gets a marker row and is dropped after the insert. A crash before the delta is
    emptied leaves the same rows visible (the delta's rows win over the base's equal ones), and
    the next compaction finishes the work. Only delta rows up to the highest batch seen at the
    start are folded in, and the delta is kept when a run appended to it meanwhile; runs and
    compactions of one replica are still meant to take turns (oracdc compact holds the data
    directory's lock, which oracdc sync holds too).
#}
{% macro compact(select=none) -%}
    {{ return(adapter.dispatch('compact', 'oracle_cdc')(select)) }}
{%- endmacro %}


{% macro default__compact(select) -%}
    {{ oracle_cdc._adapter_not_supported('compact') }}
{%- endmacro %}


{% macro spark__compact(select) -%}
    {%- set chosen = [select] if select is string else (select or []) -%}
    {%- set compacted = [] -%}
    {%- for node in graph.nodes.values()
        if node.resource_type == 'model' and node.config.materialized == 'replica'
        and (not chosen or node.name in chosen) -%}
        {%- set meta = node.config.meta or {} -%}
        {%- set layout = meta.get('oracle_cdc__layout', meta.get('oracle_cdc_layout'))
            or var('oracle_cdc__layout', 'copy_on_write') -%}
        {%- if layout == 'merge_on_read' -%}
            {%- set soft = meta.get('oracle_cdc__soft_deletes', meta.get('oracle_cdc_soft_deletes')) -%}
            {%- set soft = var('oracle_cdc__soft_deletes', false) if soft is none else soft -%}
            {%- set relation = api.Relation.create(database=node.database, schema=node.schema,
                identifier=node.alias, type='view') -%}
            {%- if load_relation(oracle_cdc._merge_on_read_relations(relation).delta) is none -%}
                {{ log('oracle_cdc: ' ~ node.name ~ ' is not built yet: nothing to compact', info=true) }}
            {%- else -%}
                {%- do oracle_cdc.compact_replica(relation, node.config.unique_key,
                    soft in [true, 'true', 'True', 1, '1']) -%}
            {%- endif -%}
            {%- do compacted.append(node.name) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- for name in chosen if name not in compacted -%}
        {{ exceptions.raise_compiler_error("oracle_cdc: " ~ name ~ " is no merge_on_read replica "
            ~ "model (materialized='replica' with oracle_cdc__layout merge_on_read)") }}
    {%- endfor -%}
    {{ log('oracle_cdc: compaction done for ' ~ (compacted | length) ~ ' merge_on_read replica(s)', info=true) }}
{%- endmacro %}


{% macro compact_replica(relation, key_columns, soft_deletes=false) -%}
    {{ return(adapter.dispatch('compact_replica', 'oracle_cdc')(relation, key_columns, soft_deletes)) }}
{%- endmacro %}


{% macro default__compact_replica(relation, key_columns, soft_deletes) -%}
    {{ oracle_cdc._adapter_not_supported('compact_replica') }}
{%- endmacro %}


{% macro spark__compact_replica(relation, key_columns, soft_deletes) -%}
    {%- set storage = oracle_cdc._merge_on_read_relations(relation) -%}
    {%- set keys = oracle_cdc._quoted_keys(key_columns) -%}
    {%- set started = modules.datetime.datetime.now() -%}
    {%- set scope_query -%}
        select
            count(*),
            array_join(array_sort(collect_set(_bucket)), ','),
            max(_batch_id),
            {#-- buckets whose newest delta rows are all tombstones: they may be left empty --#}
            (select array_join(array_sort(collect_list(_bucket)), ',') from (
                select _bucket from (
                    select _bucket, _deleted, row_number() over (partition by {{ keys | join(', ') }}
                        order by {{ oracle_cdc._delta_newest_first() }}) as _delta_rank
                    from {{ storage.delta }}
                ) as ranked
                where _delta_rank = 1
                group by _bucket
                having count_if(not _deleted) = 0
            ) as all_tombstones)
        from {{ storage.delta }}
    {%- endset -%}
    {%- set scope = run_query(scope_query).rows[0] -%}
    {%- if (scope[0] or 0) == 0 -%}{{ return(0) }}{%- endif -%}
    {%- set buckets = scope[1] -%}
    {%- set upto_batch = scope[2] -%}
    {#-- the full build recorded whether the replica keeps deleted keys: a compaction called
         with other vars keeps to it (switching soft deletes takes a full refresh) --#}
    {%- set recorded = oracle_cdc._merge_on_read_properties(storage.base) -%}
    {%- set soft_deletes = recorded.get('soft_deletes', soft_deletes | string | lower) == 'true' -%}
    {%- set emptied = [] if soft_deletes else (scope[3] or '').split(',') | reject('equalto', '') | list -%}
    {%- set columns = adapter.get_columns_in_relation(storage.base) -%}
    {%- do run_query('set spark.sql.sources.partitionOverwriteMode = DYNAMIC') -%}
    {%- if var('oracle_cdc__partition_pruning_fallback', true) -%}
        {%- do run_query('set spark.sql.hive.metastorePartitionPruningFallbackOnException=true') -%}
    {%- endif -%}
    {%- set compaction -%}
        insert overwrite table {{ storage.base }} partition (_bucket)
        select * from (
            {{ oracle_cdc._merge_on_read_select(storage, keys, columns, soft_deletes, upto_batch,
                scope[0] <= var('oracle_cdc__broadcast_keys', 1000000) | int) }}
        ) as merged
        where merged._bucket in ({{ buckets }})
        {%- for bucket in emptied %}
        union all
        select {% for column in columns %}{{ bucket if column.name | lower == '_bucket' else 'cast(null as ' ~ column.data_type ~ ')' }}{% if not loop.last %}, {% endif %}{% endfor %}
        {%- endfor %}
    {%- endset -%}
    {%- do run_query(compaction) -%}
    {%- if emptied -%}
        {%- set left_empty -%}
            select _bucket from {{ storage.base }} where _bucket in ({{ emptied | join(', ') }})
            group by _bucket having count(_op) = 0
        {%- endset -%}
        {%- for row in run_query(left_empty) -%}
            {%- do run_query('alter table ' ~ storage.base ~ ' drop if exists partition (_bucket = ' ~ (row[0] | int) ~ ')') -%}
        {%- endfor -%}
    {%- endif -%}
    {#-- the watermark the delta's rows held (tombstones too) stays with the base --#}
    {%- set watermark = [upto_batch, recorded.get('watermark', -1) | int] | max -%}
    {%- do run_query('alter table ' ~ storage.base ~ " set tblproperties ('oracle_cdc.watermark' = '"
        ~ watermark ~ "')") -%}
    {#-- a run that appended meanwhile (its rows are not in the base): the delta stays, and its
         rows keep winning over the base's until the next compaction --#}
    {%- set after = run_query('select count(*), max(_batch_id) from ' ~ storage.delta).rows[0] -%}
    {%- if after[0] != scope[0] or after[1] != upto_batch -%}
        {{ log('oracle_cdc: ' ~ relation ~ ': rows were appended to the delta during its compaction; '
            ~ 'it is kept and compacted next time', info=true) }}
        {{ return(0) }}
    {%- endif -%}
    {%- do run_query('truncate table ' ~ storage.delta) -%}
    {{ log('oracle_cdc: compacted ' ~ relation ~ ': ' ~ scope[0] ~ ' delta rows into '
        ~ (buckets.split(',') | length) ~ ' buckets in '
        ~ '%.1f' | format((modules.datetime.datetime.now() - started).total_seconds()) ~ ' s', info=true) }}
    {{ return(scope[0]) }}
{%- endmacro %}


{#-- After a merge_on_read run: compact_replica when the delta holds more rows than
     oracle_cdc__compact_share (default 0.1; 0 or less: never) of the base's. --#}
{% macro _compact_when_due(relation, key_columns, soft_deletes) -%}
    {%- set share = var('oracle_cdc__compact_share', 0.1) | float -%}
    {%- if share <= 0 -%}{{ return(none) }}{%- endif -%}
    {%- set storage = oracle_cdc._merge_on_read_relations(relation) -%}
    {%- set counts = run_query('select (select count(*) from ' ~ storage.delta ~ '), (select count(*) from '
        ~ storage.base ~ ')').rows[0] -%}
    {%- if (counts[0] | int) > share * (counts[1] | int) -%}
        {%- do oracle_cdc.compact_replica(relation, key_columns, soft_deletes) -%}
    {%- endif -%}
{%- endmacro %}
