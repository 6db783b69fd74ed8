# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Two HBase clusters in one Spark session: catalog `hbase` names the run's HBase, catalog `prod`
a second embedded HBase of its own, set up as a user would, with its ZooKeeper in the catalog's
options. The same HBase table name holds different rows in each, so every answer shows which
cluster it came from."""

import uuid

import pytest
from pyspark_hbase import scan_metrics
from pyspark_hbase.local import LocalHBase

CATALOG_CLASS = "org.apache.spark.sql.hbase.connector.HBaseSparkCatalog"


@pytest.fixture(scope="module")
def second_hbase(tmp_path_factory):
    local = LocalHBase(tmp_path_factory.mktemp("hbase-prod"))
    local.start()
    try:
        yield local
    finally:
        local.stop()


@pytest.fixture(scope="module")
def prod(spark, second_hbase):
    """The name of a catalog whose tables live in the second HBase."""
    name = f"prod_{uuid.uuid4().hex[:6]}"
    settings = {f"spark.sql.catalog.{name}": CATALOG_CLASS}
    for key, value in second_hbase.client_conf().items():
        settings[f"spark.sql.catalog.{name}.{key}"] = value
    for key, value in settings.items():
        spark.conf.set(key, value)
    yield name
    for key in settings:
        spark.conf.unset(key)


def rows(spark, query):
    return [tuple(r) for r in spark.sql(query).collect()]


def test_the_same_hbase_table_name_holds_each_clusters_own_rows(spark, prod, table_name):
    for catalog, rows_of_it in (("hbase", "(1, 'first'), (2, 'first')"), (prod, "(1, 'second'), (3, 'second')")):
        spark.sql(
            f"CREATE TABLE {catalog}.{table_name} (k INT, v STRING, PRIMARY KEY (k)) "
            f"MAPPED BY ({table_name}, COLS=[v=f.v]) SPLIT ON ((2))"
        )
        spark.sql(f"INSERT INTO {catalog}.{table_name} VALUES {rows_of_it}")
    assert rows(spark, f"SELECT * FROM hbase.{table_name} ORDER BY k") == [(1, "first"), (2, "first")]
    assert rows(spark, f"SELECT * FROM {prod}.default.{table_name} ORDER BY k") == [(1, "second"), (3, "second")]
    assert rows(spark, f"SELECT * FROM {table_name} ORDER BY k") == [(1, "first"), (2, "first")], (
        "a one-part name is the session's HBase"
    )
    assert (prod, table_name) not in {(r.namespace, r.tableName) for r in spark.sql("SHOW TABLES IN hbase").collect()}
    assert (prod, table_name) in {(r.namespace, r.tableName) for r in spark.sql(f"SHOW TABLES IN {prod}").collect()}

    spark.sql(f"DROP TABLE {prod}.{table_name}")
    assert rows(spark, f"SHOW TABLES IN {prod} LIKE '{table_name}'") == []
    assert rows(spark, f"SELECT count(*) FROM hbase.{table_name}") == [(2,)]


def test_a_query_joins_tables_of_two_clusters_with_key_ranges_on_both(spark, prod, table_name):
    customers, orders = f"{table_name}_c", f"{table_name}_o"
    spark.sql(
        f"CREATE TABLE hbase.{customers} (id INT, name STRING, PRIMARY KEY (id)) "
        f"MAPPED BY ({customers}, COLS=[name=f.n]) SPLIT ON ((80))"
    )
    spark.sql(
        f"CREATE TABLE {prod}.{orders} (id INT, line INT, customer INT, total DOUBLE, PRIMARY KEY (id, line)) "
        f"MAPPED BY ({orders}, COLS=[customer=f.c, total=f.t]) SPLIT ON ((500))"
    )
    spark.range(1, 101).selectExpr("CAST(id AS INT) AS id", "concat('c', id) AS name").writeTo(
        f"hbase.{customers}"
    ).append()
    spark.range(0, 1000).selectExpr(
        "CAST(id AS INT) AS id",
        "CAST(id % 3 AS INT) AS line",
        "CAST(id % 100 + 1 AS INT) AS customer",
        "id * 1.5D AS total",
    ).writeTo(f"{prod}.{orders}").append()

    query = (
        f"SELECT o.id, c.name, o.total FROM {prod}.{orders} o JOIN hbase.{customers} c ON o.customer = c.id "
        f"WHERE o.id BETWEEN 600 AND 609 AND c.id < 60"
    )
    expected = sorted((i, f"c{i % 100 + 1}", i * 1.5) for i in range(600, 610) if i % 100 + 1 < 60)
    assert sorted(tuple(r) for r in spark.sql(query).collect()) == expected
    plan = spark.sql(f"EXPLAIN {query}").first()[0]
    assert "regions 1 of 2, 1 key ranges ([600, 609])" in plan, plan
    assert "regions 1 of 2, 1 key ranges ((-inf, 60))" in plan, plan

    keyed = spark.sql(f"SELECT id, total FROM {prod}.{orders} WHERE id IN (7, 700) AND line = 1")
    assert sorted(tuple(r) for r in keyed.collect()) == [(7, 10.5), (700, 1050.0)]
    assert scan_metrics(keyed)["rowsScanned"] == 2
    skip = spark.sql(f"SELECT count(*), sum(total) FROM {prod}.{orders} WHERE line = 2")
    assert tuple(skip.first()) == (333, sum(i * 1.5 for i in range(1000) if i % 3 == 2))


def test_insert_select_copies_rows_from_one_cluster_to_the_other(spark, prod, table_name):
    spark.sql(
        f"CREATE TABLE hbase.{table_name} (k INT, s STRING, v BIGINT, PRIMARY KEY (k, s)) "
        f"MAPPED BY ({table_name}, COLS=[v=f.v]) SPLIT ON ((100))"
    )
    spark.sql(
        f"CREATE TABLE {prod}.{table_name} (k INT, s STRING, v BIGINT, PRIMARY KEY (k, s)) "
        f"MAPPED BY ({table_name}_copy, COLS=[v=f.v])"
    )
    spark.range(0, 200).selectExpr("CAST(id AS INT) AS k", "'x' AS s", "id * id AS v").writeTo(
        f"hbase.{table_name}"
    ).append()

    spark.sql(f"INSERT INTO {prod}.{table_name} SELECT k, s, v FROM hbase.{table_name} WHERE k >= 150")
    assert rows(spark, f"SELECT k, v FROM {prod}.{table_name} ORDER BY k") == [(k, k * k) for k in range(150, 200)]
    spark.sql(f"INSERT INTO hbase.{table_name} SELECT k + 1000, s, -v FROM {prod}.{table_name} WHERE k < 152")
    assert rows(spark, f"SELECT k, v FROM hbase.{table_name} WHERE k > 999 ORDER BY k") == [
        (1150, -22500),
        (1151, -22801),
    ]
    assert rows(spark, f"SELECT count(*) FROM {prod}.{table_name}") == [(50,)]


def test_load_alter_index_and_describe_through_the_second_catalog(spark, prod, table_name, tmp_path):
    spark.sql(
        f"CREATE TABLE {prod}.{table_name} (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ({table_name}, COLS=[v=f.v]) "
        f"SPLIT ON ((100))"
    )
    (tmp_path / "rows.csv").write_text("".join(f"{k}|{k * 2}\n" for k in range(200)))
    loaded = spark.sql(f"LOAD DATA LOCAL INPATH '{tmp_path}' INTO TABLE {prod}.{table_name} FIELDS TERMINATED BY '|'")
    assert tuple(loaded.first()) == (200, 0)
    spark.sql(f"ALTER TABLE {prod}.{table_name} ADD COLUMN note STRING MAPPED BY (note = f.note)")
    spark.sql(f"UPDATE {prod}.{table_name} SET note = 'even' WHERE k < 4 AND v % 4 = 0")
    assert rows(spark, f"SELECT k, v, note FROM {prod}.{table_name} WHERE k < 4 ORDER BY k") == [
        (0, 0, "even"),
        (1, 2, None),
        (2, 4, "even"),
        (3, 6, None),
    ]
    spark.sql(f"CREATE INDEX by_v ON {prod}.{table_name} (v) OPTIONS (chunkRows = 25)")
    assert [
        (r.name, r.chunks, r.trustedChunks) for r in spark.sql(f"SHOW INDEXES ON {prod}.{table_name}").collect()
    ] == [("by_v", 8, 8)]
    assert rows(spark, f"SELECT k FROM {prod}.{table_name} WHERE v = 300") == [(150,)]
    described = {r.col_name: r.data_type for r in spark.sql(f"DESCRIBE {prod}.{table_name}").collect()}
    assert described["note"] == "string" and described["HBase table"] == table_name
    spark.sql(f"DELETE FROM {prod}.{table_name} WHERE k >= 100")
    assert rows(spark, f"SELECT count(*) FROM {prod}.{table_name}") == [(100,)]
    assert rows(spark, f"SHOW TABLES IN hbase LIKE '{table_name}'") == []
