// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import java.util.concurrent.{Callable, CountDownLatch, Executors}

import scala.util.Try

import org.apache.hadoop.hbase.TableName

import org.apache.spark.sql.Row
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}

class SqlSurfaceSpec extends HBaseSuite {

  private def described(t: String): Map[String, String] =
    sql(s"DESCRIBE $t").collect().map(r => r.getString(0) -> r.getString(1)).toMap

  private def regionCount(hbaseTable: String): Int =
    withAdmin(_.getRegions(TableName.valueOf(hbaseTable)).size)

  describe("CREATE TABLE ... SPLIT ON") {
    it("creates the HBase table pre-split at the given key prefixes") {
      val t = uniqueName("presplit")
      sql(s"""CREATE TABLE $t (region STRING, id INT, v STRING, PRIMARY KEY (region, id))
             |MAPPED BY ($t, COLS=[v=f.v]) SPLIT ON (('emea'), ('emea', 500), ('us'))""".stripMargin)
      regionCount(t) shouldBe 4
      described(t)("Regions") shouldBe "4"
      sql(s"INSERT INTO $t VALUES ('apac', 1, 'a'), ('emea', 1, 'b'), ('emea', 900, 'c'), ('us', 7, 'd')")
      // A task per region, to see each region's rows in a partition of their own.
      withConf(HBaseSQLConf.ScanTaskMaxBytes.key -> "0") {
        val df = sql(s"SELECT region, id FROM $t")
        df.rdd.mapPartitionsWithIndex((i, rows) =>
          rows.map(r => (i, r.getString(0), r.getInt(1)))
        ).collect().toSeq shouldBe
          Seq((0, "apac", 1), (1, "emea", 1), (2, "emea", 900), (3, "us", 7))
      }
    }

    it("refuses points that are not key prefixes, of the wrong type, or out of order, and creates nothing") {
      val t = uniqueName("badsplit")
      def failure(splits: String) = intercept[HBaseSQLException](sql(
        s"CREATE TABLE $t (a INT, b STRING, v INT, PRIMARY KEY (a, b)) MAPPED BY ($t, COLS=[v=f.v]) SPLIT ON $splits"
      )).getMessage
      failure("((1, 'x', 3))") should
        include("point 1 (1, 'x', 3) has 3 values but the primary key (a, b) has 2 columns")
      failure("(('abc'))") should include("point 1 ('abc'): 'abc' is not a valid INT for key column 'a'")
      failure("((5), (2))") should
        include("points must be in ascending key order, but point 2 (2) does not come after point 1 (5)")
      failure("((1, 'b'), (1, 'a'))") should include("point 2 (1, 'a') does not come after point 1 (1, 'b')")
      hbaseTableExists(t) shouldBe false
      Try(sql(s"DESCRIBE $t").collect()).isFailure shouldBe true
    }
  }

  describe("CREATE TABLE ... FAMILIES") {
    it("creates the HBase families with the settings given, which DESCRIBE shows") {
      val t = uniqueName("families")
      sql(s"""CREATE TABLE $t (k INT, a STRING, b STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[a=f.a, b=g.b])
             |FAMILIES (f (VERSIONS = 7, TTL = 86400, KEEP_DELETED_CELLS = true, MIN_VERSIONS = 1),
             |          g (COMPRESSION = 'gz', DATA_BLOCK_ENCODING = FAST_DIFF, BLOOMFILTER = ROWCOL))""".stripMargin)
      val family = withAdmin(
        _.getDescriptor(TableName.valueOf(t))
      ).getColumnFamily(org.apache.hadoop.hbase.util.Bytes.toBytes("f"))
      (family.getMaxVersions, family.getTimeToLive, family.getMinVersions) shouldBe ((7, 86400, 1))
      val shown = described(t)
      shown("Family f") shouldBe
        "VERSIONS 7, MIN_VERSIONS 1, TTL 86400, KEEP_DELETED_CELLS TRUE, COMPRESSION NONE, " +
        "DATA_BLOCK_ENCODING NONE, BLOOMFILTER ROW"
      shown("Family g") shouldBe
        "VERSIONS 1, MIN_VERSIONS 0, TTL FOREVER, KEEP_DELETED_CELLS FALSE, COMPRESSION GZ, " +
        "DATA_BLOCK_ENCODING FAST_DIFF, BLOOMFILTER ROWCOL"
    }

    it("is refused for an HBase table that exists, leaving no mapping") {
      val t = uniqueName("familiesexisting")
      createHBaseTable(t, Seq("f"))
      val error = intercept[HBaseSQLException](sql(
        s"CREATE TABLE $t (k INT, a STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[a=f.a]) FAMILIES (f (VERSIONS = 3))"
      ))
      error.getMessage should
        include(s"HBase table '$t' exists; FAMILIES sets up the families of a table CREATE TABLE makes")
      metadata.TableDefinitionStores.of(spark).get(t) shouldBe None
      withAdmin(
        _.getDescriptor(TableName.valueOf(t))
      ).getColumnFamily(org.apache.hadoop.hbase.util.Bytes.toBytes("f")).getMaxVersions shouldBe 1
    }
  }

  describe("ALTER TABLE") {
    it("adds a mapped column that reads the cells already in HBase, and drops it again") {
      val t = uniqueName("alter")
      sql(s"CREATE TABLE $t (k INT, a STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[a=f.a])")
      sql(s"INSERT INTO $t VALUES (1, 'x')")
      sql(s"ALTER TABLE $t ADD COLUMN b INT MAPPED BY (b = f.b)")
      sql(s"SELECT * FROM $t").collect().toSeq shouldBe Seq(Row(1, "x", null))
      sql(s"INSERT INTO $t VALUES (2, 'y', 20)")
      sql(s"ALTER TABLE $t DROP COLUMN a")
      sql(s"SELECT * FROM $t").collect().toSeq shouldBe Seq(Row(1, null), Row(2, 20))
      sql(s"ALTER TABLE $t ADD a2 STRING MAPPED BY (a2 = f.a)")
      sql(s"SELECT k, a2 FROM $t").collect().toSeq shouldBe Seq(Row(1, "x"), Row(2, "y"))
    }

    it("refuses to drop a key column, to map a missing family or a cell already mapped, changing nothing") {
      val t = uniqueName("alterbad")
      sql(s"CREATE TABLE $t (k INT, a STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[a=f.a])")
      val before = described(t)
      intercept[HBaseSQLException](sql(s"ALTER TABLE $t DROP COLUMN k")).getMessage should
        include("'k' is a key column")
      intercept[HBaseSQLException](sql(s"ALTER TABLE $t ADD COLUMN b INT MAPPED BY (b = nofam.b)")).getMessage should
        include("has no column family 'nofam'")
      intercept[HBaseSQLException](sql(s"ALTER TABLE $t ADD COLUMN b INT MAPPED BY (b = f.a)")).getMessage should
        include("cell f.a is already mapped to column 'a'")
      intercept[HBaseSQLException](sql(s"ALTER TABLE $t ADD COLUMN a INT MAPPED BY (a = f.z)")).getMessage should
        include("already has a column 'a'")
      described(t) shouldBe before
    }
  }

  describe("the catalog") {
    it("lets exactly one of two sessions racing to create a name win") {
      val t = uniqueName("race")
      val sessions = Seq(spark.newSession(), spark.newSession())
      val start = new CountDownLatch(1)
      val pool = Executors.newFixedThreadPool(2)
      try {
        val results = sessions.map { s =>
          pool.submit(new Callable[Try[Unit]] {
            override def call(): Try[Unit] = {
              start.await()
              Try(s.sql(s"CREATE TABLE $t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v])").collect())
            }
          })
        }
        start.countDown()
        val outcomes = results.map(_.get())
        outcomes.count(_.isSuccess) shouldBe 1
        outcomes.flatMap(_.failed.toOption).map(_.getMessage).head should include(s"table '$t' already exists")
      } finally pool.shutdown()
      hbaseTableExists(t) shouldBe true
    }

    for (layout <- Seq("CELLS", "PACKED"))
      it(s"lets several SQL tables map one HBase table, each reading it with its own schema, LAYOUT $layout") {
        val raw = uniqueName("rawshared")
        val (full, narrow) = (s"${raw}_full", s"${raw}_narrow")
        sql(
          s"CREATE TABLE $full (k INT, a STRING, b INT, PRIMARY KEY (k)) MAPPED BY ($raw, COLS=[a=f.a, b=g.b]) LAYOUT $layout"
        )
        sql(s"CREATE TABLE $narrow (id INT, b_again INT, PRIMARY KEY (id)) MAPPED BY ($raw, COLS=[b_again=g.b])")
        sql(s"INSERT INTO $full VALUES (1, 'x', 10), (2, 'y', NULL)")
        sql(s"INSERT INTO $narrow VALUES (3, 30)")
        sql(s"SELECT * FROM $full").collect().toSeq shouldBe Seq(Row(1, "x", 10), Row(2, "y", null), Row(3, null, 30))
        // Row 2 has a NULL in family g, the only family the narrow table maps. As cells, that is no cell
        // there, so it is not one of the narrow table's rows; packed, every family keeps its one cell.
        sql(s"SELECT * FROM $narrow").collect().toSeq shouldBe
          (if (layout == "CELLS") Seq(Row(1, 10), Row(3, 30)) else Seq(Row(1, 10), Row(2, null), Row(3, 30)))
      }

    it("shows a table created in one session to every other session at once") {
      val t = uniqueName("shared")
      val other = spark.newSession()
      sql(s"CREATE TABLE $t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v])")
      sql(s"INSERT INTO $t VALUES (1, 2)")
      other.sql(s"SELECT * FROM $t").collect().toSeq shouldBe Seq(Row(1, 2))
      other.sql(s"ALTER TABLE $t ADD COLUMN w INT MAPPED BY (w = f.w)")
      sql(s"SELECT * FROM $t").collect().toSeq shouldBe Seq(Row(1, 2, null))
    }
  }

  describe("names") {
    it("resolve to Spark's own table or view first, then to an HBase table") {
      val t = uniqueName("clash")
      sql(s"CREATE TABLE $t (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v])")
      sql(s"INSERT INTO $t VALUES (1, 'from hbase')")
      sql(s"SELECT v FROM $t").collect().toSeq shouldBe Seq(Row("from hbase"))
      sql(s"CREATE TEMPORARY VIEW $t AS SELECT 'from the view' AS v")
      try sql(s"SELECT v FROM $t").collect().toSeq shouldBe Seq(Row("from the view"))
      finally sql(s"DROP VIEW $t")
      sql(s"SELECT v FROM $t").collect().toSeq shouldBe Seq(Row("from hbase"))
    }

    it("qualify a column by the table's name, as a Spark table's do, and EXPLAIN reads the same either way") {
      val t = uniqueName("qualified")
      sql(s"CREATE TABLE $t (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v])")
      sql(s"INSERT INTO $t VALUES (1, 'a'), (2, 'b')")
      sql(s"SELECT $t.v FROM $t WHERE $t.k = 2").collect().toSeq shouldBe Seq(Row("b"))
      def explained(query: String) =
        sql(query).queryExecution.executedPlan.collectFirst { case s: execution.HBaseTableScan => s.simpleString(100) }
      val bare = explained(s"SELECT * FROM $t WHERE v > 'a' ORDER BY v LIMIT 1")
      bare.get should
        include("residual ((v IS NOT NULL) AND (v > 'a')), in region servers ((v IS NOT NULL) AND (v > 'a'))")
      bare.get should include("by v ASC NULLS FIRST")
      explained(s"SELECT * FROM $t WHERE $t.v > 'a' ORDER BY $t.v LIMIT 1") shouldBe bare
      explained(s"SELECT * FROM hbase.$t AS x WHERE x.v > 'a' ORDER BY x.v LIMIT 1") shouldBe bare
    }
  }

  describe("the DataFrame API") {
    it("reads with format(\"hbase\") and writes with mode(\"append\"), through the same plan as SQL") {
      val t = uniqueName("frames")
      sql(s"CREATE TABLE $t (k BIGINT, v STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v])")
      spark.range(0, 10).selectExpr("id AS k", "CAST(id * 3 AS STRING) AS v")
        .write.format("hbase").option("table", t).mode("append").save()
      val read = spark.read.format("hbase").option("table", t).load()
      read.queryExecution.executedPlan.collect { case s: execution.HBaseTableScan => s } should have size 1
      read.filter("k >= 8").collect().toSeq shouldBe Seq(Row(8L, "24"), Row(9L, "27"))
      spark.read.format("hbase").load(t).count() shouldBe 10
      val e = intercept[HBaseSQLException](spark.range(1).selectExpr(
        "id AS k",
        "'x' AS v"
      ).write.format("hbase").option("table", t).save())
      e.getMessage should include("mode(\"append\")")
      intercept[HBaseSQLException](spark.read.format("hbase").option("table", "no_such_table").load()).getMessage should
        include("HBase table 'no_such_table' does not exist")
    }
  }

  describe("settings") {
    it("are listed by SET -v with their defaults") {
      val listed = sql("SET -v").collect().map(r => r.getString(0) -> r.getString(1)).toMap
      listed("spark.sql.hbase.scanner.fetchsize") shouldBe "1000"
      listed("spark.sql.hbase.partition.expiration") shouldBe "600"
      listed("spark.sql.hbase.customfilter") shouldBe "true"
      listed("spark.sql.hbase.coprocessor") shouldBe "true"
    }
  }
}
