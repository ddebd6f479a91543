{#-- One branch of the versions CTE: source columns (NULL where this side lacks one), a carried
     flag per column, the metadata columns, whether the row is a full image, and its source rank
     (0 replica row, 1 new change, 2 earlier staging row) which breaks ties of identical positions.
     A replica row whose key is re-derived from staging (_rederived: an older change arrived)
     carries only the columns the staging table no longer has. --#}
{% macro _versions_select(relation_name, columns, metadata, kind, source_rank) -%}
    select
        {%- for column in columns %}
        {%- set present = column.in_staging if kind == 'staging' else column.in_replica %}
        {%- if present %}
        {{ column.quoted }},
        {%- else %}
        cast(null as {{ column.data_type }}) as {{ column.quoted }},
        {%- endif %}
        {%- if not present %}
        false as {{ column.carried }},
        {%- elif kind == 'staging' %}
        {{ oracle_cdc.is_carried(column.name) }} as {{ column.carried }},
        {%- elif column.in_staging %}
        not _rederived as {{ column.carried }},
        {%- else %}
        true as {{ column.carried }},
        {%- endif %}
        {%- endfor %}
        {%- for name in metadata %}
        {{ name }},
        {%- endfor %}
        {% if kind == 'staging' -%} _present is null {%- else -%} not _rederived {%- endif %} as _is_full_image,
        {{ source_rank }} as _version_source
    from {{ relation_name }}
{%- endmacro %}
