{#
    materialization replica

    The materialization of replica models (materialized='replica'). Its layout
    (replica_layout: the model's meta or the var oracle_cdc__layout) decides how rows are
    stored:

    - copy_on_write: dbt-spark's incremental materialization, unchanged (the model's table is
      created, then each run rewrites its touched buckets or merges); the base and delta
      tables a former merge_on_read build left (its base carries oracle_cdc.layout) are dropped.
      A table keyed otherwise than the model (_replica_key_changed) is dropped first, so that
      the model's full build (its query was compiled as one) creates it anew.
    - merge_on_read (docs/dbt.md, "Replica layouts"):
        full build   <model>__base is created from the query (bucketed like a copy-on-write
                     replica; table properties oracle_cdc.layout and oracle_cdc.soft_deletes),
                     <model>__delta empty with the same columns; a table under the model's
                     name (copy_on_write before) is dropped;
        incremental  the query's rows (the latest version of each touched key, deletes as
                     tombstones) are appended to the delta; new columns are added to both
                     tables first (on_schema_change; the delta before the base);
        then         when the delta holds more than oracle_cdc__compact_share (default 0.1) of
                     the base's rows, compact_replica folds it into the base; the model's name
                     becomes the view serving delta rows over base rows
                     (_merge_on_read_select), and the post-hooks run (record_bucket_layout
                     records the base's layout).
#}
{% materialization replica, adapter='spark' -%}
  {%- set storage = oracle_cdc._merge_on_read_relations(this) -%}
  {%- if oracle_cdc.replica_layout() != 'merge_on_read' -%}
    {#-- tables of a merge_on_read build (its base carries the layout), not any of that name --#}
    {%- set leftovers = oracle_cdc._merge_on_read_properties(storage.base).get('layout') == 'merge_on_read' -%}
    {%- if not should_full_refresh() and oracle_cdc._replica_key_changed() -%}
      {{ log("oracle_cdc: " ~ this ~ " was keyed otherwise than its model (by "
          ~ oracle_cdc._model_key() ~ " now): built anew", info=true) }}
      {%- do adapter.drop_relation(load_relation(this)) -%}
    {%- endif -%}
    {%- set result = materialization_incremental_spark() -%}
    {%- for leftover in [storage.base, storage.delta] if leftovers and load_relation(leftover) is not none -%}
      {%- do adapter.drop_relation(leftover) -%}
    {%- endfor -%}
    {{ return(result) }}
  {%- endif -%}

  {%- set existing = load_relation(this) -%}
  {%- set incremental = oracle_cdc._replica_is_incremental() -%}
  {%- set keys = oracle_cdc._quoted_keys(config.require('unique_key')) -%}
  {%- set soft_deletes = oracle_cdc.soft_deletes_enabled() -%}
  {%- set on_schema_change = incremental_validate_on_schema_change(config.get('on_schema_change'), default='ignore') -%}

  {{ run_hooks(pre_hooks) }}

  {%- if not incremental -%}
    {%- for stale in [storage.base, storage.delta] -%}
      {%- call statement('drop_' ~ stale.identifier) -%}drop table if exists {{ stale }}{%- endcall -%}
    {%- endfor -%}
    {%- call statement('main') -%}
      {{ create_table_as(False, storage.base, compiled_code) }}
    {%- endcall -%}
    {%- call statement('create_delta') -%}
      create table {{ storage.delta }} using parquet as select * from {{ storage.base }} where false
    {%- endcall -%}
    {%- call statement('record_layout') -%}
      alter table {{ storage.base }} set tblproperties (
        'oracle_cdc.layout' = 'merge_on_read', 'oracle_cdc.soft_deletes' = '{{ soft_deletes | string | lower }}')
    {%- endcall -%}
    {%- if existing is not none and not existing.is_view -%}
      {%- do adapter.drop_relation(existing) -%}
    {%- endif -%}
  {%- else -%}
    {%- set changes = this.incorporate(path={'identifier': this.identifier ~ '__dbt_tmp'}).include(database=false, schema=false) -%}
    {%- call statement('create_changes_view') -%}
      {{ create_table_as(True, changes, compiled_code) }}
    {%- endcall -%}
    {#-- the delta first: a column it has and the base lacks is not read (the view and the
         runs take the base's columns), the other way round every read would fail --#}
    {%- do process_schema_changes(on_schema_change, changes, storage.delta) -%}
    {%- do process_schema_changes(on_schema_change, changes, storage.base) -%}
    {%- set delta_columns = adapter.get_columns_in_relation(storage.delta) -%}
    {%- call statement('main') -%}
      insert into table {{ storage.delta }}
      select {% for column in delta_columns %}{{ adapter.quote(column.name | lower) }}{% if not loop.last %}, {% endif %}{% endfor %}
      from {{ changes }}
    {%- endcall -%}
  {%- endif -%}

  {#-- compacted before the view is written: its broadcast hint follows the delta's size --#}
  {%- if incremental -%}
    {%- do oracle_cdc._compact_when_due(this, config.require('unique_key'), soft_deletes) -%}
  {%- endif -%}

  {%- set base_columns = adapter.get_columns_in_relation(storage.base) -%}
  {%- call statement('create_view') -%}
    create or replace view {{ this }} as
    {{ oracle_cdc._merge_on_read_select(storage, keys, base_columns, soft_deletes,
        broadcast=oracle_cdc._broadcasts_delta(storage.delta)) }}
  {%- endcall -%}
  {% do apply_grants(this, config.get('grants'), should_revoke(existing, full_refresh_mode=not incremental)) %}
  {% do persist_docs(this, model) %}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [this]}) }}
{%- endmaterialization %}


{% materialization replica, default -%}
  {{ oracle_cdc._adapter_not_supported('materialization replica') }}
{%- endmaterialization %}
