-- A model rebuilt whole on every run (materialized='table') into an HBase table: each run drops
-- it (with PURGE, dbt/macros/spark_hbase.sql) and creates it again with exactly the model's rows.
{{ config(
    materialized='table',
    schema='hbase',
    file_format='hbase',
    options={'primaryKey': 'o_id'},
    alias='orders_kept_' ~ env_var('DBT_HBASE_SUFFIX')
) }}

select o_id, c_id, status
from {{ source('shop', 'orders') }}
where status <> 'returned'
