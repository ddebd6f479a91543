{#-- What an incremental run takes in, read before its query runs (two small queries): the
     replica's watermark, the highest new staging batch (the query reads exactly the batches
     above the one and up to the other, so a batch landed while it runs waits for the next
     run), the buckets the new versions touch (``bucket``: their _bucket expression) and about
     how many keys they touch. The query names the buckets as literals: Spark then reads only
     those partitions of the replica; a subquery would be pruned at run time only, and
     measured five times slower at 10M rows (docs/performance.md §2). --#}
{% macro _incremental_scope(staging_relation, replica_relation, keys, bucket) -%}
    {%- set watermark = run_query('select ' ~ oracle_cdc._watermark(replica_relation)).rows[0][0] -%}
    {%- set scope_query -%}
        select
            max(_batch_id),
            approx_count_distinct(case when _op <> 't' then struct({{ keys | join(', ') }}) end),
            array_join(array_sort(collect_set(case when _op <> 't' then {{ bucket }} end)), ',')
        from {{ staging_relation }}
        where _batch_id > {{ watermark }}
    {%- endset -%}
    {%- set row = run_query(scope_query).rows[0] -%}
    {{ return({
        'watermark': watermark,
        'last_batch': row[0],
        'touched_keys': row[1] or 0,
        'buckets': (row[2] or '').split(',') | reject('equalto', '') | list,
    }) }}
{%- endmacro %}
