# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Concurrency: eight Spark applications running DDL on the same names at once, and writers and
readers sharing one table.

The DDL storm: `ddl_storm_job.py` runs in eight applications (JVMs of their own) against the run's
HBase, with a catalog and a range index table of their own in a fresh namespace, for STORM_SECONDS
after all eight are up. While they run, this process runs the writers and readers test in its
own session. Then the final catalog, index table and HBase tables are judged against the eight
logs. All applications run on this machine, so their logs' times are one clock: a statement
*surely after* another started after that one ended. Every statement carries a unique token
(see the job), so the final state says which statement made each part of it.
"""

import csv
import json
import random
import re
import subprocess
import threading
import time
import uuid
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from pyspark_hbase import session as hbase_session
from spark_submit import SUBMIT, submit_env

REPO = Path(__file__).resolve().parents[1]
APPS = 8
STORM_SECONDS = 30
# Cell timestamps and log times are both the machine's clock; the margin covers their rounding.
MARGIN = 0.005

# What a statement may fail with under contention: clear messages, each naming what happened.
CLEAR_ERRORS = {
    "table exists": r"CREATE TABLE t\d: table 't\d' already exists",
    "table missing": (
        r"HBase table 't\d' does not exist"
        r"|\[TABLE_OR_VIEW_NOT_FOUND\] The table or view (`spark_catalog`\.`default`\.)?`t\d` cannot be found"
    ),
    "changed by another session": r": table 't\d' was changed by another session; run it again",
    "keeps changing": r": table 't\d' keeps changing in other sessions; run it again",
    "HBase table not made yet": r"HBase table '[\w:]+' does not exist; if CREATE TABLE is making it now, run this again",
    "no such family": r": HBase table '[\w:]+' has no column family 'g' \(it has f\)",
    "no such column": r"Column '\w+' does not exist in table 't\d'|column '\w+' does not exist in table 't\d'",
    "column indexed": r"DROP COLUMN \w+: '\w+' is in range index 'i\d'; DROP INDEX i\d ON t\d first",
    "index exists": r"CREATE INDEX i\d ON t\d: table 't\d' already has an index 'i\d'",
    "no such index": r"DROP INDEX i\d ON t\d: table 't\d' has no index 'i\d'",
    "dropped while built": r"CREATE INDEX i\d ON t\d: (table 't\d' was dropped|index 'i\d' was dropped or replaced while it was built)",
}


def error_kind(record):
    """The kind of a failed statement's error, or None when it is not a clear one."""
    if record["error_class"] != "AnalysisException":
        return None
    first = record["error"].strip().splitlines()[0]
    return next((kind for kind, pattern in CLEAR_ERRORS.items() if re.search(pattern, first)), None)


# ---- raw HBase, through the HBase client in this process's plugin jar --------------------------


class RawHBase:
    """HBase's own client on the HBase the session uses, as the plugin finds it (its spark.hbase.* settings, or
    HBASE_CONF_DIR's hbase-site.xml): admin calls and whole scans, nothing of the plugin's reading."""

    def __init__(self, spark):
        jvm = spark._jvm
        self.jvm = jvm
        self.cluster = jvm.org.apache.spark.sql.hbase.connection.HBaseClusterConf.fromSession(spark._jsparkSession)
        self.connections = jvm.org.apache.spark.sql.hbase.connection.HBaseConnections
        self.connection = self.connections.borrow(self.cluster)
        self.admin = self.connection.getAdmin()

    def tables(self, namespace):
        """{table name: sorted families} of the namespace's tables."""
        return {
            d.getTableName().getQualifierAsString(): sorted(f.getNameAsString() for f in d.getColumnFamilies())
            for d in self.admin.listTableDescriptorsByNamespace(namespace.encode())
        }

    def rows(self, table):
        """[(row key, [(family, qualifier, value)])] of every row, as bytes."""
        jvm = self.jvm
        htable = self.connection.getTable(jvm.org.apache.hadoop.hbase.TableName.valueOf(table))
        scanner = htable.getScanner(jvm.org.apache.hadoop.hbase.client.Scan())
        rows = []
        try:
            result = scanner.next()
            while result is not None:
                cells = [
                    (
                        bytes(jvm.org.apache.hadoop.hbase.CellUtil.cloneFamily(c)),
                        bytes(jvm.org.apache.hadoop.hbase.CellUtil.cloneQualifier(c)),
                        bytes(jvm.org.apache.hadoop.hbase.CellUtil.cloneValue(c)),
                    )
                    for c in result.rawCells()
                ]
                rows.append((bytes(result.getRow()), cells))
                result = scanner.next()
        finally:
            scanner.close()
            htable.close()
        return rows

    def close(self):
        self.admin.close()
        self.connections.release(self.cluster)


# ---- the storm -----------------------------------------------------------------------------


class Storm:
    """The eight applications, started by the fixture; `result()` waits for them."""

    def __init__(self, hbase, work):
        self.namespace = f"storm_{uuid.uuid4().hex[:8]}"
        self.work = work
        ready = work / "ready"
        ready.mkdir()
        env = submit_env()
        self.launched = time.time()
        self.processes = []
        for app in range(APPS):
            command = [
                str(SUBMIT),
                "--master",
                "local[1]",
                "--driver-memory",
                "512m",
                *hbase_session.submit_args(data_dir=hbase.data_dir if hbase else None),
                "--conf",
                "spark.ui.enabled=false",
                "--conf",
                "spark.ui.showConsoleProgress=false",
                "--conf",
                "spark.sql.shuffle.partitions=1",
                "--conf",
                f"spark.sql.hbase.catalog.table={self.namespace}:catalog",
                "--conf",
                f"spark.sql.hbase.index.table={self.namespace}:range_index",
                str(REPO / "tests" / "ddl_storm_job.py"),
                str(app),
                self.namespace,
                str(STORM_SECONDS),
                str(work / f"app{app}.jsonl"),
                str(ready),
                str(APPS),
            ]
            out = open(work / f"app{app}.out", "w")
            self.processes.append(
                subprocess.Popen(command, cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT, text=True)
            )
        self._result = None

    def result(self):
        if self._result is None:
            for app, process in enumerate(self.processes):
                code = process.wait(timeout=STORM_SECONDS + 600)
                output = (self.work / f"app{app}.out").read_text(errors="replace")
                assert code == 0 and "RESULT " in output, output[-5000:]
            ready = sorted(p.stat().st_mtime for p in (self.work / "ready" / "started").iterdir())
            firsts = [json.loads(p.read_text()) for p in (self.work / "ready" / "catalog").iterdir()]
            records = [
                json.loads(line)
                for app in range(APPS)
                for line in (self.work / f"app{app}.jsonl").read_text().splitlines()
            ]
            self._result = {
                "records": records,
                "slowest_start_s": round(ready[-1] - self.launched, 1),
                "fastest_start_s": round(ready[0] - self.launched, 1),
                "wall_s": round(time.time() - self.launched, 1),
                "slowest_first_spark_s": round(max(f["spark_s"] for f in firsts), 1),
                "slowest_first_hbase_s": round(max(f["hbase_s"] for f in firsts), 1),
            }
        return self._result

    def stop(self):
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait()


@pytest.fixture(scope="module")
def storm(hbase, spark, tmp_path_factory):
    # `spark` first: this process's JVM starts before the eight others crowd the machine.
    started = Storm(hbase, tmp_path_factory.mktemp("ddl-storm"))
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="module")
def storm_end(storm, spark, figure):
    """The storm's logs, and the final catalog, index table and HBase tables, read raw."""
    result = storm.result()
    raw = RawHBase(spark)
    try:
        ns = storm.namespace
        tables = raw.tables(ns)
        catalog = raw.rows(f"{ns}:catalog")
        # Chunk rows only (`<htable> 0x00 'C' ...`), not the clock or the write marks.
        chunks = [
            r for r, _ in raw.rows(f"{ns}:range_index") if b"\x00" in r[1:] and r.split(b"\x00", 1)[1][:1] == b"C"
        ]
        parse = spark._jvm.org.apache.spark.sql.hbase.metadata.TableDefJson.fromJson
    finally:
        raw.close()
    definitions = {}
    for row, cells in catalog:
        if row.startswith(b"\x00packed\x00"):
            # The slots of a packed HBase table's families, kept for its next mapping: one of the storm's own.
            assert [(f, q) for f, q, _ in cells] == [(b"d", b"packedSlots")], (row, cells)
            assert row.split(b"\x00")[2].decode().startswith(f"{ns}:u_a"), row
            continue
        # Each row is whole: the definition, which the plugin's own reader parses, under its table's name, and
        # the eight-byte tag its last write gave it.
        assert [(f, q) for f, q, _ in cells] == [(b"d", b"table"), (b"d", b"tag")], (row, cells)
        assert len(cells[1][2]) == 8, (row, cells)
        text = cells[0][2].decode()
        assert parse(text).name().lower() == row.decode(), text
        definitions[row.decode()] = json.loads(text)
    records = result["records"]
    outcomes = Counter((r["kind"], "ok" if r["ok"] else error_kind(r) or "UNCLEAR") for r in records)
    figure("DDL storm: applications, seconds of DDL", f"{APPS}, {STORM_SECONDS}")
    figure(
        "DDL storm: JVM start (fastest, slowest), whole wall clock",
        (
            result["fastest_start_s"],
            result["slowest_start_s"],
            result["wall_s"],
        ),
    )
    figure("DDL storm: statements", len(records))
    figure(
        "DDL storm: slowest first statements (s): Spark's own SELECT 1, then the first on HBase, all racing to "
        "create the catalog",
        (result["slowest_first_spark_s"], result["slowest_first_hbase_s"]),
    )
    figure("DDL storm: outcomes", dict(sorted(outcomes.items())))
    print(json.dumps({"outcomes": sorted(outcomes.items()), "definitions": definitions}, default=str))
    return {"records": records, "definitions": definitions, "tables": tables, "chunks": chunks}


# ---- writers and readers (run while the storm runs) ---------------------------------------------

KEYS = 300
WRITERS, READERS, BATCHES, BATCH_KEYS = 4, 4, 8, 40


def _check_row(row, batches, read):
    """Problems of one row a read returned: (k, w, s, c) must be whole batch (w, s)'s row, and no
    batch that surely came later than it may have ended before the read began."""
    k, w, s, c = row
    written = batches.get((w, s))
    if c != f"{w}:{s}:{k}" or written is None or k not in written["keys"]:
        return f"row {row} is no write's row"
    if written["start"] > read["end"] + MARGIN:
        return f"row {row} comes from a write that began after the read"
    for other in batches.values():
        if k in other["keys"] and other["end"] < read["start"] - MARGIN and written["end"] < other["start"] - MARGIN:
            return f"row {row} was overwritten by batch {other['writer']}/{other['seq']} before the read began"
    return None


def test_writers_and_readers_share_a_table_and_every_read_is_explained_by_the_writes(
    spark, table_name, tmp_path, storm, figure
):
    spark.sql(
        f"CREATE TABLE {table_name} (k INT, w INT, s INT, c STRING, PRIMARY KEY (k)) "
        f"MAPPED BY ({table_name}, COLS=[w=f.w, s=g.s, c=f.c]) SPLIT ON ((100), (200))"
    )
    batches, reads, failures = {}, [], []
    writing = threading.Event()
    writing.set()

    def writer(w):
        rng = random.Random(w)
        for s in range(1, BATCHES + 1):
            keys = sorted(rng.sample(range(KEYS), BATCH_KEYS))
            rows = [(k, w, s, f"{w}:{s}:{k}") for k in keys]
            load = s % 2 == 0
            if load:
                path = tmp_path / f"w{w}s{s}.csv"
                with open(path, "w", newline="") as f:
                    csv.writer(f).writerows(rows)
                statement = f"LOAD DATA LOCAL INPATH '{path}' INTO TABLE {table_name}"
            else:
                values = ", ".join(f"({k}, {w}, {s}, '{c}')" for k, w, s, c in rows)
                statement = f"INSERT INTO {table_name} VALUES {values}"
            batch = {"writer": w, "seq": s, "keys": set(keys), "load": load, "start": time.time()}
            batches[(w, s)] = batch
            try:
                spark.sql(statement).collect()
            except Exception as e:  # noqa: BLE001 - reported by the test
                failures.append(f"writer {w} batch {s}: {e}")
            batch["end"] = time.time()

    def reader(r):
        rng = random.Random(100 + r)
        while writing.is_set():
            shape = rng.choice(["keys", "point", "range", "full"])
            if shape == "keys":
                keys = set(rng.sample(range(KEYS), 12))
                where = f"WHERE k IN ({', '.join(map(str, sorted(keys)))})"
            elif shape == "point":
                keys = {rng.randrange(KEYS)}
                where = f"WHERE k = {next(iter(keys))}"
            elif shape == "range":
                lo = rng.randrange(KEYS - 120)
                keys = set(range(lo, lo + 120))
                where = f"WHERE k BETWEEN {lo} AND {lo + 119}"
            else:
                keys, where = set(range(KEYS)), ""
            read = {"reader": r, "shape": shape, "keys": keys, "start": time.time()}
            try:
                read["rows"] = [tuple(x) for x in spark.sql(f"SELECT k, w, s, c FROM {table_name} {where}").collect()]
            except Exception as e:  # noqa: BLE001 - reported by the test
                failures.append(f"reader {r} {shape}: {e}")
                continue
            read["end"] = time.time()
            reads.append(read)

    t0 = time.monotonic()
    writers = [threading.Thread(target=writer, args=(w,)) for w in range(1, WRITERS + 1)]
    readers = [threading.Thread(target=reader, args=(r,)) for r in range(READERS)]
    for t in writers + readers:
        t.start()
    for t in writers:
        t.join()
    writing.clear()
    for t in readers:
        t.join()
    seconds = time.monotonic() - t0
    assert not failures, failures[:5]

    final = {"reader": "final", "shape": "full", "keys": set(range(KEYS)), "start": time.time()}
    final["rows"] = [tuple(x) for x in spark.sql(f"SELECT k, w, s, c FROM {table_name}").collect()]
    final["end"] = time.time()
    problems = []
    for read in [*reads, final]:
        seen = [row[0] for row in read["rows"]]
        if len(seen) != len(set(seen)) or any(k not in read["keys"] for k in seen):
            problems.append(f"{read['shape']} read returned keys twice or outside its WHERE: {sorted(seen)}")
        for row in read["rows"]:
            problem = _check_row(row, batches, read)
            if problem:
                problems.append(f"{read['shape']} read {read['start']:.3f}-{read['end']:.3f}: {problem}")
        # No row is lost: a key some finished batch wrote is in every read that began after it.
        written = {k for b in batches.values() if b["end"] < read["start"] - MARGIN for k in b["keys"]}
        missing = (written & read["keys"]) - set(seen)
        if missing:
            problems.append(f"{read['shape']} read {read['start']:.3f} lacks written keys {sorted(missing)}")
    # A row once seen never goes back to a write that surely came before the one seen.
    for a in reads:
        shown = {row[0]: batches[(row[1], row[2])] for row in a["rows"] if (row[1], row[2]) in batches}
        for b in [*reads, final]:
            if b["start"] > a["end"] + MARGIN:
                for row in b["rows"]:
                    earlier = shown.get(row[0])
                    later = batches.get((row[1], row[2]))
                    if earlier and later and later["end"] < earlier["start"] - MARGIN:
                        problems.append(f"key {row[0]} went back from {earlier['writer']}/{earlier['seq']} to {row}")
    assert not problems, problems[:10]
    assert {row[0] for row in final["rows"]} == {k for b in batches.values() for k in b["keys"]}
    shapes = Counter(r["shape"] for r in reads)
    # The reads overlapped the writes, each shape several times.
    assert all(shapes[s] >= 3 for s in ("keys", "point", "range", "full")), shapes
    assert any(b["start"] < r["end"] and r["start"] < b["end"] for r in reads for b in batches.values() if b["load"])
    figure(
        "writers and readers: seconds, writes (INSERT, LOAD), reads by shape",
        (round(seconds, 1), len(batches), dict(shapes)),
    )


# ---- judging the storm ---------------------------------------------------------------------------


def _surely_after(a, b):
    return a["start"] > b["end"] + MARGIN


def _may_follow(a, b):
    """Whether a may have taken effect after b did (not surely before it)."""
    return a["end"] > b["start"] - MARGIN


def test_ddl_storm_ran_every_kind_of_statement_and_they_collided(storm_end):
    records = storm_end["records"]
    by_kind = Counter(r["kind"] for r in records if r["ok"])
    failed = Counter(r["kind"] for r in records if not r["ok"])
    assert set(by_kind) == {"create", "drop", "add_column", "drop_column", "create_index", "drop_index"}, by_kind
    # On two busy cores a statement can take seconds: the bar is that each kind won and lost at least once.
    assert min(by_kind.values()) >= 1 and min(failed.values()) >= 1, (by_kind, failed)
    assert failed["create"] >= 3 and sum(failed.values()) >= 20, failed
    assert {r["app"] for r in records} == set(range(APPS))
    # Every application was at work at the same time, for STORM_SECONDS.
    first_end = min(max(r["end"] for r in records if r["app"] == a) for a in range(APPS))
    last_start = max(min(r["start"] for r in records if r["app"] == a) for a in range(APPS))
    assert first_end - last_start >= STORM_SECONDS - 10


def test_ddl_storm_errors_are_clear(storm_end):
    unclear = [r for r in storm_end["records"] if not r["ok"] and error_kind(r) is None]
    assert not unclear, [(r["sql"], r["error_class"], r["error"][:600]) for r in unclear[:5]]


def test_ddl_storm_left_each_name_as_the_statements_that_won_made_it(storm_end):
    records, definitions, tables = storm_end["records"], storm_end["definitions"], storm_end["tables"]
    ok = [r for r in records if r["ok"]]
    creates = {r["token"]: r for r in records if r["kind"] == "create"}

    def made(c):
        """Whether a successful CREATE surely made the table (IF NOT EXISTS may have done nothing)."""
        return not c["if_not_exists"] or (not c["htable"].startswith("s") and c["htable"] in tables)

    problems = []
    for name in ("t0", "t1", "t2", "t3"):
        mine = [r for r in ok if r["name"] == name]
        of = defaultdict(list)
        for r in mine:
            of[r["kind"]].append(r)
        final = definitions.get(name)
        winner = None
        if final is not None:
            key = [c["name"] for c in final["columns"] if c["name"] in final["keyColumns"]]
            winner = creates.get(key[0][len("k_") :]) if key else None
            if winner is None or not winner["ok"] or winner["name"] != name:
                problems.append(f"{name}: final definition from no successful CREATE of it: {final}")
                continue
            for drop in of["drop"]:
                if _surely_after(drop, winner):
                    problems.append(f"{name}: {drop['sql']} succeeded after {winner['sql']}, yet it stands")
            for c in of["create"]:
                if c is not winner and made(c) and _surely_after(c, winner):
                    problems.append(f"{name}: {c['sql']} succeeded after {winner['sql']}, yet that stands")
            if (
                final["hbaseNamespace"] + ":" + final["hbaseTable"]
                != winner["sql"].split("MAPPED BY (")[1].split(",")[0]
            ):
                problems.append(f"{name}: maps another HBase table than {winner['sql']}")
        # A table some CREATE made is gone, or replaced, only by a DROP that may have followed it.
        for c in of["create"]:
            if c is not winner and made(c) and not any(_may_follow(d, c) for d in of["drop"]):
                problems.append(f"{name}: {c['sql']} succeeded and no DROP followed, yet it is gone")
        if winner is None:
            continue

        columns = {c["name"]: c for c in final["columns"]}
        dropped = {r["column"] for r in of["drop_column"]}
        adds = {r["column"]: r for r in of["add_column"]}
        base = {f"k_{winner['token']}", *winner["columns"]}
        for column, c in columns.items():
            add = adds.get(column)
            if column not in base and (add is None or not _may_follow(add, winner)):
                problems.append(f"{name}: column {column} comes from no statement that could have added it")
            if column in dropped:
                problems.append(f"{name}: column {column} was dropped, yet it stands")
            if column != f"k_{winner['token']}" and c.get("qualifier") != column:
                problems.append(f"{name}: column {column} maps the wrong cell: {c}")
        for column in winner["columns"]:
            if column not in columns and column not in dropped:
                problems.append(f"{name}: column {column} of {winner['sql']} is gone and no DROP COLUMN took it")
        for column, add in adds.items():
            if _surely_after(add, winner) and column not in dropped and column not in columns:
                problems.append(f"{name}: {add['sql']} succeeded on this table, yet the column is lost")

        index_creates = {r["chunk_rows"]: r for r in of["create_index"]}
        final_indexes = {i["name"]: i for i in final.get("indexes", [])}
        for index in final_indexes.values():
            made_by = index_creates.get(index["chunkRows"])
            if made_by is None or made_by["index"] != index["name"] or not _may_follow(made_by, winner):
                problems.append(f"{name}: index {index} comes from no successful CREATE INDEX on this table")
                continue
            if "generation" not in index or index["columns"] != [made_by["column"]] or made_by["column"] not in columns:
                problems.append(f"{name}: index {index} is not the built index {made_by['sql']} made")
            for r in of["drop_index"] + of["create_index"]:
                if r is not made_by and r["index"] == index["name"] and _surely_after(r, made_by):
                    problems.append(f"{name}: {r['sql']} succeeded after {made_by['sql']}, yet that index stands")
        for create in of["create_index"]:
            standing = final_indexes.get(create["index"])
            removed = any(
                d["index"] == create["index"] and _may_follow(d, create) for d in of["drop_index"] if d is not create
            )
            if (
                _surely_after(create, winner)
                and not removed
                and (standing or {}).get("chunkRows") != create["chunk_rows"]
            ):
                problems.append(f"{name}: {create['sql']} succeeded and nothing dropped it, yet it is not there")
    assert not problems, problems


def test_ddl_storm_left_no_index_statistics_without_their_index(storm_end):
    built = {
        (d["hbaseNamespace"] + ":" + d["hbaseTable"], name, i["name"].lower(), i["generation"])
        for name, d in storm_end["definitions"].items()
        for i in d.get("indexes", [])
        if "generation" in i
    }
    found = set()
    for row in storm_end["chunks"]:
        htable, rest = row.split(b"\x00", 1)
        table, index, tail = rest[1:].split(b"\x00", 2)
        found.add((htable.decode(), table.decode(), index.decode(), int.from_bytes(tail[:8], "big", signed=True)))
    assert found - built == set(), "chunk rows of no built index"
    assert built - found == set(), "built indexes without chunk rows"


def test_ddl_storm_left_no_hbase_table_a_failed_create_made(storm_end):
    records, tables = storm_end["records"], storm_end["tables"]
    creates = [r for r in records if r["kind"] == "create"]
    expected_own = {
        c["htable"] for c in creates if c["ok"] and not c["htable"].startswith("s") and not c["if_not_exists"]
    }
    may_own = {c["htable"] for c in creates if c["ok"] and not c["htable"].startswith("s")}
    own = {t for t in tables if t.startswith("u_")}
    assert expected_own <= own <= may_own, (expected_own - own, own - may_own)
    for shared in ("s0", "s1"):
        makers = [c for c in creates if c["ok"] and c["htable"] == shared]
        if shared in tables:
            assert tables[shared] in [c["families"] for c in makers], (shared, tables[shared])
        else:
            assert not [c for c in makers if not c["if_not_exists"]]
    assert set(tables) - own - {"s0", "s1", "range_index"} == {"catalog"}
