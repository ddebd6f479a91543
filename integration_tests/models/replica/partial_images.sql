{{ oracle_cdc.consolidate(ref('partial_images_log'), key_columns=['id']) }}
