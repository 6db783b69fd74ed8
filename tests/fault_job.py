# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""A Spark application that test_faults.py runs with spark-submit against an HBase of its own
with three region servers, while it breaks that HBase on purpose.

1. Region server 2 is killed (SIGKILL) and started again while queries read its regions: a slow
   full scan, a skip scan, Gets and an aggregate computed in the region servers. Then it stays
   down while queries whose HBase client retries only twice read it.
2. Region server 2 is killed and started again while LOAD DATA loads a table; the same LOAD is
   then run again.
3. Region server 3 is started again without the server jar, and regions are moved onto it, also
   while a query reads one of them; an UPDATE of a packed table changes rows there too.
4. A rolling upgrade: while queries run, region server 3 is drained, started again with an older
   version's server jar (wire version 1 only), given regions back, and then the same again with
   this build's jar.
5. A global index: while our UPDATE and a plain HBase client move rows between index regions,
   region server 2 is killed and started again, an index region is split and regions of both
   tables are moved; reads through the index run all the while, and CHECK INDEX runs after.

It prints one JSON object of what it saw. Expected answers come from how the rows are made (and
for LOAD DATA, from Spark's own CSV reader); the test compares.

Usage: spark-submit ... fault_job.py <HBase data dir> <work dir> <site settings JSON> <older server jar>
"""

import json
import sys
import threading
import time
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark_hbase.local import LocalHBase
from pyspark_hbase.metrics import scan_metrics
from pyspark_hbase_testing.region_servers import kill_region_server, stop_region_server

data_dir, work = Path(sys.argv[1]), Path(sys.argv[2])
hbase = LocalHBase(data_dir, site_settings=json.loads(sys.argv[3]))
spark = SparkSession.builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
sql = spark.sql
jvm = spark._jvm
seen = {}
# When each part ended, in seconds from the start: where the job's minutes go.
job_started = time.monotonic()
seen["parts_ended_s"] = {}


def part_ended(name):
    seen["parts_ended_s"][name] = round(time.monotonic() - job_started, 1)


# ---- HBase administration, through the HBase client in the plugin jar ----------------------


def _connection():
    conf = jvm.org.apache.hadoop.hbase.HBaseConfiguration.create()
    for key, value in hbase.client_conf().items():
        conf.set(key, value)
    return jvm.org.apache.hadoop.hbase.client.ConnectionFactory.createConnection(conf)


connection = _connection()
admin = connection.getAdmin()
TableName = jvm.org.apache.hadoop.hbase.TableName


def server_of(number):
    """The ServerName of region server `number` (its port tells)."""
    port = next(rs["port"] for rs in hbase.region_servers() if rs["number"] == number)
    return next(s for s in admin.getRegionServers() if s.getPort() == port)


def regions_of(table):
    """[(start row, encoded name, port of its server)], in key order; the port is -1 while a
    region has no server (a split's daughters, for a moment)."""
    locator = connection.getRegionLocator(TableName.valueOf(table))
    try:
        locations = [
            (
                bytes(loc.getRegion().getStartKey()),
                loc.getRegion().getEncodedName(),
                loc.getServerName().getPort() if loc.getServerName() else -1,
            )
            for loc in locator.getAllRegionLocations()
        ]
    finally:
        locator.close()
    return sorted(locations)


def move(table, index, number):
    """Moves region `index` of `table` (in key order) to region server `number` and waits for it.

    The move is asked again every 10 s, as an operator would: a move to a region server just
    started can come to nothing (once the master's warm-up call found the server's address still
    in its failed-servers list, and the region stayed where it was for the whole minute)."""
    target = server_of(number)
    encoded = regions_of(table)[index][1]
    deadline = time.monotonic() + 60
    asked = 0
    while True:
        try:
            admin.move(encoded.encode(), target)
        except Exception:  # noqa: BLE001 - asked again: the region may be on its way, refusing a move
            if not asked:
                raise
        asked += 1
        asked_again = time.monotonic() + 10
        while regions_of(table)[index][2] != target.getPort() and time.monotonic() < asked_again:
            time.sleep(0.1)
        if regions_of(table)[index][2] == target.getPort():
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"region {index} of {table} did not reach region server {number}")


def meta_off(number):
    """Keeps hbase:meta off region server `number`, so that killing it does not take the catalog of regions."""
    locator = connection.getRegionLocator(TableName.META_TABLE_NAME)
    try:
        port = locator.getAllRegionLocations()[0].getServerName().getPort()
    finally:
        locator.close()
    if port == server_of(number).getPort():
        admin.move(locator.getAllRegionLocations()[0].getRegion().getEncodedName().encode(), server_of(1))
        time.sleep(2)


def kill_and_restart(number, when, log):
    """In the background: kills region server `number` once `when()` holds, starts it again at
    once and records how long HBase took to serve every region again."""

    def run():
        deadline = time.monotonic() + 120
        while not when() and time.monotonic() < deadline:
            time.sleep(0.01)
        t0 = time.monotonic()
        kill_region_server(hbase, number)
        log["killed_at"] = round(t0 - started, 2)
        hbase.start(region_servers=3)
        log["serving_again_after_kill_s"] = round(time.monotonic() - t0, 1)

    started = time.monotonic()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def split(table, key):
    """Asks HBase to split the region of `table` holding `key` at `key`, again while that region
    is in transition: the master refuses to split a region that is not open ("is not OPEN;
    state=CLOSING"), as it was once, under load, just after a region server came back."""

    def accepted():
        try:
            admin.split(TableName.valueOf(table), key)
            return True
        except Exception as e:  # noqa: BLE001 - py4j's error; anything else is raised again
            if "is not OPEN" in str(e):
                return False
            raise

    wait_for(accepted, f"the master to accept a split of {table} at {key}")


def wait_for(condition, what, seconds=120):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"waited {seconds} s for {what}")
        time.sleep(0.2)


def after(seconds):
    at = time.monotonic() + seconds
    return lambda: time.monotonic() >= at


def outcome(run, expected):
    """'exact', 'wrong' (never acceptable) or the error, whose first line must name HBase."""
    t0 = time.monotonic()
    try:
        got = run()
    except Exception as e:  # noqa: BLE001 - any failure is recorded and judged by the test
        # What a user reads: the message, without the stack traces after it.
        lines = [line for line in str(e).strip().splitlines() if not line.lstrip().startswith("at ")]
        return {
            "result": "error",
            "error": "\n".join(lines)[:3000] or type(e).__name__,
            "seconds": round(time.monotonic() - t0, 1),
        }
    return {"result": "exact" if got == expected else "wrong", "seconds": round(time.monotonic() - t0, 1)}


# ---- 1. a region server killed during queries -------------------------------------------

K, J = 6000, 5


def make_reads_table(name):
    """k = 0..5999 and j = 0..4 (30,000 rows) in six regions; g = k % 7, v = 10 k + j."""
    sql(f"""CREATE TABLE {name} (k INT, j INT, g INT, v BIGINT, PRIMARY KEY (k, j))
            MAPPED BY ({name}, COLS=[g=f.g, v=f.v]) SPLIT ON ((1000), (2000), (3000), (4000), (5000))""")
    sql(
        f"INSERT INTO {name} SELECT CAST(id DIV {J} AS INT), CAST(id % {J} AS INT), "
        f"CAST((id DIV {J}) % 7 AS INT), (id DIV {J}) * 10 + id % {J} FROM range({K * J})"
    )


ALL_ROWS = sorted((k, j, 10 * k + j) for k in range(K) for j in range(J))
SKIP_ROWS = [r for r in ALL_ROWS if r[1] == 3]
GET_KEYS = [(k, j) for k in (5, 1500, 2500, 3999, 4200, 5999) for j in (0, 4)]
GET_ROWS = sorted(r for r in ALL_ROWS if (r[0], r[1]) in GET_KEYS)
GETS_WHERE = " OR ".join(f"(k = {k} AND j = {j})" for k, j in GET_KEYS)
GROUPS = sorted(
    (g, sum(1 for r in ALL_ROWS if r[0] % 7 == g), sum(r[2] for r in ALL_ROWS if r[0] % 7 == g)) for g in range(7)
)


# Sleeps in the JVM as the scan's rows pass, so that its scanners stay open across the fault.
def pausing(milliseconds):
    return f"reflect('java.lang.Thread', 'sleep', CAST({milliseconds} AS BIGINT)) IS NOT NULL"


def queries(table, pause="IF(j = 0, 2, 0)"):
    """The four reads, each with its expected rows; the full scan pauses `pause` ms a row."""
    return {
        "scan": (
            lambda: sorted(tuple(r) for r in sql(f"SELECT k, j, v FROM {table} WHERE {pausing(pause)}").collect()),
            ALL_ROWS,
        ),
        "skip_scan": (
            lambda: sorted(tuple(r) for r in sql(f"SELECT k, j, v FROM {table} WHERE j = 3").collect()),
            SKIP_ROWS,
        ),
        "gets": (
            lambda: sorted(tuple(r) for r in sql(f"SELECT k, j, v FROM {table} WHERE {GETS_WHERE}").collect()),
            GET_ROWS,
        ),
        "aggregate": (
            lambda: sorted(tuple(r) for r in sql(f"SELECT g, count(*), sum(v) FROM {table} GROUP BY g").collect()),
            GROUPS,
        ),
    }


reads = "f_reads"
spark.conf.set("spark.sql.hbase.scanner.fetchsize", "100")
make_reads_table(reads)
meta_off(2)
for index in range(6):
    move(reads, index, 1 + index % 3)
seen["reads_regions_on_killed_server"] = sum(1 for r in regions_of(reads) if r[2] == server_of(2).getPort())
seen["reads_plans"] = {
    name: sql(f"EXPLAIN {q}").collect()[0][0]
    for name, q in {
        "skip_scan": f"SELECT k, j, v FROM {reads} WHERE j = 3",
        "gets": f"SELECT k, j, v FROM {reads} WHERE {GETS_WHERE}",
        "aggregate": f"SELECT g, count(*), sum(v) FROM {reads} GROUP BY g",
    }.items()
}

fault = {}
t0 = time.monotonic()
restarter = kill_and_restart(2, after(2.0), fault)
rounds = []
# Round after round until the region server serves again, and one round after that.
while True:
    done = not restarter.is_alive()
    rounds.append(
        {name: {**outcome(*q), "ended_s": round(time.monotonic() - t0, 1)} for name, q in queries(reads).items()}
    )
    if done:
        break
restarter.join()
seen["kill_during_queries"] = {"fault": fault, "rounds": rounds}
# Whatever failed is run again once HBase serves every region again.
seen["retries"] = {
    name: outcome(*q) for name, q in queries(reads).items() if any(r[name]["result"] != "exact" for r in rounds)
}

# A region server down for longer than the HBase client retries: the query fails, naming HBase,
# the table and the region; run again once the server is back, it is exact.
meta_off(2)
move(reads, 1, 2)
move(reads, 4, 2)
kill_region_server(hbase, 2)
spark.conf.set("spark.hbase.client.retries.number", "2")
seen["gave_up"] = {name: outcome(*queries(reads)[name]) for name in ("skip_scan", "aggregate")}
spark.conf.unset("spark.hbase.client.retries.number")
hbase.start(region_servers=3)
seen["gave_up_then_again"] = {name: outcome(*queries(reads)[name]) for name in ("skip_scan", "aggregate")}

part_ended("1 killed during queries")

# ---- 2. a region server killed during LOAD DATA ------------------------------------------

ROWS = 400_000
csv_file = work / "load.csv"
with open(csv_file, "w") as f:
    for i in range(ROWS):
        f.write(f"{i},name{i:06d},{i / 4}\n")


def make_load_table(name):
    sql(f"""CREATE TABLE {name} (id INT, name STRING, score DOUBLE, PRIMARY KEY (id))
            MAPPED BY ({name}, COLS=[name=f.n, score=f.s]) SPLIT ON ((100000), (200000), (300000))""")


# Per region: rows, and sums that change if any row or value is missing, extra or altered.
FINGERPRINT = "CAST(id DIV 100000 AS INT), count(*), sum(id), sum(score), sum(hash(id, name, score))"


def loaded(name):
    return sorted(tuple(r) for r in sql(f"SELECT {FINGERPRINT} FROM {name} GROUP BY 1").collect())


spark.read.schema("id INT, name STRING, score DOUBLE").csv(str(csv_file)).createOrReplaceTempView("load_input")
expected_load = loaded("load_input")


def load(name):
    return [tuple(r) for r in sql(f"LOAD DATA LOCAL INPATH '{csv_file}' INTO TABLE {name}").collect()]


warm = "f_load_timed"
make_load_table(warm)
t0 = time.monotonic()
load(warm)
load_seconds = time.monotonic() - t0
seen["load_untroubled_s"] = round(load_seconds, 1)
seen["load_untroubled_exact"] = loaded(warm) == expected_load

target = "f_loaded"
make_load_table(target)
meta_off(2)
for index in range(4):
    move(target, index, 2 if index % 2 else 1 + index // 2 * 2)
fault = {}
# As soon as the statement's first HFile is being written into HBase's staging directory.
staging = data_dir / "staging"
restarter = kill_and_restart(2, lambda: staging.is_dir() and any(p.is_file() for p in staging.rglob("*")), fault)
first = outcome(lambda: load(target), [(ROWS, 0)])
restarter.join()
after_first = loaded(target)
by_region = {r[0]: r for r in expected_load}
seen["load_during_kill"] = {
    "fault": fault,
    "first": first,
    # Each region loaded whole or not at all, whatever the statement's outcome.
    "regions_whole_or_empty": all(by_region.get(r[0]) == r for r in after_first),
    "exact_after_first": after_first == expected_load,
    "again": outcome(lambda: load(target), [(ROWS, 0)]),
    "exact_after_again": loaded(target) == expected_load,
}

part_ended("2 killed during LOAD DATA")

# ---- 3. a region server without the server jar -------------------------------------------

# The tables so far go, with their HBase tables (DROP TABLE keeps those). Tables made from here on
# carry the coprocessor, which the region server without the jar cannot load: it opens their
# regions without it (hbase.coprocessor.abortonerror=false, see test_faults.py).
for table in (reads, warm, target):
    sql(f"DROP TABLE {table}")
    admin.disableTable(TableName.valueOf(table))
    admin.deleteTable(TableName.valueOf(table))
kill_region_server(hbase, 3)
hbase.start(region_servers=3, server_jars={3: None})
seen["servers"] = [{k: rs[k] for k in ("number", "up", "server_jar")} for rs in hbase.region_servers()]

mixed = "f_mixed"
make_reads_table(mixed)
# The balancer stays off while regions are placed by hand: its chore (every 5 minutes) would even
# them out to two per server, putting a second region on server 3 at a time that depends on the
# machine's load (a fresh-clone run once read 14,000 rows, two regions without the filter).
admin.balancerSwitch(False, True)
for index in range(6):
    move(mixed, index, 3 if index == 2 else 1 + index % 2)
seen["mixed_regions_by_server"] = [r[2] == server_of(3).getPort() for r in regions_of(mixed)]


def measured(query):
    df = sql(query)
    rows = sorted(tuple(r) for r in df.collect())
    return rows, scan_metrics(df)


mixed_seen = {}
for name, (run, expected) in queries(mixed).items():
    mixed_seen[name] = outcome(run, expected)
rows, metrics = measured(f"SELECT k, j, v FROM {mixed} WHERE j = 3")
mixed_seen["skip_scan_metrics"] = metrics
mixed_seen["skip_scan_explain"] = sql(f"EXPLAIN SELECT k, j, v FROM {mixed} WHERE j = 3").collect()[0][0]
# The region servers with the jar aggregate their regions; the one without refuses the filter, and
# its region is read without it and aggregated in Spark.
aggregate = f"SELECT g, count(*), sum(v) FROM {mixed} WHERE j < 4 GROUP BY g"
kept = [r for r in ALL_ROWS if r[1] < 4]
rows, metrics = measured(aggregate)
mixed_seen["pushed_aggregate"] = {
    "exact": rows
    == sorted((g, sum(1 for r in kept if r[0] % 7 == g), sum(r[2] for r in kept if r[0] % 7 == g)) for g in range(7)),
    "explain": sql(f"EXPLAIN {aggregate}").collect()[0][0],
    "metrics": metrics,
}
seen["mixed"] = mixed_seen
seen["mixed_regions_by_server_after"] = [r[2] == server_of(3).getPort() for r in regions_of(mixed)]

# A region moved onto the server without the jar while a skip scan reads it: a pause per row
# and a small fetch size keep its scanner open, so the move lands in the middle of the region.
spark.conf.set("spark.sql.hbase.scanner.fetchsize", "10")
df = sql(f"SELECT k, j, v FROM {mixed} WHERE j = 3 AND k BETWEEN 4000 AND 4999 AND {pausing(4)}")
mover = threading.Thread(target=lambda: (time.sleep(1.5), move(mixed, 4, 3)), daemon=True)
t0 = time.monotonic()
mover.start()
got = sorted(tuple(r) for r in df.collect())
seen["moved_mid_read"] = {
    "exact": got == [r for r in SKIP_ROWS if 4000 <= r[0] <= 4999],
    "seconds": round(time.monotonic() - t0, 1),
    "metrics": scan_metrics(df),
}
mover.join()
seen["moved_mid_read"]["now_on_server_without_jar"] = regions_of(mixed)[4][2] == server_of(3).getPort()

# The first region on the server without the jar. Each region server a plan reads is probed
# through a region of its own, so only that region is read without the filter (a probe of the
# first region's server alone once took the whole table's filter away for the cache's lifetime).
first_jarless = "f_first_jarless"
spark.conf.set("spark.sql.hbase.scanner.fetchsize", "100")
make_reads_table(first_jarless)
for index in range(6):
    move(first_jarless, index, 3 if index == 0 else 1 + index % 2)
on_3 = [r[2] == server_of(3).getPort() for r in regions_of(first_jarless)]
rows, metrics = measured(f"SELECT k, j, v FROM {first_jarless} WHERE j = 3")
seen["first_region_without_jar"] = {
    "regions_by_server": on_3,
    "skip_scan_exact": rows == SKIP_ROWS,
    "skip_scan_metrics": metrics,
    "skip_scan_explain": sql(f"EXPLAIN SELECT k, j, v FROM {first_jarless} WHERE j = 3").collect()[0][0],
}
# The same for the aggregation coprocessor: asked through a region on a server with the jar.
aggregate = f"SELECT g, count(*), sum(v) FROM {first_jarless} GROUP BY g"
seen["first_region_without_jar"].update(
    aggregate_exact=sorted(tuple(r) for r in sql(aggregate).collect()) == GROUPS,
    aggregate_explain=sql(f"EXPLAIN {aggregate}").collect()[0][0],
    regions_by_server_after=[r[2] == server_of(3).getPort() for r in regions_of(first_jarless)],
)

# An UPDATE of a packed table with a region on the server without the jar: the other regions'
# servers merge the new values in, the one without the merge refuses the patches and changes
# nothing, and the statement reads, merges and writes those rows (and the rest of their task) itself.
packed = "f_packed_update"
sql(f"""CREATE TABLE {packed} (k INT, g INT, v BIGINT, PRIMARY KEY (k))
        MAPPED BY ({packed}, COLS=[g=f.g, v=f.v]) LAYOUT PACKED
        SPLIT ON ((1000), (2000), (3000), (4000), (5000))""")
sql(f"INSERT INTO {packed} SELECT CAST(id * 10 AS INT), CAST(id % 7 AS INT), id FROM range(600)")
for index in range(6):
    wanted = 3 if index == 2 else 1 + index % 2
    if regions_of(packed)[index][2] != server_of(wanted).getPort():
        move(packed, index, wanted)


def rows_merged(df):
    """The UPDATE's count of rows the region servers merged (UpdateHBaseTableCommand's metric)."""
    plan = df._jdf.queryExecution().executedPlan()
    command = plan.commandPhysicalPlan() if plan.nodeName() == "CommandResult" else plan
    return command.cmd().metrics().apply("rowsMergedInRegionServers").value()


update = sql(f"UPDATE {packed} SET v = -v, g = g + 100 WHERE k % 20 = 0")
seen["packed_update_without_jar"] = {
    "regions_by_server": [r[2] == server_of(3).getPort() for r in regions_of(packed)],
    "updated": update.collect()[0][0],
    "merged": rows_merged(update),
    "exact": sorted(tuple(r) for r in sql(f"SELECT k, g, v FROM {packed}").collect())
    == [(10 * i, i % 7 + (100 if i % 2 == 0 else 0), -i if i % 2 == 0 else i) for i in range(600)],
}

part_ended("3 without the server jar")

# ---- 4. a rolling upgrade: region server 3's server jar replaced by another version -------

# The server jar of commit 4108602 reads wire version 1 only (tests/server_jars). As an operator
# does it, region by region: region server 3's regions are moved off it, it is stopped and started
# with the other jar, and regions are moved back onto it; then the same again with this build's
# jar. Queries run all the while, and every answer must be exact. As in HBase's own graceful
# stop, the balancer is off meanwhile, so that regions stay where they are put.
OLDER_JAR = Path(sys.argv[4])
rolling = "f_rolling"
spark.conf.set("spark.sql.hbase.scanner.fetchsize", "100")
admin.balancerSwitch(False, True)
make_reads_table(rolling)
meta_off(3)
for index in range(6):
    move(rolling, index, 1 + index % 3)
phase = {"now": "one version everywhere"}
rolling_seen = []
stop_rolling = threading.Event()


# A fifth of the first scans' pauses: the scans still span region moves and restarts, and a phase
# (which waits for a whole round of queries) does not wait for scans seconds long.
ROLLING_PAUSE = "IF(j = 0 AND k % 5 = 0, 2, 0)"


def keep_querying():
    while not stop_rolling.is_set():
        at = phase["now"]
        for name, (run, expected) in queries(rolling, ROLLING_PAUSE).items():
            rolling_seen.append({"phase": at, "query": name, **outcome(run, expected)})


def one_round_in(name):
    """Sets the phase and waits until a whole round of queries has begun and ended in it."""
    phase["now"] = name
    deadline = time.monotonic() + 300
    while sum(1 for q in rolling_seen if q["phase"] == name) < len(QUERY_NAMES) and time.monotonic() < deadline:
        time.sleep(0.5)


def drain(number):
    """Moves every region off region server `number`, as before stopping it for an upgrade."""
    others = [server_of(n) for n in (1, 2, 3) if n != number]
    for i, region in enumerate(admin.getRegions(server_of(number))):
        admin.move(region.getEncodedNameAsBytes(), others[i % len(others)])
    deadline = time.monotonic() + 120
    while admin.getRegions(server_of(number)).size() and time.monotonic() < deadline:
        time.sleep(0.2)


def replace_server_jar(number, jar):
    drain(number)
    stop_region_server(hbase, number)
    hbase.start(region_servers=3, **({"server_jars": {number: jar}} if jar else {}))
    for index in (2, 5):
        move(rolling, index, number)


QUERY_NAMES = list(queries(rolling))
querying = threading.Thread(target=keep_querying, daemon=True)
querying.start()
one_round_in("one version everywhere")
phase["now"] = "upgrading region server 3"
replace_server_jar(3, OLDER_JAR)
one_round_in("region server 3 on the older jar")
older_on_3 = [r["server_jar"] for r in hbase.region_servers() if r["number"] == 3][0]
rows, metrics = measured(f"SELECT k, j, v FROM {rolling} WHERE j = 3")
older = {
    "server_jar_of_3": Path(older_on_3).name if isinstance(older_on_3, str) else older_on_3,
    "regions_on_3": [r[2] == server_of(3).getPort() for r in regions_of(rolling)],
    "skip_scan_exact": rows == SKIP_ROWS,
    "skip_scan_metrics": metrics,
}
rows, metrics = measured(f"SELECT g, count(*), sum(v) FROM {rolling} GROUP BY g")
older["aggregate_exact"] = rows == GROUPS
older["aggregate_explain"] = sql(f"EXPLAIN SELECT g, count(*), sum(v) FROM {rolling} GROUP BY g").collect()[0][0]
older["aggregate_metrics"] = metrics
phase["now"] = "upgrading region server 3 again"
replace_server_jar(3, None)
one_round_in("this build's jar everywhere again")
stop_rolling.set()
querying.join(timeout=300)
seen["rolling_upgrade"] = {"queries": rolling_seen, "older": older}
admin.balancerSwitch(True, True)

part_ended("4 rolling upgrade")

# ---- 5. a global index through a killed region server, a split and moves, while writers write ----

# Every row's v is 'a' or 'z' whatever the writers do, and n = k: a read through the index of
# v IN ('a', 'z') must find each row once. A plain HBase client (puts and check-and-mutates, which
# only the observer on the data table sees) all the time, and our UPDATE between reads, move rows
# between the two values, whose index rows are in different regions, while region server 2 is
# killed and started again, the index regions are split, and regions of both tables are moved.
# LAYOUT CELLS: the plain client writes one column's cell.
IX_ROWS = 3000
indexed = "f_indexed"
sql(f"""CREATE TABLE {indexed} (k INT, v STRING, n INT, w STRING, PRIMARY KEY (k))
        MAPPED BY ({indexed}, COLS=[v=f.v, n=f.n, w=f.w]) LAYOUT CELLS SPLIT ON ((1000), (2000))""")
sql(
    f"INSERT INTO {indexed} SELECT CAST(id AS INT), IF(id % 2 = 0, 'a', 'z'), CAST(id AS INT), 'w' "
    f"FROM range({IX_ROWS})"
)
sql(f"CREATE INDEX by_v ON {indexed} USING global (v) OPTIONS (include 'n')")
index_table = f"{indexed}.by_v.idx"
# The index's regions: split between 'a' and 'z' (an index key is 0x01, the text, 0x00 0x00, the data key).
split(index_table, b"\x01b")
wait_for(
    lambda: any(r[0] == b"\x01b" and r[2] > 0 for r in regions_of(index_table)), "the index split between 'a' and 'z'"
)
meta_off(2)
for i in range(3):
    move(indexed, i, 1 + i)
for i in range(len(regions_of(index_table))):
    move(index_table, i, 2 if i == 0 else 3)
IX_EXPECTED = [(IX_ROWS, IX_ROWS * (IX_ROWS - 1) // 2)]
IX_KEYS = list(range(IX_ROWS))
HINT = f"/*+ INDEX({indexed}, by_v) */"
ix_queries = {
    "covered_aggregate": (
        lambda: [
            tuple(r) for r in sql(f"SELECT {HINT} count(*), sum(n) FROM {indexed} WHERE v IN ('a', 'z')").collect()
        ],
        IX_EXPECTED,
    ),
    "covering_read": (
        lambda: sorted(r[0] for r in sql(f"SELECT {HINT} k FROM {indexed} WHERE v IN ('a', 'z')").collect()),
        IX_KEYS,
    ),
    # w is not in the index: the data rows it names are read by Gets.
    "data_read": (
        lambda: sorted(tuple(r) for r in sql(f"SELECT {HINT} k, w FROM {indexed} WHERE v IN ('a', 'z')").collect()),
        [(k, "w") for k in IX_KEYS],
    ),
}
seen["indexed_plan"] = sql(f"EXPLAIN SELECT {HINT} count(*), sum(n) FROM {indexed} WHERE v IN ('a', 'z')").collect()[0][
    0
]


def row_key(k):
    """The table's row key of k: an INT, big-endian with its sign bit flipped (docs/encoding.md)."""
    return ((k ^ 0x80000000) & 0xFFFFFFFF).to_bytes(4, "big")


stop_writers = threading.Event()
writes = {"update": 0, "update_errors": [], "client": 0, "client_errors": []}


def our_update(i):
    """One UPDATE of 31 rows, between reads: it runs through the faults too, without a Spark job
    always running beside them."""
    start = (i * 389) % IX_ROWS
    try:
        sql(f"UPDATE {indexed} SET v = IF(v = 'a', 'z', 'a') WHERE k BETWEEN {start} AND {start + 30}").collect()
        writes["update"] += 1
    except Exception as e:  # noqa: BLE001 - judged by the test: it must name HBase
        writes["update_errors"].append(str(e).strip().splitlines()[0][:500])


def plain_client():
    table = connection.getTable(TableName.valueOf(indexed))
    f, v = b"f", b"v"
    i = 0
    try:
        while not stop_writers.is_set():
            k = (i * 7919) % IX_ROWS
            value = b"a" if i % 3 else b"z"
            try:
                if i % 2:
                    table.put(jvm.org.apache.hadoop.hbase.client.Put(row_key(k)).addColumn(f, v, value))
                else:
                    other = b"z" if value == b"a" else b"a"
                    check = (
                        jvm.org.apache.hadoop.hbase.client.CheckAndMutate.newBuilder(row_key(k))
                        .ifEquals(f, v, other)
                        .build(jvm.org.apache.hadoop.hbase.client.Put(row_key(k)).addColumn(f, v, value))
                    )
                    table.checkAndMutate(check)
                writes["client"] += 1
            except Exception as e:  # noqa: BLE001 - judged by the test: it must name HBase or the index
                writes["client_errors"].append(str(e).strip().splitlines()[0][:500])
            i += 1
    finally:
        table.close()


ix_rounds = []
writers = [threading.Thread(target=plain_client, daemon=True)]
for w in writers:
    w.start()
t0 = time.monotonic()
ix_fault = {}
restarter = kill_and_restart(2, after(1.0), ix_fault)
while True:
    done = not restarter.is_alive()
    our_update(len(ix_rounds))
    ix_rounds.append(
        {name: {**outcome(*q), "ended_s": round(time.monotonic() - t0, 1)} for name, q in ix_queries.items()}
    )
    if done:
        break
restarter.join()
# Then splits of both index regions in their middles and moves of both tables' regions, still
# while writing. (HBase finds no split point of its own in rows that are all in memory.)
for value in (b"a", b"z"):
    middle = b"\x01" + value + b"\x00\x00" + row_key(IX_ROWS // 2)
    split(index_table, middle)
    wait_for(
        lambda middle=middle: (
            any(r[0] == middle and r[2] > 0 for r in regions_of(index_table))
            and all(r[2] > 0 for r in regions_of(index_table))
        ),
        f"the index split at {middle}",
    )
move(indexed, 1, 2)
for i in range(len(regions_of(index_table))):
    move(index_table, i, 1 + i % 3)
for _ in range(2):
    our_update(len(ix_rounds))
    ix_rounds.append({name: outcome(*q) for name, q in ix_queries.items()})
stop_writers.set()
for w in writers:
    w.join(timeout=120)


def check_index(repair=""):
    row = sql(f"CHECK INDEX by_v ON {indexed}{repair}").collect()[0].asDict()
    return {key: row[key] for key in ("dataRows", "missing", "extra", "stale", "unverified", "repaired")}


seen["indexed"] = {
    "fault": ix_fault,
    "rounds": ix_rounds,
    "writes": {**writes, "update_errors": writes["update_errors"][:5], "client_errors": writes["client_errors"][:5]},
    "index_regions": len(regions_of(index_table)),
    "checked": check_index(),
    "repaired": check_index(" REPAIR"),
    "checked_after_repair": check_index(),
    "after": {name: outcome(*q) for name, q in ix_queries.items()},
}

part_ended("5 global index")
admin.close()
connection.close()
print("RESULT " + json.dumps(seen), flush=True)
spark.stop()
