// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.common

import org.apache.spark.sql.hbase.HBaseSuite

/** EXPLAIN FORMATTED, and the SQL tab of Spark's UI, describe our nodes as plain EXPLAIN does. */
class DescribedInExplainSpec extends HBaseSuite {

  /** Key k INT in [0, 300), split into 3 regions at 100 and 200; v = k % 10. */
  private lazy val table = {
    val t = uniqueName("explained")
    sql(s"CREATE TABLE $t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v]) SPLIT ON ((100), (200))")
    sql(s"INSERT INTO $t SELECT CAST(id AS INT), CAST(id % 10 AS INT) FROM range(0, 300)")
    t
  }

  private def formatted(statement: String): String = sql(s"EXPLAIN FORMATTED $statement").collect().head.getString(0)

  /** What the fields of our plans print and a reader of the plan has no use for. */
  private val fieldDumps =
    Seq("TableScanPlan(", "ScanRequest(", "HBaseTableDef(", "HBaseColumn(", "HBaseClusterConf(", "hbase.zookeeper")

  private def withoutFieldDumps(text: String): Unit = fieldDumps.foreach(dump => text should not include dump)

  describe("EXPLAIN FORMATTED") {
    it("gives a scan's arguments as EXPLAIN's words, not as the fields of its plan") {
      val text = formatted(s"SELECT * FROM $table WHERE k = 150")
      text should include(s"Arguments: $table [$table] regions 1 of 3, 1 key ranges (=150), 1 Gets and 0 scans")
      withoutFieldDumps(text)
    }

    it("does so for an aggregate in the region servers and a limit in key order") {
      val aggregate = formatted(s"SELECT v, count(*) FROM $table WHERE k < 150 GROUP BY v")
      aggregate should include(s"Arguments: $table [$table] regions 2 of 3")
      aggregate should include("partial aggregate in region servers: count(1) group by v")
      val limit = formatted(s"SELECT * FROM $table ORDER BY k LIMIT 3")
      limit should include("(2) KeyOrderLimit\nInput [2]: [k")
      limit should include("Arguments: 3, in key order [k ASC NULLS FIRST], output [k, v]")
      limit should include("limit 3")
      Seq(aggregate, limit).foreach(withoutFieldDumps)
    }

    it("does so for the table in a statement's logical plan and for our commands") {
      def explainedAs(statement: String, words: String): Unit = withClue(statement) {
        val text = formatted(statement)
        text should include(words)
        withoutFieldDumps(text)
      }
      explainedAs(
        s"INSERT INTO $table SELECT * FROM $table WHERE k = 1",
        s"HBaseRelation\nArguments: $table [$table] key (k)"
      )
      explainedAs(s"DELETE FROM $table WHERE k = 1", s"DeleteFromHBaseTableCommand\nArguments: $table [$table]")
      explainedAs(s"UPDATE $table SET v = 1 WHERE k = 1", s"UpdateHBaseTableCommand\nArguments: $table [$table] set v")
      explainedAs(s"DESCRIBE TABLE $table", s"DescribeMappedTableCommand\nArguments: $table [$table]")
      explainedAs(s"DESCRIBE TABLE $table v", s"DescribeMappedColumnCommand\nArguments: $table [$table] column v")
      explainedAs(s"SHOW CREATE TABLE $table", s"ShowCreateMappedTableCommand\nArguments: $table [$table]")
      val created = uniqueName("explained_not_created")
      explainedAs(
        s"CREATE TABLE $created (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($created, COLS=[v=f.v]) LAYOUT CELLS " +
          "SPLIT ON ((10))",
        s"CreateHBaseTableCommand\nArguments: $created [$created], LAYOUT CELLS, 2 regions"
      )
      withClue("EXPLAIN creates nothing: ")(spark.catalog.tableExists(created) shouldBe false)
    }
  }

  describe("the SQL tab of Spark's UI") {

    /** The plan the SQL tab shows for the last statement whose plan holds `marker`. */
    def lastShown(marker: String): String = {
      spark.sparkContext.listenerBus.waitUntilEmpty()
      val shown = spark.asInstanceOf[org.apache.spark.sql.classic.SparkSession].sharedState.statusStore
        .executionsList().map(_.physicalPlanDescription).filter(_.contains(marker))
      shown should not be empty
      shown.last
    }

    it("shows each statement's plan in those words") {
      sql(s"SELECT * FROM $table WHERE k = 42").collect().map(_.getInt(1)).toSeq shouldBe Seq(2)
      val shown = lastShown("(=42)")
      shown should include(s"Arguments: $table [$table] regions 1 of 3, 1 key ranges (=42)")
      withoutFieldDumps(shown)
    }

    it("shows a statement of our grammar in those words too") {
      val created = uniqueName("explained_created")
      sql(s"CREATE TABLE $created (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($created, COLS=[v=f.v]) LAYOUT CELLS " +
        "SPLIT ON ((10))")
      val shown = lastShown("CreateHBaseTableCommand")
      shown should include(s"CreateHBaseTableCommand\nArguments: $created [$created], LAYOUT CELLS, 2 regions")
      withoutFieldDumps(shown)
    }
  }
}
