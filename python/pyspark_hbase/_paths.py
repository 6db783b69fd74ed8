# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Where things are: the source checkout, its build outputs, jars, Java, the local data dir.

Environment overrides (useful outside a source checkout):
  SPARK_HBASE_HOME             root of the spark-hbase-sql checkout (the dir with build.sbt)
  SPARK_HBASE_LOCAL_DIR        data dir of the embedded HBase (default <repo>/.hbase-local,
                               or ~/.spark-hbase/local from a wheel)
  SPARK_HBASE_LOCAL_CLASSPATH  classpath file of the embedded HBase (read by `hbase_jars`)
  SPARK_HBASE_CACHE            where a wheel keeps the HBase jars it fetches (~/.spark-hbase/cache)
"""

import importlib.util
import os
import shutil
from pathlib import Path
from typing import Optional

BUILD_CLASSPATH_COMMAND = "./build/sbt hbaseLocal/writeClasspath"
BUILD_ASSEMBLY_COMMAND = "./build/sbt assembly"

_PACKAGE_DIR = Path(__file__).resolve().parent
# The one place the version is written (sbt reads it too).
__version__ = (_PACKAGE_DIR / "VERSION").read_text().strip()


class PathsError(RuntimeError):
    """A file the caller needs is missing; the message says how to produce it."""


def _find_root(start: Path) -> Optional[Path]:
    for d in (start, *start.parents):
        if (d / "build.sbt").is_file():
            return d
    return None


def repo_root() -> Optional[Path]:
    """The source checkout, or None when running from an installed wheel."""
    env = os.environ.get("SPARK_HBASE_HOME")
    if env:
        return Path(env).expanduser().resolve()
    # The package file first (editable install), then the working dir (wheel run inside a checkout).
    return _find_root(_PACKAGE_DIR) or _find_root(Path.cwd().resolve())


def require_root(what: str) -> Path:
    root = repo_root()
    if root is None:
        raise PathsError(
            f"cannot find the spark-hbase-sql source checkout (needed for {what}); "
            "run from inside it or set SPARK_HBASE_HOME"
        )
    return root


def conf_dir() -> Path:
    """The static hbase-site.xml and log4j2.properties: the checkout's conf/, or the wheel's copy."""
    packaged = _PACKAGE_DIR / "conf"
    if repo_root() is None and (packaged / "hbase-site.xml").is_file():
        return packaged
    return require_root("conf/hbase-site.xml") / "conf"


def default_local_dir() -> Path:
    env = os.environ.get("SPARK_HBASE_LOCAL_DIR")
    if env:
        return Path(env).expanduser().resolve()
    root = repo_root()
    if root is not None:
        return root / ".hbase-local"
    return Path.home() / ".spark-hbase" / "local"


def cache_dir() -> Path:
    """Where a wheel keeps what it fetches: $SPARK_HBASE_CACHE, else ~/.spark-hbase/cache."""
    env = os.environ.get("SPARK_HBASE_CACHE")
    return Path(env).expanduser().resolve() if env else Path.home() / ".spark-hbase" / "cache"


def fetched_jars_dir() -> Path:
    """Where the jars fetched from Maven (the embedded HBase's, Hive's LLAP jars) are kept."""
    return cache_dir() / "maven"


def server_jar() -> Path:
    """The jar to put on every region server: packaged with the wheel, else built in the checkout."""
    packaged = sorted((packaged_jars_dir() / "server").glob("spark-hbase-sql-server-*.jar"))
    if packaged:
        return packaged[-1]
    root = require_root("the server jar")
    built = sorted((root / "server" / "target").glob("spark-hbase-sql-server-*.jar"))
    if not built:
        raise PathsError(f"the server jar is not built; run `cd {root} && ./build/sbt server/package`")
    return built[-1]


def spark_home() -> Path:
    """The Spark distribution inside the pyspark package (found without importing pyspark)."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        raise PathsError("pyspark is not installed: pip install pyspark==4.3.0")
    return Path(spec.origin).resolve().parent


def java_executable() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / "java"
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("java")
    if not found:
        raise PathsError("no Java found: set JAVA_HOME or put `java` (17+) on PATH")
    return found


def packaged_jars_dir() -> Path:
    """Where a wheel carries the plugin jar (empty in a source checkout)."""
    return _PACKAGE_DIR / "jars"


def plugin_jars() -> list[Path]:
    """The Spark plugin jar(s): packaged with the wheel, else the sbt assembly of the checkout."""
    packaged = sorted(packaged_jars_dir().glob("*.jar"))
    if packaged:
        return packaged
    root = repo_root()
    if root is not None:
        built = sorted((root / "target").glob("scala-*/spark-hbase-sql-assembly-*.jar"))
        if built:
            return built[-1:]
    raise PathsError(f"spark-hbase-sql plugin jar not found; run `{BUILD_ASSEMBLY_COMMAND}` in the checkout")
