{#
    key_range_bucket_expression(key, kind, width, data_type)

    The _bucket of a key under key_range buckets (bucket_layout): floor(position / width) as a
    BIGINT, where the position is the key's place in key order (key_range_position). Keys
    without a position (a NULL, a text that is no number, beyond 28 integer digits) share
    bucket -1. The position depends on the key's value, not its Spark type, so a key column
    whose numeric type changes keeps its buckets.
#}
{% macro key_range_bucket_expression(key, kind, width, data_type) -%}
    {{ return(adapter.dispatch('key_range_bucket_expression', 'oracle_cdc')(key, kind, width, data_type)) }}
{%- endmacro %}


{% macro default__key_range_bucket_expression(key, kind, width, data_type) -%}
    {{ oracle_cdc._adapter_not_supported('key_range_bucket_expression') }}
{%- endmacro %}


{% macro spark__key_range_bucket_expression(key, kind, width, data_type) -%}
    coalesce(try_cast(floor({{ oracle_cdc.key_range_position(key, kind, data_type) }} / {{ width }}) as bigint), -1)
{%- endmacro %}


{#
    key_range_position(key, kind, data_type)

    A key's place in key order, as a number: number: the value (DECIMAL(38,10); a STRING is
    read as a number); date: seconds since 1970-01-01 (DATE, TIMESTAMP_NTZ and TIMESTAMP the
    instant; a STRING read as TIMESTAMP_NTZ); rowid: the block address of an Oracle ROWID
    (OOOOOOFFFBBBBBBRRR, base 64: relative file number * 2^36 + block number).
#}
{% macro key_range_position(key, kind, data_type) -%}
    {{ return(adapter.dispatch('key_range_position', 'oracle_cdc')(key, kind, data_type)) }}
{%- endmacro %}


{% macro default__key_range_position(key, kind, data_type) -%}
    {{ oracle_cdc._adapter_not_supported('key_range_position') }}
{%- endmacro %}


{% macro spark__key_range_position(key, kind, data_type) -%}
    {%- set alphabet = "'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'" -%}
    {%- set rowid_digits = [] -%}
    {%- for place in range(7, 16) -%}
        {%- do rowid_digits.append('(instr(' ~ alphabet ~ ', substr(' ~ key ~ ', ' ~ place ~ ', 1)) - 1) * '
            ~ (2 ** (6 * (15 - place))) ~ 'L') -%}
    {%- endfor -%}
    {%- set seconds = {
        'timestamp': 'unix_seconds(' ~ key ~ ')',
        'date': 'cast(unix_date(' ~ key ~ ') as bigint) * 86400',
    } -%}
    {%- set positions = {
        'number': 'try_cast(' ~ key ~ ' as decimal(38, 10))',
        'date': seconds.get(data_type | lower, "timestampdiff(SECOND, timestamp_ntz'1970-01-01 00:00:00', try_cast("
            ~ key ~ ' as timestamp_ntz))'),
        'rowid': '(' ~ rowid_digits | join(' + ') ~ ')',
    } -%}
    {%- if kind not in positions -%}
        {{ exceptions.raise_compiler_error("oracle_cdc: unknown key_range kind '" ~ kind ~ "'") }}
    {%- endif -%}
    {{ return(positions[kind]) }}
{%- endmacro %}
