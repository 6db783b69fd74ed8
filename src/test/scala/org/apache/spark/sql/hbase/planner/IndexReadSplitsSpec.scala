// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import scala.util.Random

import org.apache.hadoop.hbase.util.Bytes
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.hbase.codec.{KeyBounds, RowRange}
import org.apache.spark.sql.hbase.globalindex.IndexKeyLayout
import org.apache.spark.sql.types.LongType

/**
 * Where a read through a global index cuts the ranges of one index region into parts read at
 * once: a pure rule of the ranges and what HBase says of the index's regions and bytes.
 */
class IndexReadSplitsSpec extends AnyFunSpec with Matchers {
  private val layout = new IndexKeyLayout(Seq(LongType))
  private def key(v: Long): Array[Byte] = layout.encodePrefix(Seq(v))
  private def range(from: Long, to: Long) = RowRange(key(from), key(to + 1)) // from..to, both in
  private def region(start: Option[Long], end: Option[Long]) =
    RegionInfo(start.fold(KeyBounds.Open)(key), end.fold(KeyBounds.Open)(key), None)

  /** An index of customer keys 0 to 160,000 in 16 regions of 10,000 keys, 1 MB each. */
  private val regions = (0 until 16).map(i =>
    region(Some(i * 10000L).filter(_ > 0), Some((i + 1) * 10000L).filter(_ < 160000))
  )
  private val facts = IndexTableFacts(regions, BigInt(16) * 1024 * 1024)
  private def plan(ranges: RowRange*)(partBytes: Long, maxParts: Int = 4) =
    IndexReadSplits.plan(RowRanges(ranges), facts, partBytes, maxParts)
  private def ascending(keys: Seq[Array[Byte]]) =
    keys.sliding(2).forall { case Seq(a, b) => Bytes.compareTo(a, b) < 0; case _ => true }

  describe("the parts of an index read") {
    it("cut a range holding many bytes of one region into parts of about equal size, at most 4") {
      // 1,000 keys of a region's 10,000: about 100 KB.
      val cuts = plan(range(42000, 42999))(partBytes = 32 * 1024)
      cuts.size shouldBe 2 // three parts of about 34 KB
      cuts.map(k => layout.values(k :+ 0.toByte).head) shouldBe Seq(42333L, 42666L)
      plan(range(42000, 42999))(partBytes = 1024).size shouldBe 3 // four parts, the most
      plan(range(42000, 42999))(partBytes = 1024, maxParts = 8).size shouldBe 7
    }

    it("leave a range of few bytes whole, and every range when the setting is 0") {
      plan(range(42000, 42000))(partBytes = 32 * 1024) shouldBe empty // one customer's orders: about 100 bytes
      plan(range(42000, 42999))(partBytes = 64 * 1024) shouldBe empty // 100 KB: under two parts' worth
      plan(range(42000, 42999))(partBytes = 0) shouldBe empty
      IndexReadSplits.plan(RowRanges(Seq(range(1, 5000))), facts.copy(regions = Nil), 1024, 4) shouldBe empty
    }

    it("cut each region's share of a range across regions, and many small ranges of one region between them") {
      val across = plan(range(15000, 24999))(partBytes = 160 * 1024)
      across.map(k => layout.values(k :+ 0.toByte).head) shouldBe Seq(16666L, 18333L, 21666L, 23333L)
      val many = plan((0 until 50).map(i => range(30000 + i * 200, 30000 + i * 200 + 99)): _*)(partBytes = 128 * 1024)
      many.size shouldBe 3
      ascending(many) shouldBe true
    }

    it("leave the ranges of the first and the last region whole: no key bounds them on one side") {
      plan(RowRange(key(0), key(9999)))(partBytes = 1024) shouldBe empty
      plan(RowRange(key(150000), KeyBounds.Open))(partBytes = 1024) shouldBe empty
      plan(RowRange(key(5000), key(15000)))(partBytes = 1024).map(k => layout.values(k :+ 0.toByte).head) shouldBe
        Seq(11250L, 12500L, 13750L)
    }

    it("read exactly the ranges, part after part in key order, wherever random cuts fall") {
      val random = new Random(5)
      (1 to 200).foreach { _ =>
        val bounds = Seq.fill(2 + 2 * random.nextInt(5))(random.nextInt(160000).toLong).distinct.sorted
        val ranges = bounds.grouped(2).collect { case Seq(a, b) => RowRange(key(a), key(b)) }.toSeq
        val cuts = plan(ranges: _*)(partBytes = 1 + random.nextInt(512 * 1024))
        ascending(cuts) shouldBe true
        cuts.foreach(c => RowRanges(ranges).overlaps(RowRange(c, KeyBounds.successor(c))) shouldBe true)
        val parts = IndexReadSplits.parts(ranges, cuts)
        parts.size shouldBe cuts.size + 1
        RowRanges.merge(parts.flatten).ranges.map(_.toString) shouldBe RowRanges.merge(ranges).ranges.map(_.toString)
        ascending(parts.flatten.map(_.start)) shouldBe true
      }
    }
  }
}
