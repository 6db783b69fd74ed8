// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.optimizer

import java.util.concurrent.atomic.AtomicInteger

import scala.util.Random

import org.scalatest.LoneElement

import org.apache.spark.sql.hbase.{DifferentialCases, HBaseSuite, OrdersAndLines}
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.execution.{HBaseAggregateScan, HBaseMergeJoin}

/**
 * A GROUP BY over a join of two HBase tables on their leading key aggregates the table with many
 * rows per key before the join ([[AggregatesBelowKeyedJoins]]), in the region servers or in the
 * merged join's tasks. Random such queries, with aggregates it splits and aggregates it must leave
 * alone, return exactly what Spark returns with the feature (and the join merged by key) off.
 */
class AggregatesBelowKeyedJoinsSpec extends HBaseSuite with DifferentialCases with AdaptiveSparkPlanHelper
    with OrdersAndLines with LoneElement {

  /**
   * `heads` keyed by k; `lines` keyed by (k, n), 0 to 3 rows per k, its regions cut elsewhere, two
   * of them inside one k's rows. Keys are missing at random from each, and every value column
   * holds NULLs; doubles are quarters, whose sums are exact in any order.
   */
  private lazy val tables: Map[String, String] = {
    val (heads, lines) = (uniqueName("ab_heads"), uniqueName("ab_lines"))
    val values = "v INT, d DECIMAL(10, 2), x DOUBLE, w DECIMAL(30, 5)"
    val mapped = "COLS=[v=f.v, d=f.d, x=f.x, w=f.w]"
    sql(
      s"CREATE TABLE $heads (k INT, g STRING, $values, PRIMARY KEY (k)) MAPPED BY ($heads, COLS=[g=f.g, ${mapped
          .stripPrefix("COLS=[")}) SPLIT ON ((-100), (0), (100))"
    )
    sql(
      s"CREATE TABLE $lines (k INT, n INT, $values, PRIMARY KEY (k, n)) MAPPED BY ($lines, $mapped) " +
        "SPLIT ON ((-50, 2), (0), (60, 1), (150))"
    )
    def nullable(e: String) = s"IF(rand(3) < 0.2, NULL, $e)"
    def valuesOf(k: String) = Seq(
      nullable(s"CAST($k % 9 AS INT)"),
      nullable(s"CAST($k / 7 AS DECIMAL(10, 2))"),
      nullable(s"($k % 11) * 0.25D"),
      nullable(s"CAST($k * 123456789.12345 AS DECIMAL(30, 5))")
    ).mkString(", ")
    sql(
      s"INSERT INTO $heads SELECT CAST(id AS INT), ${nullable("CAST(id % 4 AS STRING)")}, ${valuesOf("id")} " +
        "FROM range(-200, 200) WHERE rand(1) < 0.8"
    )
    sql(
      s"INSERT INTO $lines SELECT CAST(k AS INT), n, ${valuesOf("(k + n)")} " +
        "FROM (SELECT id AS k FROM range(-210, 220)) LATERAL VIEW explode(sequence(1, CAST(abs(k) % 4 AS INT))) t AS n " +
        "WHERE abs(k) % 4 > 0 AND rand(2) < 0.9"
    )
    Map("heads" -> heads, "lines" -> lines)
  }

  /** A random GROUP BY over `lines` a joined with `heads` (or `lines`) b on k. */
  private def randomQuery(random: Random): String = {
    def pick[T](options: T*): T = options(random.nextInt(options.size))
    def int = (random.nextInt(480) - 240).toString
    val other = pick("heads", "heads", "lines")
    val grouping = pick(
      Seq(),
      Seq("b.v"),
      Seq("b.k % 10"),
      Seq("a.k"),
      Seq("b.k", "b.x"),
      Seq(if (other == "heads") "b.g" else "b.n"),
      // The aggregated table's other columns: left as they are.
      Seq("a.n"),
      Seq("b.v", "a.v")
    )
    val splittable = Seq(
      "count(*)",
      "count(a.v)",
      "count(b.v)",
      "count(b.v, b.d)",
      "sum(a.v)",
      "sum(b.v)",
      "sum(a.d)",
      "sum(b.d)",
      "sum(a.x)",
      "sum(b.x * 2)",
      "sum(a.w)",
      "min(a.v)",
      "max(a.d)",
      "min(b.x)",
      "max(b.w)",
      "sum(CASE WHEN b.v < 4 THEN 1 ELSE 0 END)",
      "count(1) + 1"
    )
    val leftAlone = Seq("avg(a.v)", "count(DISTINCT b.v)", "sum(a.v + b.v)", "try_sum(a.v)", "sum(b.w)", "first(a.v)")
    val aggregates = Seq.fill(1 + random.nextInt(3))(pick(splittable: _*)) ++
      (if (random.nextInt(5) == 0) Seq(pick(leftAlone: _*)) else Nil)
    val on = pick("", "", s" AND b.v < ${random.nextInt(9)}", " AND a.v < b.v", s" AND a.k < $int")
    def condition(side: String) = pick(
      s"$side.k BETWEEN $int AND $int",
      s"$side.k < $int",
      s"$side.v ${pick("=", "<", ">")} ${random.nextInt(9)}",
      s"$side.x > ${random.nextInt(3)}",
      s"$side.v IS NULL",
      // Only Spark checks it: the aggregated side's groups are then made in the join's tasks.
      s"hash($side.v) % 3 <> 0"
    )
    val where = pick(
      "",
      s" WHERE ${condition("a")}",
      s" WHERE ${condition("b")}",
      s" WHERE ${condition("a")} AND ${condition("b")}"
    )
    val (first, second) =
      if (random.nextBoolean()) (s"${tables("lines")} a", s"${tables(other)} b")
      else (s"${tables(other)} b", s"${tables("lines")} a")
    val groupBy = if (grouping.isEmpty) "" else s" GROUP BY ${grouping.mkString(", ")}"
    s"SELECT ${(grouping ++ aggregates).mkString(", ")} FROM $first JOIN $second ON a.k = b.k$on$where$groupBy"
  }

  private def rowsOf(df: DataFrame): Seq[String] = df.collect().map(_.toString).toSeq.sorted

  /** Whether a join merged by key has an aggregation below it: in the region servers or in its tasks. */
  private def aggregatedBelow(plan: SparkPlan): Boolean = collect(plan) { case j: HBaseMergeJoin => j }.exists { j =>
    collect(j.child) {
      case a: HBaseAggregateScan => a
      case a: BaseAggregateExec => a
    }.nonEmpty
  }

  /** Orders and their lines, with regions cut at different keys ([[OrdersAndLines]]). */
  private lazy val (orders, lines) = ordersAndLines("ab")

  /** The keyed join of the Phoenix benchmark: lines per order, summed by the orders' day. */
  private def byDay = s"SELECT o.d, count(*) AS n, sum(l.q) AS q, max(l.q) AS most FROM $lines l JOIN $orders o " +
    "ON l.ok = o.ok WHERE l.ok BETWEEN 40 AND 360 AND o.ok BETWEEN 40 AND 360 GROUP BY o.d"

  private def noBroadcast[T](settings: (String, String)*)(body: => T): T =
    withConf(("spark.sql.autoBroadcastJoinThreshold" -> "-1") +: settings: _*)(body)

  private def executed(df: DataFrame): SparkPlan = { df.collect(); df.queryExecution.executedPlan }

  /** The rows with both features off: Spark aggregates the rows of the join it shuffled and sorted. */
  private def asSparkDoesIt(query: String): Seq[String] =
    withConf(HBaseSQLConf.MergeJoinByKey.key -> "false")(rowsOf(sql(query)))

  describe("a GROUP BY over orders joined with their lines on the key") {
    it("has the region servers count and sum each order's lines, below the join merged by key, with no exchange") {
      noBroadcast() {
        val df = sql(byDay)
        val plan = executed(df)
        withClue(plan.toString) {
          val join = collect(plan) { case j: HBaseMergeJoin => j }.loneElement
          collect(join) { case e: ShuffleExchangeExec => e } shouldBe empty
          val groups = collect(join) { case a: HBaseAggregateScan => a }.loneElement
          groups.plan.groupBy.map(_.name) shouldBe Seq("ok")
          groups.plan.scan.alignment shouldBe defined
          groups.simpleString(10) should include(
            "aligned by ok in 6 key ranges, partial aggregate in region servers: count(1), sum(q), max(q) group by ok"
          )
        }
        rowsOf(df) shouldBe asSparkDoesIt(byDay)
        sql(s"EXPLAIN $byDay").collect().head.getString(0) should include regex
          "(?s)HBaseMergeJoin merged by key.*HBaseAggregateScan .*group by ok"
      }
    }

    it(
      "aggregates each order's lines in the join's tasks where the region servers cannot (a condition only Spark checks)"
    ) {
      noBroadcast() {
        val query = byDay.replace("GROUP BY", "AND hash(l.q) % 3 <> 0 GROUP BY")
        val df = sql(query)
        val plan = executed(df)
        withClue(plan.toString) {
          val join = collect(plan) { case j: HBaseMergeJoin => j }.loneElement
          collect(join) { case e: ShuffleExchangeExec => e } shouldBe empty
          collect(join) { case a: HBaseAggregateScan => a } shouldBe empty
          collect(join) { case a: BaseAggregateExec => a } should have size 2 // partial and final, one task
        }
        rowsOf(df) shouldBe asSparkDoesIt(query)
      }
    }

    it(
      "keeps the aggregate above the join with spark.sql.hbase.join.aggregateBelow=false, or without a merged join or the coprocessor"
    ) {
      val settings = Seq(
        HBaseSQLConf.AggregateBelowMergedJoin.key -> "false",
        HBaseSQLConf.MergeJoinByKey.key -> "false",
        // Without the region servers' aggregation, the join's tasks would group the lines: slower than the join.
        HBaseSQLConf.Coprocessor.key -> "false",
        // Small enough to broadcast: Spark joins without a shuffle, which the groups' would add.
        "spark.sql.autoBroadcastJoinThreshold" -> "10485760"
      )
      for (setting <- settings) {
        noBroadcast(setting) {
          val plan = executed(sql(byDay))
          withClue(s"$setting\n$plan") {
            collect(plan) { case a: HBaseAggregateScan => a } shouldBe empty
            collect(plan) { case a: BaseAggregateExec => a } should have size 2 // above the join only
          }
        }
      }
    }

    it("leaves alone aggregates it cannot split exactly, and groups by the lines' own columns") {
      val left = Seq(
        "avg(l.q)",
        "count(DISTINCT l.q)",
        "sum(l.q + o.d)",
        "try_sum(l.q)",
        "sum(l.q) FILTER (WHERE o.d > 2)"
      ).map(f => s"SELECT o.d, $f FROM $lines l JOIN $orders o ON l.ok = o.ok GROUP BY o.d") :+
        s"SELECT l.ln, count(*) FROM $lines l JOIN $orders o ON l.ok = o.ok GROUP BY l.ln"
      noBroadcast() {
        for (query <- left) {
          val plan = executed(sql(query))
          withClue(s"$query\n$plan") {
            collect(plan) { case j: HBaseMergeJoin => j }.loneElement
            collect(plan) { case a: HBaseAggregateScan => a } shouldBe empty
            rowsOf(sql(query)) shouldBe asSparkDoesIt(query)
          }
        }
      }
    }
  }

  private val suiteCases = 100
  private val cases = randomCases(suiteCases)

  describe(s"$cases random GROUP BYs over joins of HBase tables on their leading key") {
    it("return exactly the rows Spark returns with the aggregates above the join") {
      tables
      val below, inServers = new AtomicInteger()
      val failures = failedCases(cases, seed = 52) { (i, random, session: SparkSession) =>
        val query = randomQuery(random)
        // One case in four lets Spark broadcast a side, one in three turns the coprocessor off: the
        // aggregate then stays above the join.
        val broadcast = if (i % 4 == 0) "10485760" else "-1"
        val coprocessor = (i % 3 != 0).toString
        // One in five without adaptive execution, where the join is merged before columnar transitions;
        // one in seven without ANSI, where a sum out of its type's range is NULL rather than an error.
        withConf(session)(
          "spark.sql.autoBroadcastJoinThreshold" -> broadcast,
          HBaseSQLConf.Coprocessor.key -> coprocessor,
          "spark.sql.adaptive.enabled" -> (i % 5 != 0).toString,
          "spark.sql.ansi.enabled" -> (i % 7 != 0).toString
        ) {
          val truth = withConf(session)(HBaseSQLConf.MergeJoinByKey.key -> "false")(rowsOf(session.sql(query)))
          val df = session.sql(query)
          val rows = rowsOf(df)
          val plan = df.queryExecution.executedPlan
          withClue(s"#$i $query\n$plan\n") {
            rows shouldBe truth
            if (aggregatedBelow(plan)) {
              below.incrementAndGet()
              collect(plan) { case j: HBaseMergeJoin => j }.foreach { j =>
                collect(j) { case e: ShuffleExchangeExec => e } shouldBe empty
              }
              if (collect(plan) { case a: HBaseAggregateScan => a }.nonEmpty) inServers.incrementAndGet()
            }
          }
        }
      }
      noFailedCases("GROUP BYs over joins merged by key", cases, failures)
      info(s"${below.get} of $cases aggregated one side below the join, ${inServers.get} in the region servers")
      withClue("many GROUP BYs aggregate below the join: ")(
        below.get.toDouble should be >= floorOf(cases, 0.12, suiteCases)
      )
      withClue("some of them in the region servers: ")(
        inServers.get.toDouble should be >= floorOf(cases, 0.05, suiteCases)
      )
    }
  }
}
