# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""A KDC and a one-node YARN for test_kerberos.py (the KDC for `./benchmarks/run identity --kerberos` too), each a
JVM of the sbt project kerberos-local.

Both serve until their stdin closes, so they end with the test process even if it is killed.
"""

import subprocess
import time
from pathlib import Path
from typing import Optional

from pyspark_hbase import _paths, hbase_jars
from pyspark_hbase.local import JAVA17_FLAGS

from pyspark_hbase_testing.jvm import SHORT_LIVED_JVM_FLAGS

REPO = _paths.require_root("the KDC and YARN of kerberos-local")
CLASSPATH_FILE = REPO / "kerberos-local" / "target" / "kerberos-local.classpath"
PACKAGE = "org.apache.spark.sql.hbase.local.kerberos"


class _Server:
    """A JVM that is ready once `ready_file` exists."""

    def __init__(
        self,
        main_class: str,
        args: list[str],
        work: Path,
        ready_file: Path,
        jvm_flags: list[str] = (),
        env: Optional[dict[str, str]] = None,
        timeout: float = 120,
    ):
        work.mkdir(parents=True, exist_ok=True)
        classpath = hbase_jars.read_classpath(CLASSPATH_FILE)
        self.log = work / f"{main_class.rsplit('.', 1)[-1]}.log"
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                [
                    _paths.java_executable(),
                    *JAVA17_FLAGS,
                    *SHORT_LIVED_JVM_FLAGS.split(),
                    "-Djava.net.preferIPv4Stack=true",
                    "-Dlog4j2.configurationFile=" + str(REPO / "conf" / "log4j2.properties"),
                    f"-Dspark.hbase.log.file={work / 'server.log'}",
                    *jvm_flags,
                    "-cp",
                    ":".join(classpath),
                    main_class,
                    *args,
                ],
                cwd=work,
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        deadline = time.monotonic() + timeout
        while not ready_file.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{main_class} did not start:\n{self.log.read_text(errors='replace')[-5000:]}")
            time.sleep(0.2)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class LocalKdc(_Server):
    """Hadoop's MiniKdc on 127.0.0.1: realm EXAMPLE.COM, one keytab per name."""

    def __init__(self, work: Path, keytabs: dict[str, list[str]]):
        self.work = work
        super().__init__(
            f"{PACKAGE}.LocalKdc",
            [str(work)] + [f"{n}={','.join(p)}" for n, p in keytabs.items()],
            work,
            work / "kdc.properties",
        )
        props = dict(
            line.split("=", 1)
            for line in (work / "kdc.properties").read_text().splitlines()
            if line and not line.startswith("#")
        )
        self.realm = props["realm"]
        self.krb5_conf = str(work / "krb5.conf")

    def keytab(self, name: str) -> str:
        return str(self.work / "keytabs" / f"{name}.keytab")

    def principal(self, name: str) -> str:
        return f"{name}@{self.realm}"


class LocalYarn(_Server):
    """Hadoop's MiniYARNCluster with one NodeManager of `memory_mb`; its yarn-site.xml is in `work`."""

    def __init__(self, work: Path, memory_mb: int, java_home: str):
        # The NodeManager starts containers with $JAVA_HOME/bin/java.
        import os

        super().__init__(
            f"{PACKAGE}.LocalYarn",
            [str(work), str(memory_mb)],
            work,
            work / "yarn-site.xml",
            env=dict(os.environ, JAVA_HOME=java_home),
            timeout=180,
        )
        self.site = work / "yarn-site.xml"
