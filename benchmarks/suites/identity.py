# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The cost of identity: statements through a per-user Thrift server against a shared one (issue 51).

Run through `./benchmarks/run identity [--repeat 30] [--users 4] [--first-users 4] [--kerberos]`. One embedded HBase
of its own, started empty, checks rights with its AccessController under simple authentication (as
tests/test_identity.py's does). Two Thrift servers run on that HBase at once, started by the package's launcher code:
- per user: `--identity per-user` (doAs, spark.sql.hbase.identity=statement): each user's statements reach HBase
  as that user, on connections of that user's own;
- shared: `--identity shared`: every statement reaches HBase as the server.
Through the shared server, a table of 200,000 rows in 4 regions is made; each user is granted reading it and our
catalog.

With --kerberos, a KDC of its own (Hadoop's MiniKdc) and an HBase that authenticates with Kerberos (as
tests/test_kerberos.py's does); both servers log in as spark/localhost from a keytab, and on the per-user one HBase
lets spark act for the users (its proxy-user settings). The servers run on local-cluster[1,1,1024], an executor in a
JVM of its own, as they are set up through a spark-defaults.conf (kerberos_defaults()), so the per-user server
obtains an HBase delegation token of each user for their tasks, the first time one of their statements plans. JDBC
clients still state their names (hive.server2.authentication=NONE): how a client proves it is not measured here.
Each of --users users has a PyHive session on each server. Three statements (a point lookup, a 2,000-row key range,
an aggregate over a key range across two regions), each with the table named `hbase.t` and `t` (see statements()).
Every statement is run once untimed per session, then
--repeat rounds: in each, every user runs it on both servers, which server goes first alternating round by round.
The time is the client's, from execute to the last row fetched; the answers are checked. Per statement, the median
and every run of each server, and the CPU each server's driver spent per statement (from /proc).

Then the first statement of users neither server has seen (--first-users of them, a new session each), the point
lookup: on the per-user server it opens that user's HBase connection (and looks up the table's regions anew, and with
--kerberos obtains the user's token), on the shared server it reuses the server's.

Target (issue 51): per user no more than 10 % slower than shared, after each user's first statement, for each
statement in both forms.
"""

import argparse
import json
import os
import re
import statistics
import time

from harness.charts import bar_chart
from harness.common import log
from harness.platform import ThriftServer, access_control, change_rights, kerberos_security, local_kdc
from harness.results import run_header, target, target_lines, write_results
from harness.server_sampling import cpu_seconds
from harness.sessions import WORK, empty_hbase

TABLE = "ident_t"
# With --kerberos: the servers' own principal, which HBase lets act for other users.
SERVER_PRINCIPAL = "spark/localhost"
ROWS = 200_000
# Hive runs each JDBC statement on one of up to 100 pooled threads, whose first statement costs more.
WARM_UP = 110


def statements():
    """(name, SQL, rows expected), each with the table named as `hbase.t` and as `t`. Spark looks an unqualified
    name up in its own catalog first. Where that is a Hive metastore (`--catalog-implementation hive`, which the
    launcher started with before it kept Spark's tables in memory), Hive under doAs makes a new metastore store
    for each statement of a user other than its last one: a cost of Hive's impersonation, not of ours, which the
    qualified name does not pay."""
    shapes = (
        ("point lookup", "SELECT k, v FROM {t} WHERE k = 123457", [(123457, "v123457")]),
        (
            "2,000-row key range",
            "SELECT k, v FROM {t} WHERE k BETWEEN 100000 AND 101999",
            [(k, f"v{k}") for k in range(100000, 102000)],
        ),
        (
            "aggregate over a key range across two regions",
            "SELECT count(*), min(v) FROM {t} WHERE k BETWEEN 40000 AND 60000",
            [(20001, "v40000")],
        ),
    )
    return [
        (f"{name}, {how}", sql.format(t=table), rows)
        for how, table in (("hbase.t", f"hbase.{TABLE}"), ("unqualified t", TABLE))
        for name, sql, rows in shapes
    ]


STATEMENTS = statements()

MODES = ("per-user", "shared")


class ThriftServerOf(ThriftServer):
    """A Thrift server of the HBase in `data_dir` in a directory of its own, so that two run at once."""

    def __init__(self, data_dir, identity):
        super().__init__(data_dir, identity=identity, directory=data_dir / f"thriftserver-{identity}")


def run(connection, sql):
    cursor = connection.cursor()
    cursor.execute(sql)
    return [tuple(r) for r in cursor.fetchall()]


def timed(connection, sql):
    start = time.perf_counter()
    rows = run(connection, sql)
    return time.perf_counter() - start, rows


def connect(port, user):
    from pyhive import hive

    return hive.connect(host="127.0.0.1", port=port, username=user)


def make_table(hbase, shared_port, users, server_user=None):
    """The table, made through the shared server; `server_user`, the servers' HBase user where it is not HBase's
    superuser (Kerberos), is granted making it first."""
    if server_user:
        change_rights(hbase, [("grant", server_user, f"@{ns}", "RWXC") for ns in ("default", "spark_hbase_sql")])
    connection = connect(shared_port, "admin")
    try:
        run(
            connection,
            f"CREATE TABLE {TABLE} (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ({TABLE}, COLS=[v=f.v]) LAYOUT CELLS "
            "SPLIT ON ((50000), (100000), (150000))",
        )
        run(connection, f"INSERT INTO {TABLE} SELECT CAST(id AS INT), concat('v', id) FROM range({ROWS})")
    finally:
        connection.close()
    change_rights(hbase, [("grant", user, scope, "R") for user in users for scope in (TABLE, "@spark_hbase_sql")])


def kerberos_defaults(kdc, hbase):
    """Points the servers started after this at a spark-defaults.conf of their own (SPARK_CONF_DIR) with the
    Kerberos settings and master a user would put there, and at the secured HBase's site files (HADOOP_CONF_DIR)."""
    conf_dir = WORK / "identity-spark-conf"
    conf_dir.mkdir(parents=True, exist_ok=True)
    krb5 = f"-Djava.security.krb5.conf={kdc.krb5_conf}"
    principal, keytab = kdc.principal(SERVER_PRINCIPAL), kdc.keytab("spark")
    defaults = {
        "spark.master": "local-cluster[1,1,1024]",
        "spark.kerberos.principal": principal,
        "spark.kerberos.keytab": keytab,
        # Spark's Thrift server logs in with Hive's settings when Hadoop's security is on (spark.hive.* are Hive's).
        "spark.hive.server2.authentication.kerberos.principal": principal,
        "spark.hive.server2.authentication.kerberos.keytab": keytab,
        "spark.driver.defaultJavaOptions": krb5,
        "spark.executor.defaultJavaOptions": krb5,
    }
    (conf_dir / "spark-defaults.conf").write_text("".join(f"{k} {v}\n" for k, v in defaults.items()))
    os.environ.update(
        SPARK_CONF_DIR=str(conf_dir), HADOOP_CONF_DIR=str(hbase.conf_dir), HBASE_CONF_DIR=str(hbase.conf_dir)
    )


def measure(ports, users, repeat, pids):
    sessions = {mode: {u: connect(ports[mode], u) for u in users} for mode in MODES}
    try:
        for mode in MODES:
            for i in range(WARM_UP):
                run(sessions[mode][users[i % len(users)]], STATEMENTS[0][1])
        results = {}
        for name, sql, expected in STATEMENTS:
            for mode in MODES:
                for user in users:
                    assert run(sessions[mode][user], sql) == expected, (name, mode, user)
            seconds = {mode: [] for mode in MODES}
            cpu = {mode: 0.0 for mode in MODES}
            for round_ in range(repeat):
                for user in users:
                    for mode in MODES if round_ % 2 == 0 else reversed(MODES):
                        before = cpu_seconds(pids[mode])
                        took, rows = timed(sessions[mode][user], sql)
                        cpu[mode] += cpu_seconds(pids[mode]) - before
                        assert rows == expected, (name, mode, user)
                        seconds[mode].append(took)
            results[name] = {
                "sql": sql,
                **{
                    mode: {
                        "medianMs": statistics.median(seconds[mode]) * 1000,
                        "runsMs": [round(s * 1000, 1) for s in seconds[mode]],
                        "serverCpuMsPerStatement": round(cpu[mode] * 1000 / len(seconds[mode]), 2),
                    }
                    for mode in MODES
                },
            }
            ratio = results[name]["per-user"]["medianMs"] / results[name]["shared"]["medianMs"]
            results[name]["ratio"] = ratio
            log(
                f"{name}: per user {results[name]['per-user']['medianMs']:.1f} ms, shared "
                f"{results[name]['shared']['medianMs']:.1f} ms ({ratio:.2f}x)"
            )
        return results
    finally:
        for by_user in sessions.values():
            for connection in by_user.values():
                connection.close()


def first_statements(ports, new_users):
    """Each new user's first statement (the point lookup) on each server, in a session of its own."""
    name, sql, expected = STATEMENTS[0]
    firsts = {mode: [] for mode in MODES}
    for user in new_users:
        for mode in MODES:
            connection = connect(ports[mode], user)
            try:
                took, rows = timed(connection, sql)
                assert rows == expected, (mode, user)
                firsts[mode].append(round(took * 1000, 1))
            finally:
                connection.close()
    return {mode: {"medianMs": statistics.median(runs), "runsMs": runs} for mode, runs in firsts.items()}


def token_times(log_file, users):
    """How long the per-user server took to obtain each user's HBase delegation token, from its log, in ms."""
    text = log_file.read_text(errors="replace")
    found = {u: re.search(rf"Obtained an HBase delegation token of {u} for tasks in (\d+) ms", text) for u in users}
    missing = [u for u, m in found.items() if not m]
    assert not missing, f"the per-user server obtained no token of {missing}: their tasks would not reach HBase"
    return [int(m.group(1)) for m in found.values()]


def markdown(report):
    setup = (
        "HBase with Kerberos; both servers logged in from a keytab, on local-cluster[1,1,1024]"
        if report.get("kerberos")
        else "HBase with simple authentication; both servers on local[*]"
    )
    lines = [f"`{report['command']}` at {report['commit']}, {report['date']}, {report['machine']}. {setup}.", ""]
    lines += [
        "| statement | per user, median ms | shared, median ms | per user / shared | server CPU ms per statement, "
        "per user | shared |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, s in report["statements"].items():
        p, sh = s["per-user"], s["shared"]
        lines.append(
            f"| {name} | {p['medianMs']:.1f} | {sh['medianMs']:.1f} | {s['ratio']:.2f}x | "
            f"{p['serverCpuMsPerStatement']:.1f} | {sh['serverCpuMsPerStatement']:.1f} |"
        )
    first = report["firstStatements"]
    lines += [
        "",
        f"A new user's first statement (the point lookup): per user {first['per-user']['medianMs']:.1f} ms, shared "
        f"{first['shared']['medianMs']:.1f} ms (medians; runs per user {first['per-user']['runsMs']}, shared "
        f"{first['shared']['runsMs']})."
        + (
            f" Of the per-user ones, obtaining the user's HBase delegation token took {first['per-user']['tokenMs']} ms."
            if "tokenMs" in first["per-user"]
            else ""
        ),
        "",
        "Targets:",
        "",
        *target_lines(report["targets"]),
        "",
        "Every run (ms):",
        "",
    ]
    for name, s in report["statements"].items():
        for mode in MODES:
            lines.append(f"- {name}, {mode}: {', '.join(map(str, s[mode]['runsMs']))}")
    return "\n".join(lines) + "\n"


def chart(report, path):
    names = list(report["statements"])
    series = [
        (
            mode,
            [report["statements"][n][mode]["medianMs"] / 1000 for n in names],
            [[r / 1000 for r in report["statements"][n][mode]["runsMs"]] for n in names],
        )
        for mode in MODES
    ]
    bar_chart(
        path,
        "Through the Thrift server: per-user identity against shared",
        names,
        series,
        unit="ms",
        xlabel="statement",
    )


CHARTS = {"identity": chart}


def main():
    parser = argparse.ArgumentParser(
        prog="./benchmarks/run identity", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=30, help="rounds: every user runs each statement once a round")
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--first-users", type=int, default=4, help="users whose first statement is timed")
    parser.add_argument("--kerberos", action="store_true", help="HBase with Kerberos, servers with executors")
    args = parser.parse_args()
    users = [f"user{i}" for i in range(1, args.users + 1)]
    new_users = [f"newcomer{i}" for i in range(1, args.first_users + 1)]
    keytabs = {"hbase": ["hbase/localhost"], "spark": [SERVER_PRINCIPAL]}
    kdc = local_kdc(WORK / "identity-kdc", keytabs) if args.kerberos else None
    hbase = empty_hbase("hbase-identity")
    servers = {mode: ThriftServerOf(hbase.data_dir, mode) for mode in MODES}
    try:
        hbase.start(region_servers=1, additions=kerberos_security(kdc, ["spark"]) if kdc else access_control())
        if kdc:
            kerberos_defaults(kdc, hbase)
        for server in servers.values():
            server.start()
        ports = {mode: server.port for mode, server in servers.items()}
        make_table(hbase, ports["shared"], users + new_users, "spark" if kdc else None)
        pids = {mode: json.loads(server.state_file.read_text())["pid"] for mode, server in servers.items()}
        statements = measure(ports, users, args.repeat, pids)
        firsts = first_statements(ports, new_users)
        if kdc:
            firsts["per-user"]["tokenMs"] = token_times(servers["per-user"].log_file, new_users)
    finally:
        for server in servers.values():
            server.stop()
        hbase.stop()
        if kdc:
            kdc.stop()
    command = (
        f"./benchmarks/run identity --repeat {args.repeat} --users {args.users} --first-users {args.first_users}"
        + (" --kerberos" if args.kerberos else "")
    )
    report = {
        **run_header(command),
        "kerberos": args.kerberos,
        "users": users,
        "statements": statements,
        "firstStatements": firsts,
        "targets": [
            target(f"{name}: per user at most 1.10x shared", f"{s['ratio']:.2f}x", s["ratio"] <= 1.10)
            for name, s in statements.items()
        ],
    }
    write_results("identity-kerberos" if args.kerberos else "identity", report, markdown, chart)


if __name__ == "__main__":
    main()
