{#- A model's `schema` is the schema it goes to, as written (dbt's default prefixes the target
    schema): `schema='hbase'` names the hbase catalog. -#}
{% macro generate_schema_name(custom_schema_name, node) -%}
  {{ custom_schema_name if custom_schema_name is not none else target.schema }}
{%- endmacro %}
