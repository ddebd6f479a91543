{#
    replica_merge_sql(target, source, unique_key, soft_deletes=none)

    MERGE INTO of consolidated rows (the output of consolidate, deletes included with
    _deleted = true) for Delta / Iceberg / Hudi replicas:
      - keys matched null-safely (<=>);
      - a sequence guard: a target row is only replaced by a version at or after its own
        (_commit_scn, _scn, _redo_pos), so a stale source row cannot move a key backwards;
      - deletes remove the key, or update it to _deleted = true with soft deletes;
      - a deleted key that is not in the target is not inserted (hard deletes).
#}
{% macro replica_merge_sql(target, source, unique_key, soft_deletes=none) -%}
    {{ return(adapter.dispatch('replica_merge_sql', 'oracle_cdc')(target, source, unique_key, soft_deletes)) }}
{%- endmacro %}


{% macro default__replica_merge_sql(target, source, unique_key, soft_deletes) -%}
    {{ oracle_cdc._adapter_not_supported('replica_merge_sql') }}
{%- endmacro %}


{% macro spark__replica_merge_sql(target, source, unique_key, soft_deletes) -%}
{%- set quoted_keys = oracle_cdc._quoted_keys(unique_key) -%}
{%- set soft_deletes = oracle_cdc.soft_deletes_enabled() if soft_deletes is none else soft_deletes -%}
merge into {{ target }} as dest
using {{ source }} as src
on {{ oracle_cdc._key_match(quoted_keys, 'src', 'dest') }}
when matched and (
    src._commit_scn > dest._commit_scn
    or (src._commit_scn = dest._commit_scn and src._scn > dest._scn)
    or (src._commit_scn = dest._commit_scn and src._scn = dest._scn and src._redo_pos >= dest._redo_pos)
) {% if soft_deletes -%}
    then update set *
{%- else -%}
    and src._deleted then delete
when matched and not src._deleted and (
    src._commit_scn > dest._commit_scn
    or (src._commit_scn = dest._commit_scn and src._scn > dest._scn)
    or (src._commit_scn = dest._commit_scn and src._scn = dest._scn and src._redo_pos >= dest._redo_pos)
) then update set *
{%- endif %}
when not matched {% if not soft_deletes %}and not src._deleted {% endif %}then insert *
{%- endmacro %}
