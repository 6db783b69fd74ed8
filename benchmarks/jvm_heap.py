"""A JVM's heap as the benchmarks measure it, from outside the JVM: live after a full GC (JvmCounts.java,
over JMX) and the peak while something runs (jstat, no GC forced)."""

import json
import subprocess
import threading
import time
from pathlib import Path

from tpch_planner import jdk_tool

ROOT = Path(__file__).resolve().parent.parent


def heap_after_gc_mb(pid, attempts=5):
    """The JVM's heap in use right after a full GC; a JVM just started may refuse the attach a few times."""
    return jvm_counts(pid, attempts)["heapAfterGcMb"]


def jvm_counts(pid, attempts=5):
    """What JvmCounts.java reads of the JVM (heap after a full GC; a region server's block cache and memstores)."""
    for attempt in range(attempts):
        out = subprocess.run(
            [jdk_tool("java"), str(ROOT / "benchmarks" / "JvmCounts.java"), str(pid)],
            capture_output=True,
            text=True,
            timeout=300,
        ).stdout
        counts = json.loads(out.splitlines()[-1])
        if "heapAfterGcMb" in counts:
            return counts
        time.sleep(2 * (attempt + 1))
    raise RuntimeError(f"cannot read the heap of JVM {pid}: {counts.get('error')}")


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
