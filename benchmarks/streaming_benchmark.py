"""Streaming sink benchmark (issue 37): rows/s written into an HBase table by a Structured Streaming
query through the sink (`writeStream.format("hbase")`), through foreachBatch calling the batch
writer (`df.write.format("hbase")`), and by a plain HBase client program (RawPut.java: one
BufferedMutator per thread, as many threads as Spark has task slots). Target: the sink at least
80 % of the plain client's rows/s.

The input is Parquet files of (id INT, val INT, label STRING), as many files per batch as Spark has
task slots (so each batch writes from as many tasks as the plain client has threads); each run writes a
table of its own, split into --regions regions. The sink and foreachBatch are timed by the sum of
their batches' addBatch durations (reading the batch's input included: Spark reads it there) and by
the wall time of the whole query. Run through benchmarks/run; writes
benchmarks/results/streaming.json, .md and .png.
"""

import argparse
import json
import os
import statistics
import subprocess
import time
import uuid
from pathlib import Path

from charts import bar_chart
from tpch_planner import WORK, log, start_session, write_results

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
        f"MAPPED BY ({name}, COLS=[val=f.v, label=f.l])" + (f" SPLIT ON ({splits})" if splits else "")
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
    import pyspark
    from pyspark_hbase import _paths
    from pyspark_hbase.local import JAVA17_FLAGS

    table = new_table(spark, rows, regions)
    conf_dir = os.environ.get("HBASE_CONF_DIR") or hbase.conf_dir
    classpath = os.pathsep.join(
        [str(conf_dir), *map(str, _paths.plugin_jars()), str(Path(pyspark.__file__).parent / "jars" / "*")]
    )
    out = subprocess.run(
        [
            _paths.java_executable(),
            *JAVA17_FLAGS,
            "-cp",
            classpath,
            str(Path(__file__).parent / "RawPut.java"),
            table,
            str(rows),
            str(threads),
            str(repeat),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    ).stdout
    return [json.loads(line)["seconds"] for line in out.splitlines() if line.startswith("{")]


def markdown(report):
    lines = [
        f"# Streaming sink: rows/s into HBase ({report['rows']:,} rows, {report['files']} files, "
        f"{report['regions']} regions)",
        "",
        "| writer | median seconds | rows/s | of the plain client's rows/s |",
        "|---|---|---|---|",
    ]
    for w in report["writers"]:
        lines.append(f"| {w['writer']} | {w['seconds']:.2f} | {w['rowsPerSecond']:,.0f} | {w['ofRawPut']:.0%} |")
    lines += ["", "| target | value | met |", "|---|---|---|"]
    for t in report["targets"]:
        lines.append(f"| {t['target']} | {t['value']} | {'yes' if t['met'] else 'no'} |")
    return "\n".join(lines) + "\n"


def chart(report, path):
    bar_chart(
        path,
        f"Writing {report['rows']:,} rows into HBase (seconds, lower is faster)",
        [w["writer"] for w in report["writers"]],
        [("median seconds", [w["seconds"] for w in report["writers"]], None)],
        xlabel="writer",
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--regions", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    spark, hbase = start_session("streaming", {"spark.sql.shuffle.partitions": "2"})
    source = input_files(spark, args.rows, args.files)
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
    raw_rate = args.rows / statistics.median(raw)
    writers = [{"writer": f"plain BufferedMutator client, {threads} threads", "seconds": statistics.median(raw)}]
    for how, label in (("sink", 'sink, format("hbase")'), ("foreachBatch", "foreachBatch + df.write")):
        writers.append(
            {"writer": f"{label}, addBatch time", "seconds": statistics.median(r["addBatchSeconds"] for r in runs[how])}
        )
        writers.append(
            {"writer": f"{label}, wall time", "seconds": statistics.median(r["wallSeconds"] for r in runs[how])}
        )
    for w in writers:
        w["rowsPerSecond"] = args.rows / w["seconds"]
        w["ofRawPut"] = w["rowsPerSecond"] / raw_rate
    sink = next(w for w in writers if w["writer"].startswith("sink") and "addBatch" in w["writer"])
    report = {
        "rows": args.rows,
        "files": args.files,
        "regions": args.regions,
        "repeat": args.repeat,
        "rawPutRuns": raw,
        "streamRuns": runs,
        "writers": writers,
        "targets": [
            {
                "target": f"the sink's rows/s (addBatch time) at least {TARGET:.0%} of the plain client's",
                "value": f"{sink['ofRawPut']:.0%}",
                "met": sink["ofRawPut"] >= TARGET,
            }
        ],
    }
    write_results("streaming", report, markdown, chart)
    spark.stop()


if __name__ == "__main__":
    main()
