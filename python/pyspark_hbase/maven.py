"""The embedded HBase's jars for an installed wheel, which has no build to provide them.

The wheel carries a lock file: every Maven jar of the build's embedded HBase classpath, pinned
(`group:artifact:version`). On first use, `ResolveJars` (in the wheel's hbase-local jar, run on
pyspark's own jars) fetches exactly those with Spark's Ivy resolver from Maven Central into the
cache, checking the repository's checksums, and writes the classpath file. Later starts reuse it.
"""

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

from . import _paths
from .daemons import tail

RESOLVER_CLASS = "org.apache.spark.sql.hbase.local.ResolveJars"


def packaged_hbase_classpath() -> Path:
    """The classpath file of the wheel's embedded HBase, fetching its jars first if needed."""
    from . import __version__
    from .spark_cli import spark_home

    packaged = _paths.packaged_jars_dir() / "hbase_local"
    lock = packaged / "hbase-local.lock"
    own = sorted(packaged.glob("spark-hbase-sql-hbase-local-*.jar"))
    if not lock.is_file() or not own:
        raise _paths.PathsError(f"this installation has no embedded HBase files in {packaged}; reinstall the wheel")
    cache = _paths.cache_dir()
    # Named after the lock's content too, so that a wheel pinning other jars never reuses these.
    key = f"{__version__}-{hashlib.sha256(lock.read_bytes()).hexdigest()[:12]}"
    classpath = cache / f"hbase-local-{key}.classpath"
    if classpath.is_file():
        return classpath
    cache.mkdir(parents=True, exist_ok=True)
    fetched = cache / f"hbase-local-{key}.jars"
    pinned = [line for line in lock.read_text().splitlines() if line.strip() and not line.startswith("#")]
    print(
        f"Fetching the {len(pinned)} pinned jars of the embedded HBase from Maven Central into {cache} "
        "(first start only)",
        file=sys.stderr,
        flush=True,
    )
    log = cache / "resolve.log"
    command = [
        _paths.java_executable(),
        "-cp",
        os.pathsep.join([str(spark_home() / "jars" / "*"), str(own[-1])]),
        RESOLVER_CLASS,
        str(lock),
        str(cache / "ivy"),
        str(fetched),
    ]
    started = time.monotonic()
    with open(log, "w") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE, text=True)
        done = 0
        for line in proc.stderr:
            out.write(line)
            if "[SUCCESSFUL ]" in line:
                done += 1
                if done % 20 == 0 or done == len(pinned):
                    print(
                        f"  {done}/{len(pinned)} jars downloaded ({time.monotonic() - started:.0f} s)",
                        file=sys.stderr,
                        flush=True,
                    )
        code = proc.wait()
    if code != 0 or not fetched.is_file():
        raise _paths.PathsError(
            f"fetching the embedded HBase's jars failed (exit code {code}); see {log}:\n{tail(log)}"
        )
    jars = [j for j in fetched.read_text().split(os.pathsep) if j]
    entries = jars + [str(_paths.server_jar()), str(own[-1])]
    tmp = classpath.with_suffix(".tmp")
    tmp.write_text(os.pathsep.join(entries))
    os.replace(tmp, classpath)
    print(f"  fetched {len(jars)} jars in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    return classpath
