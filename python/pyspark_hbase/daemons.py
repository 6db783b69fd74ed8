"""Supervising background servers: the embedded HBase (`local.py`) and the Spark servers, the
Thrift JDBC server (`thriftserver.py`) and the Spark Connect server (`connect.py`).

Each keeps its files in one directory: a lock that serializes start and stop across processes,
a JSON state file replaced atomically, and a log. Their JVMs carry a marker naming that
directory on their command lines, so a recycled pid is never taken for one of them.
"""

import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Optional

try:
    import fcntl
except ImportError:  # Windows: no lock; the servers are not supported there anyway.
    fcntl = None

HOST = "127.0.0.1"
LOG_TAIL_LINES = 20


def process_has_arg(pid: Optional[int], arg: str, whole: bool = True) -> bool:
    """Is `pid` alive with `arg` on its command line (so not a zombie, not a recycled pid)?

    With `whole` false, `arg` may also be part of one argument.
    """
    if not pid:
        return False
    try:
        # Reap it if it is our own dead child, else it lingers as a zombie.
        os.waitpid(pid, os.WNOHANG)
    except (ChildProcessError, OSError):
        pass
    if Path("/proc/self/cmdline").exists():
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return False
        wanted = arg.encode()
        return wanted in args if whole else any(wanted in a for a in args)
    try:  # No /proc (macOS): trust the pid file.
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def pick_free_ports(n: int) -> list[int]:
    socks = []
    try:
        # Hold all sockets open until done so the kernel hands out distinct ports.
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            socks.append(s)
            s.bind((HOST, 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def port_is_free(port: int) -> bool:
    """Can a server bind `port` on 127.0.0.1 now?"""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # Same as the JVM's server sockets: TIME_WAIT leftovers of our last run don't count.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
            return True
        except OSError:
            return False


def accepts(port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=timeout):
            return True
    except OSError:
        return False


def tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 64 * 1024))
            data = f.read().decode("utf-8", "replace")
    except OSError:
        return "(no log written)"
    return "\n".join(data.splitlines()[-lines:])


@contextmanager
def locked(directory: Path) -> Iterator[None]:
    """Serializes start and stop of the server whose files are in `directory`, across processes."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "w") as f:
        if fcntl is not None:
            fcntl.flock(f, fcntl.LOCK_EX)
        yield


def read_state(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def write_state(path: Path, state: dict) -> None:
    """Replaces the state file whole, so a reader never sees half of it."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


def signal_group(pid: int, sig: int) -> None:
    """Signals the process group `pid` leads (the JVM and anything it started)."""
    try:
        os.killpg(pid, sig)
    except OSError:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def wait_until(done: Callable[[], bool], timeout: float, step: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(step)
    return True


def terminate(pid: int, alive: Callable[[int], bool], timeout: float) -> None:
    """SIGTERM to the group, then SIGKILL if it is still alive after `timeout` s."""
    signal_group(pid, signal.SIGTERM)
    if not wait_until(lambda: not alive(pid), timeout, 0.2):
        signal_group(pid, signal.SIGKILL)
        wait_until(lambda: not alive(pid), 10)


class ServerError(RuntimeError):
    """A server could not be started or stopped; the message says why."""


class SparkServer:
    """A Spark application that serves clients on one port of 127.0.0.1, run by spark-submit in
    the background with the plugin. Subclasses name the main class and its arguments."""

    name = "server"
    main_class = ""
    default_start_timeout = 240.0

    def __init__(self, directory: Path, hbase_data_dir: Optional[Path]):
        self.dir = directory
        self.hbase_data_dir = hbase_data_dir
        self.state_file = directory / "state.json"
        self.log_file = directory / "server.log"
        self._marker = f"-Dspark.hbase.server.dir={directory}"

    def url(self, port: int) -> str:
        raise NotImplementedError

    def server_args(self, port: int) -> list[str]:
        """spark-submit's arguments after --class and the plugin's: conf, the jar, then the main's."""
        raise NotImplementedError

    def _alive(self, pid: Optional[int]) -> bool:
        # The marker is one word of the driver options, which spark-submit passes as one argument.
        return process_has_arg(pid, self._marker, whole=False)

    @property
    def port(self) -> Optional[int]:
        return read_state(self.state_file).get("port")

    @property
    def address(self) -> Optional[str]:
        return self.url(self.port) if self.port else None

    def is_running(self) -> bool:
        state = read_state(self.state_file)
        return self._alive(state.get("pid")) and bool(state.get("port")) and accepts(state["port"])

    def start(self, timeout: Optional[float] = None, port: Optional[int] = None) -> str:
        """Starts the server unless it runs already; returns its URL once it accepts connections.

        It listens on `port` if given, else on the port it had last time in this directory (so
        that a JDBC URL in a tool's settings outlives a restart), else on a free one.
        """
        from .session import submit_args
        from .spark_cli import spark_home

        timeout = self.default_start_timeout if timeout is None else timeout
        with locked(self.dir):
            if self.is_running():
                if port is not None and port != self.port:
                    raise ServerError(
                        f"the {self.name} already runs on port {self.port}, not {port}: stop it first "
                        f"to move it to port {port}"
                    )
                return self.address
            port = self._port_to_listen_on(port)
            driver_options = " ".join(
                [self._marker, f"-Dderby.system.home={self.dir}", f"-Dspark.hbase.log.file={self.log_file}"]
            )
            command = [
                str(spark_home() / "bin" / "spark-submit"),
                "--class",
                self.main_class,
                *submit_args(data_dir=self.hbase_data_dir),
                "--conf",
                f"spark.sql.warehouse.dir={self.dir / 'warehouse'}",
                "--conf",
                "spark.ui.enabled=false",
                "--driver-java-options",
                driver_options,
                *self.server_args(port),
            ]
            env = dict(os.environ, SPARK_HOME=str(spark_home()), SPARK_LOCAL_IP=HOST)
            with open(self.log_file, "ab") as log:
                proc = subprocess.Popen(
                    command,
                    cwd=self.dir,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            write_state(self.state_file, {"pid": proc.pid, "port": port})
            deadline = time.monotonic() + timeout
            while not accepts(port):
                if proc.poll() is not None:
                    raise ServerError(
                        f"the {self.name} exited with code {proc.returncode} during startup\n"
                        f"log file: {self.log_file}\n{tail(self.log_file)}"
                    )
                if time.monotonic() > deadline:
                    terminate(proc.pid, self._alive, 60)
                    raise ServerError(
                        f"the {self.name} did not accept connections within {timeout:g} s\n"
                        f"log file: {self.log_file}\n{tail(self.log_file)}"
                    )
                time.sleep(0.5)
            return self.url(port)

    def _port_to_listen_on(self, asked: Optional[int]) -> int:
        if asked is not None:
            if not 0 < asked < 65536:
                raise ServerError(f"--port {asked}: a port is a number from 1 to 65535")
            if not port_is_free(asked):
                raise ServerError(f"--port {asked}: port {asked} of {HOST} is in use by another program")
            return asked
        last = self.port
        if last and port_is_free(last):
            return last
        return pick_free_ports(1)[0]

    def stop(self, timeout: float = 60.0) -> bool:
        """Stops the server; False if it was not running."""
        with locked(self.dir):
            state = read_state(self.state_file)
            pid = state.get("pid")
            if not self._alive(pid):
                return False
            terminate(pid, self._alive, timeout)
            state["pid"] = None
            write_state(self.state_file, state)
            return True
