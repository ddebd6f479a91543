{#-- The watermark of a replica as a scalar subquery: the highest staging batch folded into it
     (-1 when empty). Staging rows above it are new to the next run. --#}
{% macro _watermark(replica_relation) -%}
    (select coalesce(max(_batch_id), -1) from {{ replica_relation }})
{%- endmacro %}
