{{ oracle_cdc.consolidate(ref('deletes_log'), key_columns=['id']) }}
