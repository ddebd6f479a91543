{{ oracle_cdc.consolidate(ref('commit_order_log'), key_columns=['id']) }}
