# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Bad input: each case gets a clear error naming what is at fault, and changes nothing.

Every case runs through PySpark against the real HBase; afterwards the SQL catalog and the list
of HBase tables must be exactly as before.
"""

import pytest

BASE = "bad_base"  # (k INT, v STRING, w INT), key k
TEXT = "bad_text"  # StringFormat, key (a STRING, b INT)
HB_ONLY = "bad_hbase_only"  # an HBase table with family 'present' only, mapped by nothing
VIEW = "bad_view"  # a temporary view over BASE
KEY_ONLY = "bad_key_only"  # key-only: (a STRING, b STRING), key (a, b)
TIMED = "bad_timed"  # (k INT, v INT, v_at TIMESTAMP = WRITETIME(f.v)), key k


def hbase_table_names(spark):
    """The HBase tables, read through the plugin's own shared connection."""
    jvm = spark._jvm
    cluster = jvm.org.apache.spark.sql.hbase.connection.HBaseClusterConf.fromSession(spark._jsparkSession)
    connections = jvm.org.apache.spark.sql.hbase.connection.HBaseConnections
    admin = connections.borrow(cluster).getAdmin()
    try:
        return {t.getNameAsString() for t in admin.listTableNames()}
    finally:
        admin.close()
        connections.release(cluster)


@pytest.fixture(scope="module")
def tables(spark):
    spark.sql(f"DROP TABLE IF EXISTS {BASE}")
    spark.sql(f"CREATE TABLE {BASE} (k INT, v STRING, w INT, PRIMARY KEY (k)) MAPPED BY ({BASE}, COLS=[v=f.v, w=f.w])")
    spark.sql(f"INSERT INTO {BASE} VALUES (1, 'one', 10)")
    spark.sql(f"DROP TABLE IF EXISTS {TEXT}")
    spark.sql(
        f"CREATE TABLE {TEXT} (a STRING, b INT, v STRING, PRIMARY KEY (a, b)) "
        f"MAPPED BY ({TEXT}, COLS=[v=f.v]) IN StringFormat"
    )
    # An HBase table that no SQL table maps: created through a mapping that is then dropped.
    spark.sql(
        f"CREATE TABLE IF NOT EXISTS {HB_ONLY} (k INT, x STRING, PRIMARY KEY (k)) MAPPED BY ({HB_ONLY}, COLS=[x=present.x])"
    )
    spark.sql(f"DROP TABLE {HB_ONLY}")
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW {VIEW} AS SELECT * FROM {BASE}")
    spark.sql(f"CREATE TABLE IF NOT EXISTS {KEY_ONLY} (a STRING, b STRING, PRIMARY KEY (a, b)) MAPPED BY ({KEY_ONLY})")
    spark.sql(
        f"CREATE TABLE IF NOT EXISTS {TIMED} (k INT, v INT, v_at TIMESTAMP, PRIMARY KEY (k)) "
        f"MAPPED BY ({TIMED}, COLS=[v=f.v, v_at=WRITETIME(f.v)])"
    )
    return spark


def good_create(name="t_new", cols="k INT, v STRING", pk="k", mapping="v=f.v", tail=""):
    return f"CREATE TABLE {name} ({cols}, PRIMARY KEY ({pk})) MAPPED BY ({name}, COLS=[{mapping}]){tail}"


SQL_CASES = [
    # CREATE TABLE: the definition itself
    ("CREATE TABLE t_new (k INT, v STRING) MAPPED BY (t_new, COLS=[v=f.v])", "PRIMARY KEY (...) is required"),
    (good_create(cols="k INT, v STRING, PRIMARY KEY (k)"), "PRIMARY KEY is given more than once"),
    (good_create(pk="x"), "PRIMARY KEY column 'x' is not defined"),
    (good_create(cols="k INT, j INT, v STRING", pk="k, j, k"), "column 'k' appears twice in PRIMARY KEY"),
    (good_create(cols="k INT, v STRING, v INT"), "column 'v' is defined more than once"),
    (good_create(cols="k INT, v STRING, V INT"), "column 'v' is defined more than once"),
    (good_create(mapping="k=f.k, v=f.v"), "key column 'k' is part of the row key and cannot be mapped to 'f.k'"),
    (good_create(cols="k INT, v STRING, w INT"), "column 'w' is neither in PRIMARY KEY nor mapped"),
    (good_create(mapping="v=f.v, z=f.z"), "COLS maps 'z=f.z' but column 'z' is not defined"),
    (good_create(cols="k INT, v STRING, w INT", mapping="v=f.q, w=f.q"), "columns v, w share the cell f.q"),
    (good_create(mapping="v=f.v, v=f.w"), "column 'v' is mapped more than once in COLS"),
    (good_create(cols="k INT, v ARRAY<INT>"), "column 'v' has unsupported type ARRAY<INT>"),
    (good_create(cols="k INT, v MAP<STRING, INT>"), "column 'v' has unsupported type MAP<STRING, INT>"),
    (good_create(cols="k INT, v NUMBERISH"), "Unknown type 'NUMBERISH' for column 'v'"),
    (good_create(cols="k STRUCT<a: INT>, v STRING"), "column 'k' has unsupported type STRUCT<a: INT>"),
    ("CREATE TABLE t_new (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY (t_new COLS=[v=f.v])", "'COLS'"),
    ("CREATE TABLE t_new (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY (t_new, COLS=[v=f])", "PARSE_SYNTAX_ERROR"),
    ("CREATE TABLE t_new (k INT, v STRING, PRIMARY KEY (k) MAPPED BY (t_new, COLS=[v=f.v])", "PARSE_SYNTAX_ERROR"),
    (good_create(tail=" IN Parquet"), "Unknown table format 'Parquet' after IN"),
    (good_create(tail=" IN Binary DELIMITER ':'"), "DELIMITER applies only to IN StringFormat"),
    (good_create(tail=" IN StringFormat DELIMITER ''"), "DELIMITER of IN StringFormat must not be empty"),
    (
        "CREATE TABLE db.t_new (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY (t_new, COLS=[v=f.v])",
        "CREATE TABLE t_new: 'db' is not an HBase catalog",
    ),
    (
        "CREATE TABLE t_new (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY (t_new)",
        "column 'v' is neither in PRIMARY KEY nor mapped in COLS=[v=family.qualifier]",
    ),
    (
        "CREATE TABLE t_new (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY (t_new, COLS=[])",
        "column 'v' is neither in PRIMARY KEY nor mapped in COLS=[v=family.qualifier]",
    ),
    (
        good_create(tail=" FAMILIES (g (VERSIONS = 3))"),
        "CREATE TABLE t_new FAMILIES g: 'g' is not a family of the table; its families are f",
    ),
    (good_create(tail=" FAMILIES (f (VERSIONS = 0))"), "VERSIONS must be a whole number of at least 1, not '0'"),
    (
        good_create(tail=" FAMILIES (f (TTL = 'soon'))"),
        "TTL must be a whole number of at least 1 (seconds) or FOREVER, not 'soon'",
    ),
    (
        good_create(tail=" FAMILIES (f (KEEP_DELETED_CELLS = maybe))"),
        "KEEP_DELETED_CELLS must be one of FALSE, TRUE, TTL, not 'maybe'",
    ),
    (good_create(tail=" FAMILIES (f (COMPRESSION = 'zip'))"), "COMPRESSION must be one of"),
    (
        good_create(tail=" FAMILIES (f (VERSION = 3))"),
        "unknown option 'VERSION'; the options are VERSIONS, MIN_VERSIONS, TTL",
    ),
    (good_create(tail=" FAMILIES (f (VERSIONS = 3, VERSIONS = 4))"), "VERSIONS is given more than once"),
    (good_create(tail=" FAMILIES (f (VERSIONS = 3), f (TTL = 5))"), "FAMILIES names 'f' more than once"),
    (
        good_create(cols="k INT, v STRING, t STRING", mapping="v=f.v, t=WRITETIME(f.v)"),
        "column 't': WRITETIME(f.v) is a TIMESTAMP, or a BIGINT of milliseconds since the epoch, not STRING",
    ),
    (
        good_create(cols="k INT, v STRING, t TIMESTAMP", mapping="v=f.v, t=WRITETIME(f.x)"),
        "column 't': WRITETIME(f.x) needs the cell f.x mapped to a column of table 't_new'",
    ),
    (
        good_create(cols="k INT, v STRING, t TIMESTAMP NOT NULL", mapping="v=f.v, t=WRITETIME(f.v)"),
        "write-time column 't' cannot be NOT NULL",
    ),
    # CREATE TABLE: against what exists
    (good_create(name=BASE), f"table '{BASE}' already exists"),
    (
        f"CREATE TABLE t_new (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ({HB_ONLY}, COLS=[v=absent.v])",
        f"HBase table '{HB_ONLY}' has no column family 'absent' (it has present)",
    ),
    (
        "CREATE TABLE t_new (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY (nope:t_new, COLS=[v=f.v])",
        "HBase namespace 'nope' does not exist",
    ),
    # CREATE TABLE ... SPLIT ON
    (good_create(tail=" SPLIT ON ((1, 2))"), "point 1 (1, 2) has 2 values but the primary key (k) has 1 columns"),
    (good_create(tail=" SPLIT ON (('x'))"), "point 1 ('x'): 'x' is not a valid INT for key column 'k'"),
    (good_create(tail=" SPLIT ON ((9), (3))"), "point 2 (3) does not come after point 1 (9)"),
    (good_create(tail=" SPLIT ON ((3), (3))"), "point 2 (3) does not come after point 1 (3)"),
    (good_create(tail=" SPLIT ON ((NULL))"), "key column 'k' cannot be NULL"),
    # INSERT
    (f"INSERT INTO {BASE} SELECT CAST(NULL AS INT), 'x', 1", f"Key column 'k' of table '{BASE}' cannot be NULL"),
    (f"INSERT INTO {BASE} (v, w) VALUES ('x', 1)", f"INSERT INTO {BASE} must give key column 'k'"),
    (f"INSERT INTO {BASE} VALUES (1, 'x')", BASE),
    (f"INSERT INTO {BASE} VALUES (1, 'x', 'not a number')", "w"),
    (f"INSERT OVERWRITE {BASE} VALUES (1, 'x', 2)", f"INSERT OVERWRITE is not supported on HBase table '{BASE}'"),
    (f"INSERT INTO {BASE} (k, zz) VALUES (1, 'x')", f"Column 'zz' does not exist in table '{BASE}'"),
    (f"INSERT INTO {BASE} (k) VALUES (1, 'x')", f"INSERT INTO {BASE} names 1 columns but the query gives 2"),
    (f"INSERT INTO {TEXT} VALUES ('a|b', 1, 'x')", "Key part 1 'a|b' contains the key delimiter '|'"),
    (f"INSERT INTO {KEY_ONLY} VALUES ('a', 'b', 'c')", KEY_ONLY),
    (f"INSERT INTO {KEY_ONLY} VALUES ('a', NULL)", f"Key column 'b' of table '{KEY_ONLY}' cannot be NULL"),
    # ALTER TABLE
    (f"ALTER TABLE {BASE} DROP COLUMN k", "'k' is a key column; the row key is (k)"),
    (f"ALTER TABLE {BASE} DROP COLUMN zz", f"Column 'zz' does not exist in table '{BASE}'"),
    (f"ALTER TABLE {BASE} ADD COLUMN v INT MAPPED BY (v = f.other)", f"table '{BASE}' already has a column 'v'"),
    (
        f"ALTER TABLE {BASE} ADD COLUMN x INT MAPPED BY (x = nofam.x)",
        f"HBase table '{BASE}' has no column family 'nofam'",
    ),
    (f"ALTER TABLE {BASE} ADD COLUMN x INT MAPPED BY (x = f.v)", "cell f.v is already mapped to column 'v'"),
    (f"ALTER TABLE {BASE} ADD COLUMN x INT NOT NULL MAPPED BY (x = f.x)", "a new column must allow NULL"),
    (
        f"ALTER TABLE {BASE} ADD COLUMN x INT MAPPED BY (y = f.x)",
        "MAPPED BY names column 'y' but the new column is 'x'",
    ),
    (f"ALTER TABLE {BASE} ADD COLUMN x ARRAY<INT> MAPPED BY (x = f.x)", "type ARRAY<INT> is not supported"),
    ("ALTER TABLE no_such_table ADD COLUMN x INT MAPPED BY (x = f.x)", "HBase table 'no_such_table' does not exist"),
    (
        f"ALTER TABLE {BASE} ADD COLUMN x BIGINT MAPPED BY (x = WRITETIME(f.zz))",
        f"WRITETIME(f.zz) needs the cell f.zz mapped to a column of table '{BASE}'",
    ),
    (f"ALTER TABLE {TIMED} DROP COLUMN v", "column 'v_at' is the write time of its cell f.v; DROP COLUMN v_at first"),
    # Write times
    (f"INSERT INTO {TIMED} (k, v_at) VALUES (1, now())", "'v_at' is the write time of cell f.v, which HBase sets"),
    (f"UPDATE {TIMED} SET v_at = now()", f"UPDATE {TIMED} SET v_at: 'v_at' is the write time of cell f.v"),
    # DELETE, UPDATE
    ("DELETE FROM no_such_table WHERE k = 1", "`no_such_table` cannot be found"),
    ("UPDATE no_such_table SET v = 'x'", "`no_such_table` cannot be found"),
    (f"UPDATE {BASE} SET k = 2 WHERE k = 1", f"UPDATE {BASE} SET k: 'k' is a key column"),
    (f"UPDATE {BASE} SET k = NULL", f"UPDATE {BASE} SET k: 'k' is a key column"),
    (f"UPDATE {TEXT} SET b = 2", f"UPDATE {TEXT} SET b: 'b' is a key column"),
    (
        f"UPDATE {BASE} SET w = array(1)",
        f"UPDATE {BASE} SET w: a value of type ARRAY<INT> cannot be stored in column 'w' of type INT",
    ),
    (
        f"UPDATE {BASE} SET w = 'not a number'",
        'The value \'not a number\' of the type "STRING" cannot be cast to "INT"',
    ),
    (f"UPDATE {BASE} SET w = CAST(w AS BIGINT) * 10000000000", 'cannot be cast to "INT" due to an overflow'),
    (f"UPDATE {BASE} SET zz = 1", "`zz` cannot be resolved"),
    (f"UPDATE {BASE} b SET b.zz = 1", "`b`.`zz` cannot be resolved"),
    (f"DELETE FROM {BASE} WHERE zz = 1", "`zz` cannot be resolved"),
    (f"UPDATE {BASE} SET v = 'a', v = 'b'", f"UPDATE {BASE} SET v: 'v' is set more than once"),
    (f"UPDATE {BASE} SET w = max(w)", f"UPDATE {BASE} SET w: the new value max({BASE}.w) is computed across rows"),
    (f"DELETE FROM {BASE} WHERE max(k) > 1", 'The WHERE condition "(max(k) > 1)" contains invalid expressions'),
    (f"DELETE FROM {BASE} WHERE v", 'Filter expression "v" of type "STRING" is not a boolean'),
    (f"DELETE FROM {VIEW} WHERE k = 1", f"DELETE FROM {VIEW}: '{VIEW}' is a view over HBase table '{BASE}'"),
    (f"UPDATE {VIEW} SET v = 'x'", f"UPDATE {VIEW}: '{VIEW}' is a view over HBase table '{BASE}'"),
    # MERGE INTO
    (
        f"MERGE INTO {BASE} t USING {BASE} s ON t.k = s.k WHEN MATCHED THEN UPDATE SET k = s.k + 1",
        f"MERGE INTO {BASE} WHEN MATCHED THEN UPDATE SET k: 'k' is a key column",
    ),
    (
        f"MERGE INTO {BASE} t USING {BASE} s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = 'a', v = 'b'",
        f"MERGE INTO {BASE} WHEN MATCHED THEN UPDATE SET v: 'v' is set more than once",
    ),
    (
        f"MERGE INTO {BASE} t USING (SELECT 1 AS k UNION ALL SELECT 1) s ON t.k = s.k WHEN MATCHED THEN DELETE",
        f"MERGE INTO {BASE}: 2 source rows match the target row (k = 1)",
    ),
    (
        f"MERGE INTO {VIEW} t USING {BASE} s ON t.k = s.k WHEN MATCHED THEN DELETE",
        f"MERGE INTO {VIEW}: '{VIEW}' is a view over HBase table '{BASE}'",
    ),
    (f"UPDATE {BASE} SET w = 1 WHERE k = 1 LIMIT 1", "Syntax error at or near 'LIMIT'"),
    # Reads as of a time
    (f"SELECT * FROM {BASE} TIMESTAMP AS OF 'yesterday'", "INVALID_TIME_TRAVEL_TIMESTAMP_EXPR"),
    (f"SELECT * FROM {BASE} TIMESTAMP AS OF k", "timestamp expression cannot refer to any columns"),
    (f"SELECT * FROM {BASE} VERSION AS OF 3", f"VERSION AS OF is not supported on HBase table '{BASE}'"),
    # The hbase catalog
    (f"SELECT * FROM hbase.nope.{BASE}", "cannot be found"),
    ("SHOW TABLES IN hbase.nope", "SCHEMA_NOT_FOUND"),
    (
        "CREATE TABLE nocat.t_new (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY (t_new, COLS=[v=f.v])",
        "CREATE TABLE t_new: 'nocat' is not an HBase catalog; register one with spark.sql.catalog.nocat=",
    ),
    (
        "CREATE TABLE hbase.nope.t_new (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY (t_new, COLS=[v=f.v])",
        "CREATE TABLE: catalog 'hbase' has no namespace 'nope'",
    ),
    ("CREATE TABLE hbase.t_new (k INT) USING parquet", "CREATE TABLE hbase.t_new: an HBase table needs its mapping"),
    ("CREATE NAMESPACE hbase.other", "are all in its one namespace, hbase"),
    ("DROP NAMESPACE hbase.default", "the one namespace of catalog 'hbase' cannot be dropped"),
    (f"ALTER TABLE hbase.{BASE} RENAME TO hbase.t_new", "HBase tables cannot be renamed"),
    (
        f"ALTER TABLE hbase.{BASE} ADD COLUMNS (x INT)",
        "ALTER TABLE t ADD COLUMN c TYPE MAPPED BY (c = family.qualifier)",
    ),
    (f"INSERT OVERWRITE hbase.{BASE} VALUES (1, 'x', 2)", f"INSERT OVERWRITE is not supported on HBase table '{BASE}'"),
    (f"SELECT * FROM hbase.{BASE} VERSION AS OF 1", f"VERSION AS OF is not supported on HBase table '{BASE}'"),
    ("DROP TABLE hbase.no_such_table", "cannot be found"),
    (
        f"ALTER TABLE nocat.{BASE} ADD COLUMN x INT MAPPED BY (x = f.x)",
        f"ALTER TABLE nocat.{BASE} ADD COLUMN x: 'nocat' is not an HBase catalog",
    ),
    (
        "ALTER TABLE hbase.no_such_table DROP COLUMN v",
        "ALTER TABLE hbase.no_such_table DROP COLUMN v: HBase table 'hbase.no_such_table' does not exist",
    ),
    (
        f"LOAD DATA LOCAL INPATH '/nonexistent' INTO TABLE hbase.nope.{BASE}",
        f"LOAD DATA INTO TABLE hbase.nope.{BASE}: catalog 'hbase' has no namespace 'nope'",
    ),
    (
        "SHOW INDEXES ON hbase.no_such_table",
        "SHOW INDEXES ON hbase.no_such_table: HBase table 'hbase.no_such_table' does not exist",
    ),
    # hbase_changes: Spark gives the function's errors their position in the statement
    (f"SELECT * FROM hbase_changes('{BASE}')", "hbase_changes takes 2 arguments"),
    (
        "SELECT * FROM hbase_changes('no_such_table', TIMESTAMP '2026-01-01 00:00:00')",
        "HBase table 'no_such_table' does not exist",
    ),
    (f"SELECT * FROM hbase_changes('{BASE}', 'soon')", "its second argument 'soon' is not a TIMESTAMP"),
    # DROP, SELECT
    ("DROP TABLE no_such_table", "no_such_table"),
    (f"SELECT nope FROM {BASE}", "nope"),
    ("SELECT * FROM no_such_table", "no_such_table"),
]


@pytest.mark.parametrize("statement,expected", SQL_CASES, ids=[f"{i:02d}" for i in range(len(SQL_CASES))])
def test_bad_statement_is_reported_and_changes_nothing(tables, statement, expected):
    spark = tables

    def tables_listed():
        return sorted(tuple(r) for q in ("SHOW TABLES", "SHOW TABLES IN hbase") for r in spark.sql(q).collect())

    catalog_before = tables_listed()
    hbase_before = hbase_table_names(spark)
    rows_before = sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {BASE}").collect())
    with pytest.raises(Exception) as error:
        spark.sql(statement).collect()
    assert expected in str(error.value)
    assert "\tat org.apache" not in str(error.value).split("JVM stacktrace")[0], "the message leads, not a stack trace"
    assert tables_listed() == catalog_before
    assert hbase_table_names(spark) == hbase_before
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {BASE}").collect()) == rows_before


def test_dataframe_reader_and_writer_name_what_is_missing(tables):
    spark = tables
    with pytest.raises(Exception, match="HBase table 'no_such_table' does not exist"):
        spark.read.format("hbase").option("table", "no_such_table").load()
    with pytest.raises(Exception, match=r'needs the table: .option\("table", "name"\)'):
        spark.read.format("hbase").load()
    with pytest.raises(Exception, match=r'mode\("append"\)'):
        spark.range(1).selectExpr("CAST(id AS INT) AS k", "'x' AS v", "1 AS w").write.format("hbase").option(
            "table", BASE
        ).save()
    with pytest.raises(Exception, match="Overwrite is not supported"):
        spark.range(1).selectExpr("CAST(id AS INT) AS k", "'x' AS v", "1 AS w").write.format("hbase").option(
            "table", BASE
        ).mode("overwrite").save()
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {BASE}").collect()) == [(1, "one", 10)]
