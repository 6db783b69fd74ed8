// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import org.apache.spark.sql.Row
import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.hbase.connection.HBaseConnections
import org.apache.spark.sql.hbase.execution.HBaseTableScan
import org.apache.spark.sql.types.IntegerType
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.common.HBaseSQLConf

class EndToEndSpec extends HBaseSuite {

  private def tableNames: Set[String] =
    sql("SHOW TABLES IN hbase").collect().map(_.getString(1)).toSet

  describe("CREATE TABLE ... MAPPED BY") {
    it("creates the missing HBase table with the mapped families and lists the table") {
      val t = uniqueName("people")
      sql(
        s"CREATE TABLE $t (id INT, name STRING, age INT, PRIMARY KEY (id)) MAPPED BY (${t}_raw, COLS=[name=info.n, age=stats.a])"
      )
      hbaseTableExists(s"${t}_raw") shouldBe true
      withAdmin(
        _.getDescriptor(org.apache.hadoop.hbase.TableName.valueOf(s"${t}_raw")).getColumnFamilyNames.size
      ) shouldBe 2
      tableNames should contain(t)
      val described = sql(s"DESCRIBE $t").collect().map(r => r.getString(0) -> r.getString(1)).toMap
      described("HBase table") shouldBe s"${t}_raw"
      described("id") shouldBe "int"
    }

    it("refuses a second table of the same name, unless IF NOT EXISTS is given") {
      val t = uniqueName("dup")
      val ddl = s"CREATE TABLE $t (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v])"
      sql(ddl)
      intercept[HBaseSQLException](sql(ddl)).getMessage should include(s"table '$t' already exists")
      sql(ddl.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"))
      tableNames.count(_ == t) shouldBe 1
    }

    it("fails on an existing HBase table that lacks a mapped family, leaving no metadata behind") {
      val t = uniqueName("nofamily")
      createHBaseTable(t, Seq("present"))
      val e = intercept[HBaseSQLException](
        sql(s"CREATE TABLE $t (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=absent.v])")
      )
      e.getMessage should include("no column family 'absent'")
      tableNames should not contain t
      hbaseTableExists(t) shouldBe true
      // Not even claimed and withdrawn: another session could have altered the claim, and a withdrawal
      // of a claim that changed meanwhile fails, leaving a table that was never made.
      withTable(metadata.TableDefinitionStores.metaTable(spark)) { meta =>
        val raw = new org.apache.hadoop.hbase.client.Scan().withStartRow(metadata.TableDefinitionStore.rowKey(t))
          .withStopRow(metadata.TableDefinitionStore.rowKey(t), true).setRaw(true).readAllVersions()
        val scanner = meta.getScanner(raw)
        try withClue("cells and delete markers in the catalog row: ")(scanner.next() shouldBe null)
        finally scanner.close()
      }
    }
  }

  describe("INSERT and SELECT") {
    it("write rows with Puts and read them back in key order, NULLs included") {
      val t = uniqueName("events")
      sql(s"""CREATE TABLE $t (host STRING, ts BIGINT, level STRING, bytes INT, ok BOOLEAN, PRIMARY KEY (host, ts))
             |MAPPED BY ($t, COLS=[level=m.l, bytes=m.b, ok=n.ok])""".stripMargin)
      sql(s"""INSERT INTO $t VALUES
             |('web2', 20, 'INFO', 512, true), ('web1', 30, 'WARN', NULL, false),
             |('web1', -5, 'INFO', 7, NULL), ('web10', 1, NULL, NULL, NULL)""".stripMargin)
      sql(s"SELECT * FROM $t").collect().toSeq shouldBe Seq(
        Row("web1", -5L, "INFO", 7, null),
        Row("web1", 30L, "WARN", null, false),
        Row("web10", 1L, null, null, null),
        Row("web2", 20L, "INFO", 512, true)
      )
      sql(s"SELECT count(*) FROM $t").head().getLong(0) shouldBe 4
      sql(s"SELECT ts FROM $t WHERE host = 'web1' AND level = 'WARN'").collect().toSeq shouldBe Seq(Row(30L))
      sql(s"SELECT host, bytes FROM $t WHERE bytes > 10").collect().toSeq shouldBe Seq(Row("web2", 512))
    }

    it("accept a column list and coerce types as Spark's INSERT does") {
      val t = uniqueName("coerce")
      sql(s"CREATE TABLE $t (k INT, d DOUBLE, s STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[d=f.d, s=f.s])")
      sql(s"INSERT INTO $t (s, k) VALUES ('x', 2)")
      sql(s"INSERT INTO $t SELECT CAST(1 AS SMALLINT), 3, 'y'")
      sql(s"SELECT k, d, s FROM $t").collect().toSeq shouldBe Seq(Row(1, 3.0, "y"), Row(2, null, "x"))
    }

    it("reject a NULL key value, naming the column") {
      val t = uniqueName("nullkey")
      sql(s"CREATE TABLE $t (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v])")
      val e = intercept[Exception](sql(s"INSERT INTO $t SELECT CAST(NULL AS INT), 'x'"))
      val messages = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).map(_.getMessage).mkString("\n")
      messages should include(s"Key column 'k' of table '$t' cannot be NULL")
      sql(s"SELECT count(*) FROM $t").head().getLong(0) shouldBe 0
    }

    it("join HBase tables with Spark temp views") {
      val t = uniqueName("joined")
      sql(s"CREATE TABLE $t (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v])")
      sql(s"INSERT INTO $t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
      spark.range(2, 5).toDF("id").createOrReplaceTempView(s"${t}_ids")
      sql(s"SELECT v FROM $t JOIN ${t}_ids ON k = id ORDER BY k").collect().map(_.getString(0)).toSeq shouldBe
        Seq("two", "three")
    }
  }

  describe("the scan") {
    it("has one partition per region, in region order, each holding its region's keys") {
      val t = uniqueName("split")
      val keyCodec = new BinaryKeyCodec(Seq(IntegerType))
      createHBaseTable(t, Seq("f"), splits = Seq(100, 200).map(k => keyCodec.encode(Seq(k))))
      sql(s"CREATE TABLE $t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v])")
      spark.range(
        -50,
        250
      ).selectExpr("CAST(id AS INT) AS k", "CAST(id * 2 AS INT) AS v").createOrReplaceTempView(s"${t}_src")
      sql(s"INSERT INTO $t SELECT * FROM ${t}_src")

      // A task per region: by default a read this small reads its regions in one task.
      withConf(HBaseSQLConf.ScanTaskMaxBytes.key -> "0") {
        val df = sql(s"SELECT k, v FROM $t")
        df.queryExecution.executedPlan.collect { case s: HBaseTableScan => s } should have size 1
        df.rdd.getNumPartitions shouldBe 3
        val byPartition = df.rdd.mapPartitionsWithIndex((i, rows) => rows.map(r => (i, r.getInt(0)))).collect()
        byPartition.map(_._2).toSeq shouldBe (-50 until 250)
        byPartition.groupBy(_._1).view.mapValues(ks => (ks.map(_._2).min, ks.map(_._2).max)).toMap shouldBe
          Map(0 -> (-50, 99), 1 -> (100, 199), 2 -> (200, 249))
      }
      withClue("by default, fewer tasks than regions read consecutive regions, still in key order: ") {
        val shared = sql(s"SELECT k, v FROM $t")
        shared.rdd.getNumPartitions should be < 3
        val byTask = shared.rdd.mapPartitionsWithIndex((i, rows) => rows.map(r => (i, r.getInt(0)))).collect().toSeq
        byTask.map(_._2) shouldBe (-50 until 250)
        byTask.map(_._1) shouldBe sorted
      }
      sql(s"SELECT sum(v) FROM $t WHERE k >= 100").head().getLong(0) shouldBe (100 until 250).map(_ * 2L).sum
    }

    it("shares one HBase connection among all tasks of the JVM") {
      val t = uniqueName("shared")
      sql(s"CREATE TABLE $t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v])")
      // Held, so that no idle timeout closes it meanwhile (then the next statement would open one anew).
      HBaseConnections.borrow(cluster)
      try {
        val before = HBaseConnections.openedCount(cluster)
        sql(s"INSERT INTO $t SELECT CAST(id AS INT), CAST(id AS INT) FROM range(0, 1000, 1, 8)")
        sql(s"SELECT count(*) FROM $t").head().getLong(0) shouldBe 1000
        HBaseConnections.openedCount(cluster) shouldBe before
      } finally HBaseConnections.release(cluster)
    }
  }

  describe("DROP TABLE") {
    it("removes only the mapping: the HBase table keeps its rows for a new mapping") {
      val t = uniqueName("dropped")
      val ddl = s"CREATE TABLE $t (k STRING, v INT, PRIMARY KEY (k)) MAPPED BY (${t}_raw, COLS=[v=f.v])"
      sql(ddl)
      sql(s"INSERT INTO $t VALUES ('a', 1), ('b', 2)")
      sql(s"DROP TABLE $t")
      tableNames should not contain t
      hbaseTableExists(s"${t}_raw") shouldBe true
      intercept[Exception](sql(s"SELECT * FROM $t")).getMessage should include(t)
      sql(ddl)
      sql(s"SELECT k, v FROM $t").collect().toSeq shouldBe Seq(Row("a", 1), Row("b", 2))
    }

    it("with PURGE deletes the HBase table too, when CREATE TABLE made it, by one-part and catalog names") {
      for (name <- Seq((t: String) => t, (t: String) => s"hbase.$t")) {
        val t = uniqueName("purged")
        sql(s"CREATE TABLE $t (k STRING, v INT, PRIMARY KEY (k)) MAPPED BY (${t}_raw, COLS=[v=f.v]) SPLIT ON (('m'))")
        sql(s"INSERT INTO $t VALUES ('a', 1), ('x', 2)")
        sql(s"DROP TABLE ${name(t)} PURGE")
        tableNames should not contain t
        hbaseTableExists(s"${t}_raw") shouldBe false
      }
      sql(s"DROP TABLE IF EXISTS ${uniqueName("never_created")} PURGE")
    }

    it("with PURGE keeps an HBase table it did not make, or that another table maps, and changes nothing") {
      val t = uniqueName("kept")
      val ddl = s"CREATE TABLE $t (k STRING, v INT, PRIMARY KEY (k)) MAPPED BY (${t}_raw, COLS=[v=f.v])"
      sql(ddl)
      sql(s"INSERT INTO $t VALUES ('a', 1)")
      val other = uniqueName("other")
      sql(s"CREATE TABLE $other (k STRING, v INT, PRIMARY KEY (k)) MAPPED BY (${t}_raw, COLS=[v=f.v])")
      intercept[HBaseSQLException](sql(s"DROP TABLE $t PURGE")).getMessage shouldBe
        s"DROP TABLE $t PURGE: HBase table '${t}_raw' is mapped by '$other' too; drop it first"
      intercept[HBaseSQLException](sql(s"DROP TABLE $other PURGE")).getMessage shouldBe
        s"DROP TABLE $other PURGE: HBase table '${t}_raw' existed before CREATE TABLE $other mapped it, so PURGE " +
        s"does not delete it; DROP TABLE $other removes the mapping and keeps the HBase table (delete it with the " +
        "HBase shell if you mean to)"
      tableNames should contain allOf (t, other)
      sql(s"SELECT k, v FROM $other").collect().toSeq shouldBe Seq(Row("a", 1))
      sql(s"DROP TABLE $t")
      sql(ddl) // over the table it made before: now it did not make it
      intercept[HBaseSQLException](sql(s"DROP TABLE $t PURGE")).getMessage should include("existed before CREATE TABLE")
      sql(s"DROP TABLE $other")
      sql(s"DROP TABLE $t")
      hbaseTableExists(s"${t}_raw") shouldBe true
    }

    it("still drops Spark's own tables and views") {
      val view = uniqueName("view")
      sql(s"CREATE TEMPORARY VIEW $view AS SELECT 1 AS one")
      sql(s"DROP VIEW $view")
      sql(s"DROP TABLE IF EXISTS ${uniqueName("never_created")}")
      spark.catalog.tableExists(view) shouldBe false
    }
  }
}
