# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The wheel as a user installs it: ./bin/build-wheel, then `pip install` of that file alone into a
fresh virtualenv, run from a directory outside the checkout with an empty cache, so the embedded
HBase's jars come from Maven Central. One of the slow tests: it fetches about 120 MB.

What a wheel holds is checked whichever way it is built: by ./bin/build-wheel, and by a plain
`pip wheel python/` (quick: no jars, no HBase)."""

import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def assert_only_the_product(wheel: Path) -> None:
    """The wheel holds pyspark_hbase (and its dist-info), and neither the test helpers nor the tests."""
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        shipped = "".join(z.read(n).decode() for n in names if n.endswith(".py"))
    assert "pyspark_hbase/local.py" in names and "pyspark_hbase/readiness.py" in names
    # Killing and stopping region servers, granting rights and securing it with the tests' KDC are
    # what tests do to an HBase: pyspark_hbase_testing (region_servers, access, kerberos).
    assert not [n for n in names if n.startswith("pyspark_hbase_testing")], names
    assert [n for n in names if not n.startswith(("pyspark_hbase/", "pyspark_hbase-"))] == [], names
    assert "def kill_region_server" not in shipped and "def grant" not in shipped
    assert "class Kerberos" not in shipped and "krb5" not in shipped and "class Security" not in shipped


def _run(command, timeout=900, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)
    assert done.returncode == 0, f"{command} exited {done.returncode}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory, figure):
    """(venv bin dir, environment, working dir) of the wheel installed outside the checkout."""
    built = _run([str(ROOT / "bin" / "build-wheel")], cwd=ROOT)
    wheels = sorted((ROOT / "dist").glob("pyspark_hbase-*-py3-none-any.whl"))
    assert wheels, built.stdout
    figure("wheel size", f"{wheels[-1].stat().st_size / 1e6:.1f} MB")
    version = (ROOT / "python" / "pyspark_hbase" / "VERSION").read_text().strip()
    assert wheels[-1].name == f"pyspark_hbase-{version}-py3-none-any.whl"
    home = tmp_path_factory.mktemp("wheel-user")
    _run([sys.executable, "-m", "venv", str(home / "venv")])
    bin_dir = home / "venv" / "bin"
    _run([str(bin_dir / "pip"), "install", "--quiet", str(wheels[-1])])
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SPARK_HBASE") and k not in ("HBASE_CONF_DIR", "SPARK_HOME", "PYTHONPATH", "VIRTUAL_ENV")
    }
    env.update(
        HOME=str(home),
        SPARK_HBASE_CACHE=str(home / "cache"),
        SPARK_HBASE_LOCAL_DIR=str(home / "hbase"),
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
    )
    work = home / "work"
    work.mkdir()
    yield bin_dir, env, work
    subprocess.run([str(bin_dir / "spark-hbase"), "thriftserver", "stop"], env=env, cwd=work, timeout=120)
    subprocess.run([str(bin_dir / "spark-hbase"), "local", "stop"], env=env, cwd=work, timeout=120)


@pytest.fixture(scope="module")
def started(installed):
    """The output of a first `spark-hbase local start` from the wheel, and how long it took."""
    bin_dir, env, work = installed
    t0 = time.monotonic()
    done = _run([str(bin_dir / "spark-hbase"), "local", "start"], env=env, cwd=work, timeout=1500)
    return done, time.monotonic() - t0


def test_the_package_imports_from_the_venv_and_not_the_checkout(installed):
    bin_dir, env, work = installed
    where = _run(
        [
            str(bin_dir / "python"),
            "-c",
            "import pyspark_hbase, pyspark_hbase._paths as p; print(pyspark_hbase.__file__); print(p.repo_root())",
        ],
        env=env,
        cwd=work,
    ).stdout.split()
    assert where[0].startswith(str(bin_dir.parent)) and where[1] == "None", where


def test_the_wheel_holds_the_product_and_not_the_test_fixtures(installed):  # installed: the wheel is built
    wheel = sorted((ROOT / "dist").glob("pyspark_hbase-*-py3-none-any.whl"))[-1]
    assert_only_the_product(wheel)
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    assert any(n.startswith("pyspark_hbase/jars/") for n in names), "./bin/build-wheel packs the jars"


def test_a_plain_pip_wheel_of_python_holds_the_product_and_not_the_test_fixtures(tmp_path):
    # A copy of python/, so that the build leaves nothing (build/, *.egg-info) in the checkout.
    source = tmp_path / "python"
    shutil.copytree(ROOT / "python", source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--wheel-dir",
            str(tmp_path / "dist"),
            str(source),
        ]
    )
    wheels = sorted((tmp_path / "dist").glob("pyspark_hbase-*-py3-none-any.whl"))
    assert len(wheels) == 1, wheels
    assert_only_the_product(wheels[0])


def test_server_jar_prints_the_packaged_jar(installed):
    bin_dir, env, work = installed
    jar = Path(_run([str(bin_dir / "spark-hbase"), "server-jar"], env=env, cwd=work).stdout.strip())
    assert jar.is_file() and jar.name.startswith("spark-hbase-sql-server-") and str(jar).startswith(str(bin_dir.parent))


def test_a_first_local_start_fetches_the_pinned_hbase_jars_with_progress(installed, started, figure):
    bin_dir, env, work = installed
    done, seconds = started
    figure("first `spark-hbase local start` from the wheel, empty cache", f"{seconds:.0f} s")
    assert "Fetching the" in done.stderr and "jars downloaded" in done.stderr, done.stderr
    pinned = re.search(r"fetched (\d+) jars", done.stderr)
    lock = (ROOT / "hbase-local" / "target" / "hbase-local.lock").read_text().split()
    assert pinned and int(pinned.group(1)) == len(lock), done.stderr
    assert "HBase started" in done.stdout
    status = _run([str(bin_dir / "spark-hbase"), "local", "status"], env=env, cwd=work)
    assert status.stdout.strip().startswith("127.0.0.1:")


def test_enable_hbase_conf_sql_and_thriftserver_work_from_the_wheel(installed, started):
    bin_dir, env, work = installed
    spark_hbase = str(bin_dir / "spark-hbase")
    zk_port = _run([spark_hbase, "local", "status"], env=env, cwd=work).stdout.strip().rsplit(":", 1)[1]
    script = work / "job.py"
    script.write_text(
        textwrap.dedent(f"""
        from pyspark.sql import SparkSession
        from pyspark_hbase import enable_hbase, scan_metrics
        builder = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
        spark = enable_hbase(builder, hbase_conf={{"hbase.zookeeper.quorum": "127.0.0.1",
                                                  "hbase.zookeeper.property.clientPort": "{zk_port}"}}).getOrCreate()
        spark.sql("CREATE TABLE wheel_t (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY (wheel_t, COLS=[v=f.v])")
        spark.sql("INSERT INTO wheel_t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
        keyed = spark.sql("SELECT v FROM wheel_t WHERE k = 2")
        print("ROWS", [r.v for r in keyed.collect()], scan_metrics(keyed)["rowsScanned"])
    """)
    )
    out = _run([str(bin_dir / "python"), str(script)], env=env, cwd=work).stdout
    assert "ROWS ['b'] 1" in out, out

    flags = _run([spark_hbase, "conf"], env=env, cwd=work).stdout
    assert f"{bin_dir.parent}" in flags and "HBaseSparkSessionExtension" in flags, flags
    counted = _run([spark_hbase, "sql", "-e", "SELECT count(*) FROM wheel_t"], env=env, cwd=work).stdout
    assert counted.strip().splitlines()[-1] == "3", counted

    url = _run([spark_hbase, "thriftserver", "start"], env=env, cwd=work, timeout=600).stdout.strip().splitlines()[-1]
    beeline = next(bin_dir.parent.glob("lib/python*/site-packages/pyspark/bin/beeline"))
    read = _run(
        [
            str(beeline),
            "-u",
            url,
            "--silent=true",
            "--outputformat=tsv2",
            "--showHeader=false",
            "-e",
            "SELECT v FROM wheel_t ORDER BY k",
        ],
        env=env,
        cwd=work,
    ).stdout
    values = [line.rsplit("> ", 1)[-1] for line in read.splitlines()]  # beeline prompts before the first row
    assert values[-3:] == ["a", "b", "c"], read


def test_pinned_jars_come_from_the_repository_named_and_a_file_whose_hash_differs_is_refused(tmp_path, monkeypatch):
    import hashlib
    import http.server
    import threading

    from pyspark_hbase import hbase_jars
    from pyspark_hbase._paths import PathsError

    repository = tmp_path / "mirror"
    served = repository / "org" / "example" / "tool" / "1.0" / "tool-1.0.jar"
    served.parent.mkdir(parents=True)
    served.write_bytes(b"the jar's bytes")
    digest = hashlib.sha256(b"the jar's bytes").hexdigest()

    handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=str(repository))  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("SPARK_HBASE_MAVEN_REPOSITORY", f"http://127.0.0.1:{server.server_port}/")
        good = hbase_jars.PinnedJar.parse(f"org.example:tool:1.0@sha256:{digest}")
        fetched = hbase_jars.fetch_pinned(good, hbase_jars.maven_repository(), tmp_path / "cache")
        assert fetched.read_bytes() == b"the jar's bytes"

        tampered = good._replace(sha256="0" * 64)
        with pytest.raises(PathsError, match=r"tool-1\.0\.jar: SHA-256 [0-9a-f]{64} is not the pinned 0{64}"):
            hbase_jars.fetch_pinned(tampered, hbase_jars.maven_repository(), tmp_path / "other-cache")
        assert [p for p in (tmp_path / "other-cache").rglob("*") if p.is_file()] == []  # nothing kept

        missing = good._replace(version="2.0")
        with pytest.raises(PathsError, match=r"tool/2\.0/tool-2\.0\.jar: could not be downloaded"):
            hbase_jars.fetch_pinned(missing, hbase_jars.maven_repository(), tmp_path / "cache")
    finally:
        server.shutdown()
        server.server_close()

    with pytest.raises(PathsError, match="org.example:tool:1.0' is not group:artifact:version@sha256:<hex>"):
        hbase_jars.PinnedJar.parse("org.example:tool:1.0")
