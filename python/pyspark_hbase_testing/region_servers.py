# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Region servers of an embedded HBase ended on purpose: killed as a crash would, or stopped as an
operator does before an upgrade. Only the region servers in JVMs of their own (2..N) can be."""

import signal
import time

from pyspark_hbase.daemons import port_is_free, signal_group
from pyspark_hbase.local import DEFAULT_STOP_TIMEOUT, LocalHBase, LocalHBaseError


def kill_region_server(hbase: LocalHBase, number: int) -> None:
    """Kills region server `number` (2..N) at once, as a crash would (SIGKILL)."""
    _end(hbase, number, graceful=False, timeout=10)


def stop_region_server(hbase: LocalHBase, number: int, timeout: float = DEFAULT_STOP_TIMEOUT) -> None:
    """Stops region server `number` (2..N) as an operator does (SIGTERM): it closes its regions and its
    write-ahead log first, so HBase has nothing to recover. Killed if still up after `timeout`."""
    _end(hbase, number, graceful=True, timeout=timeout)


def _end(hbase: LocalHBase, number: int, graceful: bool, timeout: float) -> None:
    rs = hbase._extra_servers().get(number)
    if number < 2 or rs is None:
        raise LocalHBaseError(f"no region server {number} of its own: those are 2..N, started with region_servers N")
    pid = rs.get("pid")
    if not hbase._extra_alive(number, pid):
        return
    hbase._log(f"{'stopping' if graceful else 'killing'} region server {number} (pid {pid})")
    signal_group(pid, signal.SIGTERM if graceful else signal.SIGKILL)
    if not hbase._wait_gone_extra(number, pid, timeout) and graceful:
        signal_group(pid, signal.SIGKILL)
        hbase._wait_gone_extra(number, pid, 10)
    # A dying JVM loses its command line before its sockets: wait for the port too, so that a
    # restart gets it back and HBase takes the new server for the old one at once.
    deadline = time.monotonic() + 10
    while not port_is_free(rs["port"]) and time.monotonic() < deadline:
        time.sleep(0.1)
