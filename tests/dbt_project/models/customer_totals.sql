-- HBase tables aggregated into a Spark table (Parquet, in Spark's own catalog).
{{ config(materialized='table', alias='customer_totals_' ~ env_var('DBT_HBASE_SUFFIX')) }}

select c.c_id, c.name, count(o.o_id) as orders, coalesce(sum(o.amount), 0) as total
from {{ source('shop', 'customers') }} c
left join {{ source('shop', 'orders') }} o on o.c_id = c.c_id
group by c.c_id, c.name
