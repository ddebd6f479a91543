{#-- column w is added to the Oracle table between the two phases --#}
{%- set columns = {'id': 'decimal(10,0)', 'v': 'string'} -%}
{%- if var('phase') >= 2 -%}{%- do columns.update({'w': 'string'}) -%}{%- endif -%}
{{ staging_from_seed(ref('schema_change_changes'), columns) }}
