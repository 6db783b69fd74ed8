# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""An embedded standalone HBase for development and tests (`spark-hbase local start|stop|status`).

One background JVM runs `HMaster start` with hbase.cluster.distributed=false: master, region
server and ZooKeeper together, storing everything on the local filesystem under the data dir.
With `region_servers` N > 1, N - 1 more JVMs each run one more region server on its own port,
sharing that ZooKeeper and root dir, so regions are spread over N servers. Region servers given
in `server_jars` run with another server jar than the build's, or none (a cluster where it is not
deployed everywhere, or in the middle of a rolling upgrade). `local_conf` generates its site files
and JVM command lines, with what a caller adds (`Additions`); `local_state` reads its state back;
`readiness` tells when a start is done. The data dir:

    <data dir>/conf/        generated hbase-site.xml + log4j2.properties (also the client HBASE_CONF_DIR);
                            with additions' core-site settings, core-site.xml (the client HADOOP_CONF_DIR)
    <data dir>/hbase/, zookeeper/, tmp/   hbase.rootdir, ZooKeeper's files, hbase.tmp.dir
    <data dir>/logs/hbase.log, regionserver-<n>.log (n = 2..N), probe.out (what the probe waited for)
    <data dir>/hbase.pid, <data dir>/hbase-local.json (pids, ports, start time)

SPARK_HBASE_LOCAL_LOG_LEVEL (default WARN) sets HBase's, Hadoop's and ZooKeeper's log level; HBASE_OPTS adds JVM flags.
"""

import os
import signal
import subprocess
import time
from dataclasses import asdict
from pathlib import Path
from typing import Callable, Optional, Union

from pyspark_hbase.daemons import HOST, caller, pick_free_ports, port_is_free, signal_group, wait_until
from pyspark_hbase.local_conf import (
    DEFAULT_BLOCK_CACHE,
    DEFAULT_HEAP,
    DEFAULT_MEMSTORE,
    DEFAULT_START_TIMEOUT,
    DEFAULT_STOP_TIMEOUT,
    JAVA17_FLAGS,
    LOG_ROTATE_BYTES,
    Additions,
    LocalHBaseError,
    is_server_jar,
    now_iso,
)
from pyspark_hbase.local_state import LocalHBaseState, hbase_client_conf
from pyspark_hbase.logs import LOG_TAIL_LINES, tail
from pyspark_hbase.readiness import PROBE_CLASS, PROBE_WAITING, NewLines, WaitReport, zk_ready_by, zk_ruok

# Also what callers of this module use (the CLI's defaults, the JVM flags of benchmarks' own tools).
__all__ = [
    "DEFAULT_BLOCK_CACHE",
    "DEFAULT_HEAP",
    "DEFAULT_MEMSTORE",
    "DEFAULT_START_TIMEOUT",
    "DEFAULT_STOP_TIMEOUT",
    "JAVA17_FLAGS",
    "Additions",
    "LocalHBase",
    "LocalHBaseError",
    "hbase_client_conf",
]


class LocalHBase(LocalHBaseState):
    """The embedded HBase of one data dir.

    The JVM outlives this object: any LocalHBase on the same data dir (another process, a later
    CLI call) finds it again through the pid and state files.
    """

    def _start_region_server(
        self, java: str, classpath: list[str], number: int, server_jar: Union[bool, str] = True
    ) -> int:
        """Launches region server `number` (2..N) on the port it had before, if that is free; `server_jar`
        False runs it without the server jar, a path with that jar in its place."""
        if server_jar is not True:
            at = next((i for i, e in enumerate(classpath) if is_server_jar(e)), len(classpath))
            classpath = [e for e in classpath if not is_server_jar(e)]
            if server_jar:
                classpath.insert(at, server_jar)
        state = self._read_state()
        servers = state.setdefault("region_servers", {})
        taken = set(self.ports.values()) | {rs["port"] for n, rs in servers.items() if int(n) != number}
        port = (servers.get(str(number)) or {}).get("port")
        if not port or port in taken or not port_is_free(port):
            port = next(p for p in pick_free_ports(len(taken) + 1) if p not in taken)
        self._log(f"starting region server {number} on port {port}")
        proc = self._launch(self._region_server_command(java, classpath, number, port))
        servers[str(number)] = {"port": port, "pid": proc.pid, "server_jar": server_jar}
        self._write_state(state)
        return proc.pid

    def _launch(self, command: list[str]) -> subprocess.Popen:
        """Starts one of HBase's JVMs in a session of its own, its output appended to the log file."""
        with open(self.log_file, "ab") as log:
            return subprocess.Popen(
                command,
                cwd=self.data_dir,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                close_fds=True,
            )

    def start(
        self,
        timeout: float = DEFAULT_START_TIMEOUT,
        region_servers: int = 1,
        server_jars: Optional[dict[int, Union[str, Path, None]]] = None,
        additions: Optional[Additions] = None,
        progress: Optional[Callable[[str], None]] = None,
    ) -> int:
        """Start HBase unless it already runs; wait until it serves clients. Returns the master's pid.

        With `region_servers` N, region servers 2..N that are not up (never started, or killed) are
        started too, and `start` waits until all N serve regions. Those it starts whose numbers are
        given in `server_jars` run with the jar it names instead of the build's (another version's),
        or without one (None). `additions` (jars, settings, JVM flags) go into an HBase that
        starts now; one that already runs keeps those it started with. While it waits,
        `progress` (if given) is called with what it waits for, e.g. "waiting for the master to
        initialize", each time that changes, at most every PROGRESS_INTERVAL seconds.
        """
        if region_servers < 1:
            raise LocalHBaseError(f"region_servers must be at least 1, not {region_servers}")
        jars: dict[int, Union[bool, str]] = {}
        for number, jar in (server_jars or {}).items():
            if jar is not None and not Path(jar).is_file():
                raise LocalHBaseError(f"server_jars: no jar at {jar} for region server {number}")
            jars[number] = str(Path(jar).resolve()) if jar is not None else False
        if not set(jars) <= set(range(2, region_servers + 1)):
            raise LocalHBaseError(
                f"server_jars names region servers 2..{region_servers} only, "
                f"not {sorted(jars)}: region server 1 runs in the master's JVM"
            )
        with self._lock():
            pid = self.pid
            if pid is None:
                self.pid_file.unlink(missing_ok=True)
                return self._start_new(timeout, region_servers, jars, additions, progress)
            if self.is_running():
                missing = [
                    n
                    for n in range(2, region_servers + 1)
                    if not self._extra_alive(n, self._extra_servers().get(n, {}).get("pid"))
                ]
                if missing:
                    java, classpath, _ = self._runtime()
                    t0 = time.monotonic()
                    launched_ms = int(time.time() * 1000)
                    for number in missing:
                        self._start_region_server(java, classpath, number, server_jar=jars.get(number, True))
                    servers = self._extra_servers()
                    self._wait_ready(
                        java,
                        classpath,
                        None,
                        pid,
                        self.ports,
                        t0,
                        timeout,
                        region_servers=1 + sum(1 for n, rs in servers.items() if self._extra_alive(n, rs.get("pid"))),
                        restarted=(launched_ms, [servers[n]["port"] for n in missing]),
                        progress=progress,
                    )
                return pid
            # Alive but not known ready (e.g. its launcher died): same deal as a fresh start. Outside the try: a missing
            # build is no reason to kill that HBase.
            java, classpath, _ = self._runtime()
            state = self._read_state()
            state["pid"] = pid
            try:
                self._wait_ready(
                    java,
                    classpath,
                    None,
                    pid,
                    self.ports,
                    time.monotonic(),
                    timeout,
                    region_servers=1,
                    progress=progress,
                )
            except BaseException:
                self._kill(pid)
                self.pid_file.unlink(missing_ok=True)
                raise
            state["ready_at"] = now_iso()
            self._write_state(state)
            return pid

    def _start_new(
        self,
        timeout: float,
        region_servers: int,
        jars: dict[int, Union[bool, str]],
        additions: Optional[Additions],
        progress: Optional[Callable[[str], None]],
    ) -> int:
        # Every JVM of this run reads them from the state (its classpath, its JVM flags, the tools' flags).
        self.data_dir.mkdir(parents=True, exist_ok=True)
        state = self._read_state()
        state["additions"] = asdict(additions) if additions else None
        self._write_state(state)
        java, classpath, classpath_file = self._runtime()
        for sub in ("hbase", "zookeeper", "tmp", "logs"):
            (self.data_dir / sub).mkdir(parents=True, exist_ok=True)
        ports = self._choose_ports()
        self._write_conf(ports, additions)

        if self.log_file.is_file() and self.log_file.stat().st_size > LOG_ROTATE_BYTES:
            os.replace(self.log_file, self.log_file.with_name(self.log_file.name + ".1"))
        t0 = time.monotonic()
        self._log(f"starting HBase (ports {ports}, classpath {classpath_file})")
        proc = self._launch(self._server_command(java, classpath))
        # From here on, a failure or an interrupt ends what was started.
        try:
            self.pid_file.write_text(f"{proc.pid}\n")
            servers = {  # region servers of their own get their old ports again, where free
                str(n): {"port": rs["port"], "pid": None}
                for n, rs in self._extra_servers().items()
                if n <= region_servers
            }
            state = {
                "pid": proc.pid,
                "zk_port": ports["zookeeper"],
                "ports": ports,
                "region_servers": servers,
                "zk_quorum": HOST,
                "data_dir": str(self.data_dir),
                "conf_dir": str(self.conf_dir),
                "log_file": str(self.log_file),
                "classpath_file": str(classpath_file),
                "java": java,
                "started_at": now_iso(),
                "ready_at": None,
                "startup_seconds": None,
                "additions": state["additions"],
            }
            self._write_state(state)
            if region_servers > 1:  # each of their own aborts if its first call to ZooKeeper fails
                zk_ready_by(ports["zookeeper"], t0 + timeout, lambda: proc.poll() is None, WaitReport(progress))
            for number in range(2, region_servers + 1):
                self._start_region_server(java, classpath, number, server_jar=jars.get(number, True))
            self._wait_ready(java, classpath, proc, proc.pid, ports, t0, timeout, region_servers, progress=progress)
        except BaseException:
            self._stop_extra_servers(signal.SIGKILL, 10)
            self._kill(proc.pid)
            self.pid_file.unlink(missing_ok=True)
            state = self._read_state()
            state["pid"] = None
            self._write_state(state)
            raise
        state = self._read_state()
        state["ready_at"] = now_iso()
        state["startup_seconds"] = round(time.monotonic() - t0, 1)
        self._write_state(state)
        self._log(f"HBase ready after {state['startup_seconds']} s (pid {proc.pid})")
        return proc.pid

    def _fail(self, message: str) -> LocalHBaseError:
        self._log(f"start failed: {message}")
        return LocalHBaseError(
            f"{message}\nlog file: {self.log_file}\n--- last {LOG_TAIL_LINES} log lines ---\n{tail(self.log_file)}"
        )

    def _run_probe(
        self,
        java: str,
        classpath: list[str],
        out: Path,
        seconds: int,
        region_servers: int,
        restarted: Optional[tuple[int, list[int]]],
    ) -> subprocess.Popen:
        launched = [str(restarted[0]), *map(str, restarted[1])] if restarted else []
        # By number, so that the probe can say which region server it waits for.
        numbered = {
            1: self.ports["regionserver"],
            **{n: rs["port"] for n, rs in self._extra_servers().items() if self._extra_alive(n, rs.get("pid"))},
        }
        with open(out, "wb") as f:
            return subprocess.Popen(
                [
                    *self._tool_jvm(java, classpath, "probe.log"),
                    "-Dspark.hbase.local.regionServers="
                    + ",".join(f"{n}:{port}" for n, port in sorted(numbered.items())),
                    PROBE_CLASS,
                    str(seconds),
                    str(region_servers),
                    *launched,
                ],
                cwd=self.data_dir,
                stdin=subprocess.DEVNULL,
                stdout=f,
                stderr=subprocess.STDOUT,
            )

    def _wait_ready(
        self,
        java: str,
        classpath: list[str],
        proc: Optional[subprocess.Popen],
        pid: int,
        ports: dict[str, int],
        t0: float,
        timeout: float,
        region_servers: int,
        restarted: Optional[tuple[int, list[int]]] = None,
        progress: Optional[Callable[[str], None]] = None,
    ) -> None:
        """Waits for the probe, telling `progress` what it waits for. `restarted` is (launch time in epoch ms,
        ports) of region servers just started beside a running master; the dead ones they replace may still count."""
        deadline = t0 + timeout
        report = WaitReport(progress)

        def server_died() -> Optional[str]:
            if proc is not None:
                rc = proc.poll()
                return None if rc is None else f"HBase exited with code {rc} during startup"
            return None if self._alive(pid) else "HBase exited during startup"

        probe = None
        probe_out = self.data_dir / "logs" / "probe.out"
        probe_lines = NewLines(probe_out)
        try:
            while True:
                died = server_died()
                if died:
                    raise self._fail(died)
                # Launch the probe JVM only once ZooKeeper is up, so it doesn't slow HBase's boot.
                if probe is None:
                    if zk_ruok(ports["zookeeper"], timeout=0.5):
                        seconds = max(1, int(deadline - time.monotonic()) + 1)
                        probe = self._run_probe(java, classpath, probe_out, seconds, region_servers, restarted)
                        report.waiting("HBase to answer its clients")
                    else:
                        report.waiting(f"ZooKeeper on {HOST}:{ports['zookeeper']}")
                if probe is not None:
                    for line in probe_lines():
                        if line.startswith(PROBE_WAITING):
                            report.waiting(line[len(PROBE_WAITING) :])
                    rc = probe.poll()
                    if rc == 0:
                        return
                    if rc is not None:
                        raise self._fail(f"HBase did not become ready: {tail(probe_out, 5)}")
                report.waiting()
                if time.monotonic() > deadline:
                    raise self._fail(
                        f"HBase did not become ready within {timeout:g} s"
                        + (f" (waiting for {report.waiting_for})" if report.waiting_for else "")
                    )
                time.sleep(0.2)
        finally:
            if probe is not None and probe.poll() is None:
                probe.kill()
                probe.wait()

    # ---- stop ---------------------------------------------------------------------------

    def _wait_gone(self, pid: int, timeout: float) -> bool:
        return wait_until(lambda: not self._alive(pid), timeout)

    def _kill(self, pid: int) -> None:
        signal_group(pid, signal.SIGKILL)
        self._wait_gone(pid, 10)

    def stop(self, timeout: float = DEFAULT_STOP_TIMEOUT) -> bool:
        """SIGTERM, then SIGKILL if HBase is still up after `timeout` s. False if it wasn't running.

        JVMs of the data dir that its files lost track of are ended too (see `_end_strays`)."""
        if not self.data_dir.is_dir():
            return self._end_strays(timeout)
        with self._lock():
            pid = self.pid
            if pid is None:
                self.pid_file.unlink(missing_ok=True)
                self._stop_extra_servers(signal.SIGKILL, 10)  # left without a master
                return self._end_strays(timeout)
            self._log(f"stopping HBase (pid {pid}), asked by {caller()}")
            t0 = time.monotonic()
            # HBase's shutdown hooks close the regions, which flushes the memstores; the region servers of their own go
            # first, so that theirs are closed by them.
            self._stop_extra_servers(signal.SIGTERM, timeout)
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            if not self._wait_gone(pid, timeout):
                self._log(f"HBase did not stop within {timeout:g} s; killing it")
                self._kill(pid)
            self.pid_file.unlink(missing_ok=True)
            state = self._read_state()
            state.update(pid=None, stopped_at=now_iso())
            self._write_state(state)
            self._end_strays(10)
            self._log(f"HBase stopped after {time.monotonic() - t0:.1f} s")
            return True
