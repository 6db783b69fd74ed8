# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""How the tests that run Spark applications of their own start them: spark-submit from this
venv, with this checkout's pyspark_hbase, bound to 127.0.0.1."""

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUBMIT = Path(sys.executable).parent / "spark-submit"


def submit_env():
    """The environment for spark-submit. SPARK_LOCAL_IP is the host the region servers report,
    so executors register under it and locality can match."""
    return dict(
        os.environ,
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
        SPARK_LOCAL_IP="127.0.0.1",
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "python"), os.environ.get("PYTHONPATH")])),
    )
