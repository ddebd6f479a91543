{#-- The key a replica model keys its rows by (its unique_key, lower case, comma-separated):
     what record_bucket_layout records in the table property oracle_cdc.key. --#}
{% macro _model_key() -%}
    {%- set key_columns = config.require('unique_key') -%}
    {{ return(([key_columns] if key_columns is string else key_columns) | map('lower') | join(',')) }}
{%- endmacro %}


{#-- The key a replica's table records (oracle_cdc.key), or none: no table (or a view), or
     one built before keys were recorded. --#}
{% macro _recorded_replica_key(relation) -%}
    {%- set existing = load_relation(relation) -%}
    {%- if existing is none or existing.is_view -%}{{ return(none) }}{%- endif -%}
    {%- for row in run_query('show tblproperties ' ~ relation) if row[0] == 'oracle_cdc.key' -%}
        {{ return(row[1]) }}
    {%- endfor -%}
    {{ return(none) }}
{%- endmacro %}


{#-- Whether the current replica model keys its rows otherwise than its table (the replica's,
     or a merge_on_read replica's base) records: a dictionary change (a LOB column added or
     dropped, the supplemental logging or the primary key changed) changed the generated
     model's key (docs/keys.md, "When the key changes"). Its rows and buckets follow the old
     key, so the run must be a full build. False when the table records no key. --#}
{% macro _replica_key_changed() -%}
    {%- set recorded = oracle_cdc._recorded_replica_key(oracle_cdc._replica_table()) -%}
    {{ return(recorded is not none and recorded != oracle_cdc._model_key()) }}
{%- endmacro %}
