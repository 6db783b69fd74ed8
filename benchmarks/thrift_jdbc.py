"""Our Thrift server and a JVM JDBC client of it, for the benchmarks' JDBC path.

ThriftServerWithPhases is `spark-hbase thriftserver` (pyspark_hbase.thriftserver.ThriftServer) on a given HBase,
with PhaseListener.java on its driver's class path: every statement it runs appends Spark's phases to a file.
JdbcClient drives JdbcClient.java, one Hive JDBC connection in a JVM of its own, one JSON line at a time; its
classpath is pyspark's jars (hive-jdbc and what it needs, as pyspark's beeline uses them)."""

import json
import os
import subprocess
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def pyspark_jars():
    import pyspark

    return Path(pyspark.__file__).parent / "jars"


def compile_phase_listener(work):
    """PhaseListener.java compiled against pyspark's jars, in a jar of its own under `work`."""
    from pyspark_hbase import _paths

    java = Path(_paths.java_executable())
    classes = work / "phase-listener-classes"
    jar = work / "phase-listener.jar"
    source = HERE / "PhaseListener.java"
    if jar.exists() and jar.stat().st_mtime > source.stat().st_mtime:
        return jar
    classes.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [str(java.parent / "javac"), "-cp", f"{pyspark_jars()}/*", "-d", str(classes), str(source)],
        check=True,
        capture_output=True,
    )
    subprocess.run([str(java.parent / "jar"), "cf", str(jar), "-C", str(classes), "."], check=True)
    return jar


def thrift_server_with_phases(data_dir, phases_file, listener_jar):
    """A ThriftServer on the HBase of `data_dir` whose statements' phases go to `phases_file`."""
    from pyspark_hbase import _paths
    from pyspark_hbase.thriftserver import ThriftServer

    class ThriftServerWithPhases(ThriftServer):
        def server_args(self, port):
            # spark-submit keeps the last --driver-class-path: the plugin's, then the listener's.
            class_path = os.pathsep.join([*map(str, _paths.plugin_jars()), str(listener_jar)])
            return [
                "--driver-class-path",
                class_path,
                "--conf",
                "spark.sql.queryExecutionListeners=PhaseListener",
                *super().server_args(port),
            ]

    os.environ["PHASE_LISTENER_FILE"] = str(phases_file)  # spark-submit passes its environment on to the server
    return ThriftServerWithPhases(data_dir)


class JdbcClient:
    def __init__(self, url, log_file):
        from pyspark_hbase import _paths

        self._log = open(log_file, "a")
        self._process = subprocess.Popen(
            [_paths.java_executable(), "-cp", f"{pyspark_jars()}/*", str(HERE / "JdbcClient.java"), url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )
        self._answer()  # {"ready": true} once connected

    def _answer(self):
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"the JDBC client exited (code {self._process.wait()}); see {self._log.name}")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer

    def _send(self, command):
        self._process.stdin.write(json.dumps(command) + "\n")
        self._process.stdin.flush()
        return self._answer()

    @property
    def pid(self):
        return self._process.pid

    def execute(self, sql):
        return self._send({"command": "execute", "sql": sql})["seconds"]

    def query(self, sql, repeat, warm_up=True):
        """{"runs" (seconds), "rows", "result"} of `repeat` timed runs after one untimed (unless not warm_up)."""
        return self._send({"command": "query", "sql": sql, "repeat": repeat, "warmUp": warm_up})

    def close(self):
        self._process.stdin.close()
        self._process.wait()
        self._log.close()


def phases_since(phases_file, offset, expected, timeout=30):
    """The phase lines written after byte `offset`: waits until there are `expected` (the listener is asynchronous)."""
    deadline = time.monotonic() + timeout
    while True:
        with open(phases_file) as f:
            f.seek(offset)
            lines = [json.loads(line) for line in f if line.strip()]
        if len(lines) >= expected or time.monotonic() > deadline:
            return lines
        time.sleep(0.2)
