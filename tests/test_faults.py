# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Faults during work, on an HBase of three region servers started for this module alone.

`fault_job.py` runs with spark-submit and breaks that HBase while it works: it kills region server
2 (SIGKILL) and starts it again during queries and during LOAD DATA, then runs region server 3
without the server jar (where an UPDATE of a packed table cannot be merged), and then with an older
version's server jar, as in a rolling upgrade; last, it kills region server 2 and splits and moves
regions while writers change a table with a global index and reads go through it. Every answer must
be exact; a statement may instead fail, with an error that names HBase, and then succeed when run
again.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest
from pyspark_hbase import session as hbase_session
from pyspark_hbase.local import LocalHBase
from spark_submit import SUBMIT, submit_env

REPO = Path(__file__).resolve().parents[1]
QUERIES = ("scan", "skip_scan", "gets", "aggregate")
# An older version's server jar, reading wire version 1 only (tests/server_jars/build makes it).
OLDER_SERVER_JAR = REPO / "tests" / "server_jars" / "spark-hbase-sql-server-wire1-4108602.jar"
# A region server that cannot load a table's coprocessor opens its regions without it, rather
# than aborting or refusing them (HBase's checks of a table's classes only warn): the job's last
# part has one region server without the server jar.
# A region server killed and not started again is found dead when its ZooKeeper session expires:
# after 15 s rather than ZooKeeper's 40 s cap, so that the job does not wait for it that long.
SITE_SETTINGS = {
    "hbase.coprocessor.abortonerror": "false",
    "hbase.table.sanity.checks": "false",
    "zookeeper.session.timeout": "15000",
}


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    if os.environ.get("HBASE_CONF_DIR"):
        pytest.skip("needs the embedded HBase: it kills and restarts region servers of its own")
    local = LocalHBase(tmp_path_factory.mktemp("hbase-faults"), site_settings=SITE_SETTINGS)
    local.start(region_servers=3)
    try:
        work = tmp_path_factory.mktemp("fault-job")
        env = submit_env()
        command = [
            str(SUBMIT),
            "--master",
            "local[2]",
            *hbase_session.submit_args(data_dir=local.data_dir),
            "--conf",
            "spark.sql.shuffle.partitions=4",
            "--conf",
            "spark.ui.enabled=false",
            # Where LOAD DATA writes its HFiles: the job kills a region server when they appear.
            "--conf",
            f"spark.hbase.fs.tmp.dir={local.data_dir / 'staging'}",
            str(REPO / "tests" / "fault_job.py"),
            str(local.data_dir),
            str(work),
            json.dumps(SITE_SETTINGS),
            str(OLDER_SERVER_JAR),
        ]
        done = subprocess.run(
            command, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900
        )
        result = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        assert done.returncode == 0 and result, done.stdout[-8000:]
        seen = json.loads(result[-1][len("RESULT ") :])
        seen["log"] = done.stdout
        print("fault job saw: " + json.dumps({k: v for k, v in seen.items() if k != "log"}))
        yield seen
    finally:
        local.stop()


def _exact_or_failed_naming_hbase(outcome):
    return outcome["result"] == "exact" or (outcome["result"] == "error" and "HBase" in outcome["error"])


def test_the_killed_region_server_held_regions_the_queries_read(job):
    assert job["reads_regions_on_killed_server"] == 2  # of six
    plans = job["reads_plans"]
    assert "skip scan (*, =3)" in plans["skip_scan"]
    assert "12 Gets" in plans["gets"]
    assert "partial aggregate in region servers" in plans["aggregate"]


def test_queries_while_a_region_server_is_killed_and_restarted_are_exact_or_fail_naming_hbase(job):
    fault = job["kill_during_queries"]["fault"]
    rounds = job["kill_during_queries"]["rounds"]
    # The kill landed while the first round ran, and HBase served every region again before the last.
    assert fault["killed_at"] < rounds[0]["scan"]["seconds"], (fault, rounds)
    assert len(rounds) >= 2 and "serving_again_after_kill_s" in fault
    for round_ in rounds:
        for name in QUERIES:
            assert _exact_or_failed_naming_hbase(round_[name]), (name, round_[name])
    assert all(r[name]["result"] == "exact" for r in rounds[-1:] for name in QUERIES), rounds[-1]


def test_a_query_that_failed_during_the_fault_succeeds_when_run_again(job):
    for name, outcome in job["retries"].items():
        assert outcome["result"] == "exact", (name, outcome)


def test_a_query_on_a_region_server_that_stays_down_is_exact_or_fails_naming_hbase_then_succeeds(job):
    # With two client retries the query mostly fails, at planning (our catalog or a region location
    # on the dead server) or in a task; scans retry longer and may outlast the time HBase takes to
    # notice the dead server and reassign its regions, and then they are exact.
    for name, outcome in job["gave_up"].items():
        assert outcome["result"] in ("exact", "error"), (name, outcome)
        if outcome["result"] == "error":
            assert (
                "HBase table f_reads: reading region" in outcome["error"]
                and "run the statement again" in outcome["error"]
                or "HBase could not be reached at ZooKeeper" in outcome["error"]
                and (
                    "a region server does not answer" in outcome["error"]
                    or "(a region server or the master) does not answer" in outcome["error"]
                )
            ), outcome["error"]
    assert all(o["result"] == "exact" for o in job["gave_up_then_again"].values()), job["gave_up_then_again"]


def test_load_data_while_a_region_server_is_killed_loads_regions_whole_and_again_exactly(job):
    assert job["load_untroubled_exact"]
    load = job["load_during_kill"]
    # The kill landed while the statement ran.
    assert load["fault"]["killed_at"] < load["first"]["seconds"] and "serving_again_after_kill_s" in load["fault"], load
    assert _exact_or_failed_naming_hbase(load["first"]), load["first"]
    assert load["regions_whole_or_empty"], load
    if load["first"]["result"] == "exact":
        assert load["exact_after_first"], load
    assert load["again"]["result"] == "exact" and load["exact_after_again"], load


def test_a_region_server_without_the_server_jar_reads_its_regions_without_the_filter(job):
    assert job["servers"] == [
        {"number": 1, "up": True, "server_jar": True},
        {"number": 2, "up": True, "server_jar": True},
        {"number": 3, "up": True, "server_jar": False},
    ]
    assert job["mixed_regions_by_server"] == [False, False, True, False, False, False]
    # No region moved while the queries ran (the balancer is off), so the counts below are exact.
    assert job["mixed_regions_by_server_after"] == job["mixed_regions_by_server"]
    mixed = job["mixed"]
    for name in QUERIES:
        assert mixed[name]["result"] == "exact", (name, mixed[name])
    assert "skip scan (*, =3)" in mixed["skip_scan_explain"]
    # Five regions filtered in their region servers (1,000 rows each with j = 3); the one on the
    # server without the jar returns its 5,000 rows for Spark to filter.
    assert mixed["skip_scan_metrics"]["rowsRead"] == 5 * 1000 + 5000, mixed["skip_scan_metrics"]
    # An aggregate: five regions send their partial groups, the one without the jar its rows.
    pushed = mixed["pushed_aggregate"]
    assert pushed["exact"] and "partial aggregate in region servers" in pushed["explain"], pushed
    assert 5000 <= pushed["metrics"]["rowsRead"] <= 5000 + 5 * 7, pushed["metrics"]


def test_a_region_moved_to_a_server_without_the_jar_in_the_middle_of_a_read_is_read_on_exactly(job):
    moved = job["moved_mid_read"]
    assert moved["exact"] and moved["now_on_server_without_jar"], moved
    # Some rows came through the filter before the move and the rest unfiltered after it, each once.
    assert 1000 < moved["metrics"]["rowsRead"] < 5000, moved


def test_a_first_region_on_a_server_without_the_server_jar_leaves_the_filter_to_the_other_servers_regions(job):
    first = job["first_region_without_jar"]
    assert first["regions_by_server"] == [True, False, False, False, False, False], first
    assert first["regions_by_server_after"] == first["regions_by_server"], first
    assert first["skip_scan_exact"], first
    # The plan knows the first region's server refused the filter: that region returns its 5,000
    # rows for Spark to filter, and the five others are filtered in their region servers.
    assert "skip scan (*, =3)" in first["skip_scan_explain"], first
    assert "1 region read without the server jar" in first["skip_scan_explain"], first
    assert first["skip_scan_metrics"]["rowsRead"] == 5 * 1000 + 5000, first["skip_scan_metrics"]


def test_a_first_region_on_a_server_without_the_server_jar_leaves_the_aggregate_to_the_other_servers_regions(job):
    # The aggregation coprocessor, likewise, is asked of a server that has the jar (asked through the
    # table's first row, it once kept every aggregate of the table in Spark): the aggregate runs in
    # the region servers but for the first region, which Spark aggregates.
    first = job["first_region_without_jar"]
    assert first["aggregate_exact"], first
    assert "partial aggregate in region servers" in first["aggregate_explain"], first
    assert "1 region read without the server jar" in first["aggregate_explain"], first


def test_an_update_of_a_packed_table_merges_where_the_server_jar_is_and_falls_back_where_it_is_not(job):
    update = job["packed_update_without_jar"]
    assert update["regions_by_server"] == [False, False, True, False, False, False], update
    assert update["updated"] == 300 and update["exact"], update
    # The 250 rows outside region 2 are merged in their region servers, but for any a task sends
    # after a batch with a refusal (its later batches go through Spark); region 2's 50 rows, on the
    # server without the merge, are read, merged and written by Spark.
    assert 100 <= update["merged"] <= 250, update


def test_a_rolling_upgrade_of_the_server_jar_while_queries_run_gives_every_answer_exactly(job):
    upgrade = job["rolling_upgrade"]
    phases = {q["phase"] for q in upgrade["queries"]}
    assert {"region server 3 on the older jar", "this build's jar everywhere again"} <= phases, phases
    wrong = [q for q in upgrade["queries"] if q["result"] != "exact"]
    assert not wrong, wrong
    older = upgrade["older"]
    assert older["server_jar_of_3"] == OLDER_SERVER_JAR.name
    assert older["regions_on_3"] == [False, False, True, False, False, True], older
    assert older["skip_scan_exact"] and older["aggregate_exact"], older
    assert "partial aggregate in region servers" in older["aggregate_explain"], older
    # Four regions are filtered by this build's jar (1,000 rows each with j = 3). The two on the
    # older one are filtered there in wire version 1 (1,000 rows each) or, refused, read whole.
    assert 6 * 1000 <= older["skip_scan_metrics"]["rowsRead"] <= 4 * 1000 + 2 * 5000, older["skip_scan_metrics"]


def test_reads_through_a_global_index_while_writers_move_rows_and_a_region_server_dies_count_each_row_once(job):
    indexed = job["indexed"]
    assert "covering global index by_v" in job["indexed_plan"], job["indexed_plan"]
    # The kill landed while reads and writes ran, and HBase served every region again.
    assert "killed_at" in indexed["fault"] and "serving_again_after_kill_s" in indexed["fault"], indexed["fault"]
    writes = indexed["writes"]
    assert writes["update"] > 0 and writes["client"] > 0, writes
    # A write the fault caught fails, naming HBase or the index table it could not write.
    for error in writes["update_errors"] + writes["client_errors"]:
        assert "HBase" in error or "index" in error or "RegionServer" in error, error
    for round_ in indexed["rounds"]:
        for name, outcome in round_.items():
            assert _exact_or_failed_naming_hbase(outcome), (name, outcome)
    # The last rounds ran after the split and the moves, writes still going on.
    assert all(o["result"] == "exact" for r in indexed["rounds"][-2:] for o in r.values()), indexed["rounds"][-2:]
    assert indexed["index_regions"] > 2, indexed
    assert all(o["result"] == "exact" for o in indexed["after"].values()), indexed["after"]


def test_check_index_after_the_faults_finds_no_row_a_reader_would_trust_wrongly_and_repair_leaves_it_exact(job):
    indexed = job["indexed"]
    checked = indexed["checked"]
    # A write cut off by the kill leaves its rows UNVERIFIED, which readers check; nothing else.
    assert checked["dataRows"] == 3000 and checked["missing"] == checked["stale"] == checked["extra"] == 0, checked
    after = indexed["checked_after_repair"]
    assert after["missing"] == after["stale"] == after["extra"] == after["unverified"] == 0, (
        indexed["repaired"],
        after,
    )
