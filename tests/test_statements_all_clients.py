# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Every statement we add, driven the same way through PySpark, spark-sql and beeline (JDBC)."""

import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from pyspark_hbase.thriftserver import beeline_command

SPARK_HBASE = str(Path(sys.executable).parent / "spark-hbase")

# A file every client can load: the Thrift server and spark-sql run on this machine.
LOAD_FILE = Path(tempfile.mkdtemp(prefix="all-clients-")) / "more.csv"
LOAD_FILE.write_text("region,id,amount\napac,5,1.5\n")


def script(t1, t2):
    return [
        f"CREATE TABLE {t1} (region STRING, id INT, amount DOUBLE, PRIMARY KEY (region, id)) "
        f"MAPPED BY ({t1}, COLS=[amount=f.amount]) SPLIT ON (('m'))",
        f"CREATE TABLE IF NOT EXISTS {t1} (region STRING, id INT, amount DOUBLE, PRIMARY KEY (region, id)) "
        f"MAPPED BY ({t1}, COLS=[amount=f.amount])",
        f"CREATE TABLE {t2} (k STRING, v STRING, PRIMARY KEY (k)) MAPPED BY ({t2}, COLS=[v=f.v]) IN StringFormat",
        f"INSERT INTO {t1} VALUES ('emea', 1, 10.0), ('us', 2, 20.0)",
        f"INSERT INTO TABLE {t1} SELECT region, id + 10, amount * 2 FROM {t1}",
        f"LOAD DATA LOCAL INPATH '{LOAD_FILE}' INTO TABLE {t1} OPTIONS (header 'true')",
        f"ALTER TABLE {t1} ADD COLUMN note STRING MAPPED BY (note = f.note)",
        f"INSERT INTO {t1} (region, id, note) VALUES ('us', 99, 'late')",
        f"ALTER TABLE {t1} DROP COLUMN amount",
        f"INSERT INTO {t2} VALUES ('a', 'x')",
        f"DROP TABLE {t2}",
        f"DESCRIBE {t1}",
        "SHOW TABLES IN hbase",
        f"SELECT region, id, note FROM {t1} ORDER BY region, id",
    ]


EXPECTED_ROWS = [
    ["apac", "5", "NULL"],
    ["emea", "1", "NULL"],
    ["emea", "11", "NULL"],
    ["us", "2", "NULL"],
    ["us", "12", "NULL"],
    ["us", "99", "late"],
]


def run_pyspark(spark, statements):
    results = [spark.sql(s).collect() for s in statements]
    shown = {(r.namespace, r.tableName) for r in results[-2]}
    described = {r.col_name: r.data_type for r in results[-3]}
    rows = [["NULL" if v is None else str(v) for v in r] for r in results[-1]]
    return rows, shown, described


def parse_tsv_run(stdout, t1, t2):
    lines = [line.split("\t") for line in stdout.strip().splitlines()]
    # spark-sql prints SHOW TABLES as Hive does, the names alone; beeline prints every column.
    shown = {(parts[0], parts[1]) for parts in lines if len(parts) == 3 and parts[0] == "hbase" and parts[2] == "false"}
    shown |= {("hbase", parts[0]) for parts in lines if len(parts) == 1 and parts[0] in (t1, t2)}
    described = {parts[0].strip(): parts[1].strip() for parts in lines if len(parts) == 3}
    rows = [[p.strip() for p in parts] for parts in lines[-len(EXPECTED_ROWS) :]]
    return rows, shown, described


def run_cli(client, text, hbase, request):
    """Runs statements through spark-sql or beeline, printing rows as tab-separated values; returns stdout."""
    if client == "spark-sql":
        data_dir = ["--data-dir", str(hbase.data_dir)] if hbase else []
        out = subprocess.run([SPARK_HBASE, "sql", *data_dir, "-e", text], capture_output=True, text=True, timeout=600)
    else:
        url = request.getfixturevalue("jdbc_url")
        out = subprocess.run(
            beeline_command(url, "--silent=true", "--outputformat=tsv2", "--showHeader=false", "-e", text),
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert out.returncode == 0, out.stderr
    return out.stdout


def result_lines(client, statements, spark, hbase, request):
    """Every row the statements return, in order, each as its values' text (NULL for a NULL), through `client`."""
    if client == "pyspark":
        return [["NULL" if v is None else str(v) for v in r] for s in statements for r in spark.sql(s).collect()]
    out = run_cli(client, ";\n".join(statements) + ";", hbase, request)
    return [[p.strip() for p in line.split("\t")] for line in out.strip().splitlines()]


@pytest.mark.parametrize("client", ["pyspark", "spark-sql", "beeline"])
def test_every_statement_through_every_client(client, spark, hbase, request):
    t1, t2 = f"c_{uuid.uuid4().hex[:8]}", f"c_{uuid.uuid4().hex[:8]}"
    statements = script(t1, t2)
    if client == "pyspark":
        rows, shown, described = run_pyspark(spark, statements)
    else:
        stdout = run_cli(client, ";\n".join(statements) + ";", hbase, request)
        rows, shown, described = parse_tsv_run(stdout, t1, t2)
    assert rows == EXPECTED_ROWS
    assert ("hbase", t1) in shown and ("hbase", t2) not in shown
    assert described["note"] == "string" and "amount" not in described
    assert described["Regions"] == "2"


@pytest.mark.parametrize("client", ["pyspark", "spark-sql", "beeline"])
def test_an_aggregate_runs_in_the_region_servers_through_every_client(client, spark, hbase, request):
    t = f"c_{uuid.uuid4().hex[:8]}"
    spark.sql(
        f"CREATE TABLE {t} (region STRING, id INT, amount DOUBLE, PRIMARY KEY (region, id)) "
        f"MAPPED BY ({t}, COLS=[amount=f.amount]) SPLIT ON (('m'))"
    )
    spark.sql(f"INSERT INTO {t} VALUES ('emea', 1, 10.0), ('emea', 2, 20.0), ('us', 3, 5.5)")
    query = f"SELECT region, count(*), sum(amount) FROM {t} GROUP BY region ORDER BY region"
    pushed = "partial aggregate in region servers: count(1), sum(amount) group by region"
    if client == "pyspark":
        df = spark.sql(query)
        rows = [[str(v) for v in r] for r in df.collect()]
        explained = df._jdf.queryExecution().executedPlan().toString()
    else:
        explained = run_cli(client, f"EXPLAIN {query};\n{query};", hbase, request)
        rows = [[p.strip() for p in line.split("\t")] for line in explained.strip().splitlines()[-2:]]
    assert rows == [["emea", "2", "30.0"], ["us", "1", "5.5"]]
    assert pushed in explained


@pytest.mark.parametrize("client", ["pyspark", "spark-sql", "beeline"])
def test_delete_update_key_only_tables_reads_as_of_a_time_and_write_times_through_every_client(
    client, spark, hbase, request
):
    t, edges = f"c_{uuid.uuid4().hex[:8]}", f"c_{uuid.uuid4().hex[:8]}"
    spark.sql(
        f"CREATE TABLE {t} (region STRING, id INT, amount DOUBLE, note STRING, PRIMARY KEY (region, id)) "
        f"MAPPED BY ({t}, COLS=[amount=f.amount, note=g.note]) "
        "FAMILIES (f (VERSIONS = 5, KEEP_DELETED_CELLS = TRUE), g (VERSIONS = 5, KEEP_DELETED_CELLS = TRUE)) SPLIT ON (('m'))"
    )
    spark.sql(
        f"INSERT INTO {t} VALUES ('emea', 1, 10.0, 'a'), ('emea', 2, 20.0, 'b'), ('us', 3, 5.5, 'c'), ('us', 4, 7.0, NULL)"
    )
    time.sleep(0.01)
    before = int(time.time() * 1000)
    time.sleep(0.01)
    statements = [
        f"UPDATE {t} SET amount = amount * 2, note = 'doubled' WHERE region = 'emea'",
        f"DELETE FROM {t} WHERE region = 'us' AND id = 3",
        f"UPDATE {t} SET note = NULL WHERE id = 2",
        f"CREATE TABLE {edges} (src STRING, dst STRING, PRIMARY KEY (src, dst)) MAPPED BY ({edges}, COLS=[]) "
        "FAMILIES (f (VERSIONS = 3, BLOOMFILTER = ROW))",
        f"INSERT INTO {edges} VALUES ('a', 'b'), ('a', 'c'), ('b', 'a')",
        f"DELETE FROM {edges} WHERE src = 'a' AND dst = 'c'",
        f"SELECT * FROM {t} ORDER BY region, id",
        f"SELECT * FROM {edges} ORDER BY src, dst",
        f"SELECT * FROM {t} TIMESTAMP AS OF timestamp_millis({before}) ORDER BY region, id",
        f"ALTER TABLE {t} ADD COLUMN amount_at BIGINT MAPPED BY (amount_at = WRITETIME(f.amount))",
        f"SELECT region, id, CAST(amount_at >= {before} AS STRING) FROM {t} WHERE amount_at >= {before} ORDER BY region, id",
    ]
    lines = result_lines(client, statements, spark, hbase, request)
    assert [parts[0] for parts in lines if len(parts) == 1] == ["2", "1", "1", "1"]
    assert [parts for parts in lines if len(parts) == 4] == [
        ["emea", "1", "20.0", "doubled"],
        ["emea", "2", "40.0", "NULL"],
        ["us", "4", "7.0", "NULL"],
        ["emea", "1", "10.0", "a"],
        ["emea", "2", "20.0", "b"],
        ["us", "3", "5.5", "c"],
        ["us", "4", "7.0", "NULL"],
    ]
    assert [parts for parts in lines if len(parts) == 2] == [["a", "b"], ["b", "a"]]
    assert [parts for parts in lines if len(parts) == 3] == [["emea", "1", "true"], ["emea", "2", "true"]]


@pytest.mark.parametrize("client", ["pyspark", "spark-sql", "beeline"])
def test_merge_into_through_every_client(client, spark, hbase, request):
    t = f"c_{uuid.uuid4().hex[:8]}"
    spark.sql(
        f"CREATE TABLE {t} (id INT, owner STRING, balance BIGINT, PRIMARY KEY (id)) "
        f"MAPPED BY ({t}, COLS=[owner=f.o, balance=f.b]) SPLIT ON ((3))"
    )
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, 'd', 40)")
    statements = [
        f"MERGE INTO {t} AS t USING (SELECT * FROM VALUES (2, 5L), (3, 0L), (7, 70L) AS v(id, amount)) AS s "
        "ON t.id = s.id WHEN MATCHED AND s.amount = 0 THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET balance = t.balance + s.amount "
        "WHEN NOT MATCHED THEN INSERT (id, owner, balance) VALUES (s.id, 'new', s.amount)",
        f"MERGE INTO hbase.{t} AS t USING (SELECT 4 AS id) AS s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET owner = 'through the catalog'",
        f"SELECT * FROM {t} ORDER BY id",
    ]
    lines = result_lines(client, statements, spark, hbase, request)
    assert [parts for parts in lines if len(parts) == 4] == [["3", "1", "1", "1"], ["1", "1", "0", "0"]]
    assert [parts for parts in lines if len(parts) == 3] == [
        ["1", "a", "10"],
        ["2", "b", "25"],
        ["4", "through the catalog", "40"],
        ["7", "new", "70"],
    ]


@pytest.mark.parametrize("client", ["pyspark", "spark-sql", "beeline"])
def test_tables_named_through_the_hbase_catalog_through_every_client(client, spark, hbase, request, tmp_path):
    t = f"c_{uuid.uuid4().hex[:8]}"
    (tmp_path / "c.csv").write_text("c,3,z\n")
    statements = [
        f"CREATE TABLE hbase.{t} (k STRING, v INT, PRIMARY KEY (k)) MAPPED BY ({t}, COLS=[v=f.v])",
        f"ALTER TABLE hbase.{t} ADD COLUMN w STRING MAPPED BY (w = f.w)",
        f"INSERT INTO hbase.default.{t} VALUES ('a', 1, 'x'), ('b', 2, 'y')",
        f"LOAD DATA LOCAL INPATH '{tmp_path}' INTO TABLE hbase.{t}",
        f"UPDATE hbase.{t} SET v = v * 10 WHERE k = 'b'",
        f"CREATE INDEX by_v ON hbase.{t} (v)",
        f"SHOW INDEXES ON hbase.{t}",
        f"ALTER TABLE hbase.default.{t} DROP COLUMN w",
        f"SHOW TABLES IN hbase LIKE '{t}'",
        f"SELECT k, v FROM hbase.{t} ORDER BY k",
        f"DROP TABLE hbase.{t}",
        f"SHOW TABLES IN hbase LIKE '{t}'",
    ]
    if client == "pyspark":
        lines = [
            [str(v).lower() if isinstance(v, bool) else str(v) for v in r]
            for s in statements
            for r in spark.sql(s).collect()
        ]
    else:
        lines = [
            [p.strip() for p in line.split("\t")]
            for line in run_cli(client, ";\n".join(statements) + ";", hbase, request).strip().splitlines()
        ]
    # spark-sql prints SHOW TABLES as Hive does: the names alone.
    shown = [["hbase", t, "false"]] if client != "spark-sql" else []
    assert [parts for parts in lines if len(parts) == 1] == [["1"]] + ([[t]] if client == "spark-sql" else [])
    assert [parts for parts in lines if len(parts) == 2] == [["1", "0"], ["a", "1"], ["b", "20"], ["c", "3"]]
    assert [parts for parts in lines if len(parts) == 3] == shown
    # SHOW INDEXES: name, type, columns, chunkRows, chunks, trustedChunks, state, covered, rows.
    assert [parts[:3] + parts[6:7] for parts in lines if len(parts) == 9] == [["by_v", "minmax", "v", "ready"]]
