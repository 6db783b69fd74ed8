// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.server.CellBytes
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Encoding of non-key cell values: the bytes of `server.CellBytes`, which region servers read too.
 * They match HBase's own `Bytes.toBytes` for the types Java clients write (big-endian numbers, IEEE
 * floats, UTF-8 strings), so existing data reads as is. A NULL is never encoded: it is stored as a
 * missing cell.
 */
object BinaryValueCodec extends ValueCodec {

  override def encode(dataType: DataType, value: Any): Array[Byte] = dataType match {
    case BooleanType => CellBytes.ofBoolean(value.asInstanceOf[Boolean])
    case ByteType => CellBytes.ofIntegral(value.asInstanceOf[Byte].toLong, 1)
    case ShortType => CellBytes.ofIntegral(value.asInstanceOf[Short].toLong, 2)
    case IntegerType | DateType => CellBytes.ofIntegral(value.asInstanceOf[Int].toLong, 4)
    case LongType | TimestampType | TimestampNTZType => CellBytes.ofIntegral(value.asInstanceOf[Long], 8)
    case FloatType => CellBytes.ofFloat(value.asInstanceOf[Float])
    case DoubleType => CellBytes.ofDouble(value.asInstanceOf[Double])
    case StringType => value.asInstanceOf[UTF8String].getBytes
    case BinaryType => value.asInstanceOf[Array[Byte]]
    case _: DecimalType => CellBytes.ofDecimal(value.asInstanceOf[Decimal].toJavaBigDecimal)
    case other => throw new HBaseSQLException(s"Type ${other.sql} cannot be stored in a cell")
  }

  // The common types without boxing their values; the bytes are those of encode.
  override def encoder(dataType: DataType): (InternalRow, Int) => Array[Byte] = dataType match {
    case IntegerType | DateType => (row, i) => CellBytes.ofIntegral(row.getInt(i).toLong, 4)
    case LongType | TimestampType | TimestampNTZType => (row, i) => CellBytes.ofIntegral(row.getLong(i), 8)
    case DoubleType => (row, i) => CellBytes.ofDouble(row.getDouble(i))
    case StringType => (row, i) => row.getUTF8String(i).getBytes
    case d: DecimalType => (row, i) =>
        val decimal = row.getDecimal(i, d.precision, d.scale)
        if (decimal.precision > Decimal.MAX_LONG_DIGITS) encode(d, decimal)
        else CellBytes.ofDecimal(decimal.toUnscaledLong, decimal.scale)
    case _ => super.encoder(dataType)
  }

  /** A cell of the wrong width for its type, e.g. written by another tool, reads as NULL. */
  override def decode(dataType: DataType, bytes: Array[Byte], offset: Int, length: Int): Any = {
    def fixed(width: Int)(read: => Any): Any = if (length == width) read else null
    dataType match {
      case BooleanType => fixed(1)(CellBytes.getBoolean(bytes, offset))
      case ByteType => fixed(1)(bytes(offset))
      case ShortType => fixed(2)(CellBytes.getIntegral(bytes, offset, 2).toShort)
      case IntegerType | DateType => fixed(4)(CellBytes.getIntegral(bytes, offset, 4).toInt)
      case LongType | TimestampType | TimestampNTZType => fixed(8)(CellBytes.getIntegral(bytes, offset, 8))
      case FloatType => fixed(4)(CellBytes.getFloat(bytes, offset))
      case DoubleType => fixed(8)(CellBytes.getDouble(bytes, offset))
      case StringType => UTF8String.fromBytes(bytes, offset, length)
      case BinaryType => java.util.Arrays.copyOfRange(bytes, offset, offset + length)
      case d: DecimalType if CellBytes.isCompactDecimal(d.scale, bytes, offset, length) =>
        // The common case, at the column's scale and within a LONG: no BigDecimal needed.
        new Decimal().setOrNull(CellBytes.compactUnscaled(bytes, offset, length), d.precision, d.scale)
      case d: DecimalType =>
        val value = CellBytes.getDecimal(d.precision, d.scale, bytes, offset, length)
        if (value == null) null else Decimal(value, d.precision, d.scale)
      case other => throw new HBaseSQLException(s"Type ${other.sql} cannot be read from a cell")
    }
  }
}
