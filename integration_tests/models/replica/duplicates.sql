{{ oracle_cdc.consolidate(ref('duplicates_log'), key_columns=['id']) }}
