// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.physical

import java.util.concurrent.atomic.AtomicInteger

import scala.util.Random

import org.apache.spark.sql.hbase.{DifferentialCases, HBaseSuite}
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.hbase.execution.{HBaseMergeJoin, HBaseTableScan}
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/**
 * Joins merged by key, and joins that push a broadcast side's keys into an HBase scan, against
 * the truth: random joins of two HBase tables on their leading key, of every join type, with
 * random key ranges and residual conditions on either side, must return exactly what Spark
 * returns for the same query with both features off.
 */
class JoinDifferentialSpec extends HBaseSuite with DifferentialCases with AdaptiveSparkPlanHelper {

  /**
   * p and r keyed by k, split at the same keys; q keyed by (k, n) with 0 to 3 rows per k and
   * regions cut elsewhere, two of them inside one k's rows. Keys are missing at random from
   * each, and every value column holds NULLs.
   */
  private lazy val tables: Map[String, String] = {
    val (p, q, r) = (uniqueName("jd_p"), uniqueName("jd_q"), uniqueName("jd_r"))
    sql(
      s"CREATE TABLE $p (k INT, v INT, s STRING, PRIMARY KEY (k)) MAPPED BY ($p, COLS=[v=f.v, s=f.s]) " +
        "SPLIT ON ((-100), (0), (100))"
    )
    sql(
      s"CREATE TABLE $q (k INT, n INT, v INT, PRIMARY KEY (k, n)) MAPPED BY ($q, COLS=[v=f.v]) LAYOUT PACKED " +
        "SPLIT ON ((-50, 2), (0), (60, 1), (150))"
    )
    sql(
      s"CREATE TABLE $r (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($r, COLS=[v=f.v]) SPLIT ON ((-100), (0), (100))"
    )
    def nullable(e: String) = s"IF(rand(3) < 0.2, NULL, $e)"
    sql(
      s"INSERT INTO $p SELECT CAST(id AS INT), ${nullable("CAST(id % 9 AS INT)")}, ${nullable("CAST(id % 4 AS STRING)")} " +
        "FROM range(-200, 200) WHERE rand(1) < 0.8"
    )
    sql(
      s"INSERT INTO $q SELECT CAST(k AS INT), n, ${nullable("CAST((k + n) % 9 AS INT)")} " +
        "FROM (SELECT id AS k FROM range(-210, 220)) LATERAL VIEW explode(sequence(1, CAST(abs(k) % 4 AS INT))) t AS n " +
        "WHERE abs(k) % 4 > 0 AND rand(2) < 0.9"
    )
    sql(
      s"INSERT INTO $r SELECT CAST(id AS INT), ${nullable("CAST(id % 7 AS INT)")} FROM range(-150, 250) WHERE rand(4) < 0.7"
    )
    Map("p" -> p, "q" -> q, "r" -> r)
  }

  private val joinTypes = Seq("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN")

  /** A random join of two of the tables on k, and what it selects. */
  private def randomJoin(random: Random): String = {
    def pick[T](options: T*): T = options(random.nextInt(options.size))
    def int = (random.nextInt(480) - 240).toString
    val (a, b) = pick(("p", "q"), ("q", "p"), ("p", "r"), ("q", "q"), ("r", "q"), ("r", "p"))
    val kind = pick(joinTypes: _*)
    def keyRange(side: String) = pick(
      s"$side.k BETWEEN $int AND $int",
      s"$side.k < $int",
      s"$side.k >= $int",
      s"$side.k IN (${Seq.fill(1 + random.nextInt(5))(int).mkString(", ")})",
      s"($side.k < $int OR $side.k > $int)",
      s"$side.v ${pick("=", "<", ">")} ${random.nextInt(9)}",
      s"$side.v IS NULL"
    )
    val on = pick(
      "",
      s" AND a.v ${pick("<", "=", "<>", "<=>")} b.v",
      s" AND (a.v IS NULL OR b.v > ${random.nextInt(9)})",
      s" AND b.k < $int"
    )
    val where = random.nextInt(4) match {
      case 0 => ""
      case 1 => s" WHERE ${keyRange("a")}"
      case 2 => s" WHERE ${keyRange("a")} AND ${keyRange("a")}"
      case _ if kind.contains("SEMI") || kind.contains("ANTI") => s" WHERE ${keyRange("a")}"
      case _ => s" WHERE ${keyRange("b")} ${pick("AND", "OR")} ${keyRange("a")}"
    }
    val columns = if (kind.contains("SEMI") || kind.contains("ANTI")) "a.*" else "a.*, b.*"
    s"SELECT $columns FROM ${tables(a)} a $kind ${tables(b)} b ON a.k = b.k$on$where"
  }

  private def rowsOf(df: DataFrame): Seq[String] = df.collect().map(_.toString).toSeq.sorted

  private val suiteCases = 150
  private val cases = randomCases(suiteCases)

  describe(s"$cases random joins of HBase tables on their leading key") {
    it("return exactly the rows Spark returns when it shuffles or broadcasts whole sides") {
      tables
      val merged, pushed = new AtomicInteger()
      val failures = failedCases(cases, seed = 36) { (i, random, session: SparkSession) =>
        val query = randomJoin(random)
        // Two cases in three keep Spark from broadcasting, so that it plans a sort-merge join.
        val broadcast = if (i % 3 == 0) "10485760" else "-1"
        // Half the cases push a filtering side's keys into a merged join's other side whatever the tables' sizes.
        val ratio = if (i % 2 == 0) "0" else HBaseSQLConf.PushMergeKeysMinTableRatio.defaultValueString
        withConf(session)(
          "spark.sql.autoBroadcastJoinThreshold" -> broadcast,
          HBaseSQLConf.PushMergeKeysMinTableRatio.key -> ratio
        ) {
          val truth =
            withConf(session)(HBaseSQLConf.MergeJoinByKey.key -> "false", HBaseSQLConf.PushJoinKeysMax.key -> "0")(
              rowsOf(session.sql(query))
            )
          val df = session.sql(query)
          val rows = rowsOf(df)
          val plan = df.queryExecution.executedPlan
          withClue(s"#$i $query\n$plan\n") {
            rows shouldBe truth
            val joins = collect(plan) { case j: HBaseMergeJoin => j }
            if (joins.nonEmpty) {
              merged.incrementAndGet()
              joins.foreach(j => collect(j) { case e: ShuffleExchangeExec => e } shouldBe empty)
            }
            if (collect(plan) { case s: HBaseTableScan if s.keysFromJoin.isDefined => s }.nonEmpty)
              pushed.incrementAndGet()
          }
        }
      }
      noFailedCases("joins merged by key or narrowed by the keys of a broadcast", cases, failures)
      info(s"${merged.get} of $cases joins were merged by key, ${pushed.get} read only the other side's keys")
      withClue("most joins that Spark does not broadcast are merged by key: ")(
        merged.get.toDouble should be >= floorOf(cases, 0.4, suiteCases)
      )
      withClue("some broadcast joins push their keys: ")(pushed.get.toDouble should
        be >= floorOf(cases, 0.05, suiteCases))
    }
  }
}
