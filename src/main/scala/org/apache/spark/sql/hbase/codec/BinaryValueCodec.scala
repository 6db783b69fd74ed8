package org.apache.spark.sql.hbase.codec

import java.math.BigInteger
import java.nio.ByteBuffer

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.HBaseSqlException
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Encoding of non-key cell values. It matches HBase's own `Bytes.toBytes` for the types Java
 * clients write (big-endian numbers, IEEE floats, UTF-8 strings), so existing data reads as is.
 * A NULL is never encoded: it is stored as a missing cell.
 */
object BinaryValueCodec extends ValueCodec {

  override def encode(dataType: DataType, value: Any): Array[Byte] = dataType match {
    case BooleanType => Array[Byte](if (value.asInstanceOf[Boolean]) -1 else 0)
    case ByteType => Array[Byte](value.asInstanceOf[Byte])
    case ShortType => ByteBuffer.allocate(2).putShort(value.asInstanceOf[Short]).array()
    case IntegerType | DateType => ByteBuffer.allocate(4).putInt(value.asInstanceOf[Int]).array()
    case LongType | TimestampType | TimestampNTZType => ByteBuffer.allocate(8).putLong(value.asInstanceOf[Long]).array()
    case FloatType => ByteBuffer.allocate(4).putFloat(value.asInstanceOf[Float]).array()
    case DoubleType => ByteBuffer.allocate(8).putDouble(value.asInstanceOf[Double]).array()
    case StringType => value.asInstanceOf[UTF8String].getBytes
    case BinaryType => value.asInstanceOf[Array[Byte]]
    case d: DecimalType =>
      // Scale then unscaled two's complement, as Bytes.toBytes(BigDecimal) writes it.
      val big = value.asInstanceOf[Decimal].toJavaBigDecimal
      val unscaled = big.unscaledValue().toByteArray
      ByteBuffer.allocate(4 + unscaled.length).putInt(big.scale()).put(unscaled).array()
    case other => throw new HBaseSqlException(s"Type ${other.sql} cannot be stored in a cell")
  }

  // The common types without boxing their values; the bytes are those of encode.
  override def encoder(dataType: DataType): (InternalRow, Int) => Array[Byte] = dataType match {
    case IntegerType | DateType => (row, i) => bigEndian(row.getInt(i).toLong, 4)
    case LongType | TimestampType | TimestampNTZType => (row, i) => bigEndian(row.getLong(i), 8)
    case DoubleType => (row, i) => bigEndian(java.lang.Double.doubleToRawLongBits(row.getDouble(i)), 8)
    case StringType => (row, i) => row.getUTF8String(i).getBytes
    case d: DecimalType => (row, i) =>
        val decimal = row.getDecimal(i, d.precision, d.scale)
        if (decimal.precision > Decimal.MAX_LONG_DIGITS) encode(d, decimal)
        else {
          val (unscaled, scale) = (decimal.toUnscaledLong, decimal.scale)
          // As BigInteger.toByteArray: the fewest bytes of two's complement that keep the sign.
          val width = (64 - java.lang.Long.numberOfLeadingZeros(if (unscaled < 0) ~unscaled else unscaled)) / 8 + 1
          val bytes = bigEndian(unscaled, 4 + width)
          bytes(0) = (scale >>> 24).toByte; bytes(1) = (scale >>> 16).toByte; bytes(2) = (scale >>> 8).toByte;
          bytes(3) = scale.toByte
          bytes
        }
    case _ => super.encoder(dataType)
  }

  /** The low `width` bytes of `value` (sign-extended beyond 8), most significant first. */
  private def bigEndian(value: Long, width: Int): Array[Byte] = {
    val bytes = new Array[Byte](width)
    var i = width - 1
    var v = value
    while (i >= 0) { bytes(i) = v.toByte; v >>= 8; i -= 1 }
    bytes
  }

  /** A cell of the wrong width for its type, e.g. written by another tool, reads as NULL. */
  override def decode(dataType: DataType, bytes: Array[Byte], offset: Int, length: Int): Any = {
    val buf = ByteBuffer.wrap(bytes, offset, length)
    def fixed(width: Int)(read: => Any): Any = if (length == width) read else null
    dataType match {
      case BooleanType => fixed(1)(bytes(offset) != 0)
      case ByteType => fixed(1)(bytes(offset))
      case ShortType => fixed(2)(buf.getShort())
      case IntegerType | DateType => fixed(4)(buf.getInt())
      case LongType | TimestampType | TimestampNTZType => fixed(8)(buf.getLong())
      case FloatType => fixed(4)(buf.getFloat())
      case DoubleType => fixed(8)(buf.getDouble())
      case StringType => UTF8String.fromBytes(bytes, offset, length)
      case BinaryType => java.util.Arrays.copyOfRange(bytes, offset, offset + length)
      case d: DecimalType if length > 4 && length <= 12 && buf.getInt(offset) == d.scale =>
        // The common case, at the column's scale and within a LONG: no BigInteger needed.
        var unscaled = bytes(offset + 4).toLong // sign-extended
        var i = offset + 5
        while (i < offset + length) { unscaled = (unscaled << 8) | (bytes(i) & 0xff); i += 1 }
        new Decimal().setOrNull(unscaled, d.precision, d.scale)
      case d: DecimalType if length > 4 =>
        val scale = buf.getInt()
        val unscaled = new Array[Byte](length - 4)
        buf.get(unscaled)
        val big = new java.math.BigDecimal(new BigInteger(unscaled), scale)
        Decimal.fromDecimal(big).toPrecision(d.precision, d.scale)
      case _: DecimalType => null
      case other => throw new HBaseSqlException(s"Type ${other.sql} cannot be read from a cell")
    }
  }
}
