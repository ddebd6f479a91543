{#-- The two tables of a merge_on_read replica (relation: the model's view): base, the
     bucketed rows as of the last compaction, and delta, the rows appended since. --#}
{% macro _merge_on_read_relations(relation) -%}
    {{ return({
        'base': relation.incorporate(path={'identifier': relation.identifier ~ '__base'}, type='table'),
        'delta': relation.incorporate(path={'identifier': relation.identifier ~ '__delta'}, type='table'),
    }) }}
{%- endmacro %}


{#-- The table holding the current replica model's buckets: its base table (merge_on_read) or
     the model's own table (copy_on_write). --#}
{% macro _replica_table() -%}
    {%- if oracle_cdc.replica_layout() == 'merge_on_read' -%}
        {{ return(oracle_cdc._merge_on_read_relations(this).base) }}
    {%- endif -%}
    {{ return(this) }}
{%- endmacro %}


{#-- Whether the current replica model's run is incremental (else a full build): not a full
     refresh, the model's tables exist as its layout has them (merge_on_read: base and delta
     tables and no table under the model's name, which a switch from copy_on_write leaves;
     copy_on_write: a table under the model's name), and they are keyed as the model is
     (_replica_key_changed). --#}
{% macro _replica_is_incremental() -%}
    {%- if not execute or should_full_refresh() -%}{{ return(false) }}{%- endif -%}
    {%- if config.get('materialized') != 'replica' -%}{{ return(is_incremental()) }}{%- endif -%}
    {%- if oracle_cdc._replica_key_changed() -%}{{ return(false) }}{%- endif -%}
    {%- set existing = load_relation(this) -%}
    {%- if oracle_cdc.replica_layout() == 'merge_on_read' -%}
        {%- set storage = oracle_cdc._merge_on_read_relations(this) -%}
        {{ return((existing is none or existing.is_view)
            and load_relation(storage.base) is not none
            and load_relation(storage.delta) is not none) }}
    {%- endif -%}
    {{ return(existing is not none and existing.is_table) }}
{%- endmacro %}


{#-- The highest _batch_id a merge_on_read replica's last compaction folded in (table property
     oracle_cdc.watermark of its base; -1 when none): its tombstones leave the delta with the
     compaction, and the batches they came from must not be read again. --#}
{% macro _compacted_watermark(base_relation) -%}
    {{ return(oracle_cdc._merge_on_read_properties(base_relation).get('watermark', -1) | int) }}
{%- endmacro %}


{#-- The oracle_cdc.* table properties of a merge_on_read replica's base (full build: layout
     and soft_deletes; compaction: watermark), as a dict without the prefix; {} when the table
     has none or does not exist. --#}
{% macro _merge_on_read_properties(base_relation) -%}
    {%- set found = {} -%}
    {%- if load_relation(base_relation) is none -%}{{ return(found) }}{%- endif -%}
    {%- for row in run_query('show tblproperties ' ~ base_relation) if row[0].startswith('oracle_cdc.') -%}
        {%- do found.update({row[0][11:]: row[1]}) -%}
    {%- endfor -%}
    {{ return(found) }}
{%- endmacro %}


{#-- Whether delta's keys are few enough to broadcast (oracle_cdc__broadcast_keys). --#}
{% macro _broadcasts_delta(delta_relation) -%}
    {%- set rows = run_query('select count(*) from ' ~ delta_relation).rows[0][0] -%}
    {{ return(rows <= var('oracle_cdc__broadcast_keys', 1000000) | int) }}
{%- endmacro %}


{#-- The order of a key's delta rows, newest first (each run's row folds every batch the key
     has, so a later run's row has a higher _batch_id). --#}
{% macro _delta_newest_first() -%}
    _batch_id desc, _commit_scn desc, _scn desc, _redo_pos desc
{%- endmacro %}


{#-- How an incremental run of the current replica model reads the replica (none for a full
     build): table (its columns and recorded layout), rows (a relation or a subquery: the rows
     a merge_on_read view serves, base and delta), watermark_relations (the tables whose
     highest _batch_id is folded in, tombstones included) and watermark_floor (a merge_on_read
     replica's last compaction). --#}
{% macro _replica_read(keys, soft_deletes) -%}
    {%- if not oracle_cdc._replica_is_incremental() -%}{{ return(none) }}{%- endif -%}
    {%- if oracle_cdc.replica_layout() != 'merge_on_read' -%}
        {{ return({'table': this, 'rows': this, 'watermark_relations': [this], 'watermark_floor': -1}) }}
    {%- endif -%}
    {%- set storage = oracle_cdc._merge_on_read_relations(this) -%}
    {%- set rows = oracle_cdc._merge_on_read_select(storage, keys, adapter.get_columns_in_relation(storage.base),
        soft_deletes, broadcast=oracle_cdc._broadcasts_delta(storage.delta)) -%}
    {{ return({
        'table': storage.base,
        'rows': '(\n' ~ rows ~ '\n)',
        'watermark_relations': [storage.base, storage.delta],
        'watermark_floor': oracle_cdc._compacted_watermark(storage.base),
    }) }}
{%- endmacro %}
