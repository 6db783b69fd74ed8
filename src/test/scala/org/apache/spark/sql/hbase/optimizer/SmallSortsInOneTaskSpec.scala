// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.optimizer

import org.apache.spark.sql.hbase.{HBaseSuite, OrdersAndLines}
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.catalyst.plans.physical.RangePartitioning
import org.apache.spark.sql.execution.{CoalesceExec, SparkPlan}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/**
 * ORDER BY over a few rows that stages below it produced (a GROUP BY's groups over a join of HBase
 * tables): sorted in one task once adaptive execution knows their size, without Spark's shuffle
 * into ranges and its sampling job; the same rows, in the same order, as Spark's own plan gives.
 */
class SmallSortsInOneTaskSpec extends HBaseSuite with AdaptiveSparkPlanHelper with OrdersAndLines {

  /** Orders and their lines, some orders' d NULL ([[OrdersAndLines]]). */
  private lazy val (orders, lines) = ordersAndLines("sort", nullDays = true)

  private def plan(df: DataFrame): SparkPlan = {
    df.collect()
    df.queryExecution.executedPlan
  }

  private def rangeShuffles(p: SparkPlan): Seq[ShuffleExchangeExec] =
    collect(p) { case e: ShuffleExchangeExec if e.outputPartitioning.isInstanceOf[RangePartitioning] => e }

  /** Temporary views of the tables' rows, read once: Spark's own tables of the same rows. */
  private lazy val rowViews: Map[String, String] = Map("{o}" -> orders, "{l}" -> lines).map { case (slot, table) =>
    val rows = sql(s"SELECT * FROM $table")
    val view = s"${table}_rows"
    spark.createDataFrame(spark.sparkContext.parallelize(rows.collect().toSeq, 3), rows.schema)
      .createOrReplaceTempView(view)
    slot -> view
  }

  /** The same query on those views: Spark's answer over the same rows. */
  private def sparkAnswer(query: String): Seq[Row] =
    sql(rowViews.foldLeft(query) { case (q, (slot, view)) => q.replace(slot, view) }).collect().toSeq

  private val groupedQueries = Seq(
    "SELECT o.d, count(*) AS n, sum(l.q) AS q FROM {o} o JOIN {l} l ON o.ok = l.ok GROUP BY o.d ORDER BY o.d",
    "SELECT o.d, count(*) AS n FROM {o} o JOIN {l} l ON o.ok = l.ok GROUP BY o.d ORDER BY n DESC, o.d DESC NULLS LAST",
    "SELECT l.q, max(o.s) AS s FROM {o} o LEFT JOIN {l} l ON o.ok = l.ok WHERE o.ok BETWEEN 90 AND 310 " +
      "GROUP BY l.q ORDER BY s NULLS FIRST, l.q",
    "SELECT o.d % 3 AS m, count(DISTINCT l.ln) AS lns FROM {o} o JOIN {l} l ON o.ok = l.ok GROUP BY o.d % 3 ORDER BY m"
  )

  describe("an ORDER BY of a GROUP BY's groups over HBase tables") {
    for (query <- groupedQueries) {
      it(s"sorts them in one task, in Spark's order: $query") {
        val ours = query.replace("{o}", orders).replace("{l}", lines)
        val df = sql(ours)
        val p = plan(df)
        withClue(p.toString) {
          rangeShuffles(p) shouldBe empty
          collect(p) { case c: CoalesceExec => c } should have size 1
        }
        val expected = sparkAnswer(query)
        df.collect().toSeq shouldBe expected
        withConf(HBaseSQLConf.SortOneTaskMaxBytes.key -> "0") {
          val off = sql(ours)
          withClue("with the setting 0, Spark's own plan: ")(rangeShuffles(plan(off)) should not be empty)
          off.collect().toSeq shouldBe expected
        }
      }
    }

    it("keeps Spark's range shuffle when the groups are more bytes than the setting allows") {
      withConf(HBaseSQLConf.SortOneTaskMaxBytes.key -> "16") {
        val p = plan(sql(s"SELECT o.d, count(*) FROM $orders o JOIN $lines l ON o.ok = l.ok GROUP BY o.d ORDER BY o.d"))
        withClue(p.toString)(rangeShuffles(p) should not be empty)
      }
    }

    it("leaves a sort with nothing measured below it, and one of no HBase table, as Spark plans them") {
      val scan = sql(s"SELECT ok, s FROM $orders ORDER BY s, ok")
      withClue("no stage has run below a sort of the table itself: ")(rangeShuffles(plan(scan)) should not be empty)
      scan.collect().toSeq shouldBe sparkAnswer("SELECT ok, s FROM {o} ORDER BY s, ok")
      val noHBase = sql("SELECT id % 5 AS m, count(*) FROM range(0, 1000, 1, 4) GROUP BY id % 5 ORDER BY m")
      val p = plan(noHBase)
      withClue(p.toString)(rangeShuffles(p) should not be empty)
    }
  }
}
