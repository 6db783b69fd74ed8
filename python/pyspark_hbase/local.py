"""An embedded standalone HBase for development and tests (`spark-hbase local start|stop|status`).

One background JVM runs `HMaster start` with hbase.cluster.distributed=false: master, region
server and ZooKeeper together, storing everything on the local filesystem under the data dir.
With `region_servers` N > 1, N - 1 more JVMs each run one more region server on its own port,
sharing that ZooKeeper and root dir, so regions are spread over N servers and one can be killed
and started again on its own (`pyspark_hbase_testing.region_servers`, beside this package in the
source tree and not in the wheel, does that for the tests). Region servers named in
`without_server_jar` start without the server jar on their classpath, as in a cluster where it is
not yet deployed everywhere, and those in `other_server_jar` with another build of it, as in the
middle of a rolling upgrade. Site files are written by `site_files`, and `readiness` tells when a
start is done. With `security` (a `Security`: site settings and JVM flags, nothing more), HBase
runs secured; the tests make one for Kerberos (`pyspark_hbase_testing.kerberos`, also not in the
wheel). `extra_classpath` and `site_settings` add software that runs inside HBase (the Phoenix
benchmark adds Phoenix's jars, after HBase's own, and its settings):

    <data dir>/conf/        generated hbase-site.xml + log4j2.properties (also the client HBASE_CONF_DIR);
                            with `security`, also its core-site.xml (so also the client HADOOP_CONF_DIR)
    <data dir>/hbase/       hbase.rootdir
    <data dir>/zookeeper/   ZooKeeper snapshots and logs
    <data dir>/tmp/         hbase.tmp.dir and java.io.tmpdir
    <data dir>/logs/hbase.log, <data dir>/logs/regionserver-<n>.log (n = 2..N)
    <data dir>/logs/probe.out  what the readiness probe waited for, as `start(progress=...)` tells it
    <data dir>/hbase.pid, <data dir>/hbase-local.json (pids, ports, start time)

SPARK_HBASE_LOCAL_LOG_LEVEL (default WARN) sets the level of HBase, Hadoop and ZooKeeper logging.
"""

import datetime
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Optional, Union

from pyspark_hbase import _paths
from pyspark_hbase.daemons import (
    HOST,
    LOG_TAIL_LINES,
    accepts,
    locked,
    pick_free_ports,
    port_is_free,
    process_has_arg,
    read_state,
    signal_group,
    tail,
    wait_until,
    write_state,
)
from pyspark_hbase.readiness import PROBE_CLASS, PROBE_WAITING, NewLines, WaitReport, zk_ruok
from pyspark_hbase.site_files import read_site_xml, write_site_xml

HBASE_MAIN_CLASS = "org.apache.hadoop.hbase.master.HMaster"
REGION_SERVER_MAIN_CLASS = "org.apache.hadoop.hbase.regionserver.HRegionServer"
LOCAL_FILE_SYSTEM_CLASS = "org.apache.spark.sql.hbase.local.SingleLocalFileSystem"
DEFAULT_START_TIMEOUT = 180.0
DEFAULT_STOP_TIMEOUT = 60.0
DEFAULT_HEAP = "1g"
# Shares of the region server's heap for HBase's block cache and for its memstores (HBase's own
# defaults are 0.4 each). The rest is working memory: RPC buffers, scanners, our coprocessors'
# aggregation state, and in this one JVM the master and ZooKeeper too. HBase refuses a sum above 0.8.
DEFAULT_BLOCK_CACHE = 0.25
DEFAULT_MEMSTORE = 0.25
# How long a client of the embedded HBase waits for one call to a region server that does not
# answer (HBase's defaults: 60 s each) before it retries or gives up: a region server stuck in
# garbage collection, or stopped, fails a statement in about a minute rather than several.
CLIENT_CALL_TIMEOUT_MS = 30000
LOG_ROTATE_BYTES = 50 * 1024 * 1024

# HBase 2.6 and its shaded netty reach into JDK internals; Java 17 denies that by default.
_OPENS = [
    "java.lang",
    "java.lang.reflect",
    "java.io",
    "java.nio",
    "sun.nio.ch",
    "java.util",
    "java.util.concurrent",
    "java.util.concurrent.atomic",
    "jdk.internal.misc",
]
JAVA17_FLAGS = [f"--add-opens=java.base/{p}=ALL-UNNAMED" for p in _OPENS] + [
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true",
]

# Marks our JVMs on their command lines, so a recycled pid is never mistaken for one of them.
_DIR_MARKER = "-Dspark.hbase.local.dir="
_REGION_SERVER_MARKER = "-Dspark.hbase.local.regionserver="

_PORT_NAMES = ("zookeeper", "master", "regionserver")


class LocalHBaseError(RuntimeError):
    """The embedded HBase could not be started, stopped or reached."""


@dataclass(frozen=True)
class Security:
    """How an embedded HBase runs secured, as plain data: what `start(security=...)` was given.

    It is kept in the state file, so that every JVM of the run, and every later LocalHBase of the
    data dir, gets the same. `pyspark_hbase_testing.kerberos` makes one for a KDC's HBase.
    """

    # Over the generated hbase-site.xml (before the LocalHBase's own `site_settings`).
    hbase_site: dict[str, str] = field(default_factory=dict)
    # conf/core-site.xml, written only when there are some (Hadoop's own security settings).
    core_site: dict[str, str] = field(default_factory=dict)
    # Flags of every JVM of the data dir: the HBase servers, the readiness probe, the tools.
    jvm_flags: tuple[str, ...] = ()
    # Flags of our short-lived client JVMs only (the probe, the tools), e.g. how they log in.
    tool_flags: tuple[str, ...] = ()

    @classmethod
    def from_state(cls, state: dict) -> "Security":
        """The record again from its asdict() form, as JSON gives it back (lists, not tuples)."""
        return cls(
            hbase_site=dict(state.get("hbase_site") or {}),
            core_site=dict(state.get("core_site") or {}),
            jvm_flags=tuple(state.get("jvm_flags") or ()),
            tool_flags=tuple(state.get("tool_flags") or ()),
        )


def _now_iso() -> str:
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def _is_server_jar(entry: str) -> bool:
    name = Path(entry).name
    return name.startswith("spark-hbase-sql-server") and name.endswith(".jar")


class LocalHBase:
    """The embedded HBase of one data dir.

    The JVM outlives this object: any LocalHBase on the same data dir (another process, a later
    CLI call) finds it again through the pid and state files.
    """

    def __init__(
        self,
        data_dir: Union[str, Path, None] = None,
        *,
        classpath_file: Union[str, Path, None] = None,
        java: Optional[str] = None,
        heap: str = DEFAULT_HEAP,
        block_cache: float = DEFAULT_BLOCK_CACHE,
        memstore: float = DEFAULT_MEMSTORE,
        extra_classpath: Iterable[Union[str, Path]] = (),
        site_settings: Optional[dict[str, str]] = None,
    ):
        self.data_dir = Path(data_dir).expanduser().resolve() if data_dir is not None else _paths.default_local_dir()
        self._classpath_file = Path(classpath_file) if classpath_file is not None else None
        self._java = java
        if not re.fullmatch(r"[1-9][0-9]*[mMgG]", heap):
            raise LocalHBaseError(f"heap '{heap}': give it in megabytes or gigabytes, as 1024m or 2g")
        for name, share in (("block cache", block_cache), ("memstore", memstore)):
            if not 0 < share < 0.8:
                raise LocalHBaseError(f"{name} share {share:g}: a share of the heap is above 0 and below 0.8")
        if block_cache + memstore > 0.8:
            raise LocalHBaseError(
                f"block cache {block_cache:g} + memstore {memstore:g} = {block_cache + memstore:g}: HBase refuses "
                "to start when the two take more than 0.8 of the heap"
            )
        self.heap = heap
        self.block_cache = block_cache
        self.memstore = memstore
        # For software that runs inside HBase (another SQL engine's coprocessors, say): jars after
        # HBase's own, so that HBase's classes win, and settings over the generated hbase-site.xml.
        self._extra_classpath = [str(e) for e in extra_classpath]
        self._site_settings = dict(site_settings or {})

    # ---- paths --------------------------------------------------------------------------

    @property
    def conf_dir(self) -> Path:
        """HBASE_CONF_DIR for clients: hbase-site.xml with the ZooKeeper quorum and port."""
        return self.data_dir / "conf"

    @property
    def log_file(self) -> Path:
        return self.data_dir / "logs" / "hbase.log"

    @property
    def pid_file(self) -> Path:
        return self.data_dir / "hbase.pid"

    @property
    def state_file(self) -> Path:
        return self.data_dir / "hbase-local.json"

    # ---- state --------------------------------------------------------------------------

    def _read_state(self) -> dict:
        return read_state(self.state_file)

    def _write_state(self, state: dict) -> None:
        write_state(self.state_file, state)

    @property
    def ports(self) -> dict[str, int]:
        """Ports of the last (or current) run: zookeeper, master, regionserver; {} if never run."""
        return dict(self._read_state().get("ports") or {})

    @property
    def zk_quorum(self) -> str:
        return HOST

    @property
    def zk_port(self) -> Optional[int]:
        return self.ports.get("zookeeper")

    @property
    def zk_address(self) -> Optional[str]:
        port = self.zk_port
        return f"{HOST}:{port}" if port else None

    def _pid_from_file(self) -> Optional[int]:
        try:
            return int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None

    def _alive(self, pid: int) -> bool:
        """Is `pid` our HBase JVM (not a zombie, not a recycled pid)?"""
        return process_has_arg(pid, f"{_DIR_MARKER}{self.data_dir}")

    @property
    def pid(self) -> Optional[int]:
        """Pid of the HBase JVM of this data dir if it is alive (ready or not)."""
        pid = self._pid_from_file()
        return pid if pid is not None and self._alive(pid) else None

    def _extra_servers(self) -> dict[int, dict]:
        """The region servers in JVMs of their own, by number (2..N): {"port", "pid"}."""
        return {int(n): dict(v) for n, v in (self._read_state().get("region_servers") or {}).items()}

    def _extra_alive(self, number: int, pid: Optional[int]) -> bool:
        return bool(pid) and process_has_arg(pid, f"{_REGION_SERVER_MARKER}{self.data_dir}#{number}")

    def region_servers(self) -> list[dict]:
        """Every region server of the last (or current) run: number, port, pid and whether it is up.

        Number 1 runs in the master's JVM; the others in JVMs of their own.
        """
        ports = self.ports
        if "regionserver" not in ports:
            return []
        master = self.pid
        servers = [
            {
                "number": 1,
                "port": ports["regionserver"],
                "pid": master,
                "up": master is not None and accepts(ports["regionserver"]),
                "server_jar": True,
            }
        ]
        for number, rs in sorted(self._extra_servers().items()):
            alive = self._extra_alive(number, rs.get("pid"))
            servers.append(
                {
                    "number": number,
                    "port": rs["port"],
                    "pid": rs.get("pid") if alive else None,
                    "up": alive and accepts(rs["port"]),
                    "server_jar": rs.get("server_jar", True),
                }
            )
        return servers

    def _answers(self, ports: dict[str, int]) -> bool:
        return zk_ruok(ports["zookeeper"]) and accepts(ports["master"]) and accepts(ports["regionserver"])

    def is_running(self) -> bool:
        """True once `start` saw HBase ready, while its JVM lives and its ports answer."""
        state = self._read_state()
        ports = state.get("ports") or {}
        pid = self.pid
        return (
            pid is not None
            and state.get("pid") == pid
            and bool(state.get("ready_at"))
            and all(n in ports for n in _PORT_NAMES)
            and self._answers(ports)
        )

    def status(self) -> Optional[dict]:
        """The state (pid, ports, data dir, start time, ...) while running, else None."""
        if not self.is_running():
            return None
        return self._read_state()

    def client_conf(self, require_running: bool = True) -> dict[str, str]:
        """HBase client settings that reach this HBase (e.g. for Spark's hadoop conf)."""
        port = self.zk_port
        if port is None or (require_running and not self.is_running()):
            raise LocalHBaseError(
                f"the local HBase is not running (data dir {self.data_dir}); start it with `spark-hbase local start`"
            )
        return {
            "hbase.zookeeper.quorum": HOST,
            "hbase.zookeeper.property.clientPort": str(port),
            "hbase.rpc.timeout": str(CLIENT_CALL_TIMEOUT_MS),
            "hbase.client.scanner.timeout.period": str(CLIENT_CALL_TIMEOUT_MS),
        }

    # ---- start --------------------------------------------------------------------------

    def _lock(self):
        """Serializes start/stop of one data dir across processes."""
        return locked(self.data_dir)

    def _choose_ports(self) -> dict[str, int]:
        old = self.ports
        if (
            all(isinstance(old.get(n), int) for n in _PORT_NAMES)
            and len({old[n] for n in _PORT_NAMES}) == len(_PORT_NAMES)
            and all(port_is_free(old[n]) for n in _PORT_NAMES)
        ):
            return {n: old[n] for n in _PORT_NAMES}
        return dict(zip(_PORT_NAMES, pick_free_ports(len(_PORT_NAMES))))

    @property
    def security(self) -> Optional[Security]:
        """The security of the last (or current) run; None if it ran without."""
        s = self._read_state().get("security")
        return Security.from_state(s) if s else None

    def _write_conf(self, ports: dict[str, int], security: Optional[Security]) -> None:
        template = _paths.conf_dir()
        site = template / "hbase-site.xml"
        if not site.is_file():
            raise LocalHBaseError(f"missing {site}")
        props = read_site_xml(site)
        d = self.data_dir
        props.update(
            {
                "hbase.cluster.distributed": "false",
                "hbase.rootdir": f"file://{d / 'hbase'}",
                "hbase.tmp.dir": str(d / "tmp"),
                # Where LOAD DATA stages its HFiles: the same file system as hbase.rootdir.
                "hbase.fs.tmp.dir": str(d / "staging"),
                "hbase.zookeeper.property.dataDir": str(d / "zookeeper"),
                "hbase.zookeeper.quorum": HOST,
                "hbase.zookeeper.property.clientPort": str(ports["zookeeper"]),
                "hbase.master.port": str(ports["master"]),
                "hbase.regionserver.port": str(ports["regionserver"]),
                "hbase.master.ipc.address": HOST,
                "hbase.regionserver.ipc.address": HOST,
                "hbase.master.hostname": HOST,
                "hbase.unsafe.regionserver.hostname": HOST,
                "hfile.block.cache.size": f"{self.block_cache:g}",
                "hbase.regionserver.global.memstore.size": f"{self.memstore:g}",
            }
        )
        self.conf_dir.mkdir(parents=True, exist_ok=True)
        core = self.conf_dir / "core-site.xml"
        if security is not None:
            props.update(security.hbase_site)
        if security is not None and security.core_site:
            write_site_xml(core, security.core_site, site)
        else:
            core.unlink(missing_ok=True)
        props.update(self._site_settings)
        write_site_xml(self.conf_dir / "hbase-site.xml", props, site)
        log4j = template / "log4j2.properties"
        if log4j.is_file():
            (self.conf_dir / "log4j2.properties").write_bytes(log4j.read_bytes())

    def _jvm_common(self, java: str) -> list[str]:
        security = self.security
        return [
            java,
            *JAVA17_FLAGS,
            "-Djava.net.preferIPv4Stack=true",
            f"-Dlog4j2.configurationFile={self.conf_dir / 'log4j2.properties'}",
            # stdout already goes into the log file: no second copy of each line.
            "-Dspark.hbase.log.console=OFF",
            *(security.jvm_flags if security else ()),
        ]

    def _tool_jvm(self, java: str, classpath: list[str], log_name: str) -> list[str]:
        """A short-lived HBase client JVM of ours (the probe, AccessTool), up to its main class.

        With `security`, its `tool_flags` too (with Kerberos: the login as HBase's superuser).
        """
        security = self.security
        # C1 only and serial GC: a short-lived client, competing for CPU with HBase.
        return [
            *self._jvm_common(java),
            "-Xmx256m",
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            f"-Dspark.hbase.log.file={self.data_dir / 'logs' / log_name}",
            "-Dspark.hbase.log.level=ERROR",
            *(security.tool_flags if security else ()),
            # The conf dir first: the tool reads hbase-site.xml from the classpath.
            "-cp",
            os.pathsep.join([str(self.conf_dir), *classpath]),
        ]

    def _hbase_jvm(self, java: str, log_file: Path) -> list[str]:
        """The JVM flags of every HBase server JVM of this data dir, up to its own flags."""
        return [
            *self._jvm_common(java),
            f"-Xmx{self.heap}",
            "-XX:+ExitOnOutOfMemoryError",
            f"-Djava.io.tmpdir={self.data_dir / 'tmp'}",
            f"-Dspark.hbase.log.file={log_file}",
            f"-Dspark.hbase.log.level={os.environ.get('SPARK_HBASE_LOCAL_LOG_LEVEL', 'WARN')}",
            f"{_DIR_MARKER}{self.data_dir}",
        ]

    def _server_command(self, java: str, classpath: list[str]) -> list[str]:
        return [
            *self._hbase_jvm(java, self.log_file),
            # ZooKeeper 3.5+ would otherwise open its admin web server on port 8080.
            "-Dzookeeper.admin.enableServer=false",
            "-cp",
            os.pathsep.join([str(self.conf_dir), *classpath]),
            # Bulk-loaded files are moved, not copied twice (see the class). On the command line,
            # not in hbase-site.xml: clients read that file too, without the class on their classpath.
            HBASE_MAIN_CLASS,
            "-D",
            f"fs.file.impl={LOCAL_FILE_SYSTEM_CLASS}",
            "start",
        ]

    def _region_server_command(self, java: str, classpath: list[str], number: int, port: int) -> list[str]:
        return [
            *self._hbase_jvm(java, self.data_dir / "logs" / f"regionserver-{number}.log"),
            f"{_REGION_SERVER_MARKER}{self.data_dir}#{number}",
            "-cp",
            os.pathsep.join([str(self.conf_dir), *classpath]),
            # A region server of its own joins the cluster only when HBase is "distributed".
            REGION_SERVER_MAIN_CLASS,
            "-D",
            f"fs.file.impl={LOCAL_FILE_SYSTEM_CLASS}",
            "-D",
            "hbase.cluster.distributed=true",
            "-D",
            f"hbase.regionserver.port={port}",
            "start",
        ]

    def _start_region_server(
        self, java: str, classpath: list[str], number: int, server_jar: Union[bool, str] = True
    ) -> int:
        """Launches region server `number` (2..N) on the port it had before, if that is free; `server_jar`
        False runs it without the server jar, a path with that jar in its place."""
        if server_jar is not True:
            at = next((i for i, e in enumerate(classpath) if _is_server_jar(e)), len(classpath))
            classpath = [e for e in classpath if not _is_server_jar(e)]
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

    def _wait_gone_extra(self, number: int, pid: int, timeout: float) -> bool:
        return wait_until(lambda: not self._extra_alive(number, pid), timeout)

    def _stop_extra_servers(self, sig: int, timeout: float) -> None:
        """Signals every region server of its own, then waits, killing those still up."""
        servers = [(n, rs.get("pid")) for n, rs in self._extra_servers().items() if self._extra_alive(n, rs.get("pid"))]
        for _, pid in servers:
            signal_group(pid, sig)
        for number, pid in servers:
            if not self._wait_gone_extra(number, pid, timeout):
                signal_group(pid, signal.SIGKILL)
                self._wait_gone_extra(number, pid, 10)

    def _log(self, message: str) -> None:
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_file, "a") as f:
            f.write(f"{_now_iso()} ===== spark-hbase local: {message}\n")

    def start(
        self,
        timeout: float = DEFAULT_START_TIMEOUT,
        region_servers: int = 1,
        without_server_jar: Iterable[int] = (),
        other_server_jar: Optional[dict[int, Union[str, Path]]] = None,
        security: Optional[Security] = None,
        progress: Optional[Callable[[str], None]] = None,
    ) -> int:
        """Start HBase unless it already runs; wait until it serves clients. Returns the master's pid.

        With `region_servers` N, region servers 2..N that are not up (never started, or killed) are
        started too, and `start` waits until all N serve regions. Those it starts whose numbers are
        in `without_server_jar` run without the server jar, and those in `other_server_jar` with the jar it
        gives them instead (another version's). `security` secures an HBase that
        starts now; one that already runs keeps the security it started with. While it waits,
        `progress` (if given) is called with what it waits for, e.g. "waiting for the master to
        initialize", each time that changes, at most every PROGRESS_INTERVAL seconds.
        """
        if region_servers < 1:
            raise LocalHBaseError(f"region_servers must be at least 1, not {region_servers}")
        jars: dict[int, Union[bool, str]] = {n: False for n in without_server_jar}
        for number, jar in (other_server_jar or {}).items():
            if not Path(jar).is_file():
                raise LocalHBaseError(f"other_server_jar: no jar at {jar} for region server {number}")
            jars[number] = str(Path(jar).resolve())
        if not set(jars) <= set(range(2, region_servers + 1)):
            raise LocalHBaseError(
                f"without_server_jar and other_server_jar name region servers 2..{region_servers} only, "
                f"not {sorted(jars)}: region server 1 runs in the master's JVM"
            )
        with self._lock():
            pid = self.pid
            if pid is None:
                self.pid_file.unlink(missing_ok=True)
                return self._start_new(timeout, region_servers, jars, security, progress)
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
            # Alive but not known ready (e.g. its launcher died): same deal as a fresh start.
            # Outside the try: a missing build is no reason to kill that HBase.
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
            state["ready_at"] = _now_iso()
            self._write_state(state)
            return pid

    def _start_new(
        self,
        timeout: float,
        region_servers: int,
        jars: dict[int, Union[bool, str]],
        security: Optional[Security],
        progress: Optional[Callable[[str], None]],
    ) -> int:
        java, classpath, classpath_file = self._runtime()
        for sub in ("hbase", "zookeeper", "tmp", "logs"):
            (self.data_dir / sub).mkdir(parents=True, exist_ok=True)
        ports = self._choose_ports()
        self._write_conf(ports, security)
        # Every JVM of this run reads it from the state (its JVM flags, the tools' flags).
        state = self._read_state()
        state["security"] = asdict(security) if security else None
        self._write_state(state)

        if self.log_file.is_file() and self.log_file.stat().st_size > LOG_ROTATE_BYTES:
            os.replace(self.log_file, self.log_file.with_name(self.log_file.name + ".1"))
        t0 = time.monotonic()
        self._log(f"starting HBase (ports {ports}, classpath {classpath_file})")
        proc = self._launch(self._server_command(java, classpath))
        self.pid_file.write_text(f"{proc.pid}\n")
        # Region servers of their own get their old ports again, where free.
        servers = {
            str(n): {"port": rs["port"], "pid": None} for n, rs in self._extra_servers().items() if n <= region_servers
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
            "started_at": _now_iso(),
            "ready_at": None,
            "startup_seconds": None,
            "security": state["security"],
        }
        self._write_state(state)
        try:
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
        state["ready_at"] = _now_iso()
        state["startup_seconds"] = round(time.monotonic() - t0, 1)
        self._write_state(state)
        self._log(f"HBase ready after {state['startup_seconds']} s (pid {proc.pid})")
        return proc.pid

    def _fail(self, message: str) -> LocalHBaseError:
        self._log(f"start failed: {message}")
        return LocalHBaseError(
            f"{message}\nlog file: {self.log_file}\n--- last {LOG_TAIL_LINES} log lines ---\n{tail(self.log_file)}"
        )

    # ---- readiness ----------------------------------------------------------------------

    def _runtime(self) -> tuple[str, list[str], Path]:
        """(java, classpath entries, classpath file); fails with the build command to run."""
        classpath_file = self._classpath_file or _paths.hbase_classpath_file()
        try:
            classpath = _paths.read_classpath(classpath_file) + self._extra_classpath
            # Checked before HBase starts: without the probe its readiness can't be told.
            _paths.require_class(classpath, PROBE_CLASS, classpath_file)
            java = self._java or _paths.java_executable()
        except _paths.PathsError as e:
            raise LocalHBaseError(str(e)) from None
        return java, classpath, classpath_file

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
        """Waits for the probe, telling `progress` what it waits for. `restarted` is (launch time in
        epoch ms, ports) of region servers just started beside a running master; the dead ones they
        replace may still count as live."""
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
        """SIGTERM, then SIGKILL if HBase is still up after `timeout` s. False if it wasn't running."""
        if not self.data_dir.is_dir():
            return False
        with self._lock():
            pid = self.pid
            if pid is None:
                self.pid_file.unlink(missing_ok=True)
                self._stop_extra_servers(signal.SIGKILL, 10)  # left without a master
                return False
            self._log(f"stopping HBase (pid {pid})")
            t0 = time.monotonic()
            # HBase's shutdown hooks close the regions, which flushes the memstores; the region
            # servers of their own go first, so that theirs are closed by them.
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
            state.update(pid=None, stopped_at=_now_iso())
            self._write_state(state)
            self._log(f"HBase stopped after {time.monotonic() - t0:.1f} s")
            return True


def hbase_client_conf(data_dir: Union[str, Path, None] = None) -> dict[str, str]:
    """{"hbase.zookeeper.quorum": ..., "hbase.zookeeper.property.clientPort": ...} of a running local HBase."""
    return LocalHBase(data_dir).client_conf()
