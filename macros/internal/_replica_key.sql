{#-- The key a replica model keys its rows by (its unique_key, lower case, comma-separated):
     what a full build records in the table property oracle_cdc.key (record_bucket_layout). --#}
{% macro _model_key() -%}
    {%- set key_columns = config.require('unique_key') -%}
    {{ return(([key_columns] if key_columns is string else key_columns) | map('lower') | join(',')) }}
{%- endmacro %}


{#-- Whether the current replica model keys its rows otherwise than its table's last full build
     did (oracle_cdc.key of the replica's table, or of a merge_on_read replica's base): a
     dictionary change (a LOB column added or dropped, the supplemental logging changed, a
     primary key added or dropped) changed the generated model's key (docs/keys.md). Its rows
     and buckets follow the old key, so the run must be a full build. False for a replica
     that records no key (none yet, or built before keys were recorded). --#}
{% macro _replica_key_changed() -%}
    {%- set relation = oracle_cdc._replica_table() -%}
    {%- set existing = load_relation(relation) -%}
    {%- if existing is none or existing.is_view -%}{{ return(false) }}{%- endif -%}
    {%- for row in run_query('show tblproperties ' ~ relation) if row[0] == 'oracle_cdc.key' -%}
        {{ return(row[1] != oracle_cdc._model_key()) }}
    {%- endfor -%}
    {{ return(false) }}
{%- endmacro %}
