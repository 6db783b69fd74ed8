// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.physical

import org.apache.spark.sql.hbase.{HBaseSuite, OrdersAndLines}
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.{SortExec, SparkPlan}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.execution.joins.SortMergeJoinExec
import org.apache.spark.sql.hbase.execution.{HBaseMergeJoin, HBaseTableScan}
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/** Joins of HBase tables on their leading key columns, merged by key without a shuffle or a sort. */
class MergeJoinSpec extends HBaseSuite with AdaptiveSparkPlanHelper with OrdersAndLines {

  /** Orders and their lines, with regions cut at different keys ([[OrdersAndLines]]). */
  private lazy val (orders, lines) = ordersAndLines("mj")

  private def plan(df: DataFrame): SparkPlan = {
    df.collect()
    df.queryExecution.executedPlan
  }

  /**
   * The join, merged by key, of reads of a task per region: reads this small are otherwise one task a
   * side, which Spark's own sort-merge join joins with neither a shuffle nor a sort (see below).
   */
  private def merged(df: DataFrame): HBaseMergeJoin = {
    val p = withConf(HBaseSQLConf.ScanTaskMaxBytes.key -> "0")(plan(df))
    withClue(p.toString) {
      collect(p) { case e: ShuffleExchangeExec => e } shouldBe empty
      collect(p) { case s: SortExec => s } shouldBe empty
      val merges = collect(p) { case j: HBaseMergeJoin => j }
      collect(p) { case j: SortMergeJoinExec => j } should have size merges.size.toLong
      merges.head
    }
  }

  /** The rows with the feature off: Spark shuffles and sorts both sides. */
  private def asSparkDoesIt(query: String): Seq[Row] = withConf(HBaseSQLConf.MergeJoinByKey.key -> "false") {
    val df = sql(query)
    collect(plan(df)) { case j: HBaseMergeJoin => j } shouldBe empty
    df.collect().toSeq
  }

  private def noBroadcast[T](body: => T): T = withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1")(body)

  describe("a join on the leading key") {
    it("of a table and another keyed by a longer key is merged in the union of their regions' key ranges") {
      noBroadcast {
        val query = s"SELECT o.ok, o.d, l.ln, l.q FROM $orders o JOIN $lines l ON o.ok = l.ok"
        val df = sql(query)
        val join = merged(df)
        // Cuts at 100, 150, 200, 250, 300; the range above 300 holds lines of orders that exist and not.
        join.keyRanges shouldBe 6
        join.simpleString(10) should include("merged by key")
        df.collect().toSeq should contain theSameElementsAs asSparkDoesIt(query)
        df.count() shouldBe (0 until 400).map(_ % 4).sum
      }
    }

    it("keeps its meaning for every join type, with key ranges and a residual condition") {
      noBroadcast {
        for (
          kind <- Seq("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN");
          where <- Seq("", "WHERE o.ok BETWEEN 120 AND 260", "WHERE o.ok < 90 OR o.ok >= 380")
        ) {
          val columns = if (kind.contains("SEMI") || kind.contains("ANTI")) "o.ok, o.s" else "o.ok, o.s, l.ln, l.q"
          val query = s"SELECT $columns FROM $orders o $kind $lines l ON o.ok = l.ok AND l.q > o.d $where"
          withClue(query) {
            val df = sql(query)
            merged(df)
            df.collect().toSeq should contain theSameElementsAs asSparkDoesIt(query)
          }
        }
      }
    }

    it("reads no key range that one side's key ranges rule out") {
      noBroadcast {
        val df = sql(s"SELECT o.ok, l.ln FROM $orders o JOIN $lines l ON o.ok = l.ok WHERE o.ok >= 120 AND o.ok < 230")
        val join = merged(df)
        // [120, 150), [150, 200) and [200, 230) of the cuts at 100, 150, 200, 250 and 300.
        join.keyRanges shouldBe 3
        val scans = collect(df.queryExecution.executedPlan) { case s: HBaseTableScan => s }
        scans.map(_.metrics("rowsRead").value).sum shouldBe 110 + (120 until 230).map(_ % 4).sum
      }
    }

    it("keeps every range of the side an outer join keeps, where the other side reads nothing") {
      noBroadcast {
        // The lines read end at 150 (a cut), and so do the orders an inner or right join reads.
        for ((kind, ranges) <- Seq("LEFT JOIN" -> 5, "LEFT ANTI JOIN" -> 5, "JOIN" -> 2, "RIGHT JOIN" -> 5)) {
          val columns = if (kind.contains("ANTI")) "o.ok" else "o.ok, l.ln"
          val query = s"SELECT $columns FROM $orders o $kind $lines l ON o.ok = l.ok AND l.ok < 150"
          withClue(query) {
            val df = sql(query)
            merged(df).keyRanges shouldBe ranges
            df.collect().toSeq should contain theSameElementsAs asSparkDoesIt(query)
          }
        }
      }
    }

    it("reads only the keys of a side that filters by more than key ranges, up to the number of keys it may push") {
      noBroadcast {
        val query =
          s"SELECT o.ok, o.s, l.ln FROM $orders o JOIN $lines l ON o.ok = l.ok WHERE o.d = 3 AND o.s LIKE '1%'"
        val expected = (0 until 400).filter(k => k % 7 == 3 && k % 5 != 0 && k.toString.startsWith("1"))
        for (maxKeys <- Seq(10000, expected.size, expected.size - 1)) {
          withConf(
            HBaseSQLConf.PushJoinKeysMax.key -> maxKeys.toString,
            HBaseSQLConf.PushMergeKeysMinTableRatio.key -> "0"
          ) {
            val df = sql(query)
            val join = merged(df)
            df.collect().toSeq should contain theSameElementsAs asSparkDoesIt(query)
            val scan = collect(join) { case s: HBaseTableScan if s.plan.request.table.name == lines => s }.head
            scan.keysFromJoin should not be empty
            val read = scan.metrics("rowsRead").value
            withClue(s"at most $maxKeys keys: ") {
              // Beyond it, the lines are read as planned: past the matching ones, as far as the merge goes.
              if (maxKeys >= expected.size) read shouldBe expected.map(_ % 4).sum
              else read should be > expected.map(_ % 4).sum.toLong
            }
          }
        }
      }
    }

    it("leaves the other side's scan as planned when its table is not the bigger by the setting's ratio") {
      noBroadcast {
        val query =
          s"SELECT o.ok, o.s, l.ln FROM $orders o JOIN $lines l ON o.ok = l.ok WHERE o.d = 3 AND o.s LIKE '1%'"
        withConf(HBaseSQLConf.PushMergeKeysMinTableRatio.key -> "1000000") {
          val df = sql(query)
          val join = merged(df)
          df.collect().toSeq should contain theSameElementsAs asSparkDoesIt(query)
          collect(join) { case s: HBaseTableScan => s.keysFromJoin }.flatten shouldBe empty
        }
      }
    }

    it("of a table with itself is merged") {
      noBroadcast {
        val query = s"SELECT a.ok, a.ln, b.ln FROM $lines a JOIN $lines b ON a.ok = b.ok AND a.ln < b.ln"
        val df = sql(query)
        merged(df)
        df.collect().toSeq should contain theSameElementsAs asSparkDoesIt(query)
      }
    }

    it("under a broadcast join that streams one side is merged too") {
      val small = uniqueName("mj_small")
      sql(s"CREATE TEMPORARY VIEW $small AS SELECT CAST(id AS INT) AS d, CAST(id * 10 AS INT) AS w FROM range(0, 7)")
      val query =
        s"SELECT /*+ BROADCAST(x) */ o.ok, x.w, l.ln FROM $orders o JOIN $small x ON o.d = x.d " +
          s"JOIN $lines l ON o.ok = l.ok"
      withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1") {
        val df = sql(query)
        merged(df)
        df.collect().toSeq should contain theSameElementsAs asSparkDoesIt(query)
      }
    }
  }

  describe("a join on the leading key of two reads small for their regions") {
    it("joins their single tasks in Spark's sort-merge join, with neither a shuffle nor a sort") {
      noBroadcast {
        val query = s"SELECT o.ok, o.s, l.ln FROM $orders o JOIN $lines l ON o.ok = l.ok WHERE o.ok < 90 OR o.ok >= 380"
        val df = sql(query)
        val p = plan(df)
        withClue(p.toString) {
          val scans = collect(p) { case s: HBaseTableScan => s }
          scans.map(_.plan.partitions.size) shouldBe Seq(1, 1)
          scans.map(_.plan.regions.size).sum should be > 2
          collect(p) { case e: ShuffleExchangeExec => e } shouldBe empty
          collect(p) { case s: SortExec => s } shouldBe empty
          collect(p) { case j: SortMergeJoinExec => j } should have size 1
        }
        df.collect().toSeq should contain theSameElementsAs asSparkDoesIt(query)
      }
    }
  }

  describe("a broadcast join on the leading key of the table it streams") {
    def scanOf(df: DataFrame, table: String): HBaseTableScan =
      collect(df.queryExecution.executedPlan) {
        case s: HBaseTableScan if s.plan.request.table.name == table => s
      }.head

    /** The rows with the keys not pushed. */
    def unpushed(query: String): Seq[Row] =
      withConf(HBaseSQLConf.PushJoinKeysMax.key -> "0")(sql(query).collect().toSeq)

    val smallOrders = "o.d = 3 AND o.ok < 200"
    def matchingLines = (0 until 200).filter(_ % 7 == 3).map(_ % 4).sum

    it("reads only the rows of the broadcast side's keys, a seek to each") {
      val query =
        s"SELECT /*+ BROADCAST(o) */ o.ok, l.ln, l.q FROM $orders o JOIN $lines l ON o.ok = l.ok WHERE $smallOrders"
      val df = sql(query)
      val rows = df.collect().toSeq
      rows should contain theSameElementsAs unpushed(query)
      rows.size shouldBe matchingLines
      val scan = scanOf(df, lines)
      scan.simpleString(10) should include("keys from the join's other side")
      scan.metrics("rowsRead").value shouldBe matchingLines
      // At most the matching rows plus one seek per key.
      scan.metrics("rowsScanned").value should be <= (matchingLines + (0 until 200).count(_ % 7 == 3)).toLong
    }

    it("seeks whole keys in one scan, and works for semi joins and DataFrames") {
      val semi = s"SELECT o.ok, o.d FROM $orders o WHERE o.ok IN (SELECT ok FROM $lines WHERE ln = 3 AND q = 5)"
      val keysOfSemi = sql(s"SELECT ok FROM $lines WHERE ln = 3 AND q = 5").collect().map(_.getLong(0))
      val df = sql(semi)
      df.collect().toSeq should contain theSameElementsAs unpushed(semi)
      val scan = scanOf(df, orders)
      scan.metrics("gets").value shouldBe 0
      scan.metrics("rowsRead").value shouldBe keysOfSemi.count(_ < 400)
      // At most the matching rows plus one seek per key.
      scan.metrics("rowsScanned").value should be <= keysOfSemi.count(_ < 400).toLong + keysOfSemi.length

      val view = uniqueName("mj_keys")
      spark.range(0, 400, 37).selectExpr("id AS ok", "id * 2 AS x").createOrReplaceTempView(view)
      val fromView = s"SELECT o.ok, o.s, v.x FROM $orders o JOIN $view v ON o.ok = v.ok"
      val viewed = sql(fromView)
      viewed.collect().toSeq should contain theSameElementsAs unpushed(fromView)
      scanOf(viewed, orders).metrics("rowsRead").value shouldBe (0 until 400 by 37).size
    }

    it("reads as before above the number of keys it may push, and for joins that keep the streamed rows") {
      val query =
        s"SELECT /*+ BROADCAST(o) */ o.ok, l.ln FROM $orders o JOIN $lines l ON o.ok = l.ok WHERE $smallOrders"
      withConf(HBaseSQLConf.PushJoinKeysMax.key -> "5") {
        val df = sql(query)
        df.collect().toSeq should contain theSameElementsAs unpushed(query)
        scanOf(df, lines).metrics("rowsRead").value shouldBe sql(s"SELECT * FROM $lines WHERE ok < 200").count()
      }
      val outer =
        s"SELECT /*+ BROADCAST(o) */ l.ok, l.ln, o.d FROM $lines l LEFT JOIN $orders o ON o.ok = l.ok AND $smallOrders"
      val df = sql(outer)
      df.collect().toSeq should contain theSameElementsAs unpushed(outer)
      scanOf(df, lines).keysFromJoin shouldBe empty
    }
  }

  describe("without adaptive query execution") {
    it("joins are merged by key and narrowed by a broadcast side's keys all the same") {
      withConf("spark.sql.adaptive.enabled" -> "false") {
        val mergedQuery = s"SELECT o.ok, o.d, l.ln, l.q FROM $orders o LEFT JOIN $lines l ON o.ok = l.ok AND l.q > o.d"
        noBroadcast {
          val df = sql(mergedQuery)
          merged(df).keyRanges shouldBe 6
          df.collect().toSeq should contain theSameElementsAs asSparkDoesIt(mergedQuery)
        }
        val pushed = s"SELECT /*+ BROADCAST(o) */ o.ok, l.ln FROM $orders o JOIN $lines l ON o.ok = l.ok WHERE o.d = 3"
        val df = sql(pushed)
        val rows = df.collect().toSeq
        rows should contain theSameElementsAs
          withConf(HBaseSQLConf.PushJoinKeysMax.key -> "0")(sql(pushed).collect().toSeq)
        val scan = collect(df.queryExecution.executedPlan) {
          case s: HBaseTableScan if s.plan.request.table.name == lines => s
        }.head
        scan.keysFromJoin should not be empty
        scan.metrics("rowsRead").value shouldBe rows.size
      }
    }
  }
}
