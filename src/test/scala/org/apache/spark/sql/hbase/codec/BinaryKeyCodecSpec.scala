// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

class BinaryKeyCodecSpec extends AnyFunSpec with Matchers {
  private def unsigned(a: Array[Byte], b: Array[Byte]): Int = java.util.Arrays.compareUnsigned(a, b)
  private def s(v: String) = UTF8String.fromString(v)

  /** Encodes each tuple and checks the byte order is the listed (ascending) order, and round-trips. */
  private def assertOrdered(codec: BinaryKeyCodec, ascending: Seq[Seq[Any]]): Unit = {
    val encoded = ascending.map(codec.encode)
    encoded.sliding(2).zip(ascending.sliding(2)).foreach { case (Seq(a, b), Seq(x, y)) =>
      withClue(s"$x < $y: ") { unsigned(a, b) should be < 0 }
    }
    encoded.zip(ascending).foreach { case (bytes, tuple) =>
      codec.decode(bytes).toSeq.zip(tuple).foreach {
        case (d: Array[Byte], t: Array[Byte]) => d.toSeq shouldBe t.toSeq
        case (d, t) => withClue(s"$d vs $t: ")(java.util.Objects.equals(d, t) shouldBe true)
      }
    }
  }

  describe("a binary row key") {
    it("orders signed integers of every width as numbers") {
      assertOrdered(new BinaryKeyCodec(Seq(IntegerType)), Seq(Int.MinValue, -1, 0, 1, Int.MaxValue).map(Seq(_)))
      assertOrdered(new BinaryKeyCodec(Seq(LongType)), Seq(Long.MinValue, -42L, 0L, 42L, Long.MaxValue).map(Seq(_)))
      assertOrdered(
        new BinaryKeyCodec(Seq(ShortType)),
        Seq(Short.MinValue, -1.toShort, 0.toShort, Short.MaxValue).map(Seq(_))
      )
      assertOrdered(
        new BinaryKeyCodec(Seq(ByteType)),
        Seq(Byte.MinValue, -1.toByte, 0.toByte, Byte.MaxValue).map(Seq(_))
      )
    }

    it("orders doubles with negatives first and NaN last") {
      assertOrdered(
        new BinaryKeyCodec(Seq(DoubleType)),
        Seq(
          Double.NegativeInfinity,
          -1e300,
          -1.0,
          -Double.MinPositiveValue,
          0.0,
          Double.MinPositiveValue,
          1.0,
          Double.PositiveInfinity,
          Double.NaN
        ).map(Seq(_))
      )
    }

    it("encodes -0.0 as 0.0 and every NaN alike, as Spark compares them") {
      val codec = new BinaryKeyCodec(Seq(DoubleType, FloatType))
      codec.encode(Seq[Any](-0.0d, -0.0f)).toSeq shouldBe codec.encode(Seq[Any](0.0d, 0.0f)).toSeq
      codec.encode(Seq[Any](java.lang.Double.longBitsToDouble(0x7ff0000000000123L), Float.NaN)).toSeq shouldBe
        codec.encode(Seq[Any](Double.NaN, java.lang.Float.intBitsToFloat(0x7fc00123))).toSeq
    }

    it("orders a string before the strings it is a prefix of, even when it is not the last key column") {
      assertOrdered(
        new BinaryKeyCodec(Seq(StringType, IntegerType)),
        Seq(
          Seq(s(""), 5),
          Seq(s("a"), 1),
          Seq(s("a"), 2),
          Seq(s("a\u0000"), 0),
          Seq(s("a\u0000b"), 0),
          Seq(s("a\u0001"), 0),
          Seq(s("ab"), -7),
          Seq(s("é"), 0)
        )
      )
    }

    it("orders composite keys column by column") {
      assertOrdered(
        new BinaryKeyCodec(Seq(IntegerType, StringType, LongType)),
        Seq(
          Seq(-1, s("z"), 9L),
          Seq(1, s("a"), -9L),
          Seq(1, s("a"), 9L),
          Seq(1, s("b"), 0L),
          Seq(2, s(""), 0L)
        )
      )
    }

    it("orders decimals, wide ones too") {
      assertOrdered(
        new BinaryKeyCodec(Seq(DecimalType(10, 2))),
        Seq("-99999999.99", "-0.01", "0", "0.01", "12.5").map(v => Seq(Decimal(BigDecimal(v), 10, 2)))
      )
      assertOrdered(
        new BinaryKeyCodec(Seq(DecimalType(38, 4))),
        Seq("-9999999999999999999999999999999999.9999", "-1", "0", "1.0001", "9999999999999999999999999999999999.9999")
          .map(v => Seq(Decimal(BigDecimal(v), 38, 4)))
      )
    }

    it("rejects a NULL key value with a clear error") {
      intercept[HBaseSQLException](new BinaryKeyCodec(Seq(IntegerType)).encode(Seq(null))).getMessage should
        include("NULL")
    }
  }
}
