{{ staging_from_seed(
    ref('partial_image_changes'),
    {'id': 'decimal(10,0)', 'a': 'string', 'b': 'string', 'c': 'string'},
) }}
