# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The one launcher of the Java helper programs in benchmarks/java: each is a single source file that `java` runs
as it is (or, for PhaseListener.java, compiles into a jar), and most print JSON lines."""

import json
import os
import subprocess
from pathlib import Path

from .common import JAVA_PROGRAMS, jdk_tool
from .platform import JAVA17_FLAGS, java_executable, plugin_jars


def source(program):
    """benchmarks/java/<program>, e.g. RawScan.java."""
    return JAVA_PROGRAMS / program


def pyspark_jars():
    import pyspark

    return Path(pyspark.__file__).parent / "jars"


def command(program, *args, classpath=None, flags=(), java=None):
    """The command line that runs the program as a source file."""
    cp = ["-cp", os.pathsep.join(map(str, classpath))] if classpath else []
    return [java or java_executable(), *flags, *cp, str(source(program)), *map(str, args)]


def json_lines(out):
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def run(program, *args, classpath=None, flags=(), timeout=None, java=None):
    """The program's standard output, after it ran to its end."""
    return subprocess.run(
        command(program, *args, classpath=classpath, flags=flags, java=java),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,  # its errors go where ours do
        text=True,
        check=True,
        timeout=timeout,
    ).stdout


def jdk_program(program, *args, timeout=300):
    """A program that needs the JDK alone (JvmCounts.java, TableReads.java: they attach to a JVM): its JSON lines."""
    out = subprocess.run(
        command(program, *args, java=jdk_tool("java")), capture_output=True, text=True, timeout=timeout
    ).stdout
    return json_lines(out)


def hbase_client_program(hbase, program, *args):
    """The JSON lines a plain HBase client program (RawScan.java, RawPut.java) prints, on the same HBase client
    classes as Spark's (the plugin jar and Spark's jars)."""
    conf_dir = os.environ.get("HBASE_CONF_DIR") or hbase.conf_dir  # its hbase-site.xml says where ZooKeeper is
    classpath = [conf_dir, *plugin_jars(), pyspark_jars() / "*"]
    return json_lines(run(program, *args, classpath=classpath, flags=JAVA17_FLAGS))


class JsonLineProcess:
    """A helper program in a JVM of its own, driven one JSON line at a time (JdbcClient.java, PhoenixClient.java):
    it answers {"ready": true} once connected, then one line per command, {"error": ...} on failure."""

    error = RuntimeError

    def __init__(self, argv, log_file, name):
        self._name = name
        self._log = open(log_file, "a")
        self._process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, text=True
        )
        self._answer()

    def _answer(self):
        line = self._process.stdout.readline()
        if not line:
            raise self.error(f"the {self._name} exited (code {self._process.wait()}); see {self._log.name}")
        answer = json.loads(line)
        if "error" in answer:
            raise self.error(answer["error"])
        return answer

    def send(self, command):
        self._process.stdin.write(json.dumps(command) + "\n")
        self._process.stdin.flush()
        return self._answer()

    @property
    def pid(self):
        return self._process.pid

    def close(self):
        self._process.stdin.close()
        self._process.wait()
        self._log.close()


def compile_to_jar(program, classpath, work):
    """The program compiled against `classpath` into work/<name>.jar (again only when the source is newer)."""
    java = Path(java_executable())
    name = Path(program).stem
    classes, jar = work / f"{name}-classes", work / f"{name}.jar"
    src = source(program)
    if jar.exists() and jar.stat().st_mtime > src.stat().st_mtime:
        return jar
    classes.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [str(java.parent / "javac"), "-cp", classpath, "-d", str(classes), str(src)], check=True, capture_output=True
    )
    subprocess.run([str(java.parent / "jar"), "cf", str(jar), "-C", str(classes), "."], check=True)
    return jar
