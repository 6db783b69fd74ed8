"""Where things are: the source checkout, its build outputs, jars, Java, the local data dir.

Environment overrides (useful outside a source checkout):
  SPARK_HBASE_HOME             root of the spark-hbase-sql checkout (the dir with build.sbt)
  SPARK_HBASE_LOCAL_DIR        data dir of the embedded HBase (default <repo>/.hbase-local,
                               or ~/.spark-hbase/local from a wheel)
  SPARK_HBASE_LOCAL_CLASSPATH  classpath file of the embedded HBase
  SPARK_HBASE_CACHE            where a wheel keeps the HBase jars it fetches (~/.spark-hbase/cache)
"""

import os
import shutil
import zipfile
from pathlib import Path
from typing import Optional

BUILD_CLASSPATH_COMMAND = "./build/sbt hbaseLocal/writeClasspath"
BUILD_ASSEMBLY_COMMAND = "./build/sbt assembly"

_PACKAGE_DIR = Path(__file__).resolve().parent


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


def _require_root(what: str) -> Path:
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
    return _require_root("conf/hbase-site.xml") / "conf"


def default_local_dir() -> Path:
    env = os.environ.get("SPARK_HBASE_LOCAL_DIR")
    if env:
        return Path(env).expanduser().resolve()
    root = repo_root()
    if root is not None:
        return root / ".hbase-local"
    return Path.home() / ".spark-hbase" / "local"


def hbase_classpath_file() -> Path:
    """The embedded HBase's classpath file: written by the checkout's build, or, from a wheel,
    by fetching the pinned HBase jars from Maven Central into the cache on first use."""
    env = os.environ.get("SPARK_HBASE_LOCAL_CLASSPATH")
    if env:
        return Path(env).expanduser().resolve()
    if repo_root() is None and _packaged_hbase_local().is_dir():
        from .maven import packaged_hbase_classpath

        return packaged_hbase_classpath()
    return _require_root("the embedded HBase classpath") / "hbase-local" / "target" / "hbase-local.classpath"


def _packaged_hbase_local() -> Path:
    return packaged_jars_dir() / "hbase_local"


def cache_dir() -> Path:
    """Where a wheel keeps what it fetches: $SPARK_HBASE_CACHE, else ~/.spark-hbase/cache."""
    env = os.environ.get("SPARK_HBASE_CACHE")
    return Path(env).expanduser().resolve() if env else Path.home() / ".spark-hbase" / "cache"


def server_jar() -> Path:
    """The jar to put on every region server: packaged with the wheel, else built in the checkout."""
    packaged = sorted((packaged_jars_dir() / "server").glob("spark-hbase-sql-server-*.jar"))
    if packaged:
        return packaged[-1]
    root = _require_root("the server jar")
    built = sorted((root / "server" / "target").glob("spark-hbase-sql-server-*.jar"))
    if not built:
        raise PathsError(f"the server jar is not built; run `cd {root} && ./build/sbt server/package`")
    return built[-1]


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
