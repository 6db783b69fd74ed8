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

"""What the files of an embedded HBase's data dir say about it: its ports, its JVMs, whether it runs,
and the client settings that reach it."""

import signal
from pathlib import Path
from typing import Optional, Union

from pyspark_hbase.daemons import (
    HOST,
    accepts,
    end_processes,
    locked,
    pick_free_ports,
    pids_with_arg,
    port_is_free,
    process_has_arg,
    signal_group,
    wait_until,
)
from pyspark_hbase.local_conf import (
    CLIENT_CALL_TIMEOUT_MS,
    DIR_MARKER,
    PORT_NAMES,
    REGION_SERVER_MARKER,
    LocalHBaseConf,
    LocalHBaseError,
)
from pyspark_hbase.readiness import zk_ruok


class LocalHBaseState(LocalHBaseConf):
    """The state of an embedded HBase, as its pid and state files and its ports tell it (see `LocalHBase`)."""

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
        return process_has_arg(pid, f"{DIR_MARKER}{self.data_dir}")

    @property
    def pid(self) -> Optional[int]:
        """Pid of the HBase JVM of this data dir if it is alive (ready or not)."""
        pid = self._pid_from_file()
        return pid if pid is not None and self._alive(pid) else None

    def _extra_servers(self) -> dict[int, dict]:
        """The region servers in JVMs of their own, by number (2..N): {"port", "pid"}."""
        return {int(n): dict(v) for n, v in (self._read_state().get("region_servers") or {}).items()}

    def _extra_alive(self, number: int, pid: Optional[int]) -> bool:
        return bool(pid) and process_has_arg(pid, f"{REGION_SERVER_MARKER}{self.data_dir}#{number}")

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
            and all(n in ports for n in PORT_NAMES)
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

    def _lock(self):
        """Serializes start/stop of one data dir across processes."""
        return locked(self.data_dir)

    def _choose_ports(self) -> dict[str, int]:
        old = self.ports
        if (
            all(isinstance(old.get(n), int) for n in PORT_NAMES)
            and len({old[n] for n in PORT_NAMES}) == len(PORT_NAMES)
            and all(port_is_free(old[n]) for n in PORT_NAMES)
        ):
            return {n: old[n] for n in PORT_NAMES}
        return dict(zip(PORT_NAMES, pick_free_ports(len(PORT_NAMES))))

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

    def _end_strays(self, timeout: float) -> bool:
        """Ends the JVMs of this data dir that its files lost track of (its pid file or the data dir
        itself gone, say): found by the markers on their command lines. False if there were none."""
        strays = sorted(
            set(pids_with_arg(f"{DIR_MARKER}{self.data_dir}"))
            | set(pids_with_arg(f"{REGION_SERVER_MARKER}{self.data_dir}#", whole=False))
        )
        end_processes(strays, timeout)
        return bool(strays)


def hbase_client_conf(data_dir: Union[str, Path, None] = None) -> dict[str, str]:
    """{"hbase.zookeeper.quorum": ..., "hbase.zookeeper.property.clientPort": ...} of a running local HBase."""
    return LocalHBaseState(data_dir).client_conf()
