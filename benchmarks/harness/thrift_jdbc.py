# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Our Thrift server and a JVM JDBC client of it, for the benchmarks' JDBC path.

thrift_server_with_phases is `spark-hbase thriftserver` (the package's ThriftServer) on a given HBase, with
PhaseListener.java on its driver's class path: every statement it runs appends Spark's phases to a file.
JdbcClient drives JdbcClient.java, one Hive JDBC connection in a JVM of its own, one JSON line at a time; its
classpath is pyspark's jars (hive-jdbc and what it needs, as pyspark's beeline uses them)."""

import json
import os
import time

from . import java
from .common import log
from .platform import ThriftServer, plugin_jars


def compile_phase_listener(work):
    """PhaseListener.java compiled against pyspark's jars, in a jar of its own under `work`."""
    return java.compile_to_jar("PhaseListener.java", f"{java.pyspark_jars()}/*", work)


def thrift_server_with_phases(data_dir, phases_file, listener_jar, **options):
    """A ThriftServer on the HBase of `data_dir` whose statements' phases go to `phases_file`; `options` are the
    ThriftServer's (catalog_implementation, directory)."""

    class ThriftServerWithPhases(ThriftServer):
        def server_args(self, port):
            # spark-submit keeps the last --driver-class-path: the plugin's, then the listener's.
            class_path = os.pathsep.join([*map(str, plugin_jars()), str(listener_jar)])
            return [
                "--driver-class-path",
                class_path,
                "--conf",
                "spark.sql.queryExecutionListeners=PhaseListener",
                *super().server_args(port),
            ]

    os.environ["PHASE_LISTENER_FILE"] = str(phases_file)  # spark-submit passes its environment on to the server
    return ThriftServerWithPhases(data_dir, **options)


class JdbcClient(java.JsonLineProcess):
    def __init__(self, url, log_file):
        super().__init__(
            java.command("JdbcClient.java", url, classpath=[f"{java.pyspark_jars()}/*"]), log_file, "JDBC client"
        )

    def execute(self, sql):
        return self.send({"command": "execute", "sql": sql})["seconds"]

    def query(self, sql, repeat, warm_up=True):
        """{"runs" (seconds), "rows", "result"} of `repeat` timed runs after one untimed (unless not warm_up)."""
        return self.send({"command": "query", "sql": sql, "repeat": repeat, "warmUp": warm_up})


def phases_since(phases_file, offset, expected, timeout=30):
    """The phase lines written after byte `offset`: waits until there are `expected` (the listener is asynchronous)."""
    deadline = time.monotonic() + timeout
    while True:
        with open(phases_file) as f:
            f.seek(offset)
            lines = [json.loads(line) for line in f if line.strip()]
        if len(lines) >= expected or time.monotonic() > deadline:
            return lines
        time.sleep(0.2)


def start_with_client(hbase, work, name, warm_up=0, **options):
    """Our Thrift server on the benchmark's HBase with its phases written to work/<name>-thrift-phases.jsonl, and a
    JDBC client connected to it (warmed with `warm_up` statements): (server, client, phases file). `options` are
    the ThriftServer's."""
    phases_file = work / f"{name}-thrift-phases.jsonl"
    phases_file.write_text("")
    server = thrift_server_with_phases(hbase.data_dir, phases_file, compile_phase_listener(work), **options)
    server.stop()
    url = server.start()
    client = JdbcClient(url, work / f"{name}-jdbc-client.log")
    if warm_up:
        client.query("SELECT 1", warm_up)
    log(f"our Thrift server at {url}, a JDBC client connected")
    return server, client, phases_file
