# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""What the JVMs of a run do, read from outside them: CPU seconds (Linux /proc), heap (the peak with jstat, live
after a full GC over JMX), flight recordings of the region server by kind of work, and the rows a region server's
tables read (over JMX).

A wall time alone cannot say whether an engine waited or worked, nor which process worked. Reading each
process's CPU counters around one run of a statement says both; a flight recording of the region server then says
which code its CPU ran: HBase's own reading of cells, which both engines need, or either engine's coprocessor."""

import json
import os
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

from . import java
from .common import jdk_tool

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """User and system CPU seconds the process has used so far, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime and stime, fields 14 and 15


class CpuMeter:
    """The CPU seconds of named processes, around one call."""

    def __init__(self, processes):
        self.processes = processes  # name -> pid

    def measure(self, call):
        """call()'s result, and {"wallSeconds", "cpuSeconds": {name: seconds}, "coresBusy"} over the call."""
        before = {name: cpu_seconds(pid) for name, pid in self.processes.items()}
        start = time.perf_counter()
        result = call()
        wall = time.perf_counter() - start
        used = {name: cpu_seconds(pid) - before[name] for name, pid in self.processes.items()}
        return result, {"wallSeconds": wall, "cpuSeconds": used, "coresBusy": sum(used.values()) / wall}


# What a region server's CPU samples were doing, by the innermost frame that is not the JDK's.
SAMPLE_KINDS = (
    ("Phoenix's coprocessors", ("org.apache.phoenix.",)),
    ("our coprocessor and filter", ("org.apache.spark.sql.hbase.",)),
    ("HBase RPC", ("org.apache.hadoop.hbase.ipc.", "org.apache.hbase.thirdparty.", "org.apache.hadoop.hbase.shaded.")),
    ("HBase reading cells (HFiles, blocks, scanners)", ("org.apache.hadoop.hbase.",)),
)
OTHER_KIND = "other"
JDK_PACKAGES = ("java.", "javax.", "jdk.", "sun.")


def sample_kind(frames):
    for frame in frames:
        if frame.startswith(JDK_PACKAGES):
            continue
        return next((kind for kind, packages in SAMPLE_KINDS if frame.startswith(packages)), OTHER_KIND)
    return OTHER_KIND


class RegionServerProfiler:
    """Java Flight Recorder on the HBase JVM around one call: its CPU samples by kind of work."""

    def __init__(self, pid, work_dir):
        self.pid, self.work_dir = pid, Path(work_dir)

    def record(self, name, call):
        recording = self.work_dir / f"region-server-{name}.jfr"
        recording.unlink(missing_ok=True)
        jcmd = ["jcmd", str(self.pid)]
        subprocess.run([*jcmd, "JFR.start", f"name={name}", "settings=profile"], check=True, capture_output=True)
        try:
            call()
        finally:
            subprocess.run(
                [*jcmd, "JFR.stop", f"name={name}", f"filename={recording}"], check=True, capture_output=True
            )
        return self.shares(recording)

    @staticmethod
    def shares(recording):
        """{"samples": n, "shares": {kind: fraction}} of the recording's execution samples."""
        printed = subprocess.run(
            ["jfr", "print", "--json", "--events", "jdk.ExecutionSample", str(recording)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        kinds = Counter()
        for event in json.loads(printed)["recording"]["events"]:
            trace = event["values"]["stackTrace"] or {"frames": []}
            frames = [f["method"]["type"]["name"].replace("/", ".") for f in trace["frames"]]
            kinds[sample_kind(frames)] += 1
        total = sum(kinds.values())
        names = [kind for kind, _ in SAMPLE_KINDS] + [OTHER_KIND]
        return {"samples": total, "shares": {k: kinds[k] / total if total else 0.0 for k in names}}


def jvm_counts(pid, attempts=5):
    """What JvmCounts.java reads of the JVM (threads, open files, heap after a full GC; a region server's block
    cache, memstores and scanners). A JVM just started may refuse the attach a few times."""
    for attempt in range(attempts):
        counts = java.jdk_program("JvmCounts.java", pid)[-1]
        if "heapAfterGcMb" in counts:
            return counts
        time.sleep(2 * (attempt + 1))
    raise RuntimeError(f"cannot read the heap of JVM {pid}: {counts.get('error')}")


def jvm_counts_each(pids):
    """jvm_counts of several JVMs at once, in one attach program, without retries: [{"pid", ...}]."""
    return java.jdk_program("JvmCounts.java", *pids)


def heap_after_gc_mb(pid):
    """The JVM's heap in use right after a full GC."""
    return jvm_counts(pid)["heapAfterGcMb"]


class PeakHeap:
    """The highest heap use jstat sees in `pid` while the `with` block runs, in MB (no GC forced)."""

    def __init__(self, pid):
        self.pid, self.peak_mb = pid, 0.0

    def __enter__(self):
        self.proc = subprocess.Popen(
            [jdk_tool("jstat"), "-gc", str(self.pid), "500"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        return self

    def _read(self):
        header = None
        for line in self.proc.stdout:
            fields = line.split()
            if fields and fields[0] == "S0C":
                header = fields
                continue
            if header and len(fields) == len(header):
                row = dict(zip(header, map(float, fields)))
                used_kb = row["S0U"] + row["S1U"] + row["EU"] + row["OU"]
                self.peak_mb = max(self.peak_mb, used_kb / 1024)

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(10)
        self.reader.join(10)


class _NoPeak:
    """An external HBase: its region servers' heaps are not ours to watch."""

    peak_mb = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def region_server_peak(hbase):
    """PeakHeap of the embedded HBase's JVM, or, for an external HBase (None), a block whose peak_mb is None."""
    return PeakHeap(hbase.pid) if hbase else _NoPeak()


# HBase refreshes the region counters JMX shows every few seconds (hbase.regionserver.metrics.period, 5 s, and
# the JMX cache's own 10 s): counters are read only after they have caught up.
METRICS_CATCH_UP_SECONDS = 12


def table_reads_over_jmx(pid):
    """{table: read requests} of the region server's regions (TableReads.java), once its counters caught up."""
    time.sleep(METRICS_CATCH_UP_SECONDS)
    return java.jdk_program("TableReads.java", pid)[-1]


def region_reads(spark, admin, names):
    """HBase's own counters of the regions of these tables, (read requests, filtered read requests): a region
    counts a read request for each row its scanner returns (to a client or a coprocessor) and a filtered one
    for each row a filter drops. Asked of each region server directly, so up to date."""
    jvm = spark._jvm
    reads = filtered = 0
    for server in admin.getRegionServers():
        for name in names:
            for region in admin.getRegionMetrics(server, jvm.org.apache.hadoop.hbase.TableName.valueOf(name)):
                reads += region.getReadRequestCount()
                filtered += region.getFilteredReadRequestCount()
    return reads, filtered
