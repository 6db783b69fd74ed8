"""What one short statement costs: Spark's phases, and the RPCs it makes to HBase for the table's definition, its
range indexes and its regions, from PySpark and from a JVM JDBC client through our Thrift server.

Run through `./benchmarks/run statement [--repeat 40] [--label now] [--jar PLUGIN_JAR] [--skip small]`. On an
HBase of its own, started empty, one Spark application (local[2]) creates a 4-region table of 20,000 rows with a
built range index, then runs each statement below once untimed and --repeat times timed, each planned anew
(spark.sql() included in the time):
- a point lookup on the key;
- an IN list of 10 keys;
- a count over a key range;
- a count filtered by the range-indexed column.
Per statement it reports the median milliseconds of each of Spark's phases (parsing, analysis, optimization,
planning; execution is the rest, returning the rows to Python included) and, per run, the rows the region server
read in the catalog table, the range index table and hbase:meta (its per-region readRequestCount over JMX,
TableReads.java; a Get reads one row). Every answer is checked.

Then the lookups of the Phoenix benchmark, on a table of lineitem's 16 columns and key (l_orderkey, l_linenumber),
16 regions, 600,000 rows made by Spark SQL (150,000 orders of 1 to 7 lines, order keys 4 apart, as TPC-H's are
sparse; no tpchgen needed): the point lookup, the 0.1 % range on the leading key and the IN list of 100 order keys,
with Spark's floor `SELECT 1` beside them, each timed two ways, alternating statement by statement:
- from PySpark, as above (spark.sql(...).collect(), rows to Python);
- from a JVM JDBC client (JdbcClient.java, Hive's JDBC driver as pyspark ships it for beeline) through our Thrift
  server (`spark-hbase thriftserver`, on the same HBase), every row read through the ResultSet. Spark's phases are
  the server's own, written by a QueryExecutionListener (PhaseListener.java, compiled into a jar of its own and
  put on the server's class path); what is left of the client's time is the execution, the Thrift round trips
  and the rows' conversion on both sides.
The answers of both paths are checked against each other.

--jar runs another build of the plugin (the session and the Thrift server both use it), for a before and after
in one sitting. The results of each --label are kept beside the earlier labels' in results/statement.json, so
that one file shows a change's before and after; a label run again replaces its own.
"""

import argparse
import json
import os
import statistics
import subprocess
import time
from pathlib import Path

from cost_profile import SPARK_PHASES, median_phases, spark_phases_ms
from tpch_planner import RESULTS, ROOT, WORK, jdk_tool, log, start_session, write_results

TABLE = "stmt_t"
ROWS = 20_000
STATEMENTS = (
    ("point lookup", f"SELECT * FROM {TABLE} WHERE k = 4242", [(4242, "v4242", 4242 % 97)]),
    ("IN list of 10 keys", f"SELECT count(*) FROM {TABLE} WHERE k IN ({', '.join(str(k * 7) for k in range(10))})", 10),
    ("key range count", f"SELECT count(*) FROM {TABLE} WHERE k BETWEEN 1000 AND 1999", 1000),
    ("range-indexed column", f"SELECT count(*) FROM {TABLE} WHERE m = 5", sum(1 for k in range(ROWS) if k % 97 == 5)),
)
LINEITEM = "stmt_lineitem"
ORDERS = 150_000
MAX_KEY = ORDERS * 4
LINEITEM_COLUMNS = (
    "l_orderkey BIGINT, l_linenumber INT, l_partkey BIGINT, l_suppkey BIGINT, l_quantity DECIMAL(15,2), "
    "l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2), l_tax DECIMAL(15,2), l_returnflag STRING, "
    "l_linestatus STRING, l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct STRING, "
    "l_shipmode STRING, l_comment STRING"
)
LINEITEM_CELLS = (
    "l_partkey=f.pk, l_suppkey=f.sk, l_quantity=f.q, l_extendedprice=f.ep, l_discount=f.d, l_tax=f.t, "
    "l_returnflag=f.rf, l_linestatus=f.ls, l_shipdate=f.sd, l_commitdate=f.cd, l_receiptdate=f.rd, "
    "l_shipinstruct=f.si, l_shipmode=f.sm, l_comment=f.c"
)
# Order o has key 4 * o + 1 and lines 1 to 1 + o % 7.
LINEITEM_ROWS = f"""
    SELECT o * 4 + 1, CAST(l AS INT), o * 7 % 20000, o % 1000, CAST(l + 1 AS DECIMAL(15,2)),
           CAST(o % 100000 AS DECIMAL(15,2)) / 10, CAST(0.05 AS DECIMAL(15,2)), CAST(0.02 AS DECIMAL(15,2)),
           'N', 'O', date_add(DATE'1992-01-01', CAST(o % 2500 AS INT)), date_add(DATE'1992-02-01', CAST(o % 2500 AS INT)),
           date_add(DATE'1992-03-01', CAST(o % 2500 AS INT)), 'DELIVER IN PERSON', 'AIR', concat('comment ', o)
    FROM (SELECT id AS o FROM range({ORDERS})) LATERAL VIEW explode(sequence(1, CAST(1 + o % 7 AS INT))) AS l"""


def lines_of(o):
    return 1 + o % 7


def lookups():
    """(name, SQL, rows expected): the Phoenix benchmark's three keyed reads, and Spark's floor."""
    point = ORDERS // 3
    low = ORDERS // 2 * 4 + 1
    high = low + MAX_KEY // 1000  # 0.1 % of the key space
    in_orders = [ORDERS // 5 + i * (ORDERS // 130) for i in range(100)]
    in_keys = ", ".join(str(o * 4 + 1) for o in in_orders)
    return (
        ("point lookup", f"SELECT * FROM {LINEITEM} WHERE l_orderkey = {point * 4 + 1} AND l_linenumber = 1", 1),
        (
            "0.1 % range on the leading key",
            f"SELECT * FROM {LINEITEM} WHERE l_orderkey BETWEEN {low} AND {high}",
            sum(lines_of(o) for o in range(ORDERS) if low <= o * 4 + 1 <= high),
        ),
        (
            "IN list of 100 keys",
            f"SELECT * FROM {LINEITEM} WHERE l_orderkey IN ({in_keys})",
            sum(map(lines_of, in_orders)),
        ),
        ("SELECT 1 (Spark's floor)", "SELECT 1", 1),
    )


WATCHED = {"catalog": "spark_hbase_sql:catalog", "range index": "spark_hbase_sql:range_index", "meta": "hbase:meta"}


# HBase refreshes the region counters JMX shows every few seconds (hbase.regionserver.metrics.period, 5 s, and
# the JMX cache's own 10 s): counters are read only after they have caught up.
METRICS_CATCH_UP_SECONDS = 12


def table_reads(pid):
    time.sleep(METRICS_CATCH_UP_SECONDS)
    out = subprocess.run(
        [jdk_tool("java"), str(ROOT / "benchmarks" / "TableReads.java"), str(pid)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    return json.loads(out.splitlines()[-1])


def answer(rows):
    return [tuple(r) for r in rows] if len(rows) != 1 or len(rows[0]) != 1 else rows[0][0]


def measure(spark, pid, sql, expected, repeat):
    got = answer(spark.sql(sql).collect())  # untimed: the first run warms the code paths and the caches
    assert got == expected, (sql, got, expected)
    before = table_reads(pid)
    seconds, phases = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        df = spark.sql(sql)
        got = answer(df.collect())
        seconds.append(time.perf_counter() - start)
        phases.append(spark_phases_ms(df))
        assert got == expected, (sql, got, expected)
    after = table_reads(pid)
    rpcs = {name: (after.get(t, 0) - before.get(t, 0)) / repeat for name, t in WATCHED.items()}
    return {
        "medianMs": statistics.median(seconds) * 1000,
        "runsMs": [round(s * 1000, 1) for s in seconds],
        "phasesMs": median_phases(phases, seconds),
        "rowsReadPerRun": rpcs,
    }


def python_rows(rows):
    """Rows as both clients can give them: JDBC's decimals and dates come as strings."""
    return sorted(tuple(str(v) if v is not None and not isinstance(v, (int, str)) else v for v in r) for r in rows)


# Hive's pool runs each JDBC statement on one of up to 100 threads, and a thread's first statement opens its own
# metastore connection (ObjectStore, HiveConf: about 15 ms of CPU); the timed runs start once each thread has run one.
JDBC_WARM_UP = 110
IDLE_SECONDS = 11  # Hive's statement threads end after 10 s idle (hive.server2.async.exec.keepalive.time)


def measure_lookups(spark, jdbc, phases_file, repeat, idle_runs, processes):
    """Each lookup from PySpark and through JDBC, run after run alternately, with both answers checked, and the
    CPU each process spent over each path's runs (`processes`: name -> pid; read from /proc in 10 ms ticks,
    which average out over the runs)."""
    from cost_profile import cpu_seconds
    from thrift_jdbc import phases_since

    def cpu():
        return {name: cpu_seconds(pid) for name, pid in processes.items()}

    def add(into, before):
        for name, seconds in cpu().items():
            into[name] = into.get(name, 0.0) + seconds - before[name]

    jdbc.query(lookups()[0][1], JDBC_WARM_UP)
    results = {}
    for name, sql, rows in lookups():
        py_rows = spark.sql(sql).collect()  # untimed warm-up of both
        assert len(py_rows) == rows, (name, len(py_rows), rows)
        warm = jdbc.query(sql, 1)
        assert python_rows(warm["result"]) == python_rows(py_rows), name
        offset = os.path.getsize(phases_file)
        py_seconds, py_phases, jdbc_seconds, py_cpu, jdbc_cpu = [], [], [], {}, {}
        for _ in range(repeat):
            before = cpu()
            start = time.perf_counter()
            df = spark.sql(sql)
            got = df.collect()
            py_seconds.append(time.perf_counter() - start)
            add(py_cpu, before)
            py_phases.append(spark_phases_ms(df))
            assert len(got) == rows
            before = cpu()
            answer = jdbc.query(sql, 1, warm_up=False)
            add(jdbc_cpu, before)
            jdbc_seconds.append(answer["runs"][0])
            assert answer["rows"] == rows
        server = [{p: line[p] for p in SPARK_PHASES} for line in phases_since(phases_file, offset, repeat)][-repeat:]
        results[name] = {
            "sql": sql,
            "rows": rows,
            "pyspark": {
                **timings(py_seconds, median_phases(py_phases, py_seconds)),
                "cpuMsPerRun": per_run(py_cpu, repeat),
            },
            "jdbc": {
                **timings(jdbc_seconds, median_phases(server, jdbc_seconds)),
                "cpuMsPerRun": per_run(jdbc_cpu, repeat),
            },
        }
        log(
            f"{name}: PySpark {results[name]['pyspark']['medianMs']:.1f} ms, JDBC {results[name]['jdbc']['medianMs']:.1f} ms"
        )
    if idle_runs:
        name, sql, rows = lookups()[0]
        idle = []
        for _ in range(idle_runs):
            time.sleep(IDLE_SECONDS)
            idle.append(jdbc.query(sql, 1, warm_up=False)["runs"][0])
        results[f"{name} after {IDLE_SECONDS} s idle"] = {"sql": sql, "rows": rows, "jdbc": timings(idle, None)}
    return results


def per_run(cpu, runs):
    return {name: round(seconds * 1000 / runs, 1) for name, seconds in cpu.items()}


def timings(seconds, phases):
    return {
        "medianMs": statistics.median(seconds) * 1000,
        "runsMs": [round(s * 1000, 1) for s in seconds],
        "phasesMs": phases,
    }


def use_jar(jar):
    """Runs another build of the plugin: the Spark session and the Thrift server both take it from here."""
    from pyspark_hbase import _paths

    path = Path(jar) if Path(jar).is_absolute() else ROOT / jar  # benchmarks/run runs in benchmarks/
    if not path.is_file():
        raise SystemExit(f"--jar {jar}: no such file {path}")
    _paths.plugin_jars = lambda: [path]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--label", default="now", help="the name of this run's column, e.g. before or after")
    parser.add_argument("--commit", help="the commit the plugin jar was built from, when it is not the checkout's")
    parser.add_argument("--jar", help="the plugin jar to run (relative to the checkout), if not the checkout's build")
    parser.add_argument("--skip", choices=["small", "lookups"], action="append", default=[], help="leave a part out")
    parser.add_argument("--idle-runs", type=int, default=5, help=f"JDBC lookups after {IDLE_SECONDS} s idle")
    args = parser.parse_args()
    if args.jar:
        use_jar(args.jar)
    load_before = os.getloadavg()[0]
    spark, hbase = start_session("statement", {}, fresh_hbase=True)
    results, lookup_results = {}, {}
    if "small" not in args.skip:
        spark.sql(
            f"CREATE TABLE {TABLE} (k INT, v STRING, m INT, PRIMARY KEY (k)) "
            f"MAPPED BY ({TABLE}, COLS=[v=f.v, m=f.m]) SPLIT ON ((5000), (10000), (15000))"
        )
        spark.sql(
            f"INSERT INTO {TABLE} SELECT CAST(id AS INT), concat('v', id), CAST(id % 97 AS INT) FROM range({ROWS})"
        )
        spark.sql(f"CREATE INDEX {TABLE}_m ON TABLE {TABLE} (m) OPTIONS (chunkRows = 1000)")
        for name, sql, expected in STATEMENTS:
            results[name] = {"sql": sql, **measure(spark, hbase.pid, sql, expected, args.repeat)}
            log(f"{name}: {results[name]['medianMs']:.1f} ms, {results[name]['rowsReadPerRun']}")
    if "lookups" not in args.skip:
        lookup_results = run_lookups(spark, hbase, args)
    spark.stop()
    hbase.stop()

    path = RESULTS / "statement.json"
    report = json.loads(path.read_text()) if path.exists() else {"runs": {}}
    report["runs"][args.label] = {
        "command": f"./benchmarks/run statement --repeat {args.repeat} --label {args.label}"
        + (f" --commit {args.commit}" if args.commit else "")
        + (f" --jar {args.jar}" if args.jar else "")
        + "".join(f" --skip {s}" for s in args.skip),
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores",
        # What else ran meanwhile: the 1-minute load average as the run began and as it ended.
        "loadAverage": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "commit": args.commit
        or subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
        ).stdout.strip(),
        "statements": results,
        "lookups": lookup_results,
    }
    write_results("statement", report, markdown, chart)


def run_lookups(spark, hbase, args):
    """The lineitem-shaped table, our Thrift server on the same HBase, a JDBC client of it, and the lookups."""
    from thrift_jdbc import JdbcClient, compile_phase_listener, thrift_server_with_phases

    splits = ", ".join(f"({MAX_KEY * i // 16})" for i in range(1, 16))
    spark.sql(
        f"CREATE TABLE {LINEITEM} ({LINEITEM_COLUMNS}, PRIMARY KEY (l_orderkey, l_linenumber)) "
        f"MAPPED BY ({LINEITEM}, COLS=[{LINEITEM_CELLS}]) SPLIT ON ({splits})"
    )
    start = time.perf_counter()
    spark.sql(f"INSERT INTO {LINEITEM} {LINEITEM_ROWS}")
    log(f"{LINEITEM}: {ORDERS} orders' lines written in {time.perf_counter() - start:.1f} s")
    phases_file = WORK / "statement-thrift-phases.jsonl"
    phases_file.write_text("")
    server = thrift_server_with_phases(hbase.data_dir, phases_file, compile_phase_listener(WORK))
    server.stop()
    url = server.start()
    log(f"Thrift server at {url}")
    jdbc = JdbcClient(url, WORK / "statement-jdbc-client.log")
    processes = {
        "Spark": spark._jvm.java.lang.ProcessHandle.current().pid(),
        "Python": os.getpid(),
        "Thrift server": json.loads(server.state_file.read_text())["pid"],
        "JDBC client": jdbc.pid,
        "HBase": hbase.pid,
    }
    try:
        return measure_lookups(spark, jdbc, phases_file, args.repeat, args.idle_runs, processes)
    finally:
        jdbc.close()
        server.stop()


def markdown(report):
    lines = []
    for label, run in report["runs"].items():
        load = run.get("loadAverage")
        lines += [
            f"**{label}**: `{run['command']}` at {run['commit']}, {run['date']}, {run['machine']}"
            + (f", load average {load[0]} at the start and {load[1]} at the end" if load else ""),
            "",
        ]
        if run["statements"]:
            lines += small_table_lines(run)
        lines += lookup_lines(run.get("lookups") or {})
    return "\n".join(lines)


def small_table_lines(run):
    lines = [
        "| statement | median ms | parsing | analysis | optimization | planning | execution | "
        "catalog rows read | range index rows read | meta rows read |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, s in run["statements"].items():
        p, r = s["phasesMs"], s["rowsReadPerRun"]
        lines.append(
            f"| {name} | {s['medianMs']:.1f} | {p['parsing']:.1f} | {p['analysis']:.1f} | {p['optimization']:.1f} | "
            f"{p['planning']:.1f} | {p['execution']:.1f} | {r['catalog']:g} | {r['range index']:g} | {r['meta']:g} |"
        )
    lines += ["", "Every run (ms):", ""]
    lines += [f"- {name}: {', '.join(map(str, s['runsMs']))}" for name, s in run["statements"].items()]
    lines.append("")
    return lines


def lookup_lines(lookups_run):
    """The lookups on the lineitem-shaped table from PySpark and through JDBC, by Spark's phase."""
    if not lookups_run:
        return []
    lines = [
        "Lookups on the lineitem-shaped table (600,000 rows, 16 regions), from PySpark and from a JVM JDBC client "
        "through our Thrift server, run after run alternately; the phases are Spark's (the server's for JDBC), the "
        "rest is execution and the return of the rows to the client:",
        "",
        "| statement | rows | client | median ms | parsing | analysis | optimization | planning | four phases | rest "
        "| CPU ms a run: Spark or Thrift server JVM | HBase | client (Python or JDBC JVM) |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, result in lookups_run.items():
        for client in ("pyspark", "jdbc"):
            if client not in result:
                continue
            t, p = result[client], result[client]["phasesMs"]
            label = "PySpark" if client == "pyspark" else "JDBC (Thrift server)"
            if p:
                four = sum(p[k] for k in SPARK_PHASES)
                cells = [f"{p[k]:.1f}" for k in SPARK_PHASES] + [f"{four:.1f}", f"{p['execution']:.1f}"]
            else:
                cells = [""] * 6
            c = t.get("cpuMsPerRun")
            if c:
                server, user = ("Spark", "Python") if client == "pyspark" else ("Thrift server", "JDBC client")
                cells += [f"{c[server]:.1f}", f"{c['HBase']:.1f}", f"{c[user]:.1f}"]
            else:
                cells += [""] * 3
            lines.append(f"| {name} | {result['rows']} | {label} | {t['medianMs']:.1f} | {' | '.join(cells)} |")
    lines += ["", "Every run (ms):", ""]
    for name, result in lookups_run.items():
        for client in ("pyspark", "jdbc"):
            if client in result:
                lines.append(f"- {name}, {client}: {', '.join(map(str, result[client]['runsMs']))}")
    lines.append("")
    return lines


def chart(report, path):
    import textwrap

    from matplotlib.figure import Figure

    phases = ("parsing", "analysis", "optimization", "planning", "execution")
    labels = list(report["runs"])

    def bars(run):
        """{group: phasesMs}: the small table's statements, then each lookup from each client."""
        found = {name: s["phasesMs"] for name, s in run["statements"].items()}
        for name, result in (run.get("lookups") or {}).items():
            for client, title in (("pyspark", "PySpark"), ("jdbc", "JDBC")):
                if result.get(client, {}).get("phasesMs"):
                    found[f"{textwrap.fill(name, 16)}\n{title}"] = result[client]["phasesMs"]
        return found

    names = list(dict.fromkeys(n for run in report["runs"].values() for n in bars(run)))
    figure = Figure(figsize=(max(10, len(names) * 1.1), 5.5), layout="constrained")
    axes = figure.subplots()
    width = 0.8 / len(labels)
    for j, label in enumerate(labels):
        statements = bars(report["runs"][label])
        bottoms = [0.0] * len(names)
        for k, phase in enumerate(phases):
            heights = [statements[n][phase] if n in statements else 0 for n in names]
            axes.bar(
                [i + j * width for i in range(len(names))],
                heights,
                width,
                bottom=bottoms,
                color=f"C{k}",
                label=phase if j == 0 else None,
                edgecolor="black",
                linewidth=0.4,
            )
            bottoms = [b + h for b, h in zip(bottoms, heights)]
        for i, total in enumerate(bottoms):
            if total:
                axes.text(i + j * width, total, label, ha="center", va="bottom", fontsize=6, rotation=90)
    axes.set_xticks([i + width * (len(labels) - 1) / 2 for i in range(len(names))], names, fontsize=7)
    axes.set_ylabel("median ms, by Spark's phase (execution: the rest)")
    axes.set_title("One statement's cost, by phase, per labelled run")
    axes.legend()
    figure.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
