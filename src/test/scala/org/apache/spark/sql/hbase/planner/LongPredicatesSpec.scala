// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import scala.util.Random

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.expressions.{Expression, In, InSet, Literal, Or}
import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.server.ServerJar
import org.apache.spark.sql.types.LongType
import org.apache.spark.sql.hbase.logical.HBaseRelation

/**
 * Long predicates (issue 36): ORs of key equalities and IN lists of 1,000 and 10,000 terms, on one
 * key column and on two, with duplicates and with a few ranges among them, plan to exactly the
 * ranges worked out here from the terms themselves (sorted distinct keys, ranges that swallow the
 * keys inside them), and the whole scan plan reads only those keys and checks nothing more.
 */
class LongPredicatesSpec extends AnyFunSpec with Matchers {
  import LongPredicateTables.{composite, single}
  private val singleRelation = HBaseRelation(single, HBaseClusterConf(Map.empty))
  private val compositeRelation = HBaseRelation(composite, HBaseClusterConf(Map.empty))
  private val Seq(k, v) = singleRelation.output
  private val Seq(k1, k2, cv) = compositeRelation.output

  /** More ranges than any case here has: every key is a range of its own. */
  private val maxRanges = 100000

  /** A balanced tree of ORs, as Spark's parser builds of a long chain. */
  private def anyOf(terms: Seq[Expression]): Expression = KeyRangePlanner.balanced(terms.toIndexedSeq, Or)

  /** `n` keys, multiples of 7 below 7 * 2n in random order, about one in ten a duplicate. */
  private def keysOf(n: Int, seed: Int): Seq[Long] = {
    val r = new Random(seed)
    val distinct = r.shuffle((0 until 2 * n).toVector).take(n * 9 / 10).map(_ * 7L)
    r.shuffle(distinct ++ Seq.fill(n - distinct.size)(distinct(r.nextInt(distinct.size))))
  }

  /** Open ranges (lo, hi) between keys, bounds 3 above a multiple of 7, so that none touches a key. */
  private def rangesAmong(n: Int, count: Int, seed: Int): Seq[(Long, Long)] = {
    val r = new Random(seed)
    (0 until count).map(i => i * 2 * n / count).map(from => (from * 7L + 3, (from + 5 + r.nextInt(20)) * 7L + 3))
  }

  private def point(values: Any*) = KeyRange(values.toVector, None)
  private def open(lo: Long, hi: Long) =
    KeyRange(Vector.empty, Some(ColumnRange(Some(Bound(lo, inclusive = false)), Some(Bound(hi, inclusive = false)))))

  /** The reference on one key column: the ranges, and every distinct key outside them as a point, in key order. */
  private def expectedOnOneColumn(keys: Seq[Long], ranges: Seq[(Long, Long)]): KeyRanges = {
    def inside(x: Long) = ranges.exists { case (lo, hi) => lo < x && x < hi }
    val points = keys.distinct.filterNot(inside).map(x => (x, point(x)))
    KeyRanges.Ranges((points ++ ranges.map { case (lo, hi) => (lo, open(lo, hi)) }).sortBy(_._1).map(_._2))
  }

  private def planOne(where: Expression): KeyRanges =
    KeyRangePlanner.plan(Seq(k), 1, _ => true, where, maxRanges)

  private def planTwo(where: Expression): KeyRanges =
    KeyRangePlanner.plan(Seq(k1, k2), 2, _ => true, where, maxRanges)

  for (n <- Seq(1000, 10000)) {
    describe(s"$n terms on one key column") {
      val keys = keysOf(n, seed = n)

      it("an OR of equalities plans to its sorted distinct keys") {
        planOne(anyOf(keys.map(x => k === x))) shouldBe expectedOnOneColumn(keys, Nil)
      }

      it("an OR of equalities and a few ranges plans to the ranges and the keys outside them") {
        val ranges = rangesAmong(n, 5, seed = n + 1)
        val terms = keys.map(x => k === x) ++ ranges.map { case (lo, hi) => k > lo && k < hi }
        planOne(anyOf(new Random(n).shuffle(terms))) shouldBe expectedOnOneColumn(keys, ranges)
      }

      it("an IN list, as written and as Spark's optimizer sets it, plans to its sorted distinct keys") {
        val expected = expectedOnOneColumn(keys, Nil)
        planOne(In(k, keys.map(Literal(_)))) shouldBe expected
        planOne(InSet(k, keys.toSet[Any])) shouldBe expected
      }

      it("a whole scan plan reads each key once and leaves nothing to check") {
        val ranges = rangesAmong(n, 3, seed = n + 2)
        val where = anyOf(keys.map(x => k === x) ++ ranges.map { case (lo, hi) => k > lo && k < hi })
        val plan = planWhole(singleRelation, where, keys.max)
        plan.keyRanges shouldBe expectedOnOneColumn(keys, ranges)
        plan.regions.flatMap(_.residual) shouldBe empty
        plan.regions.flatMap(_.server).flatMap(_.pushed) shouldBe empty
        withClue("each key outside the ranges is read once, as one row: ") {
          val outside = keys.distinct.filterNot(x => ranges.exists { case (lo, hi) => lo < x && x < hi }).sorted
          val codec = new BinaryKeyCodec(Seq(LongType))
          plan.regions.flatMap(_.ranges).filter(_.isSingleRow).map(_.start.toSeq) shouldBe
            outside.map(x => codec.encode(Seq(x)).toSeq)
        }
      }
    }

    describe(s"$n terms on two key columns") {
      val r = new Random(n + 3)
      // Pairs (a, b) with three values of k2 for most values of k1, duplicates among them.
      val pairs = keysOf(n, seed = n + 4).map(x => (x / 7 / 3 * 7, r.nextInt(3)))

      it("an OR of (k1 = a AND k2 = b) plans to its sorted distinct pairs") {
        val expected = KeyRanges.Ranges(pairs.distinct.sorted.map { case (a, b) => point(a, b) })
        planTwo(anyOf(pairs.map { case (a, b) => k1 === a && k2 === b })) shouldBe expected
      }

      it("with a few terms on k1 alone and ranges of k1, those take in the pairs they cover") {
        val alone = pairs.map(_._1).distinct.take(20)
        // As the keys of k1 are, the ranges are a third as wide as on one key column.
        val ranges = rangesAmong(n, 4, seed = n + 5).map { case (lo, hi) => (lo / 21 * 7 + 3, hi / 21 * 7 + 3) }
        def inside(a: Long) = ranges.exists { case (lo, hi) => lo < a && a < hi }
        val terms = pairs.map { case (a, b) => k1 === a && k2 === b } ++ alone.map(a => k1 === a) ++
          ranges.map { case (lo, hi) => k1 > lo && k1 < hi }
        val keyed = pairs.filterNot(p => alone.contains(p._1)).distinct.map { case (a, b) => ((a, b), point(a, b)) } ++
          alone.map(a => ((a, -1), point(a)))
        val expected = keyed.filterNot(p => inside(p._1._1)) ++ ranges.map { case (lo, hi) => ((lo, -1), open(lo, hi)) }
        planTwo(anyOf(new Random(n).shuffle(terms))) shouldBe KeyRanges.Ranges(expected.sortBy(_._1).map(_._2))
      }

      it("a whole scan plan reads each pair once, and checks in region servers what the keys leave") {
        val where = anyOf(pairs.zipWithIndex.map { case ((a, b), i) => k1 === a && k2 === b && cv === i })
        val plan = planWhole(compositeRelation, where, pairs.map(_._1).max)
        plan.keyRanges shouldBe KeyRanges.Ranges(pairs.distinct.sorted.map { case (a, b) => point(a, b) })
        plan.regions.flatMap(_.residual) shouldBe empty
        plan.regions.flatMap(_.server).map(_.pushed) shouldBe Seq.fill(plan.regions.size)(Seq(where))
        plan.gets shouldBe pairs.distinct.size
      }
    }
  }

  /** The whole plan of a scan of `relation` over 16 regions split evenly up to `maxKey` on the leading key column. */
  private def planWhole(relation: HBaseRelation, where: Expression, maxKey: Long): TableScanPlan = {
    val codec = new BinaryKeyCodec(Seq(LongType))
    val bounds = (1 until 16).map(i => codec.encodePrefix(Seq(maxKey * i / 16)))
    val facts = new TableFacts {
      override val regions: Seq[RegionInfo] = (Array.emptyByteArray +: bounds).zip(bounds :+ Array.emptyByteArray).map {
        case (s, e) => RegionInfo(s, e, None)
      }
      override def serverFilter(read: Seq[RegionInfo]): Map[String, Option[Int]] =
        read.map(_.serverName -> Some(ServerJar.WIRE_VERSION)).toMap
      override def aggregator(through: Seq[RegionInfo]): Option[Int] = None
    }
    val settings = ScanSettings(
      pushdown = true,
      customFilter = true,
      maxKeyRanges = maxRanges,
      fetchSize = 1000,
      driverReadMaxKeyRanges = 1000
    )
    HBaseScanPlanner.plan(relation, relation.output, relation.output, Some(where), settings, facts)
  }
}
