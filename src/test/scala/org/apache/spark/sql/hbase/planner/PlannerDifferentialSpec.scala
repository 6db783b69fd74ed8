// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import java.util.concurrent.atomic.AtomicInteger

import scala.util.Random

import org.apache.spark.sql.hbase.{DifferentialCases, HBaseSuite, RandomClauses, Waits, codec}
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.hbase.execution.HBaseTableScan
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/**
 * The key range planner against the truth: random WHERE clauses over a pre-split table must
 * return exactly what Spark returns over the same rows held in memory.
 */
class PlannerDifferentialSpec extends HBaseSuite with DifferentialCases {
  // Enough for every region to hold many keys of each shape. Most cases scan every row (in the
  // region servers or in Spark), so the spec's time follows the table's size: 20,000 rows took half
  // as long again.
  private val rowCount = 10000

  /** Key (a INT, b STRING, c BIGINT) with negative numbers, pre-split into 9 regions; NULLs in every value column. */
  private lazy val (table, packedTable, truthView) = {
    val t = uniqueName("diff")
    def create(name: String, layout: String) =
      sql(s"""CREATE TABLE $name (a INT, b STRING, c BIGINT, v INT, w STRING, d DOUBLE, PRIMARY KEY (a, b, c))
             |MAPPED BY ($name, COLS=[v=f.v, w=f.w, d=g.d]) LAYOUT $layout
             |SPLIT ON ((-300), (-150), (-60), (0), (0, 'b'), (40), (120), (250))""".stripMargin)
    create(t, "CELLS")
    create(s"${t}_packed", "PACKED")
    val random = new Random(7)
    val written = (0 until rowCount).map { _ =>
      def maybeNull[T](value: => T): T = if (random.nextInt(5) == 0) null.asInstanceOf[T] else value
      Row(
        random.nextInt(800) - 400,
        strings(random.nextInt(strings.size)),
        (random.nextInt(21) - 10).toLong,
        maybeNull(Integer.valueOf(random.nextInt(20))),
        maybeNull(strings(random.nextInt(strings.size))),
        maybeNull(java.lang.Double.valueOf(random.nextInt(100) / 4.0 - 10))
      )
    }
    // One row per key: repeated keys, written at once, would leave each layout another mix of them.
    val rows = written.distinctBy(r => (r.getInt(0), r.getString(1), r.getLong(2)))
    val schema = spark.table(t).schema
    spark.createDataFrame(spark.sparkContext.parallelize(rows, 4), schema).write.insertInto(t)
    spark.createDataFrame(spark.sparkContext.parallelize(rows, 4), schema).write.insertInto(s"${t}_packed")
    Seq(t, s"${t}_packed").foreach(flushed)
    // The truth: the same rows as HBase holds them (one per key), in Spark's memory.
    (t, s"${t}_packed", sharedView(s"${t}_truth", spark.table(t).collect().toSeq, schema))
  }

  private val strings = Seq("", "a", "ab", "abc", "b", "ba", "bz", "é", "zz")

  private def randomPredicate(random: Random, depth: Int): String = {
    def int = (random.nextInt(900) - 450).toString
    def str = s"'${strings(random.nextInt(strings.size))}'"
    def long = (random.nextInt(25) - 12).toString
    def pick[T](options: T*): T = options(random.nextInt(options.size))
    def atom: String = random.nextInt(12) match {
      case 0 => s"a ${pick("=", "<", "<=", ">", ">=", "<>", "<=>")} $int"
      case 1 => s"b ${pick("=", "<", "<=", ">", ">=", "<>")} $str"
      case 2 => s"c ${pick("=", "<", ">=", "<>", "<=>")} $long"
      case 3 => s"a IN (${Seq.fill(1 + random.nextInt(6))(int).mkString(", ")})"
      case 4 => s"b IN (${Seq.fill(1 + random.nextInt(3))(str).mkString(", ")})"
      case 5 => s"a BETWEEN $int AND $int"
      case 6 => s"c IN (${Seq.fill(1 + random.nextInt(3))(long).mkString(", ")})"
      case 7 => s"v ${pick("=", "<", ">", "<=>")} ${random.nextInt(20)}"
      case 8 => pick(s"w = $str", s"w IN ($str, $str)", s"d > ${random.nextInt(20) - 10}", s"d <= a", "w < b")
      case 9 => pick(
          "v IS NULL",
          "w IS NOT NULL",
          "c IN (0, 1, NULL)",
          s"$int < a",
          "b LIKE 'a%'",
          "b LIKE 'é%'",
          s"CAST(a AS BIGINT) >= $int",
          s"CAST(a AS DOUBLE) < $int.5",
          s"a + 1 = $int",
          "a = c"
        )
      case 10 => s"a = $int AND b = $str"
      case _ => s"(a = $int OR a BETWEEN $int AND $int) AND c ${pick("<", ">", "=")} $long"
    }
    RandomClauses.nested(random, depth)(atom)
  }

  /** The WHERE clauses of cases 1..n, each drawn from the case's own generator. */
  private def randomPredicates(n: Int, seed: Long): IndexedSeq[String] =
    caseRandoms(n, seed).map(random => randomPredicate(random, 1 + random.nextInt(3)))

  /** Spark's rows for each clause over the rows in memory, in key order (rather than by ORDER BY, a shuffle a query). */
  private def truthsOf(predicates: Seq[String]): IndexedSeq[Seq[Row]] =
    rowsWhere(truthView, predicates, keyOrder)

  /** The scan, unless Spark proved the predicate false and planned no scan at all. */
  private def scanOf(df: DataFrame): Option[HBaseTableScan] =
    df.queryExecution.executedPlan.collectFirst { case s: HBaseTableScan => s }

  /** Key order, in which the scan returns rows. */
  private val keyOrder: Ordering[Row] =
    Ordering.by[Row, (Int, String, Long)](r => (r.getInt(0), r.getString(1), r.getLong(2)))(
      Ordering.Tuple3(
        Ordering.Int,
        Ordering.by[String, Array[Byte]](_.getBytes("UTF-8"))((x: Array[Byte], y: Array[Byte]) =>
          java.util.Arrays.compareUnsigned(x, y)
        ),
        Ordering.Long
      )
    )

  /** How a query may read HBase. */
  private sealed abstract class Mode(val settings: (String, String)*)

  /** Key ranges, and the server jar's skip scan and predicates in the region servers. */
  private case object ServerJar extends Mode()

  /** Key ranges, then HBase's own filters and Spark. */
  private case object HBaseFilters extends Mode(HBaseSQLConf.CustomFilter.key -> "false")

  /** Every row, filtered by Spark. */
  private case object NoPushdown extends Mode(HBaseSQLConf.Pushdown.key -> "false")

  /** As [[ServerJar]], but a Spark task per region, where by default several regions share one. */
  private case object TaskPerRegion extends Mode(HBaseSQLConf.ScanTaskMaxBytes.key -> "0")

  private val suiteCases = 500
  private val cases = randomCases(suiteCases)

  describe(s"$cases random WHERE clauses over the key (a INT, b STRING, c BIGINT) and NULL-holding values") {
    it(
      "return exactly the rows Spark finds in memory: with the server jar, and in turn with HBase's filters, without pushdown, or a task per region"
    ) {
      val t = table
      val stored = sql(s"SELECT count(*) FROM $truthView").head().getLong(0)
      withClue("random keys repeat a little, so the table holds somewhat fewer rows than were written: ")(
        stored should be > (rowCount * 0.9).toLong
      )
      val pruned, readFewer, skipScans, exact, fewerTasks = new AtomicInteger()
      val predicates = randomPredicates(cases, seed = 11)
      val truths = truthsOf(predicates)
      val failures = failedCasesOf(predicates.zip(truths)) { case (i, (predicate, truth), session) =>
        Seq(ServerJar, Seq(HBaseFilters, NoPushdown, TaskPerRegion)(i % 3)).foreach { mode =>
          withConf(session)(mode.settings: _*) {
            val df = session.sql(s"SELECT * FROM $t WHERE $predicate")
            withClue(clue(s"#$i $mode WHERE $predicate\n${df.queryExecution.executedPlan}\n")) {
              df.collect().toSeq shouldBe truth
              scanOf(df).foreach { scan =>
                val read = scan.metrics("rowsRead").value
                mode match {
                  case NoPushdown => read shouldBe stored
                  case HBaseFilters => read should be >= truth.size.toLong
                  case TaskPerRegion => scan.plan.partitions.size shouldBe scan.plan.regions.size
                  case ServerJar =>
                    if (scan.plan.partitions.size < scan.plan.regions.size) fewerTasks.incrementAndGet()
                    if (scan.metrics("regionsScanned").value < scan.metrics("regionsTotal").value)
                      pruned.incrementAndGet()
                    if (read < stored) readFewer.incrementAndGet()
                    val regions = scan.plan.regions
                    if (regions.exists(_.server.exists(_.boxes.exists(_.exists(_.narrowsRows)))))
                      skipScans.incrementAndGet()
                    // With nothing left for Spark, HBase sends exactly the matching rows.
                    if (regions.forall(_.residual.isEmpty)) { read shouldBe truth.size; exact.incrementAndGet() }
                    else read should be >= truth.size.toLong
                }
              }
            }
          }
        }
      }
      noFailedCases("key ranges, skip scans and residuals", cases, failures)
      val packedPredicates = randomPredicates(cases / 2, seed = 12)
      val packedTruths = truthsOf(packedPredicates)
      val packedFailures = failedCasesOf(packedPredicates.zip(packedTruths)) { case (i, (predicate, truth), session) =>
        val df = session.sql(s"SELECT * FROM $packedTable WHERE $predicate")
        withClue(clue(s"#$i LAYOUT PACKED WHERE $predicate\n${df.queryExecution.executedPlan}\n")) {
          df.collect().toSeq shouldBe truth
        }
      }
      noFailedCases("the same clauses over the table in LAYOUT PACKED", cases / 2, packedFailures)
      withClue("the random predicates should often prune regions: ")(pruned.get.toDouble should
        be > floorOf(cases, 1.0 / 5, suiteCases))
      withClue("and read fewer rows than the table holds: ")(readFewer.get.toDouble should
        be > floorOf(cases, 3.0 / 10, suiteCases))
      withClue("and skip through keys on later key columns in region servers: ")(skipScans.get.toDouble should
        be > floorOf(cases, 1.0 / 5, suiteCases))
      withClue("and leave nothing for Spark to check: ")(exact.get.toDouble should
        be > floorOf(cases, 3.0 / 10, suiteCases))
      withClue("and read several regions in one task: ")(fewerTasks.get.toDouble should
        be > floorOf(cases, 1.0 / 5, suiteCases))
    }
  }

  describe("whole keys") {
    it("are read with batched Gets, and keys that are not stored are simply absent") {
      val predicate = "a IN (-400, 0, 7, 399) AND b IN ('', 'a', 'é') AND c IN (-5, 0, 5)"
      val truth = sql(s"SELECT * FROM $truthView WHERE $predicate ORDER BY a, b, c").collect().toSeq
      val df = sql(s"SELECT * FROM $table WHERE $predicate")
      df.collect().toSeq shouldBe truth
      scanOf(df).get.metrics("gets").value shouldBe 4 * 3 * 3
      val counted = sql(s"SELECT count(*) FROM $table WHERE $predicate")
      counted.head().getLong(0) shouldBe truth.size
    }
  }

  describe("region locations") {
    it("are cached for spark.sql.hbase.partition.expiration seconds, and a stale cache still reads every row") {
      val t = uniqueName("splitting")
      sql(s"CREATE TABLE $t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v])")
      sql(s"INSERT INTO $t SELECT CAST(id AS INT), CAST(id AS INT) FROM range(0, 100)")
      // A task per region, to count the regions the plan reads.
      def partitions = withConf(HBaseSQLConf.ScanTaskMaxBytes.key -> "0")(sql(s"SELECT * FROM $t").rdd.getNumPartitions)
      partitions shouldBe 1
      val name = org.apache.hadoop.hbase.TableName.valueOf(t)
      withAdmin { admin =>
        admin.flush(name)
        admin.split(name, new codec.BinaryKeyCodec(Seq(org.apache.spark.sql.types.IntegerType)).encode(Seq(50)))
        Waits.until(s"$t split in two regions")(admin.getRegions(name).size >= 2)
        admin.getRegions(name).size shouldBe 2
      }
      partitions shouldBe 1
      sql(s"SELECT count(*), sum(v) FROM $t").head() shouldBe Row(100L, 4950L)
      spark.conf.set(HBaseSQLConf.PartitionExpiration.key, "0")
      try {
        partitions shouldBe 2
        sql(s"SELECT count(*), sum(v) FROM $t WHERE k >= 40").head() shouldBe Row(60L, (40 until 100).sum.toLong)
      } finally spark.conf.unset(HBaseSQLConf.PartitionExpiration.key)
    }
  }

  describe("a selective predicate on the key") {
    it("reads only the regions that can hold matching rows, and EXPLAIN shows its key ranges") {
      val df = sql(s"SELECT * FROM $table WHERE a = 10 AND b IN ('a', 'b')")
      df.collect()
      val scan = scanOf(df).get
      scan.metrics("regionsScanned").value shouldBe 1
      scan.metrics("regionsTotal").value shouldBe 9
      val explained = df.queryExecution.explainString(org.apache.spark.sql.execution.SimpleMode)
      explained should include("regions 1 of 9, 2 key ranges (=10, =a), (=10, =b)")
      sql(s"SELECT count(*) FROM $table WHERE a >= 50").queryExecution.executedPlan.toString should
        include("1 key ranges")
    }
  }
}
