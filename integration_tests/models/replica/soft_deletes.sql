{{ config(meta={'oracle_cdc__soft_deletes': true}) }}

{{ oracle_cdc.consolidate(ref('deletes_log'), key_columns=['id']) }}
