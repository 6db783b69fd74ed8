"""The source half of the streaming benchmark (issue 37, streaming_benchmark.py): how long a Put takes to be
delivered by a stream of changes, and what an idle trigger costs.

- Latency: a stream of a small table with the default lag (spark.sql.hbase.changes.lagMillis) and the default
  trigger (the next micro-batch as soon as the last one is done), into foreachBatch; --puts plain HBase Puts
  (py4j, the HBase client) one every 50 ms. Each Put's latency is from the moment it was acknowledged to the
  moment foreachBatch saw its row; median and p99, and that every Put was delivered once.
- Idle trigger: --rows rows written, flushed and major-compacted into store files, then a stream of that table
  with nothing written: each trigger's look for new writes (a raw time-range scan from the last offset) in the
  query's progress: its time (latestOffset), the rows it looked at and the store file block bytes HBase read
  for it. Beside it, the same look from the table's beginning (startingTimestamp 0, maxRowsPerTrigger 1000),
  which must read every file.
"""

import json
import statistics
import threading
import time


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
