{#
    bucket_expression(key_columns, bucket_count)

    The replica's partition value of a key: a stable hash of the (quoted) key columns modulo
    bucket_count. insert_overwrite rewrites a touched bucket whole, so more buckets mean less
    rewritten per run and more files; changing the count needs a --full-refresh.
#}
{% macro bucket_expression(key_columns, bucket_count) -%}
    {{ return(adapter.dispatch('bucket_expression', 'oracle_cdc')(key_columns, bucket_count)) }}
{%- endmacro %}


{% macro default__bucket_expression(key_columns, bucket_count) -%}
    {{ exceptions.raise_compiler_error(
        "oracle_cdc.bucket_expression has no implementation for adapter '" ~ adapter.type()
        ~ "'; define " ~ adapter.type() ~ "__bucket_expression in your project") }}
{%- endmacro %}


{% macro spark__bucket_expression(key_columns, bucket_count) -%}
    {# -- Spark's hash() is murmur3 with a fixed seed: the same on every run and engine version -- #}
    pmod(hash({{ key_columns | join(', ') }}), {{ bucket_count | int }})
{%- endmacro %}
