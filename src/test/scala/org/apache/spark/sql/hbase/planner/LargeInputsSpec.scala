// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.spark.sql.hbase.HBaseSuite
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.hbase.execution.HBaseTableScan
import org.apache.spark.sql.hbase.planner.RegionRequests
import org.apache.spark.util.SizeEstimator
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/**
 * Very large inputs: an IN list of 100,000 keys, a 1,000-term OR and a 200-column table. Each
 * answer is Spark's over the same rows, with pushdown on and off, and the plan the driver holds
 * stays within a stated bound.
 */
class LargeInputsSpec extends HBaseSuite {

  /**
   * The most bytes the driver's plan of one scan may take in its memory, whatever the input's size:
   * its key boxes, and the filter bytes written from them once, at planning (5.7 and 4 MB for
   * 100,000 keys).
   */
  private val PlanBound = 12L << 20

  /** The most bytes of server filter one scan RPC may carry. */
  private val FilterBound = 2L << 20

  /** 50,000 rows: key (k, s) with k < 25,000 and s in x, y; split in five regions. */
  private lazy val keyed: String = {
    val t = uniqueName("large")
    sql(s"""CREATE TABLE $t (k INT, s STRING, v BIGINT, PRIMARY KEY (k, s))
           |MAPPED BY ($t, COLS=[v=f.v]) SPLIT ON ((5000), (10000), (15000), (20000))""".stripMargin)
    sql(s"INSERT INTO $t SELECT CAST(id DIV 2 AS INT), IF(id % 2 = 0, 'x', 'y'), id * 3 FROM range(50000)")
    spark.range(50000).selectExpr("CAST(id DIV 2 AS INT) AS k", "IF(id % 2 = 0, 'x', 'y') AS s", "id * 3 AS v")
      .cache().createOrReplaceTempView(s"plain_$t")
    t
  }

  private def rowsOf(df: DataFrame): Seq[String] = df.collect().map(_.toString).toSeq.sorted

  /**
   * Plans `where` over the keyed table, checks the answer against Spark's over the same rows and
   * against a read with pushdown off, and checks the plan's size; returns the plan's figures.
   */
  private def sameAsSpark(where: String, expectedRows: Int): String = {
    val query = s"SELECT k, s, v FROM %s WHERE $where"
    val started = System.nanoTime()
    val df = sql(query.format(keyed))
    val scan = df.queryExecution.executedPlan.collectFirst { case s: HBaseTableScan => s }.get
    val planningMs = (System.nanoTime() - started) / 1000000
    val planBytes = SizeEstimator.estimate(scan.plan.regions)
    val filterBytes = scan.plan.regions.flatMap(r => r.server.map(r -> _)).map { case (r, server) =>
      val request = scan.plan.request
      RegionRequests.scanFilter(request, server, request.returnedColumns(r.residual)).toByteArray.length.toLong
    }.maxOption.getOrElse(0L)

    val answer = rowsOf(df)
    answer.size shouldBe expectedRows
    answer shouldBe rowsOf(sql(query.format(s"plain_$keyed")))
    withConf(HBaseSQLConf.Pushdown.key -> "false")(rowsOf(sql(query.format(keyed)))) shouldBe answer

    planBytes should be < PlanBound
    filterBytes should be < FilterBound
    val figures = s"planned in $planningMs ms (parse included): ${scan.plan.regions.size} regions, " +
      s"${scan.plan.rowRanges} row ranges, plan $planBytes bytes, server filter $filterBytes bytes per RPC"
    info(figures)
    figures
  }

  describe("an IN list of 100,000 keys on the leading key column") {
    it("returns Spark's answer, with a plan of bounded size") {
      val keys = (0 until 200000 by 2).mkString(", ") // half of them past the table's last key
      sameAsSpark(s"k IN ($keys)", expectedRows = 25000)
    }

    it("returns Spark's answer below the key range limit too, where each key is its own range") {
      val keys = (0 until 20000 by 2).mkString(", ")
      sameAsSpark(s"k IN ($keys) AND s = 'y'", expectedRows = 10000)
    }
  }

  describe("a 1,000-term OR") {
    it("of key equalities on both key columns and of key ranges returns Spark's answer") {
      val terms = (0 until 1000).map { i =>
        if (i % 2 == 0) s"(k = ${i * 24} AND s = '${if (i % 4 == 0) "x" else "y"}')"
        else s"(k >= ${i * 24 + 5} AND k < ${i * 24 + 8})"
      }
      sameAsSpark(terms.mkString(" OR "), expectedRows = 500 + 500 * 3 * 2)
    }
  }

  describe("a 200-column table") {
    it("inserts, reads whole, reads by key and aggregates as Spark does") {
      val t = uniqueName("wide")
      val values = (1 until 200).map(i => s"c$i")
      sql(s"CREATE TABLE $t (k INT, ${values.map(c => s"$c BIGINT").mkString(", ")}, PRIMARY KEY (k)) " +
        s"MAPPED BY ($t, COLS=[${values.map(c => s"$c=f.$c").mkString(", ")}]) SPLIT ON ((500))")
      val select = "CAST(id AS INT) AS k" +: (1 until 200).map(i => s"IF(id % $i = 0, NULL, id * $i) AS c$i")
      sql(s"INSERT INTO $t SELECT ${select.mkString(", ")} FROM range(1000)")
      spark.range(1000).selectExpr(select: _*).cache().createOrReplaceTempView(s"plain_$t")

      def same(query: String): Seq[String] = {
        val answer = rowsOf(sql(query.format(t)))
        answer shouldBe rowsOf(sql(query.format(s"plain_$t")))
        withConf(HBaseSQLConf.Pushdown.key -> "false", HBaseSQLConf.Coprocessor.key -> "false")(
          rowsOf(sql(query.format(t)))
        ) shouldBe answer
        answer
      }
      same("SELECT * FROM %s").size shouldBe 1000
      same("SELECT * FROM %s WHERE k = 504").size shouldBe 1
      same(
        s"SELECT pmod(k, 7), count(*), ${values.map(c => s"sum($c), max($c)").mkString(", ")} FROM %s GROUP BY pmod(k, 7)"
      )
        .size shouldBe 7
      sql(s"SELECT ${values.map(c => s"count($c)").mkString(", ")} FROM $t").collect().head shouldBe
        Row((1 until 200).map(i => 1000L - (999 / i + 1)): _*)
    }
  }
}
