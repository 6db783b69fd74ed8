# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""What supervising a background server takes: the embedded HBase (`local.py`) and the Spark
servers (`spark_server.py`: the Thrift JDBC server and the Spark Connect server).

Each keeps its files in one directory: a lock that serializes start and stop across processes,
a JSON state file replaced atomically, and a log. Their JVMs carry a marker naming that
directory on their command lines, so a recycled pid is never taken for one of them.
"""

import json
import os
import signal
import socket
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


def process_has_arg(pid: Optional[int], arg: str, whole: bool = True) -> bool:
    """Is `pid` alive with `arg` on its command line (so not a zombie, not a recycled pid)?

    With `whole` false, `arg` may also be part of one argument.
    """
    if not pid:
        return False
    _reap(pid)
    if Path("/proc/self/cmdline").exists():
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return False
        wanted = arg.encode()
        return wanted in args if whole else any(wanted in a for a in args)
    return _signalable(pid)  # no /proc (macOS): trust the pid file


def _reap(pid: int) -> None:
    """Reaps `pid` if it is our own dead child, else it lingers as a zombie."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except (ChildProcessError, OSError):
        pass


def _signalable(pid: int) -> bool:
    """Does a process `pid` exist, by a signal 0 (for a system without /proc)?"""
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


# How long a process may read an empty command line while it starts or exits (see _command_line).
_SETTLING_SECONDS = 1.0

# The flag of a kernel thread in /proc/<pid>/stat (PF_KTHREAD): it never has a command line.
_KERNEL_THREAD = 0x00200000


def _command_line(pid: int) -> Optional[list[bytes]]:
    """The command line of live process `pid`; None if it has ended (or is a kernel thread).

    A process reads an empty command line for a moment while exec sets up its new one (its caller's
    Popen has already returned: exec closes the pipe it waits on first) and while it exits: read
    again until it has one or has ended. Read once, a process a test had just started was not seen
    by the leftover check."""
    deadline = time.monotonic() + _SETTLING_SECONDS
    while True:
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return None
        if args:
            return args.split(b"\0")
        if _kernel_thread(pid) or _ended(pid) or time.monotonic() > deadline:
            return None
        time.sleep(0.01)


def _kernel_thread(pid: int) -> bool:
    try:
        flags = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[6])
    except (OSError, IndexError, ValueError):
        return False
    return bool(flags & _KERNEL_THREAD)


def command_lines() -> dict[int, list[bytes]]:
    """pid -> command line of every live process ({} without /proc); zombies have none."""
    found = {}
    for entry in Path("/proc").iterdir() if Path("/proc/self/cmdline").exists() else ():
        if entry.name.isdigit():
            args = _command_line(int(entry.name))
            if args:
                found[int(entry.name)] = args
    return found


def _ended(pid: int) -> bool:
    """Has `pid` ended (gone, or a zombie)? Not from its command line: a process that is exiting
    reads an empty one before it is a zombie, while it still holds its files and ports."""
    if not Path("/proc/self/stat").exists():
        return not _signalable(pid)
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def pids_with_arg(arg: str, whole: bool = True) -> list[int]:
    """Every live process with `arg` on its command line (with `whole` false, in one argument); [] without /proc."""
    wanted = arg.encode()
    return sorted(
        pid for pid, args in command_lines().items() if (wanted in args if whole else any(wanted in a for a in args))
    )


def caller() -> str:
    """This process and its parent, with their command lines, for a log line."""

    def described(pid: int) -> str:
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return f"pid {pid}"
        return f"pid {pid} ({' '.join(a.decode('utf-8', 'replace') for a in args if a)[:200]})"

    return f"{described(os.getpid())} under {described(os.getppid())}"


def end_processes(pids: list[int], timeout: float) -> None:
    """SIGTERM to the group each one leads, then SIGKILL to those still alive after `timeout` s."""
    for pid in pids:
        signal_group(pid, signal.SIGTERM)

    def gone() -> bool:
        for pid in pids:
            _reap(pid)
        return all(_ended(pid) for pid in pids)

    if not wait_until(gone, timeout, 0.2):
        for pid in pids:
            signal_group(pid, signal.SIGKILL)
        wait_until(gone, 10, 0.2)


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
