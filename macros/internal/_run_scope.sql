{#-- What a replica run takes in, read before its query runs, so that every part of the query
     sees the same batches (a batch landed meanwhile waits for the next run):
       watermark      the replica's highest _batch_id (-1 for a full build): rows above it are new
       last_batch     the staging table's highest _batch_id: the query reads nothing above it
       newest_marker  the highest batch holding a table reset marker (_op = 't',
                      docs/dbt.md "Table resets"), none when the table never had one
       touched_keys   (incremental) about how many keys the new rows change
       buckets        (incremental) the _bucket values of those keys (``bucket``: the expression)
       null_keys      whether one of those keys has a NULL part (true when not read): without
                      one, the joins on the touched keys compare with `=` (_key_match)
       late_possible  whether a new change can be older than a replica row (true when not
                      read): false when the oldest new _commit_scn is above the replica's
                      newest, and the run then skips the late-key check (a second read of the
                      touched keys' replica rows, about 40% of the query at 10M rows). A
                      NULL _commit_scn counts as -1 on both sides (it ranks first in a
                      position), so a new change without one keeps the check
     The query names the touched buckets as literals: Spark then reads only those partitions of
     the replica; a subquery was pruned at run time only and measured five times slower at 10M
     rows (docs/performance.md §2). replica_relations: the tables holding the replica's rows
     (none for a full build; a merge_on_read replica's base and delta, tombstones included);
     watermark_floor: a watermark kept elsewhere (a merge_on_read replica's last compaction).
     Costs one query on the staging table's _op and _batch_id columns, one on the replica's
     _batch_id and _commit_scn and one on the new rows. --#}
{% macro _run_scope(staging_relation, replica_relations, keys, bucket, watermark_floor=-1) -%}
    {%- set scope = {'watermark': -1, 'last_batch': none, 'newest_marker': none, 'touched_keys': 0, 'buckets': [], 'null_keys': true, 'late_possible': true} -%}
    {#-- relations are only readable at execution time --#}
    {%- if not execute -%}{{ return(scope) }}{%- endif -%}
    {%- set newest_commit_scn = none -%}
    {%- if replica_relations is not none -%}
        {%- set replica_columns = [] -%}
        {%- for relation in replica_relations -%}
            {%- do replica_columns.append('select _batch_id, _commit_scn from ' ~ relation) -%}
        {%- endfor -%}
        {#-- every row counts, tombstones too: a higher newest _commit_scn only keeps the
             late-key check; a NULL counts as -1, so NULLs on both sides keep it too --#}
        {%- set replica_query -%}
            select greatest({{ watermark_floor }}, coalesce(max(_batch_id), -1)), max(coalesce(_commit_scn, -1))
            from ({{ replica_columns | join(' union all ') }}) as replica
        {%- endset -%}
        {%- set replica = run_query(replica_query).rows[0] -%}
        {%- do scope.update({'watermark': replica[0]}) -%}
        {%- set newest_commit_scn = replica[1] -%}
    {%- endif -%}
    {%- set batches_query -%}
        select max(_batch_id), max(case when _op = 't' then _batch_id end) from {{ staging_relation }}
    {%- endset -%}
    {%- set batches = run_query(batches_query).rows[0] -%}
    {%- do scope.update({'last_batch': batches[0], 'newest_marker': batches[1]}) -%}
    {%- if replica_relations is not none and batches[0] is not none and batches[0] > scope.watermark -%}
        {%- set touched_query -%}
            select
                approx_count_distinct(struct({{ keys | join(', ') }})),
                array_join(array_sort(collect_set({{ bucket }})), ','),
                coalesce(bool_or({% for key in keys %}{{ key }} is null{% if not loop.last %} or {% endif %}{% endfor %}), false),
                min(coalesce(_commit_scn, -1))
            from {{ staging_relation }}
            where _batch_id > {{ scope.watermark }} and _batch_id <= {{ batches[0] }} and _op <> 't'
        {%- endset -%}
        {%- set touched = run_query(touched_query).rows[0] -%}
        {%- do scope.update({
            'touched_keys': touched[0] or 0,
            'buckets': (touched[1] or '').split(',') | reject('equalto', '') | list,
            'null_keys': touched[2],
            'late_possible': newest_commit_scn is not none and touched[3] is not none
                and touched[3] <= newest_commit_scn,
        }) -%}
    {%- endif -%}
    {{ return(scope) }}
{%- endmacro %}
