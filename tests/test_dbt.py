# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""dbt over HBase tables through the Thrift server: tests/dbt_project, run as a dbt user runs it.

dbt-core and dbt-spark (with PyHive) are pinned here and installed into a venv of their own
(target/dbt-venv), not into the project's .venv: only this test needs them. The project's HBase
tables are its sources (schema `hbase`, the hbase catalog), aggregated into a Spark table and
upserted into an HBase table of its own by an incremental model, and rebuilt whole into another by
a table model (and by --full-refresh), with exactly the model's rows each time; dbt's tests (unique, not_null,
relationships) run on the HBase sources, and `dbt docs generate` reads their columns.
"""

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from conftest import jdbc_session, port_of
from pyspark_hbase.daemons import HOST

REPO = Path(__file__).resolve().parents[1]
DBT_VENV = REPO / "target" / "dbt-venv"
DBT_PACKAGES = ["dbt-core==1.11.16", "dbt-spark[PyHive]==1.11.0"]

CUSTOMERS = [(1, "ada", "NO"), (2, "grace", "US"), (3, "alan", "UK")]
ORDERS = [(1, 1, "open", 10.0, 1), (2, 1, "shipped", 20.0, 1), (3, 2, "open", 5.5, 1), (6, 2, "returned", 1.0, 1)]
# Changed and added before the second run: order 2 returned, order 9 new.
CHANGED_ORDERS = [(2, 1, "returned", 20.0, 2), (9, 3, "open", 7.0, 2)]


@pytest.fixture(scope="module")
def dbt():
    """The dbt command of a venv holding the pinned dbt; made on the first run, reused after."""
    dbt_bin = DBT_VENV / "bin" / "dbt"
    marker = DBT_VENV / "installed.txt"
    if not (dbt_bin.exists() and marker.exists() and marker.read_text() == "\n".join(DBT_PACKAGES)):
        shutil.rmtree(DBT_VENV, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(DBT_VENV)], check=True, timeout=300)
        installed = subprocess.run(
            [str(DBT_VENV / "bin" / "pip"), "install", "--quiet", *DBT_PACKAGES],
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert installed.returncode == 0, installed.stderr[-3000:]
        marker.write_text("\n".join(DBT_PACKAGES))
    return dbt_bin


def values(rows):
    return ", ".join("(" + ", ".join(repr(v) for v in row) + ")" for row in rows)


@pytest.fixture(scope="module")
def project(jdbc_url, tmp_path_factory):
    """A copy of tests/dbt_project with the repository's HBase macros, a profiles.yml for the
    run's Thrift server, and its HBase source tables made and filled; yields (dir, env, port, suffix)."""
    port = port_of(jdbc_url)
    suffix = uuid.uuid4().hex[:8]
    work = tmp_path_factory.mktemp("dbt") / "project"
    shutil.copytree(REPO / "tests" / "dbt_project", work)
    for macro in (REPO / "dbt" / "macros").glob("*.sql"):
        shutil.copy(macro, work / "macros")
    (work / "profiles.yml").write_text(
        "spark_hbase:\n"
        "  target: dev\n"
        "  outputs:\n"
        "    dev:\n"
        "      type: spark\n"
        "      method: thrift\n"
        f"      host: {HOST}\n"
        f"      port: {port}\n"
        "      schema: default\n"
        "      threads: 4\n"
    )
    jdbc_session(
        port,
        f"CREATE TABLE customers_{suffix} (c_id INT, name STRING, nation STRING, PRIMARY KEY (c_id)) "
        f"MAPPED BY (customers_{suffix}, COLS=[name=c.name, nation=c.nation])",
        f"CREATE TABLE orders_{suffix} (o_id INT, c_id INT, status STRING, amount DOUBLE, updated INT, "
        f"PRIMARY KEY (o_id)) MAPPED BY (orders_{suffix}, COLS=[c_id=o.c_id, status=o.status, amount=o.amount, "
        "updated=o.updated]) SPLIT ON ((5))",
        f"INSERT INTO customers_{suffix} VALUES {values(CUSTOMERS)}",
        f"INSERT INTO orders_{suffix} VALUES {values(ORDERS)}",
    )
    env = dict(os.environ, DBT_HBASE_SUFFIX=suffix, DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    yield work, env, port, suffix


def run_dbt(dbt, project, *args):
    work, env, _, _ = project
    return subprocess.run(
        [str(dbt), *args, "--profiles-dir", str(work), "--project-dir", str(work)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def expected_totals(orders):
    totals = []
    for c_id, name, _ in CUSTOMERS:
        mine = [o for o in orders if o[1] == c_id]
        totals.append((c_id, name, len(mine), sum(o[3] for o in mine)))
    return totals


def latest(orders, changes):
    by_key = {o[0]: o for o in orders}
    by_key.update({o[0]: o for o in changes})
    return [by_key[k] for k in sorted(by_key)]


def kept_orders(orders):
    return [(o, c, s) for o, c, s, _, _ in sorted(orders) if s != "returned"]


def test_dbt_run_test_and_docs_over_hbase_tables(dbt, project):
    work, _, port, suffix = project
    first = run_dbt(dbt, project, "run")
    assert first.returncode == 0, first.stdout[-5000:]
    assert "PASS=3 WARN=0 ERROR=0" in first.stdout, first.stdout[-3000:]

    totals = f"default.customer_totals_{suffix}"
    status = f"hbase.order_status_{suffix}"
    kept = f"hbase.orders_kept_{suffix}"
    (got_totals, got_status, described, got_kept) = jdbc_session(
        port,
        f"SELECT c_id, name, orders, total FROM {totals} ORDER BY c_id",
        f"SELECT o_id, c_id, status, amount, updated FROM {status} ORDER BY o_id",
        f"DESCRIBE {status}",
        f"SELECT o_id, c_id, status FROM {kept} ORDER BY o_id",
    )
    assert got_totals == expected_totals(ORDERS)
    assert got_kept == kept_orders(ORDERS)
    assert got_status == [(o, c, s.upper(), a, u) for o, c, s, a, u in ORDERS]
    assert ("o_id", "int", "row key part 1 of 1; NOT NULL") in described, "an HBase table keyed by unique_key"

    # The second run finds the HBase model (listed in schema hbase) and upserts only what changed.
    jdbc_session(port, f"INSERT INTO orders_{suffix} VALUES {values(CHANGED_ORDERS)}")
    second = run_dbt(dbt, project, "run")
    assert second.returncode == 0, second.stdout[-5000:]
    now = latest(ORDERS, CHANGED_ORDERS)
    (got_totals, got_status, got_kept) = jdbc_session(
        port,
        f"SELECT c_id, name, orders, total FROM {totals} ORDER BY c_id",
        f"SELECT o_id, c_id, status, amount, updated FROM {status} ORDER BY o_id",
        f"SELECT o_id, c_id, status FROM {kept} ORDER BY o_id",
    )
    assert got_status == [(o, c, s.upper(), a, u) for o, c, s, a, u in now]
    assert got_totals == expected_totals(now)
    # Order 2, returned since, is gone: the table model's HBase table was made anew.
    assert got_kept == kept_orders(now)
    log = (work / "logs" / "dbt.log").read_text()
    assert f"insert into table {status}" in log, "the second run inserts into the table the first created"
    assert "where updated > (select max(updated)" in log, "is_incremental() held on the second run"
    assert f"drop table if exists {kept} purge" in log, "the table model is dropped with its HBase table"

    # --full-refresh rebuilds the incremental model whole: a source row deleted since is gone too.
    jdbc_session(port, f"DELETE FROM orders_{suffix} WHERE o_id = 6")
    refreshed = run_dbt(dbt, project, "run", "--full-refresh", "--select", "order_status")
    assert refreshed.returncode == 0, refreshed.stdout[-5000:]
    now = [o for o in now if o[0] != 6]
    (got_status,) = jdbc_session(port, f"SELECT o_id, c_id, status, amount, updated FROM {status} ORDER BY o_id")
    assert got_status == [(o, c, s.upper(), a, u) for o, c, s, a, u in now]

    tested = run_dbt(dbt, project, "test")
    assert tested.returncode == 0, tested.stdout[-5000:]
    assert "PASS=12 WARN=0 ERROR=0" in tested.stdout, tested.stdout[-3000:]

    docs = run_dbt(dbt, project, "docs", "generate")
    assert docs.returncode == 0, docs.stdout[-5000:]
    catalog = json.loads((work / "target" / "catalog.json").read_text())
    customers = catalog["sources"]["source.spark_hbase_example.shop.customers"]
    assert customers["metadata"]["schema"] == "hbase" and customers["metadata"]["name"] == f"customers_{suffix}"
    assert {n: c["type"] for n, c in customers["columns"].items()} == {
        "c_id": "integer",
        "name": "string",
        "nation": "string",
    }
    model = catalog["nodes"]["model.spark_hbase_example.order_status"]
    assert model["metadata"]["schema"] == "hbase" and list(model["columns"]) == [
        "o_id",
        "c_id",
        "status",
        "amount",
        "updated",
    ]


def test_dbt_tests_on_hbase_sources_fail_when_the_data_breaks_them(dbt, project):
    _, _, port, suffix = project
    jdbc_session(port, f"INSERT INTO orders_{suffix} VALUES (10, 999, 'open', 1.0, 3)")
    try:
        tested = run_dbt(dbt, project, "test", "--select", "source:shop")
        assert tested.returncode == 1, tested.stdout[-3000:]
        assert "FAIL 1 source_relationships_shop_orders_c_id" in tested.stdout, tested.stdout[-3000:]
        assert "PASS=6 WARN=0 ERROR=1" in tested.stdout
    finally:
        jdbc_session(port, f"DELETE FROM orders_{suffix} WHERE o_id = 10")
