"""Thrift JDBC: `spark-hbase thriftserver` serves HBase SQL to pyspark's own beeline."""

import subprocess
import sys
from pathlib import Path

import pytest
from pyspark_hbase.thriftserver import ThriftServer, beeline_command

SPARK_HBASE = str(Path(sys.executable).parent / "spark-hbase")


@pytest.fixture(scope="module")
def jdbc_url(hbase):
    data_dir = ["--data-dir", str(hbase.data_dir)] if hbase else []
    started = subprocess.run(
        [SPARK_HBASE, "thriftserver", "start", *data_dir], capture_output=True, text=True, timeout=600
    )
    assert started.returncode == 0, started.stderr
    url = started.stdout.strip().splitlines()[-1]
    try:
        yield url
    finally:
        subprocess.run([SPARK_HBASE, "thriftserver", "stop", *data_dir], timeout=120)


def beeline(url, sql):
    return subprocess.run(
        beeline_command(url, "--silent=true", "--outputformat=tsv2", "-e", sql),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_start_prints_a_loopback_jdbc_url_and_status_agrees(jdbc_url, hbase):
    assert jdbc_url.startswith("jdbc:hive2://127.0.0.1:")
    data_dir = ["--data-dir", str(hbase.data_dir)] if hbase else []
    status = subprocess.run([SPARK_HBASE, "thriftserver", "status", *data_dir], capture_output=True, text=True)
    assert status.returncode == 0 and status.stdout.strip() == jdbc_url
    again = subprocess.run([SPARK_HBASE, "thriftserver", "start", *data_dir], capture_output=True, text=True)
    assert again.stdout.strip() == jdbc_url, "a second start reuses the running server"


def test_beeline_runs_ddl_insert_and_select(jdbc_url, table_name):
    out = beeline(
        jdbc_url,
        f"""
        CREATE TABLE {table_name} (id INT, city STRING, PRIMARY KEY (id)) MAPPED BY ({table_name}, COLS=[city=c.city]);
        INSERT INTO {table_name} VALUES (2, 'Lima'), (1, 'Oslo');
        SELECT * FROM {table_name} WHERE id >= 1;
        DESCRIBE {table_name};""",
    )
    assert out.returncode == 0, out.stderr
    assert "id\tcity\n1\tOslo\n2\tLima\n" in out.stdout
    assert f"HBase table\t{table_name}" in out.stdout


def test_beeline_gets_the_error_message_of_a_bad_statement(jdbc_url, table_name):
    out = beeline(
        jdbc_url,
        f"CREATE TABLE {table_name} (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ({table_name}, COLS=[k=f.k, v=f.v])",
    )
    assert out.returncode != 0
    assert "key column 'k' is part of the row key" in out.stderr


def test_stop_when_not_running_says_so(tmp_path):
    assert ThriftServer(tmp_path).stop() is False
