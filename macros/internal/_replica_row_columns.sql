{#-- The select list of a replica row: the source columns, the metadata columns, _deleted and
     _bucket, from a CTE of consolidated rows (_is_deleted) or of replica rows (_deleted).
       from_replica      the CTE holds replica rows: a source column the replica lacks is NULL
       blank_deleted     every value of a deleted key NULL (an emptied bucket's marker row) --#}
{% macro _replica_row_columns(columns, metadata, from_replica=false, blank_deleted=false) -%}
    {%- for column in columns %}
        {%- if from_replica and not column.in_replica %}
        cast(null as {{ column.data_type }}) as {{ column.quoted }},
        {%- elif blank_deleted %}
        case when not _is_deleted then {{ column.quoted }} end as {{ column.quoted }},
        {%- else %}
        {{ column.quoted }},
        {%- endif %}
    {%- endfor %}
    {%- for name in metadata %}
        {%- if blank_deleted %}
        case when not _is_deleted then {{ name }} end as {{ name }},
        {%- else %}
        {{ name }},
        {%- endif %}
    {%- endfor %}
        {{ '_deleted' if from_replica else '_is_deleted as _deleted' }},
        _bucket
{%- endmacro %}
