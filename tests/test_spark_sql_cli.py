# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The spark-sql CLI and the `spark-hbase` command, as a user runs them."""

import subprocess
import sys
from pathlib import Path

import pytest
from pyspark_hbase.session import EXTENSION_CLASS

# The console script that `pip install` put next to this Python.
SPARK_HBASE = str(Path(sys.executable).parent / "spark-hbase")


def spark_hbase(*args, timeout=600):
    return subprocess.run([SPARK_HBASE, *args], capture_output=True, text=True, timeout=timeout)


def data_dir_args(hbase):
    return ["--data-dir", str(hbase.data_dir)] if hbase else []


def test_conf_prints_flags_for_spark_submit(hbase):
    out = spark_hbase("conf", *data_dir_args(hbase))
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("--jars ")
    assert f"--conf spark.sql.extensions={EXTENSION_CLASS}" in out.stdout
    if hbase:
        assert f"spark.hbase.zookeeper.property.clientPort={hbase.zk_port}" in out.stdout


def test_spark_sql_creates_inserts_and_selects(hbase, table_name):
    """Here with Spark's own tables in a Hive metastore, as the user's setting asks (the default keeps them in memory
    where no metastore is configured)."""
    out = spark_hbase(
        "sql",
        *data_dir_args(hbase),
        "-e",
        f"""
        SET spark.sql.catalogImplementation;
        CREATE TABLE {table_name} (id INT, name STRING, PRIMARY KEY (id)) MAPPED BY ({table_name}, COLS=[name=u.name]);
        INSERT INTO {table_name} VALUES (2, 'grace'), (1, 'ada');
        SELECT * FROM {table_name};""",
        "--conf",
        "spark.sql.catalogImplementation=hive",
    )
    assert out.returncode == 0, out.stderr
    assert "spark.sql.catalogImplementation\thive\n" in out.stdout
    assert "1\tada\n2\tgrace\n" in out.stdout


def test_spark_sql_runs_a_file_of_statements(hbase, table_name, tmp_path):
    script = tmp_path / "load.sql"
    script.write_text(f"""
        CREATE TABLE {table_name} (k BIGINT, v DOUBLE, PRIMARY KEY (k)) MAPPED BY ({table_name}, COLS=[v=f.v]);
        INSERT INTO {table_name} SELECT id, id / 4.0 FROM range(0, 40);
        SELECT count(*), max(v) FROM {table_name} WHERE k >= 20;
        SET spark.sql.catalogImplementation;
    """)
    out = spark_hbase("sql", *data_dir_args(hbase), "-f", str(script))
    assert out.returncode == 0, out.stderr
    assert "20\t9.75\n" in out.stdout
    # No Hive metastore is configured here: Spark's own tables are kept in memory.
    assert "spark.sql.catalogImplementation\tin-memory\n" in out.stdout


def test_spark_sql_reports_a_bad_statement_clearly(hbase, table_name):
    out = spark_hbase(
        "sql",
        *data_dir_args(hbase),
        "-e",
        f"CREATE TABLE {table_name} (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ({table_name}, COLS=[k=f.k, v=f.v])",
    )
    assert out.returncode != 0
    assert "key column 'k' is part of the row key" in out.stderr
    assert "\tat org.apache" not in out.stderr, "a user mistake is reported without a stack trace"


def test_tables_and_rows_survive_an_hbase_restart(hbase, table_name):
    if hbase is None:
        pytest.skip("restarting needs the embedded HBase; HBASE_CONF_DIR names an external one")
    created = spark_hbase(
        "sql",
        *data_dir_args(hbase),
        "-e",
        f"""
        CREATE TABLE {table_name} (k STRING, n BIGINT, PRIMARY KEY (k)) MAPPED BY ({table_name}, COLS=[n=f.n]);
        INSERT INTO {table_name} VALUES ('x', 1), ('y', 2);
        CREATE TABLE spark_{table_name} USING parquet AS SELECT 1 AS one;""",
    )
    assert created.returncode == 0, created.stderr

    assert spark_hbase("local", "stop", *data_dir_args(hbase)).returncode == 0
    assert spark_hbase("local", "status", *data_dir_args(hbase)).returncode == 1
    assert spark_hbase("local", "start", *data_dir_args(hbase)).returncode == 0

    # Spark's own tables, kept in memory here, end with each run, files and all: one of the same name can be made.
    out = spark_hbase(
        "sql",
        *data_dir_args(hbase),
        "-e",
        f"SHOW TABLES IN hbase; SELECT k, n FROM {table_name}; SHOW TABLES IN default; "
        f"CREATE TABLE spark_{table_name} USING parquet AS SELECT 2 AS two; SELECT two FROM spark_{table_name};",
    )
    assert out.returncode == 0, out.stderr
    assert f"\n{table_name}\n" in f"\n{out.stdout}", "spark-sql prints SHOW TABLES as Hive does: names alone"
    assert "x\t1\ny\t2\n" in out.stdout
    assert f"spark_{table_name}" not in out.stdout, "SHOW TABLES IN default lists no Spark table of the earlier run"
    assert out.stdout.endswith("\n2\n")
