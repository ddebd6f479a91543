{#-- Whether a version (of the versions CTE: _is_delete, _position, _row_id) was retired: a
     change or snapshot row is retired by a delete at a later position of the same physical row
     (same _row_id), or of any row when either _row_id is NULL (a reset marker's virtual delete
     has none). A delete of another _row_id retired an older row under that key: a multi-row
     primary-key update (update t set id = id + 1) moves row A onto key 2 before row B leaves it. --#}
{% macro _retired_flag(keys) -%}
    {%- set per_key = 'partition by ' ~ (keys | join(', ')) -%}
    coalesce(not _is_delete and (
            _position < max(case when _is_delete then _position end) over ({{ per_key }}, _row_id)
            or _position < max(case when _is_delete and _row_id is null then _position end) over ({{ per_key }})
            or (_row_id is null and _position < max(case when _is_delete then _position end) over ({{ per_key }}))
        ), false)
{%- endmacro %}
