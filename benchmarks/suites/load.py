# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

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
import os
import statistics
import time
import uuid
from pathlib import Path

from harness.charts import bar_chart, ratio
from harness.common import WORK, log, machine, today, tpch_scale
from harness.data import LINEITEM_COLUMNS, generate_csv, in_file_order
from harness.platform import JAVA17_FLAGS, hbase_classpath, java_executable
from harness.results import write_results
from harness.sessions import start_session

ROOT = Path(__file__).resolve().parent.parent
PACKED_ROUTE_MARK = "LAYOUT PACKED"
PACKED_LOAD = f"LOAD DATA, {PACKED_ROUTE_MARK}"
PACKED_TARGET = 1.5  # LOAD DATA into a packed table against one cell per column
LOAD_TARGET = 5.0  # LOAD DATA against INSERT ... SELECT


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

    classpath = ":".join(hbase_classpath() + [str(conf_dir)])
    output = work / "importtsv-output"
    shutil.rmtree(output, ignore_errors=True)
    java = [java_executable(), "-Xmx4g", *JAVA17_FLAGS, "-cp", classpath]
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


class LoadRun:
    """The routes' tables on one session and HBase: each route loads the same CSV file into a fresh table."""

    def __init__(self, spark, hbase, csv, regions):
        self.spark, self.hbase, self.csv, self.regions = spark, hbase, csv, regions
        self.shuffled, self.tsv = shuffled_copy(csv), importtsv_input(csv)
        self.columns = in_file_order(csv, LINEITEM_COLUMNS)
        self.schema = ", ".join(f"{c} {t}" for c, t, _ in self.columns)
        self.mapping = ", ".join(f"{c}={cell}" for c, _, cell in self.columns if cell)
        self.source = spark.read.option("header", "true").schema(self.schema).csv(str(csv))
        self.rows = self.source.count()
        self.max_key = self.source.selectExpr("max(l_orderkey)").first()[0]
        self.splits = ", ".join(f"({self.max_key * i // regions})" for i in range(1, regions))

    def with_admin(self, use):
        """use(jvm, admin) on a connection of its own."""
        jvm = self.spark._jvm
        conf = jvm.org.apache.spark.sql.hbase.connection.HBaseClusterConf.fromSession(
            self.spark._jsparkSession
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

    def drop(self, name):
        """DROP TABLE removes only the mapping; the HBase table goes too, so that runs do not pile up regions."""
        self.spark.sql(f"DROP TABLE IF EXISTS {name}")

        def delete(jvm, admin):
            table = jvm.org.apache.hadoop.hbase.TableName.valueOf(name)
            if admin.tableExists(table):
                admin.disableTable(table)
                admin.deleteTable(table)

        self.with_admin(delete)

    def drop_leftovers(self):
        """Tables that earlier runs left behind."""
        pattern = "bench_load_.*"
        for name in self.with_admin(
            lambda jvm, admin: [
                t.getNameAsString() for t in admin.listTableNames(jvm.java.util.regex.Pattern.compile(pattern))
            ]
        ):
            self.drop(name)

    def fresh_importtsv_table(self, route):
        """The same families and splits, keyed by ImportTsv's string key; mapped so that Spark can count it."""
        name = f"bench_load_{route}_{uuid.uuid4().hex[:8]}"
        split_keys = [f"{self.max_key * i // self.regions:012d}" for i in range(1, self.regions)]

        def create(jvm, admin):
            family = jvm.org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder.of("f")
            descriptor = (
                jvm.org.apache.hadoop.hbase.client.TableDescriptorBuilder.newBuilder(
                    jvm.org.apache.hadoop.hbase.TableName.valueOf(name)
                )
                .setColumnFamily(family)
                .build()
            )
            strings = self.spark.sparkContext._gateway.new_array(jvm.java.lang.String, len(split_keys))
            for i, key in enumerate(split_keys):
                strings[i] = key
            admin.createTable(descriptor, jvm.org.apache.hadoop.hbase.util.Bytes.toByteArrays(strings))

        self.with_admin(create)
        cells = ", ".join(f"{c}={cell}" for c, _, cell in self.columns if cell)
        strings = ", ".join(f"{c} STRING" for c, _, cell in self.columns if cell)
        self.spark.sql(
            f"CREATE TABLE {name} (k STRING, {strings}, PRIMARY KEY (k)) MAPPED BY ({name}, COLS=[{cells}]) IN StringFormat"
        )
        return name

    def fresh_table(self, route, layout="CELLS"):
        name = f"bench_load_{route}_{uuid.uuid4().hex[:8]}"
        self.spark.sql(
            f"CREATE TABLE {name} ({self.schema}, PRIMARY KEY (l_orderkey, l_linenumber)) "
            f"MAPPED BY ({name}, COLS=[{self.mapping}]) LAYOUT {layout} SPLIT ON ({self.splits})"
        )
        return name

    def table_for(self, route):
        if route.startswith("ImportTsv"):
            return self.fresh_importtsv_table("importtsv")
        return self.fresh_table(route.split(" ")[0].lower(), "PACKED" if PACKED_ROUTE_MARK in route else "CELLS")

    def load_data(self, path):
        return lambda t: self.spark.sql(
            f"LOAD DATA LOCAL INPATH '{path}' INTO TABLE {t} OPTIONS (header 'true')"
        ).collect()

    def routes(self):
        """(route, load(table)) of each route."""
        importtsv_columns = ",".join(cell.replace(".", ":") for c, _, cell in self.columns if cell)
        conf_dir = self.hbase.conf_dir if self.hbase else os.environ["HBASE_CONF_DIR"]
        return [
            ("LOAD DATA", self.load_data(self.csv)),
            (
                "LOAD DATA PARALLEL",
                lambda t: self.spark.sql(
                    f"LOAD DATA PARALLEL LOCAL INPATH '{self.csv}' INTO TABLE {t} OPTIONS (header 'true')"
                ).collect(),
            ),
            ("LOAD DATA, rows not in key order", self.load_data(self.shuffled)),
            (PACKED_LOAD, self.load_data(self.csv)),
            ("INSERT ... SELECT (Puts)", lambda t: self.source.write.insertInto(t)),
            (
                "ImportTsv + bulk load (HBase's tools)",
                lambda t: run_importtsv(conf_dir, t, self.tsv, importtsv_columns, WORK),
            ),
        ]

    def settle(self):
        """Every route starts alike: the last route's garbage collected, and HBase's chores after the last
        table's deletion (closing, archiving and cleaning its files) given time to finish."""
        self.spark._jvm.java.lang.System.gc()
        time.sleep(5)

    def warm_up(self, routes):
        """One untimed round of every Spark route (class loading, JIT, heap sizing), so that no route pays for
        them. ImportTsv starts JVMs of its own each time, which cannot be warmed up."""
        for route, run in routes:
            if not route.startswith("ImportTsv"):
                table = self.fresh_table("warmup", "PACKED" if PACKED_ROUTE_MARK in route else "CELLS")
                run(table)
                self.drop(table)

    def timed_rounds(self, routes, repeat):
        """The routes in turn, `repeat` rounds: {route: every run's seconds}."""
        runs = {}
        for round_ in range(repeat):
            for route, run in routes:
                table = self.table_for(route)
                self.settle()
                start = time.perf_counter()
                run(table)
                seconds = time.perf_counter() - start
                count = self.spark.table(table).count()
                assert count == self.rows, f"{route}: {count} rows, expected {self.rows}"
                runs.setdefault(route, []).append(seconds)
                log(
                    f"round {round_ + 1}, {route}: {self.rows} rows in {seconds:.1f} s "
                    f"({self.rows / seconds:,.0f} rows/s)"
                )
                self.drop(table)
        return runs


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--regions", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    scale = tpch_scale(args.scale)

    csv = generate_csv(scale) / "lineitem.csv"
    spark, hbase = start_session("load", {"spark.ui.showConsoleProgress": "false"}, fresh_hbase=True)
    bench = LoadRun(spark, hbase, csv, args.regions)
    bench.drop_leftovers()
    routes = bench.routes()
    bench.warm_up(routes)
    runs = bench.timed_rounds(routes, args.repeat)
    spark.stop()
    results = {route: statistics.median(times) for route, times in runs.items()}
    puts = results["INSERT ... SELECT (Puts)"]
    report = {
        "scale": scale,
        "rows": bench.rows,
        "regions": args.regions,
        "repeat": args.repeat,
        "seconds": results,
        "runs": runs,
        "speedup": {k: puts / v for k, v in results.items()},
        "packedOverCells": results["LOAD DATA"] / results[PACKED_LOAD],
        "machine": machine(),
        "date": today(),
    }
    write_results(f"load-sf{scale}", report, markdown, chart)
    if hbase:
        hbase.stop()


def markdown(report):
    rows, results, runs = report["rows"], report["seconds"], report["runs"]
    puts = results["INSERT ... SELECT (Puts)"]
    lines = [
        f"TPC-H lineitem scale {report['scale']} ({rows} rows, CSV), {report['regions']} regions, "
        f"{report['machine']}, {report['date']}, median of {report['repeat']} rounds.",
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
    return "\n".join(lines) + "\n"


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


CHARTS = {"load": chart}

if __name__ == "__main__":
    main()
