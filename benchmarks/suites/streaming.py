# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Streaming benchmark (issue 37), the sink and the source.

Run through `./benchmarks/run streaming [--rows 1000000] [--files 20] [--regions 4] [--repeat 3] [--puts 200]
[--idle-rows 5000000] [--idle-seconds 15]`.

The sink: rows/s written into an HBase table by a Structured Streaming
query through the sink (`writeStream.format("hbase")`), through foreachBatch calling the batch
writer (`df.write.format("hbase")`), and by a plain HBase client program (RawPut.java: one
BufferedMutator per thread, as many threads as Spark has task slots). Target: the sink at least
80 % of the plain client's rows/s.

The input is Parquet files of (id INT, val INT, label STRING), as many files per batch as Spark has
task slots (so each batch writes from as many tasks as the plain client has threads); each run writes a
table of its own, split into --regions regions. The sink and foreachBatch are timed by the sum of
their batches' addBatch durations (reading the batch's input included: Spark reads it there) and by
the wall time of the whole query.

The source: the latency from a plain HBase Put to its row's delivery with the default lag
and trigger, median and p99 (each Put checked delivered once), and what a trigger's look for new writes costs
on a table of --idle-rows rows in major-compacted store files: idle, and from the table's beginning.

Writes benchmarks/results/streaming.json, .md and .png.
"""

import argparse
import json
import os
import statistics
import threading
import time
import uuid

from harness.charts import bar_chart
from harness.common import WORK, log
from harness.java import hbase_client_program
from harness.results import target_lines, write_results
from harness.sessions import compact, hbase_classes, start_session, table_name

TARGET = 0.8  # the sink's rows/s against the plain client's
SCHEMA = "id INT, val INT, label STRING"


def input_files(spark, rows, files):
    path = WORK / f"streaming-input-{rows}-{files}"
    if not (path / "_SUCCESS").exists():
        spark.range(rows).selectExpr(
            "CAST(id AS INT) AS id", "CAST(id * 7 % 100000 AS INT) AS val", "concat('label-', id) AS label"
        ).repartitionByRange(files, "id").write.mode("overwrite").parquet(str(path))
    return path


def new_table(spark, rows, regions):
    name = f"bench_stream_{uuid.uuid4().hex[:8]}"
    splits = ", ".join(f"({rows * i // regions})" for i in range(1, regions))
    spark.sql(
        f"CREATE TABLE {name} (id INT, val INT, label STRING, PRIMARY KEY (id)) "
        f"MAPPED BY ({name}, COLS=[val=f.v, label=f.l]) LAYOUT CELLS" + (f" SPLIT ON ({splits})" if splits else "")
    )
    return name


def stream_run(spark, source, rows, regions, how, files_per_batch):
    table = new_table(spark, rows, regions)
    checkpoint = WORK / "streaming-checkpoints" / table
    stream = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", files_per_batch).parquet(str(source))
    writer = stream.writeStream.option("checkpointLocation", str(checkpoint)).trigger(availableNow=True)
    if how == "sink":
        writer = writer.format("hbase").option("table", table)
    else:
        writer = writer.foreachBatch(
            lambda df, _: df.write.format("hbase").option("table", table).mode("append").save()
        )
    start = time.monotonic()
    query = writer.start()
    query.awaitTermination()
    wall = time.monotonic() - start
    add_batch = sum(p["durationMs"].get("addBatch", 0) for p in query.recentProgress) / 1000
    written = spark.table(table).count()
    assert written == rows, (how, written, rows)
    return {"wallSeconds": wall, "addBatchSeconds": add_batch}


def raw_put(hbase, spark, rows, regions, threads, repeat):
    """Every timed run of RawPut.java into a table of its own; the same HBase client classes as Spark's."""
    table = new_table(spark, rows, regions)
    return [r["seconds"] for r in hbase_client_program(hbase, "RawPut.java", table, rows, threads, repeat)]


def source_half(spark, puts, idle_rows, idle_seconds):
    """Put-to-delivery latency, and each look for new writes on a big compacted table: idle and from its start."""
    checkpoints = WORK / "streaming-checkpoints"
    lag = int(spark.conf.get("spark.sql.hbase.changes.lagMillis"))
    log(f"latency of {puts} Puts, lag {lag} ms, default trigger")
    lat = latency(spark, puts, str(checkpoints / f"latency-{uuid.uuid4().hex[:8]}"))
    log(f"median {lat['medianSeconds']:.2f} s, p99 {lat['p99Seconds']:.2f} s")
    big = "bench_stream_changes"
    spark.sql(f"DROP TABLE IF EXISTS {big}")
    spark.sql(
        f"CREATE TABLE {big} (k BIGINT, v STRING, PRIMARY KEY (k)) MAPPED BY ({big}, COLS=[v=f.v]) LAYOUT CELLS "
        f"SPLIT ON (({idle_rows // 4}), ({idle_rows // 2}), ({3 * idle_rows // 4}))"
    )
    began = time.perf_counter()
    spark.range(idle_rows).selectExpr("id AS k", "sha1(CAST(id AS STRING)) AS v").write.format("hbase").option(
        "table", big
    ).option("bulkload", "true").mode("append").save()
    log(f"bulk-loaded {idle_rows:,} rows in {time.perf_counter() - began:.0f} s")
    compact(spark, big)
    # Each trigger's progress, also of the triggers that find nothing (Spark reports those every 10 s otherwise).
    spark.conf.set("spark.sql.streaming.noDataProgressEventInterval", "0")
    try:
        idle = summary(looks(spark, big, str(checkpoints / f"idle-{uuid.uuid4().hex[:8]}"), idle_seconds, {}))
        whole = summary(
            looks(
                spark,
                big,
                str(checkpoints / f"whole-{uuid.uuid4().hex[:8]}"),
                idle_seconds,
                {"startingTimestamp": "0", "maxRowsPerTrigger": "1000"},
            )
        )
    finally:
        spark.conf.unset("spark.sql.streaming.noDataProgressEventInterval")
    log(f"idle looks: median {idle['medianLatestOffsetMs']} ms, block bytes at most {idle['maxBlockBytesScanned']}")
    return {"lagMillis": lag, "idleRows": idle_rows, "latency": lat, "idleLook": idle, "lookFromTheBeginning": whole}


# The source: how long a Put takes to be delivered by a stream of changes, and what an idle trigger costs.


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def plain_table(spark, name):
    jvm, cluster, connections = hbase_classes(spark)
    return jvm, connections.borrow(cluster).getTable(table_name(spark, name))


def latency(spark, puts, checkpoint):
    table = "changes_latency"
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(
        f"CREATE TABLE {table} (k STRING, v STRING, PRIMARY KEY (k)) MAPPED BY ({table}, COLS=[v=f.v]) IN StringFormat"
    )
    seen, lock = {}, threading.Lock()

    def record(batch, _):
        keys = [r.k for r in batch.select("k").collect()]
        now = time.time()
        with lock:
            for k in keys:
                seen.setdefault(k, []).append(now)

    query = (
        spark.readStream.format("hbase")
        .option("table", table)
        .load()
        .writeStream.foreachBatch(record)
        .option("checkpointLocation", checkpoint)
        .start()
    )
    jvm, htable = plain_table(spark, table)
    acknowledged = {}
    try:
        time.sleep(5)  # the first (empty) micro-batch has run
        for i in range(puts):
            key = f"p{i:06d}"
            htable.put(jvm.org.apache.hadoop.hbase.client.Put(key.encode()).addColumn(b"f", b"v", b"x"))
            acknowledged[key] = time.time()
            time.sleep(0.05)
        deadline = time.time() + 60
        while time.time() < deadline:
            with lock:
                if len(seen) == puts:
                    break
            time.sleep(0.2)
    finally:
        query.stop()
        htable.close()
    missing = sorted(set(acknowledged) - set(seen))
    twice = sorted(k for k, times in seen.items() if len(times) > 1)
    if missing or twice:
        raise RuntimeError(f"{len(missing)} Puts never delivered, {len(twice)} delivered twice")
    latencies = [seen[k][0] - acknowledged[k] for k in acknowledged]
    return {
        "puts": puts,
        "medianSeconds": statistics.median(latencies),
        "p99Seconds": percentile(latencies, 99),
        "maxSeconds": max(latencies),
        "latencies": latencies,
    }


def looks(spark, table, checkpoint, seconds, options):
    """The progress metrics of each trigger's look for new writes, over `seconds` of a stream with `options`."""
    reader = spark.readStream.format("hbase").option("table", table)
    for key, value in options.items():
        reader = reader.option(key, value)
    query = reader.load().writeStream.format("noop").option("checkpointLocation", checkpoint).start()
    try:
        time.sleep(seconds)
        progress = list(query.recentProgress)
    finally:
        query.stop()
    found = []
    for p in progress:
        p = json.loads(p.json) if hasattr(p, "json") else p
        metrics = p["sources"][0].get("metrics") or {}
        if "lookBlockBytesScanned" in metrics:
            found.append(
                {
                    "latestOffsetMs": p["durationMs"].get("latestOffset"),
                    "rowsScanned": int(metrics["lookRowsScanned"]),
                    "blockBytesScanned": int(metrics["lookBlockBytesScanned"]),
                    "rowsInBatch": p["numInputRows"],
                }
            )
    return found


def summary(found):
    return {
        "triggers": len(found),
        "medianLatestOffsetMs": statistics.median(f["latestOffsetMs"] for f in found) if found else None,
        "maxBlockBytesScanned": max((f["blockBytesScanned"] for f in found), default=None),
        "maxRowsScanned": max((f["rowsScanned"] for f in found), default=None),
        "looks": found,
    }


def markdown(report):
    lines = [
        f"`{report['command']}`, {report['date']}, {report['machine']}, {report['minutes']:.1f} minutes.",
        "",
        f"The sink: {report['rows']:,} rows in {report['files']} Parquet files into a table of {report['regions']} "
        f"regions, each run into a table of its own; median of {report['repeat']} runs, after one untimed run of "
        "each streaming way:",
        "",
        "| writer | median seconds | runs (s) | rows/s | of the plain client's rows/s |",
        "|---|---:|---|---:|---:|",
    ]
    for w in report["writers"]:
        runs = ", ".join(f"{r:.2f}" for r in w["runs"])
        lines.append(
            f"| {w['writer']} | {w['seconds']:.2f} | {runs} | {w['rowsPerSecond']:,.0f} | {w['ofRawPut']:.0%} |"
        )
    source = report["source"]
    lat, idle, whole = source["latency"], source["idleLook"], source["lookFromTheBeginning"]
    lines += [
        "",
        f"The source, lag {source['lagMillis']} ms, default trigger: Put to delivery ({lat['puts']} plain HBase Puts, "
        f"50 ms apart, each delivered once): median **{lat['medianSeconds']:.2f} s**, p99 "
        f"**{lat['p99Seconds']:.2f} s**, max {lat['maxSeconds']:.2f} s.",
        "",
        f"A trigger's look for new writes on a table of {source['idleRows']:,} rows in major-compacted store files "
        "(HBase's scan metrics: rows it looked at, bytes of store file blocks it read):",
        "",
        "| look | triggers | median latestOffset ms | rows looked at (max) | store file block bytes (max) |",
        "|---|---:|---:|---:|---:|",
        f"| idle (nothing written since the last offset) | {idle['triggers']} | {idle['medianLatestOffsetMs']} | "
        f"{idle['maxRowsScanned']} | {idle['maxBlockBytesScanned']} |",
        f"| from the table's beginning (maxRowsPerTrigger 1000) | {whole['triggers']} | "
        f"{whole['medianLatestOffsetMs']} | {whole['maxRowsScanned']} | {whole['maxBlockBytesScanned']} |",
        "",
        "Targets:",
        "",
    ]
    lines += target_lines(report["targets"])
    return "\n".join(lines) + "\n"


def chart(report, path):
    bar_chart(
        path,
        f"Writing {report['rows']:,} rows into HBase (seconds, lower is faster; dots: every run)",
        [w["writer"] for w in report["writers"]],
        [("median seconds", [w["seconds"] for w in report["writers"]], [w["runs"] for w in report["writers"]])],
        xlabel="writer",
    )


def sink_half(spark, hbase, source, args):
    """The plain client, the sink and foreachBatch, each --repeat runs after one untimed run of each streaming way:
    every writer's runs, median and rows/s against the plain client's, and the streaming runs."""
    threads = spark.sparkContext.defaultParallelism
    raw = raw_put(hbase, spark, args.rows, args.regions, threads, args.repeat)
    log(f"plain client: {raw}")
    runs = {how: [] for how in ("sink", "foreachBatch")}
    for how in runs:  # untimed: warms the JVM up for each way
        stream_run(spark, source, args.rows, args.regions, how, threads)
    for _ in range(args.repeat):
        for how in runs:
            runs[how].append(stream_run(spark, source, args.rows, args.regions, how, threads))
            log(f"{how}: {runs[how][-1]}")
    writers = [{"writer": f"plain BufferedMutator client, {threads} threads", "runs": raw}]
    for how, label in (("sink", 'sink, format("hbase")'), ("foreachBatch", "foreachBatch + df.write")):
        writers.append({"writer": f"{label}, addBatch time", "runs": [r["addBatchSeconds"] for r in runs[how]]})
        writers.append({"writer": f"{label}, wall time", "runs": [r["wallSeconds"] for r in runs[how]]})
    raw_rate = args.rows / statistics.median(raw)
    for w in writers:
        w["seconds"] = statistics.median(w["runs"])
        w["rowsPerSecond"] = args.rows / w["seconds"]
        w["ofRawPut"] = w["rowsPerSecond"] / raw_rate
    return writers, runs


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--regions", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--puts", type=int, default=200)
    parser.add_argument("--idle-rows", type=int, default=5_000_000)
    parser.add_argument("--idle-seconds", type=int, default=15)
    args = parser.parse_args()
    began = time.perf_counter()
    spark, hbase = start_session("streaming", {"spark.sql.shuffle.partitions": "2"})
    source = input_files(spark, args.rows, args.files)
    writers, runs = sink_half(spark, hbase, source, args)
    changes = source_half(spark, args.puts, args.idle_rows, args.idle_seconds)
    spark.stop()
    sink = next(w for w in writers if w["writer"].startswith("sink") and "addBatch" in w["writer"])
    idle_bytes = changes["idleLook"]["maxBlockBytesScanned"]
    report = {
        "rows": args.rows,
        "files": args.files,
        "regions": args.regions,
        "repeat": args.repeat,
        "streamRuns": runs,
        "writers": writers,
        "source": changes,
        "targets": [
            {
                "target": f"the sink's rows/s (addBatch time) at least {TARGET:.0%} of the plain client's",
                "value": f"{sink['ofRawPut']:.0%}",
                "met": sink["ofRawPut"] >= TARGET,
            },
            {
                "target": f"an idle trigger on {args.idle_rows:,} rows reads no store file block",
                "value": f"at most {idle_bytes} bytes over {changes['idleLook']['triggers']} looks",
                "met": idle_bytes == 0,
            },
        ],
        "machine": f"{os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"),
        "command": f"./benchmarks/run streaming --rows {args.rows} --files {args.files} --regions {args.regions} "
        f"--repeat {args.repeat} --puts {args.puts} --idle-rows {args.idle_rows} --idle-seconds {args.idle_seconds}",
        "minutes": (time.perf_counter() - began) / 60,
    }
    write_results("streaming", report, markdown, chart)


CHARTS = {"streaming": chart}

if __name__ == "__main__":
    main()
