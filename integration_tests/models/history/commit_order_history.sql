{{ oracle_cdc.history(ref('commit_order_log'), key_columns=['id']) }}
