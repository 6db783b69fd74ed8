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

"""The embedded HBase's classpath: the file the checkout's build writes, or for an installed wheel,
which has no build, one made from the wheel's pinned jars.

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
import zipfile
from pathlib import Path
from typing import Optional

from pyspark_hbase import _paths
from pyspark_hbase._paths import BUILD_CLASSPATH_COMMAND, PathsError, repo_root
from pyspark_hbase.logs import tail

RESOLVER_CLASS = "org.apache.spark.sql.hbase.local.ResolveJars"


def hbase_classpath_file() -> Path:
    """The embedded HBase's classpath file: written by the checkout's build, or, from a wheel,
    by fetching the pinned HBase jars from Maven Central into the cache on first use."""
    env = os.environ.get("SPARK_HBASE_LOCAL_CLASSPATH")
    if env:
        return Path(env).expanduser().resolve()
    if repo_root() is None and _packaged_hbase_local().is_dir():
        return packaged_hbase_classpath()
    return _paths.require_root("the embedded HBase classpath") / "hbase-local" / "target" / "hbase-local.classpath"


def _packaged_hbase_local() -> Path:
    return _paths.packaged_jars_dir() / "hbase_local"


def read_classpath(path: Optional[Path] = None) -> list[str]:
    """Entries of the classpath file written by the sbt build; fails with the build command."""
    path = Path(path) if path is not None else hbase_classpath_file()
    hint = f"run `cd {repo_root() or '<checkout>'} && {BUILD_CLASSPATH_COMMAND}` to build it"
    if not path.is_file():
        raise PathsError(f"embedded HBase classpath not found at {path}; {hint}")
    entries = [e for e in path.read_text().strip().split(os.pathsep) if e]
    if not entries:
        raise PathsError(f"embedded HBase classpath file {path} is empty; {hint}")
    # Class dirs of not-yet-compiled modules are harmless; a missing jar means a stale file.
    missing = [e for e in entries if e.endswith(".jar") and not os.path.exists(e)]
    if missing:
        raise PathsError(
            f"embedded HBase classpath {path} lists {len(missing)} missing jar(s), e.g. {missing[0]}; {hint}"
        )
    return entries


def require_class(entries: list[str], class_name: str, path: Optional[Path] = None) -> str:
    """The classpath entry (class dir or jar) holding `class_name`; fails with the build command.

    Our own helper classes (hbase-local/src/main/java) live in hbase-local/target/classes,
    which sbt fills when it writes the classpath file.
    """
    resource = class_name.replace(".", "/") + ".class"
    dirs = [e for e in entries if os.path.isdir(e)]
    for d in dirs:
        if os.path.isfile(os.path.join(d, resource)):
            return d
    for jar in (e for e in entries if e.endswith(".jar") and os.path.isfile(e)):
        try:
            with zipfile.ZipFile(jar) as z:
                z.getinfo(resource)
                return jar
        except (KeyError, OSError, zipfile.BadZipFile):
            pass
    class_dirs = [e + ("" if os.path.isdir(e) else " (missing)") for e in entries if not e.endswith(".jar")]
    where = f" {path}" if path is not None else ""
    raise PathsError(
        f"class {class_name} not found on the embedded HBase classpath{where} "
        f"(class dirs: {', '.join(class_dirs) or 'none'}); run "
        f"`cd {repo_root() or '<checkout>'} && {BUILD_CLASSPATH_COMMAND}` to compile it"
    )


def packaged_hbase_classpath() -> Path:
    """The classpath file of the wheel's embedded HBase, fetching its jars first if needed."""
    packaged = _packaged_hbase_local()
    lock = packaged / "hbase-local.lock"
    own = sorted(packaged.glob("spark-hbase-sql-hbase-local-*.jar"))
    if not lock.is_file() or not own:
        raise PathsError(f"this installation has no embedded HBase files in {packaged}; reinstall the wheel")
    cache = _paths.cache_dir()
    # Named after the lock's content too, so that a wheel pinning other jars never reuses these.
    key = f"{_paths.__version__}-{hashlib.sha256(lock.read_bytes()).hexdigest()[:12]}"
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
        os.pathsep.join([str(_paths.spark_home() / "jars" / "*"), str(own[-1])]),
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
        raise PathsError(f"fetching the embedded HBase's jars failed (exit code {code}); see {log}:\n{tail(log)}")
    jars = [j for j in fetched.read_text().split(os.pathsep) if j]
    entries = jars + [str(_paths.server_jar()), str(own[-1])]
    tmp = classpath.with_suffix(".tmp")
    tmp.write_text(os.pathsep.join(entries))
    os.replace(tmp, classpath)
    print(f"  fetched {len(jars)} jars in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    return classpath
