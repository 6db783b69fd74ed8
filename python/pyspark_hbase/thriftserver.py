# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Spark's Thrift JDBC server (HiveThriftServer2) with HBase SQL, on 127.0.0.1.

`spark-hbase thriftserver start|stop|status`. Its files live under <data dir>/thriftserver/:
the Derby metastore, the warehouse, the log, and the state file with the pid and port.
"""

from pathlib import Path
from typing import Union

from pyspark_hbase._paths import spark_home
from pyspark_hbase.daemons import HOST
from pyspark_hbase.local import LocalHBase
from pyspark_hbase.spark_server import SparkServer


class ThriftServer(SparkServer):
    name = "Thrift server"
    main_class = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"

    def __init__(self, data_dir: Union[str, Path, None] = None):
        local_dir = LocalHBase(data_dir).data_dir
        super().__init__(local_dir / "thriftserver", local_dir if data_dir is not None else None)

    def url(self, port: int) -> str:
        return f"jdbc:hive2://{HOST}:{port}/default"

    def server_args(self, port: int) -> list[str]:
        return [
            "spark-internal",
            "--hiveconf",
            f"hive.server2.thrift.bind.host={HOST}",
            "--hiveconf",
            f"hive.server2.thrift.port={port}",
        ]


def beeline_command(url: str, *args: str) -> list:
    """pyspark's own beeline, connected to `url`."""
    return [str(spark_home() / "bin" / "beeline"), "-u", url, *args]
