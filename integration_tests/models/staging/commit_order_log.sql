{{ staging_from_seed(ref('commit_order_changes'), {'id': 'decimal(10,0)', 'v': 'string'}) }}
