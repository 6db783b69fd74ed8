# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

# Licensed to the Apache Software Foundation (ASF) under one or more
# contributor license agreements.  See the NOTICE file distributed with
# this work for additional information regarding copyright ownership.
# The ASF licenses this file to You under the Apache License, Version 2.0
# (the "License"); you may not use this file except in compliance with
# the License.  You may obtain a copy of the License at
#
#    http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""A test run stops every process it starts, pass or fail (conftest.py), and `LocalHBase.stop()`
ends the JVMs of its data dir even when its files lost track of them. Quick: no HBase, no JVM;
sleeping Pythons stand in for the servers."""

import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from pyspark_hbase.local import LocalHBase
from pyspark_hbase.local_conf import DIR_MARKER, REGION_SERVER_MARKER
from pyspark_hbase_testing import processes

TESTS = Path(__file__).resolve().parent


def _sleeper(*args: str) -> subprocess.Popen:
    """A process in a session of its own, as our servers are, with `args` on its command line."""
    return subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(300)", *args],
        start_new_session=True,
        stdin=subprocess.DEVNULL,
    )


def _alive(proc: subprocess.Popen) -> bool:
    # Our own child: whether it has exited, from its exit status. Its command line in /proc once
    # read without the sleeper's arguments while the process still ran (exit None), under load.
    return proc.poll() is None


def test_leftovers_are_the_processes_naming_a_path_under_the_dir_and_end_ends_them(tmp_path):
    inside = _sleeper(str(tmp_path / "data" / "file"))
    marked = _sleeper(f"{DIR_MARKER}{tmp_path / 'hbase'}")
    beside = _sleeper(f"{tmp_path}-other/file")
    try:
        left = processes.leftovers(tmp_path)
        assert [p.pid for p in left] == sorted([inside.pid, marked.pid])
        assert {p.pid: p.owner for p in left}[marked.pid] == tmp_path / "hbase"
        processes.end(left, timeout=10)
        assert not _alive(inside) and not _alive(marked)
        # How it ended, if it did (a negative code is the signal).
        assert _alive(beside), f"the process beside the dir ended: exit {beside.poll()}, pids {[p.pid for p in left]}"
    finally:
        for proc in (inside, marked, beside):
            proc.kill()
            proc.wait()


def test_stop_ends_the_jvms_of_a_data_dir_whose_pid_file_or_dir_is_gone(tmp_path):
    data = tmp_path / "hbase"
    master = _sleeper(f"{DIR_MARKER}{data}")
    region_server = _sleeper(f"{REGION_SERVER_MARKER}{data}#2")
    other = _sleeper(f"{DIR_MARKER}{data}1")  # another data dir, whose name starts the same
    try:
        assert not data.exists()
        assert LocalHBase(data).stop(timeout=10) is True
        assert not _alive(master) and not _alive(region_server) and _alive(other)
        assert LocalHBase(data).stop(timeout=10) is False
    finally:
        for proc in (master, region_server, other):
            proc.kill()
            proc.wait()


def _run_inner(tmp_path: Path, test_source: str) -> subprocess.CompletedProcess:
    """Runs a test file of its own with this suite's conftest.py, in a pytest of its own."""
    inner = tmp_path / "inner"
    inner.mkdir()
    shutil.copy(TESTS / "conftest.py", inner / "conftest.py")
    (inner / "test_inner.py").write_text(textwrap.dedent(test_source))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--basetemp={tmp_path / 'base'}", str(inner)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=inner,
    )


def test_a_module_that_leaves_a_process_running_fails_and_the_process_is_ended(tmp_path):
    done = _run_inner(
        tmp_path,
        """
        import subprocess, sys

        def test_passes_but_leaves_a_process(tmp_path):
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", str(tmp_path)], start_new_session=True)
        """,
    )
    assert done.returncode == 1, done.stdout
    assert "1 passed, 1 error" in done.stdout and "test_inner left 1 process(es) running (ended now)" in done.stdout, (
        done.stdout + done.stderr
    )
    assert processes.leftovers(tmp_path / "base") == []


def test_a_process_left_at_the_end_of_the_run_fails_the_run_and_is_ended(tmp_path):
    # A process of a session fixture's dir outlives each module; the end of the run ends it.
    done = _run_inner(
        tmp_path,
        f"""
        import subprocess, sys
        import conftest

        def test_passes_but_a_session_process_stays(tmp_path):
            conftest._SESSION_OWNERS.add(tmp_path)
            subprocess.Popen(
                [sys.executable, "-c", "import time; time.sleep(300)", "{DIR_MARKER}" + str(tmp_path)],
                start_new_session=True,
            )
        """,
    )
    assert done.returncode == 1, done.stdout
    assert "1 passed" in done.stdout and "processes left running at the end of the run (ended now)" in done.stdout
    deadline = time.monotonic() + 10
    while processes.leftovers(tmp_path / "base") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes.leftovers(tmp_path / "base") == []
