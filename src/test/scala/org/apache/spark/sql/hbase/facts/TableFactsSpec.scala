// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.facts

import org.apache.hadoop.hbase.client.{Delete, Get, Put}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.{HBaseSuite, RegionServerGauges, metadata}
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.hbase.metadata.TableDefinitionStore
import org.apache.spark.sql.hbase.facts.{FactsCache, HBaseRegions}

/**
 * What statements know of tables, against the real HBase: a definition is parsed once and then
 * compared in the region server with the stored one; a change made anywhere is seen by the next
 * statement; and what HBase said of a table is forgotten when the table is purged.
 */
class TableFactsSpec extends HBaseSuite {
  private val Family = Bytes.toBytes("d")
  private val Definition = Bytes.toBytes("table")
  private val Tag = Bytes.toBytes("tag")

  // It breaks catalog entries (see sessionWithCatalog).
  private val catalogTable = "spark_hbase_sql:table_facts_spec"
  override protected lazy val spark: SparkSession = sessionWithCatalog(catalogTable)

  private def create(t: String): Unit = {
    sql(s"CREATE TABLE $t (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v])")
    sql(s"INSERT INTO $t VALUES (1, 'one'), (2, 'two')")
  }

  private def catalogRow(t: String): (Array[Byte], Option[Array[Byte]]) = withTable(catalogTable) { table =>
    val r = table.get(new Get(TableDefinitionStore.rowKey(t)))
    (r.getValue(Family, Definition), Option(r.getValue(Family, Tag)))
  }

  /** Writes the catalog row's cells as another application (or an older plugin) would. */
  private def writeRow(t: String, definition: Array[Byte], tag: Option[Array[Byte]]): Unit =
    withTable(catalogTable) { table =>
      val put = new Put(TableDefinitionStore.rowKey(t)).addColumn(Family, Definition, definition)
      tag.foreach(put.addColumn(Family, Tag, _))
      table.put(put)
      if (tag.isEmpty) table.delete(new Delete(TableDefinitionStore.rowKey(t)).addColumns(Family, Tag))
    }

  describe("a table's definition") {
    it("is what the next statement uses after any writer changed it, one that leaves the tag as it was too") {
      val t = uniqueName("facts_changed")
      create(t)
      sql(s"SELECT * FROM $t").collect() should have size 2
      val (stored, tag) = catalogRow(t)
      tag shouldBe defined
      // Unreadable JSON under the same tag, as an older plugin or a hand edit would leave it.
      writeRow(t, Bytes.toBytes("{broken"), tag)
      val failure = intercept[Exception](sql(s"SELECT * FROM $t").collect())
      failure.getMessage should include(s"HBase table '$t' cannot be used: its catalog entry")
      writeRow(t, stored, tag)
      sql(s"SELECT v FROM $t WHERE k = 2").collect() shouldBe Array(Row("two"))
      sql(s"DROP TABLE $t PURGE")
    }

    it("as changed by another session is what the next statement uses, and every write gives the row a new tag") {
      val t = uniqueName("facts_alter")
      create(t)
      sql(s"SELECT * FROM $t").columns shouldBe Array("k", "v")
      val before = catalogRow(t)._2.get
      sessionWithCatalog(catalogTable).sql(s"ALTER TABLE $t ADD COLUMN w INT MAPPED BY (w = f.w)")
      catalogRow(t)._2.get should not equal before
      sql(s"SELECT * FROM $t").columns shouldBe Array("k", "v", "w")
      sql(s"DROP TABLE $t")
      intercept[Exception](sql(s"SELECT * FROM $t").collect()).getMessage should include(t)
      sql(s"CREATE TABLE $t (k INT, x STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[x=f.v])")
      sql(s"SELECT x FROM $t WHERE k = 1").collect() shouldBe Array(Row("one"))
      sql(s"DROP TABLE $t")
    }

    it("written without a tag, as older plugins wrote it, is read whole by every statement") {
      val t = uniqueName("facts_untagged")
      create(t)
      val (stored, _) = catalogRow(t)
      writeRow(t, stored, None)
      sql(s"SELECT * FROM $t").collect() should have size 2
      writeRow(t, Bytes.toBytes("{broken"), None)
      intercept[Exception](sql(s"SELECT * FROM $t").collect()).getMessage should include("cannot be used")
      writeRow(t, stored, None)
      sql(s"SELECT * FROM $t").collect() should have size 2
      sql(s"DROP TABLE $t PURGE")
    }
  }

  describe("the catalog read every statement makes") {
    it("lets the next statement see a change another session made, or a definition broken in between") {
      val t = uniqueName("facts_ahead")
      create(t)
      sql(s"SELECT * FROM $t").collect() should have size 2 // the definition is cached from here on
      sql(s"SELECT * FROM $t WHERE k = 1").collect() shouldBe Array(Row(1, "one"))
      sessionWithCatalog(catalogTable).sql(s"ALTER TABLE $t ADD COLUMN w INT MAPPED BY (w = f.w)")
      sql(s"SELECT * FROM $t").columns shouldBe Array("k", "v", "w")
      val (stored, tag) = catalogRow(t)
      writeRow(t, Bytes.toBytes("{broken"), tag)
      intercept[Exception](sql(s"SELECT * FROM $t").collect()).getMessage should include("cannot be used")
      writeRow(t, stored, tag)
      sql(s"SELECT w FROM $t WHERE k = 2").collect() shouldBe Array(Row(null))
      sql(s"DROP TABLE $t PURGE")
    }

    it("leaves a Spark table of the same name first") {
      val t = uniqueName("facts_ahead_shadowed")
      create(t)
      sql(s"SELECT * FROM $t").collect()
      spark.range(3).createOrReplaceTempView(t)
      try sql(s"SELECT count(*) FROM $t").collect() shouldBe Array(Row(3))
      finally spark.catalog.dropTempView(t)
      sql(s"SELECT count(*) FROM $t").collect() shouldBe Array(Row(2))
      sql(s"DROP TABLE $t PURGE")
    }
  }

  describe("what HBase said of a table") {
    it("is forgotten when DROP TABLE ... PURGE deletes it, so a table made again under its name is looked up anew") {
      val t = uniqueName("facts_purge")
      sql(s"CREATE TABLE $t (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v]) SPLIT ON ((10))")
      sql(s"SELECT * FROM $t WHERE k > 0").collect()
      val hbaseTable = metadata.HBaseTableName("default", t)
      val regions = FactsCache.Regions(cluster, hbaseTable)
      eventually(20) {
        HBaseRegions.cached(cluster, hbaseTable, 3600) should have size 2
        FactsCache.cached(regions, Long.MaxValue).map(_.size) shouldBe Some(2)
      }
      sql(s"DROP TABLE $t PURGE")
      FactsCache.cached(regions, Long.MaxValue) shouldBe None
      sql(s"CREATE TABLE $t (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v]) SPLIT ON ((10), (20))")
      HBaseRegions.cached(cluster, hbaseTable, 3600) should have size 3
      sql(s"DROP TABLE $t PURGE")
    }
  }

  describe("a region server") {
    it("forgets a dropped table's metrics once its last region there closes, however briefly the table lived") {
      assume(RegionServerGauges.embedded, "reads the embedded HBase's JVMs")
      def flushed(t: String): String = {
        sql(s"CREATE TABLE $t (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v]) SPLIT ON ((10), (20))")
        sql(s"INSERT INTO $t SELECT CAST(id AS INT), concat('v', id) FROM range(30)")
        // A flush makes the table's metrics in each region server that holds a region of it.
        withAdmin(_.flush(org.apache.hadoop.hbase.TableName.valueOf(t)))
        s"_table_${t}_metric_"
      }
      val kept = flushed(uniqueName("facts_kept"))
      // HBase's own chore forgets only tables it saw online, every 6 s: these live about 2 s each.
      val dropped = (1 to 4).map { i =>
        val t = uniqueName(s"facts_brief$i")
        val named = flushed(t)
        sql(s"DROP TABLE $t PURGE")
        named
      }
      // JMX shows the metrics as they were up to 10 s before.
      eventually(40) {
        val names = RegionServerGauges.tableMetricNames()
        names.exists(_.contains(kept)) shouldBe true
        dropped.filter(d => names.exists(_.contains(d))) shouldBe empty
      }
    }
  }
}
