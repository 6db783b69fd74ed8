"""Load benchmark: TPC-H lineitem from CSV into HBase, LOAD DATA (HFiles) against INSERT ... SELECT (Puts).

Run through benchmarks/run load [--scale 0.1] [--repeat 3]. Every route loads the same CSV file
into fresh tables with the same key, pre-split the same way, in the same Spark session and HBase;
the INSERT reads the file with Spark's CSV reader, as LOAD DATA does. tpchgen-cli writes the rows
in key order, which LOAD DATA writes without a shuffle, so one more route loads them shuffled, and one
loads them into a LAYOUT PACKED table (one cell per family per row).
After one untimed round of the Spark routes, the routes take turns, --repeat rounds, and each
reports its median, so that a slow spell of the machine falls on every route alike. HBase's own
ImportTsv (MapReduce, local runner) plus its bulk loader is timed on the same rows as a TSV with a
single string key, as it needs. Each table is deleted from HBase after its run, and each run starts after
a pause of a few seconds. The HBase is the benchmark's own, started empty. Writes
benchmarks/results/load-sf<scale>.json, .md and .png; `./benchmarks/run chart load` draws the .png again
from the .json without loading anything.
"""

import argparse
import json
import os
import statistics
import time
import uuid
from pathlib import Path

from charts import bar_chart, ratio
from tpch_planner import LINEITEM_COLUMNS, RESULTS, WORK, log, start_session

ROOT = Path(__file__).resolve().parent.parent
PACKED_ROUTE_MARK = "LAYOUT PACKED"
PACKED_LOAD = f"LOAD DATA, {PACKED_ROUTE_MARK}"
PACKED_TARGET = 1.5  # LOAD DATA into a packed table against one cell per column
LOAD_TARGET = 5.0  # LOAD DATA against INSERT ... SELECT


def generate_csv(scale, tables=("lineitem",)):
    """The directory holding <table>.csv for each of `tables`, at this TPC-H scale, from tpchgen-cli."""
    import subprocess
    import sys

    out = WORK / f"tpch-csv-sf{scale}"
    if not all((out / f"{table}.csv").exists() for table in tables):
        log(f"generating TPC-H {' and '.join(tables)} scale {scale} as CSV with tpchgen-cli")
        subprocess.run(
            [
                str(Path(sys.executable).parent / "tpchgen-cli"),
                "csv",
                "-s",
                str(scale),
                "--tables",
                ",".join(tables),
                "-o",
                str(out),
            ],
            check=True,
        )
    return out


def shuffled_copy(csv):
    """The same rows in random order: tpchgen-cli writes them in key order, which LOAD DATA loads without a shuffle."""
    import random

    out = csv.with_name("lineitem-shuffled.csv")
    if not out.exists():
        with csv.open() as f:
            header, lines = f.readline(), f.readlines()
        random.Random(42).shuffle(lines)
        with out.open("w") as f:
            f.write(header)
            f.writelines(lines)
    return out


def importtsv_input(csv):
    """The file as ImportTsv takes it: tab-separated, unquoted, no header, and one row key column
    (ImportTsv has no composite keys): l_orderkey and l_linenumber as zero-padded digits."""
    import csv as csvlib

    out = csv.with_name("lineitem-importtsv.tsv")
    if not out.exists():
        with csv.open(newline="") as f, out.open("w") as tsv:
            reader = csvlib.reader(f)
            header = next(reader)
            key = (header.index("l_orderkey"), header.index("l_linenumber"))
            values = [i for i in range(len(header)) if i not in key]
            for row in reader:
                tsv.write(
                    "\t".join([f"{int(row[key[0]]):012d}{int(row[key[1]]):02d}"] + [row[i] for i in values]) + "\n"
                )
    return out


def run_importtsv(conf_dir, table, tsv, columns, work):
    """HBase's ImportTsv into HFiles (MapReduce, local runner, 2 map and 2 reduce slots), then its bulk loader."""
    import shutil
    import subprocess

    from pyspark_hbase import _paths
    from pyspark_hbase.local import JAVA17_FLAGS

    classpath = ":".join(_paths.read_classpath() + [str(conf_dir)])
    output = work / "importtsv-output"
    shutil.rmtree(output, ignore_errors=True)
    java = [_paths.java_executable(), "-Xmx4g", *JAVA17_FLAGS, "-cp", classpath]
    mapreduce = ["-Dmapreduce.local.map.tasks.maximum=2", "-Dmapreduce.local.reduce.tasks.maximum=2"]
    # The local runner links job files into the working directory: give it one of its own.
    run_dir = work / "importtsv-run"
    run_dir.mkdir(parents=True, exist_ok=True)
    log_file = work / "importtsv.log"
    with log_file.open("w") as log_out:
        subprocess.run(
            java
            + [
                "org.apache.hadoop.hbase.mapreduce.ImportTsv",
                *mapreduce,
                f"-Dimporttsv.columns=HBASE_ROW_KEY,{columns}",
                f"-Dimporttsv.bulk.output=file://{output}",
                table,
                f"file://{tsv}",
            ],
            check=True,
            cwd=run_dir,
            stdout=log_out,
            stderr=subprocess.STDOUT,
        )
        subprocess.run(
            java + ["org.apache.hadoop.hbase.tool.BulkLoadHFilesTool", f"file://{output}", table],
            check=True,
            cwd=run_dir,
            stdout=log_out,
            stderr=subprocess.STDOUT,
        )
    shutil.rmtree(output, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--regions", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    scale = int(args.scale) if args.scale == int(args.scale) else args.scale

    csv = generate_csv(scale) / "lineitem.csv"
    shuffled = shuffled_copy(csv)
    tsv = importtsv_input(csv)
    spark, hbase = start_session("load", {"spark.ui.showConsoleProgress": "false"}, fresh_hbase=True)

    # The table's columns in the file's order: LOAD DATA and the CSV reader map fields by position.
    header = csv.open().readline().strip().split(",")
    columns = sorted(LINEITEM_COLUMNS, key=lambda c: header.index(c[0]))
    schema = ", ".join(f"{c} {t}" for c, t, _ in columns)
    mapping = ", ".join(f"{c}={cell}" for c, _, cell in columns if cell)
    source = spark.read.option("header", "true").schema(schema).csv(str(csv))
    rows = source.count()
    max_key = source.selectExpr("max(l_orderkey)").first()[0]
    splits = ", ".join(f"({max_key * i // args.regions})" for i in range(1, args.regions))

    def with_admin(use):
        jvm = spark._jvm
        conf = jvm.org.apache.spark.sql.hbase.connection.HBaseClusterConf.fromSession(
            spark._jsparkSession
        ).toConfiguration()
        connection = jvm.org.apache.hadoop.hbase.client.ConnectionFactory.createConnection(conf)
        try:
            admin = connection.getAdmin()
            try:
                return use(jvm, admin)
            finally:
                admin.close()
        finally:
            connection.close()

    def drop(name):
        """DROP TABLE removes only the mapping; the HBase table goes too, so that runs do not pile up regions."""
        spark.sql(f"DROP TABLE IF EXISTS {name}")

        def delete(jvm, admin):
            table = jvm.org.apache.hadoop.hbase.TableName.valueOf(name)
            if admin.tableExists(table):
                admin.disableTable(table)
                admin.deleteTable(table)

        with_admin(delete)

    # Tables that earlier runs left behind.
    pattern = "bench_load_.*"
    for name in with_admin(
        lambda jvm, admin: [
            t.getNameAsString() for t in admin.listTableNames(jvm.java.util.regex.Pattern.compile(pattern))
        ]
    ):
        drop(name)

    def fresh_importtsv_table(route):
        """The same families and splits, keyed by ImportTsv's string key; mapped so that Spark can count it."""
        name = f"bench_load_{route}_{uuid.uuid4().hex[:8]}"

        def create(jvm, admin):
            family = jvm.org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder.of("f")
            descriptor = (
                jvm.org.apache.hadoop.hbase.client.TableDescriptorBuilder.newBuilder(
                    jvm.org.apache.hadoop.hbase.TableName.valueOf(name)
                )
                .setColumnFamily(family)
                .build()
            )
            split_keys = [f"{max_key * i // args.regions:012d}" for i in range(1, args.regions)]
            strings = spark.sparkContext._gateway.new_array(jvm.java.lang.String, len(split_keys))
            for i, key in enumerate(split_keys):
                strings[i] = key
            admin.createTable(descriptor, jvm.org.apache.hadoop.hbase.util.Bytes.toByteArrays(strings))

        with_admin(create)
        cells = ", ".join(f"{c}={cell}" for c, _, cell in columns if cell)
        strings = ", ".join(f"{c} STRING" for c, _, cell in columns if cell)
        spark.sql(
            f"CREATE TABLE {name} (k STRING, {strings}, PRIMARY KEY (k)) MAPPED BY ({name}, COLS=[{cells}]) IN StringFormat"
        )
        return name

    def fresh_table(route, layout="CELLS"):
        name = f"bench_load_{route}_{uuid.uuid4().hex[:8]}"
        spark.sql(
            f"CREATE TABLE {name} ({schema}, PRIMARY KEY (l_orderkey, l_linenumber)) "
            f"MAPPED BY ({name}, COLS=[{mapping}]) LAYOUT {layout} SPLIT ON ({splits})"
        )
        return name

    def table_for(route):
        if route.startswith("ImportTsv"):
            return fresh_importtsv_table("importtsv")
        return fresh_table(route.split(" ")[0].lower(), "PACKED" if PACKED_ROUTE_MARK in route else "CELLS")

    routes = [
        (
            "LOAD DATA",
            lambda t: spark.sql(f"LOAD DATA LOCAL INPATH '{csv}' INTO TABLE {t} OPTIONS (header 'true')").collect(),
        ),
        (
            "LOAD DATA PARALLEL",
            lambda t: spark.sql(
                f"LOAD DATA PARALLEL LOCAL INPATH '{csv}' INTO TABLE {t} OPTIONS (header 'true')"
            ).collect(),
        ),
        (
            "LOAD DATA, rows not in key order",
            lambda t: spark.sql(
                f"LOAD DATA LOCAL INPATH '{shuffled}' INTO TABLE {t} OPTIONS (header 'true')"
            ).collect(),
        ),
        (
            PACKED_LOAD,
            lambda t: spark.sql(f"LOAD DATA LOCAL INPATH '{csv}' INTO TABLE {t} OPTIONS (header 'true')").collect(),
        ),
        ("INSERT ... SELECT (Puts)", lambda t: source.write.insertInto(t)),
        (
            "ImportTsv + bulk load (HBase's tools)",
            lambda t: run_importtsv(
                hbase.conf_dir if hbase else os.environ["HBASE_CONF_DIR"], t, tsv, importtsv_columns, WORK
            ),
        ),
    ]
    importtsv_columns = ",".join(cell.replace(".", ":") for c, _, cell in columns if cell)

    def settle():
        """Every route starts alike: the last route's garbage collected, and HBase's chores after the last
        table's deletion (closing, archiving and cleaning its files) given time to finish."""
        spark._jvm.java.lang.System.gc()
        time.sleep(5)

    # One untimed round of every Spark route first (class loading, JIT, heap sizing), so that no
    # route pays for them. ImportTsv starts JVMs of its own each time, which cannot be warmed up.
    for route, run in routes:
        if not route.startswith("ImportTsv"):
            table = fresh_table("warmup", "PACKED" if PACKED_ROUTE_MARK in route else "CELLS")
            run(table)
            drop(table)

    runs = {}
    for round_ in range(args.repeat):
        for route, run in routes:
            table = table_for(route)
            settle()
            start = time.perf_counter()
            run(table)
            seconds = time.perf_counter() - start
            count = spark.table(table).count()
            assert count == rows, f"{route}: {count} rows, expected {rows}"
            runs.setdefault(route, []).append(seconds)
            log(f"round {round_ + 1}, {route}: {rows} rows in {seconds:.1f} s ({rows / seconds:,.0f} rows/s)")
            drop(table)
    spark.stop()
    results = {route: statistics.median(times) for route, times in runs.items()}

    puts = results["INSERT ... SELECT (Puts)"]
    report = {
        "scale": scale,
        "rows": rows,
        "regions": args.regions,
        "repeat": args.repeat,
        "seconds": results,
        "runs": runs,
        "speedup": {k: puts / v for k, v in results.items()},
        "packedOverCells": results["LOAD DATA"] / results[PACKED_LOAD],
        "machine": f"{os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"load-sf{scale}.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        f"TPC-H lineitem scale {scale} ({rows} rows, CSV), {args.regions} regions, {report['machine']}, {report['date']}, "
        f"median of {args.repeat} rounds.",
        "",
        "| route | median seconds | every run | rows/s | speedup over Puts |",
        "|---|---:|---|---:|---:|",
    ]
    for route, seconds in results.items():
        every = ", ".join(f"{t:.1f}" for t in runs[route])
        lines.append(f"| {route} | {seconds:.1f} | {every} | {rows / seconds:,.0f} | {puts / seconds:.1f}x |")
    lines += [
        "",
        f"LOAD DATA into LAYOUT PACKED against one cell per column: {report['packedOverCells']:.2f}x as fast "
        f"(target at least {PACKED_TARGET}x: {'met' if report['packedOverCells'] >= PACKED_TARGET else 'not met'}); "
        f"LOAD DATA against Puts: {report['speedup']['LOAD DATA']:.1f}x (target at least {LOAD_TARGET:.0f}x: "
        f"{'met' if report['speedup']['LOAD DATA'] >= LOAD_TARGET else 'not met'}).",
    ]
    (RESULTS / f"load-sf{scale}.md").write_text("\n".join(lines) + "\n")
    chart(report, RESULTS / f"load-sf{scale}.png")
    print("\n".join(lines))
    if hbase:
        hbase.stop()


def chart(report, path):
    """Median seconds of each route, with every round's run."""
    routes = list(report["seconds"])
    bar_chart(
        path,
        f"Loading TPC-H lineitem scale {report['scale']} ({report['rows']:,} rows of CSV) into "
        f"{report['regions']} regions",
        [f"{route}\n({ratio(report['speedup'][route])} the speed of Puts)" for route in routes],
        [
            (
                f"median of {report['repeat']} rounds",
                [report["seconds"][r] for r in routes],
                [report["runs"][r] for r in routes],
            )
        ],
        xlabel="route",
        size=(10, 5.5),
    )


if __name__ == "__main__":
    main()
