// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.physical

import org.apache.spark.sql.hbase.{DifferentialCases, HBaseSuite}
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.TakeOrderedAndProjectExec
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.hbase.execution.{HBaseTableScan, KeyOrderLimit}
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/** ORDER BY the row key with LIMIT n reads the first n rows, in key order, and no more. */
class KeyOrderLimitSpec extends HBaseSuite with DifferentialCases with AdaptiveSparkPlanHelper {

  /** Key (a INT, b STRING) with a in [0, 600) and b in 'x', 'y'; split at a = 200 and inside a = 400's rows. */
  private lazy val table = {
    val t = uniqueName("ordered")
    sql(
      s"CREATE TABLE $t (a INT, b STRING, v INT, w STRING, PRIMARY KEY (a, b)) MAPPED BY ($t, COLS=[v=f.v, w=f.w]) " +
        "SPLIT ON ((200), (400, 'y'))"
    )
    sql(
      s"INSERT INTO $t SELECT CAST(id DIV 2 AS INT), IF(id % 2 = 0, 'x', 'y'), CAST(id % 7 AS INT), " +
        "IF(id % 5 = 0, NULL, CAST(id % 3 AS STRING)) FROM range(0, 1200)"
    )
    t
  }

  private def rowsRead(df: DataFrame): Long =
    collect(df.queryExecution.executedPlan) { case s: HBaseTableScan => s.metrics("rowsRead").value }.sum

  private def limited(df: DataFrame): Boolean =
    collect(df.queryExecution.executedPlan) { case l: KeyOrderLimit => l }.nonEmpty

  describe("ORDER BY the leading key columns with LIMIT n") {
    it("reads n rows from the first region when it holds them") {
      val df = sql(s"SELECT * FROM $table ORDER BY a, b LIMIT 5")
      df.collect().map(r => (r.getInt(0), r.getString(1))).toSeq shouldBe
        Seq((0, "x"), (0, "y"), (1, "x"), (1, "y"), (2, "x"))
      limited(df) shouldBe true
      rowsRead(df) shouldBe 5
    }

    it("goes on to the next regions in key order, and each region returns at most n rows") {
      val df = sql(s"SELECT a, b, v FROM $table WHERE v = 3 AND a >= 150 ORDER BY a LIMIT 40")
      val truth = sql(s"SELECT a, b, v FROM $table").collect().filter(r => r.getInt(2) == 3 && r.getInt(0) >= 150)
        .sortBy(r => (r.getInt(0), r.getString(1))).take(40).toSeq
      df.collect().toSeq shouldBe truth
      limited(df) shouldBe true
      rowsRead(df) should be <= 40L
    }

    it("descending, reads the regions from the highest key down") {
      val df = sql(s"SELECT a, b FROM $table WHERE a < 500 ORDER BY a DESC, b DESC LIMIT 5")
      df.collect().map(r => (r.getInt(0), r.getString(1))).toSeq shouldBe
        Seq((499, "y"), (499, "x"), (498, "y"), (498, "x"), (497, "y"))
      limited(df) shouldBe true
      rowsRead(df) shouldBe 5
      collect(df.queryExecution.executedPlan) { case s: HBaseTableScan => s.simpleString(10) }.head should
        include("reversed")
    }

    it("leaves a top-n Spark's where the order is not the key's") {
      for (order <- Seq("v, a", "a DESC, b", "b")) {
        val df = sql(s"SELECT * FROM $table ORDER BY $order LIMIT 3")
        df.collect()
        withClue(order)(limited(df) shouldBe false)
        collect(df.queryExecution.executedPlan) { case t: TakeOrderedAndProjectExec => t } should not be empty
      }
    }
  }

  private val suiteCases = 60

  describe(s"${randomCases(suiteCases)} random ORDER BY ... LIMIT queries") {
    it("return the rows Spark's own top-n returns") {
      val t = table
      val cases = randomCases(suiteCases)
      val failures = failedCases(cases, seed = 361) { (i, random, session) =>
        def pick[T](options: T*): T = options(random.nextInt(options.size))
        val where = pick(
          "",
          s"WHERE a BETWEEN ${random.nextInt(600)} AND ${random.nextInt(600)}",
          s"WHERE v ${pick("=", "<", ">")} ${random.nextInt(7)}",
          s"WHERE w IS NULL OR a > ${random.nextInt(600)}",
          s"WHERE b = 'y' AND v <> ${random.nextInt(7)}"
        )
        // By a alone, ties at the limit may be broken either way: only the a values are compared then.
        val (order, compared) =
          pick(("a", "a"), ("a, b", "*"), ("a ASC, b ASC", "*"), ("a DESC", "a"), ("a DESC, b DESC", "*"))
        val query =
          s"SELECT $compared FROM (SELECT ${pick("*", "a, b, v", "b, a, w")} FROM $t $where ORDER BY $order " +
            s"LIMIT ${1 + random.nextInt(500)})"
        val truth = withConf(session)(HBaseSQLConf.LimitInKeyOrder.key -> "false")(session.sql(query).collect().toSeq)
        withConf(session)(HBaseSQLConf.CustomFilter.key -> (i % 2 == 0).toString) {
          val df = session.sql(query)
          withClue(s"#$i $query\n${df.queryExecution.executedPlan}\n") {
            df.collect().toSeq shouldBe truth
            // A descending read is not reversed where the region server seeks between key boxes.
            if (!order.contains("DESC") || !where.contains("b =")) limited(df) shouldBe true
          }
        }
      }
      noFailedCases("limits in key order", cases, failures)
    }
  }
}
