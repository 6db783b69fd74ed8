# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The plugin by its Maven coordinates, as a Scala or SQL user gets it: `./build/sbt publishM2`
publishes it as <organization>:spark-hbase-sql_2.13:<version> (one jar, no dependencies to fetch)
and the server jar as <organization>:spark-hbase-sql-server:<version>; `spark-submit --packages`
resolves the plugin from that repository and runs SQL against the embedded HBase."""

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pyspark_hbase import session as hbase_session

ROOT = Path(__file__).resolve().parents[1]
VERSION = (ROOT / "python" / "pyspark_hbase" / "VERSION").read_text().strip()


def _organization():
    found = re.search(r'ThisBuild / organization := "([^"]+)"', (ROOT / "build.sbt").read_text())
    assert found, "build.sbt sets no organization"
    return found.group(1)


ORGANIZATION = _organization()
PLUGIN = f"{ORGANIZATION}:spark-hbase-sql_2.13:{VERSION}"


@pytest.fixture(scope="module")
def repository(tmp_path_factory):
    """A Maven repository that `publishM2` wrote, kept apart from the user's ~/.m2."""
    repo = tmp_path_factory.mktemp("m2")
    # Docs are left out here for time; they are published like the jars.
    # Added to build/sbt's own JVM flags (SBT_JAVA_OPTS would replace them).
    env = dict(os.environ, JAVA_TOOL_OPTIONS=f"-Dmaven.repo.local={repo}")
    no_docs = [f"set {p} / Compile / packageDoc / publishArtifact := false" for p in ("core", "server")]
    done = subprocess.run(
        [str(ROOT / "build" / "sbt"), *no_docs, "publishM2"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-6000:]
    return repo


def _published(repo, artifact):
    return repo.joinpath(*ORGANIZATION.split("."), artifact, VERSION)


def test_publishes_the_plugin_as_one_jar_with_release_metadata_and_no_dependencies(repository):
    folder = _published(repository, "spark-hbase-sql_2.13")
    pom = (folder / f"spark-hbase-sql_2.13-{VERSION}.pom").read_text()
    for element in ("<licenses>", "<name>Apache-2.0</name>", "<scm>", "<developers>", "<url>"):
        assert element in pom, element
    # Spark and Scala are the cluster's; the shaded HBase client is inside the jar.
    assert "<dependencies>" not in pom, pom
    assert (folder / f"spark-hbase-sql_2.13-{VERSION}.jar").stat().st_size > 10_000_000


def test_publishes_the_server_jar_for_region_servers_with_hbase_left_to_them(repository):
    folder = _published(repository, "spark-hbase-sql-server")
    assert (folder / f"spark-hbase-sql-server-{VERSION}.jar").is_file()
    pom = (folder / f"spark-hbase-sql-server-{VERSION}.pom").read_text()
    dependencies = re.findall(r"<dependency>.*?</dependency>", pom, re.S)
    runtime = [d for d in dependencies if "<scope>provided</scope>" not in d and "<scope>test</scope>" not in d]
    assert "hbase-server" in pom and not runtime, runtime


JOB = textwrap.dedent("""
    import json, sys
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("packages").getOrCreate()
    t = sys.argv[1]
    spark.sql(f"CREATE TABLE {t} (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ({t}, COLS=[v=f.v]) SPLIT ON ((50))")
    spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), concat('v', id) FROM range(100)")
    query = f"SELECT k, v FROM {t} WHERE k BETWEEN 60 AND 62"
    rows = [tuple(r) for r in spark.sql(query).collect()]
    plan = spark.sql("EXPLAIN " + query).collect()[0][0]
    spark.sql(f"DROP TABLE {t}")
    print("RESULT " + json.dumps({"rows": rows, "plan": plan, "jars": spark.conf.get("spark.jars")}), flush=True)
    spark.stop()
""")


def test_spark_submit_packages_resolves_the_plugin_and_runs_keyed_sql_on_hbase(repository, hbase, tmp_path, table_name):
    conf = hbase_session.spark_conf(data_dir=hbase.data_dir if hbase else None)
    conf.pop("spark.jars")  # --packages brings the jar instead
    job = tmp_path / "job.py"
    job.write_text(JOB)
    ivy = tmp_path / "ivy"
    command = [
        str(Path(sys.executable).parent / "spark-submit"),
        "--master",
        "local[2]",
        "--packages",
        PLUGIN,
        "--repositories",
        repository.as_uri(),
        "--conf",
        f"spark.jars.ivy={ivy}",
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        "spark.sql.shuffle.partitions=2",
        *[arg for key, value in conf.items() for arg in ("--conf", f"{key}={value}")],
        str(job),
        table_name,
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_HOME", "PYTHONPATH")}
    env.update(PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1")
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    result = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and result, done.stdout[-4000:] + done.stderr[-6000:]
    seen = json.loads(result[-1][len("RESULT ") :])
    assert seen["rows"] == [[60, "v60"], [61, "v61"], [62, "v62"]]
    assert "HBaseTableScan" in seen["plan"] and "regions 1 of 2" in seen["plan"], seen["plan"]
    # Only our jar was fetched, from the published repository.
    fetched = sorted(p.name for p in (ivy / "jars").iterdir())
    assert fetched == [f"{ORGANIZATION}_spark-hbase-sql_2.13-{VERSION}.jar"], fetched
    assert seen["jars"].endswith(fetched[0]), seen["jars"]
