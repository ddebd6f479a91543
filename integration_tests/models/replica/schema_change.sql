{{ oracle_cdc.consolidate(ref('schema_change_log'), key_columns=['id']) }}
