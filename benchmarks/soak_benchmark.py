"""Soak: mixed reads, writes, LOAD DATA, region splits and region server restarts against an HBase of three
region servers, for --minutes, with nothing lost.

Run through `./benchmarks/run soak [--minutes 30] [--chaos-every 3]`. One Spark application (local[2]) on an
embedded HBase of its own, started empty, with three region servers, works on one table:
- 2 writers INSERT batches of new rows; a batch is acknowledged when its statement returns;
- 1 loader writes a CSV file of new rows and runs LOAD DATA on it;
- 2 readers read 50 acknowledged keys at a time (their values must be exact) and now and then count the whole
  table (never fewer rows than were acknowledged when the count began) and sum a column by group;
- every --chaos-every minutes, by turns, the region holding the most rows is split, or region server 2 or 3 is
  killed (SIGKILL) and started again.
A statement may fail while HBase heals; its error is counted by kind. A wrong answer never is acceptable.
At the end every acknowledged row must be in the table with its values, and every row in it must be one
some writer attempted.

Each row's key is a bijection of its number n (odd multiplier modulo 2^62), so writes spread over every
region, and its values follow from n, so that any read can be checked.

The driver, the master's JVM (which holds region server 1) and region servers 2 and 3 are counted at the
start, every few minutes and at the end, over JMX (JvmCounts.java): threads, open files, heap used after a
full GC, HBase's open scanners, and the driver's TCP connections to HBase. Flat is the bar.

Writes benchmarks/results/soak-<minutes>m.json, .md and .png (throughput over time, and the counts).
"""

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time
import traceback
from collections import Counter
from pathlib import Path

from tpch_planner import WORK, jdk_tool, log, write_results

ROOT = Path(__file__).resolve().parent.parent
TABLE = "soak"
MASK = (1 << 62) - 1
MULTIPLIER = 0x9E3779B97F4A7C15  # odd, so n -> n * MULTIPLIER mod 2^62 is a bijection
WRITERS, READERS, BATCH, LOAD_ROWS, KEYS_PER_READ = 2, 2, 200, 5000, 50
BUCKET_S = 30


def key_of(n):
    return (n * MULTIPLIER) & MASK


def row_of(n):
    """The values row n is written with: (k, source, n, v)."""
    return key_of(n), n % 7, n, f"v{n * 31 % 100003}"


class Log:
    """Every operation's end time, kind and outcome; wrong answers and error kinds; thread-safe."""

    def __init__(self, t0):
        self.t0, self.lock = t0, threading.Lock()
        self.ops, self.errors, self.wrong, self.events = [], Counter(), [], []

    def op(self, kind, ok, rows=0):
        with self.lock:
            self.ops.append((round(time.monotonic() - self.t0, 2), kind, ok, rows))

    def error(self, kind, e):
        first = next((line for line in str(e).strip().splitlines() if line.strip()), type(e).__name__)
        # Numbers, keys and names vary; the kind is what stays.
        shape = re.sub(r"0x[0-9a-f]+|\d+", "N", first)[:160]
        with self.lock:
            self.errors[f"{kind}: {shape}"] += 1
        self.op(kind, False)

    def event(self, what):
        with self.lock:
            self.events.append((round(time.monotonic() - self.t0, 1), what))
        log(what)


class Acknowledged:
    """Row numbers whose write was acknowledged, and every number any writer attempted."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked, self.attempted = [], set()

    def attempt(self, numbers):
        with self.lock:
            self.attempted.update(numbers)

    def ack(self, numbers):
        with self.lock:
            self.acked.extend(numbers)

    def sample(self, count):
        with self.lock:
            return random.sample(self.acked, min(count, len(self.acked))), len(self.acked)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--chaos-every", type=float, default=3, help="minutes between splits and restarts")
    parser.add_argument(
        "--hbase-dir",
        help="soak an embedded HBase already running there (the sequence benchmark's) instead of a fresh one of "
        "three region servers; with one region server, the chaos only splits regions",
    )
    args = parser.parse_args()

    import shutil

    from pyspark.sql import SparkSession
    from pyspark_hbase import enable_hbase
    from pyspark_hbase.local import LocalHBase
    from pyspark_hbase_testing.region_servers import kill_region_server

    if args.hbase_dir:
        hbase = LocalHBase(args.hbase_dir)
        if not hbase.is_running():
            raise SystemExit(f"no embedded HBase runs in {args.hbase_dir}")
    else:
        hbase = LocalHBase(WORK / "hbase-soak")
        hbase.stop()
        shutil.rmtree(hbase.data_dir, ignore_errors=True)
        hbase.start(region_servers=3)
    region_servers = len(hbase.region_servers())
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("spark-hbase-sql soak")
        .config("spark.driver.memory", "2g")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
    )
    spark = enable_hbase(builder, data_dir=hbase.data_dir).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    jvm = spark._jvm
    driver_pid = int(jvm.java.lang.ProcessHandle.current().pid())
    spark.sql(f"DROP TABLE IF EXISTS {TABLE}")
    third = (MASK + 1) // 3
    spark.sql(
        f"CREATE TABLE {TABLE} (k BIGINT, src INT, n BIGINT, v STRING, PRIMARY KEY (k)) "
        f"MAPPED BY ({TABLE}, COLS=[src=f.s, n=f.n, v=f.v]) SPLIT ON (({third}), ({2 * third}))"
    )
    files = WORK / "soak-files"
    shutil.rmtree(files, ignore_errors=True)
    files.mkdir(parents=True)

    t0 = time.monotonic()
    ops, acked = Log(t0), Acknowledged()
    stop = threading.Event()
    numbers = iter(range(1, 1 << 40))
    numbers_lock = threading.Lock()

    def next_numbers(count):
        with numbers_lock:
            return [next(numbers) for _ in range(count)]

    def writer():
        while not stop.is_set():
            batch = next_numbers(BATCH)
            acked.attempt(batch)
            values = ", ".join(f"({k}, {s}, {n}, '{v}')" for k, s, n, v in map(row_of, batch))
            try:
                spark.sql(f"INSERT INTO {TABLE} VALUES {values}")
                acked.ack(batch)
                ops.op("insert", True, len(batch))
            except Exception as e:  # noqa: BLE001 - counted by kind; the rows are then not acknowledged
                ops.error("insert", e)

    def loader():
        i = 0
        while not stop.is_set():
            i += 1
            batch = next_numbers(LOAD_ROWS)
            acked.attempt(batch)
            path = files / f"load-{i}.csv"
            path.write_text("".join(f"{k},{s},{n},{v}\n" for k, s, n, v in map(row_of, batch)))
            try:
                spark.sql(f"LOAD DATA LOCAL INPATH '{path}' INTO TABLE {TABLE}")
                acked.ack(batch)
                ops.op("load", True, len(batch))
            except Exception as e:  # noqa: BLE001
                ops.error("load", e)
            stop.wait(5)

    def reader(number):
        rng = random.Random(number)
        i = 0
        while not stop.is_set():
            i += 1
            keys, known = acked.sample(KEYS_PER_READ)
            try:
                if i % 20 == 0:
                    count = spark.sql(f"SELECT count(*) FROM {TABLE}").first()[0]
                    if count < known:
                        ops.wrong.append(f"count(*) {count} < {known} rows acknowledged before it began")
                    ops.op("count", True, count)
                elif i % 20 == 10:
                    groups = spark.sql(f"SELECT src, count(*), sum(n % 1000) FROM {TABLE} GROUP BY src").collect()
                    if sum(g[1] for g in groups) < known or any(not 0 <= g[0] < 7 for g in groups):
                        ops.wrong.append(f"GROUP BY src: {groups} with {known} rows acknowledged")
                    ops.op("aggregate", True, sum(g[1] for g in groups))
                elif keys:
                    where = ", ".join(str(key_of(n)) for n in keys)
                    got = sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {TABLE} WHERE k IN ({where})").collect())
                    want = sorted(row_of(n) for n in keys)
                    if got != want:
                        ops.wrong.append(f"keyed read of {len(keys)} keys: {len(got)} rows, differing")
                    ops.op("keyed read", True, len(got))
                else:
                    stop.wait(0.5)
            except Exception as e:  # noqa: BLE001
                ops.error("count" if i % 20 == 0 else "aggregate" if i % 20 == 10 else "keyed read", e)
            if rng.random() < 0.05:
                stop.wait(0.2)

    connection = jvm.org.apache.spark.sql.hbase.connection.HBaseConnections.borrow(
        jvm.org.apache.spark.sql.hbase.connection.HBaseClusterConf.fromSession(spark._jsparkSession)
    )
    table_name = jvm.org.apache.hadoop.hbase.TableName.valueOf(TABLE)

    def split_biggest_region():
        admin = connection.getAdmin()
        try:
            admin.flush(table_name)
            regions = list(admin.getRegions(table_name))
            sizes = {}
            for server in admin.getRegionServers():
                for metrics in admin.getRegionMetrics(server, table_name):
                    sizes[bytes(metrics.getRegionName())] = metrics.getStoreFileSize().get()
            biggest = max(regions, key=lambda r: sizes.get(bytes(r.getRegionName()), 0))
            admin.splitRegionAsync(biggest.getRegionName()).get(120, jvm.java.util.concurrent.TimeUnit.SECONDS)
            return len(regions) + 1
        finally:
            admin.close()

    def chaos():
        turn = 0
        while not stop.wait(args.chaos_every * 60):
            turn += 1
            try:
                if turn % 2 == 1 or region_servers < 3:
                    ops.event(f"split: {split_biggest_region()} regions")
                else:
                    number = 2 + (turn // 2) % 2
                    ops.event(f"killing region server {number}")
                    kill_region_server(hbase, number)
                    hbase.start(region_servers=region_servers)
                    ops.event(f"region server {number} serving again")
            except Exception as e:  # noqa: BLE001
                ops.error("chaos", e)
                ops.event(f"chaos step failed: {str(e).splitlines()[0][:200]}")

    def counts(label):
        pids = {"driver": driver_pid}
        pids.update({f"region server {rs['number']}": rs["pid"] for rs in hbase.region_servers() if rs["pid"]})
        out = subprocess.run(
            [jdk_tool("java"), str(ROOT / "benchmarks" / "JvmCounts.java"), *map(str, pids.values())],
            capture_output=True,
            text=True,
            timeout=300,
        ).stdout
        by_pid = {j["pid"]: j for j in map(json.loads, out.splitlines())}
        sample = {"at_s": round(time.monotonic() - t0, 1), "label": label, "jvms": {}}
        for name, pid in pids.items():
            sample["jvms"][name] = dict(by_pid.get(pid, {"error": "no answer"}), pid=pid)
        sample["jvms"]["driver"]["hbaseConnections"] = hbase_connections(driver_pid, hbase)
        log(f"counts at {label}: {json.dumps(sample['jvms'])}")
        return sample

    def sampler():
        while not stop.wait(args.chaos_every * 60 * 2 / 3 + 17):
            try:
                samples.append(counts("during"))
            except Exception as e:  # noqa: BLE001
                log(f"counting failed: {e}")

    # A first round of every kind of statement, so that the start counts see a warmed-up driver.
    warm = [threading.Thread(target=f, daemon=True) for f in [writer, loader, lambda: reader(0)]]
    stop.clear()
    for t in warm:
        t.start()
    time.sleep(20)
    stop.set()
    for t in warm:
        t.join()
    samples = [counts("start")]
    stop.clear()
    t0 = time.monotonic()
    ops.t0, ops.ops, ops.errors, ops.wrong, ops.events = t0, [], Counter(), [], []
    log(f"soak: {args.minutes} minutes, a split or a region server restart every {args.chaos_every} minutes")
    threads = [threading.Thread(target=writer, daemon=True) for _ in range(WRITERS)]
    threads += [threading.Thread(target=loader, daemon=True)]
    threads += [threading.Thread(target=reader, args=(i,), daemon=True) for i in range(READERS)]
    threads += [threading.Thread(target=chaos, daemon=True), threading.Thread(target=sampler, daemon=True)]
    for t in threads:
        t.start()
    stop.wait(args.minutes * 60)
    stop.set()
    for t in threads:
        t.join(timeout=600)
    minutes = (time.monotonic() - t0) / 60
    log("soak over; checking every acknowledged write")
    hbase.start(region_servers=region_servers)  # in case the last restart was cut short

    final = {}
    for _ in range(3):
        try:
            final = {r.n: tuple(r) for r in spark.sql(f"SELECT * FROM {TABLE}").collect()}
            break
        except Exception as e:  # noqa: BLE001
            log(f"final read failed ({str(e).splitlines()[0][:200]}); again")
            time.sleep(10)
    missing = [n for n in acked.acked if final.get(n) != row_of(n)]
    unknown = [n for n in final if n not in acked.attempted or final[n] != row_of(n)]
    # HBase's client keeps idle pool threads for 60 s: counted after that, a thread still there is held.
    time.sleep(75)
    samples.append(counts("end"))
    connection_released = jvm.org.apache.spark.sql.hbase.connection.HBaseConnections
    connection_released.release(
        jvm.org.apache.spark.sql.hbase.connection.HBaseClusterConf.fromSession(spark._jsparkSession)
    )

    report = {
        "minutes": round(minutes, 1),
        "chaosEveryMinutes": args.chaos_every,
        "writers": WRITERS,
        "readers": READERS,
        "acknowledgedRows": len(acked.acked),
        "attemptedRows": len(acked.attempted),
        "rowsInTable": len(final),
        "missingAcknowledged": len(missing),
        "unknownOrWrongRows": len(unknown),
        "wrongAnswers": ops.wrong[:20],
        "wrongAnswerCount": len(ops.wrong),
        "operations": dict(Counter(kind for _, kind, ok, _ in ops.ops if ok)),
        "errorsByKind": dict(ops.errors.most_common()),
        "events": ops.events,
        "throughput": throughput(ops.ops, minutes),
        "counts": samples,
        "machine": f"{os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"),
        "command": f"./benchmarks/run soak --minutes {args.minutes:g} --chaos-every {args.chaos_every:g}",
    }
    write_results(f"soak-{args.minutes:g}m", report, markdown, chart)
    spark.stop()
    if not args.hbase_dir:
        hbase.stop()
    raise SystemExit(0 if not missing and not unknown and not ops.wrong else 1)


def hbase_connections(pid, hbase):
    """The driver's established TCP connections to HBase's ports (ZooKeeper, master, region servers)."""
    ports = {int(p) for p in hbase.ports.values()} | {int(rs["port"]) for rs in hbase.region_servers()}
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            remote_port, state, inode = int(fields[2].split(":")[1], 16), fields[3], fields[9]
            if state == "01" and inode in inodes and remote_port in ports:
                count += 1
    return count


def throughput(ops, minutes):
    """Per BUCKET_S seconds: successful statements per second of each kind, and rows written per second."""
    buckets = int(minutes * 60 // BUCKET_S) + 1
    kinds = sorted({kind for _, kind, _, _ in ops})
    series = {kind: [0.0] * buckets for kind in kinds}
    rows_written = [0.0] * buckets
    failed = [0.0] * buckets
    for at, kind, ok, rows in ops:
        b = min(int(at // BUCKET_S), buckets - 1)
        if ok:
            series[kind][b] += 1 / BUCKET_S
            if kind in ("insert", "load"):
                rows_written[b] += rows / BUCKET_S
        else:
            failed[b] += 1 / BUCKET_S
    return {
        "bucketSeconds": BUCKET_S,
        "statementsPerSecond": {k: [round(x, 3) for x in v] for k, v in series.items()},
        "rowsWrittenPerSecond": [round(x, 1) for x in rows_written],
        "failedPerSecond": [round(x, 3) for x in failed],
        "medianRowsWrittenPerSecond": round(statistics.median(rows_written[:-1] or rows_written), 1),
    }


def markdown(report):
    lines = [
        f"`{report['command']}`, {report['date']}, {report['machine']}, {report['minutes']} minutes:",
        "",
        f"- rows acknowledged {report['acknowledgedRows']:,} (attempted {report['attemptedRows']:,}); "
        f"in the table at the end {report['rowsInTable']:,}; **acknowledged but missing "
        f"{report['missingAcknowledged']}**; rows no writer wrote, or with wrong values, "
        f"{report['unknownOrWrongRows']}; **wrong answers {report['wrongAnswerCount']}**",
        "- statements that succeeded: " + ", ".join(f"{k} {v:,}" for k, v in sorted(report["operations"].items())),
        f"- median rows written per second (per {report['throughput']['bucketSeconds']} s): "
        f"{report['throughput']['medianRowsWrittenPerSecond']:,}",
        "- faults: " + "; ".join(f"{at / 60:.1f} min {what}" for at, what in report["events"]),
        "",
        "| errors by kind | count |",
        "|---|---|",
    ]
    lines += [f"| {kind.replace('|', '/')} | {n} |" for kind, n in report["errorsByKind"].items()] or ["| none | 0 |"]
    lines += ["", "| JVM | when | threads | open files | heap after GC (MB) | open scanners | TCP to HBase |"]
    lines += ["|---|---|---|---|---|---|---|"]
    for sample in report["counts"]:
        if sample["label"] == "during":
            continue
        for name, j in sample["jvms"].items():
            lines.append(
                f"| {name} | {sample['label']} ({sample['at_s'] / 60:.1f} min) | {j.get('threads', '-')} | "
                f"{j.get('fds', '-')} | {j.get('heapAfterGcMb', '-')} | {scanners(j)} | "
                f"{j.get('hbaseConnections', '-')} |"
            )
    for sample in report["counts"]:
        if sample["label"] != "during" and "threadPools" in sample["jvms"]["driver"]:
            pools = ", ".join(f"{k} {v}" for k, v in sample["jvms"]["driver"]["threadPools"].items())
            lines += ["", f"Driver threads by pool at the {sample['label']}: {pools}"]
    return "\n".join(lines) + "\n"


def scanners(counts):
    value = counts.get("activeScanners")
    return "-" if value is None else value


def chart(report, path):
    from matplotlib.figure import Figure

    t = report["throughput"]
    width = t["bucketSeconds"] / 60
    figure = Figure(figsize=(11, 8), layout="constrained")
    top, middle, bottom = figure.subplots(3, 1, sharex=True, height_ratios=[2, 1.3, 1.3])
    xs = [i * width for i in range(len(t["rowsWrittenPerSecond"]))]
    top.plot(xs, t["rowsWrittenPerSecond"], label="rows written per second (INSERT and LOAD DATA)", color="C0")
    top.set_ylabel("rows / s")
    twin = top.twinx()
    for i, (kind, values) in enumerate(sorted(t["statementsPerSecond"].items())):
        if kind in ("keyed read", "count", "aggregate", "insert"):
            twin.plot(xs, values, label=f"{kind} statements / s", color=f"C{i + 1}", alpha=0.8)
    twin.plot(xs, t["failedPerSecond"], label="failed statements / s", color="red", linestyle=":")
    twin.set_ylabel("statements / s")
    handles = top.get_legend_handles_labels()[0] + twin.get_legend_handles_labels()[0]
    top.legend(handles=handles, fontsize=7, loc="upper left", ncols=3)
    for at, what in report["events"]:
        if "killing" in what or "split:" in what:
            for axes in (top, middle, bottom):
                axes.axvline(at / 60, color="grey", alpha=0.4, linestyle="--")
            top.annotate(what.replace("killing ", "kill "), (at / 60, 0), rotation=90, fontsize=6, va="bottom")
    samples = report["counts"]
    names = sorted({n for s in samples for n in s["jvms"]})
    for i, name in enumerate(names):
        points = [(s["at_s"] / 60, s["jvms"][name]) for s in samples if name in s["jvms"]]
        heap = [(x, j["heapAfterGcMb"]) for x, j in points if "heapAfterGcMb" in j]
        threads = [(x, j["threads"]) for x, j in points if "threads" in j]
        if heap:
            middle.plot(*zip(*heap), marker="o", label=name, color=f"C{i}")
        if threads:
            bottom.plot(*zip(*threads), marker="o", label=name, color=f"C{i}")
    middle.set_ylabel("heap after GC (MB)")
    bottom.set_ylabel("threads")
    middle.legend(fontsize=7, loc="upper left", ncols=4)
    bottom.set_xlabel("minutes")
    for axes in (top, middle, bottom):
        axes.grid(alpha=0.3)
    figure.suptitle(
        f"Soak, {report['minutes']} minutes: {report['acknowledgedRows']:,} rows acknowledged, "
        f"{report['missingAcknowledged']} missing, {report['wrongAnswerCount']} wrong answers"
    )
    figure.savefig(path, dpi=120)


if __name__ == "__main__":
    try:
        main()
    except Exception:
        traceback.print_exc()
        sys.exit(2)
