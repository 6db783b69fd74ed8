// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import org.apache.hadoop.hbase.util.Bytes
import org.scalacheck.Gen
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, InterpretedOrdering, UnsafeProjection}
import org.apache.spark.sql.types._

/** The key encodings checked against Spark's own ordering and equality, on random tuples. */
class KeyCodecPropertiesSpec extends AnyFunSpec with Matchers with ScalaCheckPropertyChecks {
  import KeyGenerators._

  implicit override val generatorDrivenConfig: PropertyCheckConfiguration =
    PropertyCheckConfiguration(minSuccessful = 10000)

  /** Spark's SQL order of key tuples: the ground truth. */
  private val orderings = scala.collection.mutable.Map.empty[Seq[DataType], Ordering[InternalRow]]

  private def sqlCompare(types: Seq[DataType], a: Seq[Any], b: Seq[Any]): Int =
    orderings.getOrElseUpdate(types, InterpretedOrdering.forSchema(types))
      .compare(new GenericInternalRow(a.toArray), new GenericInternalRow(b.toArray))

  private def sign(x: Int): Int = Integer.signum(x)

  private def withTypes(gen: Seq[DataType] => Gen[(Seq[Any], Seq[Any])], types: Gen[Seq[DataType]] = keyTypes()) =
    for { t <- types; pair <- gen(t) } yield (t, pair._1, pair._2)

  describe("the binary key encoding, for composite keys of 1 to 4 columns of every type") {
    it("compares encoded keys as unsigned bytes exactly as Spark compares the tuples") {
      forAll(withTypes(tuplePair(_))) { case (types, a, b) =>
        val codec = new BinaryKeyCodec(types)
        sign(java.util.Arrays.compareUnsigned(codec.encode(a), codec.encode(b))) shouldBe sign(sqlCompare(types, a, b))
      }
    }

    it("decodes every key back to an equal tuple") {
      forAll(withTypes(tuplePair(_))) { case (types, a, _) =>
        val decoded = new BinaryKeyCodec(types).decode(new BinaryKeyCodec(types).encode(a))
        sqlCompare(types, decoded.toSeq, a) shouldBe 0
      }
    }

    it("encodes each leading part of a key as a byte prefix of the whole key") {
      forAll(withTypes(tuplePair(_)), Gen.choose(0, 4)) { case ((types, a, _), n) =>
        val codec = new BinaryKeyCodec(types)
        val whole = codec.encode(a)
        val prefix = codec.encodePrefix(a.take(n))
        whole.take(prefix.length).toSeq shouldBe prefix.toSeq
        val (start, stop) = KeyBounds.prefixRange(prefix)
        java.util.Arrays.compareUnsigned(start, whole) should be <= 0
        if (stop.nonEmpty) java.util.Arrays.compareUnsigned(whole, stop) should be < 0
      }
    }
  }

  describe("the StringFormat key encoding") {
    val delimiter = "|"

    it("decodes every key of civil dates and times back to an equal tuple") {
      forAll(withTypes(tuplePair(_, civilDates = true, excluding = Some(delimiter)))) { case (types, a, _) =>
        val codec = new StringKeyCodec(types, delimiter)
        sqlCompare(types, codec.decode(codec.encode(a)).toSeq, a) shouldBe 0
      }
    }

    it("preserves order for a single string key, the case where the planner may prune") {
      forAll(withTypes(tuplePair(_), Gen.const(Seq(StringType)))) { case (types, a, b) =>
        val codec = new StringKeyCodec(types, delimiter)
        codec.preservesOrder shouldBe true
        sign(java.util.Arrays.compareUnsigned(codec.encode(a), codec.encode(b))) shouldBe sign(sqlCompare(types, a, b))
      }
    }

    it("does not claim order for keys whose text order differs from value order") {
      new StringKeyCodec(Seq(IntegerType), delimiter).preservesOrder shouldBe false
      new StringKeyCodec(Seq(StringType, StringType), delimiter).preservesOrder shouldBe false
    }
  }

  describe("the cell value encodings") {
    def roundTrip(codec: ValueCodec, civil: Boolean): Unit =
      forAll(Gen.oneOf(allTypes).flatMap(t => valueOf(t, civil).map(t -> _))) { case (dataType, value) =>
        val bytes = codec.encode(dataType, value)
        val decoded = codec.decode(dataType, bytes, 0, bytes.length)
        sqlCompare(Seq(dataType), Seq(decoded), Seq(value)) shouldBe 0
      }

    it("read back every value of every type in the binary format") { roundTrip(BinaryValueCodec, civil = false) }
    it("read back every value of every type in StringFormat") { roundTrip(StringValueCodec, civil = true) }

    it("read any DECIMAL cell as HBase's Bytes.toBigDecimal reads it, rounded to the column's type as Spark rounds") {
      val cells = for {
        precision <- Gen.choose(1, DecimalType.MAX_PRECISION)
        scale <- Gen.choose(0, precision)
        cellScale <- Gen.frequency(4 -> Gen.const(scale), 1 -> Gen.choose(-3, 40))
        width <- Gen.frequency(4 -> Gen.choose(1, 8), 1 -> Gen.choose(9, 17))
        unscaled <- Gen.listOfN(width, Gen.choose(Byte.MinValue, Byte.MaxValue))
      } yield (DecimalType(precision, scale), Bytes.toBytes(cellScale) ++ unscaled)
      forAll(cells) { case (t, cell) =>
        val expected = Decimal.fromDecimal(Bytes.toBigDecimal(cell)).toPrecision(t.precision, t.scale)
        withClue(s"${t.sql} cell ${Bytes.toStringBinary(cell)}: ")(BinaryValueCodec.decode(
          t,
          cell,
          0,
          cell.length
        ) shouldBe expected)
      }
    }

    it("are written alike from a value and from a row's field, generic or unsafe") {
      for ((codec, civil) <- Seq(BinaryValueCodec -> false, StringValueCodec -> true)) {
        forAll(Gen.oneOf(allTypes).flatMap(t => valueOf(t, civil).map(t -> _))) { case (dataType, value) =>
          val row = new GenericInternalRow(Array[Any](value))
          val unsafe = UnsafeProjection.create(Array(dataType)).apply(row)
          val expected = codec.encode(dataType, value).toSeq
          codec.encoder(dataType)(row, 0).toSeq shouldBe expected
          codec.encoder(dataType)(unsafe, 0).toSeq shouldBe expected
        }
      }
    }
  }
}
