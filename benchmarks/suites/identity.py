# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The cost of identity: statements through a per-user Thrift server against a shared one (issue 51).

Run through `./benchmarks/run identity [--repeat 30] [--users 4] [--first-users 4]`. One embedded HBase of its own,
started empty, checks rights with its AccessController under simple authentication (as tests/test_identity.py's
does). A Spark session of the superuser makes a table of 200,000 rows in 4 regions; each user is granted reading it
and our catalog. Two Thrift servers then run on that HBase at once, started by the package's launcher code:
- per user: `--identity per-user` (doAs, spark.sql.hbase.identity=statement): each user's statements reach HBase
  as that user, on connections of that user's own;
- shared: `--identity shared`: every statement reaches HBase as the server, the superuser.
Each of --users users has a PyHive session on each server. Three statements (a point lookup, a 2,000-row key range,
an aggregate over a key range across two regions), each with the table named `hbase.t` and `t` (see statements()).
Every statement is run once untimed per session, then
--repeat rounds: in each, every user runs it on both servers, which server goes first alternating round by round.
The time is the client's, from execute to the last row fetched; the answers are checked. Per statement, the median
and every run of each server, and the CPU each server's process spent per statement (from /proc).

Then the first statement of users neither server has seen (--first-users of them, a new session each), the point
lookup: on the per-user server it opens that user's HBase connection (and looks up the table's regions anew), on
the shared server it reuses the server's.

Target (issue 51): per user no more than 10 % slower than shared, after each user's first statement, for each
statement in both forms.
"""

import argparse
import json
import statistics
import time

from harness.charts import bar_chart
from harness.common import log
from harness.platform import ThriftServer, access_control, grant
from harness.results import run_header, target, target_lines, write_results
from harness.server_sampling import cpu_seconds
from harness.sessions import empty_hbase, spark_session

TABLE = "ident_t"
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


def make_table(hbase, users):
    spark = spark_session("spark-hbase-sql identity benchmark", hbase.data_dir)
    spark.sql(
        f"CREATE TABLE {TABLE} (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ({TABLE}, COLS=[v=f.v]) "
        "SPLIT ON ((50000), (100000), (150000))"
    )
    spark.sql(f"INSERT INTO {TABLE} SELECT CAST(id AS INT), concat('v', id) FROM range({ROWS})")
    spark.stop()
    for user in users:
        grant(hbase, user, TABLE, "R")
        grant(hbase, user, "@spark_hbase_sql", "R")


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


def markdown(report):
    lines = [f"`{report['command']}` at {report['commit']}, {report['date']}, {report['machine']}", ""]
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
        f"{first['shared']['runsMs']}).",
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
    args = parser.parse_args()
    users = [f"user{i}" for i in range(1, args.users + 1)]
    new_users = [f"newcomer{i}" for i in range(1, args.first_users + 1)]
    hbase = empty_hbase("hbase-identity")
    hbase.start(region_servers=1, additions=access_control())
    servers = {mode: ThriftServerOf(hbase.data_dir, mode) for mode in MODES}
    try:
        make_table(hbase, users + new_users)
        for server in servers.values():
            server.start()
        ports = {mode: server.port for mode, server in servers.items()}
        pids = {mode: json.loads(server.state_file.read_text())["pid"] for mode, server in servers.items()}
        statements = measure(ports, users, args.repeat, pids)
        firsts = first_statements(ports, new_users)
    finally:
        for server in servers.values():
            server.stop()
        hbase.stop()
    command = f"./benchmarks/run identity --repeat {args.repeat} --users {args.users} --first-users {args.first_users}"
    report = {
        **run_header(command),
        "users": users,
        "statements": statements,
        "firstStatements": firsts,
        "targets": [
            target(f"{name}: per user at most 1.10x shared", f"{s['ratio']:.2f}x", s["ratio"] <= 1.10)
            for name, s in statements.items()
        ],
    }
    write_results("identity", report, markdown, chart)


if __name__ == "__main__":
    main()
