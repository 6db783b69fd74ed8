# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Apache Phoenix for the Phoenix benchmark only (its install): its jars from Maven Central under benchmarks/work/phoenix.

Phoenix publishes no server jar for HBase 2.6 on Maven Central, only its modules: phoenix-core-client,
phoenix-core-server and phoenix-hbase-compat-2.6.0. Their runtime dependencies are resolved with Ivy (the
one in pyspark's jars) from Maven Central alone, leaving out what the embedded HBase already has: HBase,
Hadoop and ZooKeeper by group, and any other jar whose artifact is on HBase's classpath, so that one
version of each class is loaded, HBase's. Nothing here is a dependency of the plugin or its tests.
"""

import os
import re
import subprocess
from pathlib import Path

from harness.java import pyspark_jars
from harness.platform import java_executable

PHOENIX_VERSION = "5.2.1"
PHOENIX_MODULES = ("phoenix-core-client", "phoenix-core-server")
# compat-2.6.0 is the newest on Maven Central; HBase 2.6.4 is compatible with it except in local-index code.
PHOENIX_COMPAT = "phoenix-hbase-compat-2.6.0"
MAVEN_CENTRAL = "https://repo1.maven.org/maven2/"
# Groups the embedded HBase brings; their versions must be HBase's, not the ones Phoenix was built with.
PROVIDED_GROUPS = ("org.apache.hbase", "org.apache.hadoop", "org.apache.zookeeper")


def artifact_name(jar):
    """protobuf-java-2.5.0.jar -> protobuf-java; htrace-core4-4.1.0-incubating.jar -> htrace-core4."""
    return re.sub(r"-\d[^/]*\.jar$", "", Path(jar).name)


def ivy_module():
    modules = "\n".join(
        f'    <dependency org="org.apache.phoenix" name="{m}" rev="{PHOENIX_VERSION}" conf="default->default"/>'
        for m in PHOENIX_MODULES
    )
    excludes = "\n".join(f'    <exclude org="{g}"/>' for g in PROVIDED_GROUPS)
    return f"""<ivy-module version="2.0">
  <info organisation="spark-hbase-sql" module="phoenix-benchmark"/>
  <configurations><conf name="default"/></configurations>
  <dependencies>
{modules}
    <dependency org="org.apache.phoenix" name="{PHOENIX_COMPAT}" rev="{PHOENIX_VERSION}" transitive="false"
                conf="default->default"/>
    <!-- The poms' compat module is the default build profile's, for HBase 2.5: the one for 2.6 is above. -->
    <exclude org="org.apache.phoenix" module="phoenix-hbase-compat-2.5.4"/>
{excludes}
  </dependencies>
</ivy-module>
"""


IVY_SETTINGS = f"""<ivysettings>
  <property name="ivy.checksums" value="sha1,md5"/>
  <settings defaultResolver="central"/>
  <resolvers><ibiblio name="central" m2compatible="true" root="{MAVEN_CENTRAL}"/></resolvers>
</ivysettings>
"""


def install(work, hbase_classpath, log):
    """The jars to add after HBase's own on its classpath (and on the JDBC client's), resolved once."""
    home = Path(work) / f"phoenix-{PHOENIX_VERSION}"
    classpath_file = home / "phoenix.classpath"
    if not classpath_file.is_file():
        home.mkdir(parents=True, exist_ok=True)
        (home / "ivy.xml").write_text(ivy_module())
        (home / "ivysettings.xml").write_text(IVY_SETTINGS)
        log(f"installing Phoenix {PHOENIX_VERSION} from Maven Central into {home}")
        ivy = next(pyspark_jars().glob("ivy-*.jar"))
        resolved = home / "resolved.classpath"
        with open(home / "ivy.log", "w") as out:
            subprocess.run(
                [
                    java_executable(),
                    "-cp",
                    str(ivy),
                    "org.apache.ivy.Main",
                    "-settings",
                    str(home / "ivysettings.xml"),
                    "-cache",
                    str(home / "ivy-cache"),
                    "-ivy",
                    str(home / "ivy.xml"),
                    "-confs",
                    "default",
                    "-cachepath",
                    str(resolved),
                ],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                check=True,
            )
        classpath_file.write_text(resolved.read_text().strip())
    provided = {artifact_name(e) for e in hbase_classpath if e.endswith(".jar")}
    jars = [j for j in classpath_file.read_text().split(os.pathsep) if j]
    return [j for j in jars if artifact_name(j) not in provided]
