{#-
  spark-hbase-sql for dbt-spark: copy this file into your dbt project's macros/ directory.

  dbt-spark's incremental materialization accepts only the file formats it knows. This lets it
  take file_format='hbase' too, so that a model with

    {{ config(materialized='incremental', schema='hbase', file_format='hbase',
              incremental_strategy='append', unique_key='id', options={'primaryKey': 'id'}) }}

  is created in the hbase catalog by its first run (CREATE TABLE hbase.m USING hbase
  OPTIONS (primaryKey "id") AS SELECT ...) and upserted by key by every later run
  (INSERT INTO hbase.m SELECT ...): writing a key again replaces that row.
  A macro of the root project takes the place of dbt-spark's macro of the same name.

  A model with materialized='table' (or an incremental one under --full-refresh) is rebuilt by
  dropping it and creating it again. DROP TABLE keeps the HBase table under an HBase model,
  so the new model would see the old rows; spark__drop_relation below drops HBase models with
  PURGE, which deletes the HBase table too when CREATE TABLE made it (a model's first run did).
  PURGE never deletes an HBase table that CREATE TABLE did not make (one mapped over existing
  data): the drop fails saying so, and so does the run. Which dbt schemas are HBase catalogs:
  the var spark_hbase_catalogs (default ['hbase']).
-#}
{% macro dbt_spark_validate_get_file_format(raw_file_format) %}
  {% set accepted_formats = ['text', 'csv', 'json', 'jdbc', 'parquet', 'orc', 'hive', 'delta', 'iceberg', 'libsvm', 'hudi', 'hbase'] %}
  {% if raw_file_format not in accepted_formats %}
    {% do exceptions.raise_compiler_error(
      "Invalid file format provided: " ~ raw_file_format ~ "\nExpected one of: " ~ accepted_formats | join(', ')
    ) %}
  {% endif %}
  {% do return(raw_file_format) %}
{% endmacro %}

{% macro spark__drop_relation(relation) -%}
  {%- set hbase = relation.type == 'table' and relation.schema in var('spark_hbase_catalogs', ['hbase']) -%}
  {% call statement('drop_relation', auto_begin=False) -%}
    drop {{ relation.type }} if exists {{ relation }}{{ ' purge' if hbase else '' }}
  {%- endcall %}
{% endmacro %}
