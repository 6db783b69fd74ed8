// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression, In, Literal, StartsWith}
import org.apache.spark.sql.types.{DoubleType, IntegerType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String

/** Partial evaluation of predicates over the key (a INT, b STRING), without HBase or Spark. */
class KeyRangePlannerSpec extends AnyFunSpec with Matchers {
  private val ka = AttributeReference("a", IntegerType, nullable = false)()
  private val kb = AttributeReference("b", StringType, nullable = false)()
  private val v = AttributeReference("v", IntegerType)()
  private def s(x: String) = UTF8String.fromString(x)

  private def plan(condition: Expression, maxRanges: Int = 100, canRange: Int => Boolean = _ => true): KeyRanges =
    KeyRangePlanner.plan(Seq(ka, kb), 2, canRange, condition, maxRanges)

  private def ranges(rs: KeyRange*): KeyRanges = KeyRanges.Ranges(rs)
  private def open(lo: Int) = Some(Bound(lo, inclusive = false))
  private def incl(x: Any) = Some(Bound(x, inclusive = true))
  private def excl(x: Any) = Some(Bound(x, inclusive = false))

  describe("a predicate on the leading key column") {
    it("becomes a point, a range, or both sides of a point") {
      plan(ka === 5) shouldBe ranges(KeyRange(Vector(5), None))
      plan(ka > 5) shouldBe ranges(KeyRange(Vector(), Some(ColumnRange(open(5), None))))
      plan(ka >= 5 && ka <= 10) shouldBe ranges(KeyRange(Vector(), Some(ColumnRange(incl(5), incl(10)))))
      plan(!(ka < 5)) shouldBe ranges(KeyRange(Vector(), Some(ColumnRange(incl(5), None))))
      plan(ka =!= 5) shouldBe ranges(
        KeyRange(Vector(), Some(ColumnRange(None, excl(5)))),
        KeyRange(Vector(), Some(ColumnRange(excl(5), None)))
      )
      plan(Literal(5) < ka) shouldBe plan(ka > 5)
    }

    it("is a union of ranges for IN and OR") {
      plan(In(ka, Seq(Literal(3), Literal(1)))) shouldBe ranges(KeyRange(Vector(1), None), KeyRange(Vector(3), None))
      plan(ka < 0 || ka === 7) shouldBe
        ranges(KeyRange(Vector(), Some(ColumnRange(None, excl(0)))), KeyRange(Vector(7), None))
    }

    it("is empty when it cannot hold") {
      plan(ka > 5 && ka < 3) shouldBe ranges()
      plan(ka === 1 && ka === 2) shouldBe ranges()
      plan(ka.isNull) shouldBe ranges()
    }
  }

  describe("the range algebra on one key column") {
    it("intersects ranges under AND, keeping the tighter bound of each side") {
      plan(ka > 1 && ka >= 3 && ka < 9 && ka <= 7) shouldBe
        ranges(KeyRange(Vector(), Some(ColumnRange(incl(3), incl(7)))))
      plan((ka >= 0 && ka < 10) && (ka > 5 && ka < 20)) shouldBe
        ranges(KeyRange(Vector(), Some(ColumnRange(open(5), excl(10)))))
    }

    it("unites ranges under OR, joining overlapping and touching ones") {
      plan((ka >= 0 && ka < 10) || (ka >= 5 && ka <= 20)) shouldBe
        ranges(KeyRange(Vector(), Some(ColumnRange(incl(0), incl(20)))))
      plan(ka < 5 || ka === 5) shouldBe ranges(KeyRange(Vector(), Some(ColumnRange(None, incl(5)))))
      plan(ka < 0 || ka > 10) shouldBe ranges(
        KeyRange(Vector(), Some(ColumnRange(None, excl(0)))),
        KeyRange(Vector(), Some(ColumnRange(open(10), None)))
      )
    }

    it("complements a range under NOT, into both unbounded ends") {
      plan(!(ka >= 3 && ka <= 7)) shouldBe ranges(
        KeyRange(Vector(), Some(ColumnRange(None, excl(3)))),
        KeyRange(Vector(), Some(ColumnRange(open(7), None)))
      )
      plan(!(ka < 3 || ka > 7)) shouldBe plan(ka >= 3 && ka <= 7)
    }

    it("is everything for a tautology and nothing for a contradiction") {
      plan(ka < 5 || ka >= 5) shouldBe KeyRanges.FullScan
      plan(ka < 5 && !(ka < 5)) shouldBe ranges()
      plan(!(ka < 5 || ka >= 5)) shouldBe ranges()
    }
  }

  describe("casts of a key column") {
    it("are unwrapped when they keep order and the literal is a value of the key's type") {
      plan(ka.cast(LongType) >= 5L) shouldBe plan(ka >= 5)
      plan(In(ka.cast(LongType), Seq(Literal(1L), Literal(3L)))) shouldBe plan(In(ka, Seq(Literal(1), Literal(3))))
      plan(ka.cast(DoubleType) === 2.0) shouldBe plan(ka === 2)
    }

    it("do not prune when the literal falls between key values or the cast loses order") {
      plan(ka.cast(DoubleType) === 2.5) shouldBe KeyRanges.FullScan
      plan(ka.cast(LongType) > Long.MaxValue) shouldBe KeyRanges.FullScan
      plan(ka.cast(StringType) === "5") shouldBe KeyRanges.FullScan
    }
  }

  describe("predicates on several key columns") {
    it("recurse into the next column for each point") {
      plan(ka === 1 && kb === "x") shouldBe ranges(KeyRange(Vector(1, s("x")), None))
      plan(In(ka, Seq(Literal(1), Literal(2))) && kb >= "m") shouldBe ranges(
        KeyRange(Vector(1), Some(ColumnRange(incl(s("m")), None))),
        KeyRange(Vector(2), Some(ColumnRange(incl(s("m")), None)))
      )
    }

    it("turn LIKE 'p%' on a string key column into the range of strings starting with p") {
      plan(ka === 1 && StartsWith(kb, Literal("ab"))) shouldBe ranges(
        KeyRange(Vector(1), Some(ColumnRange(incl(s("ab")), excl(s("ac")))))
      )
      plan(ka === 1 && !StartsWith(kb, Literal("ab"))) shouldBe ranges(
        KeyRange(Vector(1), Some(ColumnRange(None, excl(s("ab"))))),
        KeyRange(Vector(1), Some(ColumnRange(incl(s("ac")), None)))
      )
    }

    it("turn an OR across columns into a union, not a full scan") {
      plan(ka === 1 || (ka === 2 && kb === "x")) shouldBe
        ranges(KeyRange(Vector(1), None), KeyRange(Vector(2, s("x")), None))
    }

    it("scan everything when the leading column is unconstrained") {
      plan(kb === "x") shouldBe KeyRanges.FullScan
      plan(ka === 1 || kb === "x") shouldBe KeyRanges.FullScan
    }
  }

  describe("what the planner cannot decide") {
    it("keeps its rows: non-key predicates, NULLs in IN lists and unknown functions never prune") {
      plan(v === 3) shouldBe KeyRanges.FullScan
      plan(v === 3 && ka === 2) shouldBe ranges(KeyRange(Vector(2), None))
      plan(v === 3 || ka === 2) shouldBe KeyRanges.FullScan
      plan(In(ka, Seq(Literal(1), Literal(null, IntegerType)))) shouldBe KeyRanges.FullScan
      // NOT (a IN (1, NULL)) holds for no row; the planner proves it only for a = 1 and keeps the rest.
      plan(!In(ka, Seq(Literal(1), Literal(null, IntegerType)))) shouldBe ranges(
        KeyRange(Vector(), Some(ColumnRange(None, excl(1)))),
        KeyRange(Vector(), Some(ColumnRange(excl(1), None)))
      )
      plan((ka + 1) === 3) shouldBe KeyRanges.FullScan
    }
  }

  describe("bounds on the work") {
    it("cover a huge IN list with one range from its smallest to its largest value") {
      val big = In(ka, (1 to 500).map(i => Literal(i * 2)))
      plan(big, maxRanges = 100) shouldBe ranges(KeyRange(Vector(), Some(ColumnRange(incl(2), incl(1000)))))
      plan(big, maxRanges = 1000) match {
        case KeyRanges.Ranges(rs) => rs.size shouldBe 500
        case other => fail(s"expected ranges, got $other")
      }
    }

    it("give up ranges on a column whose bytes do not sort by value, keeping its points") {
      plan(ka > 5, canRange = _ => false) shouldBe KeyRanges.FullScan
      plan(ka === 5 && kb > "m", canRange = _ == 0) shouldBe ranges(KeyRange(Vector(5), None))
    }
  }
}
