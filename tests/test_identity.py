# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""One server, many users: with `--identity per-user`, each JDBC user's statements on the Thrift
server, and each Spark Connect session's on the Connect server, reach HBase as that user, so
HBase's own grants decide what each may read and write (docs/deployment.md, Identities). The HBase here checks rights with its AccessController under simple authentication,
which takes each client's user name at its word; the user running the tests is its superuser."""

import getpass
import os
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pyspark
import pytest
from conftest import SPARK_HBASE, jdbc_refused, jdbc_rows, port_of
from connect_clients import connect_as, connect_denied, stream_csv_into
from pyhive import hive
from pyspark_hbase import _paths
from pyspark_hbase.connect import ConnectServer
from pyspark_hbase.daemons import HOST
from pyspark_hbase.local import LocalHBase
from pyspark_hbase.thriftserver import ThriftServer
from pyspark_hbase_testing.access import change_rights, grant, revoke, simple_access_control
from pyspark_hbase_testing.jvm import SHORT_LIVED_JVM_FLAGS

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("HBASE_CONF_DIR")), reason="needs the embedded HBase: it starts one that checks rights"
)

ADMIN = getpass.getuser()


@pytest.fixture(scope="module")
def acl_hbase(tmp_path_factory):
    local = LocalHBase(tmp_path_factory.mktemp("acl-hbase"))
    local.start(region_servers=1, additions=simple_access_control())
    try:
        yield local
    finally:
        local.stop()


@contextmanager
def per_user_server(kind: str, hbase: LocalHBase):
    """The URL of a `kind` server (thriftserver, connect) started as a user starts one for many users, stopped after."""
    data_dir = ["--data-dir", str(hbase.data_dir)]
    started = subprocess.run(
        [SPARK_HBASE, kind, "start", "--identity", "per-user", *data_dir], capture_output=True, text=True, timeout=600
    )
    assert started.returncode == 0, started.stderr
    try:
        yield started.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run([SPARK_HBASE, kind, "stop", *data_dir], timeout=120)


@pytest.fixture(scope="module")
def per_user(acl_hbase):
    """The port of a per-user Thrift server."""
    with per_user_server("thriftserver", acl_hbase) as url:
        yield port_of(url)


@pytest.fixture(scope="module")
def tables(acl_hbase, per_user):
    """t1 and t2 of 100 rows each in two regions, made by HBase's superuser; alice may read and
    write t1, bob t2, and both read our catalog, to find them."""
    admin = hive.connect(host=HOST, port=per_user, username=ADMIN)
    try:
        for table, letter in (("t1", "a"), ("t2", "b")):
            jdbc_rows(
                admin,
                f"CREATE TABLE {table} (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY (id_{table}, COLS=[v=f.v]) "
                "SPLIT ON ((50))",
            )
            jdbc_rows(admin, f"INSERT INTO {table} SELECT CAST(id AS INT), CONCAT('{letter}', id) FROM range(100)")
    finally:
        admin.close()
    change_rights(
        acl_hbase,
        [
            ("grant", "alice", "id_t1", "RW"),
            ("grant", "bob", "id_t2", "RW"),
            *(("grant", user, "@spark_hbase_sql", "R") for user in ("alice", "bob")),
        ],
    )
    return ("t1", "t2")


def jdbc_metadata(port: int, user: str, schema: str, table: str) -> dict:
    """A JDBC client's getSchemas, getTables and getColumns (Hive's driver, as BI tools use it): rows by call."""
    jars = Path(pyspark.__file__).parent / "jars"
    done = subprocess.run(
        [
            _paths.java_executable(),
            *SHORT_LIVED_JVM_FLAGS.split(),
            "-cp",
            f"{jars}/*",
            str(Path(__file__).parent / "JdbcMetadata.java"),
            f"jdbc:hive2://{HOST}:{port}/default",
            user,
            schema,
            table,
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    seen = {"schemas": [], "tables": [], "columns": []}
    for line in done.stdout.splitlines():
        call, *fields = line.split("\t")
        seen[call].append(dict(field.split("=", 1) for field in fields))
    return seen


def test_each_jdbc_user_lists_the_hbase_tables_and_columns_hbase_lets_them_read(acl_hbase, per_user, tables):
    from sqlalchemy import create_engine, inspect

    columns = {
        table: [
            # name, type name, java.sql.Types code, remarks, position, nullable
            ("k", "INT", "4", "row key, part 1 of 1", "1", "NO"),
            ("v", "STRING", "12", "", "2", "YES"),
        ]
        for table in tables
    }
    for user, readable in ((ADMIN, ["t1", "t2"]), ("alice", ["t1"]), ("bob", ["t2"])):
        seen = jdbc_metadata(per_user, user, "hbase", "t_")
        assert [s["TABLE_SCHEM"] for s in seen["schemas"]] == ["hbase"], (user, seen["schemas"])
        assert [(t["TABLE_SCHEM"], t["TABLE_NAME"], t["TABLE_TYPE"]) for t in seen["tables"]] == [
            ("hbase", table, "TABLE") for table in readable
        ], (user, seen["tables"])
        assert [
            (
                c["TABLE_NAME"],
                c["COLUMN_NAME"],
                c["TYPE_NAME"],
                c["DATA_TYPE"],
                c["REMARKS"],
                c["ORDINAL_POSITION"],
                c["IS_NULLABLE"],
            )
            for c in seen["columns"]
        ] == [(table, *column) for table in readable for column in columns[table]], (user, seen["columns"])
        # In SQL, SHOW TABLES IN hbase lists the same.
        connection = hive.connect(host=HOST, port=per_user, username=user)
        try:
            assert [row[:2] for row in jdbc_rows(connection, "SHOW TABLES IN hbase")] == [
                ["hbase", t] for t in readable
            ]
        finally:
            connection.close()
        # DESCRIBE and SHOW CREATE TABLE show the same tables, by either name, and refuse the others.
        connection = hive.connect(host=HOST, port=per_user, username=user)
        try:
            for table in tables:
                for name in (f"hbase.{table}", table):
                    if table in readable:
                        described = jdbc_rows(connection, f"DESCRIBE {name}")
                        assert [row[:2] for row in described[:2]] == [["k", "int"], ["v", "string"]], described
                        # HBase shows family settings only to users with ADMIN or CREATE on the table.
                        families = [row[:2] for row in described if row[0].startswith("Famil")]
                        assert families == (
                            [["Family f", families[0][1]]] if user == ADMIN else [["Families", "not shown"]]
                        )
                        shown = jdbc_rows(connection, f"SHOW CREATE TABLE {name}")[0][0]
                        assert f"MAPPED BY ('id_{table}'" in shown, shown
                        assert jdbc_rows(connection, f"DESCRIBE {name} v") == [
                            ["col_name", "v"],
                            ["data_type", "string"],
                            ["comment", "cell f.v"],
                        ]
                    else:
                        for statement, text in (
                            ("DESCRIBE", f"DESCRIBE {name}"),
                            ("DESCRIBE", f"DESCRIBE {name} v"),
                            ("SHOW CREATE TABLE", f"SHOW CREATE TABLE {name}"),
                        ):
                            refused = jdbc_refused(connection, text)
                            assert (
                                f"HBase denied access: {statement} of table '{table}'" in refused
                                and f"HBase table 'id_{table}', and user '{user}' may not" in refused
                            ), refused
        finally:
            connection.close()
        # SQLAlchemy's inspector over PyHive (Superset's way) asks in SQL too. PyHive 0.7 reads
        # Spark's SHOW TABLES as Hive's: it takes its first column, the schema, for each table's
        # name (for Spark's own tables as well), so it gets one 'hbase' per table the user may read.
        engine = create_engine(f"hive://{user}@{HOST}:{per_user}/default")
        try:
            assert inspect(engine).get_table_names(schema="hbase") == ["hbase"] * len(readable), user
        finally:
            engine.dispose()
    # Spark's own tables are still listed, with the HBase schema beside them.
    seen = jdbc_metadata(per_user, ADMIN, "%", "%")
    assert {"default", "hbase"} <= {s["TABLE_SCHEM"] for s in seen["schemas"]}, seen["schemas"]


def test_each_jdbc_user_reads_and_writes_only_what_hbase_grants_them_statement_after_statement(
    acl_hbase, per_user, tables, tmp_path
):
    admin, alice, bob = (hive.connect(host=HOST, port=per_user, username=u) for u in (ADMIN, "alice", "bob"))
    try:
        # Alternating users on one server: no connection is lent from one to the other.
        for round in range(2):
            # A key range over both regions, its aggregate pushed to the region server.
            assert jdbc_rows(alice, "SELECT count(*), min(v) FROM t1 WHERE k BETWEEN 10 AND 60") == [[51, "a10"]]
            refused = jdbc_refused(bob, "SELECT count(*) FROM t1 WHERE k BETWEEN 10 AND 60")
            assert "HBase denied access" in refused and "bob" in refused and "id_t1" in refused, refused
            assert "READ" in refused, refused
            assert jdbc_rows(bob, "SELECT k, v FROM t2 WHERE k IN (3, 97) ORDER BY k") == [[3, "b3"], [97, "b97"]]
            refused = jdbc_refused(alice, "SELECT v FROM t2 WHERE k = 3")
            assert "alice" in refused and "id_t2" in refused, refused
            jdbc_rows(alice, f"INSERT INTO t1 VALUES ({1000 + round}, 'alice')")
            refused = jdbc_refused(bob, "INSERT INTO t1 VALUES (2000, 'bob')")
            assert "bob" in refused and "id_t1" in refused and "WRITE" in refused, refused
        assert jdbc_rows(admin, "SELECT count(*), count_if(v = 'alice'), count_if(v = 'bob') FROM t1") == [[102, 2, 0]]
        # LOAD DATA's bulk load, as the user too. HBase lets only a user with CREATE (or ADMIN) on a
        # table bulk-load into it, and read its families' settings, which the HFiles are written with.
        csv = tmp_path / "rows.csv"
        csv.write_text("".join(f"{k},loaded\n" for k in range(500, 510)))
        refused = jdbc_refused(bob, f"LOAD DATA LOCAL INPATH '{csv}' INTO TABLE t2")
        assert "bob" in refused and "id_t2" in refused and "CREATE" in refused, refused
        grant(acl_hbase, "bob", "id_t2", "RWC")
        assert jdbc_rows(bob, f"LOAD DATA LOCAL INPATH '{csv}' INTO TABLE t2")[0][0] == 10
        refused = jdbc_refused(alice, f"LOAD DATA LOCAL INPATH '{csv}' INTO TABLE t2")
        assert "alice" in refused and "id_t2" in refused, refused
        assert jdbc_rows(admin, "SELECT count(*) FROM t2 WHERE v = 'loaded'") == [[10]]
        # Nor may a user choose to be the server.
        assert "CANNOT_MODIFY_STATIC_CONFIG" in jdbc_refused(bob, "SET spark.sql.hbase.identity=process")
        # A revoked grant holds from the next statement on.
        revoke(acl_hbase, "alice", "id_t1", "RW")
        refused = jdbc_refused(alice, "SELECT count(*) FROM t1 WHERE k < 5")
        assert "alice" in refused and "id_t1" in refused, refused
    finally:
        for connection in (admin, alice, bob):
            connection.close()
    assert (
        "HBase identity: per user (spark.sql.hbase.identity=statement)"
        in ThriftServer(acl_hbase.data_dir).log_file.read_text()
    )


def test_a_shared_server_reaches_hbase_as_itself_for_every_user_as_documented(acl_hbase, per_user, tables):
    data_dir = ["--data-dir", str(acl_hbase.data_dir)]
    # The per-user server is not taken for a shared one.
    refused = subprocess.run([SPARK_HBASE, "thriftserver", "start", *data_dir], capture_output=True, text=True)
    assert refused.returncode != 0 and "already runs with" in refused.stderr and "stop it first" in refused.stderr
    subprocess.run([SPARK_HBASE, "thriftserver", "stop", *data_dir], check=True, timeout=120)
    started = subprocess.run(
        [SPARK_HBASE, "thriftserver", "start", "--identity", "shared", *data_dir], capture_output=True, text=True
    )
    assert started.returncode == 0, started.stderr
    carol = hive.connect(host=HOST, port=port_of(started.stdout.strip().splitlines()[-1]), username="carol")
    try:
        # carol has no grant at all: HBase sees the server, its superuser, for her.
        assert jdbc_rows(carol, "SELECT count(*) FROM t2") == [[110]]  # with bob's 10 loaded rows
    finally:
        carol.close()
    log = ThriftServer(acl_hbase.data_dir).log_file.read_text()
    assert "HBase identity: shared (spark.sql.hbase.identity=process)" in log


@pytest.fixture(scope="module")
def per_user_connect(acl_hbase):
    """The URL of a per-user Spark Connect server."""
    with per_user_server("connect", acl_hbase) as url:
        yield url


def test_each_connect_session_reads_and_writes_as_its_user_id(acl_hbase, per_user_connect, tables, tmp_path):
    # alice's grant on t1 was revoked above; bob still reads and writes t2.
    bob, alice = connect_as(per_user_connect, "bob"), connect_as(per_user_connect, "alice")
    try:
        for round in range(2):
            # A key range over both regions, its aggregate pushed to the region server, and Gets.
            assert bob.sql("SELECT count(*), min(v) FROM t2 WHERE k BETWEEN 10 AND 60").collect()[0][:] == (51, "b10")
            assert [tuple(r) for r in bob.table("t2").where("k IN (3, 97)").orderBy("k").collect()] == [
                (3, "b3"),
                (97, "b97"),
            ]
            refused = connect_denied(lambda: alice.sql("SELECT count(*) FROM t2 WHERE k BETWEEN 10 AND 60").collect())
            assert "HBase denied access" in refused and "alice" in refused and "id_t2" in refused, refused
            refused = connect_denied(lambda: alice.table("t1").where("k < 5").collect())
            assert "alice" in refused and "id_t1" in refused, refused
            bob.sql(f"INSERT INTO t2 VALUES ({3000 + round}, 'bob')")
            refused = connect_denied(lambda: alice.sql("INSERT INTO t2 VALUES (4000, 'alice')"))
            assert "alice" in refused and "id_t2" in refused and "WRITE" in refused, refused
        assert bob.sql("SELECT count_if(v = 'bob'), count_if(v = 'alice') FROM t2").collect()[0][:] == (2, 0)
        # A stream's batches write as the user who started it. The sink records each batch's
        # commit in our catalog's column d:sinkCommit, which its user must be let write too.
        grant(acl_hbase, "bob", "spark_hbase_sql:catalog/d/sinkCommit", "W")
        source = tmp_path / "stream"
        source.mkdir()
        (source / "rows.csv").write_text("".join(f"{k},streamed\n" for k in range(6000, 6010)))

        def stream_into_t2(session, name):
            return stream_csv_into(session, source, "t2", tmp_path / f"checkpoint-{name}")

        bobs = stream_into_t2(bob, "bob")
        assert bobs.awaitTermination(180) and bobs.exception() is None, bobs.exception()
        assert bob.sql("SELECT count(*) FROM t2 WHERE v = 'streamed'").collect()[0][0] == 10
        alices = stream_into_t2(alice, "alice")
        refused = connect_denied(lambda: alices.awaitTermination(180))
        assert "HBase denied access" in refused and "alice" in refused and "id_t2" in refused, refused
    finally:
        alice.stop()
        bob.stop()
    assert "Spark Connect sessions as their user ids" in ConnectServer(acl_hbase.data_dir).log_file.read_text()
