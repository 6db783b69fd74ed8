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
with the SHA-256 of the file the build used (`group:artifact:version@sha256:<hex>`). On first use
those files are fetched from Maven Central (or the Maven repository `SPARK_HBASE_MAVEN_REPOSITORY`
names, a mirror), several at a time, each checked against its pinned hash, into the cache; then
the classpath file is written. Later starts reuse it.
"""

import hashlib
import os
import sys
import time
import urllib.request
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple, Optional

from pyspark_hbase import _paths
from pyspark_hbase._paths import BUILD_CLASSPATH_COMMAND, PathsError, repo_root

MAVEN_CENTRAL = "https://repo1.maven.org/maven2/"
# Downloads at once: most of the first start's time is round trips, not bandwidth.
PARALLEL_DOWNLOADS = 8
DOWNLOAD_TIMEOUT_S = 120


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

    Our own helper classes (hbase-local/src/main/java) are in the hbase-local jar, which sbt
    builds when it writes the classpath file.
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


class PinnedJar(NamedTuple):
    """One line of the lock file: a Maven jar and the SHA-256 of its file."""

    group: str
    artifact: str
    version: str
    sha256: str

    @classmethod
    def parse(cls, line: str) -> "PinnedJar":
        coordinates, sep, digest = line.strip().partition("@sha256:")
        parts = coordinates.split(":")
        if not sep or len(parts) != 3 or len(digest) != 64:
            raise PathsError(f"the lock file's line {line.strip()!r} is not group:artifact:version@sha256:<hex>")
        return cls(*parts, digest.lower())

    @property
    def file_name(self) -> str:
        return f"{self.artifact}-{self.version}.jar"

    def url(self, repository: str) -> str:
        return (
            f"{repository.rstrip('/')}/{self.group.replace('.', '/')}/{self.artifact}/{self.version}/{self.file_name}"
        )


def read_lock(lock: Path) -> list[PinnedJar]:
    return [
        PinnedJar.parse(line) for line in lock.read_text().splitlines() if line.strip() and not line.startswith("#")
    ]


def maven_repository() -> str:
    """Where pinned jars come from: Maven Central, or the mirror SPARK_HBASE_MAVEN_REPOSITORY names."""
    return os.environ.get("SPARK_HBASE_MAVEN_REPOSITORY") or MAVEN_CENTRAL


def fetch_pinned(jar: PinnedJar, repository: str, into: Path) -> Path:
    """The jar's file in `into`, downloaded unless already there, and checked against its pinned hash."""
    target = into / jar.group / jar.file_name
    if target.is_file() and _sha256(target) == jar.sha256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    url = jar.url(repository)
    tmp = target.with_name(target.name + f".{os.getpid()}.part")
    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as response, open(tmp, "wb") as out:
            while chunk := response.read(1 << 20):
                out.write(chunk)
        actual = _sha256(tmp)
        if actual != jar.sha256:
            raise PathsError(f"{url}: SHA-256 {actual} is not the pinned {jar.sha256}; refusing the file")
        os.replace(tmp, target)
    except OSError as e:
        raise PathsError(f"{url}: could not be downloaded ({e})") from None
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


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
    pinned = read_lock(lock)
    repository = maven_repository()
    print(
        f"Fetching the {len(pinned)} pinned jars of the embedded HBase from {repository} into {cache} "
        "(first start only)",
        file=sys.stderr,
        flush=True,
    )
    started = time.monotonic()
    jars_dir = _paths.fetched_jars_dir()
    jars = []
    with ThreadPoolExecutor(PARALLEL_DOWNLOADS) as pool:
        for done, path in enumerate(pool.map(lambda jar: fetch_pinned(jar, repository, jars_dir), pinned), 1):
            jars.append(str(path))
            if done % 20 == 0 or done == len(pinned):
                print(
                    f"  {done}/{len(pinned)} jars downloaded ({time.monotonic() - started:.0f} s)",
                    file=sys.stderr,
                    flush=True,
                )
    entries = jars + [str(_paths.server_jar()), str(own[-1])]
    tmp = classpath.with_suffix(".tmp")
    tmp.write_text(os.pathsep.join(entries))
    os.replace(tmp, classpath)
    print(f"  fetched {len(jars)} jars in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    return classpath
