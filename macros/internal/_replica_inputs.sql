{#-- The incremental run's inputs besides the new staging rows, as CTEs: current_rows (replica
     rows of the touched keys), untouched_rows (insert_overwrite: the rest of the touched
     buckets, passed through), late_keys (keys with a new change older than their replica row),
     replica_rows (current_rows flagged _rederived for late keys), earlier_changes (consolidated
     deletes of touched keys, every earlier row of a late key). ``plan``: consolidate's
     decisions (keys, watermark, rewrites_all, rewrites_buckets, keeps_untouched_rows). --#}
{% macro _replica_inputs(staging_relation, plan) -%}
current_rows as (

    select * from {{ this }} as replica
    {% if plan['rewrites_all'] -%}
    where replica._op is not null
    {%- else -%}
    where exists (
            select 1 from touched_keys as touched
            where {{ oracle_cdc._null_safe_key_match(plan['keys'], 'touched', 'replica') }}
        )
        {%- if plan['rewrites_buckets'] %}
        and replica._bucket in (select touched._bucket from touched_keys as touched)
        {%- endif %}
        {# -- marker rows of emptied buckets (see drop_emptied_buckets) are no versions -- #}
        and replica._op is not null
    {%- endif %}

),
{%- if plan['keeps_untouched_rows'] %}

untouched_rows as (

    select * from {{ this }} as replica
    where
        replica._bucket in (select touched._bucket from touched_keys as touched)
        and not exists (
            select 1 from touched_keys as touched
            where {{ oracle_cdc._null_safe_key_match(plan['keys'], 'touched', 'replica') }}
        )
        and replica._op is not null

),
{%- endif %}

{# -- keys with a new change older than their replica row: the replica row folded versions the
     older change must be ranked among, so the key is consolidated again from every staging row
     (the replica row then only contributes columns the staging table no longer has) -- #}
late_keys as (

    select distinct {% for key in plan['keys'] %}replica.{{ key }}, {% endfor %}true as _late
    from current_rows as replica
    inner join new_versions as staged
        on {{ oracle_cdc._null_safe_key_match(plan['keys'], 'staged', 'replica') }}
    where {{ oracle_cdc._position('staged') }} < {{ oracle_cdc._position('replica') }}

),

replica_rows as (

    select
        replica.*,
        coalesce(late._late, false) as _rederived
    from current_rows as replica
    left join late_keys as late
        on {{ oracle_cdc._null_safe_key_match(plan['keys'], 'late', 'replica') }}

),

{# -- deletes of touched keys from already consolidated batches (a late snapshot older than a
     consolidated delete must not bring the key back), and every earlier row of a late key -- #}
earlier_changes as (

    select * from {{ staging_relation }} as staged
    where staged._op = 'd'
      and staged._batch_id <= {{ plan['watermark'] }}
      and exists (
          select 1 from touched_keys as touched
          where {{ oracle_cdc._null_safe_key_match(plan['keys'], 'touched', 'staged') }}
      )

    union all

    select * from {{ staging_relation }} as staged
    where staged._op not in ('d', 't')
      and staged._batch_id <= {{ plan['watermark'] }}
      and exists (
          select 1 from late_keys as late
          where {{ oracle_cdc._null_safe_key_match(plan['keys'], 'late', 'staged') }}
      )

),
{%- endmacro %}
