"""Spark's Thrift JDBC server (HiveThriftServer2) with HBase SQL, on 127.0.0.1.

`spark-hbase thriftserver start|stop|status`. Its files live under <data dir>/thriftserver/:
the Derby metastore, the warehouse, the log, and a state file with the pid and port.
"""

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Optional, Union

from .local import HOST, LocalHBase, _accepts, _pick_free_ports, _tail, process_has_arg
from .session import submit_args
from .spark_cli import spark_home

MAIN_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"
DEFAULT_START_TIMEOUT = 240.0
_MARKER = "-Dspark.hbase.thriftserver.dir="


class ThriftServerError(RuntimeError):
    """The Thrift server could not be started or stopped; the message says why."""


class ThriftServer:
    def __init__(self, data_dir: Union[str, Path, None] = None):
        local_dir = LocalHBase(data_dir).data_dir
        self.hbase_data_dir = local_dir if data_dir is not None else None
        self.dir = local_dir / "thriftserver"
        self.state_file = self.dir / "thriftserver.json"
        self.log_file = self.dir / "thriftserver.log"

    def _state(self) -> dict:
        try:
            return json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return {}

    def _alive(self, pid: Optional[int]) -> bool:
        # The marker is one word of the driver options, which spark-submit passes as one argument.
        return process_has_arg(pid, f"{_MARKER}{self.dir}", whole=False)

    @property
    def port(self) -> Optional[int]:
        return self._state().get("port")

    @property
    def jdbc_url(self) -> Optional[str]:
        return f"jdbc:hive2://{HOST}:{self.port}/default" if self.port else None

    def is_running(self) -> bool:
        state = self._state()
        return self._alive(state.get("pid")) and bool(state.get("port")) and _accepts(state["port"])

    def start(self, timeout: float = DEFAULT_START_TIMEOUT) -> str:
        """Starts the server unless it runs already; returns the JDBC URL once it accepts connections."""
        if self.is_running():
            return self.jdbc_url
        self.dir.mkdir(parents=True, exist_ok=True)
        port = _pick_free_ports(1)[0]
        driver_options = " ".join([
            f"{_MARKER}{self.dir}", f"-Dderby.system.home={self.dir}",
            f"-Dspark.hbase.log.file={self.log_file}"])
        command = [
            str(spark_home() / "bin" / "spark-submit"), "--class", MAIN_CLASS,
            *submit_args(data_dir=self.hbase_data_dir),
            "--conf", f"spark.sql.warehouse.dir={self.dir / 'warehouse'}",
            "--conf", "spark.ui.enabled=false",
            "--driver-java-options", driver_options,
            "spark-internal",
            "--hiveconf", f"hive.server2.thrift.bind.host={HOST}",
            "--hiveconf", f"hive.server2.thrift.port={port}",
        ]
        env = dict(os.environ, SPARK_HOME=str(spark_home()), SPARK_LOCAL_IP=HOST)
        with open(self.log_file, "ab") as log:
            proc = subprocess.Popen(command, cwd=self.dir, env=env, stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.state_file.write_text(json.dumps({"pid": proc.pid, "port": port}) + "\n")
        deadline = time.monotonic() + timeout
        while not _accepts(port):
            if proc.poll() is not None:
                raise ThriftServerError(
                    f"the Thrift server exited with code {proc.returncode} during startup\n"
                    f"log file: {self.log_file}\n{_tail(self.log_file)}")
            if time.monotonic() > deadline:
                self._terminate(proc.pid)
                raise ThriftServerError(
                    f"the Thrift server did not accept connections within {timeout:g} s\n"
                    f"log file: {self.log_file}\n{_tail(self.log_file)}")
            time.sleep(0.5)
        return self.jdbc_url

    def stop(self, timeout: float = 60.0) -> bool:
        pid = self._state().get("pid")
        if not self._alive(pid):
            return False
        self._terminate(pid, timeout)
        state = self._state()
        state["pid"] = None
        self.state_file.write_text(json.dumps(state) + "\n")
        return True

    def _terminate(self, pid: int, timeout: float = 60.0) -> None:
        try:
            os.killpg(pid, signal.SIGTERM)
        except OSError:
            return
        deadline = time.monotonic() + timeout
        while self._alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if self._alive(pid):
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass


def beeline_command(url: str, *args: str) -> list:
    """pyspark's own beeline, connected to `url`."""
    return [str(spark_home() / "bin" / "beeline"), "-u", url, *args]
