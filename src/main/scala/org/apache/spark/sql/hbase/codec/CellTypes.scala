// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import org.apache.spark.sql.hbase.server.CellType
import org.apache.spark.sql.types._

/** How a region server reads a value of each SQL type from Binary-format bytes: its `server.CellType`. */
object CellTypes {

  /** The cell type, precision and scale of `dataType` in the Binary format; None for a type it lacks. */
  def binary(dataType: DataType): Option[(Byte, Int, Int)] = dataType match {
    case StringType | BinaryType => Some((CellType.BYTES, 0, 0))
    case BooleanType => Some((CellType.BOOLEAN, 0, 0))
    case ByteType => Some((CellType.BYTE, 0, 0))
    case ShortType => Some((CellType.SHORT, 0, 0))
    case IntegerType | DateType => Some((CellType.INT, 0, 0))
    case LongType | TimestampType | TimestampNTZType => Some((CellType.LONG, 0, 0))
    case FloatType => Some((CellType.FLOAT, 0, 0))
    case DoubleType => Some((CellType.DOUBLE, 0, 0))
    case d: DecimalType => Some((CellType.DECIMAL, d.precision, d.scale))
    case _ => None
  }
}
