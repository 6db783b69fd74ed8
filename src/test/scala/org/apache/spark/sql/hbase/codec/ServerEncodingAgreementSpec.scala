// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import java.math.{BigDecimal => JBigDecimal}

import org.apache.hadoop.hbase.KeyValue
import org.apache.hadoop.hbase.util.Bytes
import org.scalacheck.{Gen, Shrink}
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.metadata._
import org.apache.spark.sql.hbase.planner.ServerPredicates
import org.apache.spark.sql.hbase.server.{KeyLayout, SkipScanFilter}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * The encodings (server/OrderedBytes, CellBytes, DecimalFit), one implementation, through its two
 * entry points: the Spark side's codecs and a region server's reading of cells and keys
 * (CellType, KeyLayout), byte for byte, for every supported type, on random values. Decimals are
 * also checked against Spark's own rounding. Cells go through the public surface a scan uses:
 * ServerPredicates picks the cell type and encodes the literal, and a SkipScanFilter evaluates it
 * on an in-memory cell. No HBase, no SparkSession.
 */
class ServerEncodingAgreementSpec extends AnyFunSpec with Matchers with ScalaCheckPropertyChecks {
  import KeyGenerators._

  implicit override val generatorDrivenConfig: PropertyCheckConfiguration =
    PropertyCheckConfiguration(minSuccessful = 5000)

  // Cases are built with care (a shrunk cell is mostly a garbage decimal): report them as generated.
  implicit def noShrink[T]: Shrink[T] = Shrink.shrinkAny

  /** Precisions on both sides of 18 digits (a long or 16 bytes in a key), scales from 0 to all digits. */
  private val decimals: Seq[DecimalType] =
    (decimalTypes ++ Seq(DecimalType(1, 0), DecimalType(10, 2), DecimalType(19, 4), DecimalType(38, 38))).distinct

  /** Every type SupportedTypes names, read from its own list so that a new type shows up here. */
  private val supportedTypes: Seq[DataType] = SupportedTypes.describe.split(", ").toSeq.flatMap {
    case "DECIMAL(p,s)" => decimals
    case name => Seq(CatalystSqlParser.parseDataType(name))
  }

  private def hex(bytes: Array[Byte]): String = if (bytes == null) "null" else Bytes.toHex(bytes)

  // ---------------------------------------------------------------------------------------------
  // Values and cells

  /** KeyGenerators' values, plus edges they make rarely or never. */
  private def anyValue(t: DataType, civil: Boolean = false, excluding: Option[String] = None): Gen[Any] = {
    val edges: Seq[Any] = t match {
      case StringType =>
        Seq("", "\u0000", "a\u0000", "\u0000\u0000b", "\u0000a").filterNot(s => excluding.exists(s.contains(_)))
          .map(UTF8String.fromString)
      case BinaryType => Seq(Array.emptyByteArray, Array[Byte](0), Array[Byte](0, 0, -1), Array[Byte](-1, 0))
      case d: DecimalType =>
        // The largest values of the column, and the smallest steps around zero.
        val limit = JBigDecimal.valueOf(10).pow(d.precision).subtract(JBigDecimal.ONE).movePointLeft(d.scale)
        val ulp = JBigDecimal.ONE.movePointLeft(d.scale)
        Seq(limit, limit.negate, ulp, ulp.negate).map(b => Decimal(BigDecimal(b), d.precision, d.scale))
      case _ => Nil
    }
    val values = valueOf(t, civil, excluding)
    if (edges.isEmpty) values else Gen.frequency(1 -> Gen.oneOf(edges), 3 -> values)
  }

  private def typedValue(types: Seq[DataType]): Gen[(DataType, Any)] =
    Gen.oneOf(types).flatMap(t => anyValue(t).map(t -> _))

  private def bytes(length: Gen[Int]): Gen[Array[Byte]] =
    length.flatMap(n => Gen.listOfN(n, Gen.choose(Byte.MinValue, Byte.MaxValue))).map(_.toArray)

  /** A BigDecimal as HBase's Bytes.toBytes(BigDecimal) writes it, as any HBase client might. */
  private def hbaseCell(b: JBigDecimal): Array[Byte] = Bytes.toBytes(b)

  /**
   * Decimals of any size and scale, many outside the column, many halfway between two column
   * values, and some with a scale far from the column's (up to Int.MaxValue above it; below, Spark
   * itself fails on scales much under -1000).
   */
  private def foreignDecimal(d: DecimalType): Gen[JBigDecimal] = {
    val any = for {
      digits <- Gen.choose(1, 40)
      unscaled <- Gen.listOfN(digits, Gen.choose(0, 9)).map(ds => BigInt(ds.mkString))
      sign <- Gen.oneOf(1, -1)
      scale <- Gen.frequency(4 -> Gen.choose(-5, 45), 1 -> Gen.choose(39, Int.MaxValue), 1 -> Gen.choose(-1000, -39))
    } yield new JBigDecimal((unscaled * sign).bigInteger, scale)
    // v + δ at 1 to 3 more digits of scale: δ = ±half a column step (a rounding tie) or next to it.
    val nearColumnValue = for {
      v <- anyValue(d).map(_.asInstanceOf[Decimal].toJavaBigDecimal)
      extra <- Gen.choose(1, 3)
      half = BigInt(5) * BigInt(10).pow(extra - 1)
      delta <- Gen.oneOf(half - 1, half, half + 1, -half + 1, -half, -half - 1, BigInt(0))
    } yield new JBigDecimal((BigInt(v.unscaledValue) * BigInt(10).pow(extra) + delta).bigInteger, v.scale + extra)
    Gen.frequency(1 -> any, 2 -> nearColumnValue)
  }

  /** Float bits that Java's canonical NaN and the zeros do not cover. */
  private val oddFloatBits = Seq(0x7f800001, 0x7fffffff, 0xffc00000, 0xffffffff, 0x80000000)
  private val oddDoubleBits = Seq(0x7ff0000000000001L, 0x7fffffffffffffffL, 0xfff8000000000000L, -1L, Long.MinValue)

  /** A cell as another tool may have written it: usually the type's width, sometimes not. */
  private def foreignCell(t: DataType): Gen[Array[Byte]] = t match {
    case d: DecimalType => Gen.frequency(6 -> foreignDecimal(d).map(hbaseCell), 1 -> bytes(Gen.choose(0, 4)))
    case FloatType => Gen.frequency(
        1 -> Gen.oneOf(oddFloatBits).map(Bytes.toBytes),
        3 -> bytes(Gen.const(4)),
        1 -> bytes(Gen.choose(0, 9))
      )
    case DoubleType => Gen.frequency(
        1 -> Gen.oneOf(oddDoubleBits).map(Bytes.toBytes),
        3 -> bytes(Gen.const(8)),
        1 -> bytes(Gen.choose(0, 9))
      )
    case _ =>
      Gen.frequency(3 -> bytes(Gen.const(BinaryKeyCodec.fixedWidth(t).getOrElse(5))), 1 -> bytes(Gen.choose(0, 9)))
  }

  // ---------------------------------------------------------------------------------------------
  // The region server's view of a cell

  private val family = Bytes.toBytes("f")
  private val qualifier = Bytes.toBytes("v")

  /** A Binary table with a key and one cell column of type `t`, as a scan pushes predicates on it. */
  private final class CellColumn(t: DataType) {
    private val column = HBaseColumn("v", t, nullable = true, Some(CellRef("f", "v")))
    private val table = HBaseTableDef(
      "t",
      HBaseTableName("default", "t"),
      Seq(HBaseColumn("k", IntegerType, nullable = false, None), column),
      Seq("k"),
      TableFormat.Binary
    )
    private val codec = KeyCodec.forTable(table)
    private val rowKey = codec.encode(Seq(0))

    val attribute: AttributeReference = AttributeReference("v", t)()
    val predicates = new ServerPredicates(table, codec, _ => column)

    /** Whether the region server keeps a row holding `cell` under `condition`. */
    def keeps(condition: Expression, cell: Array[Byte]): Boolean = {
      val plan = predicates.build(Seq(condition)).getOrElse(fail(s"nothing to push for ${condition.sql}"))
      val filter = new SkipScanFilter(codec.sliceLayout, null, plan.operands.toArray, plan.predicate, null, null)
      val kv = new KeyValue(rowKey, family, qualifier, cell)
      filter.filterRowKey(kv) shouldBe false
      filter.filterCell(kv)
      !filter.filterRow()
    }

    /**
     * Where the server's comparable bytes for `cell` lie next to those of `value` (what
     * ServerPredicates makes of a literal): "NULL", "below", "equal" or "above"; with a null
     * `value`, "NULL" or "a value".
     */
    def reading(cell: Array[Byte], value: Any): String = {
      val literal = Literal(value, t)
      if (keeps(IsNull(attribute), cell)) "NULL"
      else if (value == null) "a value"
      else if (keeps(EqualTo(attribute, literal), cell)) "equal"
      else if (keeps(LessThan(attribute, literal), cell)) "below"
      else "above"
    }
  }

  private val columns = scala.collection.mutable.Map.empty[DataType, CellColumn]
  private def columnOf(t: DataType): CellColumn = columns.getOrElseUpdate(t, new CellColumn(t))

  /** The cell reads, on the server, as `expected` (a Catalyst value, or null for NULL). */
  private def assertServerReads(t: DataType, cell: Array[Byte], expected: Any): Unit = {
    val scalaBytes = if (expected == null) null else BinaryKeyCodec.comparable(t, expected)
    withClue(s"${t.sql} cell ${hex(cell)}, BinaryKeyCodec.comparable ${hex(scalaBytes)}: ") {
      columnOf(t).reading(cell, expected) shouldBe (if (expected == null) "NULL" else "equal")
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The region server's view of a row key

  /**
   * Cuts the key of `values`, laid in a buffer between stray bytes, as a region server does, and
   * checks each slice and its value against the Spark side's.
   */
  private def assertCuts(codec: KeyCodec, values: Seq[Any], before: Array[Byte], after: Array[Byte]): Unit = {
    val layout: KeyLayout = codec.sliceLayout
    val key = codec.encode(values)
    val buffer = before ++ key ++ after
    val limit = before.length + key.length
    layout.dimensions() shouldBe codec.keyTypes.size
    val end = codec.keyTypes.indices.foldLeft(before.length) { (from, dim) =>
      val t = codec.keyTypes(dim)
      val slice = codec.sliceOf(dim, values(dim))
      withClue(s"key ${hex(key)} of ${codec.keyTypes.map(_.sql).mkString(", ")}, column $dim (${t.sql}): ") {
        val end = layout.end(buffer, from, limit, dim)
        hex(buffer.slice(from, end max from)) shouldBe hex(slice)
        if (codec.sliceCheck(dim) != SliceCheck.Opaque) {
          hex(layout.value(buffer, from, end, dim)) shouldBe hex(BinaryKeyCodec.comparable(t, values(dim)))
        }
        end
      }
    }
    end shouldBe limit
  }

  /** Key types, a value of each (told whether its column is the last), and stray bytes before and after. */
  private def keyCase(types: Gen[Seq[DataType]], valueIn: (DataType, Boolean) => Gen[Any]) =
    for {
      ts <- types
      vs <- Gen.sequence[Seq[Any], Any](ts.indices.map(d => valueIn(ts(d), d == ts.size - 1)))
      before <- bytes(Gen.choose(0, 3))
      after <- bytes(Gen.choose(0, 3))
    } yield (ts, vs, before, after)

  // ---------------------------------------------------------------------------------------------

  describe("ServerPredicates' choice of a region-server cell type, in a Binary table") {
    it("covers every type SupportedTypes names, so a type without a Java counterpart fails here") {
      val comparisons = Table[String, (Expression, Expression) => Expression](
        ("comparison", "make"),
        ("=", EqualTo(_, _)),
        ("<", LessThan(_, _)),
        ("<=", LessThanOrEqual(_, _)),
        (">", GreaterThan(_, _)),
        (">=", GreaterThanOrEqual(_, _)),
        ("<=>", EqualNullSafe(_, _))
      )
      forAll(Table("column type", supportedTypes: _*)) { t =>
        val column = new CellColumn(t)
        forAll(comparisons) { (name, make) =>
          withClue(s"${t.sql} column $name literal: ") {
            column.predicates.pushable(make(column.attribute, Literal.default(t))) shouldBe true
          }
        }
      }
    }

    it("is exercised below on every supported type, since KeyGenerators makes values of each") {
      def nonDecimal(ts: Seq[DataType]) = ts.filterNot(_.isInstanceOf[DecimalType]).toSet
      nonDecimal(allTypes) shouldBe nonDecimal(supportedTypes)
      supportedTypes.foreach(t => SupportedTypes.isSupported(t) shouldBe true)
    }
  }

  describe("a cell, as the region server reads it for a predicate (CellType.comparable)") {
    it("gives the bytes BinaryKeyCodec.comparable gives its value, for every value BinaryValueCodec writes") {
      forAll(typedValue(supportedTypes)) { case (t, v) =>
        assertServerReads(t, BinaryValueCodec.encode(t, v), v)
      }
    }

    it(
      "orders a cell of another value below or above it as BinaryKeyCodec's bytes do, so equality above is no accident"
    ) {
      val pairs =
        Gen.oneOf(supportedTypes).flatMap(t => Gen.zip(anyValue(t), anyValue(t)).map { case (v, w) => (t, v, w) })
      forAll(pairs) { case (t, v, w) =>
        val order = Integer.signum(java.util.Arrays.compareUnsigned(
          BinaryKeyCodec.comparable(t, v),
          BinaryKeyCodec.comparable(t, w)
        ))
        columnOf(t).reading(BinaryValueCodec.encode(t, v), w) shouldBe Seq("below", "equal", "above")(order + 1)
      }
    }

    it(
      "gives a decimal's column-scaled bytes when the cell has another scale, as Bytes.toBytes(BigDecimal) writes it"
    ) {
      assertServerReads(DecimalType(10, 2), hbaseCell(new JBigDecimal("1.5")), Decimal(BigDecimal("1.50"), 10, 2))
      assertServerReads(DecimalType(10, 2), hbaseCell(new JBigDecimal("1E+3")), Decimal(BigDecimal("1000.00"), 10, 2))
      val rescaled = for {
        d <- Gen.oneOf(decimals)
        v <- anyValue(d)
        big = v.asInstanceOf[Decimal].toJavaBigDecimal
        other <- Gen.oneOf(Gen.choose(1, 6).map(k => big.setScale(d.scale + k)), Gen.const(big.stripTrailingZeros))
      } yield (d, v, other)
      forAll(rescaled) { case (d, v, other) => assertServerReads(d, hbaseCell(other), v) }
    }

    it("is NULL for a cell of the wrong width, as BinaryValueCodec.decode reads it") {
      val wrongWidth = for {
        t <- Gen.oneOf(supportedTypes.filter(BinaryKeyCodec.fixedWidth(_).isDefined))
        width = t match {
          case _: DecimalType => 0 to 4 // not even a scale and one byte
          case _ => (0 to 9).filterNot(BinaryKeyCodec.fixedWidth(t).contains)
        }
        cell <- bytes(Gen.oneOf(width))
      } yield (t, cell)
      forAll(wrongWidth) { case (t, cell) =>
        withClue(s"${t.sql} cell ${hex(cell)}: ")(Option(BinaryValueCodec.decode(t, cell, 0, cell.length)) shouldBe
          None)
        assertServerReads(t, cell, null)
      }
    }

    it("holds a decimal cell as Spark's own Decimal.toPrecision rounds it, or NULL where Spark has none") {
      val cells = for {
        d <- Gen.oneOf(decimals)
        v <- foreignDecimal(d)
      } yield (d, v)
      forAll(cells) { case (d, v) =>
        val cell = hbaseCell(v)
        val spark = Decimal.fromDecimal(v).toPrecision(d.precision, d.scale)
        withClue(s"${d.sql} cell $v: ") {
          BinaryValueCodec.decode(d, cell, 0, cell.length) shouldBe spark
          assertServerReads(d, cell, spark)
        }
      }
    }

    it("is NULL exactly where BinaryValueCodec.decode reads NULL, and agrees elsewhere, for cells any tool may write") {
      assertServerReads(DecimalType(5, 2), hbaseCell(new JBigDecimal("999.995")), null) // rounds up to 1000.00
      assertServerReads(DecimalType(5, 2), hbaseCell(new JBigDecimal("-999.994")), Decimal(BigDecimal("-999.99"), 5, 2))
      // Text in a DECIMAL column: its first four bytes make a scale near 10^9, so Spark reads ~0.
      for (text <- Seq("12345.67", "$12.50", "  7.5", "-1")) {
        val cell = Utf8.bytes(text)
        withClue(s"text '$text': ")(assertServerReads(
          DecimalType(10, 2),
          cell,
          BinaryValueCodec.decode(DecimalType(10, 2), cell, 0, cell.length)
        ))
      }
      val cells = Gen.oneOf(supportedTypes).flatMap(t => foreignCell(t).map(t -> _))
      forAll(cells) { case (t, cell) =>
        assertServerReads(t, cell, BinaryValueCodec.decode(t, cell, 0, cell.length))
      }
    }
  }

  describe("a binary row key, as the region server cuts it (KeyLayout)") {
    it("ends each column's slice where sliceOf does, and gives its value as BinaryKeyCodec.comparable") {
      forAll(keyCase(keyTypes(supportedTypes), (t, _) => anyValue(t))) { case (types, values, before, after) =>
        assertCuts(new BinaryKeyCodec(types), values, before, after)
      }
    }
  }

  describe("a row key that another tool wrote, as the region server and Spark judge it (KeyCheck)") {
    it("is a key of the table exactly when it decodes to values of its types and encodes back to the same bytes") {
      // Keys of random types, often mutated: a byte changed, cut short or one too many.
      val keys = for {
        types <- keyTypes(supportedTypes)
        values <- Gen.sequence[Seq[Any], Any](types.map(t => anyValue(t)))
        key = new BinaryKeyCodec(types).encode(values)
        at <- Gen.choose(0, key.length)
        byte <- Gen.oneOf(Gen.oneOf(0, 1, 0x7f, 0x80, 0xff).map(_.toByte), Gen.choose(Byte.MinValue, Byte.MaxValue))
        mutated <- Gen.oneOf(
          key,
          if (at < key.length) key.updated(at, byte) else key :+ byte,
          key.take(at),
          key :+ byte
        )
      } yield (types, mutated)
      var accepted, refused = 0
      forAll(keys) { case (types, key) =>
        val codec = new BinaryKeyCodec(types)
        // Decoding trusts a DECIMAL's precision (Spark's toPrecision then too): its digits are checked here.
        def fits(t: DataType, v: Any) = t match {
          case d: DecimalType => v.asInstanceOf[Decimal].toJavaBigDecimal.precision() <= d.precision ||
            v.asInstanceOf[Decimal].toJavaBigDecimal.signum() == 0
          case _ => true
        }
        val roundTrips = scala.util.Try(codec.decode(key)).toOption.exists(values =>
          types.zip(values).forall { case (t, v) => fits(t, v) } && (codec.encode(values.toSeq) sameElements key)
        )
        withClue(s"key ${hex(key)} of ${types.map(_.sql).mkString(", ")}: ") {
          codec.keyCheck.get.accepts(key) shouldBe roundTrips
          new RowCodec(tableOf(types)).keyValues(key) != null shouldBe roundTrips
        }
        if (roundTrips) accepted += 1 else refused += 1
      }
      withClue(s"$accepted accepted, $refused refused: ")(math.min(accepted, refused) should be > 500)
    }
  }

  private def tableOf(keyTypes: Seq[DataType]): HBaseTableDef = HBaseTableDef(
    "t",
    HBaseTableName("default", "t"),
    keyTypes.indices.map(i => HBaseColumn(s"k$i", keyTypes(i), nullable = false, None)),
    keyTypes.indices.map(i => s"k$i"),
    TableFormat.Binary
  )

  describe("a StringFormat row key, as the region server cuts it (KeyLayout)") {
    val texts = scala.collection.mutable.Map.empty[DataType, TextConversion]
    def text(t: DataType, v: Any): Array[Byte] = texts.getOrElseUpdate(t, new TextConversion(t)).format(v)

    for (delimiter <- Seq("|", "\u00e9")) {
      it(s"ends each column at the delimiter '$delimiter', and gives string and binary values as their bytes") {
        val delimiterBytes = Utf8.bytes(delimiter)
        // Columns before the last must not hold the delimiter, as StringKeyCodec requires; the last may.
        def keyValue(t: DataType, last: Boolean): Gen[Any] =
          if (last) anyValue(t, civil = true)
          else anyValue(t, civil = true, excluding = Some(delimiter)).suchThat(v =>
            !text(t, v).containsSlice(delimiterBytes)
          )
        forAll(keyCase(keyTypes(supportedTypes), keyValue)) { case (types, values, before, after) =>
          val codec = new StringKeyCodec(types, delimiter)
          types.indices.foreach { dim =>
            withClue(s"column $dim (${types(dim).sql}) comparable: ") {
              codec.sliceCheck(dim) != SliceCheck.Opaque shouldBe (types(dim) == StringType || types(dim) == BinaryType)
            }
          }
          assertCuts(codec, values, before, after)
        }
      }
    }
  }
}
