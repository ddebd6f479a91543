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
    {{ oracle_cdc._adapter_not_supported('bucket_expression') }}
{%- endmacro %}


{% macro spark__bucket_expression(key_columns, bucket_count) -%}
    {# -- Spark's hash() is murmur3 with a fixed seed: the same on every run and engine version.
         It hashes a value by its type (a DECIMAL(9,0) as a long, a DECIMAL(19,0) as bytes), so
         a numeric key is hashed by its value instead: an integer of up to 18 digits as a
         BIGINT (the hash a DECIMAL(p <= 18, 0) always had), any other number as its decimal
         text without trailing fractional zeros. A key column whose NUMBER precision or scale
         changes keeps its buckets. Other types hash as themselves; hash() skips NULL arguments,
         so each key column adds exactly one of its three arguments. -- #}
    {%- set arguments = [] -%}
    {%- for key in key_columns -%}
        {%- set numeric = "typeof(" ~ key ~ ") rlike '^(decimal|tinyint|smallint|int|bigint)'" -%}
        {%- set text = "cast(" ~ key ~ " as string)" -%}
        {%- set canonical = "case when " ~ text ~ " like '%.%' then regexp_replace(" ~ text
            ~ ", '\\\\.?0+$', '') else " ~ text ~ " end" -%}
        {%- set long_integer = "(" ~ canonical ~ ") rlike '^-?[0-9]{1,18}$'" -%}
        {%- do arguments.append("case when " ~ numeric ~ " and " ~ long_integer
            ~ " then cast(" ~ canonical ~ " as bigint) end") -%}
        {%- do arguments.append("case when " ~ numeric ~ " and not " ~ long_integer
            ~ " then " ~ canonical ~ " end") -%}
        {%- do arguments.append("case when not " ~ numeric ~ " then " ~ key ~ " end") -%}
    {%- endfor %}
    pmod(hash({{ arguments | join(', ') }}), {{ bucket_count | int }})
{%- endmacro %}
