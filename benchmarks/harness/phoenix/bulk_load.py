# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Phoenix's own bulk path: CsvBulkLoadTool (MapReduce's local runner writes HFiles, then HBase loads them)."""

import os
import shutil
import subprocess
import time

from harness.platform import JAVA17_FLAGS, java_executable


def csv_bulk_load(conf_dir, classpath, zookeeper_port, table, csv, work):
    """Seconds CsvBulkLoadTool took to load the CSV file (its header skipped) into the Phoenix table, its JVM's
    start included; its log goes to work/csv-bulk-load.log."""
    output = work / "csv-bulk-load-output"
    shutil.rmtree(output, ignore_errors=True)
    # The local runner links job files into its working directory: one of its own.
    run_dir = work / "csv-bulk-load-run"
    run_dir.mkdir(parents=True, exist_ok=True)
    command = [
        java_executable(),
        *JAVA17_FLAGS,
        "-Xmx2g",
        "-Duser.timezone=UTC",
        "-cp",
        os.pathsep.join([str(conf_dir), *map(str, classpath)]),
        "org.apache.phoenix.mapreduce.CsvBulkLoadTool",
        # As many map and reduce slots as LOAD DATA has task slots.
        "-Dmapreduce.local.map.tasks.maximum=2",
        "-Dmapreduce.local.reduce.tasks.maximum=2",
        "--table",
        table,
        "--input",
        f"file://{csv}",
        "--output",
        f"file://{output}",
        "--skip-header",
        "--zookeeper",
        f"127.0.0.1:{zookeeper_port}",
    ]
    start = time.perf_counter()
    with open(work / "csv-bulk-load.log", "a") as log:
        subprocess.run(command, cwd=run_dir, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, check=True)
    seconds = time.perf_counter() - start
    shutil.rmtree(output, ignore_errors=True)
    return seconds
