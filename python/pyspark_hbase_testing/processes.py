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

"""The processes a test run left behind: every live process whose command line names a path under
the run's own temporary dir (an embedded HBase, its region servers, a Spark server, a KDC, YARN),
and which of our supervised directories it belongs to, read from the marker on its command line."""

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from pyspark_hbase.daemons import command_lines, end_processes
from pyspark_hbase.local_conf import DIR_MARKER, REGION_SERVER_MARKER
from pyspark_hbase.spark_server import SERVER_DIR_MARKER

MARKERS = (DIR_MARKER, REGION_SERVER_MARKER, SERVER_DIR_MARKER)


@dataclass(frozen=True)
class Leftover:
    pid: int
    # The data dir (HBase, a region server) or server dir (a Spark server) its marker names, if any.
    owner: Optional[Path]
    command: str

    def __str__(self) -> str:
        return f"pid {self.pid}" + (f" of {self.owner}" if self.owner else "") + f": {self.command[:300]}"


def _ancestors() -> set[int]:
    """This process and the ones it runs under (pytest, the shell, ...)."""
    pids, pid = set(), os.getpid()
    while pid > 1 and pid not in pids:
        pids.add(pid)
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return pids


def _owner(args: list[str]) -> Optional[Path]:
    for arg in args:
        for marker in MARKERS:
            at = arg.find(marker)
            if at >= 0:
                return Path(arg[at + len(marker) :].split()[0].split("#")[0])
    return None


def leftovers(root: Path) -> list[Leftover]:
    """Every live process but this one and its ancestors whose command line names `root` or a path under it."""
    root_text = str(Path(root).resolve())
    skip = _ancestors()
    found = []
    for pid, raw in command_lines().items():
        if pid in skip:
            continue
        args = [a.decode("utf-8", "replace") for a in raw if a]
        if any(a == root_text or f"{root_text}{os.sep}" in a for a in args):
            found.append(Leftover(pid, _owner(args), " ".join(args)))
    return sorted(found, key=lambda p: p.pid)


def end(processes: list[Leftover], timeout: float = 30) -> None:
    """SIGTERM, then SIGKILL to those still alive after `timeout` s."""
    end_processes([p.pid for p in processes], timeout)
