// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.physical

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.hbase.{HBaseSuite, OrdersAndLines}
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.execution.{
  DriverAggregate, HBaseAggregateScan, HBaseMergeJoin, HBaseTableScan, KeyOrderLimit
}
import org.apache.spark.sql.internal.SQLConf

/**
 * The plan shapes of Spark's that our physical planning hooks into below Spark's public APIs
 * (docs/architecture.md, "Spark's internal hooks"). Each hook still fires, with adaptive
 * execution and without; a Spark upgrade that changes a shape fails here, naming the hook, rather
 * than silently losing the pushdown.
 */
class SparkHooksSpec extends HBaseSuite with OrdersAndLines with AdaptiveSparkPlanHelper {
  private lazy val (orders, lines) = ordersAndLines("hooks")

  private def plan(df: DataFrame) = { df.collect(); df.queryExecution.executedPlan }

  private def withAndWithoutAdaptive(body: => Unit): Unit =
    for (adaptive <- Seq("true", "false"))
      withConf(SQLConf.ADAPTIVE_EXECUTION_ENABLED.key -> adaptive)(withClue(s"adaptive execution $adaptive: ")(body))

  describe("Spark's plans our physical planning hooks into") {
    it("an aggregation planned as a partial BaseAggregateExec over PlanLater: HBaseStrategy swaps the partial") {
      withAndWithoutAdaptive {
        val df = sql(s"SELECT d, count(*), sum(ok) FROM $orders GROUP BY d")
        withClue(
          "hook HBaseStrategy.planAggregate (sessionState.planner.Aggregation, its partial BaseAggregateExec) " +
            "found no partial aggregation to replace: "
        )(collect(plan(df)) { case s: HBaseAggregateScan => s } should not be empty)
      }
    }

    it("a sort-merge join, as SortMergeJoinExec: MergeJoinsByKey merges it by key") {
      withAndWithoutAdaptive {
        withConf(SQLConf.AUTO_BROADCASTJOIN_THRESHOLD.key -> "-1") {
          val df = sql(s"SELECT o.ok, l.ln FROM $orders o JOIN $lines l ON o.ok = l.ok")
          withClue("hook MergeJoinsByKey (SortMergeJoinExec, its exchanges and sorts) merged no join: ")(
            collect(plan(df)) { case j: HBaseMergeJoin => j } should not be empty
          )
        }
      }
    }

    it(
      "a final BaseAggregateExec over its exchange and partial step, a side of a SortMergeJoinExec: MergeJoinsByKey merges it"
    ) {
      withAndWithoutAdaptive {
        withConf(SQLConf.AUTO_BROADCASTJOIN_THRESHOLD.key -> "-1") {
          // The lines' groups made in the region servers, and, under a condition only Spark checks, in Spark.
          for (where <- Seq("", "WHERE hash(l.q) % 3 <> 0")) {
            val df =
              sql(s"SELECT o.d, count(*), sum(l.q) FROM $lines l JOIN $orders o ON l.ok = o.ok $where GROUP BY o.d")
            val merged = collect(plan(df)) { case j: HBaseMergeJoin => j }
            withClue(
              s"hook MergeJoinsByKey (a final BaseAggregateExec over a ShuffleExchangeExec and its partial " +
                s"BaseAggregateExec or HBaseAggregateScan; '$where') merged no join: "
            )(merged.flatMap(j => collect(j) { case a: BaseAggregateExec => a }) should not be empty)
          }
        }
      }
    }

    it("a broadcast hash join, as BroadcastHashJoinExec: PushJoinKeys pushes its keys as an InSubqueryExec") {
      withAndWithoutAdaptive {
        withConf(HBaseSQLConf.MergeJoinByKey.key -> "false") {
          val df = sql(
            s"SELECT /*+ BROADCAST(o) */ o.ok, l.ln FROM $orders o JOIN $lines l ON o.ok = l.ok WHERE o.d = 3 AND o.ok < 200"
          )
          withClue(
            "hook PushJoinKeys (BroadcastHashJoinExec, InSubqueryExec over SubqueryBroadcastExec) pushed no keys: "
          )(
            collect(plan(df)) { case s: HBaseTableScan if s.keysFromJoin.isDefined => s } should not be empty
          )
        }
      }
    }

    it("ORDER BY the key with LIMIT, as TakeOrderedAndProjectExec: LimitsInKeyOrder reads in key order") {
      withAndWithoutAdaptive {
        val df = sql(s"SELECT * FROM $orders ORDER BY ok LIMIT 5")
        withClue("hook LimitsInKeyOrder (TakeOrderedAndProjectExec) took no limit in key order: ")(
          collect(plan(df)) { case l: KeyOrderLimit => l } should not be empty
        )
      }
    }

    it("an aggregate over a covering index's rows, as HashAggregateExec: AggregatesOnTheDriver reads it there") {
      val t = uniqueName("hooks_index")
      sql(s"CREATE TABLE $t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v]) SPLIT ON ((50))")
      sql(s"INSERT INTO $t SELECT id, id % 10 FROM range(100)")
      sql(s"CREATE INDEX by_v ON $t USING global (v)")
      withAndWithoutAdaptive {
        val df = sql(s"SELECT v, count(*), max(k) FROM $t WHERE v IN (3, 4) GROUP BY v")
        withClue("hook AggregatesOnTheDriver (HashAggregateExec over an HBaseTableScan) took no aggregate: ")(
          collect(plan(df)) { case a: DriverAggregate => a } should not be empty
        )
        df.collect().sortBy(_.getInt(0)).toSeq shouldBe Seq(Row(3, 10L, 93), Row(4, 10L, 94))
        val sorted = sql(s"SELECT v, count(*), max(k) FROM $t WHERE v IN (2, 3, 4) GROUP BY v HAVING max(k) > 92 " +
          "ORDER BY v DESC")
        withClue(
          "hook AggregatesOnTheDriver (a SortExec and a FilterExec over that HashAggregateExec, no exchange) " +
            "took no ORDER BY and HAVING: "
        )(collect(plan(sorted)) { case a: DriverAggregate => a.aggregation.after.map(_.getClass.getSimpleName) }
          .flatten should contain allOf ("Filter", "Sort"))
        sorted.collect().toSeq shouldBe Seq(Row(4, 10L, 94), Row(3, 10L, 93))
      }
    }
  }
}
