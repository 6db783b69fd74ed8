# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Thrift JDBC: `spark-hbase thriftserver` serves HBase SQL to JDBC clients, pyspark's own beeline
and PyHive (what dbt-spark and Python BI tools use), over many sessions, one after another and
at the same time, as real clients open and close them."""

import os
import socket
import subprocess
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import SPARK_HBASE, data_dir_args, jdbc_session, port_of
from pyspark_hbase._paths import plugin_jars
from pyspark_hbase.daemons import HOST, ServerError, pick_free_ports, read_state, write_state
from pyspark_hbase.session import submit_args
from pyspark_hbase.spark_catalog import configured_catalog_implementation
from pyspark_hbase.thriftserver import ThriftServer, beeline_command
from spark_submit import SUBMIT, submit_env


def beeline(url, sql):
    return subprocess.run(
        beeline_command(url, "--silent=true", "--outputformat=tsv2", "-e", sql),
        capture_output=True,
        text=True,
        timeout=300,
    )


def a_table_s_life(port: int, table: str) -> None:
    """What a client does with a table of its own: create, write, read by key, describe, drop; every answer exact."""
    created, inserted, keyed, counted, described, dropped = jdbc_session(
        port,
        f"CREATE TABLE {table} (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ({table}, COLS=[v=f.v]) SPLIT ON ((50))",
        f"INSERT INTO {table} SELECT CAST(id AS INT), concat('v', id) FROM range(100)",
        f"SELECT k, v FROM {table} WHERE k BETWEEN 48 AND 51 ORDER BY k",
        f"SELECT count(*) FROM hbase.{table} WHERE k >= 90",
        f"DESCRIBE {table}",
        f"DROP TABLE {table}",
    )
    assert keyed == [(48, "v48"), (49, "v49"), (50, "v50"), (51, "v51")]
    assert counted == [(10,)]
    assert described[:2] == [("k", "int", "row key part 1 of 1; NOT NULL"), ("v", "string", "cell f.v")]
    assert table not in [name for _, name, _ in jdbc_session(port, "SHOW TABLES IN hbase")[0]]


def test_start_prints_a_loopback_jdbc_url_and_status_agrees(jdbc_url, hbase):
    assert jdbc_url.startswith("jdbc:hive2://127.0.0.1:")
    status = subprocess.run(
        [SPARK_HBASE, "thriftserver", "status", *data_dir_args(hbase)], capture_output=True, text=True
    )
    assert status.returncode == 0 and status.stdout.strip() == jdbc_url
    again = subprocess.run(
        [SPARK_HBASE, "thriftserver", "start", *data_dir_args(hbase)], capture_output=True, text=True
    )
    assert again.stdout.strip() == jdbc_url, "a second start reuses the running server"
    elsewhere = pick_free_ports(1)[0]
    moved = subprocess.run(
        [SPARK_HBASE, "thriftserver", "start", "--port", str(elsewhere), *data_dir_args(hbase)],
        capture_output=True,
        text=True,
    )
    assert moved.returncode == 1
    assert f"already runs on port {port_of(jdbc_url)}, not {elsewhere}: stop it first" in moved.stderr


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


def test_sessions_opened_and_closed_one_after_another_keep_the_plugin(jdbc_url):
    """Closing a JDBC session used to close the class loader of the plugin: the next session's
    HBase statements failed with NoClassDefFoundError until the server was restarted."""
    port = port_of(jdbc_url)
    for round_ in range(3):
        assert jdbc_session(port, "SHOW TABLES IN hbase") is not None  # a session that loads few classes, then closes
        a_table_s_life(port, f"seq_{round_}_{uuid.uuid4().hex[:8]}")
        out = beeline(jdbc_url, "SHOW NAMESPACES IN hbase")
        # beeline prints its prompt before the first line.
        assert out.returncode == 0 and out.stdout.split()[-2:] == ["namespace", "hbase"], out.stderr


def test_hive_s_function_registry_loads_so_a_session_close_that_registers_it_does_not_fail(jdbc_url):
    """Closing a session can make Hive 2.3 register its functions (on a thread without a metastore client yet);
    get_splits needs Hive's LLAP classes, which Spark 4 no longer ships and the launcher adds."""
    (loaded,) = jdbc_session(
        port_of(jdbc_url),
        "SELECT reflect('java.lang.Class', 'forName', 'org.apache.hadoop.hive.ql.exec.FunctionRegistry')",
    )
    assert loaded == [("class org.apache.hadoop.hive.ql.exec.FunctionRegistry",)]


def test_five_sessions_at_once_then_one_after_all_closed(jdbc_url):
    port = port_of(jdbc_url)
    tables = [f"conc_{n}_{uuid.uuid4().hex[:8]}" for n in range(5)]
    with ThreadPoolExecutor(max_workers=5) as pool:
        for done in [pool.submit(a_table_s_life, port, t) for t in tables]:
            done.result(timeout=600)
    a_table_s_life(port, f"after_{uuid.uuid4().hex[:8]}")


def test_sessions_close_without_hive_retrying_a_metastore_it_cannot_open(jdbc_url, hbase):
    """Closing a session makes Hive's session code open a metastore client; with Spark's tables in memory it took
    the Derby URL of Spark's execution Hive, which does not open, and retried it for 20 s a session."""
    for _ in range(2):
        assert jdbc_session(port_of(jdbc_url), "SELECT 1") == [[(1,)]]
    log = ThriftServer(hbase.data_dir if hbase else None).log_file.read_text(errors="replace")
    assert "Retrying creating default database" not in log and "Failed to create database" not in log


def test_one_part_names_go_to_spark_s_tables_and_views_first_then_to_hbase_s(jdbc_url, table_name):
    """The server keeps Spark's own tables and views in memory (no Hive metastore is configured here); a one-part
    name still means a Spark view or table of that name if there is one, in this session or made by another, and
    else the HBase table."""
    port = port_of(jdbc_url)
    (implementation, _, _, _) = jdbc_session(
        port,
        "SET spark.sql.catalogImplementation",
        f"CREATE TABLE {table_name} (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ({table_name}, COLS=[v=f.v])",
        f"INSERT INTO {table_name} VALUES (1, 'in hbase')",
        f"CREATE VIEW {table_name} AS SELECT 2 AS k, 'a spark view' AS v",
    )
    assert implementation == [("spark.sql.catalogImplementation", "in-memory")]
    _, temporary, viewed, through_catalog, _, another_s_view, _ = jdbc_session(
        port,
        f"CREATE TEMPORARY VIEW {table_name} AS SELECT 3 AS k, 'a temporary view' AS v",
        f"SELECT k, v FROM {table_name}",
        f"SELECT k, v FROM default.{table_name}",
        f"SELECT k, v FROM hbase.{table_name}",
        f"DROP VIEW {table_name}",
        f"SELECT k, v FROM {table_name}",
        f"DROP VIEW default.{table_name}",
    )
    assert temporary == [(3, "a temporary view")] and viewed == [(2, "a spark view")]
    assert through_catalog == [(1, "in hbase")] and another_s_view == [(2, "a spark view")]
    (in_hbase, _, spark_rows) = jdbc_session(
        port,
        f"SELECT k, v FROM {table_name}",
        f"CREATE TABLE spark_{table_name} USING parquet AS SELECT 4 AS k",
        f"SELECT k FROM spark_{table_name}",
    )
    assert in_hbase == [(1, "in hbase")] and spark_rows == [(4,)]
    jdbc_session(port, f"DROP TABLE spark_{table_name}", f"DROP TABLE {table_name}")


def test_a_restart_keeps_the_port_and_the_hbase_tables_and_forgets_spark_s_own(jdbc_url, hbase, table_name):
    port = port_of(jdbc_url)
    jdbc_session(
        port,
        f"CREATE TABLE {table_name} (k INT, PRIMARY KEY (k)) MAPPED BY ({table_name})",
        f"INSERT INTO {table_name} VALUES (7)",
        f"CREATE TABLE spark_{table_name} USING parquet AS SELECT 8 AS k",
    )
    stopped = subprocess.run(
        [SPARK_HBASE, "thriftserver", "stop", *data_dir_args(hbase)], capture_output=True, text=True
    )
    assert stopped.stdout.strip() == "Thrift server stopped"
    started = subprocess.run(
        [SPARK_HBASE, "thriftserver", "start", *data_dir_args(hbase)], capture_output=True, text=True, timeout=600
    )
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == jdbc_url, "a profiles.yml or a BI tool's connection outlives a restart"
    assert "Spark's own tables and views made through it: in memory, until it stops" in started.stderr
    assert jdbc_session(port_of(jdbc_url), "SHOW NAMESPACES IN hbase") == [[("hbase",)]]
    spark_tables, hbase_rows, _, made_again = jdbc_session(
        port,
        "SHOW TABLES IN default",
        f"SELECT k FROM {table_name}",
        # Its files went with it: a table of the same name can be made again.
        f"CREATE TABLE spark_{table_name} USING parquet AS SELECT 9 AS k",
        f"SELECT k FROM spark_{table_name}",
    )
    assert f"spark_{table_name}" not in [name for _, name, _ in spark_tables]
    assert hbase_rows == [(7,)] and made_again == [(9,)]
    jdbc_session(port, f"DROP TABLE spark_{table_name}", f"DROP TABLE {table_name}")


def test_spark_s_tables_go_to_a_hive_metastore_only_where_one_is_configured(tmp_path, monkeypatch):
    conf, hive, hadoop = (tmp_path / d for d in ("spark-conf", "hive-conf", "hadoop-conf"))
    for d in (conf, hive, hadoop):
        d.mkdir()
    environ = {"SPARK_CONF_DIR": str(conf)}
    assert configured_catalog_implementation(environ) == "in-memory"
    (hadoop / "hive-site.xml").write_text("<configuration/>")
    assert configured_catalog_implementation({**environ, "HADOOP_CONF_DIR": str(hadoop)}) == "hive"
    assert configured_catalog_implementation({**environ, "HIVE_CONF_DIR": str(hive)}) == "in-memory"
    (hive / "hive-site.xml").write_text("<configuration/>")
    assert configured_catalog_implementation({**environ, "HIVE_CONF_DIR": str(hive)}) == "hive"
    # Spark's own setting, in the defaults spark-submit reads, wins over a hive-site.xml.
    (conf / "spark-defaults.conf").write_text("spark.master local[2]\nspark.sql.catalogImplementation  in-memory\n")
    assert configured_catalog_implementation({**environ, "HIVE_CONF_DIR": str(hive)}) == "in-memory"
    (conf / "spark-defaults.conf").write_text("spark.sql.catalogImplementation=hive\n")
    assert configured_catalog_implementation(environ) == "hive"
    (conf / "spark-defaults.conf").write_text("spark.sql.catalogImplementation derby\n")
    with pytest.raises(ValueError) as bad:
        configured_catalog_implementation(environ)
    assert str(bad.value) == (
        f"spark.sql.catalogImplementation in {conf / 'spark-defaults.conf'} is 'derby': it can be in-memory or hive"
    )
    # The command says so, without a stack trace.
    refused = subprocess.run(
        [SPARK_HBASE, "sql", "-e", "SELECT 1"],
        env=dict(os.environ, SPARK_CONF_DIR=str(conf)),
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 1 and refused.stderr.startswith(
        "spark-hbase: error: spark.sql.catalogImplementation in"
    )
    assert "Traceback" not in refused.stderr
    # The launcher's choice, unless it is told otherwise; a server that forgets its tables has its own warehouse.
    monkeypatch.setenv("SPARK_CONF_DIR", str(hive))
    assert ThriftServer(tmp_path).spark_conf()["spark.sql.catalogImplementation"] == "hive"
    server = ThriftServer(tmp_path, catalog_implementation="in-memory")
    assert server.spark_conf()["spark.sql.catalogImplementation"] == "in-memory"
    assert server.warehouse_dir == server.dir / "in-memory-warehouse"
    assert ThriftServer(tmp_path, catalog_implementation="hive").warehouse_dir == server.dir / "warehouse"


def test_the_port_is_the_one_asked_for_else_the_last_one_if_free(tmp_path):
    server = ThriftServer(tmp_path)
    server.dir.mkdir(parents=True)
    asked, last, taken_port = pick_free_ports(3)
    assert server._port_to_listen_on(asked) == asked
    write_state(server.state_file, {"pid": None, "port": last})
    assert server._port_to_listen_on(None) == last
    with socket.socket() as taken:
        taken.bind((HOST, taken_port))
        taken.listen()
        with pytest.raises(ServerError, match=f"--port {taken_port}: port {taken_port} of 127.0.0.1 is in use"):
            server._port_to_listen_on(taken_port)
        write_state(server.state_file, {"pid": None, "port": taken_port})
        chosen = server._port_to_listen_on(None)
        assert chosen != taken_port and read_state(server.state_file)["port"] == taken_port
    with pytest.raises(ServerError, match="--port 70000: a port is a number from 1 to 65535"):
        server._port_to_listen_on(70000)


def _spark_s_own_server(hbase, tmp_path, flags: list, port: int) -> subprocess.Popen:
    """HiveThriftServer2 started with Spark's own spark-submit, as start-thriftserver.sh does."""
    command = [
        str(SUBMIT),
        "--class",
        "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2",
        "--name",
        "Thrift JDBC/ODBC Server",
        *flags,
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        f"spark.sql.warehouse.dir={tmp_path / 'warehouse'}",
        "--driver-java-options",
        f"-Dderby.system.home={tmp_path}",
        "spark-internal",
        "--hiveconf",
        f"hive.server2.thrift.bind.host={HOST}",
        "--hiveconf",
        f"hive.server2.thrift.port={port}",
    ]
    env = dict(submit_env(), SPARK_LOCAL_IP=HOST)
    log = open(tmp_path / "server.log", "wb")
    return subprocess.Popen(command, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT)


def test_a_server_started_with_spark_s_own_launcher_and_the_printed_flags_keeps_the_plugin(hbase, tmp_path):
    """The README's way for one's own Spark: spark-submit (or start-thriftserver.sh) with the flags of `spark-hbase conf`."""
    flags = subprocess.run(
        [SPARK_HBASE, "conf", *data_dir_args(hbase)], capture_output=True, text=True, check=True
    ).stdout.split()
    assert "--driver-class-path" in flags
    port = pick_free_ports(1)[0]
    server = _spark_s_own_server(hbase, tmp_path, flags, port)
    try:
        deadline = time.monotonic() + 240
        while True:
            try:
                jdbc_session(port, "SELECT 1")
                break
            except Exception:
                assert server.poll() is None, (tmp_path / "server.log").read_text()[-3000:]
                assert time.monotonic() < deadline, "the Thrift server did not come up"
                time.sleep(1)
        for round_ in range(2):
            a_table_s_life(port, f"own_{round_}_{uuid.uuid4().hex[:8]}")
    finally:
        server.terminate()
        server.wait(60)


def test_a_server_given_the_plugin_only_through_jars_is_refused_at_start_saying_why(hbase, tmp_path):
    without_class_path = submit_args(data_dir=hbase.data_dir if hbase else None)
    at = without_class_path.index("--driver-class-path")
    del without_class_path[at : at + 2]
    server = _spark_s_own_server(hbase, tmp_path, without_class_path, pick_free_ports(1)[0])
    try:
        assert server.wait(240) != 0
    finally:
        if server.poll() is None:
            server.kill()
    log = (tmp_path / "server.log").read_text()
    assert "spark-hbase-sql is loaded from --jars (or spark.jars) in Spark's Thrift server" in log
    assert f"Put the jar on the driver's class path too: --driver-class-path {plugin_jars()[0]} " in log


def test_stop_when_not_running_says_so(tmp_path):
    assert ThriftServer(tmp_path).stop() is False
