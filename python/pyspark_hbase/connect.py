# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Spark Connect server with HBase SQL, on 127.0.0.1: `spark-hbase connect start|stop|status`.

Clients connect with `SparkSession.builder.remote("sc://127.0.0.1:<port>")` and need no JVM;
the server runs the plugin. Its files live under <data dir>/connect/. Spark's own tables and views
are kept as SparkServer says: in memory unless a Hive metastore is configured. Per user, each Connect
session's statements reach HBase as the session's user id (`sc://…/;user_id=alice`), which the
Connect server takes as the client states it.
"""

from pathlib import Path
from typing import Optional, Union

from pyspark_hbase.daemons import HOST
from pyspark_hbase.local import LocalHBase
from pyspark_hbase.spark_server import SparkServer, check_identity


class ConnectServer(SparkServer):
    name = "Spark Connect server"
    main_class = "org.apache.spark.sql.connect.service.SparkConnectServer"

    def __init__(
        self,
        data_dir: Union[str, Path, None] = None,
        identity: str = "shared",
        catalog_implementation: Optional[str] = None,
    ):
        local_dir = LocalHBase(data_dir).data_dir
        super().__init__(local_dir / "connect", local_dir if data_dir is not None else None, catalog_implementation)
        self.identity = check_identity(identity)

    def spark_conf(self) -> dict[str, str]:
        # Per user: each Connect session reaches HBase as its user id, which Connect does not
        # authenticate (docs/deployment.md says what that means).
        if self.identity == "per-user":
            identity = {"spark.sql.hbase.identity": "statement", "spark.sql.hbase.identity.trustConnectUser": "true"}
        else:
            identity = {"spark.sql.hbase.identity": "process"}
        return {**super().spark_conf(), **identity}

    def url(self, port: int) -> str:
        return f"sc://{HOST}:{port}"

    def server_args(self, port: int) -> list[str]:
        return [
            "--conf",
            f"spark.connect.grpc.binding.address={HOST}",
            "--conf",
            f"spark.connect.grpc.binding.port={port}",
            "spark-internal",
        ]
