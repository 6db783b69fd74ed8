# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Kerberos: the plugin against a secured HBase, with Spark's own Kerberos support.

This module starts a KDC (Hadoop's MiniKdc), then an embedded HBase with three region servers that
authenticates clients with Kerberos (SASL), checks their rights (AccessController) and issues
delegation tokens (TokenProvider). As HBase's superuser it grants alice rights on the namespaces
`default` and `spark_hbase_sql` (where our catalog lives), and bob only read rights on the
latter. Each user's work is an application, `kerberos_job.py`, that spark-submit runs:

- on a local master, the driver logging in with a keytab (spark.kerberos.keytab/.principal), and on a local-cluster
  master, whose executors, JVMs without a keytab, authenticate with the driver's HBase delegation token, which the
  plugin sends with their tasks (Spark sends its tokens to no executor of a standalone master);
- on a one-node YARN (Hadoop's MiniYARNCluster), whose executors are JVMs without a keytab that
  authenticate with the HBase delegation tokens Spark's HBaseDelegationTokenProvider obtains.
  YARN itself runs without Kerberos; only HBase is secured.
"""

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pyspark
import pytest
from connect_clients import connect_as, connect_denied, stream_csv_into
from pyspark_hbase import _paths
from pyspark_hbase import session as hbase_session
from pyspark_hbase.daemons import HOST, accepts, pick_free_ports, terminate, wait_until
from pyspark_hbase.local import LocalHBase
from pyspark_hbase_testing.access import change_rights, revoke
from pyspark_hbase_testing.jvm import SHORT_LIVED_JVM_FLAGS
from pyspark_hbase_testing.kerberos import Kerberos
from pyspark_hbase_testing.kerberos_servers import LocalKdc, LocalYarn
from spark_submit import SUBMIT, submit_env

REPO = Path(__file__).resolve().parents[1]
JOB = REPO / "tests" / "kerberos_job.py"

# The per-user Thrift server's own principal; HBase lets it act for other users.
SERVER_PRINCIPAL = "spark/localhost"
PROXY_USERS = ("spark",)

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("HBASE_CONF_DIR")), reason="needs the embedded HBase: it starts a secured one"
)


@pytest.fixture(scope="module")
def kdc(tmp_path_factory):
    server = LocalKdc(
        tmp_path_factory.mktemp("kdc"),
        {
            "hbase": ["hbase/localhost"],
            "spark": [SERVER_PRINCIPAL],
            **{user: [user] for user in ("alice", "bob", "erin", "frank")},
        },
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def hbase_kerberos(kdc):
    """HBase's own Kerberos: the KDC's krb5.conf and the service's principal and keytab."""
    return Kerberos(kdc.krb5_conf, kdc.principal("hbase/localhost"), kdc.keytab("hbase"))


@pytest.fixture(scope="module")
def secured_hbase(hbase_kerberos, tmp_path_factory):
    local = LocalHBase(tmp_path_factory.mktemp("secured-hbase"))
    local.start(region_servers=3, additions=hbase_kerberos.security(PROXY_USERS))
    try:
        # erin and frank read our catalog; what else they may do, the tests of one server for many users grant.
        change_rights(
            local,
            [
                ("grant", "alice", "@default", "RWXC"),
                ("grant", "alice", "@spark_hbase_sql", "RWXC"),
                *(("grant", user, "@spark_hbase_sql", "R") for user in ("bob", "erin", "frank")),
            ],
        )
        yield local
    finally:
        local.stop()


def test_the_secured_hbase_keeps_its_kerberos_in_its_state_for_every_later_client(secured_hbase, hbase_kerberos):
    # Another LocalHBase of the data dir (a later CLI call, say) reads it back from the state file.
    again = LocalHBase(secured_hbase.data_dir)
    assert again.additions == hbase_kerberos.security(PROXY_USERS)
    site = {
        p.findtext("name"): p.findtext("value")
        for p in ET.parse(secured_hbase.conf_dir / "hbase-site.xml").getroot().iter("property")
    }
    assert site["hbase.security.authentication"] == "kerberos" and site["hbase.superuser"] == "hbase"
    core = {
        p.findtext("name"): p.findtext("value")
        for p in ET.parse(secured_hbase.conf_dir / "core-site.xml").getroot().iter("property")
    }
    assert core == {"hadoop.security.authentication": "kerberos", "hadoop.security.authorization": "true"}
    tool = again._tool_jvm("java", [], "test.log")
    assert f"-Djava.security.krb5.conf={hbase_kerberos.krb5_conf}" in tool
    assert f"-Dspark.hbase.local.login.keytab={hbase_kerberos.keytab}" in tool


def _write_site(path: Path, props: dict) -> None:
    root = ET.Element("configuration")
    for name, value in props.items():
        prop = ET.SubElement(root, "property")
        ET.SubElement(prop, "name").text = name
        ET.SubElement(prop, "value").text = value
    ET.ElementTree(root).write(path)


def _run(steps, work: Path, kdc, hbase, user=None, master="local[2]", conf_dir=None, conf=()):
    """Runs kerberos_job.py with `steps` as `user` (keytab login) or as nobody; returns its results."""
    work.mkdir(parents=True, exist_ok=True)
    steps_file = work / "steps.json"
    steps_file.write_text(json.dumps(steps))
    krb5 = f"-Djava.security.krb5.conf={kdc.krb5_conf}"
    login = (
        [
            "--conf",
            f"spark.kerberos.principal={kdc.principal(user)}",
            "--conf",
            f"spark.kerberos.keytab={kdc.keytab(user)}",
        ]
        if user
        else []
    )
    env = dict(
        os.environ,
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
        SPARK_LOCAL_IP="127.0.0.1",
        # Hadoop security on for the driver, and HBase's settings where Spark's token provider
        # looks: the local HBase's conf dir has both core-site.xml and hbase-site.xml.
        HADOOP_CONF_DIR=str(conf_dir or hbase.conf_dir),
        HBASE_CONF_DIR=str(hbase.conf_dir),
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "python"), os.environ.get("PYTHONPATH")])),
    )
    command = [
        str(Path(sys.executable).parent / "spark-submit"),
        "--master",
        master,
        *hbase_session.submit_args({"spark.hbase.conf.dir": str(hbase.conf_dir)}),
        *login,
        "--driver-java-options",
        krb5,
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        "spark.ui.showConsoleProgress=false",
        "--conf",
        "spark.sql.shuffle.partitions=2",
        "--conf",
        "spark.hbase.client.retries.number=3",
        *conf,
        str(JOB),
        str(steps_file),
    ]
    done = subprocess.run(
        command, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600
    )
    result = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and result, done.stdout[-8000:]
    return json.loads(result[-1][len("RESULT ") :])


def _rows(seen, name):
    assert "rows" in seen[name], seen[name]
    return seen[name]["rows"]


SALES = "sales"
OWNER_STEPS = [
    {
        "name": "create",
        "sql": f"""CREATE TABLE {SALES} (k INT, s STRING, v BIGINT, PRIMARY KEY (k, s))
                                  MAPPED BY ({SALES}, COLS=[v=f.v]) SPLIT ON ((100), (200))""",
    },
    {
        "name": "insert",
        "sql": f"INSERT INTO {SALES} SELECT CAST(id % 300 AS INT), CONCAT('s', id DIV 300), id FROM range(1500)",
    },
    {"name": "key_range", "metrics": True, "sql": f"SELECT count(*), sum(v) FROM {SALES} WHERE k BETWEEN 50 AND 149"},
    {
        "name": "skip_scan",
        "metrics": True,
        "sql": f"SELECT k, s, v FROM {SALES} WHERE k IN (5, 150, 250) AND s = 's3' ORDER BY k",
    },
    {"name": "aggregate", "metrics": True, "sql": f"SELECT s, count(*), sum(v) FROM {SALES} GROUP BY s ORDER BY s"},
    {
        "name": "create_people",
        "sql": "CREATE TABLE people (id INT, name STRING, PRIMARY KEY (id)) "
        "MAPPED BY (people, COLS=[name=f.n]) SPLIT ON ((500))",
    },
    {"name": "load", "sql": "LOAD DATA LOCAL INPATH '{csv1}' INTO TABLE people"},
    {"name": "load_parallel", "sql": "LOAD DATA PARALLEL LOCAL INPATH '{csv2}' INTO TABLE people"},
    {"name": "loaded", "sql": "SELECT count(*), sum(id), max(name) FROM people"},
    {
        "name": "create_copy",
        "sql": "CREATE TABLE people_copy (id INT, name STRING, PRIMARY KEY (id)) "
        "MAPPED BY (people_copy, COLS=[name=f.n])",
    },
    {"name": "copy", "copy": ["people", "people_copy"]},
    {"name": "copied", "sql": "SELECT count(*), sum(id), max(name) FROM people_copy"},
]


@pytest.fixture(scope="module")
def owner_job(kdc, secured_hbase, tmp_path_factory):
    work = tmp_path_factory.mktemp("alice")
    csv1, csv2 = work / "first.csv", work / "second.csv"
    csv1.write_text("".join(f"{i},name{i:04d}\n" for i in range(0, 600)))
    csv2.write_text("".join(f"{i},name{i:04d}\n" for i in range(600, 1000)))
    steps = [dict(s, sql=s["sql"].format(csv1=csv1, csv2=csv2)) if "sql" in s else s for s in OWNER_STEPS]
    # An executor in a JVM of its own, on a master Spark sends no delegation tokens to: the plugin sends the driver's.
    executor_options = f"-Djava.security.krb5.conf={kdc.krb5_conf} {SHORT_LIVED_JVM_FLAGS}"
    return _run(
        steps,
        work,
        kdc,
        secured_hbase,
        user="alice",
        master="local-cluster[1,1,1024]",
        conf=("--conf", f"spark.executor.extraJavaOptions={executor_options}"),
    )


def test_a_user_with_rights_creates_inserts_and_reads_with_key_ranges_skip_scans_and_aggregates(owner_job):
    ids = [i for i in range(1500) if 50 <= i % 300 <= 149]
    assert _rows(owner_job, "key_range") == [[len(ids), sum(ids)]]
    assert owner_job["key_range"]["metrics"]["rowsScanned"] == len(ids)
    assert _rows(owner_job, "skip_scan") == [[k, "s3", 900 + k] for k in (5, 150, 250)]
    assert owner_job["skip_scan"]["metrics"]["rowsRead"] == 3
    assert _rows(owner_job, "aggregate") == [[f"s{g}", 300, sum(range(g * 300, (g + 1) * 300))] for g in range(5)]
    metrics = owner_job["aggregate"]["metrics"]
    # Partial groups from the region servers, not rows: at most 5 groups from each of 3 regions.
    assert metrics["rowsScanned"] == 1500 and metrics["rowsRead"] <= 15


def test_a_user_with_rights_loads_files_and_copies_tables_with_the_dataframe_api(owner_job):
    assert _rows(owner_job, "load") == [[600, 0]]
    assert _rows(owner_job, "load_parallel") == [[400, 0]]
    assert _rows(owner_job, "loaded") == [[1000, sum(range(1000)), "name0999"]]
    assert _rows(owner_job, "copied") == [[1000, sum(range(1000)), "name0999"]]


def test_a_user_without_rights_on_a_table_gets_hbase_access_denied_and_no_rows(kdc, secured_hbase, owner_job, tmp_path):
    seen = _run(
        [
            {"name": "read", "sql": f"SELECT * FROM {SALES} WHERE k = 5"},
            {"name": "write", "sql": f"INSERT INTO {SALES} VALUES (1, 's9', 1)"},
            {
                "name": "create",
                "sql": "CREATE TABLE bobs (id INT, n STRING, PRIMARY KEY (id)) MAPPED BY (bobs, COLS=[n=f.n])",
            },
        ],
        tmp_path,
        kdc,
        secured_hbase,
        user="bob",
    )
    # HBase's own words name the user, the table and the action; no stack trace comes with them.
    for step, words in (
        ("read", [f"user 'bob' (table={SALES}, action=READ)"]),
        ("write", ["user=bob@EXAMPLE.COM", f"scope=default:{SALES}", "action=WRITE"]),
        # bob may read our catalog but not write it
        ("create", ["user=bob@EXAMPLE.COM", "scope=spark_hbase_sql:catalog", "action=WRITE"]),
    ):
        assert "rows" not in seen[step], seen[step]
        error = seen[step]["error"]
        assert error.startswith("AnalysisException: HBase denied access") and "\tat " not in error, error
        assert "Insufficient permissions" in error and all(w in error for w in words), error
    # alice's rows are untouched by bob's INSERT
    assert [
        list(r)
        for r in _run(
            [{"name": "count", "sql": f"SELECT count(*) FROM {SALES} WHERE s = 's9'"}],
            tmp_path / "alice",
            kdc,
            secured_hbase,
            user="alice",
        )["count"]["rows"]
    ] == [[0]]


def test_a_driver_without_a_kerberos_login_gets_the_kerberos_settings_to_check(kdc, secured_hbase, tmp_path):
    seen = _run([{"name": "read", "sql": f"SELECT * FROM {SALES}"}], tmp_path, kdc, secured_hbase)
    error = seen["read"]["error"]
    assert f"HBase at ZooKeeper {secured_hbase.zk_address} did not authenticate this client" in error, error
    assert "spark.kerberos.keytab" in error, error


def test_the_driver_logged_in_with_its_keytab_and_then_used_a_delegation_token(secured_hbase, owner_job):
    # HBase's audit log: Kerberos to obtain the token, the token for everything after.
    logs = "".join(p.read_text(errors="replace") for p in (secured_hbase.data_dir / "logs").glob("*.log"))
    assert "Auth successful for alice@EXAMPLE.COM (auth:KERBEROS)" in logs
    assert "Auth successful for alice@EXAMPLE.COM (auth:TOKEN)" in logs


# ---- executors without a keytab, on YARN ------------------------------------------------------


@pytest.fixture(scope="module")
def yarn(tmp_path_factory):
    java_home = Path(_paths.java_executable()).resolve().parents[1]
    server = LocalYarn(tmp_path_factory.mktemp("yarn"), memory_mb=4096, java_home=str(java_home))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def yarn_client_conf(secured_hbase, yarn, tmp_path_factory):
    """HADOOP_CONF_DIR of a YARN client: Hadoop security on, the YARN site, and HBase's site."""
    conf = tmp_path_factory.mktemp("yarn-client-conf")
    shutil.copy(secured_hbase.conf_dir / "hbase-site.xml", conf / "hbase-site.xml")
    _write_site(
        conf / "core-site.xml",
        {
            "hadoop.security.authentication": "kerberos",
            # This YARN runs without Kerberos.
            "ipc.client.fallback-to-simple-auth-allowed": "true",
            "fs.defaultFS": "file:///",
        },
    )
    site = {p.findtext("name"): p.findtext("value") for p in ET.parse(yarn.site).getroot().iter("property")}
    # Spark asks for file system tokens renewable by YARN's principal; any name will do here.
    site["yarn.resourcemanager.principal"] = "yarn/localhost@EXAMPLE.COM"
    _write_site(conf / "yarn-site.xml", site)
    return conf


def _yarn_conf(kdc, extra=()):
    krb5 = f"-Djava.security.krb5.conf={kdc.krb5_conf}"
    jars = Path(pyspark.__file__).parent / "jars"
    return [
        "--deploy-mode",
        "client",
        "--num-executors",
        "2",
        "--executor-cores",
        "1",
        "--executor-memory",
        "512m",
        "--conf",
        "spark.yarn.am.memory=256m",
        "--conf",
        f"spark.yarn.jars=local:{jars}/*",
        # On a cluster every host has /etc/krb5.conf.
        "--conf",
        f"spark.yarn.am.extraJavaOptions={krb5} {SHORT_LIVED_JVM_FLAGS}",
        "--conf",
        f"spark.executor.extraJavaOptions={krb5} {SHORT_LIVED_JVM_FLAGS}",
        # Every read in a job on the executors, none on the driver.
        "--conf",
        "spark.sql.hbase.driverRead.maxKeyRanges=0",
        *extra,
    ]


YARN_STEPS = [
    {"name": "insert", "sql": f"INSERT INTO {SALES} SELECT CAST(id % 300 AS INT), 's7', id FROM range(3000, 3300)"},
    {"name": "key_range", "sql": f"SELECT count(*), sum(v) FROM {SALES} WHERE k BETWEEN 50 AND 149"},
    {
        "name": "skip_scan",
        "metrics": True,
        "sql": f"SELECT k, s, v FROM {SALES} WHERE k IN (5, 150) AND s IN ('s4', 's7') ORDER BY k, s",
    },
    {"name": "aggregate", "sql": f"SELECT s, count(*), sum(v) FROM {SALES} WHERE s >= 's4' GROUP BY s ORDER BY s"},
]


def test_executors_on_yarn_write_and_read_with_hbase_delegation_tokens(
    kdc, secured_hbase, owner_job, yarn, yarn_client_conf, tmp_path
):
    seen = _run(
        YARN_STEPS,
        tmp_path,
        kdc,
        secured_hbase,
        user="alice",
        master="yarn",
        conf_dir=yarn_client_conf,
        conf=_yarn_conf(kdc),
    )
    assert "rows" in seen["insert"], seen["insert"]
    ids = [i for i in list(range(1500)) + list(range(3000, 3300)) if 50 <= i % 300 <= 149]
    assert _rows(seen, "key_range") == [[len(ids), sum(ids)]]
    assert _rows(seen, "skip_scan") == [[5, "s4", 1205], [5, "s7", 3005], [150, "s4", 1350], [150, "s7", 3150]]
    assert seen["skip_scan"]["metrics"]["rowsRead"] == 4
    assert _rows(seen, "aggregate") == [["s4", 300, sum(range(1200, 1500))], ["s7", 300, sum(range(3000, 3300))]]
    assert sorted(seen["executors"].split(",")) == ["1", "2"], seen["executors"]


def test_executors_on_yarn_without_hbase_tokens_fail_at_once_with_the_kerberos_settings_to_check(
    kdc, secured_hbase, owner_job, yarn, yarn_client_conf, tmp_path
):
    seen = _run(
        [YARN_STEPS[1]],
        tmp_path,
        kdc,
        secured_hbase,
        user="alice",
        master="yarn",
        conf_dir=yarn_client_conf,
        conf=_yarn_conf(kdc, ["--conf", "spark.security.credentials.hbase.enabled=false"]),
    )
    error = seen["key_range"]["error"]
    assert (
        "did not authenticate this client: user alice has neither a Kerberos login nor an HBase delegation token"
        in error
    ), error
    assert "spark.security.credentials.hbase.enabled" in error


# ---- one Thrift server, many users, executors in their own JVMs --------------------------------
#
# The server logs in as spark/localhost and runs each JDBC session's statements as its user
# (hive.server2.enable.doAs); HBase lets spark act for other users (its proxy-user settings). JDBC
# clients log in to the server with Kerberos (hive.server2.authentication=KERBEROS), each user from
# a keytab of their own (KerberosJdbc), so a session's user is the one the KDC vouches for. The same
# server is a Spark Connect server (Spark's Connect plugin) that trusts each Connect session's user
# id, as `spark-hbase connect start --identity per-user` does.


@pytest.fixture(scope="module")
def per_user_server(kdc, secured_hbase, tmp_path_factory):
    """A per-user Thrift server on local-cluster[2,1,1024] that is a Spark Connect server too (Spark's Connect
    plugin), trusting each Connect session's user id: (JDBC port, Connect URL, log). Stopped after."""
    work = tmp_path_factory.mktemp("per-user-server")
    port, connect_port = pick_free_ports(2)
    principal, keytab = kdc.principal(SERVER_PRINCIPAL), kdc.keytab("spark")
    krb5 = f"-Djava.security.krb5.conf={kdc.krb5_conf}"
    command = [
        str(SUBMIT),
        "--class",
        "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2",
        "--master",
        "local-cluster[2,1,1024]",
        *hbase_session.submit_args({"spark.hbase.conf.dir": str(secured_hbase.conf_dir)}),
        "--conf",
        f"spark.kerberos.principal={principal}",
        "--conf",
        f"spark.kerberos.keytab={keytab}",
        "--conf",
        "spark.sql.hbase.identity=statement",
        "--conf",
        "spark.plugins=org.apache.spark.sql.connect.SparkConnectPlugin",
        "--conf",
        f"spark.connect.grpc.binding.address={HOST}",
        "--conf",
        f"spark.connect.grpc.binding.port={connect_port}",
        "--conf",
        "spark.sql.hbase.identity.trustConnectUser=true",
        # Every read in a job on the executors, none on the driver.
        "--conf",
        "spark.sql.hbase.driverRead.maxKeyRanges=0",
        "--conf",
        f"spark.executor.extraJavaOptions={krb5} {SHORT_LIVED_JVM_FLAGS}",
        "--conf",
        f"spark.sql.warehouse.dir={work / 'warehouse'}",
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        "spark.sql.shuffle.partitions=2",
        "--conf",
        "spark.hbase.client.retries.number=3",
        "--driver-java-options",
        f"{krb5} -Dderby.system.home={work} -Dspark.hbase.log.file={work / 'server.log'}",
        "spark-internal",
        *[
            a
            for k, v in {
                "hive.server2.thrift.bind.host": HOST,
                "hive.server2.thrift.port": str(port),
                "hive.server2.enable.doAs": "true",
                # JDBC users log in to the server with Kerberos: a user is who the KDC says, not whom a
                # client names.
                "hive.server2.authentication": "KERBEROS",
                "hive.server2.authentication.kerberos.principal": principal,
                "hive.server2.authentication.kerberos.keytab": keytab,
            }.items()
            for a in ("--hiveconf", f"{k}={v}")
        ],
    ]
    env = dict(submit_env(), HADOOP_CONF_DIR=str(secured_hbase.conf_dir), HBASE_CONF_DIR=str(secured_hbase.conf_dir))
    log = work / "server.log"
    with open(work / "stdout.log", "wb") as out:
        server = subprocess.Popen(
            command,
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        ready = wait_until(lambda: (accepts(port) and accepts(connect_port)) or server.poll() is not None, 300, 0.5)
        assert ready and server.poll() is None, (
            "the Thrift server did not start:\n" + (work / "stdout.log").read_text(errors="replace")[-8000:]
        )
        yield port, f"sc://{HOST}:{connect_port}", log
    finally:
        terminate(server.pid, lambda pid: server.poll() is None, 60)


class KerberosJdbc:
    """A JDBC session of `user` logged in from their keytab (KerberosJdbc.java, Hive's JDBC driver in a JVM of its
    own, as beeline and BI tools connect); without a keytab, a client with no Kerberos login."""

    def __init__(self, kdc, port, user, keytab=True, url_options=""):
        url = f"jdbc:hive2://{HOST}:{port}/default;principal={kdc.principal(SERVER_PRINCIPAL)}{url_options}"
        self.process = subprocess.Popen(
            [
                _paths.java_executable(),
                f"-Djava.security.krb5.conf={kdc.krb5_conf}",
                *SHORT_LIVED_JVM_FLAGS.split(),
                "-cp",
                f"{Path(pyspark.__file__).parent / 'jars'}/*",
                str(REPO / "tests" / "KerberosJdbc.java"),
                kdc.principal(user),
                kdc.keytab(user) if keytab else "-",
                url,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.opened = self._answer()

    def _answer(self):
        """Its next answer, past any line the JDBC driver's logging writes to the same output."""
        while True:
            line = self.process.stdout.readline()
            if not line or line.split(" ", 1)[0].strip() in ("connected", "refused", "rows", "error"):
                return line.strip()

    def _run(self, sql):
        self.process.stdin.write(sql.replace("\n", " ") + "\n")
        self.process.stdin.flush()
        kind, _, answer = self._answer().partition(" ")
        assert kind in ("rows", "error"), (sql, kind, answer)
        return kind, json.loads(answer)

    def rows(self, sql):
        kind, answer = self._run(sql)
        assert kind == "rows", (sql, answer)
        return answer

    def refused(self, sql):
        kind, answer = self._run(sql)
        assert kind == "error", (sql, answer)
        return answer

    def close(self):
        self.process.stdin.close()
        assert self.process.wait(120) == 0


def _jdbc(kdc, port, user):
    session = KerberosJdbc(kdc, port, user)
    assert session.opened == "connected", session.opened
    return session


def _tasks_used_their_own_tokens(secured_hbase, log, users):
    """HBase saw each user's tasks authenticate with that user's own token, which the server obtained for them."""
    hbase_logs = "".join(p.read_text(errors="replace") for p in (secured_hbase.data_dir / "logs").glob("*.log"))
    server_log = log.read_text(errors="replace")
    for user in users:
        assert f"Auth successful for {user} (auth:TOKEN)" in hbase_logs, user
        assert f"Obtained an HBase delegation token of {user} for tasks" in server_log, user


def _tokens_dropped_of_only(log, user, still_held):
    """The server dropped `user`'s tokens within 60 s (their last session ended), and not those of `still_held`."""
    assert wait_until(
        lambda: f"Dropped the HBase delegation tokens of {user}" in log.read_text(errors="replace"), 60
    ), f"{user}'s tokens were not dropped within 60 s of their last session's end"
    assert f"Dropped the HBase delegation tokens of {still_held}" not in log.read_text(errors="replace")


def test_a_jdbc_user_is_who_kerberos_says_whatever_name_the_client_gives_and_one_without_a_login_is_refused(
    kdc, per_user_server
):
    port, _, _ = per_user_server
    claiming = KerberosJdbc(kdc, port, "erin", url_options=";user=frank")
    try:
        assert claiming.opened == "connected", claiming.opened
        assert claiming.rows("SELECT current_user()") == [["erin"]]
    finally:
        claiming.close()
    without_login = KerberosJdbc(kdc, port, "erin", keytab=False)
    assert without_login.opened.startswith("refused") and "GSS initiate failed" in without_login.opened, (
        without_login.opened
    )
    assert without_login.process.wait(120) == 0


def test_each_jdbc_user_reaches_hbase_as_themselves_in_tasks_on_executors_with_their_own_tokens(
    kdc, secured_hbase, per_user_server, tmp_path
):
    port, _, log = per_user_server
    # alice (RWXC on default and our catalog) makes the tables as herself.
    alice = _jdbc(kdc, port, "alice")
    try:
        for table, letter in (("ke", "e"), ("kf", "f")):
            alice.rows(
                f"CREATE TABLE {table} (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ({table}, COLS=[v=f.v]) "
                "SPLIT ON ((50))",
            )
            alice.rows(f"INSERT INTO {table} SELECT CAST(id AS INT), CONCAT('{letter}', id) FROM range(100)")
    finally:
        alice.close()
    change_rights(secured_hbase, [("grant", "erin", "ke", "RW"), ("grant", "frank", "kf", "RWC")])
    csv = tmp_path / "rows.csv"
    csv.write_text("".join(f"{k},loaded\n" for k in range(500, 510)))
    erin, frank = _jdbc(kdc, port, "erin"), _jdbc(kdc, port, "frank")
    try:
        # Alternating users on one server: no connection or token is lent from one to the other.
        for round in range(2):
            # A key range over both regions, its aggregate pushed to the region servers, in tasks.
            assert erin.rows("SELECT count(*), min(v) FROM ke WHERE k BETWEEN 10 AND 60") == [[51, "e10"]]
            # A join merged by key, both sides read in tasks.
            assert erin.rows("SELECT count(*), max(b.v) FROM ke a JOIN ke b ON a.k = b.k WHERE a.k < 70") == [
                [70, "e9"]
            ]
            refused = frank.refused("SELECT count(*) FROM ke WHERE k BETWEEN 10 AND 60")
            assert "HBase denied access" in refused and "frank" in refused and "ke" in refused, refused
            assert frank.rows("SELECT k, v FROM kf WHERE k IN (3, 97) ORDER BY k") == [[3, "f3"], [97, "f97"]]
            refused = erin.refused("SELECT v FROM kf WHERE k = 3")
            assert "erin" in refused and "kf" in refused and "READ" in refused, refused
            # Writes in tasks too.
            erin.rows(f"INSERT INTO ke SELECT CAST(1000 + id AS INT), 'erin' FROM range({round * 5}, {round * 5 + 5})")
            refused = frank.refused("INSERT INTO ke SELECT CAST(2000 + id AS INT), 'frank' FROM range(5)")
            assert "frank" in refused and "ke" in refused and "WRITE" in refused, refused
        assert erin.rows("SELECT count(*), count_if(v = 'erin') FROM ke") == [[110, 10]]
        # LOAD DATA PARALLEL writes its HFiles in tasks, and bulk-loads them as the user.
        assert frank.rows(f"LOAD DATA PARALLEL LOCAL INPATH '{csv}' INTO TABLE kf")[0][0] == 10
        assert frank.rows("SELECT count(*) FROM kf WHERE v = 'loaded'") == [[10]]
        # A revoked grant holds from the next statement on, though erin's connections and token live on.
        revoke(secured_hbase, "erin", "ke", "RW")
        refused = erin.refused("SELECT count(*) FROM ke WHERE k < 5")
        assert "erin" in refused and "ke" in refused, refused
    finally:
        frank.close()
    _tasks_used_their_own_tokens(secured_hbase, log, ("erin", "frank"))
    assert "HBase identity: per user (spark.sql.hbase.identity=statement)" in log.read_text(errors="replace")
    # frank's last session closed: the driver forgets his tokens; erin's session is still open.
    _tokens_dropped_of_only(log, "frank", still_held="erin")
    erin.close()
    assert wait_until(lambda: "Dropped the HBase delegation tokens of erin" in log.read_text(errors="replace"), 60), (
        "erin's tokens were not dropped within 60 s of her session's close"
    )


def test_each_connect_user_reaches_hbase_as_themselves_in_tasks_on_executors_with_their_own_tokens(
    secured_hbase, per_user_server, tmp_path
):
    # The same server's Connect sessions: their user ids are trusted, not authenticated (docs/deployment.md). The
    # server acts for each through HBase's proxy-user settings, as for a JDBC user, so gina and hank need no
    # Kerberos login of their own.
    _, url, log = per_user_server
    alice = connect_as(url, "alice")
    try:
        for table, letter in (("kg", "g"), ("kh", "h")):
            alice.sql(
                f"CREATE TABLE {table} (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ({table}, COLS=[v=f.v]) "
                "SPLIT ON ((50))"
            )
            alice.sql(f"INSERT INTO {table} SELECT CAST(id AS INT), CONCAT('{letter}', id) FROM range(100)")
    finally:
        alice.stop()
    change_rights(
        secured_hbase,
        [
            ("grant", "gina", "kg", "RW"),
            ("grant", "hank", "kh", "RW"),
            *(("grant", user, "@spark_hbase_sql", "R") for user in ("gina", "hank")),
            # A stream's sink records each batch's commit in our catalog, as the stream's user.
            ("grant", "gina", "spark_hbase_sql:catalog/d/sinkCommit", "W"),
        ],
    )
    gina, hank = connect_as(url, "gina"), connect_as(url, "hank")
    try:
        for round in range(2):
            # A key range over both regions with its aggregate pushed, and a join merged by key, in tasks.
            assert gina.sql("SELECT count(*), min(v) FROM kg WHERE k BETWEEN 10 AND 60").collect()[0][:] == (51, "g10")
            assert gina.sql("SELECT count(*), max(b.v) FROM kg a JOIN kg b ON a.k = b.k WHERE a.k < 70").collect()[0][
                :
            ] == (70, "g9")
            refused = connect_denied(lambda: hank.sql("SELECT count(*) FROM kg WHERE k BETWEEN 10 AND 60").collect())
            assert "HBase denied access" in refused and "hank" in refused and "kg" in refused, refused
            assert [tuple(r) for r in hank.table("kh").where("k IN (3, 97)").orderBy("k").collect()] == [
                (3, "h3"),
                (97, "h97"),
            ]
            refused = connect_denied(lambda: gina.table("kh").where("k = 3").collect())
            assert "gina" in refused and "kh" in refused and "READ" in refused, refused
            # DataFrame writes in tasks.
            gina.range(1000 + round * 5, 1005 + round * 5).selectExpr(
                "CAST(id AS INT) AS k", "'gina' AS v"
            ).write.format("hbase").option("table", "kg").mode("append").save()
            refused = connect_denied(lambda: hank.sql("INSERT INTO kg VALUES (2000, 'hank')"))
            assert "hank" in refused and "kg" in refused and "WRITE" in refused, refused
        assert gina.sql("SELECT count(*), count_if(v = 'gina') FROM kg").collect()[0][:] == (110, 10)
        # A stream's batches write in tasks as the user who started it.
        source = tmp_path / "stream"
        source.mkdir()
        (source / "rows.csv").write_text("".join(f"{k},streamed\n" for k in range(6000, 6010)))

        def stream_into_kg(session, name):
            return stream_csv_into(session, source, "kg", tmp_path / f"checkpoint-{name}")

        ginas = stream_into_kg(gina, "gina")
        assert ginas.awaitTermination(180) and ginas.exception() is None, ginas.exception()
        assert gina.sql("SELECT count(*) FROM kg WHERE v = 'streamed'").collect()[0][0] == 10
        refused = connect_denied(lambda: stream_into_kg(hank, "hank").awaitTermination(180))
        assert "HBase denied access" in refused and "hank" in refused and "kg" in refused, refused
    finally:
        hank.stop()
    _tasks_used_their_own_tokens(secured_hbase, log, ("gina", "hank"))
    assert "Spark Connect sessions as their user ids (trusted, not authenticated here)" in log.read_text(
        errors="replace"
    )
    # hank's session was released: the driver forgets his tokens; gina's session is still open.
    _tokens_dropped_of_only(log, "hank", still_held="gina")
    gina.stop()
