# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""JVM flags for the JVMs of a test run, and a class archive that Spark's JVMs share.

A run starts well over a hundred JVMs (HBase, Spark servers and applications, CLIs, a KDC, YARN)
on a few cores, most of them for seconds. C1 alone and the serial collector start one with about
half the CPU of the defaults, most of which goes into compiling code that runs once. The tests'
conftest.py hands them to every JVM that Spark's launcher (SPARK_SUBMIT_OPTS) or the embedded
HBase (HBASE_OPTS) starts; benchmarks keep the defaults.

Most of what is left of a Spark JVM's start is loading and verifying some ten thousand classes
from Spark's jars and ours. Java's class data sharing maps them instead from an archive that one
session wrote at its exit (`-XX:ArchiveClassesAtExit`): a spark-sql session then starts with less
than half the CPU. The JVM checks that the archive was written from the same jars, in the same
order, and silently loads classes as usual when it was not (a wheel's own Spark, a Hadoop conf
dir on the classpath): the archive changes how fast a JVM starts, never what it does."""

import hashlib
import os
import subprocess
import uuid
from pathlib import Path
from typing import Optional

from pyspark_hbase import _paths

SHORT_LIVED_JVM_FLAGS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"

# The JVM reports an archive it cannot use on stdout, where spark-sql prints its rows.
_QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"


def _classpath_key() -> str:
    """What the archive depends on: the JVM and the jars on a Spark JVM's classpath, as built now."""
    java = Path(_paths.java_executable()).resolve()
    files = [java, *_paths.plugin_jars(), *sorted((_paths.spark_home() / "jars").glob("*.jar"))]
    digest = hashlib.sha256()
    for f in files:
        stat = f.stat()
        digest.update(f"{f}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def spark_class_archive(directory: Path, spark_hbase: str, hbase_args: list[str]) -> tuple[Optional[Path], bool]:
    """The archive of the classes a spark-sql session over HBase loads, and whether it was written now.

    An archive written earlier for the same JVM and jars is reused; else one spark-sql session
    creates, fills, reads and drops a table of its own and writes the archive as it exits. None
    if that session failed: the run then goes on without one."""
    archive = directory / f"spark-{_classpath_key()}.jsa"
    if archive.is_file():
        return archive, False
    directory.mkdir(parents=True, exist_ok=True)
    partial = directory / f"{archive.name}.{os.getpid()}.tmp"
    table = f"class_archive_{uuid.uuid4().hex[:10]}"
    statements = (
        f"CREATE TABLE {table} (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ({table}, COLS=[v=f.v]);"
        f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b');"
        f"SELECT v FROM {table} WHERE k = 2; SELECT count(*) FROM {table};"
        f"DROP TABLE {table};"
    )
    flags = f"{SHORT_LIVED_JVM_FLAGS} -XX:ArchiveClassesAtExit={partial} {_QUIET}"
    written = subprocess.run(
        # With Hive's metastore, as spark-sql had by default, so that the archive holds the classes the
        # Thrift servers' Hive sessions load too.
        [spark_hbase, "sql", *hbase_args, "-e", statements, "--conf", "spark.sql.catalogImplementation=hive"],
        env=dict(os.environ, SPARK_SUBMIT_OPTS=flags),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if written.returncode != 0 or not partial.is_file():
        partial.unlink(missing_ok=True)
        return None, False
    partial.replace(archive)
    for stale in directory.glob("spark-*.jsa"):
        if stale != archive:
            stale.unlink(missing_ok=True)  # written for jars since rebuilt; a JVM that maps it keeps its pages
    return archive, True


def sharing(archive: Path) -> str:
    """The flags that map `archive` into a JVM."""
    return f"-XX:SharedArchiveFile={archive} {_QUIET}"
