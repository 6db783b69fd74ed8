# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Beyond one JVM: HBase with three region servers, Spark with executors in JVMs of their own.

This module starts its own embedded HBase with `region_servers=3` (regions spread over three
region servers, each on its own port) and submits `cluster_job.py` with spark-submit to a
`local-cluster[2,1,1024]` master: two executors, each a JVM of its own that gets the plugin only
through --jars. The expected answers are computed here, from how the job makes its rows.
"""

import csv
import json
import os
import random
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from pyspark_hbase import session as hbase_session
from pyspark_hbase.local import LocalHBase
from pyspark_hbase_testing.jvm import SHORT_LIVED_JVM_FLAGS
from spark_submit import SUBMIT, submit_env

REPO = Path(__file__).resolve().parents[1]
REGION_SERVERS = 3


@pytest.fixture(scope="module")
def cluster_hbase(tmp_path_factory):
    if os.environ.get("HBASE_CONF_DIR"):
        pytest.skip("needs the embedded HBase: it starts one with three region servers")
    local = LocalHBase(tmp_path_factory.mktemp("hbase-3rs"))
    local.start(region_servers=REGION_SERVERS)
    try:
        yield local
    finally:
        local.stop()


def test_the_launcher_runs_three_region_servers_on_ports_of_their_own(cluster_hbase):
    servers = cluster_hbase.region_servers()
    assert [s["number"] for s in servers] == [1, 2, 3]
    assert all(s["up"] for s in servers), servers
    ports = [s["port"] for s in servers]
    assert len(set(ports)) == 3 and not set(ports) & {cluster_hbase.ports["zookeeper"], cluster_hbase.ports["master"]}
    assert servers[0]["pid"] == cluster_hbase.pid and len({s["pid"] for s in servers}) == 3
    done = subprocess.run(
        [sys.executable, "-m", "pyspark_hbase", "local", "status", "--data-dir", str(cluster_hbase.data_dir)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and done.stdout == f"{cluster_hbase.zk_address}\n", done.stderr
    for s in servers:
        assert f"region server {s['number']}: 127.0.0.1:{s['port']} up (pid {s['pid']})" in done.stderr


def _write_csv(path: Path, ids):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        for i in ids:
            writer.writerow([i, f"name{i:04d}", i / 4])
    return path


@pytest.fixture(scope="module")
def job(cluster_hbase, tmp_path_factory):
    """Runs cluster_job.py once on local-cluster; returns what it saw and its executors' logs."""
    work = tmp_path_factory.mktemp("cluster-job")
    in_order = _write_csv(work / "in-order.csv", range(500))
    shuffled = list(range(500, 1000))
    random.Random(7).shuffle(shuffled)
    out_of_order = _write_csv(work / "shuffled.csv", shuffled)
    prefix = f"c_{uuid.uuid4().hex[:8]}"
    env = submit_env()
    command = [
        str(SUBMIT),
        "--master",
        "local-cluster[2,1,1024]",
        *hbase_session.submit_args(data_dir=cluster_hbase.data_dir),
        "--conf",
        "spark.sql.shuffle.partitions=4",
        # The executors are JVMs that Spark starts itself, without SPARK_SUBMIT_OPTS: the run's flags for short JVMs.
        "--conf",
        f"spark.executor.extraJavaOptions={SHORT_LIVED_JVM_FLAGS}",
        "--conf",
        "spark.ui.showConsoleProgress=false",
        # One connection per executor for the whole job: none is closed for being idle.
        "--conf",
        "spark.sql.hbase.connection.idleTimeoutMs=600000",
        str(REPO / "tests" / "cluster_job.py"),
        prefix,
        str(in_order),
        str(out_of_order),
    ]
    done = subprocess.run(
        command, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-5000:]
    result = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert result, done.stdout[-5000:]
    seen = json.loads(result[-1][len("RESULT ") :])
    # A local-cluster worker keeps each executor's log under SPARK_HOME/work/<application>/<executor>.
    import pyspark

    logs = Path(pyspark.__file__).parent / "work" / seen["application"]
    try:
        seen["connections_opened"] = {
            d.name: (d / "stderr").read_text(errors="replace").count("Opening HBase connection to")
            for d in sorted(logs.iterdir())
            if d.is_dir()
        }
    finally:
        shutil.rmtree(logs, ignore_errors=True)
    return seen


def test_key_ranges_and_skip_scans_on_executors(job):
    ids = [i for i in range(6000) if 150 <= i % 600 <= 349]
    assert job["key_range"] == [[len(ids), sum(ids)]]
    metrics = job["key_range_metrics"]
    assert (metrics["regionsScanned"], metrics["rowsScanned"]) == (3, len(ids))
    assert job["skip_scan"] == [[k, "s3", 3 * 600 + k] for k in (5, 250, 555)]
    assert job["skip_scan_metrics"]["rowsRead"] == 3


def test_aggregates_are_computed_in_the_region_servers(job):
    expected = []
    for g in range(10):
        ids = range(g * 600, (g + 1) * 600)
        expected.append([f"s{g}", len(ids), sum(ids), min(ids) / 8.0, 599])
    assert job["aggregate"] == expected
    assert "partial aggregate in region servers" in job["aggregate_explain"]
    metrics = job["aggregate_metrics"]
    assert metrics["rowsScanned"] == 6000
    assert metrics["rowsRead"] <= 10 * metrics["regionsScanned"]


LOADED = [1000, sum(range(1000)), pytest.approx(sum(i / 4 for i in range(1000))), "name0999"]


def test_load_data_and_load_data_parallel_from_executors(job):
    assert job["load"] == [[500, 0]]
    assert job["load_parallel"] == [[500, 0]]
    assert job["loaded"] == [LOADED]


def test_dataframe_reader_and_writer_from_executors(job):
    assert job["written"] == [LOADED]


def test_each_partition_prefers_its_region_server_and_tasks_ran_there(job):
    assert job["preferred_locations"] == ["127.0.0.1"] * 6
    assert job["task_executors"] == ["0", "1"]
    assert "NODE_LOCAL" in job["task_localities"] or "PROCESS_LOCAL" in job["task_localities"], job["task_localities"]


def test_each_executor_opens_one_hbase_connection_for_the_whole_job(job):
    assert job["connections_opened"] == {"0": 1, "1": 1}


def test_a_stream_through_a_region_split_a_region_server_restart_and_driver_kills_writes_each_row_once(
    spark, cluster_hbase, table_name, tmp_path
):
    """The streaming sink's guarantee with regions moving under it: while the stream runs, the table's
    regions split, region server 2 is killed and started again, and the driver is killed mid-batch
    and restarted; the table ends with exactly the rows computed from the input files."""
    from conftest import session_on
    from pyspark_hbase_testing.region_servers import kill_region_server
    from sink_stream_runs import expected_rows, in_flight, kill_mid_batch, run_to_the_end, start_job, write_input

    rng = random.Random()
    input_dir, held, checkpoint = tmp_path / "input", tmp_path / "held", tmp_path / "checkpoint"
    # The stream gets its first files at once, more after the split and the rest after the region
    # server's restart, so that batches come after each however long it takes (renames keep the files'
    # times, which order them).
    write_input(held, files=14, rows_per_file=6000, seed=rng.randrange(1 << 30))
    input_dir.mkdir()
    files = sorted(held.glob("part-*.json"))
    for path in files[:4]:
        path.rename(input_dir / path.name)
    with session_on(spark, cluster_hbase) as session:
        session.sql(
            f"CREATE TABLE {table_name} (id INT, val INT, label STRING, PRIMARY KEY (id)) "
            f"MAPPED BY ({table_name}, COLS=[val=f.val, label=f.label]) SPLIT ON ((10000))"
        )
        job, log = start_job(cluster_hbase, input_dir, checkpoint, table_name, "format", tmp_path, split=True)
        deadline = time.monotonic() + 180
        while "SPLIT" not in log.read_text():
            assert job.poll() is None, log.read_text()[-6000:]
            assert time.monotonic() < deadline, "the table did not split: " + log.read_text()[-6000:]
            time.sleep(0.05)
        for path in files[4:9]:
            path.rename(input_dir / path.name)
        # Region server 2 dies while a batch after the split is in flight, and comes back.
        while not in_flight(checkpoint):
            assert job.poll() is None, log.read_text()[-6000:]
            assert time.monotonic() < deadline, "no batch after the split: " + log.read_text()[-6000:]
            time.sleep(0.05)
        kill_region_server(cluster_hbase, 2)
        cluster_hbase.start(region_servers=REGION_SERVERS)
        split = next(line for line in log.read_text().splitlines() if line.startswith("SPLIT "))
        assert int(split.split()[-1]) > int(split.split()[1]), split
        for path in files[9:]:
            path.rename(input_dir / path.name)
        # Early in a batch, at a random point: the batches left are short, so on a loaded machine a
        # batch may commit before the kill lands. Then the stream starts again and is killed again;
        # whether it lands or not, the rows must come out exact.
        for _ in range(3):
            landed = kill_mid_batch(job, checkpoint, rng, most_seconds=0.1)
            job, log = start_job(cluster_hbase, input_dir, checkpoint, table_name, "toTable", tmp_path)
            if landed:
                break
        run_to_the_end(job, log)
        assert landed, "the driver's kill did not land while a batch was in flight"
        got = {r.id: (r.val, r.label) for r in session.sql(f"SELECT id, val, label FROM {table_name}").collect()}
    assert got == expected_rows(input_dir)
    assert len(list(input_dir.glob("part-*.json"))) == len(files)
