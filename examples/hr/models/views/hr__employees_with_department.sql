{# -- Example dependent view: employees with their department's name. A plain dbt view on two
     replicas; `dbt run` recreates it after the replicas, so a column added in Oracle (and thus
     to hr__employees) appears here too through employees.*. -- #}

with

employees as (

    select * from {{ ref('hr__employees') }}
    {# -- with soft deletes on, deleted keys stay in the replica: a view shows live rows -- #}
    where not _deleted

),

departments as (

    select
        department_id,
        department_name
    from {{ ref('hr__departments') }}
    where not _deleted

),

final as (

    select
        employees.*,
        departments.department_name
    from employees
    left join departments
        on employees.department_id = departments.department_id

)

select * from final
