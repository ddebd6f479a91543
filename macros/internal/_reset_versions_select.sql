{#-- One branch of the versions CTE: the latest table reset marker (_op = 't') as a delete of every
     touched key, at the marker's position and with a NULL _row_id, so it retires every version
     strictly before it (snapshot rows at the marker's own position survive). It carries no
     column, so soft-deleted keys keep their last values. --#}
{% macro _reset_versions_select(columns, metadata, keys) -%}
    select
        {%- for column in columns %}
        {%- if column.quoted in keys %}
        touched.{{ column.quoted }},
        {%- else %}
        cast(null as {{ column.data_type }}) as {{ column.quoted }},
        {%- endif %}
        false as {{ column.carried }},
        {%- endfor %}
        {%- for name in metadata %}
        {%- if adapter.quote(name) in keys %}
        touched.{{ adapter.quote(name) }} as {{ name }},
        {%- else %}
        marker.{{ name }},
        {%- endif %}
        {%- endfor %}
        false as _is_full_image,
        3 as _version_source
    from touched_keys as touched
    cross join latest_reset_marker as marker
{%- endmacro %}
