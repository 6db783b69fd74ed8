"""Phoenix's thick JDBC client in a JVM of its own (PhoenixClient.java), driven one JSON line at a time."""

import json
import os
import subprocess
from decimal import Decimal
from pathlib import Path


class PhoenixError(RuntimeError):
    """A statement Phoenix refused or failed; the message is Phoenix's."""


class PhoenixJdbc:
    def __init__(self, conf_dir, classpath, zookeeper_port, log_file):
        from pyspark_hbase import _paths
        from pyspark_hbase.local import JAVA17_FLAGS

        self._log = open(log_file, "a")
        self._process = subprocess.Popen(
            [
                _paths.java_executable(),
                *JAVA17_FLAGS,
                "-Xmx2g",
                # Phoenix keeps dates as UTC milliseconds; the CSV's days are read as UTC midnights.
                "-Duser.timezone=UTC",
                "-cp",
                os.pathsep.join([str(conf_dir), *map(str, classpath)]),
                str(Path(__file__).parent / "PhoenixClient.java"),
                f"jdbc:phoenix:127.0.0.1:{zookeeper_port}",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )
        self._answer()  # {"ready": true} once connected: Phoenix has created its system tables by then

    def _answer(self):
        line = self._process.stdout.readline()
        if not line:
            raise PhoenixError(f"the Phoenix client exited (code {self._process.wait()}); see {self._log.name}")
        answer = json.loads(line)
        if "error" in answer:
            raise PhoenixError(answer["error"])
        return answer

    def _send(self, command):
        self._process.stdin.write(json.dumps(command) + "\n")
        self._process.stdin.flush()
        return self._answer()

    @property
    def pid(self):
        return self._process.pid

    def execute(self, sql):
        """Seconds the statement took."""
        return self._send({"command": "execute", "sql": sql})["seconds"]

    def load(self, sql, csv, types, batch):
        """An UPSERT with a ? per CSV field, for every line; {"seconds", "rows"}."""
        return self._send({"command": "load", "sql": sql, "csv": str(csv), "types": types, "batch": batch})

    def query(self, sql, repeat, out, warm_up=True):
        """One untimed run (unless not warm_up) and `repeat` timed ones: {"runs", "rows", "columns", "metrics",
        "plan"} and "result", the rows, a list each."""
        answer = self._send({"command": "query", "sql": sql, "repeat": repeat, "out": str(out), "warmUp": warm_up})
        with open(out) as f:  # decimals exact
            answer["result"] = [json.loads(line, parse_float=Decimal) for line in f]
        return answer

    def close(self):
        self._process.stdin.close()
        self._process.wait()
        self._log.close()
