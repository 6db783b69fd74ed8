// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import java.io.ByteArrayOutputStream
import java.nio.ByteBuffer

import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.SupportedTypes
import org.apache.spark.sql.hbase.server.{KeyCheck, KeyLayout, OrderedBytes}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Order-preserving binary encoding of a composite row key: comparing two encoded keys as unsigned
 * bytes gives the SQL order of the key tuples.
 *
 * Each column's bytes are those of `server.OrderedBytes`, the encoding's one implementation, which
 * region servers use too: fixed widths for numbers, escaped and terminated text and binaries except
 * in the last column.
 */
final class BinaryKeyCodec(val keyTypes: Seq[DataType]) extends KeyCodec {

  keyTypes.foreach(t =>
    if (!BinaryKeyCodec.supports(t)) {
      throw new HBaseSQLException(s"Type ${t.sql} cannot be used in a row key")
    }
  )

  override def preservesOrder: Boolean = true

  override def prunableKeyColumns: Int = keyTypes.size

  override def canRange(dim: Int): Boolean = true

  override def decodePrefix(key: Array[Byte]): (Seq[Any], Boolean) = {
    val buf = ByteBuffer.wrap(key)
    val values = Vector.newBuilder[Any]
    var i = 0
    try {
      while (i < keyTypes.length && buf.hasRemaining) {
        values += BinaryKeyCodec.read(buf, keyTypes(i), isLast = i == keyTypes.length - 1)
        i += 1
      }
      (values.result(), !buf.hasRemaining)
    } catch {
      case _: java.nio.BufferUnderflowException => (values.result(), false) // cut inside a column
    }
  }

  override lazy val sliceLayout: KeyLayout = {
    val last = keyTypes.size - 1
    val kinds = keyTypes.zipWithIndex.map {
      case (t, _) if BinaryKeyCodec.fixedWidth(t).isDefined => KeyLayout.FIXED
      case (_, `last`) => KeyLayout.REST
      case _ => KeyLayout.TERMINATED
    }
    new KeyLayout(
      kinds.toArray,
      keyTypes.map(t => BinaryKeyCodec.fixedWidth(t).getOrElse(0)).toArray,
      Array.emptyByteArray
    )
  }

  override def sliceCheck(dim: Int): SliceCheck = SliceCheck.Order

  override def sliceOf(dim: Int, value: Any): Array[Byte] = {
    val out = new ByteArrayOutputStream(16)
    BinaryKeyCodec.write(out, keyTypes(dim), value, isLast = dim == keyTypes.length - 1)
    out.toByteArray
  }

  override def encode(values: Seq[Any]): Array[Byte] = {
    require(values.length == keyTypes.length, s"expected ${keyTypes.length} key values, got ${values.length}")
    encodePrefix(values)
  }

  override def encodePrefix(values: Seq[Any]): Array[Byte] = {
    require(values.length <= keyTypes.length, s"a key prefix has at most ${keyTypes.length} values")
    val out = new ByteArrayOutputStream(32)
    var i = 0
    while (i < values.length) {
      BinaryKeyCodec.write(out, keyTypes(i), values(i), isLast = i == keyTypes.length - 1)
      i += 1
    }
    out.toByteArray
  }

  private val typeArray = keyTypes.toArray // indexed per row: a Seq may be a List

  override lazy val keyCheck: Option[KeyCheck] = {
    val types = keyTypes.map(t => CellTypes.binary(t).get)
    Some(new KeyCheck(sliceLayout, types.map(_._1).toArray, types.map(_._2).toArray))
  }

  override def decode(key: Array[Byte]): Array[Any] = {
    val buf = ByteBuffer.wrap(key)
    val result = new Array[Any](typeArray.length)
    var i = 0
    while (i < typeArray.length) {
      result(i) = BinaryKeyCodec.read(buf, typeArray(i), isLast = i == typeArray.length - 1)
      i += 1
    }
    if (buf.hasRemaining) {
      throw new IllegalArgumentException(
        s"Row key has ${buf.remaining()} trailing bytes for key types ${keyTypes.map(_.sql).mkString(", ")}"
      )
    }
    result
  }
}

object BinaryKeyCodec {

  def supports(dataType: DataType): Boolean = SupportedTypes.isSupported(dataType)

  /** Bytes a value of the type always takes; None for strings and binaries. */
  def fixedWidth(dataType: DataType): Option[Int] = dataType match {
    case BooleanType | ByteType => Some(1)
    case ShortType => Some(2)
    case IntegerType | DateType | FloatType => Some(4)
    case LongType | TimestampType | TimestampNTZType | DoubleType => Some(8)
    case d: DecimalType => Some(OrderedBytes.decimalWidth(d.precision))
    case _ => None
  }

  /**
   * The value of `dataType` whose order-preserving bytes, as a key column other than the last,
   * start at `buf`'s position, which moves past them; BufferUnderflowException when cut short.
   */
  def readPart(buf: ByteBuffer, dataType: DataType): Any = read(buf, dataType, isLast = false)

  /** A value as order-preserving bytes: its encoding as the last key column. */
  def comparable(dataType: DataType, value: Any): Array[Byte] = {
    val out = new ByteArrayOutputStream(16)
    write(out, dataType, value, isLast = true)
    out.toByteArray
  }

  // The bytes of each type are OrderedBytes' (server jar): one implementation for both sides.
  private def write(out: ByteArrayOutputStream, dataType: DataType, value: Any, isLast: Boolean): Unit = {
    if (value == null) throw new HBaseSQLException("NULL cannot be encoded in a row key")
    val bytes = dataType match {
      case BooleanType => OrderedBytes.ofBoolean(value.asInstanceOf[Boolean])
      case ByteType => OrderedBytes.ofIntegral(value.asInstanceOf[Byte].toLong, 1)
      case ShortType => OrderedBytes.ofIntegral(value.asInstanceOf[Short].toLong, 2)
      case IntegerType | DateType => OrderedBytes.ofIntegral(value.asInstanceOf[Int].toLong, 4)
      case LongType | TimestampType | TimestampNTZType => OrderedBytes.ofIntegral(value.asInstanceOf[Long], 8)
      case FloatType => OrderedBytes.ofFloat(value.asInstanceOf[Float])
      case DoubleType => OrderedBytes.ofDouble(value.asInstanceOf[Double])
      case StringType => OrderedBytes.writeEscaped(out, value.asInstanceOf[UTF8String].getBytes, isLast); null
      case BinaryType => OrderedBytes.writeEscaped(out, value.asInstanceOf[Array[Byte]], isLast); null
      case d: DecimalType =>
        val decimal = value.asInstanceOf[Decimal].toPrecision(d.precision, d.scale)
        if (decimal == null) throw new HBaseSQLException(s"Value $value does not fit ${d.sql}")
        if (d.precision <= Decimal.MAX_LONG_DIGITS) OrderedBytes.ofUnscaled(decimal.toUnscaledLong)
        else OrderedBytes.ofWideUnscaled(decimal.toJavaBigDecimal.unscaledValue())
      case other => throw new HBaseSQLException(s"Type ${other.sql} cannot be used in a row key")
    }
    if (bytes != null) out.write(bytes, 0, bytes.length)
  }

  /** The next `width` bytes' offset in `buf`'s array, past them; BufferUnderflowException when short. */
  private def take(buf: ByteBuffer, width: Int): Int = {
    if (buf.remaining() < width) throw new java.nio.BufferUnderflowException
    val at = buf.arrayOffset() + buf.position()
    buf.position(buf.position() + width)
    at
  }

  private def readEscaped(buf: ByteBuffer, isLast: Boolean): Array[Byte] = {
    val key = buf.array()
    val from = buf.arrayOffset() + buf.position()
    val limit = buf.arrayOffset() + buf.limit()
    if (isLast) {
      buf.position(buf.limit())
      java.util.Arrays.copyOfRange(key, from, limit)
    } else {
      val end = OrderedBytes.escapedEnd(key, from, limit)
      if (end < 0) throw new java.nio.BufferUnderflowException // no terminator, or a bad escape
      buf.position(end - buf.arrayOffset())
      OrderedBytes.unescape(key, from, end)
    }
  }

  private def read(buf: ByteBuffer, dataType: DataType, isLast: Boolean): Any = {
    val key = buf.array()
    dataType match {
      case BooleanType => OrderedBytes.getBoolean(key, take(buf, 1))
      case ByteType => OrderedBytes.getIntegral(key, take(buf, 1), 1).toByte
      case ShortType => OrderedBytes.getIntegral(key, take(buf, 2), 2).toShort
      case IntegerType | DateType => OrderedBytes.getIntegral(key, take(buf, 4), 4).toInt
      case LongType | TimestampType | TimestampNTZType => OrderedBytes.getIntegral(key, take(buf, 8), 8)
      case FloatType => OrderedBytes.getFloat(key, take(buf, 4))
      case DoubleType => OrderedBytes.getDouble(key, take(buf, 8))
      case StringType => UTF8String.fromBytes(readEscaped(buf, isLast))
      case BinaryType => readEscaped(buf, isLast)
      case d: DecimalType if d.precision <= Decimal.MAX_LONG_DIGITS =>
        Decimal.createUnsafe(OrderedBytes.getIntegral(key, take(buf, 8), 8), d.precision, d.scale)
      case d: DecimalType =>
        val width = OrderedBytes.WIDE_DECIMAL_BYTES
        Decimal(OrderedBytes.getDecimal(key, take(buf, width), width, d.scale), d.precision, d.scale)
      case other => throw new HBaseSQLException(s"Type ${other.sql} cannot be used in a row key")
    }
  }
}
