// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import org.scalacheck.Gen

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Random Catalyst values of every supported type, biased towards the values encodings get
 * wrong: extremes, zeros of both signs, NaN, infinities, empty strings, strings that are
 * prefixes of one another, 0x00 bytes and non-ASCII text.
 */
object KeyGenerators {
  val decimalTypes: Seq[DecimalType] =
    Seq(DecimalType(5, 2), DecimalType(18, 0), DecimalType(18, 6), DecimalType(38, 10), DecimalType(38, 0))

  val allTypes: Seq[DataType] = Seq(
    BooleanType,
    ByteType,
    ShortType,
    IntegerType,
    LongType,
    FloatType,
    DoubleType,
    StringType,
    BinaryType,
    DateType,
    TimestampType,
    TimestampNTZType
  ) ++ decimalTypes

  private def edgy[T](edges: T*)(other: Gen[T]): Gen[T] = Gen.frequency(3 -> Gen.oneOf(edges), 2 -> other)

  // A tiny alphabet makes equal prefixes, and so deep comparisons, common.
  private val stringPieces =
    Seq("", "a", "b", "ab", "\u0000", "\u0001", "\u007f", "é", "日本", "\uffff", "\ud834\udd1e", "|")
  private val bytePieces: Seq[Byte] = Seq(0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff).map(_.toByte)

  /** Microseconds from years -290000 to 290000; `civil` keeps to years 1 to 9999. */
  private def micros(civil: Boolean): Gen[Long] =
    if (civil) Gen.choose(-62135596800000000L, 253402300799999999L)
    else edgy(Long.MinValue, Long.MaxValue, 0L, -1L)(Gen.choose(-9000000000000000000L, 9000000000000000000L))

  def valueOf(dataType: DataType, civilDates: Boolean = false, excluding: Option[String] = None): Gen[Any] =
    dataType match {
      case BooleanType => Gen.oneOf(true, false)
      case ByteType => edgy(Byte.MinValue, Byte.MaxValue, 0.toByte, -1.toByte)(Gen.choose(Byte.MinValue, Byte.MaxValue))
      case ShortType =>
        edgy(Short.MinValue, Short.MaxValue, 0.toShort, -1.toShort)(Gen.choose(Short.MinValue, Short.MaxValue))
      case IntegerType => edgy(Int.MinValue, Int.MaxValue, 0, -1, 1)(Gen.choose(Int.MinValue, Int.MaxValue))
      case LongType => edgy(Long.MinValue, Long.MaxValue, 0L, -1L, 1L)(Gen.choose(Long.MinValue, Long.MaxValue))
      case FloatType => edgy(
          Float.NaN,
          Float.PositiveInfinity,
          Float.NegativeInfinity,
          -0.0f,
          0.0f,
          Float.MinValue,
          Float.MaxValue,
          Float.MinPositiveValue,
          -Float.MinPositiveValue
        )(
          Gen.oneOf(Gen.choose(-1000, 1000).map(_.toFloat), Gen.choose(-1e30f, 1e30f))
        )
      case DoubleType => edgy(
          Double.NaN,
          Double.PositiveInfinity,
          Double.NegativeInfinity,
          -0.0d,
          0.0d,
          Double.MinValue,
          Double.MaxValue,
          Double.MinPositiveValue,
          -Double.MinPositiveValue
        )(
          Gen.oneOf(Gen.choose(-1000, 1000).map(_.toDouble), Gen.choose(-1e300, 1e300))
        )
      case StringType =>
        val pieces = excluding.fold(stringPieces)(d => stringPieces.filterNot(_.contains(d)))
        Gen.listOfN(3, Gen.oneOf(pieces)).map(p => UTF8String.fromString(p.mkString))
      case BinaryType => Gen.choose(0, 4).flatMap(n => Gen.listOfN(n, Gen.oneOf(bytePieces))).map(_.toArray)
      case DateType =>
        if (civilDates) Gen.choose(-719162, 2932896) // 0001-01-01 .. 9999-12-31
        else edgy(Int.MinValue, Int.MaxValue, 0, -1)(Gen.choose(-1000000, 1000000))
      case TimestampType | TimestampNTZType => micros(civilDates)
      case d: DecimalType =>
        val limit = BigInt(10).pow(d.precision) - 1
        val unscaled = Gen.frequency(
          1 -> Gen.oneOf(limit, -limit, BigInt(0), BigInt(1), BigInt(-1)),
          3 -> Gen.choose(-1000000L, 1000000L).map(u => BigInt(u) % (limit + 1)),
          3 ->
            Gen.listOfN(d.precision, Gen.choose(0, 9)).flatMap(ds => Gen.oneOf(1, -1).map(s => BigInt(ds.mkString) * s))
        )
        unscaled.map(u => Decimal(BigDecimal(u, d.scale), d.precision, d.scale))
      case other => throw new IllegalArgumentException(s"no generator for $other")
    }

  /** Key schemas of 1 to 4 columns of mixed types. */
  def keyTypes(from: Seq[DataType] = allTypes): Gen[Seq[DataType]] =
    Gen.choose(1, 4).flatMap(n => Gen.listOfN(n, Gen.oneOf(from)))

  /** Two tuples of one schema that often share a leading part, so comparisons reach every column. */
  def tuplePair(
      types: Seq[DataType],
      civilDates: Boolean = false,
      excluding: Option[String] = None
  ): Gen[(Seq[Any], Seq[Any])] = {
    def tuple: Gen[Seq[Any]] = Gen.sequence[Seq[Any], Any](types.map(valueOf(_, civilDates, excluding)))
    for {
      a <- tuple
      b <- tuple
      shared <- Gen.choose(0, types.length)
    } yield (a, a.take(shared) ++ b.drop(shared))
  }
}
