{#
    bucket_layout(staging_relation, key_columns, columns, bucket_count=none, requested=none, number_key=false)

    How the replica's _bucket partition value is computed (docs/dbt.md, "Bucket layouts"), as
    a dict: spec, layout, and per layout count (hash) or kind and width (key_range); chosen is
    true when this run chose the layout (a full build), which then records it.

    - key_range (the default where the leading key column allows it): _bucket is the key's
      range of a fixed width, so keys near each other share a bucket and changes to recent keys
      rewrite few buckets. Kinds: number (numeric keys, and a STRING key with number_key or
      when key_range is asked for), date (DATE / TIMESTAMP keys, in seconds), rowid (the
      _row_id key: the ROWID's file and block address). The width is a power of two chosen at
      a full build from the key span and the row count, for about oracle_cdc__rows_per_bucket
      rows per bucket; new ranges appear as the table grows. Under auto, a leading column with
      too few values to fill buckets of that size (a composite key led by a code) gets hash
      buckets instead.
    - hash: pmod(hash(key), count), count chosen at a full build from the row count (or
      bucket_count / the var oracle_cdc__bucket_count when set).

    requested (else the model's meta oracle_cdc__bucket_layout, else the var
    oracle_cdc__bucket_layout): auto (default), key_range or hash. An incremental run uses the
    layout recorded in the replica's table property oracle_cdc.buckets, whatever is requested:
    a new layout takes effect at the next full build. Replicas built before layouts were
    recorded (an INT _bucket), and models without the post-hook record_bucket_layout, keep
    hash buckets of bucket_count / oracle_cdc__bucket_count / 16.
#}
{% macro bucket_layout(staging_relation, key_columns, columns, bucket_count=none, requested=none, number_key=false) -%}
    {{ return(adapter.dispatch('bucket_layout', 'oracle_cdc')(staging_relation, key_columns, columns, bucket_count, requested, number_key)) }}
{%- endmacro %}


{% macro default__bucket_layout(staging_relation, key_columns, columns, bucket_count, requested, number_key) -%}
    {{ oracle_cdc._adapter_not_supported('bucket_layout') }}
{%- endmacro %}


{% macro spark__bucket_layout(staging_relation, key_columns, columns, bucket_count, requested, number_key) -%}
    {%- set fixed_count = bucket_count or var('oracle_cdc__bucket_count', none) -%}
    {%- set legacy = oracle_cdc._parse_bucket_spec('hash:' ~ (fixed_count or 16), legacy=true) -%}
    {#-- relations are only readable at execution time; parsing needs no layout --#}
    {%- if not execute -%}{{ return(legacy) }}{%- endif -%}
    {%- if oracle_cdc._replica_is_incremental() -%}
        {{ return(oracle_cdc._recorded_bucket_layout(oracle_cdc._replica_table(), legacy)) }}
    {%- endif -%}
    {%- if 'record_bucket_layout' not in (config.get('post_hook') or []) | string -%}
        {{ return(legacy) }}
    {%- endif -%}
    {%- set asked = requested or oracle_cdc._model_meta('bucket_layout')
        or var('oracle_cdc__bucket_layout', 'auto') -%}
    {%- if asked not in ['auto', 'key_range', 'hash'] -%}
        {{ exceptions.raise_compiler_error(
            "oracle_cdc: bucket layout '" ~ asked ~ "' is not one of auto, key_range, hash") }}
    {%- endif -%}
    {%- set kind = oracle_cdc._key_range_kind(key_columns, columns, asked, number_key) -%}
    {%- set rows_per_bucket = var('oracle_cdc__rows_per_bucket', 100000) | int -%}
    {%- if rows_per_bucket < 1 -%}
        {{ exceptions.raise_compiler_error("oracle_cdc: oracle_cdc__rows_per_bucket must be a "
            ~ "whole number of 1 or more, not '" ~ var('oracle_cdc__rows_per_bucket') ~ "'") }}
    {%- endif -%}
    {%- set width = none if kind is none
        else oracle_cdc._key_range_width(staging_relation, key_columns, kind, rows_per_bucket, asked) -%}
    {%- if width is none -%}
        {%- set count = fixed_count or oracle_cdc._hash_bucket_count(staging_relation, key_columns, rows_per_bucket) -%}
        {%- set spec = 'hash:' ~ count -%}
    {%- else -%}
        {%- set spec = 'key_range:' ~ kind.kind ~ ':' ~ width -%}
    {%- endif -%}
    {%- set layout = oracle_cdc._parse_bucket_spec(spec) -%}
    {%- do layout.update({'chosen': true}) -%}
    {{ return(layout) }}
{%- endmacro %}
