"""Planner benchmark: TPC-H lineitem and orders in HBase, each query with pushdown on and off.

Run through benchmarks/run, which installs what this needs. It generates the data with
tpchgen-cli, starts an embedded HBase under benchmarks/work (unless HBASE_CONF_DIR names one),
loads the tables once (INSERT ... SELECT, kept for later runs), times every query with
spark.sql.hbase.pushdown on and off in the same session, and writes
benchmarks/results/planner-sf<scale>.json, .md and .png. It also plans long ORs and IN lists of 1,000 and 10,000
terms (long_predicates.py; --long-predicates-only for that part alone), kept under --label in
benchmarks/results/long_predicates.json, .md and .png. `./benchmarks/run chart planner` draws the .png
again from the .json without running the queries.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import long_predicates
from charts import bar_chart, ratio

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "benchmarks" / "work"
# BENCH_RESULTS_DIR sends the results elsewhere (the sequence benchmark runs the others at quick scales).
RESULTS = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "benchmarks" / "results")

LINEITEM_COLUMNS = [
    ("l_orderkey", "BIGINT", None),
    ("l_linenumber", "INT", None),
    ("l_partkey", "BIGINT", "f.pk"),
    ("l_suppkey", "BIGINT", "f.sk"),
    ("l_quantity", "DECIMAL(15,2)", "f.q"),
    ("l_extendedprice", "DECIMAL(15,2)", "f.ep"),
    ("l_discount", "DECIMAL(15,2)", "f.d"),
    ("l_tax", "DECIMAL(15,2)", "f.t"),
    ("l_returnflag", "STRING", "f.rf"),
    ("l_linestatus", "STRING", "f.ls"),
    ("l_shipdate", "DATE", "f.sd"),
    ("l_commitdate", "DATE", "f.cd"),
    ("l_receiptdate", "DATE", "f.rd"),
    ("l_shipinstruct", "STRING", "f.si"),
    ("l_shipmode", "STRING", "f.sm"),
    ("l_comment", "STRING", "f.c"),
]
ORDERS_COLUMNS = [
    ("o_orderkey", "BIGINT", None),
    ("o_custkey", "BIGINT", "f.ck"),
    ("o_orderstatus", "STRING", "f.os"),
    ("o_totalprice", "DECIMAL(15,2)", "f.tp"),
    ("o_orderdate", "DATE", "f.od"),
    ("o_orderpriority", "STRING", "f.op"),
    ("o_clerk", "STRING", "f.cl"),
    ("o_shippriority", "INT", "f.sp"),
    ("o_comment", "STRING", "f.c"),
]


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def jdk_tool(name):
    """A JDK command (java, jstat, jcmd): JAVA_HOME's, else the one on the PATH."""
    path = Path(os.environ.get("JAVA_HOME", "/usr")) / "bin" / name
    return str(path) if path.exists() else name


def write_results(name, report, markdown, chart):
    """results/<name>.json (every number), .md (the table, also printed) and .png (the chart)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / f"{name}.md").write_text(markdown(report))
    chart(report, RESULTS / f"{name}.png")
    print(markdown(report))


def hbase_client_program(hbase, program, *args):
    """The JSON lines a plain HBase client program of benchmarks/ (a .java file, run as a source file) prints,
    on the same HBase client classes as Spark's (the plugin jar and Spark's jars)."""
    import pyspark
    from pyspark_hbase import _paths
    from pyspark_hbase.local import JAVA17_FLAGS

    conf_dir = os.environ.get("HBASE_CONF_DIR") or hbase.conf_dir  # its hbase-site.xml says where ZooKeeper is
    classpath = os.pathsep.join(
        [str(conf_dir), *map(str, _paths.plugin_jars()), str(Path(pyspark.__file__).parent / "jars" / "*")]
    )
    out = subprocess.run(
        [_paths.java_executable(), *JAVA17_FLAGS, "-cp", classpath, str(Path(__file__).parent / program)]
        + [str(a) for a in args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def start_session(benchmark, settings, fresh_hbase=False):
    """The embedded HBase under benchmarks/work (None when HBASE_CONF_DIR names one) and a Spark session on it;
    BENCH_REGION_SERVERS (default 1) region servers serve it.
    With fresh_hbase, the benchmark has an HBase of its own, started empty: nothing that earlier runs left
    (tables, archived files, finished procedures) keeps its background chores busy."""
    import shutil

    from pyspark.sql import SparkSession
    from pyspark_hbase import enable_hbase
    from pyspark_hbase.local import LocalHBase

    hbase = None
    if not os.environ.get("HBASE_CONF_DIR"):
        hbase = LocalHBase(WORK / (f"hbase-{benchmark}" if fresh_hbase else "hbase"))
        if fresh_hbase:
            hbase.stop()
            shutil.rmtree(hbase.data_dir, ignore_errors=True)
        hbase.start(region_servers=int(os.environ.get("BENCH_REGION_SERVERS", "1")))
    builder = (
        SparkSession.builder.master("local[2]")
        .appName(f"spark-hbase-sql {benchmark} benchmark")
        .config("spark.driver.memory", "6g")
        .config("spark.ui.enabled", "false")
    )
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = enable_hbase(builder, data_dir=hbase.data_dir if hbase else None).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark, hbase


def scale_and_regions_arguments(doc, repeat_help="timed runs per query and mode (median)"):
    """The arguments every TPC-H benchmark takes, and the scale as tpchgen-cli names it (1, not 1.0)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--regions", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3, help=repeat_help)
    args = parser.parse_args()
    return args, int(args.scale) if args.scale == int(args.scale) else args.scale


def generate(scale):
    out = WORK / f"tpch-sf{scale}"
    if not (out / "lineitem.parquet").exists():
        log(f"generating TPC-H scale {scale} with tpchgen-cli")
        subprocess.run(
            [
                str(Path(sys.executable).parent / "tpchgen-cli"),
                "parquet",
                "-s",
                str(scale),
                "--tables",
                "lineitem,orders",
                "-o",
                str(out),
            ],
            check=True,
        )
    return out


def create_table(spark, name, columns, key, splits, family_settings=None, layout=None):
    """Our table; `family_settings` ({setting: value}) for family f, else HBase's defaults; `layout` "PACKED" for
    one cell per row and family, else one cell per column."""
    cols = ", ".join(f"{c} {t}" for c, t, _ in columns)
    mapping = ", ".join(f"{c}={cell}" for c, _, cell in columns if cell)
    split = ", ".join(f"({s})" for s in splits)
    families = (
        f" FAMILIES (f ({', '.join(f'{k} = {v}' for k, v in family_settings.items())}))" if family_settings else ""
    )
    spark.sql(
        f"CREATE TABLE {name} ({cols}, PRIMARY KEY ({', '.join(key)})) "
        f"MAPPED BY ({name}, COLS=[{mapping}]){f' LAYOUT {layout}' if layout else ''}{families} SPLIT ON ({split})"
    )


def load(spark, data, scale, regions):
    """Creates and fills the tables unless an earlier run did; returns the load times it measured."""
    lineitem, orders = (
        f"bench_lineitem_sf{str(scale).replace('.', '_')}",
        f"bench_orders_sf{str(scale).replace('.', '_')}",
    )
    spark.read.parquet(str(data / "lineitem.parquet")).createOrReplaceTempView("src_lineitem")
    spark.read.parquet(str(data / "orders.parquet")).createOrReplaceTempView("src_orders")
    max_key = spark.sql("SELECT max(o_orderkey) FROM src_orders").first()[0]
    splits = [max_key * i // regions for i in range(1, regions)]
    expected = {lineitem: spark.table("src_lineitem").count(), orders: spark.table("src_orders").count()}
    existing = {r.tableName for r in spark.sql("SHOW TABLES IN hbase").collect()}
    timings = {}
    for name, columns, key, source in [
        (lineitem, LINEITEM_COLUMNS, ["l_orderkey", "l_linenumber"], "src_lineitem"),
        (orders, ORDERS_COLUMNS, ["o_orderkey"], "src_orders"),
    ]:
        if name in existing and spark.table(name).count() == expected[name]:
            log(f"{name}: already loaded ({expected[name]} rows)")
            continue
        if name in existing:  # an interrupted load: writing the same rows again finishes it
            spark.sql(f"DROP TABLE {name}")
        create_table(spark, name, columns, key, splits)
        select = ", ".join(f"CAST({c} AS {t})" for c, t, _ in columns)
        log(f"{name}: loading {expected[name]} rows with INSERT ... SELECT (Puts)")
        start = time.perf_counter()
        spark.sql(f"INSERT INTO {name} SELECT {select} FROM {source}")
        timings[name] = time.perf_counter() - start
        log(f"{name}: loaded in {timings[name]:.1f} s")
    for name in (lineitem, orders):
        compact(spark, name)
    return lineitem, orders, max_key, timings


def compact(spark, name):
    """Flushes and major-compacts a freshly loaded table, so that no background work skews the timings."""
    jvm = spark._jvm
    cluster = jvm.org.apache.spark.sql.hbase.connection.HBaseClusterConf.fromSession(spark._jsparkSession)
    connection = jvm.org.apache.spark.sql.hbase.connection.HBaseConnections.borrow(cluster)
    admin = connection.getAdmin()
    try:
        table = jvm.org.apache.hadoop.hbase.TableName.valueOf(name)
        admin.flush(table)
        admin.majorCompact(table)
        time.sleep(2)
        while str(admin.getCompactionState(table).toString()) != "NONE":
            time.sleep(1)
        log(f"{name}: flushed and compacted")
    finally:
        admin.close()
        jvm.org.apache.spark.sql.hbase.connection.HBaseConnections.release(cluster)


def timed_runs(
    spark, query, settings, repeat, warm_up=True, action=lambda df: df.collect(), whole_statement=False, each_run=None
):
    """Every run's seconds of action(df) under these session settings, with what the last run returned and its
    scan metrics. The action is collect() unless given: one that keeps the rows in the JVM measures the scan alone.
    spark.sql() parses and analyzes the statement before the clock starts, unless whole_statement; each_run(df)
    sees every timed run's DataFrame."""
    from pyspark_hbase import scan_metrics

    for key, value in settings.items():
        spark.conf.set(key, value)
    times, result, metrics = [], None, None
    if warm_up:
        action(spark.sql(query))  # not timed
    for _ in range(repeat):
        start = time.perf_counter()
        df = spark.sql(query)  # planned anew each time: optimizing and planning are part of the cost
        if not whole_statement:
            start = time.perf_counter()
        result = action(df)
        times.append(time.perf_counter() - start)
        metrics = scan_metrics(df)
        if each_run:
            each_run(df)
    for key in settings:
        spark.conf.unset(key)
    return times, result, metrics


PUSHDOWN_OFF = {"spark.sql.hbase.pushdown": "false"}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--regions", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=5, help="runs per query with pushdown on (median)")
    parser.add_argument("--repeat-off", type=int, default=3, help="runs per query with pushdown off (median)")
    parser.add_argument(
        "--long-predicates-only", action="store_true", help="plan only the long predicates (issue 36), no query"
    )
    parser.add_argument("--terms", default="1000,10000", help="term counts of the long predicates")
    parser.add_argument("--long-repeat", type=int, default=5, help="timed plannings of each long predicate (median)")
    parser.add_argument("--label", default="now", help="the name the long predicates' run is kept under, e.g. after")
    parser.add_argument("--commit", help="the commit the plugin was built from, when it is not the checkout's")
    args = parser.parse_args()
    scale = int(args.scale) if args.scale == int(args.scale) else args.scale
    terms = [int(t) for t in args.terms.split(",")]
    load_before = os.getloadavg()[0]

    # First: it compiles the test classes, and needs no HBase.
    planning, planner_alone = run_planning_benchmark(terms, args.long_repeat)
    data = generate(scale)
    spark, hbase = start_session("planner", {"spark.sql.shuffle.partitions": "4"})

    lineitem, orders, max_key, load_times = load(spark, data, scale, args.regions)
    spark_long = long_predicates.through_spark(spark, lineitem, orders, terms, args.long_repeat, log)
    long_predicates.write(
        RESULTS,
        args.label,
        f"./benchmarks/run planner{' --long-predicates-only' if args.long_predicates_only else ''} --scale {scale} "
        f"--terms {args.terms} --long-repeat {args.long_repeat} --label {args.label}"
        + (f" --commit {args.commit}" if args.commit else ""),
        args.commit
        or subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
        ).stdout.strip(),
        planner_alone,
        spark_long,
        load_before,
    )
    if args.long_predicates_only:
        spark.stop()
        if hbase:
            hbase.stop()
        return
    keys = [r[0] for r in spark.sql("SELECT o_orderkey FROM src_orders ORDER BY o_orderkey").collect()]
    point = keys[len(keys) // 3]
    low = keys[len(keys) // 2]
    high = low + max_key // 1000  # 0.1 % of the key space
    in_keys = keys[len(keys) // 5 :: len(keys) // 100][:100]
    queries = [
        ("point lookup by full key", f"SELECT * FROM {lineitem} WHERE l_orderkey = {point} AND l_linenumber = 1", True),
        ("point lookup, orders", f"SELECT * FROM {orders} WHERE o_orderkey = {point}", True),
        ("0.1 % range on the leading key", f"SELECT * FROM {lineitem} WHERE l_orderkey BETWEEN {low} AND {high}", True),
        ("IN list of 100 keys", f"SELECT * FROM {lineitem} WHERE l_orderkey IN ({', '.join(map(str, in_keys))})", True),
        ("l_linenumber only", f"SELECT * FROM {lineitem} WHERE l_linenumber = 7", False),
        ("full-scan count", f"SELECT count(*) FROM {lineitem}", False),
    ]
    results = []
    for name, query, selective in queries:
        on_runs, on_rows, on_metrics = timed_runs(spark, query, {}, args.repeat)
        # A full scan needs no warm-up.
        off_runs, off_rows, off_metrics = timed_runs(spark, query, PUSHDOWN_OFF, args.repeat_off, warm_up=False)
        on_time, off_time = statistics.median(on_runs), statistics.median(off_runs)
        assert sorted(map(tuple, on_rows)) == sorted(map(tuple, off_rows)), f"{name}: results differ"
        matched = on_rows[0][0] if query.startswith("SELECT count(*)") else len(on_rows)
        results.append(
            {
                "query": name,
                "sql": query,
                "selective": selective,
                "rowsMatched": matched,
                "pushdownOn": {"seconds": on_time, "runs": on_runs, **on_metrics},
                "pushdownOff": {"seconds": off_time, "runs": off_runs, **off_metrics},
                "speedup": off_time / on_time,
            }
        )
        log(
            f"{name}: {matched} rows, on {on_time * 1000:.0f} ms (rowsRead {on_metrics['rowsRead']}), "
            f"off {off_time * 1000:.0f} ms (rowsRead {off_metrics['rowsRead']}), {off_time / on_time:.0f}x"
        )
    spark.stop()

    RESULTS.mkdir(parents=True, exist_ok=True)
    report = {
        "scale": scale,
        "regions": args.regions,
        "loadSeconds": load_times,
        "queries": results,
        "planning": planning,
        "machine": f"{os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"),
    }
    (RESULTS / f"planner-sf{scale}.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / f"planner-sf{scale}.md").write_text(markdown(report))
    chart(report, RESULTS / f"planner-sf{scale}.png")
    print(markdown(report))
    if hbase:
        hbase.stop()


def run_planning_benchmark(terms, long_repeat):
    """The planning microbenchmark's figures, and those of the long predicates through our planner alone."""
    log("planning microbenchmarks (sbt Test/runMain)")
    out = subprocess.run(
        [
            str(ROOT / "build" / "sbt"),
            "Test/runMain org.apache.spark.sql.hbase.bench.PlanningBenchmark",
            long_predicates.planner_alone_command(terms, long_repeat),
        ],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    line = next(ln for ln in out.splitlines() if '"benchmark": "planning"' in ln)
    return json.loads(line[line.index("{") :]), long_predicates.planner_alone_results(out)


def markdown(report):
    lines = [
        f"TPC-H scale {report['scale']}, {report['regions']} regions, {report['machine']}, {report['date']}.",
        "",
        "| query | rows matched | pushdown on | rowsRead on | regions on | pushdown off | rowsRead off | speedup |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in report["queries"]:
        on, off = r["pushdownOn"], r["pushdownOff"]
        lines.append(
            f"| {r['query']} | {r['rowsMatched']} | {on['seconds'] * 1000:.0f} ms | {on['rowsRead']} | "
            f"{on['regionsScanned']} of {on['regionsTotal']} | {off['seconds'] * 1000:.0f} ms | {off['rowsRead']} | "
            f"{r['speedup']:.1f}x |"
        )
    p = report["planning"]
    lines += [
        "",
        f"Planning a {p['terms']}-term predicate over {p['regions']} synthetic regions "
        f"({p['regionsKept']} kept, {p['keyRanges']} row ranges): median {p['medianMs']:.1f} ms, "
        f"max {p['maxMs']:.1f} ms over 50 runs.",
    ]
    if report["loadSeconds"]:
        lines += [
            "",
            "Load with INSERT ... SELECT (Puts): "
            + ", ".join(f"{k} {v:.1f} s" for k, v in report["loadSeconds"].items())
            + ".",
        ]
    return "\n".join(lines) + "\n"


def chart(report, path):
    """Median ms of each query with pushdown on and off, on a log scale: from a lookup's milliseconds to a full
    scan's seconds. Runs are dotted where the JSON has them (older results keep medians only)."""
    queries = report["queries"]
    bar_chart(
        path,
        f"Pushdown on and off, TPC-H scale {report['scale']}, {report['regions']} regions",
        [f"{q['query']}\n(speedup {ratio(q['speedup'])})" for q in queries],
        [
            (name, [q[key]["seconds"] for q in queries], [q[key].get("runs") for q in queries])
            for name, key in (("pushdown on", "pushdownOn"), ("pushdown off", "pushdownOff"))
        ],
        unit="ms",
        log_scale=True,
    )


if __name__ == "__main__":
    main()
