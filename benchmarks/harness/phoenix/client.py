# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Phoenix's thick JDBC client in a JVM of its own (PhoenixClient.java), driven one JSON line at a time."""

import json
from decimal import Decimal

from harness import java
from harness.platform import JAVA17_FLAGS


class PhoenixError(RuntimeError):
    """A statement Phoenix refused or failed; the message is Phoenix's."""


class PhoenixJdbc(java.JsonLineProcess):
    error = PhoenixError

    def __init__(self, conf_dir, classpath, zookeeper_port, log_file):
        # Phoenix keeps dates as UTC milliseconds; the CSV's days are read as UTC midnights.
        flags = [*JAVA17_FLAGS, "-Xmx2g", "-Duser.timezone=UTC"]
        argv = java.command(
            "PhoenixClient.java",
            f"jdbc:phoenix:127.0.0.1:{zookeeper_port}",
            classpath=[conf_dir, *classpath],
            flags=flags,
        )
        # {"ready": true} once connected: Phoenix has created its system tables by then
        super().__init__(argv, log_file, "Phoenix client")

    def execute(self, sql):
        """Seconds the statement took."""
        return self.send({"command": "execute", "sql": sql})["seconds"]

    def load(self, sql, csv, types, batch):
        """An UPSERT with a ? per CSV field, for every line; {"seconds", "rows"}."""
        return self.send({"command": "load", "sql": sql, "csv": str(csv), "types": types, "batch": batch})

    def query(self, sql, repeat, out, warm_up=True):
        """One untimed run (unless not warm_up) and `repeat` timed ones: {"runs", "rows", "columns", "metrics",
        "plan"} and "result", the rows, a list each."""
        answer = self.send({"command": "query", "sql": sql, "repeat": repeat, "out": str(out), "warmUp": warm_up})
        with open(out) as f:  # decimals exact
            answer["result"] = [json.loads(line, parse_float=Decimal) for line in f]
        return answer
