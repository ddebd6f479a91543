{#
    drop_emptied_buckets(relation=this)

    Post-hook of insert_overwrite replicas. When every key of a touched bucket was deleted the
    model emits a marker row (_op NULL) for that bucket, because dynamic partition overwrite
    leaves a partition the query writes nothing to untouched. This drops the partitions that
    hold only markers, so the deleted rows go with them.
#}
{% macro drop_emptied_buckets(relation=none) -%}
    {{ return(adapter.dispatch('drop_emptied_buckets', 'oracle_cdc')(relation or this)) }}
{%- endmacro %}


{% macro default__drop_emptied_buckets(relation) -%}
    {{ oracle_cdc._adapter_not_supported('drop_emptied_buckets') }}
{%- endmacro %}


{% macro spark__drop_emptied_buckets(relation) -%}
    {# -- hooks are rendered at parse time too; only look at the table when running -- #}
    {#-- a merge_on_read run appends to its delta table and writes no marker --#}
    {%- if execute and (config.get('incremental_strategy') or 'insert_overwrite') != 'merge'
        and oracle_cdc.replica_layout() != 'merge_on_read' -%}
        {%- set emptied_query -%}
            select _bucket from {{ relation }}
            where _bucket in (select _bucket from {{ relation }} where _op is null)
            group by _bucket
            having count(_op) = 0
        {%- endset -%}
        {%- for row in run_query(emptied_query) -%}
            {%- do run_query('alter table ' ~ relation ~ ' drop if exists partition (_bucket = '
                ~ (row[0] | int) ~ ')') -%}
        {%- endfor -%}
    {%- endif -%}
{%- endmacro %}
