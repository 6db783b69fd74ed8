// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.bench

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.expressions.{And, Expression, In, InSet, Literal, Or}
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.logical._
import org.apache.spark.sql.hbase.planner._
import org.apache.spark.sql.hbase.server.ServerJar
import org.apache.spark.sql.types.LongType

/**
 * Planning time of long predicates (issue 36): ORs of key equalities, IN lists and ORs over a
 * composite key, of 1,000 and 10,000 terms, through the key range planner alone and through the
 * whole scan planner (16 synthetic regions whose servers run the server jar), with no HBase and
 * no Spark session. Run by benchmarks/run planner; prints one JSON line per case and size.
 *
 * Arguments: the term counts (default 1000,10000), the timed runs per case (default 5), a piece
 * of a case's name to run only the cases that have it (default: every case), and the number of
 * regions (default 16).
 */
object LongPredicatesBenchmark {

  import LongPredicateTables.{composite, single}

  /** A balanced tree of `op`, as Spark's parser builds one of a long chain of ORs or ANDs. */
  def balanced(terms: IndexedSeq[Expression], op: (Expression, Expression) => Expression): Expression = {
    def build(lo: Int, hi: Int): Expression =
      if (hi - lo == 1) terms(lo) else { val mid = (lo + hi) >>> 1; op(build(lo, mid), build(mid, hi)) }
    build(0, terms.size)
  }

  /**
   * A case: its table, the predicate of n terms over its relation's attributes, and the leading key
   * column's largest value in it, up to which the regions split.
   */
  final case class Case(
      name: String,
      table: HBaseTableDef,
      predicate: (HBaseRelation, Int) => Expression,
      maxKey: Int => Long = n => keyOf(n)
  )

  /** Keys 7 apart, so that a range term between two of them holds others. */
  private def keyOf(i: Int): Long = i * 7L

  val cases: Seq[Case] = Seq(
    Case("OR of k = c", single, (r, n) => balanced((0 until n).map(i => r.output.head === keyOf(i)), Or)),
    Case(
      "OR of k = c, 10 % duplicates, 5 ranges",
      single,
      { (r, n) =>
        val k = r.output.head
        val points = (0 until n - 5).map(i => k === keyOf(i % (n * 9 / 10)))
        val ranges = (0 until 5).map(j => k > keyOf(n * j / 5) + 1 && k < keyOf(n * j / 5 + 20))
        balanced(points ++ ranges, Or)
      }
    ),
    Case("k IN (...)", single, (r, n) => In(r.output.head, (0 until n).map(i => Literal(keyOf(i))))),
    Case("k IN set (Spark's InSet)", single, (r, n) => InSet(r.output.head, (0 until n).map(keyOf).toSet[Any])),
    Case(
      "OR of (k1 = a AND k2 = b)",
      composite,
      { (r, n) =>
        val Seq(k1, k2, _) = r.output
        balanced((0 until n).map(i => (k1 === keyOf(i / 3)) && (k2 === i % 3)), Or)
      },
      n => keyOf(n / 3)
    ),
    Case(
      "OR of (k1 = a AND k2 = b AND v = c)",
      composite,
      { (r, n) =>
        val Seq(k1, k2, v) = r.output
        balanced((0 until n).map(i => And(And(k1 === keyOf(i / 3), k2 === i % 3), v === i)), Or)
      },
      n => keyOf(n / 3)
    )
  )

  /** `count` regions, split evenly up to `maxKey` on the leading key column. */
  private def regionsUpTo(maxKey: Long, count: Int): Seq[RegionInfo] = {
    val codec = new BinaryKeyCodec(Seq(LongType))
    val bounds = (1 until count).map(i => codec.encodePrefix(Seq(maxKey * i / count)))
    (Array.emptyByteArray +: bounds).zip(bounds :+ Array.emptyByteArray).map { case (s, e) => RegionInfo(s, e, None) }
  }

  private val settings = ScanSettings(
    pushdown = true,
    customFilter = true,
    maxKeyRanges = 100000,
    fetchSize = 1000,
    driverReadMaxKeyRanges = 1000
  )

  def main(args: Array[String]): Unit = {
    val sizes = args.headOption.fold(Seq(1000, 10000))(_.split(",").toSeq.map(_.trim.toInt))
    val repeat = args.lift(1).fold(5)(_.toInt)
    val only = args.lift(2).filter(_.nonEmpty)
    val regionCount = args.lift(3).fold(16)(_.toInt)
    for (c <- cases if only.forall(c.name.contains); n <- sizes) {
      val relation = HBaseRelation(c.table, HBaseClusterConf(Map.empty))
      val where = c.predicate(relation, n)
      val facts = new TableFacts {
        override val regions: Seq[RegionInfo] = regionsUpTo(c.maxKey(n), regionCount)
        override def serverFilter(read: Seq[RegionInfo]): Map[String, Option[Int]] =
          read.map(_.serverName -> Some(ServerJar.WIRE_VERSION)).toMap
        override def aggregator(through: Seq[RegionInfo]): Option[Int] = None
      }
      def keyRanges(): KeyRanges = KeyRangePlanner.plan(
        relation.prunableKeys,
        relation.prunableKeys.size,
        _ => true,
        where,
        settings.maxKeyRanges
      )
      def wholePlan(): TableScanPlan =
        HBaseScanPlanner.plan(relation, relation.output, relation.output, Some(where), settings, facts)
      val planner = timed(repeat)(keyRanges())
      val whole = timed(repeat)(wholePlan().describe)
      val ranges = keyRanges() match {
        case KeyRanges.Ranges(rs) => rs.size
        case KeyRanges.FullScan => -1
      }
      val plan = wholePlan()
      println(
        s"""{"benchmark": "long-predicates", "case": "${c.name}", "terms": $n, "keyRanges": $ranges, """ +
          s""""regionsKept": ${plan.regions.size}, "plannerMs": ${json(planner)}, "wholePlanMs": ${json(whole)}}"""
      )
    }
  }

  /** One run's milliseconds: on the clock, and on this thread's CPU (the steadier on a busy machine). */
  final case class Run(wallMs: Double, cpuMs: Double)

  private val threads = java.lang.management.ManagementFactory.getThreadMXBean

  /** Each of `repeat` runs, after one untimed run (several when they are quick) to warm the JIT. */
  private def timed(repeat: Int)(run: => Any): Seq[Run] = {
    val first = System.nanoTime()
    run
    if (System.nanoTime() - first < 1e9) (1 to 5).foreach(_ => run)
    (1 to repeat).map { _ =>
      val (start, cpu) = (System.nanoTime(), threads.getCurrentThreadCpuTime)
      run
      Run((System.nanoTime() - start) / 1e6, (threads.getCurrentThreadCpuTime - cpu) / 1e6)
    }
  }

  private def median(xs: Seq[Double]): Double = {
    val sorted = xs.sorted
    if (sorted.size % 2 == 1) sorted(sorted.size / 2) else (sorted(sorted.size / 2 - 1) + sorted(sorted.size / 2)) / 2
  }

  private def json(runs: Seq[Run]): String = {
    def list(xs: Seq[Double]) = xs.map(x => f"$x%.3f").mkString("[", ", ", "]")
    f"""{"median": ${median(runs.map(_.wallMs))}%.3f, "runs": ${list(runs.map(_.wallMs))}, """ +
      f""""cpuMedian": ${median(runs.map(_.cpuMs))}%.3f, "cpuRuns": ${list(runs.map(_.cpuMs))}}"""
  }
}
