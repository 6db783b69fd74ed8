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
