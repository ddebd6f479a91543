{#
    staging_from_seed(seed, columns)

    A seed's rows as the extractor lands them in a staging table: the staging contract's
    metadata columns with their types (extractor/staging_contract.py), then the Oracle
    columns, `columns` mapping each name to its Spark type. `_present` is written in the
    seed as names joined by `|` (empty: a full image). Only the batches of the current
    phase are visible (var `phase`), as if the later ones had not landed yet. An empty cell
    is NULL (dbt-spark loads it as the text 'None': seed_value).
#}
{% macro staging_from_seed(seed, columns) -%}
select
    cast(_op as string) as _op,
    cast(_scn as bigint) as _scn,
    cast(_commit_scn as bigint) as _commit_scn,
    cast(_redo_pos as decimal(38, 0)) as _redo_pos,
    cast(null as string) as _rs_id,
    cast(null as bigint) as _ssn,
    cast(null as string) as _xid,
    cast(_row_id as string) as _row_id,
    timestamp_seconds(cast(_commit_scn as bigint)) as _commit_ts,
    split({{ seed_value('_present') }}, '[|]') as _present,
    cast(_batch_id as bigint) as _batch_id,
    timestamp_seconds(cast(_batch_id as bigint)) as _extracted_at,
    {%- for name, spark_type in columns.items() %}
    cast({{ seed_value(name) }} as {{ spark_type }}) as {{ name }}{{ "," if not loop.last }}
    {%- endfor %}
from {{ seed }}
where cast(_batch_id as bigint) <= {{ var('phase') }}
{%- endmacro %}


{#-- A seed cell as text, NULL when it was empty (dbt-spark writes an empty cell as 'None'). --#}
{% macro seed_value(column) -%}
    nullif(nullif(cast({{ column }} as string), 'None'), '')
{%- endmacro %}
