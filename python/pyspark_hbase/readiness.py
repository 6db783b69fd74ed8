# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""How a start of the embedded HBase tells that it is ready, and what it waits for meanwhile: ZooKeeper's
health check, then the probe JVM's lines, told to a progress callback at a steady pace."""

import socket
import time
from pathlib import Path
from typing import Callable, Optional

from pyspark_hbase.daemons import HOST

# Readiness probe: a small HBase client in its own JVM, built by sbt into the hbase-local jar
# (source: hbase-local/src/main/java). Open ports are not enough; its class comment says why.
PROBE_CLASS = "org.apache.spark.sql.hbase.local.LocalHBaseProbe"
# The probe prints this, then what it waits for, each time that changes.
PROBE_WAITING = "WAITING for "
# Progress lines come at most this often: a start goes through a dozen states in a few seconds.
PROGRESS_INTERVAL = 2.0


def zk_ruok(port: int, host: str = HOST, timeout: float = 1.0) -> bool:
    """ZooKeeper's four-letter health check; HBase's embedded ZooKeeper allows it."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.settimeout(timeout)
            s.sendall(b"ruok")
            return s.recv(4) == b"imok"
    except OSError:
        return False


def zk_ready_by(port: int, deadline: float, alive: Callable[[], bool], report: "WaitReport") -> bool:
    """Waits until ZooKeeper on `port` answers its health check, the JVM running it dies, or `deadline`
    (time.monotonic()) passes; whether it answered. Region servers of their own start only then: one whose first
    call to ZooKeeper fails aborts, as it retries none (conf/hbase-site.xml); one did, in a loaded run."""
    while alive() and time.monotonic() < deadline:
        report.waiting(f"ZooKeeper on {HOST}:{port}")
        if zk_ruok(port, timeout=0.5):
            return True
        time.sleep(0.2)
    return False


class WaitReport:
    """Tells `progress` what the start waits for: each change, at most every PROGRESS_INTERVAL s.

    A change within the interval is told when it is over, unless a newer one replaced it.
    """

    def __init__(self, progress: Optional[Callable[[str], None]]):
        self._progress = progress
        self.waiting_for: Optional[str] = None
        self._told: Optional[str] = None
        self._told_at = -PROGRESS_INTERVAL

    def waiting(self, what: Optional[str] = None) -> None:
        """Notes `what` (if given) as what the start waits for now, and tells it if it is time."""
        if what is not None:
            self.waiting_for = what
        now = time.monotonic()
        if (
            self._progress is not None
            and self.waiting_for is not None
            and self.waiting_for != self._told
            and now - self._told_at >= PROGRESS_INTERVAL
        ):
            self._progress(f"waiting for {self.waiting_for}")
            self._told, self._told_at = self.waiting_for, now


class NewLines:
    """The complete lines a process has written to a file since the last call, as it writes them."""

    def __init__(self, path: Path):
        self._path = path
        self._offset = 0
        self._partial = b""

    def __call__(self) -> list[str]:
        try:
            with open(self._path, "rb") as f:
                f.seek(self._offset)
                data = f.read()
        except OSError:
            return []
        self._offset += len(data)
        *lines, self._partial = (self._partial + data).split(b"\n")
        return [line.decode("utf-8", "replace").rstrip("\r") for line in lines]
