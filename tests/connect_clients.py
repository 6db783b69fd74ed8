# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Thin Spark Connect clients of the tests of one server for many users (test_identity, test_kerberos)."""

import pytest


def connect_as(url: str, user: str):
    """A thin Connect session (no JVM) stating its user id, as a client of that user does."""
    from pyspark.sql.connect.session import SparkSession as RemoteSparkSession

    return RemoteSparkSession.builder.remote(f"{url}/;user_id={user}").create()


def connect_denied(action) -> str:
    """The message of the error `action` fails with on the client."""
    from pyspark.errors import PySparkException

    with pytest.raises(PySparkException) as refused:
        action()
    return str(refused.value)


def stream_csv_into(session, source, table: str, checkpoint):
    """A stream of the `k INT, v STRING` CSV files in `source` into HBase table `table`, started from the thin client
    with the trigger availableNow."""
    return (
        session.readStream.schema("k INT, v STRING")
        .csv(str(source))
        .writeStream.format("hbase")
        .option("table", table)
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
