{#-- A merge_on_read replica's rows (the query of its view): per key the newest delta row
     (highest _batch_id: each run's rows fold every batch the key has, so a later run's row has
     a higher one), tombstones left out unless soft deletes keep them, plus the base rows of
     keys the delta does not have (marker rows of emptied buckets, _op NULL, are no rows; with
     hard deletes no row flagged _deleted is served either).
       columns      the base table's columns, in its order
       upto_batch   only delta rows of batches up to this one (a compaction: rows a run appends
                    meanwhile are left for the next)
       broadcast    the delta's keys are sent to every task: the base is read once, without a
                    shuffle (false past oracle_cdc__broadcast_keys delta rows) --#}
{% macro _merge_on_read_select(storage, keys, columns, soft_deletes, upto_batch=none, broadcast=true) -%}
{%- set delta_rows -%}
    {{ storage.delta }}{% if upto_batch is not none %} where _batch_id <= {{ upto_batch }}{% endif %}
{%- endset -%}
select {% for column in columns %}{{ adapter.quote(column.name | lower) }}{% if not loop.last %}, {% endif %}{% endfor %}
from (
    select
        *,
        row_number() over (
            partition by {{ keys | join(', ') }}
            order by {{ oracle_cdc._delta_newest_first() }}
        ) as _delta_rank
    from {{ delta_rows }}
) as latest
where _delta_rank = 1{% if not soft_deletes %} and not _deleted{% endif %}

union all

select {{ '/*+ BROADCAST(changed) */ ' if broadcast else '' }}{% for column in columns %}base.{{ adapter.quote(column.name | lower) }}{% if not loop.last %}, {% endif %}{% endfor %}
from {{ storage.base }} as base
left anti join (select distinct {{ keys | join(', ') }} from {{ delta_rows }}) as changed
    on {{ oracle_cdc._key_match(keys, 'changed', 'base') }}
where base._op is not null{% if not soft_deletes %} and not coalesce(base._deleted, false){% endif %}
{%- endmacro %}
