{#-- as `oracdc generate` writes a replica model, on the deletes_log staging rows --#}
{{
    config(
        materialized='incremental',
        file_format='parquet',
        incremental_strategy=oracle_cdc.incremental_strategy_for('parquet'),
        partition_by=['_bucket'],
        unique_key=['id'],
        on_schema_change='append_new_columns',
        post_hook=["{{ oracle_cdc.drop_emptied_buckets() }}"],
        meta={'oracle_cdc__replica': true, 'oracle_cdc__soft_deletes': true},
    )
}}

{{ oracle_cdc.consolidate(ref('deletes_log'), key_columns=['id']) }}
