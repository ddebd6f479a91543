{#-- The source columns of a replica: the staging table's, then those only the existing replica
     still has (a column dropped in Oracle stays and stops receiving values). Each entry:
     name, quoted, data_type, in_staging, in_replica and carried (its flag column in versions). --#}
{% macro _replica_source_columns(staging_relation, replica_relation) -%}
    {#-- relations are only readable at execution time; parsing needs no column list --#}
    {%- if not execute -%}{{ return([]) }}{%- endif -%}
    {%- set not_source = ['_present', '_deleted', '_bucket'] + (oracle_cdc._replica_metadata_columns() | list) -%}
    {%- set columns = [] -%}
    {%- set seen = {} -%}
    {%- for column in adapter.get_columns_in_relation(staging_relation) if column.name | lower not in not_source -%}
        {%- do seen.update({column.name | lower: columns | length}) -%}
        {%- do columns.append({'name': column.name | lower, 'quoted': adapter.quote(column.name | lower),
            'data_type': column.data_type, 'in_staging': true, 'in_replica': false}) -%}
    {%- endfor -%}
    {%- if replica_relation is not none -%}
        {%- for column in adapter.get_columns_in_relation(replica_relation) if column.name | lower not in not_source -%}
            {%- if column.name | lower in seen -%}
                {%- do columns[seen[column.name | lower]].update({'in_replica': true}) -%}
            {%- else -%}
                {%- do columns.append({'name': column.name | lower, 'quoted': adapter.quote(column.name | lower),
                    'data_type': column.data_type, 'in_staging': false, 'in_replica': true}) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {%- for column in columns -%}
        {%- do column.update({'carried': '_carried_' ~ loop.index}) -%}
    {%- endfor -%}
    {{ return(columns) }}
{%- endmacro %}
