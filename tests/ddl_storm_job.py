# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""One of the Spark applications that test_concurrency.py runs at once against one HBase: random
DDL on a few shared names, so that the applications collide.

Every statement is made recognisable in the final catalog by a token unique to it (app and
statement number): CREATE TABLE names its key and value columns and its own HBase table (or one
of two shared ones) after it, ADD COLUMN names the new column after it, and CREATE INDEX gives it as
chunkRows. Each statement is logged as a JSON line with its outcome and its start and end by the
machine's clock, which every application shares; the test judges the final catalog from them.

Usage: spark-submit ... ddl_storm_job.py <app number> <namespace> <seconds> <log file> <ready dir> <apps>
"""

import json
import random
import sys
import time
from pathlib import Path

from pyspark.sql import SparkSession

app, namespace, seconds, log_path, ready_dir, apps = sys.argv[1:7]
app, seconds, apps = int(app), float(seconds), int(apps)
NAMES = ["t0", "t1", "t2", "t3"]
SHARED = ["s0", "s1"]
INDEXES = ["i0", "i1"]

spark = SparkSession.builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
rng = random.Random(1000 + app)
log = open(log_path, "a")


def barrier(stage, note=""):
    """Waits until every application has reached `stage`."""
    where = Path(ready_dir) / stage
    where.mkdir(exist_ok=True)
    (where / f"app{app}").write_text(note)
    deadline = time.monotonic() + 900
    while len(list(where.iterdir())) < apps and time.monotonic() < deadline:
        time.sleep(0.05)


# All start at once, so that their first statements race to create the catalog and its namespace;
# the DDL starts once every application has its catalog, and runs for `seconds` in all of them.
barrier("started")
# Where the first statement's time goes: Spark's own first statement (no HBase), then the first
# that reads HBase (the connection, and the catalog table and namespace, created by whoever is first).
t0 = time.monotonic()
spark.sql("SELECT 1").collect()
t1 = time.monotonic()
spark.sql("SHOW TABLES IN hbase").collect()
barrier("catalog", json.dumps({"spark_s": t1 - t0, "hbase_s": time.monotonic() - t1}))
end_at = time.monotonic() + seconds


def run(kind, name, statement, **facts):
    started = time.time()
    record = {"app": app, "kind": kind, "name": name, "sql": statement, **facts}
    try:
        spark.sql(statement).collect()
        record["ok"] = True
    except Exception as e:  # noqa: BLE001 - every failure is logged and judged by the test
        record["ok"] = False
        record["error_class"] = type(e).__name__
        record["error"] = str(e)[:2000]
    record["start"], record["end"] = started, time.time()
    log.write(json.dumps(record) + "\n")
    log.flush()
    return record


def value_columns(name):
    """The table's value columns as this application sees them now, or [] when it has none."""
    try:
        return [c for c in spark.table(name).columns if not c.startswith("k_")]
    except Exception:  # noqa: BLE001 - a table that is gone has none
        return []


seq = 0
while time.monotonic() < end_at:
    seq += 1
    token = f"a{app}n{seq}"
    name = rng.choice(NAMES)
    kind = rng.choices(
        ["create", "drop", "add_column", "drop_column", "create_index", "drop_index"], [25, 10, 20, 10, 25, 10]
    )[0]
    if kind == "create":
        shared = rng.random() < 0.5
        htable = rng.choice(SHARED) if shared else f"u_{token}"
        columns = [(f"b_{token}", "f")] + ([(f"c_{token}", "g")] if rng.random() < 0.3 else [])
        if_not_exists = rng.random() < 0.2
        run(
            kind,
            name,
            f"CREATE TABLE {'IF NOT EXISTS ' if if_not_exists else ''}{name} "
            f"(k_{token} INT, {', '.join(f'{c} STRING' for c, _ in columns)}, PRIMARY KEY (k_{token})) "
            f"MAPPED BY ({namespace}:{htable}, COLS=[{', '.join(f'{c}={f}.{c}' for c, f in columns)}])"
            # Its own HBase table gets the default layout, packed; the shared ones cells, so that each
            # statement's columns are its own (a packed family's slots are the first mapping's).
            + (" LAYOUT CELLS" if shared else ""),
            token=token,
            htable=htable,
            columns=[c for c, _ in columns],
            families=sorted({f for _, f in columns}),
            if_not_exists=if_not_exists,
        )
    elif kind == "drop":
        if_exists = rng.random() < 0.3
        run(kind, name, f"DROP TABLE {'IF EXISTS ' if if_exists else ''}{name}", if_exists=if_exists)
    elif kind == "add_column":
        column, family = f"x_{token}", "g" if rng.random() < 0.2 else "f"
        run(
            kind,
            name,
            f"ALTER TABLE {name} ADD COLUMN {column} STRING MAPPED BY ({column} = {family}.{column})",
            column=column,
        )
    elif kind == "drop_column":
        column = rng.choice(value_columns(name) or ["nope"])
        run(kind, name, f"ALTER TABLE {name} DROP COLUMN {column}", column=column)
    elif kind == "create_index":
        index, column = rng.choice(INDEXES), rng.choice(value_columns(name) or ["nope"])
        # chunkRows is the statement's token: the final catalog tells which CREATE INDEX won.
        run(
            kind,
            name,
            f"CREATE INDEX {index} ON {name} ({column}) OPTIONS (chunkRows = {app * 100000 + seq})",
            index=index,
            column=column,
            chunk_rows=app * 100000 + seq,
        )
    else:
        index, if_exists = rng.choice(INDEXES), rng.random() < 0.3
        run(kind, name, f"DROP INDEX {'IF EXISTS ' if if_exists else ''}{index} ON {name}", index=index)

log.close()
print(f"RESULT app {app} ran {seq} statements", flush=True)
spark.stop()
