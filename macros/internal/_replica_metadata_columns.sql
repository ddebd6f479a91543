{#-- Metadata columns of a replica row and their Spark types: the staging contract
     (extractor/staging_contract.py) without _present, which a consolidated row no longer needs.
     tests/dbt/test_generate.py::test_macro_metadata_columns_follow_the_staging_contract keeps
     the two in step. --#}
{% macro _replica_metadata_columns() -%}
    {{ return({
        '_op': 'string',
        '_scn': 'bigint',
        '_commit_scn': 'bigint',
        '_redo_pos': 'decimal(38,0)',
        '_rs_id': 'string',
        '_ssn': 'bigint',
        '_xid': 'string',
        '_row_id': 'string',
        '_commit_ts': 'timestamp',
        '_batch_id': 'bigint',
        '_extracted_at': 'timestamp',
    }) }}
{%- endmacro %}
