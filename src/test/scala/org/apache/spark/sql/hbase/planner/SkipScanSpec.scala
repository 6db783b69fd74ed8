// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import scala.util.Random

import org.apache.hadoop.hbase.util.Bytes
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.catalyst.expressions.{Add, AttributeReference, Expression}
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.hbase.codec.{BinaryKeyCodec, KeyBounds, KeyCodec, RowRange, StringKeyCodec}
import org.apache.spark.sql.hbase.server.KeySkipper
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * The skip scan without HBase: which key boxes a WHERE clause gives, and where the region
 * server's filter seeks from each row key. The seek keys are spelt out byte by byte.
 */
class SkipScanSpec extends AnyFunSpec with Matchers {
  private def s(text: String) = UTF8String.fromString(text)
  private def hex(bytes: Array[Byte]) = Bytes.toStringBinary(bytes)
  private def bytes(ints: Int*) = ints.map(_.toByte).toArray
  private def int(v: Int) = bytes(0x80 ^ (v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff)
  private def term(text: String) = text.getBytes("UTF-8") ++ bytes(0, 0)

  private def point(v: Any) = ColumnRange.point(v)
  private def range(lo: Option[(Any, Boolean)], hi: Option[(Any, Boolean)]) =
    ColumnRange(lo.map { case (v, i) => Bound(v, i) }, hi.map { case (v, i) => Bound(v, i) })

  /** A skipper over boxes given column by column (None: any value), each box bounded by its row range. */
  private def skipper(codec: KeyCodec, boxes: (Seq[Option[Seq[ColumnRange]]], RowRange)*): KeySkipper =
    new KeySkipper(
      codec.sliceLayout,
      boxes.flatMap { case (columns, rows) =>
        KeyBoxes.encode(KeyBoxPlan(columns.toIndexedSeq, 0, rows), codec)
      }.toArray
    )

  private val everyRow = RowRange(Array.emptyByteArray, Array.emptyByteArray)

  /** What the skipper says of a key: "match", "end", or the seek key. */
  private def step(k: KeySkipper, key: Array[Byte]): String = k.seekFor(key, 0, key.length) match {
    case null => "match"
    case next if next.isEmpty => "end"
    case next => hex(next)
  }

  describe("the seek key of a row outside the box (a INT, b INT)") {
    val codec = new BinaryKeyCodec(Seq(IntegerType, IntegerType))
    def key(a: Int, b: Int) = int(a) ++ int(b)
    // a in [1, 3], b in {5, 7}
    val box = Seq(Some(Seq(range(Some((1, true)), Some((3, true))))), Some(Seq(point(5), point(7))))

    it("moves a later column up to its next range, the earlier ones unchanged") {
      step(skipper(codec, box -> everyRow), key(1, 5)) shouldBe "match"
      step(skipper(codec, box -> everyRow), key(1, 6)) shouldBe hex(key(1, 7))
      step(skipper(codec, box -> everyRow), key(2, 0)) shouldBe hex(key(2, 5))
    }

    it("carries into the column before when a column has no range left, like an odometer") {
      step(skipper(codec, box -> everyRow), key(1, 8)) shouldBe hex(key(2, 5))
      step(skipper(codec, box -> everyRow), key(0, 9)) shouldBe hex(key(1, 5))
    }

    it("ends the scan when the first column has no range left") {
      val k = skipper(codec, box -> everyRow)
      step(k, key(3, 8)) shouldBe "end"
      k.exhausted() shouldBe true
    }

    it("jumps to the next range of a column whose current range is used up") {
      // a in {1, 3}, b in [5, 7]
      val gaps = Seq(Some(Seq(point(1), point(3))), Some(Seq(range(Some((5, true)), Some((7, true))))))
      step(skipper(codec, gaps -> everyRow), key(1, 9)) shouldBe hex(key(3, 5))
      step(skipper(codec, gaps -> everyRow), key(2, 6)) shouldBe hex(key(3, 5))
    }

    it("seeks past an excluded bound on the last column") {
      // b in (5, 7): after b = 5 comes the least key above it, the same bytes and one 0x00
      val open = Seq(None, Some(Seq(range(Some((5, false)), Some((7, false))))))
      step(skipper(codec, open -> everyRow), key(4, 5)) shouldBe hex(key(4, 5) ++ bytes(0))
      step(skipper(codec, open -> everyRow), key(4, 6)) shouldBe "match"
      // b has no range left above 7: a moves up by one, then b starts just above 5
      step(skipper(codec, open -> everyRow), key(4, 7)) shouldBe hex(key(5, 5) ++ bytes(0))
    }
  }

  describe("the seek key over variable-length strings (a STRING, b INT)") {
    val codec = new BinaryKeyCodec(Seq(StringType, IntegerType))
    def key(a: String, b: Int) = term(a) ++ int(b)
    // a in {'ab', 'abc'}, b = 2: 'ab' is a prefix of 'abc', yet its slice 'ab' 00 00 sorts first
    val box = Seq(Some(Seq(point(s("ab")), point(s("abc")))), Some(Seq(point(2))))

    it("moves a shorter string up to the first value, then fills in the next column") {
      step(skipper(codec, box -> everyRow), key("a", 9)) shouldBe hex(key("ab", 2))
    }

    it("carries from a string to the longer string it is a prefix of") {
      step(skipper(codec, box -> everyRow), key("ab", 3)) shouldBe hex(key("abc", 2))
      step(skipper(codec, box -> everyRow), key("abc", 1)) shouldBe hex(key("abc", 2))
      step(skipper(codec, box -> everyRow), key("abc", 2)) shouldBe "match"
    }

    it("keeps the escaping of 0x00 inside strings") {
      val zero = Seq(Some(Seq(point(s("a\u0000b")))), None)
      step(skipper(codec, zero -> everyRow), key("a", 1)) shouldBe hex(bytes('a', 0, 0xff, 'b', 0, 0))
    }
  }

  describe("the seek key over a last string column (a INT, s STRING)") {
    val codec = new BinaryKeyCodec(Seq(IntegerType, StringType))
    def key(a: Int, text: String) = int(a) ++ text.getBytes("UTF-8")
    val box = Seq(None, Some(Seq(range(Some((s("ab"), true)), Some((s("ab"), true))))))

    it("seeks to the string from a shorter one, and carries past a longer one it is a prefix of") {
      step(skipper(codec, box -> everyRow), key(1, "a")) shouldBe hex(key(1, "ab"))
      step(skipper(codec, box -> everyRow), key(1, "ab")) shouldBe "match"
      step(skipper(codec, box -> everyRow), key(1, "abc")) shouldBe hex(key(2, "ab"))
    }
  }

  describe("several boxes") {
    val codec = new BinaryKeyCodec(Seq(IntegerType, IntegerType))
    def key(a: Int, b: Int) = int(a) ++ int(b)
    def boxFor(a: Int, bs: Int*) = Seq(Some(Seq(point(a))), Some(bs.map(point(_)))) ->
      RowRanges.rowRangeOf(KeyRange(Vector(a), None), codec)

    it("are walked in key order: a key between boxes seeks to the next box's first key") {
      val k = skipper(codec, boxFor(1, 4), boxFor(5, 2, 8))
      step(k, key(1, 4)) shouldBe "match"
      step(k, key(1, 6)) shouldBe hex(int(5))
      step(k, key(5, 1)) shouldBe hex(key(5, 2))
      step(k, key(5, 9)) shouldBe "end"
    }
  }

  describe("a StringFormat key (a STRING, b STRING) joined by '|'") {
    val codec = new StringKeyCodec(Seq(StringType, StringType), "|")
    def key(text: String) = text.getBytes("UTF-8")

    it("checks equality on a string before the last, where the delimiter breaks value order") {
      // In key order 'a\u0001|' comes before 'a|', though 'a' < 'a\u0001' as values.
      val box = Seq(Some(Seq(point(s("a\u0001")), point(s("a")))), Some(Seq(point(s("x")))))
      step(skipper(codec, box -> everyRow), key("a\u0001|x")) shouldBe "match"
      step(skipper(codec, box -> everyRow), key("a\u0001|y")) shouldBe hex(key("a|x"))
      step(skipper(codec, box -> everyRow), key("a|x")) shouldBe "match"
      step(skipper(codec, box -> everyRow), key("a|y")) shouldBe "end"
    }
  }

  describe("a simulated region scan over every key of a small key space") {
    it("returns exactly the keys in the boxes, and every seek moves forward without passing one") {
      val codec = new BinaryKeyCodec(Seq(IntegerType, StringType, LongType))
      val strings = Seq("", "a", "ab", "abc", "b", "b\u0000", "ba")
      val universe = (for (a <- -3 to 3; b <- strings; c <- -2L to 2L) yield Seq[Any](a, s(b), c))
        .map(v => codec.encode(v) -> v).sortWith((x, y) => Bytes.compareTo(x._1, y._1) < 0)
      val orderings: Seq[Ordering[Any]] = Seq(
        Ordering.Int.on[Any](_.asInstanceOf[Int]),
        Ordering.by[Any, Array[Byte]](_.asInstanceOf[UTF8String].getBytes)((x, y) => Bytes.compareTo(x, y)),
        Ordering.Long.on[Any](_.asInstanceOf[Long])
      )
      def within(r: ColumnRange, v: Any, o: Ordering[Any]) =
        r.lower.forall(b => o.compare(v, b.value) > 0 || (b.inclusive && o.equiv(v, b.value))) &&
          r.upper.forall(b => o.compare(v, b.value) < 0 || (b.inclusive && o.equiv(v, b.value)))
      val domains: Seq[Seq[Any]] = Seq((-4 to 4), strings.map(s) :+ s("abd"), (-3L to 3L))

      val random = new Random(5)
      def randomRanges(dim: Int): Option[Seq[ColumnRange]] = {
        if (random.nextInt(4) == 0) return None
        val values = random.shuffle(domains(dim)).take(1 + random.nextInt(4)).sorted(orderings(dim))
        // Some neighbouring pairs become ranges, included or not at either end.
        val out = Vector.newBuilder[ColumnRange]
        var i = 0
        while (i < values.size) {
          if (i + 1 < values.size && random.nextBoolean()) {
            out += range(Some((values(i), random.nextBoolean())), Some((values(i + 1), random.nextBoolean())))
            i += 2
          } else { out += point(values(i)); i += 1 }
        }
        val ranges = out.result()
        // Sometimes the outer ends are open.
        val opened = ranges
          .updated(0, if (random.nextInt(4) == 0) ranges.head.copy(lower = None) else ranges.head)
        Some(opened.updated(
          opened.size - 1,
          if (random.nextInt(4) == 0) opened.last.copy(upper = None) else opened.last
        ))
      }

      (1 to 300).foreach { round =>
        val columns = (0 until 3).map(randomRanges)
        val box = KeyBoxPlan(columns, 0, everyRow)
        val k = new KeySkipper(codec.sliceLayout, KeyBoxes.encode(box, codec).toArray)
        def inBox(v: Seq[Any]) = columns.zipWithIndex.forall { case (rs, d) =>
          rs.forall(_.exists(within(_, v(d), orderings(d))))
        }
        val expected = universe.filter(u => inBox(u._2)).map(_._2)
        val found = Vector.newBuilder[Seq[Any]]
        var pos = 0
        var visited = 0
        while (pos < universe.size) {
          val (key, values) = universe(pos)
          visited += 1
          k.seekFor(key, 0, key.length) match {
            case null => found += values; pos += 1
            case next if next.isEmpty => pos = universe.size
            case next =>
              withClue(s"round $round, box $box, at $values: ")(Bytes.compareTo(next, key) should be > 0)
              pos = universe.indexWhere(u => Bytes.compareTo(u._1, next) >= 0) match {
                case -1 => universe.size; case p => p
              }
          }
        }
        withClue(s"round $round, box $box: ")(found.result() shouldBe expected)
      }
    }
  }

  describe("the key boxes of a WHERE clause") {
    val keys = Seq(
      AttributeReference("a", IntegerType)(),
      AttributeReference("b", StringType)(),
      AttributeReference("c", LongType)()
    )
    val codec = new BinaryKeyCodec(keys.map(_.dataType))
    def where(text: String): Expression = CatalystSqlParser.parseExpression(text).transform {
      case u: UnresolvedAttribute => keys.find(_.name == u.name).get
    }
    def boxesOf(text: String): Seq[String] = {
      val condition = where(text)
      val ranges = KeyRangePlanner.plan(keys, 3, _ => true, condition, 1000)
      KeyBoxes(ranges, Some(condition), keys, codec, 1000).map(_.toString)
    }

    it("constrain a later key column alone, which the key ranges cannot") {
      boxesOf("c = 3L") shouldBe Seq("(*, *, =3)")
      boxesOf("b IN ('x', 'y') AND c > 0L") shouldBe Seq("(*, {x, y}, (0, +inf))")
    }

    it("keep the critical ranges' leading columns and narrow the later ones") {
      boxesOf("a >= 1 AND a <= 9 AND c IN (1L, 7L)") shouldBe Seq("([1, 9], *, {1, 7})")
      boxesOf("a IN (1, 2) AND c = 5L") shouldBe Seq("(=1, *, =5)", "(=2, *, =5)")
    }

    it("narrow each critical range by what the predicate allows there") {
      boxesOf("(a = 1 AND c = 5L) OR (a = 2 AND c = 6L)") shouldBe Seq("(=1, *, =5)", "(=2, *, =6)")
    }

    it("narrow many critical ranges (a long IN list) by what the predicate allows whatever they hold") {
      boxesOf(s"a IN (${(1 to 100).mkString(", ")}) AND c = 5L") shouldBe (1 to 100).map(a => s"(=$a, *, =5)")
      boxesOf(s"(a IN (${(1 to 100).mkString(", ")}) AND c = 5L) OR (a = 0 AND c = 6L)") shouldBe
        (0 to 100).map(a => s"(=$a, *, {5, 6})")
    }

    it("leave a key column unconstrained where a predicate on it cannot be decided by value") {
      boxesOf("c + 1L = 3L") shouldBe Seq("(*, *, *)")
    }
  }

  describe("a scan plan with the server jar") {
    val keys = Seq(
      AttributeReference("a", IntegerType)(),
      AttributeReference("b", StringType)(),
      AttributeReference("c", LongType)()
    )
    val codec = new BinaryKeyCodec(keys.map(_.dataType))
    def where(text: String): Expression = CatalystSqlParser.parseExpression(text).transform {
      case u: UnresolvedAttribute => keys.find(_.name == u.name).get
    }
    val bounds =
      Seq(Array.emptyByteArray, codec.encodePrefix(Seq(0)), codec.encodePrefix(Seq(100)), Array.emptyByteArray)
    val regions = bounds.sliding(2).map { case Seq(start, end) => RegionInfo(start, end, None) }.toSeq
    def planned(text: String): RegionsRead = {
      val condition = where(text)
      val ranges = KeyRangePlanner.plan(keys, 3, _ => true, condition, 1000)
      RegionsRead(regions, ranges, keys, codec, Some(condition), None)
        .withServerFilters(KeyBoxes(ranges, Some(condition), keys, codec, 1000), !_.exists(_.isInstanceOf[Add]))
    }

    it("gives each region the boxes that overlap it, and the conjuncts the region server can evaluate") {
      val plan = planned("a IN (5, 150) AND c = 3L AND c + 1L = 4L")
      plan.regions.map(_.server.get.boxes.map(_.map(_.toString))) shouldBe
        Seq(Some(Seq("(=5, *, =3)")), Some(Seq("(=150, *, =3)")))
      plan.regions.map(_.server.get.pushed.map(_.sql)) shouldBe Seq.fill(2)(Seq("(c = 3L)"))
      plan.regions.map(_.residual.map(_.sql)) shouldBe Seq.fill(2)(Some("((c + 1L) = 4L)"))
    }

    it("sends no boxes to a region whose one range they would not narrow") {
      val plan = planned("a >= 5 AND a < 50")
      plan.regions.map(_.server.get.boxes) shouldBe Seq(None)
      planned("a IN (5, 7)").regions.map(_.server.get.boxes.map(_.size)) shouldBe Seq(Some(2))
    }

    it("reads a region without the server jar with the same ranges, its server's conjuncts checked in Spark") {
      val region = planned("a IN (5, 150) AND c = 3L AND c + 1L = 4L").regions.head
      val plain = region.withoutServer
      plain.server shouldBe None
      plain.ranges shouldBe region.ranges
      plain.residual.map(_.sql) shouldBe Some("((c = 3L) AND ((c + 1L) = 4L))")
      RegionsRead(regions, KeyRanges.FullScan, keys, codec, None, None).regions.head.withoutServer.residual shouldBe
        None
    }

    it("resumes a region's read after the last row it returned, its ranges cut there") {
      val region = planned("a IN (5, 7, 9) AND b = 'x'").regions.head
      region.ranges.size shouldBe 3
      val afterSeven = region.after(codec.encode(Seq(7, s("x"), 1L)))
      afterSeven.ranges.head.start shouldBe KeyBounds.successor(codec.encode(Seq(7, s("x"), 1L)))
      afterSeven.ranges.head.stop shouldBe region.ranges(1).stop
      afterSeven.ranges.tail shouldBe region.ranges.drop(2)
      region.after(region.ranges.last.stop).ranges shouldBe empty
      afterSeven.server shouldBe region.server
    }
  }
}
