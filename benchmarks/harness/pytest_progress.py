# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""A pytest plugin for the test_time benchmark: writes the node id of the test that runs now to the file that
TEST_TIME_PROGRESS names, so that a sampler outside pytest can say which test the machine's CPU went to. Loaded
with `-p harness.pytest_progress` and benchmarks/ on PYTHONPATH; without TEST_TIME_PROGRESS it does nothing."""

import os

# Taken from the environment, so that a pytest that a test runs (with the same PYTEST_ADDOPTS) writes nothing.
_PATH = os.environ.pop("TEST_TIME_PROGRESS", None)


def _write(text):
    if _PATH:
        # Replaced whole, so that the sampler never reads half a name.
        with open(f"{_PATH}.tmp", "w") as f:
            f.write(text)
        os.replace(f"{_PATH}.tmp", _PATH)


def pytest_runtest_logstart(nodeid, location):
    _write(nodeid)


def pytest_sessionfinish(session, exitstatus):
    _write("(the end of the run)")
