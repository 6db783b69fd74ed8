// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression, In, Literal}
import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.types.{IntegerType, StringType}

/**
 * The HBase calls a WHERE clause becomes, without HBase or Spark: the filter-plan table of the
 * Hive metastore design (seed `hive-hbase-metastore-partition-filter-plan.txt`), row by row, in
 * our key encoding.
 *
 * As in that design, partitions are keyed by (db, tbl, p1[, p2]), and every query fixes db and
 * tbl, so every row key starts with X, the encoding of ('db', 'tbl'). The expected keys are
 * spelt out byte by byte here rather than produced by the codec under test.
 */
class ScanPlanSpec extends AnyFunSpec with Matchers {
  private val db = AttributeReference("db", StringType, nullable = false)()
  private val tbl = AttributeReference("tbl", StringType, nullable = false)()
  private val p1 = AttributeReference("p1", IntegerType, nullable = false)()
  private val p2 = AttributeReference("p2", IntegerType, nullable = false)()
  private val c1 = AttributeReference("c1", IntegerType)()

  /** A non-last string key part is its bytes, then 0x00 0x00. */
  private val X: Seq[Int] = Seq(0x64, 0x62, 0, 0, 0x74, 0x62, 0x6c, 0, 0) // "db", "tbl"
  /** The least key above every key that starts with X. */
  private val XPlus: Seq[Int] = X.init :+ 1

  /** An INT key part is big-endian with the sign bit flipped. */
  private def int(i: Int): Seq[Int] = Seq(((i >>> 24) & 0xff) ^ 0x80, (i >>> 16) & 0xff, (i >>> 8) & 0xff, i & 0xff)
  private def hex(bytes: Seq[Int]): String = bytes.map(b => f"$b%02x").mkString
  private def hex(bytes: Array[Byte]): String = hex(bytes.toSeq.map(_ & 0xff))

  /** An HBase call as the table in the seed writes it. */
  private sealed trait Call
  private case class Get(row: String) extends Call
  private case class Scan(start: String, stop: String, ranges: Int = 1, filter: Option[String] = None) extends Call
  private def get(key: Seq[Int]*): Seq[Call] = key.map(k => Get(hex(k)))
  private def scan(start: Seq[Int], stop: Seq[Int], filter: Expression = null, ranges: Int = 1): Seq[Call] =
    Seq(Scan(hex(start), hex(stop), ranges, Option(filter).map(_.sql)))

  private val wholeTable = Seq(RegionInfo(Array.emptyByteArray, Array.emptyByteArray, None))

  private def plan(
      where: Expression,
      keys: Seq[AttributeReference],
      regions: Seq[RegionInfo] = wholeTable
  ): RegionsRead = {
    val codec = new BinaryKeyCodec(keys.map(_.dataType))
    val condition = db === "db" && tbl === "tbl" && where
    val keyRanges = KeyRangePlanner.plan(keys, keys.size, _ => true, condition, maxRanges = 1000)
    RegionsRead(regions, keyRanges, keys, codec, Some(condition), None)
  }

  private def calls(where: Expression, keys: Seq[AttributeReference] = Seq(db, tbl, p1, p2)): Seq[Call] =
    plan(where, keys).regions.flatMap { r =>
      if (r.byGets) r.ranges.map(range => Get(hex(range.start)))
      else Seq(Scan(hex(r.ranges.head.start), hex(r.ranges.last.stop), r.ranges.size, r.residual.map(_.sql)))
    }

  describe("the seed's filter-plan table") {
    it("p1 > 10 and p1 < 20: Scan(X10+, X20)") {
      calls(p1 > 10 && p1 < 20) shouldBe scan(X ++ int(11), X ++ int(20))
    }
    it("p1 = 10, the only partition column: Get(X10)") {
      calls(p1 === 10, keys = Seq(db, tbl, p1)) shouldBe get(X ++ int(10))
    }
    it("p1 = 10 with all partition columns given: Get(X10,5)") {
      calls(p1 === 10 && p2 === 5) shouldBe get(X ++ int(10) ++ int(5))
    }
    it("p1 = 10 with more partition columns: Scan(X10, X10+)") {
      calls(p1 === 10) shouldBe scan(X ++ int(10), X ++ int(11))
    }
    it("p1 = 9 or p1 = 10: merge(Get(X9), Get(X10))") {
      calls(p1 === 9 || p1 === 10, keys = Seq(db, tbl, p1)) shouldBe get(X ++ int(9), X ++ int(10))
      // With a further column the two prefixes touch, and merge into one scan.
      calls(p1 === 9 || p1 === 10) shouldBe scan(X ++ int(9), X ++ int(11))
    }
    it("p1 > 10 or p1 < 20: merge(Scan(X10+, X+), Scan(X, X20)), which is all of X") {
      calls(p1 > 10 || p1 < 20) shouldBe scan(X, XPlus)
    }
    it("a condition on other columns only: Scan(X, X+) with that condition as the filter") {
      calls(p2 === 5) shouldBe scan(X, XPlus, filter = p2 === 5)
      calls(c1 === 5) shouldBe scan(X, XPlus, filter = c1 === 5)
    }
    it("p1 > 10 and condition1: Scan(X10+, X+) with condition1 as the filter") {
      calls(p1 > 10 && c1 === 5) shouldBe scan(X ++ int(11), XPlus, filter = c1 === 5)
    }
    it("p1 < 20 and condition1: Scan(X, X20) with condition1 as the filter") {
      calls(p1 < 20 && c1 === 5) shouldBe scan(X, X ++ int(20), filter = c1 === 5)
    }
    it("p1 > 10 and p1 > 20 and p1 < 30 and p1 < 40: Scan(X20+, X30)") {
      calls(p1 > 10 && p1 > 20 && p1 < 30 && p1 < 40) shouldBe scan(X ++ int(21), X ++ int(30))
    }
    it("p1 > 10 and (p1 > 20 or c1 = 5): the rows of both scans, filtered where c1 decides") {
      // The seed merges Scan(X20+, X+) and Scan(X10+, X+).setFilter(c1 = 5); one scan from X10+
      // reads the same rows, and only the OR is left to check: p1 > 10 holds throughout.
      calls(p1 > 10 && (p1 > 20 || c1 === 5)) shouldBe scan(X ++ int(11), XPlus, filter = p1 > 20 || c1 === 5)
    }
    it("condition1 or condition2, one of them a full scan: one scan of X with both as the filter") {
      calls(p1 === 5 || c1 === 5) shouldBe scan(X, XPlus, filter = p1 === 5 || c1 === 5)
    }
    it("condition1 or condition2 in general: the merge of their ranges, with nothing left to filter") {
      calls((p1 === 5 && p2 === 1) || p1 > 30) shouldBe
        scan(X ++ int(5) ++ int(1), XPlus, ranges = 2)
    }
    it("c1 and (c2 or c3) = (c1 and c2) or (c1 and c3)") {
      calls(p1 >= 10 && (p1 === 12 || p1 === 20)) shouldBe scan(X ++ int(12), X ++ int(21), ranges = 2)
    }
    it("(c1 or c2) and (c3 or c4) = the four conjunctions") {
      calls((p1 === 1 || p1 === 2) && (p2 === 7 || p2 === 8)) shouldBe get(
        X ++ int(1) ++ int(7),
        X ++ int(1) ++ int(8),
        X ++ int(2) ++ int(7),
        X ++ int(2) ++ int(8)
      )
    }
  }

  describe("regions") {
    // Split at p1 = 0, 100 and 200 within X.
    val splits = Seq(X ++ int(0), X ++ int(100), X ++ int(200)).map(_.map(_.toByte).toArray)
    val regions = (Array.emptyByteArray +: splits).zip(splits :+ Array.emptyByteArray).map { case (s, e) =>
      RegionInfo(s, e, None)
    }

    it("are kept only where a key range overlaps them, with the ranges clipped to each") {
      val kept = plan(p1 >= 50 && p1 < 150, Seq(db, tbl, p1, p2), regions)
      kept.regionsTotal shouldBe 4
      kept.regions.map(r => r.ranges.map(x => (hex(x.start), hex(x.stop)))) shouldBe Seq(
        Seq((hex(X ++ int(50)), hex(X ++ int(100)))),
        Seq((hex(X ++ int(100)), hex(X ++ int(150))))
      )
      plan(p1 < 0, Seq(db, tbl, p1, p2), regions).regions.map(_.region) shouldBe regions.take(1)
      plan(p1 === 250 || p1 === -7, Seq(db, tbl, p1, p2), regions).regions.map(_.region) shouldBe
        Seq(regions(0), regions(3))
    }

    it("each get the residual predicate specialised to the key ranges they hold") {
      val scans =
        plan(In(p1, Seq(Literal(10), Literal(150))) && (p1 === 10 || c1 === 5), Seq(db, tbl, p1, p2), regions).regions
      scans.map(_.residual.map(_.sql)) shouldBe Seq(None, Some((p1 === 10 || c1 === 5).sql))
    }

    it("drop the conjuncts that their own key boundaries decide") {
      // c1 = 5 keeps every key, but below p1 = 100 the OR holds whatever c1 is.
      val scans = plan(p1 < 100 || c1 === 5, Seq(db, tbl, p1, p2), regions).regions
      scans.map(_.residual.map(_.sql)) shouldBe
        Seq(None, None, Some((p1 < 100 || c1 === 5).sql), Some((p1 < 100 || c1 === 5).sql))
    }

    it("keep everything, and the whole condition, with no key ranges") {
      val all = RegionsRead(
        regions,
        KeyRanges.FullScan,
        Nil,
        new BinaryKeyCodec(Seq(StringType, StringType, IntegerType, IntegerType)),
        Some(p1 > 5),
        None
      )
      all.regions.map(_.region) shouldBe regions
      all.regions.map(_.residual) shouldBe Seq.fill(4)(Some(p1 > 5))
    }
  }
}
