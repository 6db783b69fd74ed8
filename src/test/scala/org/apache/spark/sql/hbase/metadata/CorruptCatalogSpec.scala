// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.metadata

import org.apache.hadoop.hbase.client.Put

import org.apache.spark.sql.hbase.{HBaseSparkSession, HBaseSuite}
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.hbase.metadata.{TableDefinitionStore, TableDefinitionStores}
import org.apache.spark.sql.hbase.common.{HBaseSQLException, Utf8}

/**
 * A catalog row broken by hand, by a torn write of another tool, or written by a newer plugin
 * fails only the statements that name its table, with an error that names it and says what is
 * wrong; every other table stays usable, and DROP TABLE removes the broken row.
 */
class CorruptCatalogSpec extends HBaseSuite {

  override protected lazy val spark: SparkSession = sessionWithCatalog("spark_hbase_sql:corrupt_catalog_spec")

  private def rows(query: String): Seq[Row] = sql(query).collect().toSeq

  private def create(name: String): Unit = {
    sql(s"CREATE TABLE $name (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($name, COLS=[v=f.v])")
    sql(s"INSERT INTO $name VALUES (1, 'one'), (2, 'two')")
  }

  /** Overwrites the catalog row of `name` as a plain HBase client would. */
  private def storeRaw(name: String, value: String): Unit =
    withTable(TableDefinitionStores.metaTable(spark)) { meta =>
      meta.put(new Put(TableDefinitionStore.rowKey(name)).addColumn(
        Utf8.bytes("d"),
        Utf8.bytes("table"),
        Utf8.bytes(value)
      ))
    }

  private def storedJson(name: String): String = withTable(TableDefinitionStores.metaTable(spark)) { meta =>
    Utf8.string(meta.get(new org.apache.hadoop.hbase.client.Get(TableDefinitionStore.rowKey(name))).value())
  }

  private def breakages(json: String, healthy: String): Seq[(String, String, String)] = Seq(
    ("cut off in the middle", json.take(json.length / 2), "is not valid JSON ("),
    ("not JSON at all", "\u0000\u00ff garbage", "is not valid JSON ("),
    ("a JSON array", "[1, 2]", "is not a JSON object"),
    ("without a version", json.replaceFirst("\"version\":\\d+,", ""), "is in format version , and this"),
    ("of an unknown version", json.replaceFirst("\"version\":\\d+", "\"version\":\"beta\""), "format version \"beta\""),
    (
      "of a future version",
      json.replaceFirst("\"version\":\\d+", "\"version\":99"),
      "is in format version 99, and this spark-hbase-sql reads versions 1 to 4: a newer spark-hbase-sql wrote it"
    ),
    ("without its columns", json.replaceFirst("\"columns\":", "\"cols\":"), "lacks field 'columns'"),
    ("with a type Spark does not know", json.replace("\"string\"", "\"strin\""), "is malformed ("),
    ("of an unknown table format", json.replace("\"Binary\"", "\"Avro\""), "is malformed: Unknown table format 'Avro'"),
    ("of another table", json.replace(s"\"name\":\"$healthy\"", "\"name\":\"other\""), "defines table 'other' instead")
  )

  describe("a broken catalog row") {
    it("fails only the statements that name its table, naming it and what is wrong; DROP TABLE removes it") {
      val healthy = uniqueName("healthy")
      create(healthy)
      val json = storedJson(healthy)
      // Every broken entry maps the healthy table's HBase table: only catalog rows differ.
      val broken = breakages(json, healthy).map { case (breakage, entry, problem) =>
        val t = uniqueName("broken")
        sql(s"CREATE TABLE $t (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($healthy, COLS=[v=f.v])")
        storeRaw(t, entry.replace(s"\"name\":\"$healthy\"", s"\"name\":\"$t\""))
        (breakage, t, problem)
      }

      rows(s"SELECT v FROM $healthy WHERE k = 2") shouldBe Seq(Row("two"))
      rows(s"SELECT count(*) FROM hbase.$healthy") shouldBe Seq(Row(2L))
      sql(s"INSERT INTO $healthy VALUES (3, 'three')")
      rows("SHOW TABLES IN hbase").map(_.getString(1)) should contain allElementsOf (healthy +: broken.map(_._2))
      // The other specs' catalog does not hold them.
      HBaseSparkSession.session.sql("SHOW TABLES IN hbase").collect().map(_.getString(1)) should contain noElementsOf
        broken.map(_._2)

      def failsNamingIt(statement: String, t: String, problem: String): Unit = withClue(statement) {
        val error = intercept[HBaseSQLException](sql(statement).collect())
        error.getMessage should startWith(s"HBase table '$t' cannot be used: its catalog entry ")
        error.getMessage should include(problem)
        error.getMessage should endWith(s"DROP TABLE $t removes the entry and keeps the HBase table and its data")
      }
      for ((breakage, t, problem) <- broken) withClue(s"a catalog row $breakage: ") {
        failsNamingIt(s"SELECT * FROM $t", t, problem)
      }
      val (_, t, problem) = broken.head
      Seq(
        s"SELECT * FROM hbase.$t WHERE k = 1",
        s"INSERT INTO $t VALUES (3, 'three')",
        s"DESCRIBE TABLE $t",
        s"ALTER TABLE $t ADD COLUMN w STRING MAPPED BY (w = f.w)",
        s"CREATE INDEX i ON $t (v)"
      ).foreach(failsNamingIt(_, t, problem))

      for ((breakage, t, _) <- broken) withClue(s"a catalog row $breakage: ") {
        sql(s"DROP TABLE $t")
        TableDefinitionStores.of(spark).entry(t) shouldBe None
      }
      hbaseTableExists(healthy) shouldBe true
      sql(s"CREATE TABLE $t (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($healthy, COLS=[v=f.v])")
      rows(s"SELECT k, v FROM $t ORDER BY k") shouldBe Seq(Row(1, "one"), Row(2, "two"), Row(3, "three"))
    }

    it("is removed by DROP TABLE through the hbase catalog too, and by DROP TABLE IF EXISTS") {
      val healthy = uniqueName("healthy")
      create(healthy)
      for (drop <- Seq("DROP TABLE hbase.%s", "DROP TABLE IF EXISTS %s", "DROP TABLE IF EXISTS hbase.default.%s")) {
        withClue(drop) {
          val t = uniqueName("broken")
          sql(s"CREATE TABLE $t (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ($healthy, COLS=[v=f.v])")
          storeRaw(t, "{")
          sql(drop.format(t))
          TableDefinitionStores.of(spark).entry(t) shouldBe None
        }
      }
      rows(s"SELECT count(*) FROM $healthy") shouldBe Seq(Row(2L))
    }
  }
}
