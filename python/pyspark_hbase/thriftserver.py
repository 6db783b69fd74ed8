# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Spark's Thrift JDBC server (HiveThriftServer2) with HBase SQL, on 127.0.0.1.

`spark-hbase thriftserver start|stop|status`. Its files live under <data dir>/thriftserver/:
the warehouse (and the Derby metastore, when it keeps Spark's tables in Hive's), the log, and the
state file with the pid and port.
"""

from pathlib import Path
from typing import Optional, Union

from pyspark_hbase._paths import fetched_jars_dir, spark_home
from pyspark_hbase.daemons import HOST
from pyspark_hbase.hbase_jars import PinnedJar, fetch_pinned, maven_repository
from pyspark_hbase.local import LocalHBase
from pyspark_hbase.spark_server import SparkServer, check_identity

# Hive 2.3's jars that Spark 4 no longer ships. Closing a JDBC session can make Hive register its
# built-in functions (SessionState.close asks Hive.get for the session's metastore client, which
# registers them on a thread that has none yet); one of them, get_splits, needs these classes, and
# without them the close fails with NoClassDefFoundError LlapSigner$Signable (SPARK-51041 added
# them to Spark's own tests only).
HIVE_LLAP_JARS = (
    PinnedJar(
        "org.apache.hive",
        "hive-llap-common",
        "2.3.10",
        "34b9c057b4460b9930746ad663be14aee8a5b3676eeff62129301745072152d7",
    ),
    PinnedJar(
        "org.apache.hive",
        "hive-llap-client",
        "2.3.10",
        "8c77d0afb92939ee0758761422f20bf2f484e091baa857e337194a5dade2e7df",
    ),
)


class ThriftServer(SparkServer):
    name = "Thrift server"
    # Spark's Thrift server, whose JDBC metadata calls (getTables, getColumns) list the HBase tables too.
    main_class = "org.apache.spark.sql.hbase.thriftserver.HBaseThriftServer"

    def __init__(
        self,
        data_dir: Union[str, Path, None] = None,
        identity: str = "shared",
        catalog_implementation: Optional[str] = None,
        directory: Optional[Path] = None,
    ):
        """`catalog_implementation`: see SparkServer. `directory`: where the server's files live, by
        default <data dir>/thriftserver."""
        local_dir = LocalHBase(data_dir).data_dir
        super().__init__(
            directory or local_dir / "thriftserver", local_dir if data_dir is not None else None, catalog_implementation
        )
        self.identity = check_identity(identity)

    def spark_conf(self) -> dict[str, str]:
        # Per user: each session's statements run as its user (Hive's doAs), and HBase sees that user.
        return {
            **super().spark_conf(),
            "spark.sql.hbase.identity": "statement" if self.identity == "per-user" else "process",
        }

    def url(self, port: int) -> str:
        return f"jdbc:hive2://{HOST}:{port}/default"

    def driver_jars(self) -> list[str]:
        repository = maven_repository()
        return [str(fetch_pinned(jar, repository, fetched_jars_dir())) for jar in HIVE_LLAP_JARS]

    def server_args(self, port: int) -> list[str]:
        return [
            "spark-internal",
            "--hiveconf",
            f"hive.server2.thrift.bind.host={HOST}",
            "--hiveconf",
            f"hive.server2.thrift.port={port}",
            "--hiveconf",
            f"hive.server2.enable.doAs={'true' if self.identity == 'per-user' else 'false'}",
        ]


def beeline_command(url: str, *args: str) -> list:
    """pyspark's own beeline, connected to `url`."""
    return [str(spark_home() / "bin" / "beeline"), "-u", url, *args]
