# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

# Licensed to the Apache Software Foundation (ASF) under one or more
# contributor license agreements.  See the NOTICE file distributed with
# this work for additional information regarding copyright ownership.
# The ASF licenses this file to You under the Apache License, Version 2.0
# (the "License"); you may not use this file except in compliance with
# the License.  You may obtain a copy of the License at
#
#    http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""A Spark application serving clients on one port of 127.0.0.1 (the Thrift JDBC server, the Spark
Connect server), run by spark-submit in the background with the plugin and supervised as
`daemons` says: a lock, a state file and a log in its own directory, a marker on its command line."""

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Optional

from pyspark_hbase._paths import spark_home
from pyspark_hbase.daemons import (
    HOST,
    ServerError,
    accepts,
    locked,
    pick_free_ports,
    port_is_free,
    process_has_arg,
    read_state,
    terminate,
    write_state,
)
from pyspark_hbase.logs import tail
from pyspark_hbase.session import submit_args
from pyspark_hbase.spark_catalog import (
    CATALOG_IMPLEMENTATION,
    check_catalog_implementation,
    configured_catalog_implementation,
)

# Marks the server's JVM on its command line (one word of the driver options).
SERVER_DIR_MARKER = "-Dspark.hbase.server.dir="

# How a server's users reach HBase (docs/deployment.md, Identities): each as themselves, or all
# as the server.
IDENTITIES = ("shared", "per-user")


def check_identity(identity: str) -> str:
    if identity not in IDENTITIES:
        raise ValueError(f"identity {identity!r}: one of {', '.join(IDENTITIES)}")
    return identity


class SparkServer:
    """A Spark application that serves clients on one port of 127.0.0.1, run by spark-submit in
    the background with the plugin. Subclasses name the main class and its arguments."""

    name = "server"
    main_class = ""
    default_start_timeout = 240.0

    def __init__(self, directory: Path, hbase_data_dir: Optional[Path], catalog_implementation: Optional[str] = None):
        """`catalog_implementation`: where Spark's own tables and views made through the server live,
        'hive' (a metastore) or 'in-memory' (until it stops); by default as spark_catalog finds."""
        self.dir = directory
        self.hbase_data_dir = hbase_data_dir
        self.state_file = directory / "state.json"
        self.log_file = directory / "server.log"
        self._marker = f"{SERVER_DIR_MARKER}{directory}"
        self.catalog_implementation = check_catalog_implementation(
            catalog_implementation or configured_catalog_implementation()
        )

    def url(self, port: int) -> str:
        raise NotImplementedError

    def server_args(self, port: int) -> list[str]:
        """spark-submit's arguments after --class and the plugin's: conf, the jar, then the main's."""
        raise NotImplementedError

    def driver_jars(self) -> list[str]:
        """Jars the server's driver needs on its class path besides the plugin's."""
        return []

    def spark_conf(self) -> dict[str, str]:
        """Spark settings the server runs with besides the plugin's; a running server must have the same."""
        return {CATALOG_IMPLEMENTATION: self.catalog_implementation}

    def forgets_tables(self) -> bool:
        """Whether Spark's catalog of the server's own tables and views lives in its memory only."""
        return self.catalog_implementation == "in-memory"

    @property
    def warehouse_dir(self) -> Path:
        """Where Spark's tables made through the server keep their files. A server that forgets its
        tables when it stops has a warehouse of its own, emptied when it starts: files left there
        have no table any more, and would refuse a new table of the same name."""
        return self.dir / ("in-memory-warehouse" if self.forgets_tables() else "warehouse")

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
        timeout = self.default_start_timeout if timeout is None else timeout
        with locked(self.dir):
            if self.is_running():
                if port is not None and port != self.port:
                    raise ServerError(
                        f"the {self.name} already runs on port {self.port}, not {port}: stop it first "
                        f"to move it to port {port}"
                    )
                running = read_state(self.state_file).get("conf") or {}
                if running != self.spark_conf():
                    raise ServerError(
                        f"the {self.name} already runs with {running}, not {self.spark_conf()}: stop it first"
                    )
                return self.address
            port = self._port_to_listen_on(port)
            if self.forgets_tables():
                shutil.rmtree(self.warehouse_dir, ignore_errors=True)
            driver_options = " ".join(
                [self._marker, f"-Dderby.system.home={self.dir}", f"-Dspark.hbase.log.file={self.log_file}"]
            )
            command = [
                str(spark_home() / "bin" / "spark-submit"),
                "--class",
                self.main_class,
                *submit_args(data_dir=self.hbase_data_dir, driver_class_path=self.driver_jars()),
                "--conf",
                f"spark.sql.warehouse.dir={self.warehouse_dir}",
                "--conf",
                "spark.ui.enabled=false",
                *[arg for key, value in self.spark_conf().items() for arg in ("--conf", f"{key}={value}")],
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
            write_state(self.state_file, {"pid": proc.pid, "port": port, "conf": self.spark_conf()})
            try:
                self._wait_accepting(proc, port, timeout)
            except BaseException:
                # Interrupted or failed: a server that never answered is not left behind.
                terminate(proc.pid, self._alive, 60)
                raise
            return self.url(port)

    def _wait_accepting(self, proc: subprocess.Popen, port: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not accepts(port):
            if proc.poll() is not None:
                raise ServerError(
                    f"the {self.name} exited with code {proc.returncode} during startup\n"
                    f"log file: {self.log_file}\n{tail(self.log_file)}"
                )
            if time.monotonic() > deadline:
                raise ServerError(
                    f"the {self.name} did not accept connections within {timeout:g} s\n"
                    f"log file: {self.log_file}\n{tail(self.log_file)}"
                )
            time.sleep(0.5)

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
