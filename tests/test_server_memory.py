# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Our aggregations in a region server stay within the server's memory budget
(`spark.hbase.server.aggregation.memory.share` of its heap): a region whose groups outgrow it sends
them to Spark and starts again, and the answer stays exact."""

import os

import pytest
from conftest import session_on
from pyspark_hbase import scan_metrics
from pyspark_hbase.local import LocalHBase

ROWS, GROUPS = 200_000, 50_000


@pytest.fixture(scope="module")
def tight_hbase(tmp_path_factory):
    if os.environ.get("HBASE_CONF_DIR"):
        pytest.skip("needs an embedded HBase of its own, with a tiny aggregation budget")
    # 0.0002 of a 1 GB heap: about 200 KB, a thousand groups or so, for all regions together.
    local = LocalHBase(
        tmp_path_factory.mktemp("tight-hbase"), site_settings={"spark.hbase.server.aggregation.memory.share": "0.0002"}
    )
    local.start()
    try:
        yield local
    finally:
        local.stop()


def test_a_group_by_of_many_string_groups_under_a_tiny_budget_is_exact(spark, tight_hbase, table_name):
    with session_on(spark, tight_hbase):
        spark.sql(
            f"CREATE TABLE {table_name} (k BIGINT, g STRING, v BIGINT, PRIMARY KEY (k)) "
            f"MAPPED BY ({table_name}, COLS=[g=f.g, v=f.v]) SPLIT ON (({ROWS // 2}))"
        )
        rows = f"SELECT id AS k, concat('group-', id % {GROUPS}) AS g, id * 3 AS v FROM range({ROWS})"
        spark.sql(f"INSERT INTO {table_name} {rows}")
        query = f"SELECT g, count(*) AS n, sum(v) AS s FROM {table_name} GROUP BY g"
        assert "partial aggregate in region servers" in spark.sql(f"EXPLAIN {query}").first()[0]
        pushed = spark.sql(query)
        got = {tuple(r) for r in pushed.collect()}
        expected = {tuple(r) for r in spark.sql(f"SELECT g, count(*), sum(v) FROM ({rows}) GROUP BY g").collect()}
        assert len(expected) == GROUPS and got == expected
        # Each region holds all 50,000 groups; within the budget they come in many batches, so
        # Spark reads a group again for each batch it was in.
        metrics = scan_metrics(pushed)
        assert metrics["rowsRead"] > 1.5 * 2 * GROUPS, metrics
        # Each early batch is one the budget refused: the metrics say so.
        assert metrics["memoryFlushes"] > 10, metrics
        assert tight_hbase.is_running()
