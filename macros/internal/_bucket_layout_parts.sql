{#-- The parts of bucket_layout (macros/consolidation/bucket_layout.sql). --#}

{#-- A layout dict from its spec: 'hash:<count>' or 'key_range:<kind>:<width>'. legacy: the
     hash buckets of replicas that record no layout (an INT _bucket). --#}
{% macro _parse_bucket_spec(spec, legacy=false) -%}
    {%- set parts = spec.split(':') -%}
    {%- if parts[0] == 'hash' and parts | length == 2 -%}
        {{ return({'spec': spec, 'layout': 'hash', 'count': parts[1] | int, 'legacy': legacy, 'chosen': false}) }}
    {%- elif parts[0] == 'key_range' and parts | length == 3 and parts[1] in ['number', 'date', 'rowid'] -%}
        {{ return({'spec': spec, 'layout': 'key_range', 'kind': parts[1], 'width': parts[2],
            'legacy': false, 'chosen': false}) }}
    {%- endif -%}
    {{ exceptions.raise_compiler_error("oracle_cdc: unknown bucket layout '" ~ spec ~ "'") }}
{%- endmacro %}


{#-- The layout an existing replica was built with: its table property oracle_cdc.buckets. A
     replica without one and an INT _bucket predates recorded layouts (legacy hash buckets); a
     BIGINT _bucket without one lost its record (the run stopped between creating the table
     and its post-hook): its layout is unknown, so the run stops with the fix. --#}
{% macro _recorded_bucket_layout(relation, legacy) -%}
    {%- for row in run_query('show tblproperties ' ~ relation) if row[0] == 'oracle_cdc.buckets' -%}
        {{ return(oracle_cdc._parse_bucket_spec(row[1])) }}
    {%- endfor -%}
    {%- for column in adapter.get_columns_in_relation(relation) if column.name | lower == '_bucket' -%}
        {%- if column.data_type | lower != 'int' -%}
            {{ exceptions.raise_compiler_error(
                "oracle_cdc: " ~ relation ~ " has no recorded bucket layout (its last full build "
                ~ "stopped before the post-hook record_bucket_layout); rebuild it: "
                ~ "dbt run --full-refresh --select " ~ model.name) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(legacy) }}
{%- endmacro %}


{#-- The key_range kind of a replica's leading key column ({'kind', 'key', 'data_type'}), or
     none for hash buckets. asked: auto (numeric, date and timestamp keys, the ROWID, a STRING
     key with number_key: an unbounded NUMBER lands as STRING) or key_range (also any STRING
     key, read as a number). --#}
{% macro _key_range_kind(key_columns, columns, asked, number_key) -%}
    {%- if asked == 'hash' -%}{{ return(none) }}{%- endif -%}
    {%- set key = key_columns[0] | lower -%}
    {%- if key == '_row_id' -%}
        {{ return({'kind': 'rowid', 'key': adapter.quote(key), 'data_type': 'string'}) }}
    {%- endif -%}
    {%- set data_type = oracle_cdc._leading_key_type(key_columns, columns) -%}
    {%- if data_type.split('(')[0] in ['decimal', 'tinyint', 'smallint', 'int', 'bigint'] -%}
        {{ return({'kind': 'number', 'key': adapter.quote(key), 'data_type': data_type}) }}
    {%- elif data_type in ['date', 'timestamp', 'timestamp_ntz'] -%}
        {{ return({'kind': 'date', 'key': adapter.quote(key), 'data_type': data_type}) }}
    {%- elif data_type == 'string' and (number_key or asked == 'key_range') -%}
        {{ return({'kind': 'number', 'key': adapter.quote(key), 'data_type': data_type}) }}
    {%- elif asked == 'key_range' -%}
        {{ exceptions.raise_compiler_error("oracle_cdc: key_range buckets need a numeric, date, "
            ~ "timestamp or ROWID leading key; " ~ key ~ " is " ~ data_type ~ " (use hash)") }}
    {%- endif -%}
    {{ return(none) }}
{%- endmacro %}


{#-- The Spark type of the leading key column (lower case; '' for the ROWID, which is no source
     column). --#}
{% macro _leading_key_type(key_columns, columns) -%}
    {%- set leading = key_columns[0] | lower -%}
    {{ return((columns | selectattr('name', 'equalto', leading) | map(attribute='data_type') | first or '') | lower) }}
{%- endmacro %}


{#-- Hash buckets for a full build: about rows_per_bucket keys per bucket, a power of two
     from 1 to 1024; 16 for an empty staging table (nothing to go by). --#}
{% macro _hash_bucket_count(staging_relation, key_columns, rows_per_bucket) -%}
    {%- set keys = oracle_cdc._quoted_keys(key_columns) -%}
    {%- set count_query -%}
        select approx_count_distinct(struct({{ keys | join(', ') }}))
        from {{ staging_relation }} where _op <> 't'
    {%- endset -%}
    {%- set keys_seen = run_query(count_query).rows[0][0] or 0 -%}
    {%- if keys_seen == 0 -%}{{ return(16) }}{%- endif -%}
    {%- set count = namespace(value=1) -%}
    {%- for _ in range(10) if count.value * rows_per_bucket < keys_seen -%}
        {%- set count.value = count.value * 2 -%}
    {%- endfor -%}
    {{ return(count.value) }}
{%- endmacro %}


{#-- The width of key_range buckets for a full build, as an SQL number literal: the power of two
     just above the share of the leading key's span that holds rows_per_bucket keys (rowid:
     the blocks that hold rows_per_bucket rows). Integer for number keys without fractions,
     dates and ROWIDs; at least 2^-20 otherwise. A staging table with fewer than two key
     positions (nothing to measure a span on) goes by a dense sequence (number), a day (date)
     or 64 rows per block (rowid). none (asked: auto) when the leading column has fewer values
     than the buckets its keys need: ranges of it could not be cut finer than one value. --#}
{% macro _key_range_width(staging_relation, key_columns, kind, rows_per_bucket, asked) -%}
    {%- set position = oracle_cdc.key_range_position(kind.key, kind.kind, kind.data_type) -%}
    {%- set keys = 'approx_count_distinct(struct(' ~ oracle_cdc._quoted_keys(key_columns) | join(', ') ~ '))' -%}
    {%- set spots = 'approx_count_distinct(' ~ position ~ ')' -%}
    {%- if kind.kind == 'rowid' -%}
        {%- set span = 'cast(' ~ spots ~ ' as double)' -%}
        {%- set empty = rows_per_bucket / 64 -%}
    {%- else -%}
        {%- set span = 'cast(max(' ~ position ~ ') as double) - cast(min(' ~ position ~ ') as double)' -%}
        {%- set empty = 86400 if kind.kind == 'date' else rows_per_bucket -%}
    {%- endif -%}
    {%- set width_query -%}
        select
            case when {{ spots }} > 1 then {{ rows_per_bucket }}D * ({{ span }}) / {{ keys }} end,
            count(*),
            count({{ position }}),
            {{ spots }},
            {{ keys }}
        from {{ staging_relation }} where _op <> 't'
    {%- endset -%}
    {%- set result = run_query(width_query).rows[0] -%}
    {%- if result[1] > 0 and result[2] == 0 -%}
        {{ exceptions.raise_compiler_error("oracle_cdc: key_range buckets read " ~ kind.key
            ~ " as a " ~ kind.kind ~ ", but none of its values is one (use hash)") }}
    {%- endif -%}
    {%- if asked == 'auto' and kind.kind != 'rowid' and 2 * result[3] * rows_per_bucket < result[4] -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set raw = empty if result[0] is none else result[0] -%}
    {%- set integral = kind.kind != 'number' or kind.data_type.split('(')[0] in ['tinyint', 'smallint', 'int', 'bigint'] or kind.data_type.endswith(',0)') -%}
    {%- set exponent = namespace(value=0) -%}
    {%- for _ in range(128) if 2 ** exponent.value < raw -%}
        {%- set exponent.value = exponent.value + 1 -%}
    {%- endfor -%}
    {%- for _ in range(20) if not integral and exponent.value > -20 and 2 ** (exponent.value - 1) >= raw -%}
        {%- set exponent.value = exponent.value - 1 -%}
    {%- endfor -%}
    {{ return(oracle_cdc._power_of_two_literal(exponent.value)) }}
{%- endmacro %}


{#-- 2^exponent as an exact SQL number literal (0.125 for -3). --#}
{% macro _power_of_two_literal(exponent) -%}
    {%- if exponent >= 0 -%}{{ return((2 ** exponent) | string) }}{%- endif -%}
    {%- set digits = (5 ** (0 - exponent)) | string -%}
    {{ return('0.' ~ '0' * (0 - exponent - digits | length) ~ digits) }}
{%- endmacro %}
