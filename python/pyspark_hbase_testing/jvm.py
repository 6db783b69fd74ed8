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
dir on the classpath): the archive changes how fast a JVM starts, never what it does.

HBase's JVMs (master, region servers, the readiness probe) share another, which the same HBase
writes when it stops: a start then takes some 40 % less CPU. Both are made once, before the
tests, with one HBase of their own (`write_class_archives`)."""

import hashlib
import os
import subprocess
import uuid
from pathlib import Path
from typing import NamedTuple, Optional

from pyspark_hbase import _paths, hbase_jars
from pyspark_hbase.local import LocalHBase, LocalHBaseError
from pyspark_hbase.local_conf import Additions

SHORT_LIVED_JVM_FLAGS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"

# The JVM reports an archive it cannot use on stdout, where spark-sql prints its rows.
_QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"


class ClassArchives(NamedTuple):
    """The archives for Spark's and HBase's JVMs (None: that one could not be made), and which were written now."""

    spark: Optional[Path]
    hbase: Optional[Path]
    written: tuple[str, ...]


def write_class_archives(directory: Path, spark_hbase: str, scratch: Path) -> ClassArchives:
    """The archives in `directory` for the JVMs and jars as built now, made with one HBase in `scratch` if missing.

    Archives written earlier for other jars are deleted. An archive that could not be written is
    None: the run then goes on without it."""
    spark = directory / f"spark-{_key(_spark_classpath())}.jsa"
    hbase = directory / f"hbase-{_key(hbase_jars.read_classpath())}.jsa"
    missing = {name: archive for name, archive in (("spark", spark), ("hbase", hbase)) if not archive.is_file()}
    if missing:
        directory.mkdir(parents=True, exist_ok=True)
        partial = hbase.with_name(f"{hbase.name}.{os.getpid()}.tmp")
        # HBase writes its archive as it exits, with the classes its master and region server loaded
        # for the Spark session below too. (The readiness probe, given the same flags, writes one
        # first, as it exits: the master's, written last, replaces it.)
        archive = f"-XX:ArchiveClassesAtExit={partial} {_QUIET}" if "hbase" in missing else sharing(hbase)
        local = LocalHBase(scratch)
        try:
            local.start(additions=Additions(jvm_flags=(*SHORT_LIVED_JVM_FLAGS.split(), *archive.split())))
            if "spark" in missing:
                _write_spark_archive(spark, spark_hbase, ["--data-dir", str(scratch)])
        except LocalHBaseError:
            pass  # the session HBase's start will say why
        finally:
            local.stop()
        if partial.is_file():
            partial.replace(hbase)
        for stale in directory.glob("*.jsa*"):
            if stale not in (spark, hbase):
                stale.unlink(missing_ok=True)  # for jars since rebuilt; a JVM that maps it keeps its pages
    return ClassArchives(
        spark if spark.is_file() else None,
        hbase if hbase.is_file() else None,
        tuple(name for name, archive in missing.items() if archive.is_file()),
    )


def _spark_classpath() -> list:
    return [*_paths.plugin_jars(), *sorted((_paths.spark_home() / "jars").glob("*.jar"))]


def _key(classpath) -> str:
    """What an archive depends on: the JVM and the jars on the classpath, as built now."""
    java = Path(_paths.java_executable()).resolve()
    files = [java, *(Path(e) for e in classpath if str(e).endswith(".jar"))]
    digest = hashlib.sha256()
    for f in files:
        stat = f.stat()
        digest.update(f"{f}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def _write_spark_archive(archive: Path, spark_hbase: str, hbase_args: list[str]) -> None:
    """Writes the archive of the classes a spark-sql session over HBase loads: that session creates,
    fills, reads and drops a table of its own and writes it as it exits. Nothing if it failed."""
    partial = archive.with_name(f"{archive.name}.{os.getpid()}.tmp")
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
    if written.returncode == 0 and partial.is_file():
        partial.replace(archive)
    else:
        partial.unlink(missing_ok=True)


def sharing(archive: Path) -> str:
    """The flags that map `archive` into a JVM."""
    return f"-XX:SharedArchiveFile={archive} {_QUIET}"
