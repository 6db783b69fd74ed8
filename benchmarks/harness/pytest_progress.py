# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""A pytest plugin for the test_time benchmark: each pytest process that runs tests (the one pytest, or each
pytest-xdist worker) writes the node id of its test that runs now to a file of its own in the directory that
TEST_TIME_PROGRESS names, `<pid>`, so that a sampler outside pytest can say which test the CPU of that process and
of those it started went to. Loaded with `-p harness.pytest_progress` and benchmarks/ on PYTHONPATH; without
TEST_TIME_PROGRESS it does nothing."""

import os

import pytest

# Taken from the environment, so that a pytest that a test runs (with the same PYTEST_ADDOPTS) writes nothing; handed
# to pytest-xdist's workers through their input.
_KEY = "test_time_progress"
_DIR = os.environ.pop("TEST_TIME_PROGRESS", None)
_WRITES = True


def pytest_configure(config):
    global _DIR
    _DIR = getattr(config, "workerinput", {}).get(_KEY, _DIR)


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    global _WRITES
    # pytest-xdist's controller runs no test: it only reports its workers' (its plugin "dsession").
    _WRITES = not session.config.pluginmanager.has_plugin("dsession")


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's
def pytest_configure_node(node):
    node.workerinput[_KEY] = _DIR


def _write(text):
    if _DIR and _WRITES:
        # Replaced whole, so that the sampler never reads half a name.
        os.makedirs(_DIR, exist_ok=True)
        path = os.path.join(_DIR, str(os.getpid()))
        with open(f"{path}.tmp", "w") as f:
            f.write(text)
        os.replace(f"{path}.tmp", path)


def pytest_runtest_logstart(nodeid, location):
    _write(nodeid)


def pytest_sessionfinish(session, exitstatus):
    _write("(the end of the run)")
