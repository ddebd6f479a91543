{{ staging_from_seed(ref('duplicate_changes'), {'id': 'decimal(10,0)', 'v': 'string'}) }}
