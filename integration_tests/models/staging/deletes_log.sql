{{ staging_from_seed(ref('delete_changes'), {'id': 'decimal(10,0)', 'v': 'string'}) }}
