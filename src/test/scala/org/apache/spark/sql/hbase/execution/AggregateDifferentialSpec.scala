// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import java.util.concurrent.atomic.AtomicInteger

import scala.util.Random

import org.apache.spark.sql.hbase.{DifferentialCases, HBaseSuite}
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.hbase.execution.{HBaseAggregateScan, ScanMetrics}
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/**
 * Aggregates computed by the region servers against the truth: random aggregates, groupings and
 * WHERE clauses over a pre-split table with empty regions and NULLs must give exactly what Spark
 * gives over the same rows held in memory, with the coprocessor on and off, and with the memory
 * the region servers may hold for a query's groups unbounded, tiny or none at all.
 */
class AggregateDifferentialSpec extends HBaseSuite with DifferentialCases with AdaptiveSparkPlanHelper {
  private val rowCount = 6000

  /** Key (a INT, b STRING, c BIGINT) split into 8 regions, two of them empty; NULLs in every value column, NaN and -0.0 too. */
  private lazy val (table, packedTable, truthView) = {
    val t = uniqueName("aggdiff")
    for ((name, layout) <- Seq(t -> "CELLS", s"${t}_packed" -> "PACKED"))
      sql(s"""CREATE TABLE $name (a INT, b STRING, c BIGINT, v INT, w STRING, d DOUBLE, m DECIMAL(12, 2), s SMALLINT,
             |  e DATE, f BOOLEAN, r FLOAT, q DECIMAL(6, 1), PRIMARY KEY (a, b, c))
             |MAPPED BY ($name, COLS=[v=f.v, w=f.w, d=g.d, m=f.m, s=f.s, e=g.e, f=g.f, r=g.r, q=f.q]) LAYOUT $layout
             |SPLIT ON ((-900), (-800), (-150), (0), (0, 'b'), (120), (250))""".stripMargin)
    val random = new Random(5)
    val strings = Seq("", "a", "ab", "b", "ba", "é", "zz")
    val written = (0 until rowCount).map { _ =>
      def maybeNull[T](value: => T): T = if (random.nextInt(6) == 0) null.asInstanceOf[T] else value
      Row(
        random.nextInt(800) - 400,
        strings(random.nextInt(strings.size)),
        (random.nextInt(11) - 5).toLong,
        maybeNull(Integer.valueOf(random.nextInt(40) - 20)),
        maybeNull(strings(random.nextInt(strings.size))),
        maybeNull(java.lang.Double.valueOf(random.nextInt(60) match {
          case 0 => Double.NaN
          case 1 => -0.0
          case _ => random.nextInt(100) / 4.0 - 10
        })),
        maybeNull(new java.math.BigDecimal(random.nextInt(20000) - 10000).movePointLeft(2)),
        maybeNull(java.lang.Short.valueOf((random.nextInt(200) - 100).toShort)),
        maybeNull(java.sql.Date.valueOf(java.time.LocalDate.of(2020, 1, 1).plusDays(random.nextInt(30)))),
        maybeNull(java.lang.Boolean.valueOf(random.nextBoolean())),
        maybeNull(java.lang.Float.valueOf(if (random.nextInt(30) == 0) -0.0f else random.nextInt(40) / 8.0f - 2)),
        maybeNull(new java.math.BigDecimal(random.nextInt(200000) - 100000).movePointLeft(1))
      )
    }
    // One row per key: repeated keys, written at once, would leave each layout another mix of them.
    val rows = written.distinctBy(r => (r.getInt(0), r.getString(1), r.getLong(2)))
    val schema = spark.table(t).schema
    for (name <- Seq(t, s"${t}_packed")) {
      spark.createDataFrame(spark.sparkContext.parallelize(rows, 4), schema).write.insertInto(name)
      flushed(name)
    }
    (t, s"${t}_packed", sharedView(s"${t}_truth", spark.table(t).collect().toSeq, schema))
  }

  private val columns = Seq("a", "b", "c", "v", "w", "d", "m", "s", "e", "f", "r", "q")
  // Spark sums DECIMAL(12, 2) exactly and DECIMAL(6, 1) as unscaled longs.
  private val numeric = Seq("a", "c", "v", "d", "m", "s", "r", "q")

  private def randomQuery(random: Random, from: String): String = {
    def pick[T](options: Seq[T]): T = options(random.nextInt(options.size))
    def arithmetic: String = {
      def term = pick(numeric ++ Seq("1", "-2", "0.5", "CAST(1.25 AS DECIMAL(3, 2))", s"(-${pick(numeric)})"))
      s"${term} ${pick(Seq("+", "-", "*"))} ${term}" +
        (if (random.nextBoolean()) s" ${pick(Seq("+", "-", "*"))} ${term}" else "")
    }
    def aggregate: String = random.nextInt(9) match {
      case 0 => "count(*)"
      case 1 => s"count(${pick(columns)})"
      case 2 => s"sum(${pick(numeric)})"
      case 3 => s"min(${pick(columns)})"
      case 4 => s"max(${pick(columns)})"
      case 5 => s"avg(${pick(numeric)})"
      case 6 | 7 => s"${pick(Seq("sum", "sum", "avg", "count"))}($arithmetic)"
      case _ => pick(Seq("count(1)", "sum(v) + 1", s"max(${pick(columns)})"))
    }
    val groups = random.shuffle(columns).take(random.nextInt(3))
    val aggregates =
      if (random.nextInt(12) == 0) Seq(s"count(DISTINCT ${pick(columns)})")
      else Seq.fill(1 + random.nextInt(4))(aggregate)
    val where = random.nextInt(6) match {
      case 0 => ""
      case 1 => s" WHERE a BETWEEN ${random.nextInt(900) - 450} AND ${random.nextInt(900) - 450}"
      case 2 => s" WHERE c = ${random.nextInt(11) - 5} AND v ${pick(Seq("<", ">", "="))} ${random.nextInt(40) - 20}"
      case 3 => s" WHERE w IS NULL OR b ${pick(Seq("<", ">="))} '${pick(Seq("a", "b", "é"))}'"
      case 4 =>
        s" WHERE a IN (${Seq.fill(3)(random.nextInt(800) - 400).mkString(", ")}) OR d > ${random.nextInt(20) - 10}"
      case _ => s" WHERE a + c > ${random.nextInt(100)}" // left to Spark: the aggregate stays there too
    }
    s"SELECT ${(groups ++ aggregates).mkString(", ")} FROM $from$where" +
      (if (groups.isEmpty) "" else s" GROUP BY ${groups.mkString(", ")}")
  }

  /**
   * Rows in a canonical order, with doubles as they are: sums may add in another order, so they
   * are compared to 9 significant digits (or 1e-9 near zero) by [[sameRows]]. -0.0 is 0.0, which Spark holds equal
   * (of the two, MIN and MAX keep whichever came first).
   */
  private def canonical(df: DataFrame): Seq[Seq[Any]] = {
    val rows = df.collect().toSeq.map(_.toSeq.map {
      case d: Double => d + 0.0
      case f: Float => f.toDouble + 0.0
      case other => other
    })
    def key(row: Seq[Any]) = row.map {
      case d: Double if !d.isNaN && !d.isInfinite => f"$d%.4g"
      case other => String.valueOf(other)
    }.mkString("|")
    // Each row's key made once: sortBy would make two per comparison, and formatting doubles is slow.
    rows.map(row => (key(row), row)).sortBy(_._1).map(_._2)
  }

  private def sameRows(actual: Seq[Seq[Any]], expected: Seq[Seq[Any]]): Boolean =
    actual.size == expected.size && actual.zip(expected).forall { case (a, e) =>
      a.size == e.size && a.zip(e).forall {
        case (x: Double, y: Double) if !x.isNaN && !y.isNaN && !x.isInfinite && !y.isInfinite =>
          math.abs(x - y) <= 1e-9 * math.max(1.0, math.max(math.abs(x), math.abs(y)))
        case (x: Double, y: Double) => x.equals(y)
        case (x, y) => x == y
      }
    }

  private def pushed(df: DataFrame): Boolean =
    collectWithSubqueries(df.queryExecution.executedPlan) { case s: HBaseAggregateScan => s }.nonEmpty

  private val suiteCases = 250
  private val cases = randomCases(suiteCases)

  private def aggregateScans(df: DataFrame): Seq[HBaseAggregateScan] =
    collectWithSubqueries(df.queryExecution.executedPlan) { case s: HBaseAggregateScan => s }

  private def inOneTask(df: DataFrame): Boolean =
    collectWithSubqueries(df.queryExecution.executedPlan) {
      case s: HBaseAggregateScan if s.plan.singleTask && s.plan.scan.regions.size > 1 => s
    }.nonEmpty

  describe(
    s"$cases random aggregates, groupings and WHERE clauses, ANSI mode, adaptive execution, single-task reads, " +
      "several regions a task and tight memory for groups on and off"
  ) {
    it("give exactly Spark's answer with the coprocessor on and off, and most run in the region servers") {
      val t = table
      val pushedQueries, distinctPushed, oneTask, flushed, fewerTasks = new AtomicInteger()
      val failures = failedCases(cases, seed = 23) { (i, random, session) =>
        val query = randomQuery(random, t)
        val (ansi, adaptive, singleTask) = (i % 2 == 0, i % 4 < 2, i % 8 < 4)
        // A third of the cases with no byte cap, a third with room for a few groups, a third for none.
        val groupBytes = Seq("0", "2k", "1")(i % 3)
        val taskPerRegion = (i / 8) % 2 == 0
        withConf(session)(
          HBaseSQLConf.ScanTaskMaxBytes.key -> (if (taskPerRegion) "0" else "128m"),
          "spark.sql.ansi.enabled" -> ansi.toString,
          "spark.sql.adaptive.enabled" -> adaptive.toString,
          HBaseSQLConf.CoprocessorSingleTaskMaxRegions.key -> (if (singleTask) "64" else "0"),
          HBaseSQLConf.CoprocessorMaxGroupBytes.key -> groupBytes
        ) {
          val truth = canonical(session.sql(query.replace(s"FROM $t", s"FROM $truthView")))
          val on = session.sql(query)
          withClue(
            s"#$i (ANSI $ansi, adaptive $adaptive, single task $singleTask, task per region $taskPerRegion, " +
              s"group bytes $groupBytes) $query\n"
          ) {
            val answer = canonical(on)
            withClue(clue(s"$answer\nis not\n$truth\n"))(sameRows(answer, truth) shouldBe true)
            val flushes = ScanMetrics.of(on)("memoryFlushes")
            if (groupBytes == "0") withClue("without a cap, the budget of a region server is never reached: ")(
              flushes shouldBe 0
            )
            if (flushes > 0) flushed.incrementAndGet()
            if (pushed(on)) pushedQueries.incrementAndGet()
            if (pushed(on) && query.contains("DISTINCT")) distinctPushed.incrementAndGet()
            if (inOneTask(on)) oneTask.incrementAndGet()
            if (!singleTask) inOneTask(on) shouldBe false
            aggregateScans(on).foreach { scan =>
              val partitions = HBaseAggregateRDD.partitionsOf(scan.plan).size
              if (taskPerRegion && !scan.plan.singleTask) partitions shouldBe scan.plan.scan.regions.size
              if (partitions > 1 && partitions < scan.plan.scan.regions.size) fewerTasks.incrementAndGet()
            }
            withConf(session)(HBaseSQLConf.Coprocessor.key -> "false") {
              val off = session.sql(query)
              val offAnswer = canonical(off)
              withClue(clue(s"$offAnswer\nis not\n$truth\n"))(sameRows(offAnswer, truth) shouldBe true)
              pushed(off) shouldBe false
            }
          }
        }
      }
      noFailedCases("aggregates in the region servers", cases, failures)
      val packedPushed = new AtomicInteger()
      val packedFailures = failedCases(cases / 2, seed = 24) { (i, random, session) =>
        val query = randomQuery(random, table)
        withConf(session)("spark.sql.ansi.enabled" -> (i % 2 == 0).toString) {
          val truth = canonical(session.sql(query.replace(s"FROM $table", s"FROM $truthView")))
          val on = session.sql(query.replace(s"FROM $table", s"FROM $packedTable"))
          withClue(s"#$i LAYOUT PACKED $query\n") {
            val answer = canonical(on)
            withClue(clue(s"$answer\nis not\n$truth\n"))(sameRows(answer, truth) shouldBe true)
            if (pushed(on)) packedPushed.incrementAndGet()
          }
        }
      }
      noFailedCases("the same over the table in LAYOUT PACKED", cases / 2, packedFailures)
      withClue("over the packed table too, mostly in the region servers: ")(packedPushed.get.toDouble should
        be > floorOf(cases / 2, 1.0 / 2, suiteCases / 2))
      withClue("the random queries should mostly be computed in the region servers: ")(pushedQueries.get.toDouble should
        be > floorOf(cases, 1.0 / 2, suiteCases))
      withClue("count(DISTINCT) too, through its grouping: ")(distinctPushed.get.toDouble should
        be > floorOf(cases, 1.0 / 50, suiteCases))
      withClue("aggregates without groups, over several regions, in one task: ")(oneTask.get.toDouble should
        be > floorOf(cases, 1.0 / 20, suiteCases))
      withClue("groups sent early for the query's byte cap, shown in the metrics: ")(flushed.get.toDouble should
        be > floorOf(cases, 1.0 / 10, suiteCases))
      withClue("groups of several regions a task, where the read is small for its regions: ")(
        fewerTasks.get.toDouble should be > floorOf(cases, 1.0 / 10, suiteCases)
      )
    }
  }
}
