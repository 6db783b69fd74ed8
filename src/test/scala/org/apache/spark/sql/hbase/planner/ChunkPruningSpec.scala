// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.scalacheck.Gen
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import org.apache.spark.sql.catalyst.expressions.{AttributeReference, GreaterThan, Literal}
import org.apache.spark.sql.hbase.codec.RowRange
import org.apache.spark.sql.hbase.rangeindex.{ChunkStats, ColumnStats}
import org.apache.spark.sql.types.IntegerType

/** Removing ruled-out chunks from a scan's row ranges. */
class ChunkPruningSpec extends AnyFunSpec with Matchers with ScalaCheckPropertyChecks {
  implicit override val generatorDrivenConfig: PropertyCheckConfiguration =
    PropertyCheckConfiguration(minSuccessful = 3000)

  private def key(b: Int*): Array[Byte] = b.map(_.toByte).toArray
  private val open = Array.emptyByteArray

  /** Keys of one or two bytes, including 0xFF, around the bounds the generators use. */
  private val keys: Seq[Array[Byte]] = (0 to 12).map(key(_)) ++ (0 to 12).map(key(_, 0)) ++ Seq(key(255), key(255, 255))

  private def contains(r: RowRange, k: Array[Byte]): Boolean =
    java.util.Arrays.compareUnsigned(r.start, k) <= 0 &&
      (r.stop.isEmpty || java.util.Arrays.compareUnsigned(k, r.stop) < 0)

  private val bound: Gen[Array[Byte]] = Gen.frequency(1 -> Gen.const(open), 6 -> Gen.choose(1, 11).map(key(_)))

  private val rangeSets: Gen[RowRanges] = Gen.listOf(Gen.choose(1, 11)).map { points =>
    val sorted = points.distinct.sorted
    val pairs = sorted.grouped(2).collect { case Seq(s, e) => RowRange(key(s), key(e)) }.toSeq
    RowRanges(if (pairs.isEmpty) Seq(RowRange(open, open)) else pairs)
  }

  describe("subtracting a chunk from row ranges") {
    it("leaves exactly the keys in the ranges and outside the chunk, as sorted disjoint ranges") {
      forAll(rangeSets, bound, bound) { (ranges, start, stop) =>
        val cut = RowRange(start, stop)
        val left = ChunkPruning.subtract(ranges, cut)
        keys.foreach { k =>
          val expected = ranges.ranges.exists(contains(_, k)) && !(!cut.isEmpty && contains(cut, k))
          withClue(s"key ${k.mkString(",")} in $ranges minus $cut = $left: ")(left.ranges.exists(contains(
            _,
            k
          )) shouldBe expected)
        }
        left.ranges.foreach(_.isEmpty shouldBe false)
        left.ranges.sliding(2).foreach {
          case Seq(x, y) => java.util.Arrays.compareUnsigned(x.stop, y.start) should be <= 0
          case _ =>
        }
      }
    }
  }

  describe("subtracting many chunks at once") {
    it("leaves what subtracting them one at a time leaves") {
      forAll(rangeSets, Gen.listOf(Gen.zip(bound, bound))) { (ranges, bounds) =>
        val cuts = bounds.map { case (start, stop) => RowRange(start, stop) }
        ChunkPruning.subtractAll(ranges, cuts).ranges.map(r => (r.start.toSeq, r.stop.toSeq)) shouldBe
          cuts.foldLeft(ranges)(ChunkPruning.subtract).ranges.map(r => (r.start.toSeq, r.stop.toSeq))
      }
    }
  }

  describe("whether row ranges meet a chunk") {
    it("is true exactly when a key is in both") {
      forAll(rangeSets, bound, bound) { (ranges, start, stop) =>
        val chunk = RowRange(start, stop)
        ranges.overlaps(chunk) shouldBe
          keys.exists(k => ranges.ranges.exists(contains(_, k)) && !chunk.isEmpty && contains(chunk, k))
      }
    }
  }

  describe("pruning by chunk statistics") {
    val num = AttributeReference("a", IntegerType)()
    def chunk(start: Int, stop: Int, min: Int, max: Int) =
      ChunkStats(RowRange(key(start), key(stop)), 10, Map("a" -> ColumnStats(Some(min), Some(max), 0)))
    val chunks = Seq(chunk(1, 3, 0, 9), chunk(3, 5, 10, 19), chunk(5, 7, 20, 29), chunk(9, 11, 40, 49))

    it("removes the chunks that cannot match and counts those the ranges touched") {
      val pruned = ChunkPruning.prune(RowRanges.Everything, chunks, GreaterThan(num, Literal(15)), _ => Some("a"))
      pruned.ranges.ranges.map(r => (r.start.toSeq, r.stop.toSeq)) shouldBe
        Seq((Seq(), Seq(1)), (Seq(3), Seq())).map { case (s, e) => (s.map(_.toByte), e.map(_.toByte)) }
      (pruned.chunksKept, pruned.chunksTouched, pruned.chunksSkipped) shouldBe ((3, 4, 1))
    }

    it("counts only the chunks inside the ranges, and keeps every row when no column is indexed") {
      val ranges = RowRanges(Seq(RowRange(key(4), key(6))))
      val pruned = ChunkPruning.prune(ranges, chunks, GreaterThan(num, Literal(100)), _ => Some("a"))
      pruned.ranges.ranges shouldBe empty
      (pruned.chunksKept, pruned.chunksTouched) shouldBe ((0, 2))
      ChunkPruning.prune(ranges, chunks, GreaterThan(num, Literal(100)), _ => None).ranges shouldBe ranges
    }
  }
}
