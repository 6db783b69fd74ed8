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

"""What an embedded HBase (`local.py`) is made of: the layout of its data dir, the site files it
generates there, and the command lines of its JVMs.

A caller may add to it with `Additions` (plain data, kept in the state file so that every JVM of
the run, and every later LocalHBase of the data dir, gets the same): jars after HBase's own,
settings over the generated site files, and flags for its JVMs: the Kerberos settings of a
secured HBase, say, or another SQL engine's coprocessors.
"""

import datetime
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

from pyspark_hbase import _paths
from pyspark_hbase.daemons import HOST, read_state, write_state
from pyspark_hbase.hbase_jars import hbase_classpath_file, read_classpath, require_class
from pyspark_hbase.readiness import PROBE_CLASS
from pyspark_hbase.site_files import read_site_xml, write_site_xml

HBASE_MAIN_CLASS = "org.apache.hadoop.hbase.master.HMaster"
REGION_SERVER_MAIN_CLASS = "org.apache.hadoop.hbase.regionserver.HRegionServer"
# Runs the one above named after it, without HBase's JMX cache buster (see the class).
SERVER_LAUNCH_CLASS = "org.apache.spark.sql.hbase.local.LocalHBaseServer"
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
DIR_MARKER = "-Dspark.hbase.local.dir="
REGION_SERVER_MARKER = "-Dspark.hbase.local.regionserver="

PORT_NAMES = ("zookeeper", "master", "regionserver")


class LocalHBaseError(RuntimeError):
    """The embedded HBase could not be started, stopped or reached."""


@dataclass(frozen=True)
class Additions:
    """What a caller adds to an embedded HBase, as plain data: what `start(additions=...)` was given."""

    # After HBase's own jars on every JVM's classpath, so that HBase's classes win.
    classpath: tuple[str, ...] = ()
    # Over the generated hbase-site.xml (before the LocalHBase's own `site_settings`).
    hbase_site: dict[str, str] = field(default_factory=dict)
    # conf/core-site.xml, written only when there are some (e.g. Hadoop's security settings).
    core_site: dict[str, str] = field(default_factory=dict)
    # Flags of every JVM of the data dir: the HBase servers, the readiness probe, the tools.
    jvm_flags: tuple[str, ...] = ()
    # Flags of our short-lived client JVMs only (the probe, the tools), e.g. how they log in.
    tool_flags: tuple[str, ...] = ()

    @classmethod
    def from_state(cls, state: dict) -> "Additions":
        """The record again from its asdict() form, as JSON gives it back (lists, not tuples)."""
        return cls(
            classpath=tuple(state.get("classpath") or ()),
            hbase_site=dict(state.get("hbase_site") or {}),
            core_site=dict(state.get("core_site") or {}),
            jvm_flags=tuple(state.get("jvm_flags") or ()),
            tool_flags=tuple(state.get("tool_flags") or ()),
        )


def now_iso() -> str:
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def is_server_jar(entry: str) -> bool:
    name = Path(entry).name
    return name.startswith("spark-hbase-sql-server") and name.endswith(".jar")


class LocalHBaseConf:
    """The data dir of an embedded HBase, its settings and its JVMs' command lines (see `LocalHBase`)."""

    def __init__(
        self,
        data_dir: Union[str, Path, None] = None,
        *,
        classpath_file: Union[str, Path, None] = None,
        java: Optional[str] = None,
        heap: str = DEFAULT_HEAP,
        block_cache: float = DEFAULT_BLOCK_CACHE,
        memstore: float = DEFAULT_MEMSTORE,
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
        # Settings over the generated hbase-site.xml.
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
    def additions(self) -> Optional[Additions]:
        """What the last (or current) run was given to add to HBase; None if nothing."""
        s = self._read_state().get("additions")
        return Additions.from_state(s) if s else None

    def _write_conf(self, ports: dict[str, int], additions: Optional[Additions]) -> None:
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
                # The balancer's search for a better spread (every 5 minutes) may take 30 s of CPU by
                # default, weighing the load of every region; on one machine a second is plenty.
                "hbase.master.balancer.stochastic.maxRunningTime": "1000",
            }
        )
        self.conf_dir.mkdir(parents=True, exist_ok=True)
        core = self.conf_dir / "core-site.xml"
        if additions is not None:
            props.update(additions.hbase_site)
        if additions is not None and additions.core_site:
            write_site_xml(core, additions.core_site, site)
        else:
            core.unlink(missing_ok=True)
        props.update(self._site_settings)
        write_site_xml(self.conf_dir / "hbase-site.xml", props, site)
        log4j = template / "log4j2.properties"
        if log4j.is_file():
            (self.conf_dir / "log4j2.properties").write_bytes(log4j.read_bytes())

    def _jvm_common(self, java: str) -> list[str]:
        additions = self.additions
        return [
            java,
            *JAVA17_FLAGS,
            "-Djava.net.preferIPv4Stack=true",
            f"-Dlog4j2.configurationFile={self.conf_dir / 'log4j2.properties'}",
            # stdout already goes into the log file: no second copy of each line.
            "-Dspark.hbase.log.console=OFF",
            *(additions.jvm_flags if additions else ()),
        ]

    def _classpath(self, classpath: list[str]) -> str:
        """The JVM's classpath: the jars, then the conf dir, from which HBase reads hbase-site.xml
        (no jar holds one). Java's class data sharing (an archive in HBASE_OPTS) needs a non-empty
        directory after the jars it archives from."""
        return os.pathsep.join([*classpath, str(self.conf_dir)])

    def _tool_jvm(self, java: str, classpath: list[str], log_name: str) -> list[str]:
        """A short-lived HBase client JVM of ours (the probe, AccessTool), up to its main class.

        With `additions`, its `tool_flags` too (with Kerberos: the login as HBase's superuser).
        """
        additions = self.additions
        # C1 only and serial GC: a short-lived client, competing for CPU with HBase.
        return [
            *self._jvm_common(java),
            "-Xmx256m",
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            f"-Dspark.hbase.log.file={self.data_dir / 'logs' / log_name}",
            "-Dspark.hbase.log.level=ERROR",
            *(additions.tool_flags if additions else ()),
            # As HBase's bin/hbase gives them to its clients too (a class archive, say).
            *shlex.split(os.environ.get("HBASE_OPTS", "")),
            # The tool reads hbase-site.xml from the classpath.
            "-cp",
            self._classpath(classpath),
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
            # As HBase's own bin/hbase does: the caller's JVM flags for HBase, after ours.
            *shlex.split(os.environ.get("HBASE_OPTS", "")),
            f"{DIR_MARKER}{self.data_dir}",
        ]

    def _server_command(self, java: str, classpath: list[str]) -> list[str]:
        return [
            *self._hbase_jvm(java, self.log_file),
            # ZooKeeper 3.5+ would otherwise open its admin web server on port 8080.
            "-Dzookeeper.admin.enableServer=false",
            "-cp",
            self._classpath(classpath),
            SERVER_LAUNCH_CLASS,
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
            f"{REGION_SERVER_MARKER}{self.data_dir}#{number}",
            "-cp",
            self._classpath(classpath),
            SERVER_LAUNCH_CLASS,
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

    def _log(self, message: str) -> None:
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_file, "a") as f:
            f.write(f"{now_iso()} ===== spark-hbase local: {message}\n")

    def _runtime(self) -> tuple[str, list[str], Path]:
        """(java, classpath entries, classpath file); fails with the build command to run."""
        classpath_file = self._classpath_file or hbase_classpath_file()
        additions = self.additions
        try:
            classpath = read_classpath(classpath_file) + list(additions.classpath if additions else ())
            # Checked before HBase starts: without the probe its readiness can't be told.
            for needed in (PROBE_CLASS, SERVER_LAUNCH_CLASS):
                require_class(classpath, needed, classpath_file)
            java = self._java or _paths.java_executable()
        except _paths.PathsError as e:
            raise LocalHBaseError(str(e)) from None
        return java, classpath, classpath_file
