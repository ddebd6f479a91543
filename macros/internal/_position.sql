{#-- The position of a version in the change order, (_commit_scn, _scn, _redo_pos), as one
     value: Spark compares and aggregates (max) structs field by field. --#}
{% macro _position(relation_alias=none) -%}
    {%- set prefix = relation_alias ~ '.' if relation_alias else '' -%}
    named_struct('commit_scn', {{ prefix }}_commit_scn, 'scn', {{ prefix }}_scn, 'redo_pos', {{ prefix }}_redo_pos)
{%- endmacro %}
