# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""LOAD DATA through PySpark: TPC-H lineitem as CSV, loaded as HFiles, read back as Spark reads the file."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

LINEITEM = """l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INT, l_quantity DECIMAL(15,2),
    l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2), l_tax DECIMAL(15,2), l_returnflag STRING,
    l_linestatus STRING, l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct STRING,
    l_shipmode STRING, l_comment STRING"""
CELLS = (
    "l_partkey=f.pk, l_suppkey=f.sk, l_quantity=f.q, l_extendedprice=f.ep, l_discount=f.d, l_tax=f.t, "
    "l_returnflag=f.rf, l_linestatus=f.ls, l_shipdate=f.sd, l_commitdate=f.cd, l_receiptdate=f.rd, "
    "l_shipinstruct=f.si, l_shipmode=f.sm, l_comment=f.c"
)


@pytest.fixture(scope="module")
def lineitem_csv(tmp_path_factory):
    out = tmp_path_factory.mktemp("tpch")
    subprocess.run(
        [str(Path(sys.executable).parent / "tpchgen-cli"), "csv", "-s", "0.01", "--tables", "lineitem", "-o", str(out)],
        check=True,
    )
    return out / "lineitem.csv"


def test_lineitem_loads_as_spark_reads_it_and_loading_twice_changes_nothing(spark, table_name, lineitem_csv):
    spark.sql(
        f"CREATE TABLE {table_name} ({LINEITEM}, PRIMARY KEY (l_orderkey, l_linenumber)) "
        f"MAPPED BY ({table_name}, COLS=[{CELLS}]) SPLIT ON ((15000), (30000), (45000))"
    )
    load = f"LOAD DATA LOCAL INPATH '{lineitem_csv}' INTO TABLE {table_name} OPTIONS (header 'true')"
    loaded, skipped = spark.sql(load).first()
    expected = spark.read.option("header", "true").schema(LINEITEM.replace("\n", " ")).csv(str(lineitem_csv))
    assert (loaded, skipped) == (expected.count(), 0) == (60175, 0)

    table = spark.table(table_name)
    columns = re.findall(r"(l_\w+) ", LINEITEM)
    assert len(columns) == 16
    assert table.select(*columns).exceptAll(expected).count() == 0
    assert expected.exceptAll(table.select(*columns)).count() == 0
    # A task per region, to count the regions: by default a read this small shares out its regions.
    spark.conf.set("spark.sql.hbase.scan.taskMaxBytes", "0")
    try:
        assert table.rdd.getNumPartitions() == 4
    finally:
        spark.conf.unset("spark.sql.hbase.scan.taskMaxBytes")

    assert tuple(spark.sql(load.replace("LOAD DATA", "LOAD DATA PARALLEL")).first()) == (60175, 0)
    assert table.count() == 60175
    assert table.select(*columns).exceptAll(expected).count() == 0
