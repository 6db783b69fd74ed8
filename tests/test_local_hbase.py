# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Tests of `spark-hbase local` against a real embedded HBase (no mocks).

Needs Java 17 and `./build/sbt hbaseLocal/writeClasspath` (the classpath file, plus our helper
classes in the hbase-local jar); without them the tests fail and say so. This module starts
its own HBase in a temp dir (fixture `launcher_hbase`), separate from conftest's `hbase`.
"""

import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
try:
    import pyspark_hbase  # noqa: F401
except ImportError:  # not pip-installed: use the checkout
    sys.path.insert(0, str(REPO / "python"))

from pyspark_hbase import _paths, hbase_jars  # noqa: E402
from pyspark_hbase.local import JAVA17_FLAGS, LocalHBase, LocalHBaseError  # noqa: E402

CLASSPATH_FILE = REPO / "hbase-local" / "target" / "hbase-local.classpath"

CELL_TOOL = "org.apache.spark.sql.hbase.local.CellTool"


def _classpath():
    """Entries of the classpath file; fails with the sbt command to run if it is missing."""
    return hbase_jars.read_classpath(CLASSPATH_FILE)


def _jvms_for(data_dir: Path):
    """Pids of live JVMs launched for `data_dir` (our marker is on their command line)."""
    marker = f"-Dspark.hbase.local.dir={data_dir}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().split(b"\0"):
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


def _cli(*args, timeout=300):
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "python"), os.environ.get("PYTHONPATH")]))
    )
    return subprocess.run(
        [sys.executable, "-m", "pyspark_hbase", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# ---- failures, no running HBase needed -------------------------------------------------------


def test_missing_classpath_names_the_build_command(tmp_path):
    hbase = LocalHBase(tmp_path / "data", classpath_file=tmp_path / "nope.classpath")
    with pytest.raises(LocalHBaseError, match=r"\./build/sbt hbaseLocal/writeClasspath"):
        hbase.start(timeout=10)
    assert hbase.pid is None


def test_broken_classpath_reports_the_log(tmp_path):
    # A classpath that has our classes but lacks HBase: the JVM dies at once.
    entries = _classpath()
    keep = [e for e in entries if "log4j-api" in e or "spark-hbase-sql-hbase-local" in e]
    broken = tmp_path / "broken.classpath"
    broken.write_text(os.pathsep.join(keep))
    hbase = LocalHBase(tmp_path / "data", classpath_file=broken)
    with pytest.raises(LocalHBaseError) as err:
        hbase.start(timeout=60)
    msg = str(err.value)
    assert "exited with code" in msg
    assert str(hbase.log_file) in msg
    assert "HMaster" in msg  # the JVM's "Could not find or load main class" is in the log tail
    assert hbase.pid is None and not hbase.pid_file.exists()


def test_missing_probe_class_names_the_build_command(tmp_path):
    # The classpath without the hbase-local jar: no readiness probe, so HBase isn't started.
    without_ours = tmp_path / "without-ours.classpath"
    without_ours.write_text(os.pathsep.join(e for e in _classpath() if "spark-hbase-sql-hbase-local" not in e))
    data = tmp_path / "data"
    hbase = LocalHBase(data, classpath_file=without_ours)
    with pytest.raises(
        LocalHBaseError,
        match=r"LocalHBaseProbe not found.*"
        r"\./build/sbt hbaseLocal/writeClasspath",
    ):
        hbase.start(timeout=10)
    assert _jvms_for(data) == [] and hbase.pid is None


def test_start_timeout_kills_the_jvm(tmp_path):
    data = tmp_path / "data"
    hbase = LocalHBase(data, classpath_file=CLASSPATH_FILE)
    with pytest.raises(LocalHBaseError) as err:
        hbase.start(timeout=2)
    msg = str(err.value)
    assert "did not become ready within 2 s" in msg
    assert f"log file: {hbase.log_file}" in msg and "last 20 log lines" in msg
    assert _jvms_for(data) == []
    assert hbase.pid is None and not hbase.is_running()


def test_cli_status_when_never_started(tmp_path):
    done = _cli("local", "status", "--data-dir", str(tmp_path))
    assert done.returncode == 1
    assert done.stdout == "" and "not running" in done.stderr


def test_cli_start_says_what_it_waits_for_and_the_api_stays_quiet(tmp_path, capfd):
    data = tmp_path / "data"
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "python"), os.environ.get("PYTHONPATH")]))
    )
    hbase = LocalHBase(data, classpath_file=CLASSPATH_FILE)
    try:
        # One stream, so that the order of progress (stderr) and outcome (stdout) shows.
        done = subprocess.run(
            [sys.executable, "-m", "pyspark_hbase", "local", "start", "--data-dir", str(data)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout
        lines = done.stdout.splitlines()
        ready = next((i for i, line in enumerate(lines) if line.startswith("HBase started in")), None)
        assert ready is not None, lines
        waiting = lines[:ready]
        assert waiting and all(line.startswith("waiting for ") and line.endswith(" s)") for line in waiting), lines
        assert waiting[0].startswith(f"waiting for ZooKeeper on 127.0.0.1:{hbase.zk_port} ("), lines
        reasons = [line.rsplit(" (", 1)[0] for line in waiting]
        assert all(a != b for a, b in zip(reasons, reasons[1:])), f"a reason told twice in a row: {lines}"
        # The probe said each reason once, as it changed, and what it waited for ended. It starts
        # once ZooKeeper answers; on a loaded machine HBase may be ready before its JVM is, and
        # then READY is all it has to say.
        probe = (data / "logs" / "probe.out").read_text().splitlines()
        assert probe[-1] == "READY", probe
        assert all(line.startswith("WAITING for ") for line in probe[:-1]), probe
        assert all(a != b for a, b in zip(probe, probe[1:])), probe

        hbase.stop()
        capfd.readouterr()
        hbase.start(timeout=180)
        assert capfd.readouterr() == ("", ""), "LocalHBase.start printed without a progress callback"
    finally:
        hbase.stop()
    assert _jvms_for(data) == []


# ---- one real HBase for the rest of the module -----------------------------------------------


@pytest.fixture(scope="module")
def launcher_hbase(tmp_path_factory):
    """An HBase of this module's own (the tests stop and restart it), not conftest's `hbase`."""
    data = tmp_path_factory.mktemp("hbase-local")
    h = LocalHBase(data, classpath_file=CLASSPATH_FILE)
    t0 = time.monotonic()
    h.start(timeout=180)
    print(f"\nembedded HBase ready in {time.monotonic() - t0:.1f} s")
    yield h
    h.stop()
    assert _jvms_for(data) == [], "HBase JVM left running"


@pytest.fixture(scope="module")
def cell_tool(launcher_hbase):
    """Runs CellTool (hbase-local) against `launcher_hbase`: plain HBase client, no Spark."""
    java = _paths.java_executable()
    classpath = _classpath()
    hbase_jars.require_class(classpath, CELL_TOOL, CLASSPATH_FILE)

    def run(*args):
        cp = os.pathsep.join([str(launcher_hbase.conf_dir), *classpath])
        done = subprocess.run(
            [java, *JAVA17_FLAGS, "-Dspark.hbase.log.console=OFF", "-cp", cp, CELL_TOOL, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, done.stdout[-3000:]
        return done.stdout.strip().splitlines()[-1]

    return run


def test_status(launcher_hbase):
    state = launcher_hbase.status()
    assert state is not None and state["pid"] == launcher_hbase.pid
    assert launcher_hbase.is_running()
    assert set(state["ports"]) == {"zookeeper", "master", "regionserver"}
    assert state["zk_port"] == launcher_hbase.zk_port == state["ports"]["zookeeper"]
    assert state["startup_seconds"] > 0 and state["started_at"]
    done = _cli("local", "status", "--data-dir", str(launcher_hbase.data_dir))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"127.0.0.1:{launcher_hbase.zk_port}\n"


def test_double_start_is_a_no_op(launcher_hbase):
    pid = launcher_hbase.pid
    t0 = time.monotonic()
    again = LocalHBase(launcher_hbase.data_dir, classpath_file=CLASSPATH_FILE)
    assert again.start(timeout=30) == pid
    assert time.monotonic() - t0 < 5
    done = _cli("local", "start", "--data-dir", str(launcher_hbase.data_dir))
    assert done.returncode == 0, done.stderr
    assert f"already running (pid {pid})" in done.stdout
    assert _jvms_for(launcher_hbase.data_dir) == [pid]


def test_generated_conf_and_client_settings(launcher_hbase):
    site = {
        p.findtext("name"): p.findtext("value")
        for p in ET.parse(launcher_hbase.conf_dir / "hbase-site.xml").getroot().iter("property")
    }
    assert site["hbase.zookeeper.quorum"] == "127.0.0.1"
    assert site["hbase.zookeeper.property.clientPort"] == str(launcher_hbase.zk_port)
    assert site["hbase.cluster.distributed"] == "false"
    assert site["hbase.rootdir"] == f"file://{launcher_hbase.data_dir}/hbase"
    assert site["hbase.unsafe.stream.capability.enforce"] == "false"
    assert (launcher_hbase.conf_dir / "log4j2.properties").is_file()
    # Not secured: no Hadoop security settings for the clients (test_kerberos.py starts a secured one).
    assert launcher_hbase.additions is None and not (launcher_hbase.conf_dir / "core-site.xml").exists()
    assert "hbase.security.authentication" not in site
    assert launcher_hbase.zk_quorum == "127.0.0.1"
    assert site["hbase.hregion.memstore.mslab.enabled"] == "false"
    assert site["hfile.block.cache.size"] == "0.25" and site["hbase.regionserver.global.memstore.size"] == "0.25"
    assert launcher_hbase.client_conf() == {
        "hbase.zookeeper.quorum": "127.0.0.1",
        "hbase.zookeeper.property.clientPort": str(launcher_hbase.zk_port),
        "hbase.rpc.timeout": "30000",
        "hbase.client.scanner.timeout.period": "30000",
    }


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"heap": "lots"}, "heap 'lots': give it in megabytes or gigabytes, as 1024m or 2g"),
        ({"block_cache": 0}, "block cache share 0: a share of the heap is above 0 and below 0.8"),
        ({"memstore": 0.9}, "memstore share 0.9: a share of the heap is above 0 and below 0.8"),
        (
            {"block_cache": 0.5, "memstore": 0.4},
            "block cache 0.5 + memstore 0.4 = 0.9: HBase refuses to start when the two take more than 0.8",
        ),
    ],
)
def test_memory_settings_out_of_range_are_refused_before_anything_starts(tmp_path, settings, message):
    with pytest.raises(LocalHBaseError, match=re.escape(message)):
        LocalHBase(tmp_path, **settings)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux /proc")
def test_listens_only_on_loopback(launcher_hbase):
    inodes = set()
    for fd in Path(f"/proc/{launcher_hbase.pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    listening = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not Path(table).exists():
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            cols = line.split()
            if cols[3] == "0A" and cols[9] in inodes:  # 0A = LISTEN
                addr, port = cols[1].split(":")
                listening.append((addr, int(port, 16)))
    assert sorted(p for _, p in listening) == sorted(launcher_hbase.ports.values())
    assert all(addr == "0100007F" for addr, _ in listening), listening  # 127.0.0.1


def test_data_survives_stop_and_start(launcher_hbase, cell_tool):
    ports = launcher_hbase.ports
    assert cell_tool("put", "persist_test", "row1", "hello") == "OK"
    assert cell_tool("get", "persist_test", "row1") == "hello"

    done = _cli("local", "stop", "--data-dir", str(launcher_hbase.data_dir))
    assert done.returncode == 0 and "stopped" in done.stdout, done.stderr
    assert _jvms_for(launcher_hbase.data_dir) == []
    assert not launcher_hbase.pid_file.exists()
    done = _cli("local", "status", "--data-dir", str(launcher_hbase.data_dir))
    assert done.returncode == 1 and "not running" in done.stderr

    t0 = time.monotonic()
    launcher_hbase.start(timeout=180)
    print(f"\nrestart ready in {time.monotonic() - t0:.1f} s")
    assert launcher_hbase.ports == ports  # free again, so reused
    assert cell_tool("get", "persist_test", "row1") == "hello"
    assert cell_tool("get", "persist_test", "row2") == "MISSING"
