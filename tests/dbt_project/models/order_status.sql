-- A model written into an HBase table: each run upserts its rows by the row key (o_id).
-- The first run creates hbase.order_status_<suffix> with CREATE TABLE ... USING hbase
-- OPTIONS (primaryKey 'o_id') AS SELECT; later runs INSERT only the orders changed since.
{{ config(
    materialized='incremental',
    schema='hbase',
    file_format='hbase',
    incremental_strategy='append',
    unique_key='o_id',
    options={'primaryKey': 'o_id'},
    alias='order_status_' ~ env_var('DBT_HBASE_SUFFIX')
) }}

select o_id, c_id, upper(status) as status, amount, updated
from {{ source('shop', 'orders') }}
{% if is_incremental() %}
where updated > (select max(updated) from {{ this }})
{% endif %}
