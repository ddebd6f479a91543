{#-- Table reset markers (_op = 't', docs/dbt.md "Table resets") of a staging table, read when the
     model runs: present (the staging table holds one: the query retires versions before the
     latest) and unconsolidated (one landed in a batch above the replica's watermark: the run
     rewrites every key of the replica). A table that never had a marker costs one query on the
     staging table's _op column and its query is unchanged. --#}
{% macro _reset_marker_state(staging_relation, replica_relation) -%}
    {%- set state = {'present': false, 'unconsolidated': false} -%}
    {#-- relations are only readable at execution time --#}
    {%- if not execute -%}{{ return(state) }}{%- endif -%}
    {%- set markers_query -%}
        select max(_batch_id) from {{ staging_relation }} where _op = 't'
    {%- endset -%}
    {%- set newest_marker_batch = run_query(markers_query).rows[0][0] -%}
    {%- if newest_marker_batch is none -%}{{ return(state) }}{%- endif -%}
    {%- do state.update({'present': true, 'unconsolidated': true}) -%}
    {%- if replica_relation is not none -%}
        {%- set watermark = run_query('select ' ~ oracle_cdc._watermark(replica_relation)).rows[0][0] -%}
        {%- do state.update({'unconsolidated': newest_marker_batch > watermark}) -%}
    {%- endif -%}
    {{ return(state) }}
{%- endmacro %}
