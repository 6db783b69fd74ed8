package org.apache.spark.sql.hbase.codec

import java.io.ByteArrayOutputStream
import java.math.BigInteger
import java.nio.ByteBuffer

import org.apache.spark.sql.hbase.HBaseSqlException
import org.apache.spark.sql.hbase.catalog.SupportedTypes
import org.apache.spark.sql.hbase.server.KeyLayout
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Order-preserving binary encoding of a composite row key: comparing two encoded keys as unsigned
 * bytes gives the SQL order of the key tuples.
 *
 * Fixed-width types are big-endian with the sign bit flipped. Strings and binaries are raw bytes
 * when they are the last key column; elsewhere 0x00 is escaped as 0x00 0xFF and the value ends with
 * 0x00 0x00, so a shorter value sorts before any value it is a prefix of.
 */
final class BinaryKeyCodec(val keyTypes: Seq[DataType]) extends KeyCodec {

  keyTypes.foreach(t =>
    if (!BinaryKeyCodec.supports(t)) {
      throw new HBaseSqlException(s"Type ${t.sql} cannot be used in a row key")
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

  override def writes(key: Array[Byte], values: Array[Any]): Boolean =
    java.util.Arrays.equals(encode(values.toSeq), key)

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
  private val Escape: Byte = 0x00
  private val EscapedZero: Byte = 0xff.toByte
  private val Terminator: Byte = 0x00
  // An unscaled DECIMAL(38) fits in 16 bytes of two's complement.
  private val WideDecimalBytes = 16

  def supports(dataType: DataType): Boolean = SupportedTypes.isSupported(dataType)

  /** Bytes a value of the type always takes; None for strings and binaries. */
  def fixedWidth(dataType: DataType): Option[Int] = dataType match {
    case BooleanType | ByteType => Some(1)
    case ShortType => Some(2)
    case IntegerType | DateType | FloatType => Some(4)
    case LongType | TimestampType | TimestampNTZType | DoubleType => Some(8)
    case d: DecimalType => Some(if (d.precision <= Decimal.MAX_LONG_DIGITS) 8 else WideDecimalBytes)
    case _ => None
  }

  /** A value as order-preserving bytes: its encoding as the last key column. */
  def comparable(dataType: DataType, value: Any): Array[Byte] = {
    val out = new ByteArrayOutputStream(16)
    write(out, dataType, value, isLast = true)
    out.toByteArray
  }

  private def writeInt(out: ByteArrayOutputStream, v: Int): Unit = {
    out.write(v >>> 24); out.write(v >>> 16); out.write(v >>> 8); out.write(v)
  }

  private def writeLong(out: ByteArrayOutputStream, v: Long): Unit = {
    writeInt(out, (v >>> 32).toInt); writeInt(out, v.toInt)
  }

  private def writeEscaped(out: ByteArrayOutputStream, bytes: Array[Byte], isLast: Boolean): Unit =
    if (isLast) out.write(bytes, 0, bytes.length)
    else {
      bytes.foreach { b =>
        out.write(b)
        if (b == Escape) out.write(EscapedZero)
      }
      out.write(Escape); out.write(Terminator)
    }

  private def readEscaped(buf: ByteBuffer, isLast: Boolean): Array[Byte] =
    if (isLast) {
      val bytes = new Array[Byte](buf.remaining()); buf.get(bytes); bytes
    } else {
      val out = new ByteArrayOutputStream()
      var done = false
      while (!done) {
        val b = buf.get()
        if (b != Escape) out.write(b)
        else if (buf.get() == EscapedZero) out.write(Escape)
        else done = true
      }
      out.toByteArray
    }

  /** Total order of Spark: -0.0 equals 0.0 and every NaN is one value, above +Infinity. */
  private def orderedBits(d: Double): Long = {
    val normalized = if (d == 0.0d) 0.0d else d
    val bits = java.lang.Double.doubleToLongBits(normalized)
    if (bits < 0) ~bits else bits ^ Long.MinValue
  }

  private def orderedBits(f: Float): Int = {
    val normalized = if (f == 0.0f) 0.0f else f
    val bits = java.lang.Float.floatToIntBits(normalized)
    if (bits < 0) ~bits else bits ^ Int.MinValue
  }

  private def write(out: ByteArrayOutputStream, dataType: DataType, value: Any, isLast: Boolean): Unit = {
    if (value == null) throw new HBaseSqlException("NULL cannot be encoded in a row key")
    dataType match {
      case BooleanType => out.write(if (value.asInstanceOf[Boolean]) 1 else 0)
      case ByteType => out.write(value.asInstanceOf[Byte] ^ 0x80)
      case ShortType =>
        val v = value.asInstanceOf[Short] ^ 0x8000
        out.write(v >>> 8); out.write(v)
      case IntegerType | DateType => writeInt(out, value.asInstanceOf[Int] ^ Int.MinValue)
      case LongType | TimestampType | TimestampNTZType => writeLong(out, value.asInstanceOf[Long] ^ Long.MinValue)
      case FloatType => writeInt(out, orderedBits(value.asInstanceOf[Float]))
      case DoubleType => writeLong(out, orderedBits(value.asInstanceOf[Double]))
      case StringType => writeEscaped(out, value.asInstanceOf[UTF8String].getBytes, isLast)
      case BinaryType => writeEscaped(out, value.asInstanceOf[Array[Byte]], isLast)
      case d: DecimalType =>
        val decimal = value.asInstanceOf[Decimal].toPrecision(d.precision, d.scale)
        if (decimal == null) throw new HBaseSqlException(s"Value $value does not fit ${d.sql}")
        if (d.precision <= Decimal.MAX_LONG_DIGITS) writeLong(out, decimal.toUnscaledLong ^ Long.MinValue)
        else {
          val unscaled = decimal.toJavaBigDecimal.unscaledValue().toByteArray
          val padded = new Array[Byte](WideDecimalBytes)
          val fill: Byte = if (unscaled(0) < 0) -1 else 0
          java.util.Arrays.fill(padded, 0, WideDecimalBytes - unscaled.length, fill)
          System.arraycopy(unscaled, 0, padded, WideDecimalBytes - unscaled.length, unscaled.length)
          padded(0) = (padded(0) ^ 0x80).toByte
          out.write(padded, 0, padded.length)
        }
      case other => throw new HBaseSqlException(s"Type ${other.sql} cannot be used in a row key")
    }
  }

  private def read(buf: ByteBuffer, dataType: DataType, isLast: Boolean): Any = dataType match {
    case BooleanType => buf.get() != 0
    case ByteType => (buf.get() ^ 0x80).toByte
    case ShortType => (buf.getShort() ^ 0x8000).toShort
    case IntegerType | DateType => buf.getInt() ^ Int.MinValue
    case LongType | TimestampType | TimestampNTZType => buf.getLong() ^ Long.MinValue
    case FloatType =>
      val bits = buf.getInt()
      java.lang.Float.intBitsToFloat(if (bits < 0) bits ^ Int.MinValue else ~bits)
    case DoubleType =>
      val bits = buf.getLong()
      java.lang.Double.longBitsToDouble(if (bits < 0) bits ^ Long.MinValue else ~bits)
    case StringType => UTF8String.fromBytes(readEscaped(buf, isLast))
    case BinaryType => readEscaped(buf, isLast)
    case d: DecimalType =>
      if (d.precision <= Decimal.MAX_LONG_DIGITS)
        Decimal.createUnsafe(buf.getLong() ^ Long.MinValue, d.precision, d.scale)
      else {
        val bytes = new Array[Byte](WideDecimalBytes)
        buf.get(bytes)
        bytes(0) = (bytes(0) ^ 0x80).toByte
        Decimal(new java.math.BigDecimal(new BigInteger(bytes), d.scale), d.precision, d.scale)
      }
    case other => throw new HBaseSqlException(s"Type ${other.sql} cannot be used in a row key")
  }
}
