"""A stream of changes (issue 37): how long a Put takes to be delivered, and what an idle trigger costs.

Run through `./benchmarks/run changes [--rows 1000000] [--puts 200]`. On the embedded HBase:

- Latency: a stream of a small table with the default lag (spark.sql.hbase.changes.lagMillis) and the default
  trigger (the next micro-batch as soon as the last one is done), into foreachBatch; --puts plain HBase Puts
  (py4j, the HBase client) one every 50 ms. Each Put's latency is from the moment it was acknowledged to the
  moment foreachBatch saw its row; median and p99, and that every Put was delivered once.
- Idle trigger: --rows rows written, flushed and major-compacted into store files, then a stream of that table
  with nothing written: each trigger's look for new writes (a raw time-range scan from the last offset) in the
  query's progress: its time (latestOffset), the rows it looked at and the store file block bytes HBase read
  for it. Beside it, the same look from the table's beginning (startingTimestamp 0, maxRowsPerTrigger 1000),
  which must read every file.

Writes benchmarks/results/changes.json, .md and .png.
"""

import argparse
import json
import os
import statistics
import threading
import time

from charts import bar_chart
from tpch_planner import compact, log, start_session, write_results


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def plain_table(spark, name):
    jvm = spark._jvm
    cluster = jvm.org.apache.spark.sql.hbase.connection.HBaseClusterConf.fromSession(spark._jsparkSession)
    connection = jvm.org.apache.spark.sql.hbase.connection.HBaseConnections.borrow(cluster)
    return jvm, connection.getTable(jvm.org.apache.hadoop.hbase.TableName.valueOf(name))


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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--puts", type=int, default=200)
    parser.add_argument("--idle-seconds", type=int, default=15)
    args = parser.parse_args()
    spark, hbase = start_session("changes", {"spark.ui.showConsoleProgress": "false"})
    work = os.path.abspath("work/changes-checkpoints")
    import shutil

    shutil.rmtree(work, ignore_errors=True)
    lag = spark.conf.get("spark.sql.hbase.changes.lagMillis")
    log(f"latency of {args.puts} Puts, lag {lag} ms, default trigger")
    lat = latency(spark, args.puts, f"{work}/latency")
    log(f"median {lat['medianSeconds']:.2f} s, p99 {lat['p99Seconds']:.2f} s")

    big = "changes_big"
    spark.sql(f"DROP TABLE IF EXISTS {big}")
    spark.sql(
        f"CREATE TABLE {big} (k BIGINT, v STRING, PRIMARY KEY (k)) MAPPED BY ({big}, COLS=[v=f.v]) "
        f"SPLIT ON (({args.rows // 4}), ({args.rows // 2}), ({3 * args.rows // 4}))"
    )
    began = time.perf_counter()
    spark.sql(f"INSERT INTO {big} SELECT id, sha1(CAST(id AS STRING)) FROM range({args.rows})")
    log(f"wrote {args.rows} rows in {time.perf_counter() - began:.0f} s")
    compact(spark, big)
    idle = summary(looks(spark, big, f"{work}/idle", args.idle_seconds, {}))
    log(
        f"idle: {idle['triggers']} looks, median {idle['medianLatestOffsetMs']} ms, block bytes {idle['maxBlockBytesScanned']}"
    )
    whole = summary(
        looks(spark, big, f"{work}/whole", args.idle_seconds, {"startingTimestamp": "0", "maxRowsPerTrigger": "1000"})
    )
    log(f"from the beginning: median {whole['medianLatestOffsetMs']} ms, block bytes {whole['maxBlockBytesScanned']}")
    report = {
        "command": f"./benchmarks/run changes --rows {args.rows} --puts {args.puts} --idle-seconds {args.idle_seconds}",
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores",
        "lagMillis": int(lag),
        "rows": args.rows,
        "latency": lat,
        "idleLook": idle,
        "lookFromTheBeginning": whole,
    }
    write_results("changes", report, markdown, chart)
    spark.stop()


def markdown(report):
    lat, idle, whole = report["latency"], report["idleLook"], report["lookFromTheBeginning"]
    return "\n".join(
        [
            f"`{report['command']}`, {report['date']}, {report['machine']}, embedded HBase, "
            f"lag {report['lagMillis']} ms, default trigger.",
            "",
            f"Put to delivery ({lat['puts']} plain HBase Puts, 50 ms apart, each delivered once): "
            f"median **{lat['medianSeconds']:.2f} s**, p99 **{lat['p99Seconds']:.2f} s**, max {lat['maxSeconds']:.2f} s.",
            "",
            f"A trigger's look for new writes on a table of {report['rows']:,} rows in compacted store files:",
            "",
            "| look | triggers | median latestOffset ms | rows HBase looked at (max) | store file block bytes read (max) |",
            "|---|---:|---:|---:|---:|",
            f"| idle (nothing written since the last offset) | {idle['triggers']} | {idle['medianLatestOffsetMs']} | "
            f"{idle['maxRowsScanned']} | {idle['maxBlockBytesScanned']} |",
            f"| from the table's beginning (maxRowsPerTrigger 1000) | {whole['triggers']} | "
            f"{whole['medianLatestOffsetMs']} | {whole['maxRowsScanned']} | {whole['maxBlockBytesScanned']} |",
            "",
        ]
    )


def chart(report, path):
    lat = report["latency"]
    bar_chart(
        path,
        f"Put to delivery, lag {report['lagMillis']} ms, default trigger ({lat['puts']} Puts)",
        ["median", "p99"],
        [("seconds", [lat["medianSeconds"], lat["p99Seconds"]], [lat["latencies"], None])],
        xlabel="",
    )


if __name__ == "__main__":
    main()
