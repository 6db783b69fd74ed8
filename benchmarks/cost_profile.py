"""Where a statement's time goes: the CPU seconds each process of the run spent on it, Spark's phases, and
what the region server's CPU was doing.

A wall time alone cannot say whether an engine waited or worked, nor which process worked. Reading each
process's CPU counters (Linux /proc) around one run of a statement says both: with every core of the machine
busy for the whole run, no engine on this machine could have been faster by running more in parallel. A
flight recording of the region server then says which code its CPU ran: HBase's own reading of cells, which
both engines need, or either engine's coprocessor."""

import json
import os
import statistics
import subprocess
import time
from collections import Counter
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
SPARK_PHASES = ("parsing", "analysis", "optimization", "planning")


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


def spark_phases_ms(df):
    """Milliseconds of each of Spark's planning phases the DataFrame's statement went through."""
    phases = df._jdf.queryExecution().tracker().phases()
    found = {}
    for name in SPARK_PHASES:
        phase = phases.get(name)
        if phase.isDefined():
            found[name] = phase.get().endTimeMs() - phase.get().startTimeMs()
    return found


def median_phases(runs, seconds):
    """Per phase, the median over runs of its milliseconds; "execution" is what is left of each run's time."""
    medians = {name: statistics.median(r.get(name, 0) for r in runs) for name in SPARK_PHASES}
    rest = [s * 1000 - sum(r.values()) for r, s in zip(runs, seconds)]
    return {**medians, "execution": statistics.median(rest)}


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
