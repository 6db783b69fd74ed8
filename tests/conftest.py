# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Shared fixtures: one real HBase and one Spark session for the whole pytest run.

The embedded HBase starts once per run in a temporary data dir and stops at the end. With
HBASE_CONF_DIR set, the tests use that HBase instead and start nothing.

A run stops every process it starts, pass or fail: each module's own fixtures stop theirs, which
`no_process_outlives_its_module` checks (a module that leaves one fails at its last teardown);
at the end of the run, whatever still names the run's temporary dir on its command line is ended
and fails the run; and SIGTERM or SIGHUP (a CI timeout, a closed terminal) tear the fixtures down
as Ctrl-C does.
"""

import atexit
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest
from pyspark_hbase import _paths
from pyspark_hbase.local import LocalHBase
from pyspark_hbase_testing import processes
from pyspark_hbase_testing.jvm import SHORT_LIVED_JVM_FLAGS, sharing, write_class_archives

SPARK_HBASE = str(Path(sys.executable).parent / "spark-hbase")

# C1 alone and the serial collector for the run's many short-lived JVMs, and class archives
# (pyspark_hbase_testing.jvm); flags given by whoever runs the tests win.
_OUR_FLAGS = {v for v in ("SPARK_SUBMIT_OPTS", "SPARK_BEELINE_OPTS", "HBASE_OPTS") if v not in os.environ}
for _variable in _OUR_FLAGS:
    os.environ[_variable] = SHORT_LIVED_JVM_FLAGS


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """From here on, Spark's JVMs map one archive of their classes and HBase's another.

    They are kept in the checkout's target/ for the next run, and made when the jars change. Not
    with an external HBase (HBASE_CONF_DIR), nor for flags whoever runs the tests set."""
    root = _paths.repo_root()
    if os.environ.get("HBASE_CONF_DIR") or not _OUR_FLAGS or root is None:
        return
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="class-archives-") as scratch:
        try:
            archives = write_class_archives(root / "target" / "class-archives", SPARK_HBASE, Path(scratch))
        except _paths.PathsError:
            return  # nothing built yet: the tests that need it say what to build
    for name, variable, archive in (
        ("Spark", "SPARK_SUBMIT_OPTS", archives.spark),
        ("HBase", "HBASE_OPTS", archives.hbase),
    ):
        if variable not in _OUR_FLAGS:
            continue
        if archive is None:
            _FIGURES.append((f"{name} class archive", "none: it could not be written; its JVMs load classes as usual"))
            continue
        os.environ[variable] = f"{SHORT_LIVED_JVM_FLAGS} {sharing(archive)}"
        how = f"written in {time.monotonic() - started:.0f} s" if name.lower() in archives.written else "reused"
        _FIGURES.append((f"{name} class archive", f"{how}: {archive}"))


@pytest.fixture(scope="session")
def hbase(tmp_path_factory):
    """The LocalHBase the run uses, or None for an external HBase named by HBASE_CONF_DIR."""
    if os.environ.get("HBASE_CONF_DIR"):
        yield None
        return
    local = LocalHBase(tmp_path_factory.mktemp("hbase"))
    # Its HBase and its Thrift server (`jdbc_url`) serve every module: they outlive each one.
    _SESSION_OWNERS.update({local.data_dir, local.data_dir / "thriftserver"})
    try:
        local.start()
        yield local
    finally:
        local.stop()


@pytest.fixture(scope="session")
def spark(hbase):
    from pyspark.sql import SparkSession
    from pyspark_hbase import enable_hbase

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("pyspark-hbase tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
    )
    session = enable_hbase(builder, data_dir=hbase.data_dir if hbase else None).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def data_dir_args(hbase):
    return ["--data-dir", str(hbase.data_dir)] if hbase else []


@pytest.fixture(scope="session")
def jdbc_url(hbase):
    """The JDBC URL of the run's Thrift server, started once as a user starts it, stopped at the end."""
    started = subprocess.run(
        [SPARK_HBASE, "thriftserver", "start", *data_dir_args(hbase)], capture_output=True, text=True, timeout=600
    )
    assert started.returncode == 0, started.stderr
    try:
        yield started.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run([SPARK_HBASE, "thriftserver", "stop", *data_dir_args(hbase)], timeout=120)


def port_of(jdbc_url: str) -> int:
    return int(jdbc_url.rsplit(":", 1)[1].split("/", 1)[0])


def jdbc_session(port: int, *statements: str) -> list:
    """Runs the statements through PyHive in one JDBC session of their own, closed at the end; the rows of each."""
    from pyhive import hive
    from pyspark_hbase.daemons import HOST

    connection = hive.connect(host=HOST, port=port)
    try:
        cursor = connection.cursor()
        results = []
        for statement in statements:
            cursor.execute(statement)
            results.append(cursor.fetchall() if cursor.description else [])
        return results
    finally:
        connection.close()


def jdbc_rows(connection, statement: str) -> list:
    """One statement on an open PyHive connection; its rows as lists (none for a statement without)."""
    cursor = connection.cursor()
    cursor.execute(statement)
    return [list(row) for row in cursor.fetchall()] if cursor.description else []


def jdbc_refused(connection, statement: str) -> str:
    """The server's error for a statement that must fail."""
    from pyhive.exc import OperationalError

    with pytest.raises(OperationalError) as refused:
        jdbc_rows(connection, statement)
    return str(refused.value)


@contextmanager
def session_on(spark, local_hbase):
    """The run's Spark session, pointed at another embedded HBase for a while, then back."""
    from pyspark_hbase.session import hbase_settings

    settings = hbase_settings(data_dir=local_hbase.data_dir)
    saved = {key: spark.conf.get(key, None) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        yield spark
    finally:
        for key, value in saved.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


_FIGURES = []


@pytest.fixture(scope="session")
def figure():
    """Records a figure worth reporting (a size, a time), which the end of the run prints."""
    return lambda name, value: _FIGURES.append((name, value))


def pytest_collection_modifyitems(items):
    """The modules that took longest in the last timed run first, then the rest: each of
    ./bin/test's workers takes the next module when it is done with one, so a long module taken
    last would end the run alone. The times are benchmarks/results/test_time.json's (none: as
    collected); a module it does not name counts as long."""
    recorded = _paths.repo_root() and _paths.repo_root() / "benchmarks" / "results" / "test_time.json"
    if not recorded or not recorded.is_file():
        return
    seconds = {
        item["item"]: item["wallSeconds"]
        for item in json.loads(recorded.read_text())["items"]
        if item["side"] == "python"
    }
    position = {}
    for index, item in enumerate(items):
        position.setdefault(item.path, index)
    # Stable: a module's tests keep their order, and modules of equal time theirs.
    items.sort(key=lambda item: (-seconds.get(f"tests/{item.path.name}", math.inf), position[item.path]))


def pytest_terminal_summary(terminalreporter):
    if _FIGURES:
        terminalreporter.section("figures measured")
        for name, value in _FIGURES:
            terminalreporter.write_line(f"{name}: {value}")
    if _LEFT_AT_THE_END:
        terminalreporter.section("processes left running at the end of the run (ended now)", red=True)
        for leftover in _LEFT_AT_THE_END:
            terminalreporter.write_line(str(leftover))


# The run's temporary dir, once a module has run; the dirs of the session fixtures' processes.
_RUN_ROOT: list[Path] = []
_SESSION_OWNERS: set[Path] = set()
_LEFT_AT_THE_END: list[str] = []


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


def pytest_configure(config):
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)


@pytest.fixture(scope="module", autouse=True)
def no_process_outlives_its_module(request, tmp_path_factory):
    """Fails the module (at its last teardown) if a process it started still runs, after ending it."""
    root = tmp_path_factory.getbasetemp()
    if not _RUN_ROOT:
        _RUN_ROOT.append(root)
        atexit.register(_end_leftovers)
    before = {p.pid for p in processes.leftovers(root)}
    yield
    left = [p for p in processes.leftovers(root) if p.pid not in before and p.owner not in _SESSION_OWNERS]
    if left:
        processes.end(left)
        pytest.fail(
            f"{request.module.__name__} left {len(left)} process(es) running (ended now):\n"
            + "\n".join(map(str, left)),
            pytrace=False,
        )


def _end_leftovers() -> list[processes.Leftover]:
    left = processes.leftovers(_RUN_ROOT[0]) if _RUN_ROOT else []
    processes.end(left)
    return left


@pytest.hookimpl(trylast=True)  # after the fixtures' teardown (the runner's own pytest_sessionfinish)
def pytest_sessionfinish(session, exitstatus):
    _LEFT_AT_THE_END.extend(map(str, _end_leftovers()))
    if _LEFT_AT_THE_END and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    # A worker of pytest-xdist tells the controlling pytest, which reports and fails the run.
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["figures"] = [list(f) for f in _FIGURES]
        output["left"] = _LEFT_AT_THE_END


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's
def pytest_testnodedown(node, error):
    """A worker's figures and leftovers (see pytest_sessionfinish), in the controlling pytest."""
    output = getattr(node, "workeroutput", {})
    _FIGURES.extend(tuple(f) for f in output.get("figures", ()))
    _LEFT_AT_THE_END.extend(output.get("left", ()))


@pytest.fixture
def table_name():
    """A table name no other test uses."""
    return f"t_{uuid.uuid4().hex[:10]}"
