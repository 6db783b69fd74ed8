# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The soak's workload: writers, a loader and readers on one table, every answer checked, and the faults (region
splits, region server restarts) between them."""

import random
import re
import threading
import time
from collections import Counter

from harness.common import log
from harness.platform import kill_region_server
from harness.sessions import hbase_classes, table_name

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


class Soak:
    """The statements of every kind, run by threads until `stop` is set, and the faults between them."""

    def __init__(self, spark, hbase, files, chaos_every):
        self.spark, self.hbase, self.files, self.chaos_every = spark, hbase, files, chaos_every
        self.region_servers = len(hbase.region_servers())
        self.t0 = time.monotonic()
        self.ops, self.acked, self.stop = Log(self.t0), Acknowledged(), threading.Event()
        self._numbers, self._numbers_lock = iter(range(1, 1 << 40)), threading.Lock()

    def create_table(self):
        self.spark.sql(f"DROP TABLE IF EXISTS {TABLE}")
        third = (MASK + 1) // 3
        self.spark.sql(
            f"CREATE TABLE {TABLE} (k BIGINT, src INT, n BIGINT, v STRING, PRIMARY KEY (k)) "
            f"MAPPED BY ({TABLE}, COLS=[src=f.s, n=f.n, v=f.v]) LAYOUT CELLS SPLIT ON (({third}), ({2 * third}))"
        )

    def restart_clock(self):
        """The run proper starts: what the warm-up logged is forgotten."""
        self.t0 = time.monotonic()
        self.ops.t0, self.ops.ops, self.ops.errors, self.ops.wrong, self.ops.events = self.t0, [], Counter(), [], []

    def next_numbers(self, count):
        with self._numbers_lock:
            return [next(self._numbers) for _ in range(count)]

    def writer(self):
        ops, acked = self.ops, self.acked
        while not self.stop.is_set():
            batch = self.next_numbers(BATCH)
            acked.attempt(batch)
            values = ", ".join(f"({k}, {s}, {n}, '{v}')" for k, s, n, v in map(row_of, batch))
            try:
                self.spark.sql(f"INSERT INTO {TABLE} VALUES {values}")
                acked.ack(batch)
                ops.op("insert", True, len(batch))
            except Exception as e:  # noqa: BLE001 - counted by kind; the rows are then not acknowledged
                ops.error("insert", e)

    def loader(self):
        ops, acked = self.ops, self.acked
        i = 0
        while not self.stop.is_set():
            i += 1
            batch = self.next_numbers(LOAD_ROWS)
            acked.attempt(batch)
            path = self.files / f"load-{i}.csv"
            path.write_text("".join(f"{k},{s},{n},{v}\n" for k, s, n, v in map(row_of, batch)))
            try:
                self.spark.sql(f"LOAD DATA LOCAL INPATH '{path}' INTO TABLE {TABLE}")
                acked.ack(batch)
                ops.op("load", True, len(batch))
            except Exception as e:  # noqa: BLE001
                ops.error("load", e)
            self.stop.wait(5)

    def reader(self, number):
        rng = random.Random(number)
        i = 0
        while not self.stop.is_set():
            i += 1
            kind = "count" if i % 20 == 0 else "aggregate" if i % 20 == 10 else "keyed read"
            try:
                self.read(kind)
            except Exception as e:  # noqa: BLE001
                self.ops.error(kind, e)
            if rng.random() < 0.05:
                self.stop.wait(0.2)

    def read(self, kind):
        """One read of this kind, its answer checked against the rows acknowledged before it began."""
        ops, spark = self.ops, self.spark
        keys, known = self.acked.sample(KEYS_PER_READ)
        if kind == "count":
            count = spark.sql(f"SELECT count(*) FROM {TABLE}").first()[0]
            if count < known:
                ops.wrong.append(f"count(*) {count} < {known} rows acknowledged before it began")
            ops.op("count", True, count)
        elif kind == "aggregate":
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
            self.stop.wait(0.5)

    def split_biggest_region(self):
        """Splits the region holding the most bytes; the regions of the table then."""
        jvm, cluster, connections = hbase_classes(self.spark)
        table = table_name(self.spark, TABLE)
        admin = connections.borrow(cluster).getAdmin()
        try:
            admin.flush(table)
            regions = list(admin.getRegions(table))
            sizes = {}
            for server in admin.getRegionServers():
                for metrics in admin.getRegionMetrics(server, table):
                    sizes[bytes(metrics.getRegionName())] = metrics.getStoreFileSize().get()
            biggest = max(regions, key=lambda r: sizes.get(bytes(r.getRegionName()), 0))
            admin.splitRegionAsync(biggest.getRegionName()).get(120, jvm.java.util.concurrent.TimeUnit.SECONDS)
            return len(regions) + 1
        finally:
            admin.close()
            connections.release(cluster)

    def chaos(self):
        """Every chaos_every minutes, by turns: a split, or region server 2 or 3 killed and started again."""
        turn = 0
        while not self.stop.wait(self.chaos_every * 60):
            turn += 1
            try:
                if turn % 2 == 1 or self.region_servers < 3:
                    self.ops.event(f"split: {self.split_biggest_region()} regions")
                else:
                    number = 2 + (turn // 2) % 2
                    self.ops.event(f"killing region server {number}")
                    kill_region_server(self.hbase, number)
                    self.hbase.start(region_servers=self.region_servers)
                    self.ops.event(f"region server {number} serving again")
            except Exception as e:  # noqa: BLE001
                self.ops.error("chaos", e)
                self.ops.event(f"chaos step failed: {str(e).splitlines()[0][:200]}")

    def threads(self, *targets):
        return [threading.Thread(target=t, daemon=True) for t in targets]

    def run_threads(self, threads, seconds):
        """The threads started, stopped after `seconds`, and joined."""
        self.stop.clear()
        for t in threads:
            t.start()
        self.stop.wait(seconds)
        self.stop.set()
        for t in threads:
            t.join(timeout=600)

    def warm_up(self):
        """A first round of every kind of statement, so that the start counts see a warmed-up driver."""
        self.run_threads(self.threads(self.writer, self.loader, lambda: self.reader(0)), 20)

    def workers(self):
        return (
            self.threads(*[self.writer] * WRITERS, self.loader)
            + [threading.Thread(target=self.reader, args=(i,), daemon=True) for i in range(READERS)]
            + self.threads(self.chaos)
        )

    def final_check(self):
        """(every row the table holds by n, acknowledged rows missing or wrong, rows no writer wrote or wrong)."""
        final = {}
        for _ in range(3):
            try:
                final = {r.n: tuple(r) for r in self.spark.sql(f"SELECT * FROM {TABLE}").collect()}
                break
            except Exception as e:  # noqa: BLE001
                log(f"final read failed ({str(e).splitlines()[0][:200]}); again")
                time.sleep(10)
        missing = [n for n in self.acked.acked if final.get(n) != row_of(n)]
        unknown = [n for n in final if n not in self.acked.attempted or final[n] != row_of(n)]
        return final, missing, unknown
