# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""What the soak counts in each JVM it watches (the driver, the master's JVM, which holds region server 1, and region
servers 2 and 3) at the start, every few minutes and at the end: JvmCounts.java over JMX, and the driver's TCP
connections to HBase."""

import json
import os
import time
from pathlib import Path

from harness.common import log
from harness.server_sampling import jvm_counts_each


def counts(soak, driver_pid, label):
    """One sample of every watched JVM's counts."""
    pids = {"driver": driver_pid}
    pids.update({f"region server {rs['number']}": rs["pid"] for rs in soak.hbase.region_servers() if rs["pid"]})
    by_pid = {j.get("pid"): j for j in jvm_counts_each(pids.values())}
    sample = {"at_s": round(time.monotonic() - soak.t0, 1), "label": label, "jvms": {}}
    for name, pid in pids.items():
        sample["jvms"][name] = dict(by_pid.get(pid, {"error": "no answer"}), pid=pid)
    sample["jvms"]["driver"]["hbaseConnections"] = hbase_connections(driver_pid, soak.hbase)
    log(f"counts at {label}: {json.dumps(sample['jvms'])}")
    return sample


def sampler(soak, driver_pid, samples):
    """A thread's loop: counts every two thirds of the time between faults (and a little more), until stopped."""
    while not soak.stop.wait(soak.chaos_every * 60 * 2 / 3 + 17):
        try:
            samples.append(counts(soak, driver_pid, "during"))
        except Exception as e:  # noqa: BLE001
            log(f"counting failed: {e}")


def hbase_connections(pid, hbase):
    """The driver's established TCP connections to HBase's ports (ZooKeeper, master, region servers)."""
    ports = {int(p) for p in hbase.ports.values()} | {int(rs["port"]) for rs in hbase.region_servers()}
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            remote_port, state, inode = int(fields[2].split(":")[1], 16), fields[3], fields[9]
            if state == "01" and inode in inodes and remote_port in ports:
                count += 1
    return count
