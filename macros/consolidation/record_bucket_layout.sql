{#
    record_bucket_layout(relation=this)

    Post-hook of replica models: after a full build, records the bucket layout the build
    chose (bucket_layout) in the table property oracle_cdc.buckets, where the next
    incremental runs read it, and the key the buckets are computed from (the model's
    unique_key) in oracle_cdc.key: a model keyed otherwise is built anew
    (_replica_key_changed). The table: the replica's own, or a merge_on_read replica's
    base. The build's query names the layout in a comment (/* oracle_cdc.buckets=<spec> */);
    an incremental run's query has none: it records only the key of a replica built before
    keys were recorded.
#}
{% macro record_bucket_layout(relation=none) -%}
    {{ return(adapter.dispatch('record_bucket_layout', 'oracle_cdc')(relation or oracle_cdc._replica_table())) }}
{%- endmacro %}


{% macro default__record_bucket_layout(relation) -%}
    {{ oracle_cdc._adapter_not_supported('record_bucket_layout') }}
{%- endmacro %}


{% macro spark__record_bucket_layout(relation) -%}
    {#-- hooks are rendered at parse time too; only the executed build's query names a layout --#}
    {%- set marker = '/* oracle_cdc.buckets=' -%}
    {%- set query = (model.compiled_code or '') if execute else '' -%}
    {%- if marker in query -%}
        alter table {{ relation }} set tblproperties ('oracle_cdc.buckets' = '{{ query.split(marker)[1].split(' */')[0] }}',
            'oracle_cdc.key' = '{{ oracle_cdc._model_key() }}')
    {%- elif execute and oracle_cdc._recorded_replica_key(relation) is none -%}
        {#-- built before keys were recorded: its key from now on --#}
        alter table {{ relation }} set tblproperties ('oracle_cdc.key' = '{{ oracle_cdc._model_key() }}')
    {%- endif -%}
{%- endmacro %}
