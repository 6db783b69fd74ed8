// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.rangeindex

import org.scalacheck.Gen
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, InterpretedOrdering}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/** Statistics gathered value by value bound every value, in Spark's order, and count the NULLs. */
class ColumnStatsBuilderSpec extends AnyFunSpec with Matchers with ScalaCheckPropertyChecks {
  implicit override val generatorDrivenConfig: PropertyCheckConfiguration =
    PropertyCheckConfiguration(minSuccessful = 500)

  private val longString =
    Gen.choose(0, 90).flatMap(n => Gen.listOfN(n, Gen.oneOf('a', 'z', '\u00e9', '\uffff')).map(_.mkString))
  private val pools: Seq[(DataType, Gen[Any])] = Seq(
    IntegerType -> Gen.choose(Int.MinValue, Int.MaxValue),
    DoubleType -> Gen.oneOf(Gen.choose(-1e6, 1e6), Gen.oneOf(Double.NaN, -0.0, 0.0, Double.NegativeInfinity)),
    StringType -> longString.map(UTF8String.fromString),
    BinaryType -> Gen.choose(0, 80).flatMap(n => Gen.listOfN(n, Gen.oneOf(Seq[Byte](0, 1, -1, 127))).map(_.toArray)),
    DecimalType(10, 2) -> Gen.choose(-99999999L, 99999999L).map(u => Decimal(u, 10, 2))
  )

  private def ordering(t: DataType) =
    InterpretedOrdering.forSchema(Seq(t)).on[Any](v => new GenericInternalRow(Array[Any](v)))

  describe("column statistics") {
    it("bound every value and count the NULLs; long strings are cut to a prefix that still bounds them") {
      val cases = for {
        (t, values) <- Gen.oneOf(pools)
        rows <- Gen.listOf(Gen.frequency(6 -> values.map(Some(_)), 1 -> Gen.const(None)))
      } yield (t, rows.map(_.orNull))
      forAll(cases) { case (t, rows) =>
        val builder = new ColumnStatsBuilder(t)
        rows.foreach(builder.add)
        val s = builder.result
        s.nullCount shouldBe rows.count(_ == null)
        val present = rows.filter(_ != null)
        s.min.isDefined shouldBe present.nonEmpty
        present.foreach { v =>
          ordering(t).compare(s.min.get, v) should be <= 0
          ordering(t).compare(v, s.max.get) should be <= 0
        }
        if (s.exact && present.nonEmpty) {
          present.exists(ordering(t).compare(_, s.min.get) == 0) shouldBe true
          present.exists(ordering(t).compare(_, s.max.get) == 0) shouldBe true
        }
        s.min.foreach {
          case b: Array[Byte] => b.length should be <= ColumnStatsBuilder.MaxBoundBytes
          case u: UTF8String => u.numBytes() should be <= ColumnStatsBuilder.MaxBoundBytes
          case _ =>
        }
      }
    }

    it("of two sets of rows merge into those of their union") {
      forAll(Gen.listOf(Gen.option(Gen.choose(-50, 50))), Gen.listOf(Gen.option(Gen.choose(-50, 50)))) { (xs, ys) =>
        def of(vs: Seq[Option[Int]]) = {
          val b = new ColumnStatsBuilder(IntegerType); vs.foreach(v => b.add(v.orNull)); b.result
        }
        ColumnStatsBuilder.merge(IntegerType, of(xs), of(ys)) shouldBe of(xs ++ ys)
      }
    }
  }
}
