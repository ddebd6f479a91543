{#-- The default__ implementation of a macro whose SQL is Spark's: a compile error naming the
     adapter and how to support it (a <adapter>__<macro> in the user's project). --#}
{% macro _adapter_not_supported(macro_name) -%}
    {{ exceptions.raise_compiler_error(
        "oracle_cdc." ~ macro_name ~ " is implemented for Spark only, not for adapter '"
        ~ adapter.type() ~ "'; define " ~ adapter.type() ~ "__" ~ macro_name
        ~ " in your project to support it") }}
{%- endmacro %}
