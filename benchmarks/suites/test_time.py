# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Where `./bin/test`'s time goes: it runs on a fresh clone of this checkout's commit, and every second a sampler
reads each process's CPU from /proc and gives it to what the process serves at that moment: the setup (building the
venv and the jars), a Scala spec (each of the two test JVMs to the HBase-backed spec it says it runs, in a file of
its own in the progress directory; sbt and the test HBase under target/test-hbase in equal shares to the specs running
then, or before the test JVMs start to what the Scala log last named), or a Python test module (every other process,
by the test that a pytest plugin says its pytest worker runs: the worker it was first seen under, its own or an
ancestor's).

Run through `./benchmarks/run test_time [--keep]`. On two cores the two suites run side by side and keep the
machine busy, so the wall clock follows the CPU that all of them need: these CPU seconds are what a change to the
tests must take away to make `./bin/test` faster. A process that ends between two samples loses its last second to
"not sampled" (machine busy time that no process was seen to take). Writes results/test_time.json, .md and .png."""

import argparse
import os
import re
import shutil
import subprocess
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

from harness.charts import figure
from harness.common import ROOT, WORK, git_commit, log, machine, today
from harness.results import write_results

TICKS = os.sysconf("SC_CLK_TCK")
# The sbt that bin/test starts for the Scala tests (not the one of the setup or of a Python test) and the test HBase;
# their children (the forked test JVM) are the Scala side's too.
SCALA_PROCESS = re.compile(r"sbt-launch.* pureLoopCheck|target/test-hbase")
SPEC = re.compile(r"^\[info\] (\w+(?:Spec|Test)):$", re.M)
SCALA_STARTED = "==> Scala tests, in the background"
SHOWN = 25
# How many samples look at a new process's command line; and at one that runs a program that may yet exec another
# (`nice`, the shell running build/sbt), or whose command line is empty while it execs, until it runs something else.
LOOKS = 3
LAUNCHER_LOOKS = 120
LAUNCHERS = {"nice", "bash", "sh", "env"}
# What the Python side's processes outside a pytest worker serve: the lint, pytest's start and its controller.
PYTHON_START = "lint and pytest's start"


def _busy_ticks():
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(fields) - fields[3] - fields[4]  # all but idle and iowait


def _processes():
    """{(pid, start time): (ticks of CPU, parent pid)} of every process now."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            found[(int(entry.name), fields[19])] = (int(fields[11]) + int(fields[12]), int(fields[1]))
    return found


def _parents_first(processes):
    """The keys of `processes` in an order where each comes after its parent, whatever their pids: pids wrap around
    (at 32,768 by default), and a process started after the wrap has a lower pid than its parent."""
    by_pid = {key[0]: key for key in processes}
    ordered, placed = [], set()
    for key in sorted(processes):
        chain = []
        while key is not None and key not in placed and key not in chain:
            chain.append(key)
            key = by_pid.get(processes[key][1])
        for each in reversed(chain):
            placed.add(each)
            ordered.append(each)
    return ordered


def _may_exec(command):
    """Whether a process running `command` may yet exec another program: a launcher, or one that is execing."""
    return not command or Path(command.split(" ", 1)[0]).name in LAUNCHERS


def _command(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


class Sampler(threading.Thread):
    """Gives each second's CPU of each process to the item it serves then (see the module)."""

    def __init__(self, clone, output, progress):
        super().__init__(daemon=True)
        self.clone, self.output, self.progress = clone, output, progress
        self.scala_log = clone / "target" / "scala-tests.log"
        self.cpu = defaultdict(float)  # (side, item) -> CPU s
        self.wall = defaultdict(float)  # (side, item) -> s during which it was the side's item
        self.kinds = {}  # (pid, start) -> "scala" | "python" | "kernel" | "before"
        self.looks = Counter()  # (pid, start) -> how often its command line was read
        self.launchers = set()  # (pid, start) of those that ran a launcher when last looked at
        self.workers = {}  # (pid, start) -> pid of the pytest worker it was first seen under, or None
        self.busy = self.kernel = self.before = 0.0
        self.samples = 0
        self.stopped = threading.Event()
        self.spec, self.log_offset, self.setup = "sbt: format check and test compile", 0, True
        # What runs before the tests start is not theirs.
        self.first = _processes()
        self.kinds.update((key, "before") for key in self.first)
        self.first_busy, self.first_time = _busy_ticks(), time.monotonic()

    def _kind(self, key, parent, parents):
        # A process seen on the Python side is looked at again in its first seconds: `nice` and build/sbt exec the
        # sbt JVM in the same process, whose command line only then names it, and a loaded machine may take longer
        # than LOOKS samples to get there. Not for longer than that: reading every JVM's long command line each second
        # would take CPU from the run it measures.
        if self.kinds.get(key, "python") == "python" and (
            self.looks[key] < LOOKS or (self.looks[key] < LAUNCHER_LOOKS and key in self.launchers)
        ):
            self.looks[key] += 1
            command = _command(key[0])
            if _may_exec(command):
                self.launchers.add(key)
            else:
                self.launchers.discard(key)
            if parent == 2 or key[0] == 2:
                self.kinds[key] = "kernel"
            elif parents.get(parent) == "scala" or (SCALA_PROCESS.search(command) and str(self.clone) in command):
                self.kinds[key] = "scala"
            else:
                self.kinds[key] = "python"
        return self.kinds[key]

    def _scala_spec(self):
        if self.scala_log.exists():
            with self.scala_log.open(errors="replace") as f:
                f.seek(self.log_offset)
                text = f.read()
                self.log_offset = f.tell()
            specs = SPEC.findall(text)
            self.spec = specs[-1] if specs else self.spec
        return self.spec

    def _scala_items(self):
        """{pid: the spec it runs now} of each test JVM that said so: sbt hands a forked JVM its flags in a file, so its
        command line does not tell it from other JVMs."""
        items = {}
        for path in self.progress.glob("scala-[0-9]*"):
            try:
                items[int(path.name.split("-", 1)[1])] = path.read_text() or self.spec
            except (OSError, ValueError):
                continue
        return items

    def _python_items(self):
        """{pid of a pytest worker: the module it runs now}."""
        items = {}
        for path in self.progress.glob("[0-9]*"):
            try:
                items[int(path.name)] = path.read_text().split("::")[0] or "pytest: collection"
            except (OSError, ValueError):
                continue
        return items

    def _worker_of(self, key, now, workers):
        """The pytest worker that `key` serves: itself or its nearest ancestor when first seen. Servers that outlive
        the command that started them are seen first while it still waits for them."""
        if self.workers.get(key) is None:  # looked for again until found: a worker is one once it has a test
            by_pid = {k[0]: k for k in now}
            seen, at = set(), key
            while at is not None and at[0] not in workers and at not in seen:
                seen.add(at)
                at = by_pid.get(now[at][1])
            self.workers[key] = at[0] if at is not None and at[0] in workers else None
        return self.workers[key]

    def run(self):
        last, last_busy, last_time = self.first, self.first_busy, self.first_time
        while not self.stopped.wait(1.0):
            now, busy, at = _processes(), _busy_ticks(), time.monotonic()
            self.setup = self.setup and SCALA_STARTED not in self.output.read_text(errors="replace")
            workers = {} if self.setup else self._python_items()
            # Parents first, so that a child finds its parent's kind (the forked test JVM, the sbt JVM's).
            parents = {}
            order = _parents_first(now)
            for key in order:
                parents[key[0]] = self._kind(key, now[key][1], parents)
            scala = {pid for pid, kind in parents.items() if kind == "scala"}
            running = {} if self.setup else {pid: s for pid, s in self._scala_items().items() if pid in scala}
            # sbt and the test HBase, shared by the specs running; before the test JVMs start, what the log last named.
            shared = set(running.values()) or {self._scala_spec()}
            if self.setup:
                self.wall[("setup", "./bin/setup")] += at - last_time
            else:
                for spec in shared:
                    self.wall[("scala", spec)] += at - last_time
                for item in set(workers.values()) or {PYTHON_START}:
                    self.wall[("python", item)] += at - last_time
            for key in order:
                ticks, parent = now[key]
                seconds = (ticks - last.get(key, (0, 0))[0]) / TICKS
                kind = parents[key[0]]
                if self.setup and kind in ("scala", "python"):
                    self.cpu[("setup", "./bin/setup")] += seconds
                elif kind == "scala":
                    jvm = key[0] if key[0] in running else parent  # a test JVM, or a process it started
                    if jvm in running:
                        self.cpu[("scala", running[jvm])] += seconds
                    else:
                        for spec in shared:
                            self.cpu[("scala", spec)] += seconds / len(shared)
                elif kind == "python":
                    worker = self._worker_of(key, now, workers)
                    self.cpu[("python", workers.get(worker, PYTHON_START))] += seconds
                elif kind == "kernel":
                    self.kernel += seconds
                else:
                    self.before += seconds
            self.busy += (busy - last_busy) / TICKS
            last, last_busy, last_time = now, busy, at
            self.samples += 1


def run_tests(clone, output, progress):
    """`./bin/test` in the clone, sampled; its exit code and wall clock."""
    env = dict(
        os.environ,
        TEST_TIME_PROGRESS=str(progress),
        # The clone's own harness: the checkout's, first on the path, would be what its layout tests import.
        PYTHONPATH=os.pathsep.join(filter(None, [str(clone / "benchmarks"), os.environ.get("PYTHONPATH")])),
        PYTEST_ADDOPTS=" ".join(filter(None, [os.environ.get("PYTEST_ADDOPTS"), "-p harness.pytest_progress"])),
    )
    sampler = Sampler(clone, output, progress)
    started = time.monotonic()
    with output.open("w") as out:
        test = subprocess.Popen(
            [str(clone / "bin" / "test")],
            cwd=clone,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        sampler.start()
        code = test.wait()
    sampler.stopped.set()
    sampler.join()
    return code, time.monotonic() - started, sampler


def report_of(code, wall, sampler, commit):
    items = sorted(
        (
            {"side": side, "item": item, "cpuSeconds": round(cpu, 1), "wallSeconds": round(sampler.wall[(side, item)])}
            for (side, item), cpu in sampler.cpu.items()
        ),
        key=lambda i: -i["cpuSeconds"],
    )
    sides = {
        side: round(sum(i["cpuSeconds"] for i in items if i["side"] == side), 1)
        for side in ("setup", "scala", "python")
    }
    sampled = sum(sides.values()) + sampler.kernel + sampler.before
    return {
        "command": "./benchmarks/run test_time",
        "commit": commit,
        "date": today(),
        "machine": machine(),
        "exitCode": code,
        "wallSeconds": round(wall),
        "busyCpuSeconds": round(sampler.busy),
        "cpuSecondsBySide": sides,
        "kernelThreadsCpuSeconds": round(sampler.kernel, 1),
        "otherProcessesCpuSeconds": round(sampler.before, 1),
        "notSampledCpuSeconds": round(max(sampler.busy - sampled, 0), 1),
        "items": items,
    }


def markdown(report):
    sides = report["cpuSecondsBySide"]
    lines = [
        f"# Where ./bin/test's time goes ({report['date']}, commit {report['commit']}, {report['machine']})",
        "",
        f"`{report['command']}`: `./bin/test` on a fresh clone, exit {report['exitCode']}, "
        f"{report['wallSeconds']:,} s; the machine was busy for {report['busyCpuSeconds']:,} CPU s: "
        f"the setup {sides['setup']:,}, then the Scala side {sides['scala']:,} and the Python side {sides['python']:,}, "
        f"kernel threads {report['kernelThreadsCpuSeconds']:,}, processes older than the run "
        f"{report['otherProcessesCpuSeconds']:,}, not sampled {report['notSampledCpuSeconds']:,}.",
        "",
        f"The {SHOWN} items that took the most CPU (a Scala spec with its share of sbt's and the test HBase's; a "
        "Python module with every process it started; the wall clock is the time a test JVM or a pytest worker ran "
        "it, or for sbt's compile the time before the tests):",
        "",
        "| side | item | CPU s | wall s |",
        "|---|---|---:|---:|",
    ]
    lines += [
        f"| {i['side']} | {i['item']} | {i['cpuSeconds']:,.1f} | {i['wallSeconds']:,} |"
        for i in report["items"][:SHOWN]
    ]
    return "\n".join(lines) + "\n"


def chart(report, path):
    shown = report["items"][:SHOWN][::-1]
    fig = figure((10, 8))
    axes = fig.subplots()
    colors = {"setup": "C2", "scala": "C0", "python": "C1"}
    axes.barh(range(len(shown)), [i["cpuSeconds"] for i in shown], color=[colors[i["side"]] for i in shown])
    axes.set_yticks(range(len(shown)), [f"{i['item']} ({i['side']})" for i in shown], fontsize=7)
    axes.set_xlabel("CPU seconds")
    fig.suptitle(
        f"./bin/test on a fresh clone: {report['wallSeconds']:,} s, {report['busyCpuSeconds']:,} CPU s "
        f"({report['machine']}, commit {report['commit']})"
    )
    fig.savefig(path, dpi=120)


CHARTS = {"test_time": chart}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the clone (benchmarks/work/test_time) afterwards")
    args = parser.parse_args()
    work = WORK / "test_time"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    clone = work / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    commit = git_commit()
    log(f"./bin/test on a fresh clone of {commit} in {clone}; its output: {work / 'test.log'}")
    code, wall, sampler = run_tests(clone, work / "test.log", work / "progress")
    write_results("test_time", report_of(code, wall, sampler, commit), markdown, chart)
    if not args.keep:
        shutil.rmtree(clone, ignore_errors=True)
    raise SystemExit(code)


if __name__ == "__main__":
    main()
